//! Panel 8: the loaded score file's statistics and its variance histogram.

use crate::ui::app::App;
use crate::ui::dom::{set_hidden, set_html};
use rvalue_model::figure::panels;
use rvalue_model::figure::stats::{data_stats, streamed_stats};
use rvalue_model::ids;
use rvalue_model::page::Stats;
use rvalue_model::Mode;

impl App {
    pub(super) fn render_data(&self) {
        let d = &self.doc;
        let Some((name, stats)) = self.source.stats() else { return };
        set_hidden(d, ids::PANEL_DATA, self.controls.mode != Mode::Scores);
        match stats {
            Stats::Summary(s) => {
                set_html(d, ids::DATA_STATS, &data_stats(name, s));
                self.draw(ids::PLOT_VARIANCE, panels::variances(s));
            }
            Stats::Streamed(shape) => {
                set_html(d, ids::DATA_STATS, &streamed_stats(name, shape));
                self.blank(ids::PLOT_VARIANCE);
            }
            Stats::None => {}
        }
    }
}
