//! Numerical edge cases with defined behaviour: what a teacher reaches by pushing every
//! slider to its end, or a user by dropping an odd file. Each test checks the defined output, not
//! only that nothing panics: M = 1, K = 1 and 2, all scores equal, zero variances, τ² = 0,
//! variances of 10¹², tiny n (k* > n gives full sets), α at 0.001 and 0.999, β near 0 and 1.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_core::conformal::{
    self, evaluate, item_scores, k_star, Calibrated, Method, Prepared, Prior, RvalueKind, ScoreOptions, Split,
};
use rvalue_core::eb::{self, Hyper};
use rvalue_core::rvalue::{parametric, Algorithm, HyperChoice, LambdaRule};
use rvalue_core::tensor::{ScoreTensor, Summaries, VarianceKind};
use rvalue_core::{toy, Error};
use rvalue_model::threshold_curves;

/// `n × m × k` scores from a seeded toy (candidate 0 true, so labels are all 0).
fn toy_data(n_cal: usize, n_test: usize, m: usize, k: usize) -> (ScoreTensor, Vec<usize>) {
    let p = toy::ToyParams { k, m, n_cal, n_test, repeats: 1, sigma2: 30.0, seed: 11, ..Default::default() };
    toy::simulate(&p, 0).unwrap()
}

/// The first `n_cal` items calibrate, the rest test.
fn split(n: usize, n_cal: usize) -> Split {
    Split::from_mask(&(0..n).map(|i| i < n_cal).collect::<Vec<_>>()).unwrap()
}

fn opts(kind: RvalueKind) -> ScoreOptions {
    ScoreOptions { kind, ..ScoreOptions::default() }
}

/// Every method (CP_r with each r-value kind) calibrated on `split`.
fn all_calibrated(t: &ScoreTensor, labels: &[usize], split: &Split) -> Vec<(String, Calibrated)> {
    let prepared = Prepared::new(t, labels, true).unwrap();
    let mut out = Vec::new();
    for (m, kind) in [
        (Method::Cp, RvalueKind::Parametric),
        (Method::CpAvg, RvalueKind::Parametric),
        (Method::CpR, RvalueKind::Parametric),
        (Method::CpR, RvalueKind::Nonparametric),
        (Method::CpR, RvalueKind::Pooled),
    ] {
        let c = prepared.calibrate(m, &opts(kind), std::slice::from_ref(split)).unwrap().remove(0);
        out.push((format!("{}/{}", m.name(), kind.name()), c));
    }
    out
}

/// r-values are fractions in [0, 1] (0 is a true infimum: under the empirical λ a unit can
/// qualify at every small β).
fn assert_rvalues(name: &str, r: &[f64]) {
    assert!(r.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)), "{name}: r-values {r:?}");
}

#[test]
fn m1_has_zero_variances_and_parametric_cp_r_ranks_by_the_mean() {
    // An [N, K] file is read as M = 1: the sample variance is undefined, and the documented
    // fallback is 0 (tensor::Summaries), so the r-value sees noise-free units.
    let (t, labels) = toy_data(20, 20, 1, 5);
    let s = Summaries::of(&t);
    assert!(s.var.iter().all(|&v| v == 0.0));
    let p = parametric(s.mean_row(0), &[0.0; 5], HyperChoice::Estimate, Algorithm::Exact, LambdaRule::Model)
        .unwrap();
    assert_rvalues("M = 1", &p.rvalue);
    // With no noise, a higher mean is never a worse r-value.
    let x = s.mean_row(0);
    for a in 0..5 {
        for b in 0..5 {
            if x[a] > x[b] {
                assert!(p.rvalue[a] <= p.rvalue[b], "x {x:?} r {:?}", p.rvalue);
            }
        }
    }
    // Every method still calibrates and covers at α = 0.5 on 20 test items.
    for (name, c) in all_calibrated(&t, &labels, &split(40, 20)) {
        let m = c.metrics(0.5, false);
        assert!(m.coverage.is_finite() && m.size.is_finite(), "{name}: {m:?}");
    }
}

