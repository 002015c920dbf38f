use super::*;
use crate::tour::STEPS;
use crate::{Controls, Source};
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn a_hidden_card_marks_nothing() {
    let c = card(None, false, false);
    assert!(c.step.is_none() && c.skip_hidden && !c.reveal && c.texts.is_empty() && c.keep.is_empty());
    assert!(c.marks.iter().all(|&(_, on, key)| !on && !key));
    assert_eq!(c, card(Some(STEPS.len() + 1), false, false), "no such step");
}

#[test]
fn a_steps_card_shows_its_texts_panels_and_ends() {
    let c = card(Some(1), false, true);
    let s = &STEPS[0];
    assert_eq!(c.texts[0], (ids::TOUR_COUNT, count(1)));
    assert_eq!(
        c.texts[1..].iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
        [s.title, s.text, s.try_this, s.done]
    );
    assert_eq!(c.marks.len(), Panel::ALL.len());
    let on: Vec<Panel> = c.marks.iter().filter(|m| m.1).map(|m| m.0).collect();
    assert_eq!(on.len(), s.panels.len());
    assert!(c.marks.iter().any(|&(p, _, key)| key && p == s.key_panel()));
    assert_eq!(c.buttons, [(ids::TOUR_BACK, true), (ids::TOUR_NEXT, false)]);
    assert!(c.tried && c.reveal && !c.skip_hidden && c.keep == s.stage_controls());
    let last = card(Some(STEPS.len()), true, false);
    assert_eq!(last.buttons, [(ids::TOUR_BACK, false), (ids::TOUR_NEXT, true)]);
    assert!(last.skip_hidden && !last.reveal, "alone in a frame");
}

fn analysis(coverage: Coverage) -> Analysis {
    let mut c = Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 40, n_test: 30, repeats: 2, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    };
    c.score.coverage = coverage;
    Analysis::build(Source::from_controls(&c, None).unwrap(), &c).unwrap()
}

#[test]
fn the_per_class_step_compares_with_its_marginal_baseline() {
    let marginal = analysis(Coverage::Marginal);
    let base = marginal.at_alpha(0.2, false).unwrap();
    let step = Some(PER_CLASS_STEP);
    assert_eq!(per_class_step(Some(1), &marginal, &base, None, None), None, "another step");
    assert_eq!(per_class_step(step, &marginal, &base, None, None), Some(Outcome::Baseline));
    let per_class = analysis(Coverage::PerClass);
    let v = per_class.at_alpha(0.1, false).unwrap();
    assert_eq!(per_class_step(step, &per_class, &v, None, None), None, "no baseline yet");
    let Some(Outcome::Compared(text)) = per_class_step(step, &per_class, &v, Some(&base), None) else {
        panic!("a per-class analysis is compared")
    };
    let done = STEPS[PER_CLASS_STEP - 1].done;
    assert!(text.starts_with(done) && text.len() > done.len() + 1, "{text}");
    let at_base = per_class.at_alpha(0.2, false).unwrap();
    let same = per_class_step(step, &per_class, &at_base, Some(&base), None);
    assert_eq!(same, Some(Outcome::Compared(text)), "compared at the baseline's α");
}

#[test]
fn a_steps_edits_show_its_card_and_mark_its_panels() {
    let s = &STEPS[0];
    let e = card(Some(1), false, false).edits();
    assert_eq!(e.hidden_of(ids::TOUR), Some(false));
    assert_eq!(e.hidden_of(ids::TOUR_SKIP), Some(false));
    assert_eq!(e.attr_of(ids::TOUR_START, "aria-pressed"), Some("true"));
    assert!(e.0.contains(&crate::edits::Edit::BodyClass("touring", true)));
    assert_eq!(e.text_of(ids::TOUR_COUNT), Some(count(1).as_str()));
    assert_eq!(e.text_of(ids::TOUR_TITLE), Some(s.title));
    assert_eq!(e.text_of(ids::TOUR_DONE), Some(s.done));
    assert_eq!(e.hidden_of(ids::TOUR_DONE), Some(true), "not tried yet");
    assert_eq!(e.attr_of(ids::TOUR, "data-step"), Some("1"));
    assert_eq!(e.attr_of(ids::TOUR, "data-tried"), Some("false"));
    for p in Panel::ALL {
        let id = p.element_id();
        assert_eq!(e.class_of(&id, "tour-focus"), Some(s.panels.contains(&p)), "{id}");
        assert_eq!(e.class_of(&id, "tour-key"), Some(p == s.key_panel()), "{id}");
    }
    let disabled = |id: &str| {
        e.0.iter().find_map(|x| match x {
            crate::edits::Edit::Disabled(i, off) if i == id => Some(*off),
            _ => None,
        })
    };
    assert_eq!((disabled(ids::TOUR_BACK), disabled(ids::TOUR_NEXT)), (Some(true), Some(false)));
    let last = card(Some(STEPS.len()), true, true).edits();
    assert_eq!(last.hidden_of(ids::TOUR_SKIP), Some(true), "alone in a frame");
    assert_eq!(last.hidden_of(ids::TOUR_DONE), Some(false));
    assert_eq!(last.attr_of(ids::TOUR, "data-tried"), Some("true"));
}

#[test]
fn a_hidden_cards_edits_clear_the_marks_and_write_no_texts() {
    let e = card(None, false, false).edits();
    assert_eq!(e.hidden_of(ids::TOUR), Some(true));
    assert_eq!(e.attr_of(ids::TOUR_START, "aria-pressed"), Some("false"));
    assert!(e.0.contains(&crate::edits::Edit::BodyClass("touring", false)));
    assert!(Panel::ALL.iter().all(|p| e.class_of(&p.element_id(), "tour-focus") == Some(false)));
    assert_eq!((e.text_of(ids::TOUR_TITLE), e.attr_of(ids::TOUR, "data-step")), (None, None));
}

#[test]
fn the_confirmation_and_the_outcome_write_the_card() {
    assert_eq!(tried().hidden_of(ids::TOUR_DONE), Some(false));
    assert_eq!(tried().attr_of(ids::TOUR, "data-tried"), Some("true"));
    let base = Outcome::Baseline.edits();
    assert_eq!((base.attr_of(ids::TOUR, "data-outcome"), base.text_of(ids::TOUR_DONE)), (Some(""), None));
    let compared = Outcome::Compared("Done. Fewer empty sets.".into()).edits();
    assert_eq!(compared.text_of(ids::TOUR_DONE), Some("Done. Fewer empty sets."));
    assert_eq!(compared.attr_of(ids::TOUR, "data-outcome"), Some("1"));
}
