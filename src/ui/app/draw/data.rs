//! Panel 8: the loaded score file's statistics and its variance histogram.

use crate::ui::app::{App, Held};
use crate::ui::dom::{set_hidden, set_html};
use crate::ui::panels;
use rvalue_model::ids;
use rvalue_model::Mode;

impl App {
    pub(super) fn render_data(&self) {
        let d = &self.doc;
        let Some(l) = &self.data else { return };
        set_hidden(d, ids::PANEL_DATA, self.controls.mode != Mode::Scores);
        match (&l.summary, &l.data) {
            (Some(s), _) => {
                set_html(d, ids::DATA_STATS, &panels::data_stats(&l.name, s));
                self.draw(ids::PLOT_VARIANCE, panels::variances(s));
            }
            (None, Held::Streamed(s)) => {
                set_html(d, ids::DATA_STATS, &panels::streamed_stats(&l.name, s.info.layout.shape()));
                self.blank(ids::PLOT_VARIANCE);
            }
            (None, Held::Whole(_)) => {}
        }
    }
}
