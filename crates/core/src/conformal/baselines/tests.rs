use super::*;
use crate::conformal::{ranked_of, Prepared, ScoreOptions};
use crate::probability::ScoresAre;
use crate::samples;
use crate::tensor::ScoreTensor;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn det(raps_lambda: f64, raps_kreg: f64, saps_lambda: f64) -> Baseline {
    Baseline { raps_lambda, raps_kreg, saps_lambda, randomized: false }
}

/// Item 0's row under `method` on a split that tests it (u = 1).
fn row_of(probs: &[f64], method: Method, p: &Baseline) -> Vec<f64> {
    let k = probs.len();
    let both = [probs, probs].concat();
    let ranked = Ranked::of(&both, k, 1).unwrap();
    let split = Split::new(vec![1], vec![0]);
    let mut got = Vec::new();
    ranked
        .calibrate_each(method, p, &[0, 0], (Coverage::Marginal, 1), &[split], |_, c| {
            got = c.row(0).into_owned();
            Ok(())
        })
        .unwrap();
    got
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
}

#[test]
fn deterministic_scores_follow_the_definitions() {
    // Ranks: candidate 1 (0.5), 2 (0.4), 0 (0.1).
    let probs = [0.1, 0.5, 0.4];
    let p = det(0.1, 1.0, 0.2);
    assert!(close(&row_of(&probs, Method::Aps, &p), &[1.0, 0.5, 0.9]));
    assert!(close(&row_of(&probs, Method::Raps, &p), &[1.2, 0.5, 1.0]));
    assert!(close(&row_of(&probs, Method::Saps, &p), &[0.9, 0.5, 0.7]));
    // k_reg = 0 penalises the first rank too.
    assert!(close(&row_of(&probs, Method::Raps, &det(0.1, 0.0, 0.2)), &[1.3, 0.6, 1.1]));
}

#[test]
fn equal_probabilities_rank_by_the_lower_index() {
    let probs = [0.3, 0.4, 0.3];
    assert!(close(&row_of(&probs, Method::Aps, &det(0.0, 0.0, 0.0)), &[0.7, 0.4, 1.0]));
    let s = row_of(&probs, Method::Saps, &det(0.0, 0.0, 0.5));
    assert!(close(&s, &[0.9, 0.4, 1.4]), "{s:?}");
}

#[test]
fn u_is_keyed_by_split_item_and_candidate_and_lies_in_0_1() {
    let all: Vec<f64> = (0..4).flat_map(|c| (0..50).map(move |i| uniform(9, 3, i, c))).collect();
    assert!(all.iter().all(|&u| (0.0..1.0).contains(&u)));
    let mut sorted = all.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    assert_eq!(sorted.len(), all.len());
    assert_eq!(uniform(9, 3, 7, 2), uniform(9, 3, 7, 2));
    assert_ne!(uniform(9, 3, 7, 2), uniform(9, 4, 7, 2));
    assert_ne!(uniform(9, 3, 7, 2), uniform(8, 3, 7, 2));
}

#[test]
fn bad_parameters_get_one_clear_error() {
    for p in [det(-0.1, 5.0, 0.2), det(0.1, -1.0, 0.2), det(0.1, 5.0, f64::NAN)] {
        let e = p.check().unwrap_err().to_string();
        assert!(e.contains("must be a finite number ≥ 0"), "{e}");
    }
    let (t, labels) = samples::logits(20, 2, 4, 1).unwrap();
    let opts = ScoreOptions { baseline: det(-1.0, 0.0, 0.0), ..ScoreOptions::default() };
    let prep = Prepared::new(&t, &labels, false).unwrap();
    let splits = [Split::random(20, 0.5, 1, 0).unwrap()];
    assert!(prep.calibrate(Method::Raps, &opts, &splits).is_err());
    let probs = ScoreOptions { scores_are: ScoresAre::Probabilities, ..ScoreOptions::default() };
    let e = prep.calibrate(Method::Aps, &probs, &splits).unwrap_err().to_string();
    assert!(e.contains("as probabilities: item 0"), "{e}");
}

#[test]
fn one_thread_equals_many() {
    let (t, labels) = samples::logits(300, 3, 12, 5).unwrap();
    let splits: Vec<Split> = (0..4).map(|r| Split::random(300, 0.5, 11, r).unwrap()).collect();
    let prep = Prepared::new(&t, &labels, false).unwrap();
    for method in Method::BASELINES {
        for randomized in [true, false] {
            for coverage in [Coverage::Marginal, Coverage::PerClass] {
                let baseline = Baseline { randomized, ..Baseline::default() };
                let opts = ScoreOptions { baseline, coverage, ..ScoreOptions::default() };
                let go = |threads| {
                    let mut out = Vec::new();
                    prep.calibrate_each_threads(method, &opts, &splits, threads, |_, c| {
                        out.push(format!("{c:?}"))
                    })
                    .unwrap();
                    out
                };
                assert_eq!(go(1), go(3), "{method} randomized {randomized} {coverage}");
            }
        }
    }
}

