//! The form's decisions: which sections a mode shows, what σ²'s label says, panel 6's
//! per-item prior switch, how the baselines read a file's scores, and the address' notes.

use rvalue_core::conformal::{Prior, RvalueKind};
use rvalue_core::probability::ScoresAre;

use crate::edits::Edits;
use crate::ids;
use crate::{Analysis, Controls, Mode};

/// The sections the mode shows or hides; panel 8 only with a file `loaded`.
pub fn mode_sections(mode: Mode, loaded: bool) -> Edits {
    let toy = mode == Mode::Toy;
    let mut e = Edits::new();
    e.hidden(ids::TOY_READING, !toy).hidden(ids::TOY_PARAMS, !toy).hidden(ids::SCORES_PARAMS, toy);
    e.hidden(ids::PANEL_SCORES, !toy).hidden(ids::PANEL_DATA, toy || !loaded);
    e.text(ids::SIGMA2_LABEL, sigma2_label(mode));
    e
}

/// The error line: `msg` shown, or the line hidden.
pub fn error(msg: Option<&str>) -> Edits {
    let mut e = Edits::new();
    match msg {
        Some(m) => e.text(ids::ERROR, m).hidden(ids::ERROR, false),
        None => e.hidden(ids::ERROR, true),
    };
    e
}

/// The Large text checkbox and the body's `large` class.
pub fn large_text(on: bool) -> Edits {
    let mut e = Edits::new();
    e.checked(ids::LARGE_TEXT, on).body_class("large", on);
    e
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

/// What panel 6's switch sets in the form: the prior, and the r-value kind when it must change
/// (the per-item prior is the parametric r-value's).
pub fn toggle_per_item_prior(c: &Controls) -> Edits {
    let mut e = Edits::new();
    if per_item_prior(c) {
        e.value("prior", "pooled");
    } else {
        e.value("prior", "per-item").value("kind", "parametric");
    }
    e
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

/// The data summary's line on how the baselines read the scores of the analysis `a`.
pub fn reading(a: &Analysis) -> Edits {
    let mut e = Edits::new();
    e.text(
        ids::SCORES_READING,
        scores_reading(a.toy.is_some(), a.scores_read_as(), a.controls.score.scores_are),
    );
    e
}

/// The address' notes: its `warnings` as sentences, and, for a link made with an `upload`ed
/// file, that the file must be loaded again. `(console, page)`: an embedded page sends the
/// warnings to the console (the host page's readers did not write the link); the page's notes
/// are one line, hidden when empty.
pub fn link_notes(warnings: &[String], embedded: bool, upload: bool) -> (Vec<String>, Edits) {
    let notes: Vec<String> = warnings.iter().map(|w| format!("{w}.")).collect();
    let (console, mut page) = if embedded { (notes, Vec::new()) } else { (Vec::new(), notes) };
    if upload {
        page.push(
            "This link was made with a score file from its author's computer. Files are never put \
             in links: load the same file (drop it on the page or choose it) to see this view."
                .to_string(),
        );
    }
    let mut e = Edits::new();
    e.text(ids::URL_NOTES, page.join(" ")).hidden(ids::URL_NOTES, page.is_empty());
    (console, e)
}

#[cfg(test)]
mod tests;