#[test]
fn k1_sets_are_the_candidate_or_empty() {
    let t = ScoreTensor::new(6, 3, 1, (0..18).map(|i| (i * 7 % 5) as f64).collect()).unwrap();
    let labels = vec![0; 6];
    let sp = split(6, 3);
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    for m in [Method::Cp, Method::CpAvg] {
        let c = prepared.calibrate(m, &ScoreOptions::default(), std::slice::from_ref(&sp)).unwrap().remove(0);
        for alpha in [0.001, 0.3, 0.999] {
            for i in 0..3 {
                let set = c.set(i, alpha, false);
                assert!(set.members.len() <= 1);
                // The one candidate is in the set exactly when its score is within the threshold.
                assert_eq!(set.members.len() == 1, c.row(i)[0] <= c.threshold(i, alpha));
            }
            // Never-empty sets always hold it: coverage 1.
            assert_eq!(c.metrics(alpha, true).coverage, 1.0);
        }
    }
    // One unit per item under a per-item prior: μ = x, τ² = 0, and the τ² → 0⁺ limit gives
    // w = 0, r = 1 − Φ(0) = 1/2.
    let per_item = ScoreOptions { prior: Prior::PerItem, ..ScoreOptions::default() };
    let c = prepared.calibrate(Method::CpR, &per_item, std::slice::from_ref(&sp)).unwrap();
    assert!((0..3).all(|i| *c[0].row(i) == [0.5]), "K = 1 parametric r-values");
}

#[test]
fn k2_every_method_gives_sets_of_at_most_two() {
    let (t, labels) = toy_data(30, 30, 4, 2);
    for (name, c) in all_calibrated(&t, &labels, &split(60, 30)) {
        for alpha in [0.001, 0.1, 0.999] {
            let m = c.metrics(alpha, false);
            assert!(
                (0.0..=2.0).contains(&m.size) && (0.0..=1.0).contains(&m.coverage),
                "{name} α {alpha}: {m:?}"
            );
        }
        if name.ends_with("nonparametric") {
            // Two candidates: r-values are 1/2 and 1.
            let mut r: Vec<f64> = c.row(0).to_vec();
            r.sort_by(f64::total_cmp);
            assert_eq!(r, [0.5, 1.0], "{name}");
        }
    }
}

#[test]
fn all_scores_equal_give_full_sets() {
    // Every score ties: each threshold equals every score, and `≤` keeps every candidate.
    let (n, m, k) = (12, 4, 3);
    let t = ScoreTensor::new(n, m, k, vec![0.25; n * m * k]).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let sp = split(n, 6);
    for (name, c) in all_calibrated(&t, &labels, &sp) {
        if name.ends_with("nonparametric") || name.ends_with("pooled") {
            // Rank r-values break ties by index, so they differ by candidate: defined, finite.
            for i in 0..6 {
                assert_rvalues(&name, &c.row(i));
            }
            continue;
        }
        let mm = c.metrics(0.1, false);
        assert_eq!((mm.coverage, mm.size, mm.empty_rate), (1.0, k as f64, 0.0), "{name}");
    }
    // The prior has no spread: τ² = 0, μ = the common value.
    let s = Summaries::of(&t);
    let h = eb::estimate(s.mean_row(0), &[0.0; 3]).unwrap();
    assert_eq!((h.mu, h.tau2), (0.25, 0.0));
}

#[test]
fn zero_variances_give_finite_rvalues() {
    // Each candidate draws the same score M times: v = 0 for all, means differ.
    let (n, m, k) = (8, 5, 4);
    let data: Vec<f64> = (0..n * m * k).map(|u| ((u % k) as f64) + (u / (m * k)) as f64 * 0.1).collect();
    let t = ScoreTensor::new(n, m, k, data).unwrap();
    let s = Summaries::of(&t);
    assert!(s.var.iter().all(|&v| v == 0.0));
    for i in 0..n {
        let p =
            parametric(s.mean_row(i), &[0.0; 4], HyperChoice::Estimate, Algorithm::Exact, LambdaRule::Model)
                .unwrap();
        assert_rvalues("zero variances", &p.rvalue);
        // Candidate 3 has the largest mean and no noise: the best r-value.
        let best = (0..k).min_by(|&a, &b| p.rvalue[a].total_cmp(&p.rvalue[b])).unwrap();
        assert_eq!(best, 3, "{:?}", p.rvalue);
    }
}

