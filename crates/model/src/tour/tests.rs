use super::*;
use crate::Controls;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

#[test]
fn every_step_reads_back_without_warnings_and_is_short() {
    for (i, s) in STEPS.iter().enumerate() {
        let r = UrlState::from_query(s.query);
        assert!(r.warnings.is_empty(), "{}: {:?}", s.title, r.warnings);
        assert!(words(s.text) <= 80, "{}: {} words", s.title, words(s.text));
        assert!(!s.panels.is_empty() && s.panels.iter().all(|p| p.shown_in(r.state.controls.mode)));
        // The step's link is `tour=N` alone, and it reads back as the step's state.
        let state = s.state(i + 1);
        assert_eq!(state.to_query(), format!("tour={}", i + 1), "{}", s.title);
        let back = UrlState::from_query(&state.to_query());
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.state, state);
    }
}

#[test]
fn each_try_this_is_false_at_its_step_and_true_after_the_action() {
    for (i, s) in STEPS.iter().enumerate() {
        let at = s.state(i + 1);
        assert!(!(s.tried)(&at), "{}: already done at the step's own state", s.title);
        let query = format!("{}&tour={}", s.action, i + 1);
        let after = UrlState::from_query(&query);
        assert!(after.warnings.is_empty(), "{query}: {:?}", after.warnings);
        assert!((s.tried)(&after.state), "{}: not done after {}", s.title, s.action);
        // The action is all that the link of the state after it says.
        assert_eq!(after.state.to_query(), query, "{}", s.title);
    }
}

#[test]
fn a_change_at_a_step_is_written_against_the_step() {
    // Step 6 starts at σ² = 10: moving σ² back to the page's default is a change there.
    let mut s = STEPS[5].state(6);
    s.controls.sigma2 = Controls::default().sigma2;
    assert_eq!(s.to_query(), "sigma2=1000&tour=6");
    assert_eq!(UrlState::from_query(&s.to_query()).state, s);
    // Leaving the tour keeps the state: the link then says it against the defaults.
    let mut left = STEPS[7].state(8);
    left.tour = None;
    assert_eq!(UrlState::from_query(&left.to_query()).state, UrlState::from_query(STEPS[7].query).state);
    // Step 9 is in score mode: back to the toy is written as such.
    let mut toy = STEPS[8].state(9);
    toy.controls = toy.controls.for_mode(crate::Mode::Toy);
    assert_eq!(toy.to_query(), "mode=toy&tour=9");
    assert_eq!(UrlState::from_query(&toy.to_query()).state, toy);
}

#[test]
fn tour_links_that_cannot_be_used_are_reported() {
    for q in ["tour=0", "tour=11", "tour=x"] {
        let r = UrlState::from_query(q);
        assert_eq!((r.state.tour, r.warnings.len()), (None, 1), "{q}: {:?}", r.warnings);
    }
    // A step alone in a frame: step 1 unless the link names one.
    let r = UrlState::from_query("embed=tour");
    assert_eq!((r.state.tour, r.state.tour_alone, r.warnings.len()), (Some(1), true, 0));
    let r = UrlState::from_query("embed=tour&tour=4");
    assert_eq!((r.state.tour, r.state.embed), (Some(4), None));
    assert_eq!(r.state.to_query(), "tour=4&embed=tour");
    assert!(step(0).is_none() && step(STEPS.len() + 1).is_none());
}

/// Round trips of random states at random steps (proptest).
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use crate::tour::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_change_at_any_step_survives_a_link(
            step in 1usize..=STEPS.len(),
            alpha in 1u32..=100,
            sigma2 in 0u32..=189,
            draw in 0usize..4,
            index_ties in any::<bool>(),
            toy in any::<bool>(),
        ) {
            let mut s = STEPS[step - 1].state(step);
            s.controls.alpha = crate::scales::alpha_at(alpha);
            s.controls.sigma2 = crate::scales::sigma2_at(sigma2);
            s.controls.score.cp_draw = draw;
            if index_ties {
                s.controls.score.ties = TieOrder::Index;
            }
            if toy {
                s.controls = s.controls.for_mode(crate::Mode::Toy);
            }
            let r = UrlState::from_query(&s.to_query());
            prop_assert!(r.warnings.is_empty(), "{:?}", r.warnings);
            prop_assert_eq!(r.state, s);
        }
    }
}
