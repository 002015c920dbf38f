//! The model's tests across its modules: the stepped analysis against the one-shot build and
//! the core, and the panels' numbers; the helpers here serve every test module of the crate.

mod baselines;
mod streamed_file;
mod true_draws;

use std::sync::Arc;

use super::*;
use rvalue_core::conformal::{
    difficulty_ranks, evaluate, summarize_with, sweep, Method, Prior, RvalueKind, ScoreOptions, Summary,
};
use rvalue_core::eb::Hyper;
use rvalue_core::io::Dataset;
use rvalue_core::tensor::{ScoreTensor, VarianceKind};
use rvalue_core::toy::{self, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const ALPHAS: [f64; 6] = [0.005, 0.03, 0.1, 0.2, 0.37, 0.5];

pub(crate) fn small_controls() -> Controls {
    Controls {
        toy: ToyParams { k: 4, m: 6, n_cal: 25, n_test: 30, repeats: 3, ..ToyParams::default() },
        sigma2: 50.0,
        splits: 4,
        ..Controls::default()
    }
}

fn toy_dataset(p: &ToyParams) -> Arc<Dataset> {
    let (scores, labels) = toy::simulate(p, 0).unwrap();
    // Shuffle labels' meaning a little: relabel so that the true candidate is not always 0.
    let (n, m, k) = (scores.n(), scores.m(), scores.k());
    let mut data = Vec::with_capacity(n * m * k);
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        let shift = i % k;
        for d in 0..m {
            let row = scores.draw(i, d, &mut Vec::new()).to_vec();
            data.extend((0..k).map(|c| row[(c + k - shift) % k]));
        }
        y.push((labels[i] + shift) % k);
    }
    let scores = rvalue_core::tensor::ScoreTensor::new(n, m, k, data).unwrap();
    Arc::new(Dataset { scores, labels: Some(y), single_draw: m == 1 })
}

pub(crate) fn sources(c: &Controls) -> Vec<(Source, Controls)> {
    let mut data = c.clone();
    data.mode = Mode::Scores;
    vec![(Source::Toy(c.toy_params()), c.clone()), (Source::Data(toy_dataset(&c.toy_params())), data)]
}

pub(crate) fn all_kinds() -> Vec<Controls> {
    let base = small_controls();
    vec![
        base.clone(),
        Controls { score: ScoreOptions { kind: RvalueKind::Nonparametric, ..base.score }, ..base.clone() },
        Controls { score: ScoreOptions { kind: RvalueKind::Pooled, ..base.score }, ..base.clone() },
        Controls {
            score: ScoreOptions {
                // The page's default prior is pooled; keep the core's per-item prior covered.
                prior: Prior::PerItem,
                variance: VarianceKind::OfMean,
                cp_draw: 2,
                ..base.score
            },
            ..base.clone()
        },
    ]
}

/// Debug output prints every f64 exactly (shortest round trip), and NaN equals NaN.
pub(super) fn same<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Two analyses agree bit for bit: every method's calibrations, both α sweeps, the answers at
/// one α and an inspected item.
pub(super) fn assert_same_analysis(a: &Analysis, b: &Analysis, what: &str) {
    for m in Method::PAPER {
        assert!(same(&a.calibrated(m), &b.calibrated(m)), "{what} {m:?}");
    }
    for ne in [false, true] {
        assert_eq!(a.sweep(ne), b.sweep(ne), "{what}");
        assert!(same(&a.at_alpha(0.1, ne).unwrap(), &b.at_alpha(0.1, ne).unwrap()), "{what}");
    }
    assert!(same(&a.inspect(3, 0.2, false).unwrap(), &b.inspect(3, 0.2, false).unwrap()), "{what}");
}

/// The core's summary of `a`'s calibrations of `m`, each split's difficulty ranks computed
/// here from CP_avg's rows of that split (minus the mean scores), as a toy's repeats each have
/// data of their own.
pub(super) fn fresh_summary(a: &Analysis, m: Method, alpha: f64, ne: bool) -> Summary {
    let (avg, cals) = (a.calibrated(Method::CpAvg), a.calibrated(m));
    let (mut per_split, mut sizes, mut tallies) = (Vec::new(), Vec::new(), Vec::new());
    for (c, mean) in cals.iter().zip(avg) {
        let mut ranks = vec![0u32; c.test.iter().max().map_or(0, |i| i + 1)];
        for t in 0..mean.test.len() {
            let means: Vec<f64> = mean.row(t).iter().map(|x| -x).collect();
            ranks[mean.test[t]] = difficulty_ranks(&means, c.k, &[mean.label(t)])[0];
        }
        let (metrics, s, tl) = c.measure(alpha, ne, &ranks);
        per_split.push(metrics);
        sizes.push(s);
        tallies.push(tl);
    }
    summarize_with(m, alpha, &per_split, &sizes, cals[0].k, &tallies)
}

