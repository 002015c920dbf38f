//! Panel 8: the loaded score file's statistics and its variance histogram.

use crate::ui::app::{App, Held};
use crate::ui::dom::{set_hidden, set_html};
use crate::ui::panels;
use rvalue_model::Mode;

impl App {
    pub(super) fn render_data(&self) {
        let d = &self.doc;
        let Some(l) = &self.data else { return };
        set_hidden(d, "panel-data", self.controls.mode != Mode::Scores);
        match (&l.summary, &l.data) {
            (Some(s), _) => {
                set_html(d, "data-stats", &panels::data_stats(&l.name, s));
                self.draw("plot-variance", panels::variances(s));
            }
            (None, Held::Streamed(s)) => {
                set_html(d, "data-stats", &panels::streamed_stats(&l.name, s.info.layout.shape()));
                self.blank("plot-variance");
            }
            (None, Held::Whole(_)) => {}
        }
    }
}
