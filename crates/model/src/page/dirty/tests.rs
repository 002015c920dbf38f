use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn change(f: impl FnOnce(&mut Controls)) -> Dirty {
    let old = Controls::default();
    let mut new = old.clone();
    f(&mut new);
    Dirty::for_change(&old, &new, &old.impact(&new))
}

#[test]
fn alpha_redraws_only_what_alpha_moves() {
    let d = change(|c| c.alpha = 0.2);
    assert!(d.alpha && d.theorem3_front && d.sliders && d.address);
    assert!(!d.curves && !d.theorem3 && !d.sweep && !d.data && !d.device);
    assert!(!d.moves_layout());
}

#[test]
fn beta_and_the_toy_redraw_the_closed_forms() {
    let d = change(|c| c.beta = 0.2);
    assert!(d.curves && d.theorem3 && d.moves_layout());
    let d = change(|c| c.toy.k += 1);
    assert!(d.curves && d.theorem3);
    let d = change(|c| c.never_empty = !c.never_empty);
    assert!(d.sweep && !d.curves);
    let d = change(|c| c.whole_curve = !c.whole_curve);
    assert!(d.curves && d.theorem3 && !d.alpha);
}

#[test]
fn flags_combine_and_all_is_every_flag() {
    assert!(!Dirty::default().any() && Dirty::ALL.any());
    let a = Dirty { alpha: true, ..Dirty::default() };
    let s = Dirty { sweep: true, ..Dirty::default() };
    assert_eq!(a.or(s), Dirty { alpha: true, sweep: true, ..Dirty::default() });
    assert_eq!(Dirty::default().or(Dirty::ALL), Dirty::ALL);
}
