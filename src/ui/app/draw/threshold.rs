//! Panel 2: the threshold curves against σ², with the analysis' data points, or a sentence
//! saying why there are none.

use super::CURVE_POINTS;
use crate::ui::app::App;
use crate::ui::dom::set_text;
use rvalue_model::figure::placeholder;
use rvalue_model::figure::threshold::{threshold, threshold_cut};
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::page::readouts::threshold_note;
use rvalue_model::{
    fitted_threshold, panel_betas, prior_source, sigma2_grid, threshold_curves, threshold_curves_with,
    threshold_inputs, Mode,
};

impl App {
    /// Panel 2: the threshold curves, zoomed on their dip unless "Whole curve" is ticked, or a
    /// sentence saying why there is none.
    pub(super) fn render_threshold(&self) {
        let (c, d) = (&self.controls, &self.doc);
        let grid = sigma2_grid(CURVE_POINTS);
        let analysis = self.shown.get().filter(|a| a.controls.mode == c.mode);
        let points = analysis.map(|a| a.data_points()).unwrap_or_default();
        let betas = panel_betas(c.beta);
        let curves = match (c.mode, analysis) {
            (Mode::Scores, None) => {
                return self.no_threshold(placeholder::waiting(self.source.is_loaded(), false))
            }
            (Mode::Scores, Some(a)) => match a.hyper() {
                None => return self.no_threshold(placeholder::THRESHOLD_NO_PRIOR),
                Some(h) => threshold_curves_with(Some(h), |b| a.z_model(b), &betas, &grid, c.sigma2),
            },
            _ => threshold_inputs(c, analysis)
                .and_then(|(h, s)| threshold_curves(Some(h), &s, &betas, &grid, c.sigma2)),
        };
        let t = match curves {
            Ok(t) => t,
            Err(e) => return self.no_threshold(&sentence(&e)),
        };
        let (Some(h), Some(s)) = (t.hyper, t.series.first()) else { return self.no_threshold("") };
        if s.t.iter().all(Option::is_none) {
            let why = if h.tau2 > 0.0 {
                placeholder::THRESHOLD_NO_VARIANCE
            } else {
                placeholder::THRESHOLD_FLAT_PRIOR
            };
            return self.no_threshold(why);
        }
        let whole = c.whole_curve;
        // The toy draws its true prior's curves; the r-values use the prior fitted to its data.
        let fitted =
            analysis.filter(|_| c.mode == Mode::Toy).and_then(|a| fitted_threshold(a, s.beta, &grid));
        let fig = threshold(&t, &points, (c.sigma2, whole), fitted.as_ref());
        let mut note = threshold_note(h, &prior_source(c.mode, fitted.as_ref().map(|f| f.hyper)), s);
        if let Some(cut) = threshold_cut(&fig, &t) {
            note = format!("{note} {cut}");
        }
        set_text(d, ids::THRESHOLD_NOTE, &note);
        self.draw(ids::PLOT_THRESHOLD, fig);
    }

    /// Panel 2 without a figure: `why` in its note, the canvas blank.
    fn no_threshold(&self, why: &str) {
        set_text(&self.doc, ids::THRESHOLD_NOTE, why);
        self.blank(ids::PLOT_THRESHOLD);
    }
}
