use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn every(range: (u32, u32)) -> impl Iterator<Item = u32> {
    range.0..=range.1
}

#[test]
fn ends_and_defaults_are_positions() {
    assert_eq!((alpha_at(1), alpha_at(100)), (0.005, 0.5));
    assert_eq!(alpha_at(alpha_position(0.1)), 0.1);
    assert_eq!(alpha_at(alpha_position(0.05)), 0.05);
    assert_eq!((beta_at(0), beta_at(200)), (0.001, 0.999));
    for b in BETA_ROUND {
        assert_eq!(beta_at(beta_position(b)), b);
    }
    assert_eq!(alpha_at(alpha_position(0.25)), 0.25);
    assert_eq!(sigma2_at(0), 0.0);
    assert_eq!(sigma2_at(1), 0.1);
    assert_eq!(sigma2_at(189), 5000.0);
    assert_eq!(sigma2_at(sigma2_position(1000.0)), 1000.0);
    assert_eq!(sigma2_at(sigma2_position(1.0)), 1.0);
}

#[test]
fn scales_increase_and_round_trip() {
    for (range, at, pos) in [
        (ALPHA_POSITIONS, alpha_at as fn(u32) -> f64, alpha_position as fn(f64) -> u32),
        (BETA_POSITIONS, beta_at, beta_position),
        (SIGMA2_POSITIONS, sigma2_at, sigma2_position),
    ] {
        for p in every(range) {
            assert_eq!(pos(at(p)), p, "position {p}");
            if p > range.0 {
                assert!(at(p) > at(p - 1), "{} ≤ {} at {p}", at(p), at(p - 1));
            }
        }
        // Out of range and non-finite inputs land on the ends.
        assert_eq!(pos(f64::NAN), range.0);
        assert_eq!(pos(-1.0), range.0);
        assert_eq!(pos(1e9), range.1);
    }
}

#[test]
fn page_keys_take_big_round_steps() {
    // σ² by decades: 1000 to 10 in two presses, and on to 0.1 and then 0.
    let mut p = sigma2_position(1000.0);
    let mut seen = vec![];
    for _ in 0..5 {
        p = sigma2_paged(p, false);
        seen.push(sigma2_at(p));
    }
    assert_eq!(seen, [100.0, 10.0, 1.0, 0.1, 0.0]);
    assert_eq!(sigma2_at(sigma2_paged(sigma2_position(1000.0), true)), 5000.0);
    // α by 0.05, stopping at the ends.
    let a = alpha_position(0.1);
    assert_eq!((alpha_at(alpha_paged(a, true)), alpha_at(alpha_paged(a, false))), (0.15, 0.05));
    assert_eq!(alpha_paged(alpha_position(0.05), false), ALPHA_POSITIONS.0);
    assert_eq!(alpha_paged(ALPHA_POSITIONS.1, true), ALPHA_POSITIONS.1);
    // β by about a doubling, a tenth of its range: from 0.1 to the round 0.2 and 0.05.
    let b = beta_position(0.1);
    assert_eq!((beta_at(beta_paged(b, true)), beta_at(beta_paged(b, false))), (0.2, 0.05));
    assert_eq!(beta_paged(BETA_POSITIONS.0, false), BETA_POSITIONS.0);
    // Up then down comes back, away from the ends.
    for p in 50..130 {
        assert_eq!(sigma2_paged(sigma2_paged(p, true), false), p);
    }
}

#[test]
fn beta_is_finer_near_zero() {
    let step = |p: u32| beta_at(p + 1) - beta_at(p);
    assert!(step(0) < 1e-4 && step(199) > 0.02);
}

#[test]
fn formats() {
    assert_eq!(short(0.1), "0.1");
    assert_eq!(short(1000.0), "1000");
    assert_eq!(short(0.00123456), "0.00123");
    assert_eq!(fixed(0.91234, 3), "0.912");
    assert_eq!(fixed(f64::NAN, 3), "–");
    assert_eq!(round3(0.1 + 0.2), 0.3);
}