#[test]
fn alpha_answers_equal_a_fresh_evaluate() {
    for c in all_kinds() {
        for (src, c) in sources(&c) {
            let a = AnalysisJob::new(src, &c).unwrap().run().unwrap();
            for ne in [false, true] {
                for alpha in ALPHAS {
                    for m in Method::PAPER {
                        let fresh = fresh_summary(&a, m, alpha, ne);
                        let ours = a.summary(m, alpha, ne).unwrap();
                        assert!(same(&fresh, &ours), "{:?} {m:?} α={alpha} ne={ne}", c.score.kind);
                        assert!(
                            ours.conditional.macro_coverage_mean.is_finite()
                                && ours.conditional.dsv_mean.is_finite()
                        );
                    }
                    let view = a.at_alpha(alpha, ne).unwrap();
                    assert_eq!(view.rows.len(), 3);
                    assert_eq!(
                        view.rows[2].size_mean,
                        evaluate(a.calibrated(Method::CpR), Method::CpR, alpha, ne).unwrap().size_mean
                    );
                }
                let sw = a.sweep(ne);
                assert_eq!(sw.never_empty, ne);
                for (mi, m) in Method::PAPER.into_iter().enumerate() {
                    let fresh = sweep(a.calibrated(m), &sw.alphas, ne);
                    assert_eq!(fresh.iter().map(|x| x.0).collect::<Vec<_>>(), sw.coverage[mi]);
                    assert_eq!(fresh.iter().map(|x| x.1).collect::<Vec<_>>(), sw.size[mi]);
                }
            }
        }
    }
}

#[test]
fn stepped_job_equals_one_shot_build() {
    for c in all_kinds() {
        for (src, c) in sources(&c) {
            let once = Analysis::build(src.clone(), &c).unwrap();
            let mut job = AnalysisJob::new(src, &c).unwrap().with_budget(7);
            let (mut steps, mut last) = (0, 0.0);
            assert!(!job.describe().is_empty());
            while let Progress::Working(f) = job.step().unwrap() {
                assert!((last..1.0).contains(&f), "fraction {f} after {last}");
                assert_eq!(job.fraction_done(), f);
                last = f;
                steps += 1;
            }
            assert_eq!(job.fraction_done(), 1.0);
            assert_eq!(job.describe(), "done");
            assert!(steps > 10, "{steps} steps");
            let stepped = job.finish().unwrap();
            assert_same_analysis(&once, &stepped, &format!("{:?}", c.score.kind));
        }
    }
}

#[test]
fn partial_analysis_equals_a_finished_one_of_fewer_repeats() {
    for c in all_kinds() {
        let mut job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
        assert!(job.partial().is_none());
        let mut seen = Vec::new();
        while job.step().unwrap() != Progress::Done {
            // Each count of recorded repeats is checked once.
            if let Some(p) = job.partial().filter(|_| seen.last() != Some(&job.parts().0)) {
                let done = job.parts().0;
                assert_eq!(p.controls.toy.repeats, done);
                let fewer = Controls { toy: ToyParams { repeats: done, ..c.toy.clone() }, ..c.clone() };
                let once = Analysis::build(Source::Toy(fewer.toy_params()), &fewer).unwrap();
                for ne in [false, true] {
                    assert_eq!(once.sweep(ne), p.sweep(ne));
                    assert!(same(&once.at_alpha(0.1, ne).unwrap(), &p.at_alpha(0.1, ne).unwrap()));
                }
                assert!(same(&once.inspect(2, 0.2, false).unwrap(), &p.inspect(2, 0.2, false).unwrap()));
                seen.push(done);
            }
        }
        // Offered from the first recorded repeat on; the last is `finish`'s.
        assert_eq!(seen, vec![1, 2], "{:?}", c.score.kind);
    }
    let c = small_controls();
    let d = toy_dataset(&c.toy_params());
    let mut job = AnalysisJob::new(Source::Data(d), &Controls { mode: Mode::Scores, ..c }).unwrap();
    while job.step().unwrap() != Progress::Done {
        assert!(job.partial().is_none(), "a score file is one data set");
    }
}

