//! What the page says about what it computes: which r-value panels 2 and 5 and the formulas
//! describe, the core's warnings on the data and settings, and the split mask's button. The
//! model decides each (`rvalue_model::kind_notes`, `rvalue_model::view::data_notes`); this writes them.

use crate::ui::app::App;
use crate::ui::dom::{set_hidden, set_html, set_text};
use rvalue_model::ids;
use rvalue_model::kind_notes;
use rvalue_model::view::data_notes;

impl App {
    /// Panels 2 and 5 and the formulas, for the r-value CP_r uses now.
    pub(super) fn render_kind_notes(&self) {
        let (d, n) = (&self.doc, kind_notes(&self.controls));
        set_text(d, ids::THRESHOLD_KIND, &n.threshold);
        set_hidden(d, ids::THRESHOLD_KIND, n.threshold.is_empty());
        set_text(d, ids::THEOREM3_KIND, &n.theorem3);
        set_hidden(d, ids::THEOREM3_KIND, n.theorem3.is_empty());
        set_text(d, ids::FORMULAS_KIND, &n.formulas);
        set_hidden(d, ids::FORMULA_NONPARAMETRIC, !n.nonparametric);
        set_hidden(d, ids::FORMULA_POOLED, !n.pooled);
    }

    /// The analysis' warnings at the current α, one sentence a line, and whether its first
    /// split has a mask to download (a file's; not a toy repeat's or a pool's).
    pub(super) fn render_data_notes(&self) {
        let (d, n) = (&self.doc, data_notes(self.analysis_in_mode(), self.controls.alpha));
        set_html(d, ids::DATA_NOTES, &n.html);
        set_hidden(d, ids::DATA_NOTES, n.empty);
        set_hidden(d, ids::SPLIT_MASK, !n.split_mask);
    }
}
