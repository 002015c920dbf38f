//! The form's decisions: which sections a mode shows, what σ²'s label says, panel 6's
//! per-item prior switch, how the baselines read a file's scores, and the address' notes.

use rvalue_core::conformal::{Prior, RvalueKind};
use rvalue_core::probability::ScoresAre;

use crate::ids;
use crate::{Controls, Mode};

/// The sections the mode shows or hides: `(id, hidden)`; panel 8 only with a file `loaded`.
pub fn mode_sections(mode: Mode, loaded: bool) -> [(&'static str, bool); 5] {
    let toy = mode == Mode::Toy;
    [
        (ids::TOY_READING, !toy),
        (ids::TOY_PARAMS, !toy),
        (ids::SCORES_PARAMS, toy),
        (ids::PANEL_SCORES, !toy),
        (ids::PANEL_DATA, toy || !loaded),
    ]
}

/// σ²'s label in `mode`: the toy's false candidates' variance, or a mark on a file's curve.
pub fn sigma2_label(mode: Mode) -> &'static str {
    match mode {
        Mode::Toy => "σ², false candidates' variance",
        Mode::Scores => "σ², marked on the threshold curve",
    }
}

/// Whether CP_r uses the paper's per-item prior (panel 6's switch is pressed).
pub fn per_item_prior(c: &Controls) -> bool {
    c.score.kind == RvalueKind::Parametric && c.score.prior == Prior::PerItem
}

/// What panel 6's switch sets, as the form's values: the prior, and the r-value kind when it
/// must change (the per-item prior is the parametric r-value's).
pub fn toggle_per_item_prior(c: &Controls) -> (&'static str, Option<&'static str>) {
    if per_item_prior(c) {
        ("pooled", None)
    } else {
        ("per-item", Some("parametric"))
    }
}

/// How the baselines read a file's scores (`read`, `None` when no baseline is on; `asked`: the
/// reader's choice); empty for the toy.
pub fn scores_reading(toy: bool, read: Option<ScoresAre>, asked: ScoresAre) -> String {
    match (toy, read) {
        (true, _) => String::new(),
        (false, None) => "How the scores are read matters to the baselines alone: none is on.".into(),
        (false, Some(r)) if asked == ScoresAre::Auto => {
            format!("The baselines read the scores as {} (auto's choice).", r.name())
        }
        (false, Some(r)) => format!("The baselines read the scores as {}.", r.name()),
    }
}

/// The address' notes: its `warnings` as sentences, and, for a link made with an `upload`ed
/// file, that the file must be loaded again. `(console, page)`: an embedded page sends the
/// warnings to the console (the host page's readers did not write the link).
pub fn link_notes(warnings: &[String], embedded: bool, upload: bool) -> (Vec<String>, Vec<String>) {
    let notes: Vec<String> = warnings.iter().map(|w| format!("{w}.")).collect();
    let (console, mut page) = if embedded { (notes, Vec::new()) } else { (Vec::new(), notes) };
    if upload {
        page.push(
            "This link was made with a score file from its author's computer. Files are never put \
             in links: load the same file (drop it on the page or choose it) to see this view."
                .to_string(),
        );
    }
    (console, page)
}

#[cfg(test)]
mod tests;
