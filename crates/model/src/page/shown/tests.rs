use super::*;
use crate::{Controls, Source};
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn analysis(seed: u64) -> Analysis {
    let controls = Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 20, n_test: 15, repeats: 2, seed, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    };
    Analysis::build(Source::from_controls(&controls, None).unwrap(), &controls).unwrap()
}

#[test]
fn showing_counts_and_hands_back_what_was_on_show() {
    let mut s = Shown::new();
    assert!(s.get().is_none() && s.generation() == 0);
    assert!(s.show(analysis(1), "first".into()).is_none());
    let (_, what) = s.show(analysis(2), "second".into()).unwrap();
    assert_eq!((what.as_str(), s.what(), s.generation()), ("first", "second", 2));
    assert!(s.forget());
    assert!(!s.forget(), "nothing left to forget");
    assert_eq!((s.what(), s.generation()), ("", 3));
}

#[test]
fn only_the_first_replaced_analysis_is_kept() {
    let mut s = Shown::new();
    s.keep_previous(Some((analysis(1), "a".into())));
    s.keep_previous(Some((analysis(2), "b".into())));
    assert_eq!(s.take_previous().map(|p| p.1).as_deref(), Some("a"));
    s.keep_previous(Some((analysis(2), "b".into())));
    s.drop_previous();
    assert!(s.take_previous().is_none());
}

#[test]
fn alpha_views_are_the_analysis_tables_kept_per_slot() {
    let mut s = Shown::new();
    assert!(s.alpha_view(0.1, false).is_err(), "no analysis yet");
    assert!(!s.warm_alpha_view(false));
    let a = analysis(3);
    let want = a.at_alpha(0.1, true).unwrap();
    let between = a.at_alpha(0.1234, false).unwrap();
    s.show(a, String::new());
    assert_eq!(s.alpha_view(0.1, true).unwrap(), want);
    assert_eq!(s.alpha_view(0.1, true).unwrap(), want, "from the store");
    assert_eq!(s.alpha_view(0.1234, false).unwrap(), between, "between slider positions");
    let mut warmed = 0;
    while s.warm_alpha_view(false) {
        warmed += 1;
    }
    assert_eq!(warmed, alpha_slots(), "one slot per call, until all are");
    s.show(analysis(4), String::new());
    assert_ne!(s.alpha_view(0.1, true).unwrap(), want, "another analysis, other tables");
}

#[test]
fn an_item_is_read_once_per_analysis() {
    let mut s = Shown::new();
    s.show(analysis(1), String::new());
    let g = s.generation();
    assert!(s.start_reading(3));
    assert!(!s.start_reading(3), "already being read");
    assert!(s.start_reading(4));
    s.show(analysis(2), String::new());
    assert!(!s.item_read(g), "its analysis was replaced");
    assert!(s.start_reading(4), "a new analysis reads it again");
    assert!(s.item_read(s.generation()));
}