#[test]
fn tau2_zero_is_the_limit_and_finite() {
    // Means spread less than their noise: the likelihood's maximum is at τ² = 0.
    let x = [0.1, -0.1, 0.05, 0.0];
    let s = [4.0; 4];
    let h = eb::estimate(&x, &s).unwrap();
    assert_eq!(h.tau2, 0.0);
    for alg in [Algorithm::Exact, Algorithm::Grid] {
        for rule in [LambdaRule::Model, LambdaRule::Empirical] {
            let p = parametric(&x, &s, HyperChoice::Estimate, alg, rule).unwrap();
            assert_rvalues("τ² = 0", &p.rvalue);
            assert!(p.post_mean.iter().chain(&p.post_sd).all(|v| v.is_finite()));
        }
    }
    // The model rule's limit in closed form: r_i = (1/U) Σ_j 1 − Φ(w_i √s_j), w_i = (x_i − μ)/s_i.
    let p = parametric(&x, &s, HyperChoice::Estimate, Algorithm::Exact, LambdaRule::Model).unwrap();
    for i in 0..4 {
        let w = (x[i] - h.mu) / s[i];
        let r = s.iter().map(|sj| rvalue_core::normal::sf(w * sj.sqrt())).sum::<f64>() / 4.0;
        assert!((p.rvalue[i] - r).abs() < 1e-9, "unit {i}: {} vs {r}", p.rvalue[i]);
    }
    // All means equal: every unit is the prior mean, r = 1 − Φ(0) = 1/2 for all.
    let p = parametric(
        &[1.0; 6],
        &[0.5, 1.0, 2.0, 0.5, 1.0, 4.0],
        HyperChoice::Estimate,
        Algorithm::Exact,
        LambdaRule::Model,
    )
    .unwrap();
    assert_eq!((p.hyper.tau2, p.rvalue), (0.0, vec![0.5; 6]));
    // A prior with τ² = 0 has no threshold curve: every value is None, never NaN.
    let c = threshold_curves(Some(Hyper { mu: 0.0, tau2: 0.0 }), &s, &[0.1], &[0.0, 1.0], 0.5).unwrap();
    assert!(c.series.iter().all(|sr| sr.t.iter().all(|v| v.is_none())));
    // A negative τ² is refused.
    assert!(matches!(Hyper::fixed(0.0, -1.0), Err(Error::Invalid(_))));
}

#[test]
fn variances_of_1e12_keep_rvalues_in_range_and_order() {
    // Two precise candidates and two with variance 10¹² (σ = 10⁶): the wide ones' posteriors
    // are the prior, so they are a coin flip (r → 1/2), and the best precise one beats them.
    let x = [5.0, 1.0, 4.0, 4.5];
    let s = [1.0, 1.0, 1e12, 1e12];
    for alg in [Algorithm::Exact, Algorithm::Grid] {
        let p = parametric(&x, &s, HyperChoice::Estimate, alg, LambdaRule::Model).unwrap();
        assert_rvalues("1e12", &p.rvalue);
        assert!(p.rvalue[0] < p.rvalue[2] && p.rvalue[0] < p.rvalue[3], "{alg:?}: {:?}", p.rvalue);
        assert!(p.post_sd.iter().all(|v| v.is_finite()));
    }
    let p = parametric(&x, &s, HyperChoice::Estimate, Algorithm::Exact, LambdaRule::Model).unwrap();
    assert!((p.rvalue[2] - 0.5).abs() < 1e-6 && (p.rvalue[3] - 0.5).abs() < 1e-6, "{:?}", p.rvalue);
    // Scores of magnitude 10⁶ in a tensor: Welford's variance stays exact enough to be positive.
    let (n, m, k) = (4, 6, 3);
    let data: Vec<f64> =
        (0..n * m * k).map(|u| if u % k == 2 { 1e6 * ((u / k) % 2) as f64 } else { 0.5 }).collect();
    let t = ScoreTensor::new(n, m, k, data).unwrap();
    let sm = Summaries::of(&t);
    assert!(sm.var.iter().all(|v| v.is_finite() && *v >= 0.0));
    let scores = item_scores(&t, &sm, None, Method::CpR, &ScoreOptions::default()).unwrap().unwrap();
    assert_rvalues("1e12 tensor", &scores);
}

