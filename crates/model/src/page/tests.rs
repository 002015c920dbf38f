use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn alpha_slots_are_the_slider_positions() {
    assert_eq!(alpha_slots(), 100);
    assert_eq!(alpha_slot(0.005), Some(0));
    assert_eq!(alpha_slot(0.1), Some(19));
    assert_eq!(alpha_slot(0.5), Some(99));
    assert_eq!(alpha_slot(0.1234), None, "between positions");
    for s in 0..alpha_slots() {
        assert_eq!(alpha_slot(slot_alpha(s)), Some(s));
    }
}

#[test]
fn items_step_round_and_stay_in_range() {
    assert_eq!(step_item(0, 5, ItemMove::Prev, 0.0), 4);
    assert_eq!(step_item(4, 5, ItemMove::Next, 0.0), 0);
    assert_eq!(step_item(2, 5, ItemMove::To(9), 0.0), 4);
    assert_eq!(step_item(2, 5, ItemMove::Random, 0.0), 0);
    assert_eq!(step_item(2, 5, ItemMove::Random, 0.999_999), 4);
}

#[test]
fn a_cancel_keeps_alpha_beta_and_a_files_sigma2() {
    let shown = Controls { alpha: 0.1, beta: 0.1, sigma2: 100.0, splits: 3, ..Controls::default() };
    let now = Controls { alpha: 0.2, beta: 0.3, sigma2: 500.0, splits: 9, ..Controls::default() };
    let back = restored_controls(&shown, &now);
    assert_eq!((back.alpha, back.beta, back.sigma2, back.splits), (0.2, 0.3, 100.0, 3), "the toy's σ²");
    let shown = Controls { mode: Mode::Scores, ..shown };
    let back = restored_controls(&shown, &now);
    assert_eq!((back.sigma2, back.mode), (500.0, Mode::Scores), "a file's σ² marker stays");
}

#[test]
fn large_text_enlarges_the_figures_text() {
    assert!(font_px(true) > font_px(false));
    assert_eq!(font_px(false), 13.0);
}
