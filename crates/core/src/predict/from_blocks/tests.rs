//! A calibration kept from score blocks predicts what the calibration held whole predicts, bit
//! for bit: every method, r-value kind, prior, variance, tie order, float32 and float64, with
//! blocks of one item (so every pass spans many blocks).

use super::*;
use crate::conformal::true_draws::TrueDraws;
use crate::predict::predict;
use crate::rvalue::Algorithm;
use crate::rvalue::TieOrder;
use crate::tensor::Scores;
use crate::tensor::VarianceKind;
use crate::toy::{simulate, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// 30 labelled items and 20 new ones, labels spread over the candidates, as f64 or f32.
fn toy(f32s: bool) -> (ScoreTensor, Vec<usize>, ScoreTensor) {
    let p = ToyParams {
        n_cal: 30,
        n_test: 20,
        m: 5,
        k: 6,
        seed: 4,
        high_var_fraction: 0.5,
        ..ToyParams::default()
    };
    let (t, _) = simulate(&p, 0).unwrap();
    let labels = (0..30).map(|i| (i * 7 + i / 3) % t.k()).collect();
    let part = |r: std::ops::Range<usize>| {
        let per = t.m() * t.k();
        let data = t.data()[r.start * per..r.end * per].to_vec();
        if f32s {
            ScoreTensor::from_f32(r.len(), t.m(), t.k(), data.iter().map(|&x| x as f32).collect()).unwrap()
        } else {
            ScoreTensor::new(r.len(), t.m(), t.k(), data).unwrap()
        }
    };
    (part(0..30), labels, part(30..50))
}

fn options() -> Vec<ScoreOptions> {
    let mut all = Vec::new();
    for ties in TieOrder::ALL {
        all.push(ScoreOptions { kind: RvalueKind::Pooled, ties, cp_draw: 3, ..ScoreOptions::default() });
    }
    all.push(ScoreOptions { kind: RvalueKind::Nonparametric, ..ScoreOptions::default() });
    for prior in Prior::ALL {
        for variance in VarianceKind::ALL {
            let o = ScoreOptions { kind: RvalueKind::Parametric, prior, variance, ..ScoreOptions::default() };
            all.push(o);
        }
        let grid = ScoreOptions {
            kind: RvalueKind::Parametric,
            prior,
            algorithm: Algorithm::Grid,
            ..Default::default()
        };
        all.push(grid);
    }
    // Per class, with the pooled prior and the pooled r-value among them.
    let per_class: Vec<ScoreOptions> =
        all.iter().step_by(2).map(|o| ScoreOptions { coverage: Coverage::PerClass, ..*o }).collect();
    all.extend(per_class);
    all
}

/// Everything a prediction answers, as bits: sets, thresholds, rows.
fn answers(p: &Prediction) -> Vec<u64> {
    let mut out = vec![p.n_test() as u64, p.k() as u64];
    for j in 0..p.n_test() {
        out.extend(p.scores(j).iter().map(|x| x.to_bits()));
        for alpha in [0.05, 0.1, 0.3, 0.6] {
            out.push(p.threshold(j, alpha).to_bits());
            let set = p.set(j, alpha, false);
            out.push(set.item as u64);
            out.extend(set.members.iter().flat_map(|&(c, s)| [c as u64, s.to_bits()]));
        }
    }
    out
}

/// The calibration kept from `cal`'s blocks, then the prediction of `test`'s blocks.
fn kept_prediction(
    cal: &ScoreTensor,
    labels: &[usize],
    test: &ScoreTensor,
    method: Method,
    opts: &ScoreOptions,
    run: &Streaming<'_>,
) -> Prediction {
    let (r, seed) = (&mut |_: &str, _: usize, _: usize| {}, 9);
    match Keeps::of(method, opts) {
        Keeps::TrueDraws => {
            let draws = true_label_draws(cal, labels, run, r).unwrap();
            let true_draws = TrueDraws::of_single_draw(draws).unwrap().with_classes(labels.to_vec()).unwrap();
            crate::predict::predict_with_true_draws(&true_draws, test, method, opts, seed, run, r).unwrap()
        }
        Keeps::TrueScores => {
            let scores = true_label_scores(cal, labels, method, opts, run, r).unwrap();
            assert_eq!(scores.len(), cal.n());
            let classes = Some(labels);
            predict_with_true_scores(&scores, classes, (cal.m(), cal.k()), test, method, opts, seed, run, r)
                .unwrap()
        }
        Keeps::Summaries => {
            let s = summaries(cal, run, r).unwrap();
            assert_eq!((s.n, s.m, s.k, s.mean.len()), (cal.n(), cal.m(), cal.k(), cal.n() * cal.k()));
            predict_with_summaries(&s, labels, test, opts, seed, run, r).unwrap()
        }
        Keeps::Probabilities => {
            let scores = baseline_true_scores(cal, labels, method, opts, seed, run, r).unwrap();
            assert_eq!(scores.len(), cal.n());
            let classes = Some(labels);
            predict_with_true_scores(&scores, classes, (cal.m(), cal.k()), test, method, opts, seed, run, r)
                .unwrap()
        }
    }
}

/// The calibration kept from blocks predicts the held one's bits: one thread or two, blocks of
/// one item (every pass spans many) or one block.
fn kept_equals_held(
    (cal, labels, test): (&ScoreTensor, &[usize], &ScoreTensor),
    method: Method,
    opts: &ScoreOptions,
    f32s: bool,
) {
    let want = predict(cal, labels, test, method, opts, 9, 1).unwrap();
    for (threads, block_bytes) in [(1, 1), (2, 1), (2, 32 << 20)] {
        let run = Streaming { threads, block_bytes, pooled_bytes: 1, ranker: None };
        let got = kept_prediction(cal, labels, test, method, opts, &run);
        let what = format!("{method} {opts:?} f32 {f32s} threads {threads} block {block_bytes}");
        assert!(answers(&got) == answers(&want), "{what}");
    }
}

#[test]
fn a_kept_baseline_predicts_the_held_ones_bits() {
    use crate::conformal::Baseline;
    use crate::probability::ScoresAre;
    for f32s in [false, true] {
        let (cal, labels, test) = toy(f32s);
        for (randomized, coverage) in
            [(true, Coverage::Marginal), (false, Coverage::Marginal), (true, Coverage::PerClass)]
        {
            let baseline = Baseline { randomized, raps_kreg: 2.0, ..Baseline::default() };
            let opts =
                ScoreOptions { scores_are: ScoresAre::Logits, baseline, coverage, ..ScoreOptions::default() };
            for method in Method::BASELINES {
                kept_equals_held((&cal, &labels, &test), method, &opts, f32s);
            }
        }
    }
    // The reading is decided before a pass: `auto` is refused, as is a method that is no baseline.
    let (cal, labels, _) = toy(false);
    let (run, r) = (Streaming::default(), &mut |_: &str, _: usize, _: usize| {});
    let auto = ScoreOptions::default();
    assert!(baseline_true_scores(&cal, &labels, Method::Aps, &auto, 9, &run, r).is_err());
    let logits = ScoreOptions { scores_are: ScoresAre::Logits, ..ScoreOptions::default() };
    assert!(baseline_true_scores(&cal, &labels, Method::Cp, &logits, 9, &run, r).is_err());
    assert!(true_label_scores(&cal, &labels, Method::Aps, &logits, &run, r).is_err());
}

#[test]
fn a_kept_calibration_predicts_the_held_ones_bits() {
    for f32s in [false, true] {
        let (cal, labels, test) = toy(f32s);
        for opts in options() {
            for method in Method::PAPER {
                kept_equals_held((&cal, &labels, &test), method, &opts, f32s);
            }
        }
    }
}

#[test]
fn what_each_method_keeps() {
    let o = |kind, prior| ScoreOptions { kind, prior, ..ScoreOptions::default() };
    let (pooled, per_item) = (Prior::Pooled, Prior::PerItem);
    assert_eq!(Keeps::of(Method::Cp, &o(RvalueKind::Parametric, pooled)), Keeps::TrueDraws);
    assert_eq!(Keeps::of(Method::CpAvg, &o(RvalueKind::Nonparametric, per_item)), Keeps::TrueDraws);
    assert_eq!(Keeps::of(Method::CpR, &o(RvalueKind::Pooled, per_item)), Keeps::TrueDraws);
    assert_eq!(Keeps::of(Method::CpR, &o(RvalueKind::Nonparametric, per_item)), Keeps::TrueScores);
    assert_eq!(Keeps::of(Method::CpR, &o(RvalueKind::Parametric, per_item)), Keeps::TrueScores);
    assert_eq!(Keeps::of(Method::CpR, &o(RvalueKind::Parametric, pooled)), Keeps::Summaries);
}

/// The true-label draws are stored in the blocks' type: a float32 file's true draws take 4 bytes a
/// score, and widening it gives the f64 true draws' values.
#[test]
fn true_label_draws_keep_the_blocks_type() {
    let run = Streaming { block_bytes: 1, ..Streaming::default() };
    let (cal32, labels, _) = toy(true);
    let d = true_label_draws(&cal32, &labels, &run, &mut |_, _, _| {}).unwrap();
    assert!(matches!(d.scores(), Scores::F32(_)));
    assert_eq!((d.n(), d.m(), d.k()), (30, 1, cal32.m()));
    for i in 0..30 {
        for m in 0..cal32.m() {
            assert_eq!(d.get(i, 0, m).to_bits(), cal32.get(i, m, labels[i]).to_bits());
        }
    }
}

#[test]
fn what_does_not_fit_is_refused() {
    let run = Streaming::default();
    let (cal, labels, test) = toy(false);
    let r = &mut |_: &str, _: usize, _: usize| {};
    let pooled = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    assert!(true_label_scores(&cal, &labels, Method::CpR, &pooled, &run, r).is_err());
    let pooled_prior =
        ScoreOptions { kind: RvalueKind::Parametric, prior: Prior::Pooled, ..Default::default() };
    assert!(true_label_scores(&cal, &labels, Method::CpR, &pooled_prior, &run, r).is_err());
    assert!(matches!(true_label_draws(&cal, &labels[1..], &run, r), Err(Error::Length { .. })));
    let bad: Vec<usize> = labels.iter().map(|&y| y + 6).collect();
    assert!(true_label_draws(&cal, &bad, &run, r).is_err());
    let nonpar = ScoreOptions { kind: RvalueKind::Nonparametric, ..ScoreOptions::default() };
    let wrong_k = ScoreTensor::new(2, cal.m(), cal.k() + 1, vec![0.0; 2 * cal.m() * (cal.k() + 1)]).unwrap();
    let scores = true_label_scores(&cal, &labels, Method::CpR, &nonpar, &run, r).unwrap();
    let e = predict_with_true_scores(
        &scores,
        None,
        (cal.m(), cal.k()),
        &wrong_k,
        Method::CpR,
        &nonpar,
        0,
        &run,
        r,
    );
    assert!(matches!(e, Err(Error::Shape(_))));
    let s = summaries(&cal, &run, r).unwrap();
    assert!(matches!(
        predict_with_summaries(&s, &labels, &wrong_k, &pooled_prior, 0, &run, r),
        Err(Error::Shape(_))
    ));
    assert!(predict_with_summaries(&s, &labels, &test, &pooled_prior, 0, &run, r).is_ok());
}