#[test]
fn tiny_n_gives_full_sets_when_k_star_exceeds_n() {
    // n = 3 calibration items at α = 0.1: k* = ⌈4 · 0.9⌉ = 4 > 3, so q̂ = +∞ and sets are full.
    assert_eq!(k_star(3, 0.1), 4);
    let (t, labels) = toy_data(3, 5, 6, 4);
    for (name, c) in all_calibrated(&t, &labels, &split(8, 3)) {
        for i in 0..5 {
            assert_eq!(c.set(i, 0.1, false).members.len(), 4, "{name} item {i}");
        }
        let m = c.metrics(0.1, false);
        assert_eq!((m.coverage, m.size, m.empty_rate), (1.0, 4.0, 0.0), "{name}");
        // The sweep agrees at that α.
        assert_eq!(c.sweep(&[0.1], false), [(1.0, 4.0)], "{name}");
    }
}

#[test]
fn alpha_at_0_001_and_0_999() {
    let (t, labels) = toy_data(100, 100, 8, 5);
    let sp = split(200, 100);
    // k*(100, 0.001) = ⌈101 · 0.999⌉ = 101 > 100: full sets. k*(100, 0.999) = ⌈0.101⌉ = 1: the
    // smallest calibration score.
    assert_eq!((k_star(100, 0.001), k_star(100, 0.999)), (101, 1));
    for (name, c) in all_calibrated(&t, &labels, &sp) {
        let full = c.metrics(0.001, false);
        assert_eq!((full.coverage, full.size), (1.0, 5.0), "{name}");
        let tiny = c.metrics(0.999, false);
        assert!((0.0..=1.0).contains(&tiny.coverage) && tiny.size < 5.0, "{name}: {tiny:?}");
        // With never-empty sets every item keeps at least its best candidate.
        assert!(c.metrics(0.999, true).size >= 1.0, "{name}");
        // When no set holds a true label, the mean position is NaN by definition (SplitMetrics),
        // and evaluate() drops such splits from `position_mean` rather than averaging NaN.
        assert!(tiny.position.is_nan() || tiny.position >= 0.0);
        let summary = evaluate(std::slice::from_ref(&c), Method::Cp, 0.999, false).unwrap();
        assert!(summary.coverage_mean.is_finite() && summary.size_mean.is_finite());
        assert_eq!(summary.position_mean.is_nan(), tiny.position.is_nan());
    }
    // α outside (0, 1) is an error, not a number.
    let c = Prepared::new(&t, &labels, false)
        .unwrap()
        .calibrate(Method::Cp, &ScoreOptions::default(), &[sp])
        .unwrap();
    for bad in [0.0, 1.0, -0.1, f64::NAN, f64::INFINITY] {
        let e = evaluate(&c, Method::Cp, bad, false).unwrap_err();
        assert!(matches!(&e, Error::OutOfRange { what, .. } if what == "α"), "α = {bad}: {e}");
        assert!(conformal::check_alpha(bad).is_err());
    }
}

