use super::*;
use crate::conformal::streamed::{calibrate_streamed_ranked, true_label_draws, Streaming};
use crate::conformal::true_draws::{calibrate_with_true_draws_ranked, joined_split, TrueDraws};
use crate::conformal::{evaluate_with, Method, Prepared, RvalueKind, ScoreOptions, Split, SplitPlan};
use crate::samples;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// 6 items, K = 3; items 0..3 calibrate with true-label scores 0.1, 0.2, 0.3.
fn hand_made() -> (Vec<f64>, Vec<usize>, Split) {
    let scores = vec![
        0.1, 0.5, 0.9, //
        0.5, 0.2, 0.9, //
        0.9, 0.5, 0.3, //
        0.3, 0.2, 0.9, // test, label 0: set {1, 0} at q̂ = 0.3, covered
        0.9, 0.5, 0.1, // test, label 1: set {2}, not covered
        0.05, 0.9, 0.4, // test, label 0: set {0}, covered
    ];
    let labels = vec![0, 1, 2, 0, 1, 0];
    (scores, labels, Split::from_mask(&[true, true, true, false, false, false]).unwrap())
}

#[test]
fn a_hand_made_split_has_its_definitions() {
    let (scores, labels, split) = hand_made();
    let c = Calibrated::fixed(&scores, 3, &labels, &split);
    // α = 0.25: k* = ⌈4 · 0.75⌉ = 3, q̂ = 0.3.
    let ranks = [0, 0, 0, 2, 3, 1];
    let t = c.tallies(0.25, false, &ranks);
    assert_eq!(
        t.classes,
        vec![Tally { covered: 2, count: 2 }, Tally { covered: 0, count: 1 }, Tally::default()]
    );
    let size = |lo: usize| t.sizes.iter().find(|s| s.lo == lo).map(|s| (s.covered, s.count)).unwrap();
    assert_eq!((size(0), size(2), size(4)), ((1, 2), (1, 1), (0, 0)));
    let rank = |lo: usize| t.difficulty.iter().find(|s| s.lo == lo).map(|s| (s.covered, s.count)).unwrap();
    assert_eq!((rank(1), rank(2), rank(4)), ((1, 1), (1, 2), (0, 0)));
    let m = t.metrics(0.25);
    // Classes 0 (coverage 1) and 1 (coverage 0); class 2 has no test item.
    assert_eq!((m.macro_coverage, m.worst_class_coverage, m.violated_classes), (0.5, 0.0, 1));
    assert_eq!(m.covgap, 100.0 * ((0.25 + 0.75) / 2.0));
    // Size strata 0–1 (1 of 2) and 2–3 (1 of 1): both off by 0.25.
    assert_eq!(m.sscv, 0.25);
    // Rank 1: 1 of 1 (0.25 off); ranks 2–3: 1 of 2 (0.25 off).
    assert_eq!(m.dsv, 0.25);
}

#[test]
fn unknown_difficulty_and_oversized_sets_are_nan() {
    // K = 1001, every score equal: every set is full (size 1001), in no size stratum.
    let k = 1001;
    let scores = vec![0.0; 4 * k];
    let labels = [0, 1, 2, 3];
    let c = Calibrated::fixed(&scores, k, &labels, &Split::from_mask(&[true, true, false, false]).unwrap());
    let t = c.tallies(0.5, false, &[]);
    assert!(t.sizes.iter().chain(&t.difficulty).all(|s| s.count == 0));
    let m = t.metrics(0.5);
    assert!(m.sscv.is_nan() && m.dsv.is_nan());
    assert_eq!((m.macro_coverage, m.worst_class_coverage, m.violated_classes), (1.0, 1.0, 0));
    // Over splits, a metric NaN in every split is NaN; its tallies are still summed.
    let s = summarize_conditional(0.5, &[t.clone(), t]);
    assert!(s.sscv.0.is_nan() && s.dsv.1.is_nan());
    assert_eq!(s.macro_coverage, (1.0, 0.0));
    assert_eq!(s.pooled.classes[2], Tally { covered: 2, count: 2 });
    assert!(summarize_conditional(0.5, &[]).covgap.0.is_nan());
    assert!(SplitTallies::new(3).metrics(0.1).macro_coverage.is_nan());
}

#[test]
fn a_single_class_is_its_own_macro_and_worst() {
    let scores = vec![0.1, 0.9, 0.2, 0.9, 0.3, 0.9, 0.15, 0.9, 0.35, 0.9];
    let labels = [0; 5];
    let c =
        Calibrated::fixed(&scores, 2, &labels, &Split::from_mask(&[true, true, true, false, false]).unwrap());
    let (metrics, _, t) = c.measure(0.25, false, &[]);
    let m = t.metrics(0.25);
    // q̂ = 0.3: item 3 covered, item 4 not.
    assert_eq!(metrics.coverage, 0.5);
    assert_eq!((m.macro_coverage, m.worst_class_coverage, m.violated_classes), (0.5, 0.5, 1));
    assert_eq!(m.covgap, 100.0 * 0.25);
}

#[test]
fn difficulty_ranks_put_higher_means_first_and_ties_to_the_lower_index() {
    let means = [0.5, 0.9, 0.5, 0.1, /**/ 0.2, 0.2, 0.2, 0.2];
    assert_eq!(difficulty_ranks(&means, 4, &[2, 0]), vec![3, 1]);
    assert_eq!(difficulty_ranks(&means, 4, &[0, 3]), vec![2, 4]);
    assert_eq!(difficulty_ranks(&means, 4, &[9, 1]), vec![0, 2]);
    // Across blocks of any size, the same ranks as the whole data set's summaries.
    let (t, labels) = samples::logits(40, 7, 6, 5).unwrap();
    let whole = difficulty_ranks(&Summaries::of(&t).mean, 6, &labels);
    assert_eq!(difficulty_of(&t, &labels).unwrap(), whole);
    assert_eq!(difficulty_of_block(&t.items(3..9), &labels[3..9]), whole[3..9]);
    assert!(difficulty_of(&t, &labels[1..]).is_err());
}

