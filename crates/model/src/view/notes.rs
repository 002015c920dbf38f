//! What the page says beside the panels: which r-value panels 2 and 5 and the formulas
//! describe, and the analysis' warnings with the split mask's button.

use crate::edits::Edits;
use crate::export::has_split_mask;
use crate::figure::html::esc;
use crate::{ids, kind_notes, Analysis, Controls};

/// Panels 2 and 5's notes and the formulas' line for the r-value CP_r uses under `c`
/// ([`kind_notes`]), an empty note hidden, and the definitions the formulas show.
pub fn kind_edits(c: &Controls) -> Edits {
    let n = kind_notes(c);
    let mut e = Edits::new();
    e.hidden(ids::THRESHOLD_KIND, n.threshold.is_empty()).text(ids::THRESHOLD_KIND, n.threshold);
    e.hidden(ids::THEOREM3_KIND, n.theorem3.is_empty()).text(ids::THEOREM3_KIND, n.theorem3);
    e.text(ids::FORMULAS_KIND, n.formulas);
    e.hidden(ids::FORMULA_NONPARAMETRIC, !n.nonparametric).hidden(ids::FORMULA_POOLED, !n.pooled);
    e
}

/// The analysis' warnings at α, one paragraph each, and whether its first split has a mask to
/// download.
#[derive(Clone, Debug, PartialEq)]
pub struct DataNotes {
    pub html: String,
    pub empty: bool,
    pub split_mask: bool,
}

impl DataNotes {
    /// The notes, hidden when there are none, and the split mask's button shown if it has one.
    pub fn edits(self) -> Edits {
        let mut e = Edits::new();
        e.html(ids::DATA_NOTES, self.html).hidden(ids::DATA_NOTES, self.empty);
        e.hidden(ids::SPLIT_MASK, !self.split_mask);
        e
    }
}

/// The notes of `a` (the analysis on show in the controls' mode, if any) at `alpha`.
pub fn data_notes(a: Option<&Analysis>, alpha: f64) -> DataNotes {
    let notes = a.map(|a| a.warnings(alpha)).unwrap_or_default();
    let html: Vec<String> = notes.iter().map(|w| format!("<p>{}</p>", esc(w))).collect();
    DataNotes { html: html.concat(), empty: notes.is_empty(), split_mask: a.is_some_and(has_split_mask) }
}