#[test]
fn beta_near_0_and_1() {
    let ss = [0.1, 0.5, 1.0, 4.0, 20.0];
    for beta in [1e-9, 1e-3, 0.999, 1.0 - 1e-9] {
        let z = eb::z_model(beta, &ss).unwrap();
        assert!(z.is_finite(), "β {beta}: z {z}");
        // z_β is where the model selects a fraction β.
        let q = rvalue_core::normal::upper_quantile(beta);
        let frac = eb::model_fraction(q, z, &ss);
        assert!((frac - beta).abs() <= 1e-6 * beta.max(1e-3), "β {beta}: fraction {frac}");
        let lambda = eb::lambda_model(beta, &ss).unwrap();
        assert!((0.0..=1.0).contains(&lambda), "β {beta}: λ {lambda}");
    }
    // β outside (0, 1) has no z_β.
    for beta in [0.0, 1.0, f64::NAN] {
        assert_eq!(eb::z_model(beta, &ss), None, "β {beta}");
    }
    // The page's β slider ends (0.001, 0.999) give finite threshold curves, or None where
    // undefined, never NaN.
    let h = Hyper { mu: 0.0, tau2: 2.0 };
    let grid: Vec<f64> = (0..50).map(|i| 10f64.powf(-1.0 + i as f64 / 10.0)).collect();
    let c = threshold_curves(Some(h), &ss, &[0.001, 0.999], &grid, 1.0).unwrap();
    for sr in &c.series {
        assert!(sr.t.iter().flatten().all(|v| v.is_finite()), "β {}", sr.beta);
        assert!(sr.t.iter().any(|v| v.is_some()), "β {}: no curve", sr.beta);
    }
}

#[test]
fn variance_kinds_agree_at_m1() {
    // At M = 1 both variance choices are 0 (v/M of 0 is 0): no NaN from 0/0.
    let (t, _) = toy_data(5, 5, 1, 3);
    let s = Summaries::of(&t);
    for kind in [VarianceKind::PerDraw, VarianceKind::OfMean] {
        assert!((0..10).all(|i| (0..3).all(|c| s.s(i, c, kind) == 0.0)));
    }
}

