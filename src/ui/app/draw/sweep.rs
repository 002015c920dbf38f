//! Panels 3 and 4: coverage and set size against α, their α markers and readouts, and the
//! tables at each α slider position that make an α move a lookup.

use web_sys::HtmlCanvasElement;

use super::table::show_summary;
use super::warned;
use crate::ui::app::{App, ALPHA_PLOTS};
use crate::ui::canvas;
use crate::ui::dom::{apply, by_id};
use rvalue_model::figure::panels;
use rvalue_model::message::sentence;
use rvalue_model::view::{alpha_cleared, alpha_edits};
use rvalue_model::Mode;

impl App {
    /// While idle, computes the table at one more α slider position; true if one was computed.
    pub(in crate::ui::app) fn warm_alpha_views(&mut self) -> bool {
        !self.compute.is_running() && self.shown.warm_alpha_view(self.controls.never_empty)
    }

    /// The figures of panels 3 and 4 (curves against α), without the current α.
    pub(super) fn render_sweep(&mut self) {
        let never_empty = self.controls.never_empty;
        for (i, (id, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let figure =
                self.shown.get().map(|a| panels::against_alpha(a.sweep(never_empty), a.methods(), coverage));
            let frame = figure.and_then(|fig| self.draw(id, fig));
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
        let (d, view) = (&self.doc, view.as_ref());
        let mut drawn = [None; ALPHA_PLOTS.len()];
        for (i, (_, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let Some(frame) = self.drawn.alpha_frame(i) else { continue };
            let marker = panels::alpha_marker(view, alpha, coverage);
            warned(overlay, canvas::draw_marker(d, overlay, frame, Some(&marker)));
            drawn[i] = Some(overlay);
        }
        let toy = self.shown.get().is_some_and(|a| a.controls.mode == Mode::Toy);
        apply(d, &alpha_edits(view, alpha, toy, drawn.into_iter().flatten()));
        if let Some(v) = view {
            show_summary(d, Some(v), self.drawn.tables());
            self.tour_outcome(v);
        }
        self.render_item();
    }

    /// With no analysis on show: panel 6's tables and the readouts of panels 3, 4 and 6 empty,
    /// as are panel 9 and panel 7 (nothing the page shows may be left from an analysis no longer on show).
    fn clear_alpha(&mut self) {
        let d = &self.doc;
        apply(d, &alpha_cleared(!self.drawn.inspector().is_empty()));
        show_summary(d, None, self.drawn.tables());
        self.clear_classes();
        self.drawn.set_inspector(Vec::new());
    }
}
