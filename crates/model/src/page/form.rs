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
mod tests {
    use super::*;
    use crate::controls::table::control;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_mode_shows_its_sections() {
        let hidden = |mode, loaded| {
            mode_sections(mode, loaded).iter().filter(|s| s.1).map(|s| s.0).collect::<Vec<_>>()
        };
        assert_eq!(hidden(Mode::Toy, true), [ids::SCORES_PARAMS, ids::PANEL_DATA]);
        assert_eq!(
            hidden(Mode::Scores, false),
            [ids::TOY_READING, ids::TOY_PARAMS, ids::PANEL_SCORES, ids::PANEL_DATA]
        );
        assert_eq!(hidden(Mode::Scores, true), [ids::TOY_READING, ids::TOY_PARAMS, ids::PANEL_SCORES]);
        assert_ne!(sigma2_label(Mode::Toy), sigma2_label(Mode::Scores));
    }

    #[test]
    fn the_per_item_switch_sets_both_selects() {
        let mut c = Controls::default();
        let (prior, kind) = toggle_per_item_prior(&c);
        let set = |c: &mut Controls, key: &str, v: &str| control(key).map(|k| k.set(c, v).is_ok());
        assert_eq!(set(&mut c, "prior", prior), Some(true));
        if let Some(kind) = kind {
            assert_eq!(set(&mut c, "kind", kind), Some(true));
        }
        assert!(per_item_prior(&c), "pressed");
        let (prior, kind) = toggle_per_item_prior(&c);
        assert_eq!((prior, kind), ("pooled", None));
        assert_eq!(set(&mut c, "prior", prior), Some(true));
        assert!(!per_item_prior(&c), "released");
    }

    #[test]
    fn the_baselines_reading_is_said_for_files() {
        assert_eq!(scores_reading(true, Some(ScoresAre::Auto), ScoresAre::Auto), "");
        assert!(scores_reading(false, None, ScoresAre::Auto).contains("none is on"));
        let auto = scores_reading(false, Some(ScoresAre::Logits), ScoresAre::Auto);
        assert!(auto.ends_with("(auto's choice)."), "{auto}");
        let asked = scores_reading(false, Some(ScoresAre::Logits), ScoresAre::Logits);
        assert!(!asked.contains("auto"), "{asked}");
    }

    #[test]
    fn link_notes_go_to_the_page_or_the_console() {
        let w = vec!["alpha: 'x' is not a number".to_string()];
        let (console, page) = link_notes(&w, false, false);
        assert!(console.is_empty() && page == ["alpha: 'x' is not a number."]);
        let (console, page) = link_notes(&w, true, true);
        assert_eq!(console.len(), 1);
        assert!(page.len() == 1 && page[0].starts_with("This link was made with a score file"));
        assert_eq!(link_notes(&[], false, false), (vec![], vec![]));
    }
}
