//! What the page says beside the panels: the analysis' warnings with the split mask's button.

use crate::export::has_split_mask;
use crate::figure::html::esc;
use crate::Analysis;

/// The analysis' warnings at α, one paragraph each, and whether its first split has a mask to
/// download.
#[derive(Clone, Debug, PartialEq)]
pub struct DataNotes {
    pub html: String,
    pub empty: bool,
    pub split_mask: bool,
}

/// The notes of `a` (the analysis on show in the controls' mode, if any) at `alpha`.
pub fn data_notes(a: Option<&Analysis>, alpha: f64) -> DataNotes {
    let notes = a.map(|a| a.warnings(alpha)).unwrap_or_default();
    let html: Vec<String> = notes.iter().map(|w| format!("<p>{}</p>", esc(w))).collect();
    DataNotes { html: html.concat(), empty: notes.is_empty(), split_mask: a.is_some_and(has_split_mask) }
}
