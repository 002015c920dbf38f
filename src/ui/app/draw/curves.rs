//! Panels 1 and 2: the toy's score densities and the threshold curves against σ², as
//! [`rvalue_model::view`] decides them from the controls and the analysis on show.

use crate::ui::app::App;
use crate::ui::dom::apply;
use rvalue_model::ids;
use rvalue_model::view::{scores_view, threshold_view};

impl App {
    /// Panels 1 and 2: closed forms of the controls (and the analysis' data points).
    pub(super) fn render_curves(&self) {
        if let Some(v) = scores_view(&self.controls) {
            apply(&self.doc, &v.edits());
            if let Some(fig) = v.figure {
                self.draw(ids::PLOT_SCORES, fig);
            }
        }
        let v = threshold_view(&self.controls, self.analysis_in_mode(), self.source.is_loaded());
        apply(&self.doc, &v.edits());
        match v.figure {
            Some(fig) => _ = self.draw(ids::PLOT_THRESHOLD, fig),
            None => self.blank(ids::PLOT_THRESHOLD),
        }
    }
}
