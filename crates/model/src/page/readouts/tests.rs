use super::*;
use crate::Marker;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn panel_sentences() {
    assert_eq!(pqp(0.12345), "12.35 %");
    let mut s = ThresholdSeries {
        beta: 0.1,
        q: 1.28,
        z: Some(1.0),
        t: vec![],
        s_star: Some(Marker { sigma2: 30.0, t: 1.0 }),
        s0: None,
        slider: None,
    };
    let h = Hyper { mu: 1.0, tau2: 2.0 };
    let note = threshold_note(h, "the toy's", &s);
    assert!(note.starts_with("Prior μ = 1.000, τ² = 2.0000 (the toy's); β = 0.1: s* = 30"), "{note}");
    assert!(note.ends_with("s0 = none."), "{note}");
    s.s_star = None;
    assert!(threshold_note(h, "x", &s).contains("s* = none (the curve only rises)"));
    let (cal, beta) = theorem3_cuts(Some(0.5), 0.1);
    assert_eq!(cal, "calibrated r̂ = 0.5000 (panel 6's sets)");
    assert_eq!(beta, "β = 0.1 (the slider)");
    assert!(theorem3_cuts(None, 0.1).0.contains("r̂ = none"));
    assert_eq!(theorem3_note(0.1, 0.2, 1000.0, "Held."), "α = 0.1, β = 0.2; σ² = 1000 marked. Held.");
    assert_eq!(item_info(10, 3, Some(2), 0.1), "of 10: data item 3, true label #2 (α = 0.1)");
    assert_eq!(item_info(10, 3, None, 0.1), "of 10: data item 3 (α = 0.1)");
}

#[test]
fn page_lines() {
    assert_eq!(alpha_tables(false, false), "ready");
    assert_eq!(alpha_tables(true, false), "filling");
    assert_eq!(alpha_tables(false, true), "filling");
    let banner = panicked("boom");
    assert!(banner.text_of(ids::PANIC).unwrap().contains("(boom)"));
    assert_eq!(banner.hidden_of(ids::PANIC), Some(false));
}
