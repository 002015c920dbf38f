//! Panel 1: the toy's score densities (closed forms of the controls); then panel 2.

use super::CURVE_POINTS;
use crate::ui::app::App;
use crate::ui::dom::set_text;
use rvalue_model::figure::panels;
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::page::readouts::pqp;
use rvalue_model::{default_score_xs, score_densities, Mode};

impl App {
    /// Panels 1 and 2: closed forms of the controls (and the analysis' data points).
    pub(super) fn render_curves(&self) {
        let c = &self.controls;
        let d = &self.doc;
        if c.mode == Mode::Toy {
            let p = c.toy_params();
            match score_densities(&p, &default_score_xs(&p, CURVE_POINTS)) {
                Ok(s) => {
                    set_text(d, ids::PQP, &pqp(s.prob_q_exceeds_p));
                    set_text(d, ids::PQP_NOTE, &s.note);
                    self.draw(ids::PLOT_SCORES, panels::scores(&s));
                }
                Err(e) => set_text(d, ids::PQP_NOTE, &sentence(&e)),
            }
        }
        self.render_threshold();
    }
}
