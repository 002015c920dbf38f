//! Panels 3 and 4: coverage and set size against α, their α markers and readouts, and the
//! tables at each α slider position that make an α move a lookup.

use web_sys::HtmlCanvasElement;

use super::table::{show_summary, show_summary_rows};
use crate::ui::app::{App, ALPHA_PLOTS};
use crate::ui::canvas;
use crate::ui::dom::{by_id, set_text};
use rvalue_model::figure::panels;
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::scales::short;
use rvalue_model::view::{alpha_readouts, ALPHA_READOUTS};
use rvalue_model::Mode;
use rvalue_plot::Layer;

impl App {
    /// While idle, computes the table at one more α slider position; true if one was computed.
    pub(in crate::ui::app) fn warm_alpha_views(&mut self) -> bool {
        !self.compute.is_running() && self.shown.warm_alpha_view(self.controls.never_empty)
    }

    /// The figures of panels 3 and 4 (curves against α), without the current α.
    pub(super) fn render_sweep(&mut self) {
        let never_empty = self.controls.never_empty;
        for (i, (id, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let frame = self.shown.get().and_then(|a| {
                let fig = panels::against_alpha(a.sweep(never_empty), a.methods(), coverage);
                let frame = self.draw_sized(id, &fig, Layer::Whole);
                if frame.is_some() {
                    self.drawn.keep(id, fig);
                }
                frame
            });
            if frame.is_none() {
                // Nothing drawn (no analysis, or hidden): no marker either.
                if let Ok(c) = by_id::<HtmlCanvasElement>(&self.doc, overlay) {
                    c.set_width(0);
                    c.set_height(0);
                }
            }
            self.drawn.set_alpha_frame(i, frame);
        }
    }

    /// What α moves, from the stored analysis: the α markers over panels 3 and 4, their
    /// readouts, panel 6's cells and panel 7. Writes only what changed, and reads no layout.
    pub(super) fn render_alpha(&mut self) {
        if self.shown.get().is_none() {
            return self.clear_alpha();
        }
        let (alpha, never_empty) = (self.controls.alpha, self.controls.never_empty);
        let view = match self.shown.alpha_view(alpha, never_empty) {
            Ok(v) => Some(v),
            Err(e) => {
                self.show_error(Some(&sentence(&e)));
                None
            }
        };
        if let Some(v) = &view {
            // Panel 9's figure reads its canvas' box: before this frame writes anything.
            self.render_classes(v);
        }
        let d = &self.doc;
        let view = view.as_ref();
        let label = short(alpha);
        for (i, (_, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let Some(frame) = self.drawn.alpha_frame(i) else { continue };
            let marker = panels::alpha_marker(view, alpha, coverage);
            if let Err(e) = canvas::draw_marker(d, overlay, frame, Some(&marker)) {
                web_sys::console::warn_1(&format!("#{overlay}: {e}").into());
            }
            if let Some(e) = d.get_element_by_id(overlay) {
                let _ = e.set_attribute("data-alpha", &label);
            }
        }
        if let Some(v) = view {
            let toy = self.shown.get().is_some_and(|a| a.controls.mode == Mode::Toy);
            let [coverage, size, reduction] = alpha_readouts(v, toy);
            self.write_texts(&[coverage, size]);
            show_summary(d, v, self.drawn.tables());
            self.write_texts(&[reduction]);
            self.tour_outcome(v);
        }
        self.render_item();
    }

    /// With no analysis on show: panel 6's tables and the readouts of panels 3, 4 and 6 empty,
    /// as are panel 9 and panel 7 (nothing the page shows may be left from an analysis no longer on show).
    fn clear_alpha(&mut self) {
        let d = &self.doc;
        for id in ALPHA_READOUTS {
            set_text(d, id, "–");
        }
        show_summary_rows(d, self.drawn.tables(), Vec::new(), Vec::new());
        self.clear_classes();
        if !self.drawn.inspector().is_empty() {
            crate::ui::dom::set_html(d, ids::INSPECTOR, "");
            set_text(d, ids::ITEM_INFO, "");
            self.drawn.set_inspector(Vec::new());
        }
    }
}
