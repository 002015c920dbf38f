//! Panel 5: Theorem 3's inclusion curves, the figure behind and CP's curve (which moves with
//! α) on the overlay canvas in front, the readout at the σ² marker and what the curves hold.

use super::CURVE_POINTS;
use crate::ui::app::{App, THEOREM3_FRONT};
use crate::ui::canvas;
use crate::ui::dom::set_text;
use rvalue_model::figure::{panels, placeholder};
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::page::readouts::{theorem3_cuts, theorem3_note};
use rvalue_model::scales::short;
use rvalue_model::{inclusion_curves, sigma2_grid, theorem3_held, theorem3_readout, Mode};
use rvalue_plot::Layer;

impl App {
    /// Panel 5: Theorem 3's curves at the current α and β from the analysis on show. `whole`:
    /// the figure's back (axes, the σ² marker) and its front layer (the curves, which move with
    /// α, and the legend); else the front layer alone.
    pub(super) fn render_theorem3(&mut self, whole: bool) {
        let c = &self.controls;
        let Some(a) = self.shown.get().filter(|a| a.controls.mode == c.mode) else {
            let why = match c.mode {
                Mode::Toy => placeholder::THEOREM3_TOY_WAITING,
                Mode::Scores => placeholder::waiting(self.source.is_loaded(), true),
            };
            return self.no_theorem3(why);
        };
        let grid = sigma2_grid(CURVE_POINTS);
        let toy = a.toy.as_ref().map(|_| a.controls.toy_params());
        let curves = a.inclusion_inputs(c.alpha, c.beta, c.cut).and_then(|i| inclusion_curves(&i, &grid));
        let inc = match curves {
            Ok(inc) => inc,
            Err(e) => return self.no_theorem3(&sentence(&e)),
        };
        let readout = theorem3_readout(&inc.inputs, c.sigma2, toy.as_ref()).text();
        let held = theorem3_held(&inc.inputs, c.alpha, toy.as_ref().map(|p| p.sigma2), c.sigma2);
        let (calibrated, beta) = theorem3_cuts(a.r_hat(c.alpha), c.beta);
        // Written after the drawing: a canvas' box read after a DOM write forces a layout.
        let texts = [
            (ids::CUT_CALIBRATED, calibrated),
            (ids::CUT_BETA, beta),
            (ids::THEOREM3_READOUT, readout),
            (ids::THEOREM3_NOTE, theorem3_note(c.alpha, c.beta, c.sigma2, &held)),
        ];
        let fig = panels::theorem3(&inc, c.sigma2);
        if whole || self.drawn.theorem3_frame().is_none() {
            let frame = self.draw_sized(ids::PLOT_THEOREM3, &fig, Layer::Back);
            self.drawn.set_theorem3_frame(frame);
        }
        if let Some(frame) = self.drawn.theorem3_frame() {
            if let Err(e) = canvas::draw_front(&self.doc, THEOREM3_FRONT, &fig, frame) {
                web_sys::console::warn_1(&format!("#{THEOREM3_FRONT}: {e}").into());
            }
            if let Some(e) = self.doc.get_element_by_id(THEOREM3_FRONT) {
                let _ = e.set_attribute("data-alpha", &short(self.controls.alpha));
            }
            self.keep(ids::PLOT_THEOREM3, fig);
        }
        for (id, text) in texts {
            set_text(&self.doc, id, &text);
        }
    }

    /// Panel 5 without a figure: `why` in its note, both canvases blank.
    fn no_theorem3(&mut self, why: &str) {
        set_text(&self.doc, ids::THEOREM3_NOTE, why);
        set_text(&self.doc, ids::THEOREM3_READOUT, "–");
        self.blank(ids::PLOT_THEOREM3);
        self.blank(THEOREM3_FRONT);
        self.drawn.set_theorem3_frame(None);
    }
}
