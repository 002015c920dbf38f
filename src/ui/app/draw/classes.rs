//! Panel 9: coverage by class and by set size at α, from the tallies of panel 6's pass; the
//! worst classes as buttons that open the inspector on a test item of the class.

use std::cell::RefCell;

use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

use crate::ui::app::App;
use crate::ui::canvas;
use crate::ui::dom::{set_hidden, set_text};
use rvalue_model::classes::ClassView;
use rvalue_model::figure::classes::{classes, strata_head, strata_table};
use rvalue_model::ids;
use rvalue_model::page::ItemMove;
use rvalue_model::AlphaView;
use rvalue_plot::Layer;

/// Panel 9's canvas.
const CANVAS: &str = ids::PLOT_CLASSES;

impl App {
    /// The class names of the file on show, if it gives them.
    pub(in crate::ui::app) fn class_names(&self) -> Option<&[String]> {
        self.source.class_names()
    }

    /// Panel 9 at the view's α.
    pub(super) fn render_classes(&self, v: &AlphaView) {
        let Some(a) = self.shown.get() else { return };
        let d = &self.doc;
        let names = if a.toy.is_some() { None } else { self.class_names() };
        let cv = ClassView::new(v, a.k, a.toy.is_some());
        // The figure first: sizing it reads its canvas' box, which the writes below would make
        // a layout. An α move alone cannot change that box, so it redraws at the size it has.
        // Off screen, it is only kept (for exports, and to be drawn when it comes near).
        let fig = classes(&cv, names);
        let cc = self.drawn.classes_canvas();
        if cc.sized() && cc.skipped() {
            self.keep(CANVAS, fig);
            cc.set_stale(true);
        } else if cc.sized() {
            self.redraw(CANVAS, fig);
            cc.set_stale(false);
        } else {
            let shown = self.draw_sized(CANVAS, &fig, Layer::Whole).is_some();
            if shown {
                self.keep(CANVAS, fig);
            }
            cc.set_sized(shown);
            cc.set_stale(false);
        }
        set_hidden(d, ids::CLASSES_NOTE, cv.note.is_none());
        set_text(d, ids::CLASSES_NOTE, cv.note.unwrap_or(""));
        set_text(d, ids::CLASSES_READOUT, &cv.readout());
        let worst: Vec<(usize, String)> = if cv.note.is_some() {
            Vec::new()
        } else {
            cv.worst.iter().map(|w| (w.class, cv.worst_text(w, names))).collect()
        };
        show_worst(d, &worst, self.drawn.tables().worst());
        set_hidden(d, ids::WORST_HEADING, worst.is_empty());
        let head = strata_head(&cv);
        let tables = self.drawn.tables();
        tables.show_strata_head(d, head);
        tables.strata().show(d, "#strata-body", &strata_table(&cv), None);
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
        show_worst(d, &[], tables.worst());
        set_hidden(d, ids::WORST_HEADING, true);
        tables.show_strata_head(d, String::new());
        tables.strata().show(d, "#strata-body", &[], None);
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
/// file's, never markup). `shown` is what the list holds: with as many lines, the buttons that
/// changed are rewritten in place; otherwise the list is built afresh.
fn show_worst(d: &Document, worst: &[(usize, String)], shown: &RefCell<Vec<(usize, String)>>) {
    let Some(list) = d.get_element_by_id(ids::WORST_CLASSES) else { return };
    let mut shown = shown.borrow_mut();
    if *shown == worst {
        return;
    }
    let items = list.children();
    let in_place = items.length() as usize == shown.len()
        && shown.len() == worst.len()
        && shown.iter().zip(worst).enumerate().all(|(i, (old, new))| {
            old == new
                || items.item(i as u32).and_then(|li| li.first_element_child()).is_some_and(|b| {
                    b.set_text_content(Some(&new.1));
                    b.set_attribute("data-class", &new.0.to_string()).is_ok()
                })
        });
    if !in_place {
        list.set_text_content(None);
        for (class, text) in worst {
            let _ = item(d, *class, text).map(|li| list.append_child(&li));
        }
    }
    *shown = worst.to_vec();
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