/// Repeats handed out (computed here by `compute_part`, through its request and bytes as a
/// Web Worker does), one given back and the others supplied out of order, give the analysis the
/// job gives alone, bit for bit.
#[test]
fn repeats_computed_elsewhere_give_the_same_analysis() {
    for c in all_kinds() {
        let c = Controls { toy: ToyParams { repeats: 6, ..c.toy.clone() }, ..c };
        let src = Source::Toy(c.toy_params());
        let alone = AnalysisJob::new(src.clone(), &c).unwrap().run().unwrap();
        let mut job = AnalysisJob::new(src, &c).unwrap().with_budget(50);
        let out: Vec<HandOut> = std::iter::from_fn(|| job.hand_out()).take(3).collect();
        assert_eq!(out.iter().map(|h| h.part).collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(job.parts_out(), 3);
        // The job computes the repeats left (0, 4, 5), then waits for those handed out.
        let progress = loop {
            match job.step().unwrap() {
                Progress::Working(_) => {}
                other => break other,
            }
        };
        assert!(matches!(progress, Progress::Waiting(f) if f > 0.0 && f < 1.0), "{progress:?}");
        assert_eq!(job.parts().0, 1, "repeat 0 alone is recorded before repeat 1 is back");
        assert!(job.partial().is_some());
        assert!(job.describe().contains("waiting"));
        // Repeat 2's thread fails: the job computes it itself.
        job.hand_back(2);
        assert_eq!(job.parts_out(), 2);
        let bytes: Vec<Vec<u8>> = out.iter().map(|h| compute_part(&h.request).unwrap()).collect();
        assert!(job.supply_part(3, &bytes[2][..bytes[2].len() - 1]).is_err(), "a truncated result");
        assert!(job.supply_part(3, &bytes[0]).is_err(), "repeat 1's result for repeat 3");
        job.supply_part(3, &bytes[2]).unwrap();
        job.supply_part(1, &bytes[0]).unwrap();
        assert!(job.supply_part(1, &bytes[0]).is_err(), "a repeat supplied twice");
        assert!(job.supply_part(2, &bytes[1]).is_err(), "a repeat given back");
        while job.step().unwrap() != Progress::Done {}
        let shared = job.finish().unwrap();
        assert_same_analysis(&alone, &shared, &format!("{:?}", c.score.kind));
    }
}

/// A repeat the job started ahead of its turn whose turn comes while it is being calibrated
/// (the repeat before it supplied meanwhile) is still recorded whole and in order.
#[test]
fn a_repeat_whose_turn_comes_mid_calibration_is_recorded_whole() {
    for c in all_kinds() {
        let c = Controls { toy: ToyParams { repeats: 4, ..c.toy.clone() }, ..c };
        let src = Source::Toy(c.toy_params());
        let alone = AnalysisJob::new(src.clone(), &c).unwrap().run().unwrap();
        let mut job = AnalysisJob::new(src, &c).unwrap();
        let one = job.hand_out().unwrap();
        assert_eq!(one.part, 1);
        // Repeat 0, then repeat 2 up to its first calibration (CP's).
        while !job.describe().starts_with("repeat 3/4: calibrating") {
            job.step().unwrap();
        }
        job.step().unwrap();
        assert!(job.describe().starts_with("repeat 3/4: calibrating"), "{}", job.describe());
        job.supply_part(1, &compute_part(&one.request).unwrap()).unwrap();
        while job.step().unwrap() != Progress::Done {}
        let shared = job.finish().unwrap();
        assert_same_analysis(&alone, &shared, &format!("{:?}", c.score.kind));
    }
}

/// A score file is one part of many splits: each split is recorded (its α sweep summed) in
/// the step that calibrates it, not all in the part's last step, which would block a page.
#[test]
fn a_score_files_splits_are_recorded_as_they_are_calibrated() {
    let c = Controls { mode: Mode::Scores, ..small_controls() };
    let mut job = AnalysisJob::new(Source::Data(toy_dataset(&c.toy_params())), &c).unwrap();
    let mut counts = vec![job.recorded_splits()];
    while job.step().unwrap() != Progress::Done {
        counts.push(job.recorded_splits());
    }
    counts.dedup();
    assert_eq!(counts, (0..=c.splits).collect::<Vec<_>>());
}

/// A score file's pooled splits calibrated in other threads, back out of order and one given
/// back, give the analysis of one thread; a wrong or repeated result is refused.
#[test]
fn pooled_splits_computed_elsewhere_give_the_same_analysis() {
    let mut c = Controls { mode: Mode::Scores, splits: 6, ..small_controls() };
    c.score.kind = RvalueKind::Pooled;
    let d = toy_dataset(&c.toy_params());
    let alone = AnalysisJob::new(Source::Data(d.clone()), &c).unwrap().run().unwrap();
    let mut job = AnalysisJob::new(Source::Data(d.clone()), &c).unwrap().with_budget(50);
    assert_eq!(job.hand_out(), None, "before the file is loaded");
    job.step().unwrap();
    let out: Vec<HandOut> = std::iter::from_fn(|| job.hand_out()).take(3).collect();
    assert_eq!(out.iter().map(|h| h.part).collect::<Vec<_>>(), vec![1, 2, 3]);
    let mut held = HeldData::new(d.scores.clone(), d.labels.clone().unwrap()).unwrap();
    let bytes: Vec<Vec<u8>> = out.iter().map(|h| held.compute_split(&h.request).unwrap()).collect();
    job.supply_part(3, &bytes[2]).unwrap();
    assert!(job.supply_part(2, &bytes[0]).is_err(), "split 1's result for split 2");
    job.hand_back(2);
    let progress = loop {
        match job.step().unwrap() {
            Progress::Working(_) => {}
            other => break other,
        }
    };
    assert!(matches!(progress, Progress::Waiting(f) if f > 0.0 && f < 1.0), "{progress:?}");
    assert!(job.describe().contains("waiting"), "{}", job.describe());
    assert_eq!(job.parts_out(), 1);
    job.supply_part(1, &bytes[0]).unwrap();
    assert!(job.supply_part(1, &bytes[0]).is_err(), "a split supplied twice");
    while job.step().unwrap() != Progress::Done {}
    assert_same_analysis(&alone, &job.finish().unwrap(), "pooled splits in other threads");
    for bad in ["", "0", "999\n", "x\nkind=pooled"] {
        assert!(held.compute_split(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn only_toy_repeats_are_handed_out_and_requests_are_checked() {
    let c = small_controls();
    let d = toy_dataset(&c.toy_params());
    let mut job = AnalysisJob::new(Source::Data(d), &Controls { mode: Mode::Scores, ..c.clone() }).unwrap();
    assert_eq!(job.hand_out(), None);
    let one = Controls { toy: ToyParams { repeats: 1, ..c.toy.clone() }, ..c.clone() };
    assert_eq!(AnalysisJob::new(Source::Toy(one.toy_params()), &one).unwrap().hand_out(), None);
    for bad in ["", "1", "x\n", "1\nkind=bogus", "99\n"] {
        assert!(compute_part(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn unfinished_job_refuses_to_finish_and_dropping_cancels() {
    let c = small_controls();
    let mut job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
    assert_eq!(job.fraction_done(), 0.0);
    job.step().unwrap();
    assert!(job.finish().is_err());
    let mut job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
    job.step().unwrap();
    drop(job);
}

#[test]
fn prob_q_exceeds_p_at_defaults() {
    let p = Controls::default().toy_params();
    let xs = default_score_xs(&p, 201);
    let d = score_densities(&p, &xs).unwrap();
    assert!((d.prob_q_exceeds_p - 0.487_39).abs() < 1e-5, "{}", d.prob_q_exceeds_p);
    assert_eq!((d.prob_q_exceeds_p * 10_000.0).round() / 100.0, 48.74);
    assert_eq!(d.paper_printed_percent, 48.47);
    // p's density peaks at μp with 1/√(2π).
    let at = |x: f64| score_densities(&p, &[x]).unwrap().p[0].unwrap();
    assert!((at(1.0) - 0.398_942_280_401_432_7).abs() < 1e-15);
    assert!(d.p.iter().chain(&d.q).all(|v| v.is_some_and(f64::is_finite)));
    // The drawn curve reaches that peak, and q's: both means are among the points, in order.
    let top = |v: &[Option<f64>]| v.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
    assert_eq!(top(&d.p), at(1.0));
    assert_eq!(top(&d.q), score_densities(&p, &[0.0]).unwrap().q[0].unwrap());
    assert!(xs.len() == 203 && xs.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn panel_one_note_follows_the_parameters_and_names_the_misprint_only_at_the_papers() {
    let mut p = Controls::default().toy_params();
    let note = score_densities(&p, &[0.0]).unwrap().note;
    assert!(note.contains("Φ(−1/√1001) = 48.74 %"), "{note}");
    assert!(note.contains("48.47 %"), "{note}");
    p.sigma2 = 30.0;
    let note = score_densities(&p, &[0.0]).unwrap().note;
    assert!(note.contains("Φ(−1/√31) = 42.87 %"), "{note}");
    assert!(!note.contains("48.47") && !note.contains("48.74") && !note.contains("paper"), "{note}");
    // Typed values without float noise: 0.1 + 0.2 is written 0.3; μq − μp = 0 has no sign.
    (p.mu_p, p.mu_q, p.sigma2_p, p.sigma2) = (0.5, 0.5, 0.1, 0.2);
    let note = score_densities(&p, &[0.0]).unwrap().note;
    assert!(note.contains("Φ(0/√0.3) = 50.00 %"), "{note}");
    (p.sigma2_p, p.sigma2, p.mu_q) = (0.0, 0.0, 2.0);
    let note = score_densities(&p, &[0.0]).unwrap().note;
    assert!(note.contains("both scores are fixed: P(q > p) = 100.00 %"), "{note}");
}

#[test]
fn threshold_curve_passes_through_q_beta_at_zero_and_s0() {
    // Variances around 1 give 0 < z < q at small β: the curve dips.
    let ss: Vec<f64> = (0..50).map(|i| 0.1 + 0.05 * i as f64).collect();
    for beta in [0.01, 0.05, 0.1] {
        let q = rvalue_core::normal::upper_quantile(beta);
        let z = rvalue_core::eb::z_model(beta, &ss).unwrap();
        let shape = rvalue_core::eb::threshold_shape(q, z);
        let rvalue_core::eb::ThresholdShape::Dip { s0, s_star } = shape else {
            panic!("{shape:?} at β={beta}")
        };
        let grid = [0.0, s_star, s0, 3.0];
        let c = threshold_curves(None, &ss, &[beta], &grid, s0).unwrap();
        let s = &c.series[0];
        assert_eq!(s.t[0], Some(q));
        assert!((s.t[2].unwrap() - q).abs() < 1e-12 * q.abs().max(1.0));
        assert!(s.t[1].unwrap() < q);
        let m0 = s.s0.unwrap();
        assert!((m0.sigma2 - s0).abs() < 1e-15 && (m0.t - q).abs() < 1e-12);
        assert_eq!(s.slider.unwrap().sigma2, s0);
        assert!(s.s_star.unwrap().t <= s.t[2].unwrap());
        // On the original scale: μ + τ q at 0 and at τ² s0.
        let h = Hyper { mu: 2.0, tau2: 4.0 };
        let orig: Vec<f64> = ss.iter().map(|s| s * h.tau2).collect();
        let c = threshold_curves(Some(h), &orig, &[beta], &[0.0, h.tau2 * s0], 0.0).unwrap();
        let want = h.mu + 2.0 * q;
        for t in &c.series[0].t {
            assert!((t.unwrap() - want).abs() < 1e-12 * want.abs(), "{t:?} vs {want}");
        }
        assert!((c.series[0].s0.unwrap().sigma2 - h.tau2 * s0).abs() < 1e-12);
    }
    assert!(threshold_curves(None, &[1.0], &[0.0], &[0.0], 0.0).is_err());
    assert!(threshold_curves(None, &[-1.0], &[0.1], &[0.0], 0.0).is_err());
    // τ² = 0 and all-zero variances: explicit None, never NaN.
    let c = threshold_curves(Some(Hyper { mu: 0.0, tau2: 0.0 }), &[1.0], &[0.1], &[0.0, 1.0], 0.5).unwrap();
    assert!(c.series[0].t.iter().all(Option::is_none) && c.series[0].slider.is_none());
    let c = threshold_curves(None, &[0.0, 0.0], &[0.1], &[0.0, 1.0], 0.5).unwrap();
    assert!(c.series[0].z.is_none() && c.series[0].t.iter().all(Option::is_none));
}

#[test]
fn inspector_flags_agree_with_calibrated_set() {
    for c in all_kinds() {
        for (src, c) in sources(&c) {
            let a = AnalysisJob::new(src, &c).unwrap().run().unwrap();
            assert_eq!(a.n_inspectable(), 30.min(a.calibrated(Method::Cp)[0].test.len()));
            for t in [0, 7, a.n_inspectable() - 1] {
                for alpha in [0.005, 0.1, 0.5] {
                    for ne in [false, true] {
                        let v = a.inspect(t, alpha, ne).unwrap();
                        for (mi, m) in Method::PAPER.into_iter().enumerate() {
                            let set = a.calibrated(m)[0].set(t, alpha, ne);
                            assert_eq!(set.item, v.item);
                            let r = &v.methods[mi];
                            assert_eq!(r.ranked.len(), a.k);
                            let members: Vec<(usize, f64)> = r
                                .ranked
                                .iter()
                                .filter(|x| x.in_set)
                                .map(|x| (x.candidate, x.score))
                                .collect();
                            assert_eq!(members, set.members, "{:?} {m:?} t={t} α={alpha}", c.score.kind);
                            assert_eq!(r.ranked.iter().filter(|x| x.is_true).count(), 1);
                            assert!(r.ranked.iter().all(|x| x.is_true == (x.candidate == v.label)));
                        }
                    }
                }
            }
            assert!(a.inspect(a.n_inspectable(), 0.1, false).is_err());
        }
    }
}

fn assert_finite(what: &str, xs: impl IntoIterator<Item = f64>) {
    for x in xs {
        assert!(x.is_finite(), "{what}: {x}");
    }
}

fn check_everything_finite(a: &Analysis, c: &Controls) {
    for ne in [false, true] {
        let sw = a.sweep(ne);
        assert_finite(
            "sweep",
            sw.coverage.iter().chain(&sw.size).flatten().copied().chain(sw.target.clone()),
        );
        for alpha in [0.005, 0.1, 0.5] {
            let v = a.at_alpha(alpha, ne).unwrap();
            for r in &v.rows {
                assert_finite(
                    "row",
                    [r.coverage_mean, r.coverage_sd, r.size_mean, r.size_sd, r.empty_rate]
                        .into_iter()
                        .chain(r.position_mean),
                );
            }
            assert_finite("reduction", v.reduction_vs_cp.into_iter().chain(v.reduction_vs_cp_avg));
            let item = a.inspect(0, alpha, ne).unwrap();
            for m in &item.methods {
                assert_finite("inspector", m.ranked.iter().map(|x| x.score).chain(m.threshold));
            }
            if let Ok(inputs) = a.inclusion_inputs(alpha, c.beta, CutFrom::Calibrated) {
                let grid = rvalue_core::conformal::alpha_grid(0.0, 5000.0, 21);
                let ic = inclusion_curves(&inputs, &grid).unwrap();
                assert_finite("inclusion", ic.cp.iter().chain(&ic.cp_r).flatten().copied());
                assert!(ic.cp.iter().chain(&ic.cp_r).flatten().all(|p| (0.0..=1.0).contains(p)));
            }
        }
    }
    let grid = rvalue_core::conformal::alpha_grid(0.0, 5000.0, 11);
    let tc =
        threshold_curves(a.hyper(), &a.variances(), &[0.001, c.beta, 0.5, 0.999], &grid, c.sigma2).unwrap();
    for s in &tc.series {
        assert_finite("threshold", s.t.iter().flatten().copied().chain(s.z).chain([s.q]));
        assert_finite(
            "markers",
            [s.s_star, s.s0, s.slider].into_iter().flatten().flat_map(|m| [m.sigma2, m.t]),
        );
    }
    assert_finite("points", a.data_points().iter().flat_map(|p| [p.sigma2, p.score]));
    let p = c.toy_params();
    let d = score_densities(&p, &default_score_xs(&p, 50)).unwrap();
    assert_finite("densities", d.p.iter().chain(&d.q).flatten().copied().chain(d.xs.clone()));
    assert!(d.prob_q_exceeds_p.is_finite());
}

#[test]
fn no_nan_at_edge_settings() {
    let edge = ToyParams { k: 2, m: 1, n_cal: 6, n_test: 5, repeats: 2, ..ToyParams::default() };
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric, RvalueKind::Pooled] {
        for (m, sigma2) in [(1, 0.0), (1, 5000.0), (3, 0.0), (2, 1000.0)] {
            for alpha in [0.005, 0.5] {
                let c = Controls {
                    toy: ToyParams { m, ..edge.clone() },
                    sigma2,
                    alpha,
                    beta: 0.999,
                    score: ScoreOptions { kind, ..ScoreOptions::default() },
                    splits: 2,
                    ..Controls::default()
                };
                for (src, c) in sources(&c) {
                    let a = AnalysisJob::new(src, &c)
                        .unwrap_or_else(|e| panic!("{kind:?} M={m} σ²={sigma2}: {e}"))
                        .run()
                        .unwrap_or_else(|e| panic!("{kind:?} M={m} σ²={sigma2}: {e}"));
                    assert_eq!(a.single_draw, m == 1);
                    check_everything_finite(&a, &c);
                }
            }
        }
    }
    let d = toy_dataset(&ToyParams { m: 1, ..edge.clone() });
    let s = DataSummary::of(&d, VarianceKind::PerDraw, 10).unwrap();
    assert!(s.single_draw);
    assert_finite("summary", s.all.quantiles.into_iter().chain([s.all.mean]).chain(s.bin_edges.clone()));
}

#[test]
fn data_summary_counts_and_accuracy() {
    let p =
        ToyParams { k: 5, m: 8, n_cal: 40, n_test: 40, repeats: 1, sigma2: 100.0, ..ToyParams::default() };
    let d = toy_dataset(&p);
    let s = DataSummary::of(&d, VarianceKind::PerDraw, 20).unwrap();
    assert_eq!((s.n, s.m, s.k, s.single_draw), (80, 8, 5, false));
    let (t, f) = (s.true_candidates.unwrap(), s.false_candidates.unwrap());
    assert_eq!((t.count, f.count, s.all.count), (80, 320, 400));
    assert_eq!(s.all.histogram.iter().sum::<u64>(), 400);
    assert_eq!(s.bin_edges.len(), 21);
    // True candidates have variance ≈ 1, false ones ≈ 100.
    assert!(t.quantiles[3] < 3.0 && f.quantiles[3] > 30.0);
    let acc = s.accuracy.unwrap();
    assert!((0.0..=1.0).contains(&acc));
    let unlabeled = Dataset { labels: None, ..(*d).clone() };
    let s = DataSummary::of(&unlabeled, VarianceKind::OfMean, 5).unwrap();
    assert!(s.accuracy.is_none() && s.true_candidates.is_none());
    assert!(DataSummary::of(&d, VarianceKind::PerDraw, 0).is_err());
}

#[test]
fn data_points_subsample_deterministically() {
    let p = ToyParams { k: 10, m: 3, n_cal: 150, n_test: 150, repeats: 1, ..ToyParams::default() };
    let d = toy_dataset(&p);
    let sm = rvalue_core::tensor::Summaries::of(&d.scores);
    let y = d.labels.as_ref().unwrap();
    let pts = data_points(&sm, y, VarianceKind::PerDraw);
    assert_eq!(pts.len(), MAX_DATA_POINTS);
    assert_eq!(pts, data_points(&sm, y, VarianceKind::PerDraw));
    let n_true = pts.iter().filter(|p| p.is_true).count();
    // About 1/K of the points are true candidates: no aliasing with K.
    assert!((150..250).contains(&n_true), "{n_true}");
    let small = ToyParams { n_cal: 10, n_test: 10, ..p };
    let d = toy_dataset(&small);
    let sm = rvalue_core::tensor::Summaries::of(&d.scores);
    let pts = data_points(&sm, d.labels.as_ref().unwrap(), VarianceKind::OfMean);
    assert_eq!(pts.len(), 200);
    assert_eq!(pts.iter().filter(|p| p.is_true).count(), 20);
}

#[test]
fn controls_defaults_ranges_and_impact() {
    let c = Controls::default();
    assert_eq!(c.toy_params(), ToyParams::default());
    assert_eq!((c.alpha, c.beta, c.sigma2, c.splits, c.cal_fraction), (0.1, 0.1, 1000.0, 100, 0.5));
    assert!(c.validate().is_ok());
    for bad in [
        Controls { alpha: 0.6, ..c.clone() },
        Controls { alpha: f64::NAN, ..c.clone() },
        Controls { beta: 0.0, ..c.clone() },
        Controls { sigma2: 5001.0, ..c.clone() },
        Controls { toy: ToyParams { k: 1, ..ToyParams::default() }, ..c.clone() },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
    let i = c.impact(&Controls { alpha: 0.2, ..c.clone() });
    assert_eq!(i, Impact { reanalyse: false, alpha: true, curves: true, sigma2_from_data: false });
    let i = c.impact(&Controls { beta: 0.2, ..c.clone() });
    assert_eq!(i, Impact { reanalyse: false, alpha: false, curves: true, sigma2_from_data: false });
    let i = c.impact(&Controls { never_empty: true, ..c.clone() });
    assert_eq!(i, Impact { reanalyse: false, alpha: true, curves: false, sigma2_from_data: false });
    assert!(c.impact(&Controls { sigma2: 10.0, ..c.clone() }).reanalyse);
    // On a file, σ² measures the variance choice: changing it moves the marker to the new median.
    let file = c.for_mode(Mode::Scores);
    let mut of_mean = file.clone();
    of_mean.score.variance = rvalue_core::tensor::VarianceKind::OfMean;
    assert!(file.impact(&of_mean).sigma2_from_data && !c.impact(&c.for_mode(Mode::Scores)).sigma2_from_data);
    assert!(
        !Controls { score: of_mean.score, ..c.clone() }.impact(&c).sigma2_from_data,
        "the toy's σ² is its own"
    );
    assert!(!c.impact(&Controls { splits: 3, ..c.clone() }).reanalyse);
    assert!(
        c.impact(&Controls { score: ScoreOptions { kind: RvalueKind::Pooled, ..c.score }, ..c.clone() })
            .reanalyse
    );
    // Score files need labels and a usable split; CP's draw must exist.
    let d = toy_dataset(&ToyParams { n_cal: 3, n_test: 3, m: 2, k: 3, repeats: 1, ..ToyParams::default() });
    let sc = Controls { mode: Mode::Scores, ..c.clone() };
    assert!(Source::from_controls(&sc, None).is_err());
    let unlabeled = Arc::new(Dataset { labels: None, ..(*d).clone() });
    assert!(AnalysisJob::new(Source::Data(unlabeled), &sc).is_err());
    assert!(AnalysisJob::new(
        Source::Data(d.clone()),
        &Controls { score: ScoreOptions { cp_draw: 2, ..sc.score }, ..sc.clone() }
    )
    .is_err());
    assert!(AnalysisJob::new(Source::Data(d.clone()), &sc).is_ok());
    // The source decides the mode: bad toy settings do not block a score file, and the
    // analysis's controls are those of what it analysed.
    let bad_toy = Controls { toy: ToyParams { k: 1, ..ToyParams::default() }, ..c.clone() };
    assert!(AnalysisJob::new(Source::Data(d), &bad_toy).is_ok());
    let p = ToyParams { n_cal: 5, n_test: 5, repeats: 1, sigma2: 7.0, ..ToyParams::default() };
    let a = AnalysisJob::new(Source::Toy(p.clone()), &sc).unwrap().run().unwrap();
    assert_eq!((a.controls.mode, a.controls.toy_params()), (Mode::Toy, p));
    assert!(AnalysisJob::new(Source::Toy(ToyParams { sigma2: 6000.0, ..ToyParams::default() }), &c).is_err());
}

#[test]
fn theorem_3_curves_part_ways() {
    let p = Controls::default().toy_params();
    let (h, s) = toy_design(&p).unwrap();
    assert!((h.mu - 0.1).abs() < 1e-15 && (h.tau2 - 0.09).abs() < 1e-15);
    assert_eq!(s, [vec![1.0], vec![1000.0; 9]].concat());
    let inputs = InclusionInputs::toy(&p, 0.1, 0.1).unwrap();
    assert!((inputs.t_std.unwrap() - (1.0 - 1.281_551_565_544_6)).abs() < 1e-9);
    assert!(inputs.rule.is_some());
    let grid = [0.0, 1.0, 100.0, 1000.0, 5000.0];
    let ic = inclusion_curves(&inputs, &grid).unwrap();
    let cp: Vec<f64> = ic.cp.iter().map(|x| x.unwrap()).collect();
    let cp_r: Vec<f64> = ic.cp_r.iter().map(|x| x.unwrap()).collect();
    // CP's curve tends to 1/2 (from above here: T < μ0); CP_r's falls towards 0 beyond s0.
    assert!(cp[0] == 1.0 && cp.windows(2).all(|w| w[0] >= w[1]) && (cp[4] - 0.5).abs() < 0.01, "{cp:?}");
    assert!(cp_r[4] < 1e-3 && cp_r[4] < cp_r[2], "{cp_r:?}");
    // The analysis draws CP_r at its calibrated r̂ (or β) with its fitted prior and M draws.
    let c = small_controls();
    let a = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap().run().unwrap();
    let at = a.inclusion_inputs(0.2, 0.3, CutFrom::Calibrated).unwrap();
    assert_eq!((at.hyper, at.draws, at.t_std), (a.hyper().unwrap(), c.toy.m, inputs_toy_t(&c, 0.2)));
    assert_eq!(at.r_star, Some(a.calibrated(Method::CpR)[0].threshold(0, 0.2)));
    assert_eq!(a.inclusion_inputs(0.2, 0.3, CutFrom::Beta).unwrap().r_star, Some(0.3));
    assert!(a.inclusion_inputs(0.2, 1.0, CutFrom::Beta).is_err());
    assert_eq!(threshold_inputs(&c, None).unwrap(), toy_design(&c.toy_params()).unwrap());
    assert_eq!(panel_betas(0.05), vec![0.05, 0.01, 0.2]);
    // Score files: T from CP's calibration quantile.
    let mut dc = c.clone();
    dc.mode = Mode::Scores;
    let a = AnalysisJob::new(Source::Data(toy_dataset(&c.toy_params())), &dc).unwrap().run().unwrap();
    assert!(threshold_inputs(&dc, None).is_err());
    assert_eq!(threshold_inputs(&dc, Some(&a)).unwrap().1, a.variances());
    let inputs = a.inclusion_inputs(0.1, 0.1, CutFrom::Calibrated).unwrap();
    assert_eq!(inputs.t_std, Some(-a.calibrated(Method::Cp)[0].threshold(0, 0.1)));
}

fn inputs_toy_t(c: &Controls, alpha: f64) -> Option<f64> {
    InclusionInputs::toy(&c.toy_params(), alpha, 0.1).unwrap().t_std
}

#[test]
fn remembered_z_gives_the_same_threshold_curves() {
    let c = small_controls();
    let data = Controls { mode: Mode::Scores, ..c.clone() };
    let a = AnalysisJob::new(Source::Data(toy_dataset(&c.toy_params())), &data).unwrap().run().unwrap();
    let (h, s) = threshold_inputs(&data, Some(&a)).unwrap();
    let grid = sigma2_grid(50);
    let betas = panel_betas(0.1);
    let direct = threshold_curves(Some(h), &s, &betas, &grid, 3.0).unwrap();
    for _ in 0..2 {
        // Second time round, from the memo.
        let memo = threshold_curves_with(Some(h), |b| a.z_model(b), &betas, &grid, 3.0).unwrap();
        assert_eq!(direct, memo);
    }
}

#[test]
fn variance_histogram_bins_are_log_spaced_and_hold_every_candidate() {
    let p =
        ToyParams { k: 5, m: 8, n_cal: 40, n_test: 40, repeats: 1, sigma2: 100.0, ..ToyParams::default() };
    let s = DataSummary::of(&toy_dataset(&p), VarianceKind::PerDraw, 20).unwrap();
    let e = &s.bin_edges;
    assert!(e[0] > 0.0 && e.windows(2).all(|w| w[0] < w[1]));
    // Equal ratios: log-spaced.
    let r0 = e[1] / e[0];
    assert!(e.windows(2).all(|w| (w[1] / w[0] / r0 - 1.0).abs() < 1e-9));
    assert_eq!((e[0], e[20]), (s.all.quantiles[0], s.all.quantiles[6]));
    // The largest value lands in the last bin, the smallest in the first.
    assert!(s.all.histogram[0] >= 1 && s.all.histogram[19] >= 1);
    // All variances zero: one bin on [0, 1] holds everything.
    let flat = Dataset {
        scores: ScoreTensor::new(3, 2, 2, vec![1.0; 12]).unwrap(),
        labels: None,
        single_draw: false,
    };
    let s = DataSummary::of(&flat, VarianceKind::PerDraw, 4).unwrap();
    assert_eq!(s.bin_edges, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    assert_eq!(s.all.histogram, vec![6, 0, 0, 0]);
}

#[test]
fn reinspecting_an_item_at_another_alpha_equals_a_fresh_inspection() {
    let base = small_controls();
    let c = Controls { score: ScoreOptions { kind: RvalueKind::Pooled, ..base.score }, ..base };
    let a = Analysis::build(Source::Toy(c.toy_params()), &c).unwrap();
    let fresh = Analysis::build(Source::Toy(c.toy_params()), &c).unwrap();
    for (t, alpha) in [(2, 0.1), (2, 0.3), (5, 0.3), (2, 0.05)] {
        // `a` answers from its remembered r-values after the first visit of an item.
        assert!(same(&a.inspect(t, alpha, false).unwrap(), &fresh.clone().inspect(t, alpha, false).unwrap()));
    }
}

#[test]
fn toy_repeats_with_bounded_rvalues_answer_every_alpha_as_full_ones() {
    // The page's toy (pooled prior: repeats with τ² > 0 and with τ² = 0), with fewer items; at
    // least 199 calibration items, or the smallest α's threshold is +∞ and nothing is bounded.
    // σ² = 3 with half the false candidates as stable as the true one: false candidates then
    // reach into the sets at small α, so a bound set too low would change the answers.
    for (sigma2, high_var_fraction) in [(1000.0, 1.0), (3.0, 0.5)] {
        let toy = ToyParams { n_cal: 200, n_test: 40, repeats: 5, high_var_fraction, ..ToyParams::default() };
        check_bounded_against_full(&Controls { toy, sigma2, ..Controls::default() });
    }
}

fn check_bounded_against_full(c: &Controls) {
    let bounded = AnalysisJob::new(Source::Toy(c.toy_params()), c).unwrap().run().unwrap();
    let full = AnalysisJob::new(Source::Toy(c.toy_params()), c).unwrap().with_full_rows().run().unwrap();
    let left_out = |c: &rvalue_core::conformal::Calibrated| {
        (0..c.test.len()).flat_map(|t| c.row(t).into_owned()).filter(|&r| r == f64::INFINITY).count()
    };
    let cals = bounded.calibrated(Method::CpR);
    assert_eq!(left_out(&cals[0]), 0, "the repeat on show keeps every r-value");
    assert!(cals[1..].iter().map(left_out).sum::<usize>() > 0, "no r-value was left out");
    for ne in [false, true] {
        for p in scales::ALPHA_POSITIONS.0..=scales::ALPHA_POSITIONS.1 {
            let alpha = scales::alpha_at(p);
            let (b, f) = (bounded.at_alpha(alpha, ne).unwrap(), full.at_alpha(alpha, ne).unwrap());
            assert!(same(&b, &f), "α {alpha}, never empty {ne}:\n{b:?}\n{f:?}");
        }
        assert!(same(bounded.sweep(ne), full.sweep(ne)), "sweep, never empty {ne}");
    }
    assert!(bounded.at_alpha(0.004, false).is_err(), "α below the slider's range");
}

/// The page's own options read back their names, as the core's do (`rvalue_core::options`).
#[test]
fn modes_and_panels_read_back_their_names() {
    use rvalue_core::options::names_round_trip;
    assert_eq!(names_round_trip::<Mode>(), Ok(()));
    assert_eq!(names_round_trip::<panel::Panel>(), Ok(()));
    assert_eq!(names_round_trip::<crate::CutFrom>(), Ok(()));
    assert_eq!(names_round_trip::<crate::url::Theme>(), Ok(()));
}