/// What the page shows at the sliders' ends, on a small toy at its own edges (K = 2, M = 1, three
/// calibration items, σ² = 0 or 5000): every number handed to a plot or a table is finite or an
/// explicit `None` (which the page shows as "–"), never NaN.
#[test]
fn page_numbers_at_the_slider_ends_are_finite_or_none() {
    use rvalue_model::scales::{self, ALPHA_POSITIONS, BETA_POSITIONS, SIGMA2_POSITIONS};
    use rvalue_model::*;
    let finite = |what: &str, v: &[f64]| assert!(v.iter().all(|x| x.is_finite()), "{what}: {v:?}");
    let finite_or_none =
        |what: &str, v: &[Option<f64>]| assert!(v.iter().flatten().all(|x| x.is_finite()), "{what}");
    for (k, m, n_cal, kind) in [
        (2, 1, 3, RvalueKind::Parametric),
        (2, 3, 3, RvalueKind::Pooled),
        (3, 5, 4, RvalueKind::Nonparametric),
    ] {
        for sigma2_pos in [SIGMA2_POSITIONS.0, SIGMA2_POSITIONS.1] {
            let controls = Controls {
                toy: toy::ToyParams { k, m, n_cal, n_test: 3, repeats: 2, ..Default::default() },
                sigma2: scales::sigma2_at(sigma2_pos),
                score: ScoreOptions { kind, ..ScoreOptions::default() },
                ..Controls::default()
            };
            let what = format!("K {k} M {m} n {n_cal} {kind:?} σ² {}", controls.sigma2);
            let mut job =
                AnalysisJob::new(Source::from_controls(&controls, None).unwrap(), &controls).unwrap();
            while let Progress::Working(_) = job.step().unwrap() {}
            let analysis = job.finish().unwrap();
            let sweep = analysis.sweep(false);
            for mi in 0..3 {
                finite(&what, &sweep.coverage[mi]);
                finite(&what, &sweep.size[mi]);
            }
            for alpha in [scales::alpha_at(ALPHA_POSITIONS.0), scales::alpha_at(ALPHA_POSITIONS.1)] {
                let v = analysis.at_alpha(alpha, false).unwrap();
                for r in &v.rows {
                    finite(&what, &[r.coverage_mean, r.coverage_sd, r.size_mean, r.size_sd, r.empty_rate]);
                }
                finite_or_none(&what, &v.rows.iter().map(|r| r.position_mean).collect::<Vec<_>>());
                finite_or_none(&what, &[v.reduction_vs_cp, v.reduction_vs_cp_avg]);
                let item = analysis.inspect(0, alpha, false).unwrap();
                for mr in &item.methods {
                    finite_or_none(&what, &[mr.threshold]);
                    finite(&what, &mr.ranked.iter().map(|c| c.score).collect::<Vec<_>>());
                }
                for beta in [scales::beta_at(BETA_POSITIONS.0), scales::beta_at(BETA_POSITIONS.1)] {
                    let p = controls.toy_params();
                    let d = score_densities(&p, &default_score_xs(&p, 50)).unwrap();
                    finite_or_none(&what, &d.p);
                    finite_or_none(&what, &d.q);
                    let (prior, variances) = threshold_inputs(&controls, Some(&analysis)).unwrap();
                    let c = threshold_curves(
                        Some(prior),
                        &variances,
                        &panel_betas(beta),
                        &sigma2_grid(50),
                        controls.sigma2,
                    )
                    .unwrap();
                    c.series.iter().for_each(|s| finite_or_none(&what, &s.t));
                    let inc =
                        inclusion_curves(&InclusionInputs::toy(&p, alpha, beta).unwrap(), &sigma2_grid(50))
                            .unwrap();
                    finite_or_none(&what, &inc.cp);
                    finite_or_none(&what, &inc.cp_r);
                    for from in [CutFrom::Calibrated, CutFrom::Beta] {
                        let Ok(inputs) = analysis.inclusion_inputs(alpha, beta, from) else { continue };
                        let inc = inclusion_curves(&inputs, &sigma2_grid(50)).unwrap();
                        finite_or_none(&what, &inc.cp_r);
                        finite_or_none(&what, &inc.cp_r_one_draw);
                    }
                }
            }
        }
    }
}

/// The page's number formats show a non-finite value as "–", never "NaN" or "inf".
#[test]
fn formats_render_non_finite_values_as_a_dash() {
    use rvalue_model::scales::{fixed, round3, short};
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(fixed(x, 3), "–");
        assert_eq!(short(x), "–");
        assert!(round3(x).is_nan() == x.is_nan() && (x.is_nan() || round3(x) == x));
    }
}

/// Panel 8's summary of degenerate files (one draw, every score equal) has finite numbers.
#[test]
fn data_summary_of_degenerate_files_is_finite() {
    use rvalue_core::io::Dataset;
    use rvalue_model::DataSummary;
    for (m, data) in [(1, (0..24).map(|i| i as f64).collect::<Vec<_>>()), (2, vec![3.0; 48])] {
        let scores = ScoreTensor::new(6, m, 4, data[..6 * m * 4].to_vec()).unwrap();
        let d = Dataset { scores, labels: Some(vec![0, 1, 2, 3, 0, 1]), single_draw: m == 1 };
        let s = DataSummary::of(&d, VarianceKind::PerDraw, 10).unwrap();
        assert!(s.bin_edges.iter().all(|e| e.is_finite()), "{:?}", s.bin_edges);
        for dist in
            [Some(&s.all), s.true_candidates.as_ref(), s.false_candidates.as_ref()].into_iter().flatten()
        {
            assert!(dist.mean.is_finite() && dist.quantiles.iter().all(|q| q.is_finite()));
            assert_eq!(dist.histogram.iter().sum::<u64>() as usize, dist.count);
        }
        assert!(s.accuracy.is_some_and(|a| (0.0..=1.0).contains(&a)));
        assert_eq!(s.single_draw, m == 1);
    }
}
