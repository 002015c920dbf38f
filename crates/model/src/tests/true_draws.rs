//! The page's analysis calibrated on true-label draws (`--calibration-true`) equals the joined
//! tensor's split (`[calibration units; test items]`, as `rvalue sets --split` and
//! `calibrate_with_true_draws` take it), bit for bit, in every panel's numbers.

use std::sync::Arc;

use crate::*;
use rvalue_core::conformal::true_draws::{joined_split, true_draws_splits, TrueDraws};
use rvalue_core::conformal::{
    difficulty_ranks, evaluate_with, sweep, Method, Prepared, RvalueKind, ScoreOptions, Split,
};
use rvalue_core::io::Dataset;
use rvalue_core::rvalue::{PooledSplit, TieOrder, Workspace};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::toy::{self, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Items `items` of `t` as a tensor.
fn gather(t: &ScoreTensor, items: &[usize]) -> ScoreTensor {
    let data: Vec<f64> = items.iter().flat_map(|&i| t.items(i..i + 1).data().into_owned()).collect();
    ScoreTensor::new(items.len(), t.m(), t.k(), data).unwrap()
}

struct Case {
    joined: ScoreTensor,
    joined_labels: Vec<usize>,
    test: Arc<Dataset>,
    true_draws: Arc<TrueDraws>,
}

/// A toy data set whose first `n_units` items become the calibration units (their true-label
/// draws alone) and the rest the labelled test file; labels rotated so that the true label
/// varies.
fn case(n_units: usize) -> Case {
    let p = ToyParams { k: 5, m: 6, n_cal: 40, n_test: 30, ..ToyParams::default() };
    let (t, y) = toy::simulate(&p, 0).unwrap();
    let (n, m, k) = (t.n(), t.m(), t.k());
    let mut data = Vec::with_capacity(n * m * k);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let shift = i % k;
        for d in 0..m {
            data.extend((0..k).map(|c| t.get(i, d, (c + k - shift) % k)));
        }
        labels.push((y[i] + shift) % k);
    }
    let joined = ScoreTensor::new(n, m, k, data).unwrap();
    let test_items: Vec<usize> = (n_units..n).collect();
    let test = gather(&joined, &test_items);
    let test_labels = labels[n_units..].to_vec();
    let draws =
        (0..n_units).flat_map(|j| (0..m).map(move |d| (j, d))).map(|(j, d)| joined.get(j, d, labels[j]));
    let true_draws = TrueDraws::new(n_units, m, draws.collect()).unwrap();
    Case {
        joined,
        joined_labels: labels,
        test: Arc::new(Dataset { scores: test, labels: Some(test_labels), single_draw: false }),
        true_draws: Arc::new(true_draws),
    }
}

fn controls(ties: TieOrder) -> Controls {
    let mut c =
        Controls { mode: Mode::Scores, splits: 3, cal_fraction: 0.6, seed: 11, ..Controls::default() };
    c.score = ScoreOptions { kind: RvalueKind::Pooled, ..Controls::score_defaults(Mode::Scores) };
    c.score.ties = ties;
    c.score.cp_draw = 2;
    c
}

/// The joined tensor's difficulty ranks.
fn ranks(p: &Prepared) -> Vec<u32> {
    difficulty_ranks(&p.summaries.mean, p.t.k(), p.labels)
}

/// The true-draws splits as splits of the joined tensor, the reference the analysis must match.
fn joined_splits(c: &Case, controls: &Controls) -> Vec<Split> {
    let n_test = c.test.scores.n();
    let sizes = controls.true_draws_sizes(c.true_draws.n(), n_test);
    let splits =
        true_draws_splits(c.true_draws.n(), n_test, Some(sizes), controls.splits, controls.seed).unwrap();
    assert_eq!(splits[0].cal.len(), 24);
    splits.iter().map(|s| joined_split(s, c.true_draws.n())).collect()
}

