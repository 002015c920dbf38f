//! What the page says about what it computes: which r-value panels 2 and 5 and the formulas
//! describe, the core's warnings on the data and settings, and the split mask's button. The
//! model decides each ([`rvalue_model::view`]); this writes them.

use crate::ui::app::App;
use crate::ui::dom::apply;
use rvalue_model::view::{data_notes, kind_edits};

impl App {
    /// Panels 2 and 5 and the formulas, for the r-value CP_r uses now.
    pub(super) fn render_kind_notes(&self) {
        apply(&self.doc, &kind_edits(&self.controls));
    }

    /// The analysis' warnings at the current α, one sentence a line, and whether its first
    /// split has a mask to download (a file's; not a toy repeat's or a pool's).
    pub(super) fn render_data_notes(&self) {
        apply(&self.doc, &data_notes(self.analysis_in_mode(), self.controls.alpha).edits());
    }
}
