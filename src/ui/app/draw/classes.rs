//! Panel 9: coverage by class and by set size at α, from the tallies of panel 6's pass; the
//! worst classes as buttons that open the inspector on a test item of the class.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

use super::table::show_rows;
use crate::ui::app::App;
use crate::ui::canvas;
use crate::ui::dom::{set_hidden, set_html, set_text};
use rvalue_model::ids;
use rvalue_model::page::{ItemMove, Written};
use rvalue_model::view::classes_view;
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
        let (fig, cc) = (cv.figure, self.drawn.classes_canvas());
        if cc.sized() && cc.skipped() {
            self.drawn.keep(CANVAS, fig);
            cc.set_stale(true);
        } else if cc.sized() {
            self.redraw(CANVAS, fig);
            cc.set_stale(false);
        } else {
            let shown = self.draw_sized(CANVAS, &fig, Layer::Whole).is_some();
            if shown {
                self.drawn.keep(CANVAS, fig);
            }
            cc.set_sized(shown);
            cc.set_stale(false);
        }
        set_hidden(d, ids::CLASSES_NOTE, cv.note.is_none());
        set_text(d, ids::CLASSES_NOTE, cv.note.unwrap_or(""));
        set_text(d, ids::CLASSES_READOUT, &cv.readout);
        set_hidden(d, ids::WORST_HEADING, cv.worst.is_empty());
        let tables = self.drawn.tables();
        show_worst(d, cv.worst, &tables.worst);
        tables.strata_head.update(cv.strata_head, |_, h| set_html(d, ids::STRATA_HEAD, h));
        show_rows(d, &tables.strata, "#strata-body", cv.strata, None);
    }

    /// Panel 9 coming into view (`skipped` false) or leaving it: a figure kept while it was off
    /// screen is drawn now, before the browser paints the panel.
    pub(in crate::ui::app) fn classes_in_view(&self, skipped: bool) {
        self.drawn.classes_canvas().set_skipped(skipped);
        if !skipped {
            self.draw_stale_classes();
        }
    }

    /// Panel 9 with no analysis on show: its figure, readout, worst classes and table empty (a
    /// figure of an analysis no longer on show must not stay).
    pub(super) fn clear_classes(&self) {
        let d = &self.doc;
        self.blank(CANVAS);
        self.drawn.classes_canvas().set_stale(false);
        set_hidden(d, ids::CLASSES_NOTE, true);
        set_text(d, ids::CLASSES_READOUT, "–");
        let tables = self.drawn.tables();
        show_worst(d, Vec::new(), &tables.worst);
        set_hidden(d, ids::WORST_HEADING, true);
        tables.strata_head.update(String::new(), |_, h| set_html(d, ids::STRATA_HEAD, h));
        show_rows(d, &tables.strata, "#strata-body", Vec::new(), None);
    }

    /// Draws panel 9's kept figure if its canvas shows an older one.
    pub(in crate::ui::app) fn draw_stale_classes(&self) {
        if !self.drawn.classes_canvas().take_stale() {
            return;
        }
        self.drawn.with_figure(CANVAS, |fig| {
            if let Err(e) = canvas::redraw_figure(&self.doc, CANVAS, fig, Layer::Whole, self.font()) {
                web_sys::console::warn_1(&format!("#{CANVAS}: {e}").into());
            }
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
        if let Some(i) = self.doc.get_element_by_id(ids::ITEM_INDEX) {
            if let Ok(i) = i.dyn_into::<web_sys::HtmlElement>() {
                let _ = i.focus();
            }
        }
    }
}

/// The worst classes' list: a button per class, its text set as text (a class name is the
/// file's, never markup). With as many lines as it shows, the buttons that changed are
/// rewritten in place; otherwise the list is built afresh.
fn show_worst(d: &Document, worst: Vec<(usize, String)>, shown: &Written<Vec<(usize, String)>>) {
    let Some(list) = d.get_element_by_id(ids::WORST_CLASSES) else { return };
    shown.update(worst, |old, new| {
        let items = list.children();
        let in_place = items.length() as usize == old.len()
            && old.len() == new.len()
            && old.iter().zip(new).enumerate().all(|(i, (old, new))| {
                old == new
                    || items.item(i as u32).and_then(|li| li.first_element_child()).is_some_and(|b| {
                        b.set_text_content(Some(&new.1));
                        b.set_attribute("data-class", &new.0.to_string()).is_ok()
                    })
            });
        if !in_place {
            list.set_text_content(None);
            for (class, text) in new {
                let _ = item(d, *class, text).map(|li| list.append_child(&li));
            }
        }
    });
}

fn item(d: &Document, class: usize, text: &str) -> Option<Element> {
    let li = d.create_element("li").ok()?;
    let button = d.create_element("button").ok()?;
    let _ = button.set_attribute("type", "button");
    let _ = button.set_attribute("data-class", &class.to_string());
    let _ = button.set_attribute("title", "Open the item inspector on a test item of this class");
    button.set_text_content(Some(text));
    li.append_child(&button).ok()?;
    Some(li)
}
