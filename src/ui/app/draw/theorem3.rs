//! Panel 5: Theorem 3's inclusion curves ([`rvalue_model::view::theorem3_view`]), the figure
//! behind and CP's curve (which moves with α) on the overlay canvas in front.

use super::warned;
use crate::ui::app::{App, THEOREM3_FRONT};
use crate::ui::canvas;
use crate::ui::dom;
use rvalue_model::ids;
use rvalue_model::scales::short;
use rvalue_model::view::theorem3_view;
use rvalue_plot::Layer;

impl App {
    /// Panel 5 at the current α and β from the analysis on show. `whole`: the figure's back
    /// (axes, the σ² marker) and its front layer (the curves, which move with α, and the
    /// legend); else the front layer alone. Without a figure, both canvases are blank.
    pub(super) fn render_theorem3(&mut self, whole: bool) {
        let v = theorem3_view(&self.controls, self.analysis_in_mode(), self.source.is_loaded());
        let mut texts = v.edits();
        let Some(fig) = v.figure else {
            dom::apply(&self.doc, &texts);
            self.blank(ids::PLOT_THEOREM3);
            self.blank(THEOREM3_FRONT);
            return self.drawn.set_theorem3_frame(None);
        };
        if whole || self.drawn.theorem3_frame().is_none() {
            let frame = self.draw_sized(ids::PLOT_THEOREM3, &fig, Layer::Back);
            self.drawn.set_theorem3_frame(frame);
        }
        if let Some(frame) = self.drawn.theorem3_frame() {
            warned(THEOREM3_FRONT, canvas::draw_front(&self.doc, THEOREM3_FRONT, &fig, frame));
            texts.attr(THEOREM3_FRONT, "data-alpha", short(self.controls.alpha));
            self.drawn.keep(ids::PLOT_THEOREM3, fig);
        }
        // Written after the drawing: a canvas' box read after a DOM write forces a layout.
        dom::apply(&self.doc, &texts);
    }
}
