//! Panel 5: Theorem 3's inclusion curves, the figure behind and CP's curve (which moves with
//! α) on the overlay canvas in front.

use super::CURVE_POINTS;
use crate::ui::app::{App, THEOREM3_FRONT};
use crate::ui::dom::set_text;
use crate::ui::figure::Layer;
use crate::ui::{canvas, panels};
use rvalue_model::message::sentence;
use rvalue_model::scales::short;
use rvalue_model::{inclusion_curves, InclusionInputs, Mode};

impl App {
    /// Panel 5: Theorem 3's curves at the current α and β.
    /// Panel 5: Theorem 3's curves at the current α and β. `whole`: the figure (axes, CP_r's
    /// curve, the σ² marker) and its front layer (CP's curve, which alone moves with α, and the
    /// legend); else only the front layer, on the overlay canvas.
    pub(super) fn render_theorem3(&mut self, whole: bool) {
        let c = &self.controls;
        let grid = panels::sigma2_axis(CURVE_POINTS);
        let analysis = self.analysis.as_ref().filter(|a| a.controls.mode == c.mode);
        let inputs = match (c.mode, analysis) {
            (Mode::Toy, _) => InclusionInputs::toy(&c.toy_params(), c.alpha, c.beta),
            (Mode::Scores, Some(a)) => a.inclusion_inputs(c.alpha, c.beta),
            (Mode::Scores, None) => return self.no_theorem3(self.waiting_for_scores(true)),
        };
        let note = format!("α = {}, β = {}; σ² = {} marked.", short(c.alpha), short(c.beta), short(c.sigma2));
        match inputs.and_then(|i| inclusion_curves(&i, &grid)) {
            Ok(inc) => {
                let fig = panels::theorem3(&inc, c.sigma2);
                if whole || self.theorem3_frame.is_none() {
                    self.theorem3_frame = self.draw_sized("plot-theorem3", &fig, Layer::Back);
                }
                if let Some(frame) = &self.theorem3_frame {
                    if let Err(e) = canvas::draw_front(&self.doc, THEOREM3_FRONT, &fig, frame) {
                        web_sys::console::warn_1(&format!("#{THEOREM3_FRONT}: {e}").into());
                    }
                    if let Some(e) = self.doc.get_element_by_id(THEOREM3_FRONT) {
                        let _ = e.set_attribute("data-alpha", &short(self.controls.alpha));
                    }
                    self.keep("plot-theorem3", fig);
                }
                set_text(&self.doc, "theorem3-note", &note);
            }
            Err(e) => self.no_theorem3(&sentence(&e)),
        }
    }

    /// Panel 5 without a figure: `why` in its note, both canvases blank.
    fn no_theorem3(&mut self, why: &str) {
        set_text(&self.doc, "theorem3-note", why);
        self.blank("plot-theorem3");
        self.blank(THEOREM3_FRONT);
        self.theorem3_frame = None;
    }
}
