use super::*;
use crate::controls::table::control;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn a_mode_shows_its_sections() {
    let sections =
        [ids::TOY_READING, ids::TOY_PARAMS, ids::SCORES_PARAMS, ids::PANEL_SCORES, ids::PANEL_DATA];
    let hidden = |mode, loaded| {
        let e = mode_sections(mode, loaded);
        assert!(sections.iter().all(|id| e.hidden_of(id).is_some()), "each section is written");
        sections.into_iter().filter(|id| e.hidden_of(id) == Some(true)).collect::<Vec<_>>()
    };
    assert_eq!(hidden(Mode::Toy, true), [ids::SCORES_PARAMS, ids::PANEL_DATA]);
    assert_eq!(
        hidden(Mode::Scores, false),
        [ids::TOY_READING, ids::TOY_PARAMS, ids::PANEL_SCORES, ids::PANEL_DATA]
    );
    assert_eq!(hidden(Mode::Scores, true), [ids::TOY_READING, ids::TOY_PARAMS, ids::PANEL_SCORES]);
    assert_ne!(sigma2_label(Mode::Toy), sigma2_label(Mode::Scores));
    for mode in [Mode::Toy, Mode::Scores] {
        assert_eq!(mode_sections(mode, false).text_of(ids::SIGMA2_LABEL), Some(sigma2_label(mode)));
    }
}

#[test]
fn the_per_item_switch_sets_both_selects() {
    use crate::edits::Edit;
    // The switch's values put into the controls, as the form's change would.
    let set = |c: &mut Controls, e: &crate::edits::Edits| {
        for edit in &e.0 {
            let Edit::Value(key, v) = edit else { panic!("only values: {edit:?}") };
            assert_eq!(control(key).map(|k| k.set(c, v).is_ok()), Some(true), "{key} = {v}");
        }
    };
    let mut c = Controls::default();
    let on = toggle_per_item_prior(&c);
    set(&mut c, &on);
    assert!(per_item_prior(&c), "pressed");
    let back = toggle_per_item_prior(&c);
    assert_eq!(back.0, [Edit::Value("prior".into(), "pooled".into())], "the kind stays");
    set(&mut c, &back);
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
    let toy =
        rvalue_core::toy::ToyParams { k: 4, m: 5, n_cal: 40, n_test: 30, repeats: 1, ..Default::default() };
    let c = Controls { toy, ..Controls::default() };
    let toy = Analysis::build(crate::Source::from_controls(&c, None).unwrap(), &c).unwrap();
    assert_eq!(reading(&toy).text_of(ids::SCORES_READING), Some(""), "the toy says nothing");
}

#[test]
fn link_notes_go_to_the_page_or_the_console() {
    let w = vec!["alpha: 'x' is not a number".to_string()];
    let (console, page) = link_notes(&w, false, false);
    assert!(console.is_empty() && page.text_of(ids::URL_NOTES) == Some("alpha: 'x' is not a number."));
    assert_eq!(page.hidden_of(ids::URL_NOTES), Some(false));
    let (console, page) = link_notes(&w, true, true);
    assert_eq!(console.len(), 1);
    let note = page.text_of(ids::URL_NOTES).unwrap();
    assert!(note.starts_with("This link was made with a score file") && !note.contains("alpha"), "{note}");
    let (console, page) = link_notes(&[], false, false);
    assert!(console.is_empty() && page.text_of(ids::URL_NOTES) == Some(""));
    assert_eq!(page.hidden_of(ids::URL_NOTES), Some(true));
}

#[test]
fn the_error_line_and_large_text_are_written() {
    use crate::edits::Edit;
    let e = error(Some("alpha: bad."));
    assert_eq!((e.text_of(ids::ERROR), e.hidden_of(ids::ERROR)), (Some("alpha: bad."), Some(false)));
    let e = error(None);
    assert_eq!((e.text_of(ids::ERROR), e.hidden_of(ids::ERROR)), (None, Some(true)));
    for on in [false, true] {
        let e = large_text(on);
        assert!(e.0.contains(&Edit::Checked(ids::LARGE_TEXT.into(), on)));
        assert!(e.0.contains(&Edit::BodyClass("large", on)));
    }
}
