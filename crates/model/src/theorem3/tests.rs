//! Panel 5 against panel 6: the false candidates its readout expects per set are those the
//! toy's sets hold, within sampling error.

use crate::*;
use rvalue_core::toy::ToyParams;

/// The toy's defaults at σ², with fewer repeats (each repeat has the defaults' 500 + 500 items).
fn toy_at(sigma2: f64, repeats: usize) -> (Controls, Analysis) {
    let mut c = Controls { sigma2, ..Controls::default() };
    c.toy = ToyParams { repeats, ..c.toy.clone() };
    let a = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap().run().unwrap();
    (c, a)
}

#[test]
fn the_readout_counts_the_false_candidates_panel_6_measures() {
    for sigma2 in [10.0, 1000.0] {
        let (c, a) = toy_at(sigma2, 3);
        let inputs = a.inclusion_inputs(c.alpha, c.beta, CutFrom::Calibrated).unwrap();
        let r = theorem3_readout(&inputs, sigma2, Some(&c.toy_params()));
        let view = a.at_alpha(c.alpha, false).unwrap();
        // A set's size less its coverage is the false candidates in it, on average.
        let measured = |m: usize| view.rows[m].size_mean - view.rows[m].coverage_mean;
        let (cp, cp_r) = (r.false_cp.unwrap(), r.false_cp_r.unwrap());
        // CP: 1500 test items of 9 false candidates each, sd of the mean ≈ 1.5/√1500 ≈ 0.04,
        // and CP's calibrated q̂ against the population T.
        assert!((cp - measured(0)).abs() < 0.2, "σ² = {sigma2}: CP {cp} against {}", measured(0));
        assert!((cp_r - measured(2)).abs() < 0.05, "σ² = {sigma2}: CP_r {cp_r} against {}", measured(2));
        assert_eq!(inputs.r_star, a.r_hat(c.alpha));
        assert!(r.text().contains("false candidates per CP set"), "{}", r.text());
    }
}

/// The calibrated r̂ at the defaults is far below β = 0.1, and the fitted prior has τ̂² = 0, so
/// the curve is the r-value's τ² → 0 limit; the curve does not depend on the marker.
#[test]
fn the_defaults_calibrate_a_small_r_hat_under_a_flat_fitted_prior() {
    let (c, a) = toy_at(1000.0, 1);
    let r = a.r_hat(c.alpha).unwrap();
    assert!(r > 0.015 && r < 0.04, "r̂ = {r}");
    let inputs = a.inclusion_inputs(c.alpha, c.beta, CutFrom::Calibrated).unwrap();
    assert_eq!(inputs.hyper.tau2, 0.0);
    assert!(matches!(inputs.rule, Some(CutRule::Limit { .. })));
    let held = theorem3_held(&inputs, c.alpha, Some(1000.0), 10.0);
    assert!(held.contains("r̂ = ") && held.contains("until the new one is done"), "{held}");
    // The rule's sample of variances mixes true and false candidates as the data do.
    let Some(CutRule::Limit { e }) = inputs.rule else { unreachable!() };
    let all = limit_slope(r, &a.variances()).unwrap();
    assert!((e - all).abs() < 0.02 * all, "e = {e} on a sample, {all} on every candidate");
    // At β the threshold is lower, so more false candidates pass.
    let beta = a.inclusion_inputs(c.alpha, c.beta, CutFrom::Beta).unwrap();
    assert!(beta.cut_at(10.0).unwrap() < inputs.cut_at(10.0).unwrap());
}

#[test]
fn the_limit_slope_solves_its_equation() {
    // One variance 1: 1 − Φ(e) = β.
    let e = limit_slope(0.1, &[1.0]).unwrap();
    assert!((e - 1.281_551_565_544_6).abs() < 1e-9, "{e}");
    let s = [0.5, 3.0, 1000.0];
    let e = limit_slope(0.2, &s).unwrap();
    let sum: f64 = s.iter().map(|v| rvalue_core::normal::sf(e * v.sqrt())).sum::<f64>() / 3.0;
    assert!((sum - 0.2).abs() < 1e-12);
    // Noise-free units count one half: β below their share of it cannot be met.
    assert_eq!(limit_slope(0.2, &[0.0, 0.0, 1.0]), None);
    assert_eq!(limit_slope(1.5, &[1.0]), None);
}

#[test]
fn panel_2_names_the_prior_it_draws_with() {
    let h = rvalue_core::eb::Hyper { mu: 0.133, tau2: 0.0 };
    assert_eq!(
        prior_source(Mode::Toy, Some(h)),
        "the toy's true prior; dashed: the fitted one the r-values use, μ̂ = 0.133, τ̂² = 0.0000"
    );
    assert!(prior_source(Mode::Scores, Some(h)).starts_with("fitted to the data"));
    assert!(prior_source(Mode::Toy, None).contains("fitted to the data"));
}
