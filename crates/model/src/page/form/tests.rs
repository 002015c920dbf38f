use super::*;
use crate::controls::table::control;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn a_mode_shows_its_sections() {
    let hidden =
        |mode, loaded| mode_sections(mode, loaded).iter().filter(|s| s.1).map(|s| s.0).collect::<Vec<_>>();
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