#[test]
fn rows_are_sorted_and_match_the_scores_of_a_full_sort() {
    let (t, labels) = samples::logits(60, 2, 9, 3).unwrap();
    let ranked = ranked_of(&t, &ScoreOptions::default(), 1).unwrap();
    let split = Split::random(60, 0.5, 2, 1).unwrap();
    for method in Method::BASELINES {
        let p = Baseline::default();
        ranked
            .calibrate_each(
                method,
                &p,
                &labels,
                (Coverage::Marginal, 2),
                std::slice::from_ref(&split),
                |_, c| {
                    for (tpos, &i) in c.test.iter().enumerate() {
                        let row = c.row(tpos);
                        let want: Vec<f64> =
                            (0..9).map(|k| ranked.score_of(method, &p, &split, i, k)).collect();
                        assert_eq!(row.as_ref(), &want[..]);
                        let sorted = c.global_sorted_row(tpos);
                        assert!(sorted.windows(2).all(|w| w[0] <= w[1]));
                    }
                    Ok(())
                },
            )
            .unwrap();
    }
}

/// Coverage of the randomized variants, averaged over splits: `1 − α` up to the rank's rounding
/// (`< 1/(n + 1)`), within three standard errors of the split-to-split spread.
#[test]
fn randomized_coverage_is_one_minus_alpha_on_average() {
    let (t, labels) = samples::logits(400, 4, 10, 21).unwrap();
    let splits: Vec<Split> = (0..150).map(|r| Split::random(400, 0.5, 3, r).unwrap()).collect();
    let prep = Prepared::new(&t, &labels, false).unwrap();
    let alpha = 0.1;
    for method in Method::BASELINES {
        let cal = prep.calibrate(method, &ScoreOptions::default(), &splits).unwrap();
        let cov: Vec<f64> = cal.iter().map(|c| c.metrics(alpha, false).coverage).collect();
        let (mean, sd) = crate::conformal::mean_sd(&cov);
        let se = sd / (cov.len() as f64).sqrt();
        let top = 1.0 - alpha + 1.0 / 201.0;
        assert!(mean > 1.0 - alpha - 3.0 * se && mean < top + 3.0 * se, "{method}: {mean} ± {se}");
    }
}

#[test]
fn probabilities_and_their_logs_give_the_logits_sets() {
    let (t, labels) = samples::logits(40, 3, 5, 8).unwrap();
    let ranked = ranked_of(&t, &ScoreOptions::default(), 1).unwrap();
    // The same ensemble stored as each draw's probabilities.
    let mut p = Vec::new();
    let mut data = Vec::new();
    let mut buf = Vec::new();
    for i in 0..40 {
        for d in 0..3 {
            crate::probability::softmax_into(t.draw(i, d, &mut buf), &mut p);
            data.extend_from_slice(&p);
        }
    }
    let as_probs = ScoreTensor::new(40, 3, 5, data).unwrap();
    let again = ranked_of(&as_probs, &ScoreOptions::default(), 1).unwrap();
    assert_eq!(ranked.order, again.order);
    assert!(close(&ranked.prob, &again.prob));
    let _ = labels;
}

/// A split's threshold is the conformal quantile of its calibration items' scores of their
/// labels, each as `score_of` defines it (the split's `u`, the label's rank).
#[test]
fn thresholds_are_the_quantiles_of_the_labels_scores() {
    let (t, labels) = samples::logits(200, 3, 9, 4).unwrap();
    let ranked = ranked_of(&t, &ScoreOptions::default(), 1).unwrap();
    let splits: Vec<Split> = (0..3).map(|r| Split::random(200, 0.5, 7, r).unwrap()).collect();
    for method in Method::BASELINES {
        for randomized in [true, false] {
            let p = Baseline { randomized, ..Baseline::default() };
            ranked
                .calibrate_each(method, &p, &labels, (Coverage::Marginal, 2), &splits, |r, c| {
                    let split = &splits[r];
                    let mut cal: Vec<f64> =
                        split.cal.iter().map(|&j| ranked.score_of(method, &p, split, j, labels[j])).collect();
                    cal.sort_unstable_by(f64::total_cmp);
                    for alpha in [0.05, 0.1, 0.3] {
                        let want = crate::quantile::conformal_quantile(&cal, alpha);
                        assert_eq!(c.threshold(0, alpha).to_bits(), want.to_bits(), "{method} {randomized}");
                    }
                    Ok(())
                })
                .unwrap();
        }
    }
}
