//! Panel 8: the loaded score file's statistics and its variance histogram.

use crate::ui::app::App;
use crate::ui::dom::{set_hidden, set_html};
use crate::ui::panels;
use rvalue_model::Mode;

impl App {
    pub(super) fn render_data(&self) {
        let d = &self.doc;
        let Some(l) = &self.data else { return };
        set_html(d, "data-stats", &panels::data_stats(&l.name, &l.summary));
        set_hidden(d, "panel-data", self.controls.mode != Mode::Scores);
        self.draw("plot-variance", panels::variances(&l.summary));
    }
}