/// Everything a summary holds, as bits (NaN equal to NaN).
fn bits(s: &Summary) -> String {
    format!("{s:?}")
}

use crate::conformal::Summary;

#[test]
fn measure_is_metrics_and_sizes_and_merges_are_sums() {
    let (t, labels) = samples::logits(60, 9, 12, 3).unwrap();
    let prep = Prepared::new(&t, &labels, true).unwrap();
    let ranks = difficulty_ranks(&prep.summaries.mean, 12, &labels);
    let splits = SplitPlan::Random { count: 4, cal_fraction: 0.5, seed: 2 }.splits(60).unwrap();
    for kind in RvalueKind::ALL {
        let opts = ScoreOptions { kind, ..ScoreOptions::default() };
        for method in Method::ALL {
            for c in prep.calibrate(method, &opts, &splits).unwrap() {
                for (alpha, ne) in [(0.1, false), (0.3, true), (0.6, false)] {
                    let (m, sizes, tl) = c.measure(alpha, ne, &ranks);
                    assert_eq!(format!("{m:?}"), format!("{:?}", c.metrics(alpha, ne)));
                    assert_eq!(sizes, c.sizes(alpha, ne));
                    // Each item once in its class and in one stratum of each (K ≤ 1000).
                    let n = c.test.len() as u64;
                    let count = |s: &[Stratum]| s.iter().map(|s| s.count).sum::<u64>();
                    assert_eq!(tl.classes.iter().map(|c| c.count).sum::<u64>(), n);
                    assert_eq!((count(&tl.sizes), count(&tl.difficulty)), (n, n));
                    let covered = tl.classes.iter().map(|c| c.covered).sum::<u64>() as f64;
                    assert_eq!(covered / n as f64, m.coverage);
                }
            }
        }
    }
}

/// Every summary of the streamed path, with ranks gathered in its pass, is the in-memory one.
#[test]
fn streamed_and_true_draws_summaries_are_in_memory_ones() {
    let (t, labels) = samples::logits(50, 6, 7, 4).unwrap();
    let prep = Prepared::new(&t, &labels, true).unwrap();
    let ranks = difficulty_of(&t, &labels).unwrap();
    let splits = SplitPlan::Random { count: 3, cal_fraction: 0.4, seed: 9 }.splits(50).unwrap();
    let run = Streaming { threads: 2, block_bytes: 1, pooled_bytes: 1, ranker: None };
    for kind in RvalueKind::ALL {
        let opts = ScoreOptions { kind, ..ScoreOptions::default() };
        let mut got: Vec<Vec<Calibrated>> = vec![Vec::new(); Method::ALL.len()];
        let mut seen = Vec::new();
        calibrate_streamed_ranked(
            &t,
            &labels,
            &Method::ALL,
            &opts,
            &splits,
            &run,
            &mut |_, _, _| {},
            &mut |m, _, c, r| {
                got[m as usize].push(c);
                seen.push(r.to_vec());
                Ok(())
            },
        )
        .unwrap();
        assert!(seen.iter().all(|r| *r == ranks), "{kind:?}");
        for method in Method::ALL {
            let memory = prep.calibrate(method, &opts, &splits).unwrap();
            let want = evaluate_with(&memory, method, 0.2, false, &ranks).unwrap();
            let streamed = evaluate_with(&got[method as usize], method, 0.2, false, &ranks).unwrap();
            assert_eq!(bits(&streamed), bits(&want), "{kind:?} {method:?}");
            assert!(want.conditional.dsv_mean.is_finite() && want.conditional.class_tallies.len() == 7);
        }
    }
    // Pooled CP_r alone: the ranks come from the pass that reads the true-label draws.
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let mut seen = Vec::new();
    calibrate_streamed_ranked(
        &t,
        &labels,
        &[Method::CpR],
        &opts,
        &splits,
        &run,
        &mut |_, _, _| {},
        &mut |_, _, _, r| {
            seen.push(r.to_vec());
            Ok(())
        },
    )
    .unwrap();
    assert!(seen.len() == 3 && seen.iter().all(|r| *r == ranks));
    true_draws_ranks_are_the_test_items(&t, &labels, &run);
}

/// True draws' test items are ranked by their own draws, for every method mix.
fn true_draws_ranks_are_the_test_items(t: &ScoreTensor, labels: &[usize], run: &Streaming) {
    let (n_true, n) = (20, t.n());
    let truth = true_label_draws(&t.items(0..n_true), &labels[..n_true], run, &mut |_, _, _| {}).unwrap();
    let true_draws = TrueDraws::of_single_draw(truth).unwrap();
    let test = t.items(n_true..n);
    let want = difficulty_of(&test, &labels[n_true..]).unwrap();
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let split = Split::new((0..n_true).collect(), (0..n - n_true).collect());
    for methods in [&Method::PAPER[..], &[Method::CpR][..]] {
        let mut seen = Vec::new();
        let each = &mut |_, _, c: Calibrated, r: &[u32]| {
            assert_eq!(c.test, joined_split(&split, 0).test);
            seen.push(r.to_vec());
            Ok(())
        };
        calibrate_with_true_draws_ranked(
            &true_draws,
            &test,
            &labels[n_true..],
            methods,
            &opts,
            std::slice::from_ref(&split),
            run,
            &mut |_, _, _| {},
            each,
        )
        .unwrap();
        assert!(seen.len() == methods.len() && seen.iter().all(|r| *r == want));
    }
}