/// The inspector's pooled r-values: the joined tensor's, its item keyed after the true draws.
fn assert_inspector_is_joined(a: &Analysis, c: &Case, split: &Split, ties: TieOrder) {
    let ps = PooledSplit::new(&c.joined, &c.joined_labels, &split.cal, split.ties(ties)).unwrap();
    for t in [0, 7] {
        let view = a.inspect(t, 0.1, false).unwrap();
        let want = ps.item(&c.joined, split.test[t], None, &mut Workspace::default()).rvalues();
        let mut got = vec![0.0; c.joined.k()];
        for r in &view.methods[2].ranked {
            got[r.candidate] = r.score;
        }
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn true_draws_analysis_is_the_joined_split_bit_for_bit() {
    let c = case(40);
    for ties in TieOrder::ALL {
        let controls = controls(ties);
        let source = Source::TrueDraws(c.test.clone(), c.true_draws.clone());
        // A small budget: pooled CP_r in many steps.
        let a = AnalysisJob::new(source.clone(), &controls).unwrap().with_budget(3).run().unwrap();
        assert_eq!(a.true_draws, Some((24, 40)));
        let built = Analysis::build(source, &controls).unwrap();
        for m in Method::PAPER {
            let at = |a: &Analysis| format!("{:?}", a.summary(m, 0.1, false).unwrap());
            assert_eq!(at(&built), at(&a));
        }
        let joined = joined_splits(&c, &controls);
        let prepared = Prepared::new(&c.joined, &c.joined_labels, true).unwrap();
        for m in Method::PAPER {
            let want = prepared.calibrate(m, &controls.score, &joined).unwrap();
            let got = a.calibrated(m);
            assert_eq!(got.len(), 3);
            for (g, w) in got.iter().zip(&want) {
                let shifted: Vec<usize> = g.test.iter().map(|&t| t + c.true_draws.n()).collect();
                assert_eq!(shifted, w.test);
                for t in 0..g.test.len() {
                    for alpha in [0.05, 0.1, 0.3] {
                        assert_eq!(g.threshold(t, alpha).to_bits(), w.threshold(t, alpha).to_bits());
                        assert_eq!(g.set(t, alpha, false).members, w.set(t, alpha, false).members);
                    }
                }
            }
            for never_empty in [false, true] {
                for alpha in [0.02, 0.1, 0.25] {
                    let s = a.summary(m, alpha, never_empty).unwrap();
                    let e = evaluate_with(&want, m, alpha, never_empty, &ranks(&prepared)).unwrap();
                    assert_eq!(format!("{s:?}"), format!("{e:?}"), "{m} at α = {alpha}, {ties}");
                }
                let sw = a.sweep(never_empty);
                let curve = sweep(&want, &sw.alphas, never_empty);
                let mi = Method::PAPER.iter().position(|x| *x == m).unwrap();
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&sw.coverage[mi]), bits(&curve.iter().map(|p| p.0).collect::<Vec<_>>()));
                assert_eq!(bits(&sw.size[mi]), bits(&curve.iter().map(|p| p.1).collect::<Vec<_>>()));
            }
        }
        assert_inspector_is_joined(&a, &c, &joined[0], ties);
    }
}

#[test]
fn true_draws_refuse_rvalues_that_need_every_candidate() {
    let c = case(40);
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric] {
        let mut controls = controls(TieOrder::default());
        controls.score.kind = kind;
        let e =
            AnalysisJob::new(Source::TrueDraws(c.test.clone(), c.true_draws.clone()), &controls).unwrap_err();
        assert!(e.to_string().contains("needs every candidate's draws"), "{e}");
    }
}

#[test]
fn true_draws_refuse_the_baselines_in_one_sentence() {
    let c = case(40);
    let controls = Controls { baselines: [false, false, true], ..controls(TieOrder::default()) };
    let e = AnalysisJob::new(Source::TrueDraws(c.test, c.true_draws), &controls).unwrap_err().to_string();
    assert!(
        e.contains("SAPS needs every class's probability") && e.contains("turn the baselines off"),
        "{e}"
    );
}

#[test]
fn true_draws_of_other_m_are_refused() {
    let c = case(40);
    let true_draws = TrueDraws::new(2, 3, vec![0.0; 6]).unwrap();
    let e = AnalysisJob::new(Source::TrueDraws(c.test, Arc::new(true_draws)), &controls(TieOrder::default()))
        .unwrap_err();
    assert!(e.to_string().contains("M = 3"), "{e}");
}

#[test]
fn true_draws_are_kept_from_other_threads_and_devices() {
    let c = case(40);
    let mut job =
        AnalysisJob::new(Source::TrueDraws(c.test, c.true_draws), &controls(TieOrder::default())).unwrap();
    while job.step().unwrap() != Progress::Done {
        assert!(job.hand_out().is_none());
        assert!(job.offload().is_none());
        assert!(job.data().is_none());
    }
}
