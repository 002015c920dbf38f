//! Panel 8: the loaded score file's statistics and its variance histogram
//! ([`rvalue_model::view::data_view`]).

use crate::ui::app::App;
use crate::ui::dom::apply;
use rvalue_model::ids;
use rvalue_model::view::data_view;

impl App {
    pub(super) fn render_data(&self) {
        let Some((name, stats)) = self.source.stats() else { return };
        let v = data_view(name, &stats, self.controls.mode);
        apply(&self.doc, &v.edits);
        if let Some(fig) = v.figure {
            self.draw(ids::PLOT_VARIANCE, fig);
        } else if v.blank {
            self.blank(ids::PLOT_VARIANCE);
        }
    }
}
