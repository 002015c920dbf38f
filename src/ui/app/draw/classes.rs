//! Panel 9: coverage by class and by set size at α, from the tallies of panel 6's pass; the
//! worst classes as buttons that open the inspector on a test item of the class.

use web_sys::Document;

use super::table::show_rows;
use super::warned;
use crate::ui::app::App;
use crate::ui::canvas;
use crate::ui::dom::{apply, by_id, set_html};
use rvalue_model::figure::tables::TableRow;
use rvalue_model::ids;
use rvalue_model::page::{ItemMove, Tables};
use rvalue_model::view::{classes_view, worst_html};
use rvalue_model::AlphaView;
use rvalue_plot::Layer;

/// Panel 9's canvas.
const CANVAS: &str = ids::PLOT_CLASSES;

impl App {
    /// Panel 9 at the view's α.
    pub(super) fn render_classes(&self, v: &AlphaView) {
        let Some(a) = self.shown.get() else { return };
        let d = &self.doc;
        let cv = classes_view(v, a, self.source.class_names());
        // The figure first: sizing it reads its canvas' box, which the writes below would make
        // a layout. An α move alone cannot change that box, so it redraws at the size it has.
        // Off screen, it is only kept (for exports, and to be drawn when it comes near).
        let (edits, cc) = (cv.edits(), self.drawn.classes_canvas());
        cc.set_stale(cc.sized() && cc.skipped());
        match (cc.sized(), cc.skipped()) {
            (true, true) => self.drawn.keep(CANVAS, cv.figure),
            (true, false) => self.redraw(CANVAS, cv.figure),
            (false, _) => cc.set_sized(self.draw(CANVAS, cv.figure).is_some()),
        }
        apply(d, &edits);
        show_lists(d, self.drawn.tables(), cv.worst, cv.strata_head, cv.strata);
    }

    /// Panel 9 coming into view (`skipped` false) or leaving it: a figure kept while it was off
    /// screen is drawn now, before the browser paints the panel.
    pub(in crate::ui::app) fn classes_in_view(&self, skipped: bool) {
        self.drawn.classes_canvas().set_skipped(skipped);
        if !skipped {
            self.draw_stale_classes();
        }
    }

    /// Panel 9 with no analysis on show: its figure, worst classes and table empty (a figure of
    /// an analysis no longer on show must not stay); its texts are
    /// [`rvalue_model::view::alpha_cleared`]'s.
    pub(super) fn clear_classes(&self) {
        self.blank(CANVAS);
        self.drawn.classes_canvas().set_stale(false);
        show_lists(&self.doc, self.drawn.tables(), Vec::new(), String::new(), Vec::new());
    }

    /// Draws panel 9's kept figure if its canvas shows an older one.
    pub(in crate::ui::app) fn draw_stale_classes(&self) {
        if !self.drawn.classes_canvas().take_stale() {
            return;
        }
        self.drawn.with_figure(CANVAS, |fig| {
            warned(CANVAS, canvas::redraw_figure(&self.doc, CANVAS, fig, Layer::Whole, self.font()));
        });
    }

    /// Opens the inspector on a test item of class `class` (a worst class clicked).
    pub(in crate::ui::app) fn open_class(&mut self, class: usize) {
        let (alpha, ne) = (self.controls.alpha, self.controls.never_empty);
        let Some(t) = self.shown.get().and_then(|a| a.test_item_of_class(class, alpha, ne)) else {
            self.show_error(Some(&format!("The first split tests no item of class {class}.")));
            return;
        };
        self.step_item(ItemMove::To(t));
        if let Some(p) = self.doc.get_element_by_id(ids::PANEL_INSPECTOR) {
            p.scroll_into_view();
        }
        if let Ok(i) = by_id::<web_sys::HtmlElement>(&self.doc, ids::ITEM_INDEX) {
            let _ = i.focus();
        }
    }
}

/// Panel 9's worst classes ([`worst_html`]), its strata table's head and its rows, each
/// written only where it differs from what the page shows.
fn show_lists(d: &Document, t: &Tables, worst: Vec<(usize, String)>, head: String, strata: Vec<TableRow>) {
    t.worst.update(worst, |_, w| set_html(d, ids::WORST_CLASSES, &worst_html(w)));
    t.strata_head.update(head, |_, h| set_html(d, ids::STRATA_HEAD, h));
    show_rows(d, &t.strata, &format!("#{}", ids::STRATA_BODY), strata, None);
}
