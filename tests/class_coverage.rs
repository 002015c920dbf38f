//! The per-class (Mondrian) guarantee, tested statistically: on simulated data with one hard
//! class, each class's coverage averaged over 500 independent splits is at least
//! `1 − α − 3·se` for every method and every CP_r kind under `--coverage per-class`; marginal
//! CP misses that bound on the hard class, so the test can tell the two apart.
//!
//! Each split is a fresh data set (first half calibrates), so splits are independent and `se`
//! (sd of the per-split class coverage / √splits) is honest.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_core::conformal::{Coverage, Method, Prepared, RvalueKind, ScoreOptions, Split};
use rvalue_core::samples::standard_normal;
use rvalue_core::tensor::ScoreTensor;

const SPLITS: usize = 500;
const ALPHA: f64 = 0.1;
const K: usize = 4;
const HARD: usize = 3;
const N: usize = 240;
const M: usize = 6;

/// Data set `r`: label `i mod K`; the true label's draws centre on 2 (on 0.3 for the hard
/// class), the others' on 0, all with unit spread, so the hard class's true label is often
/// outscored.
fn data(r: usize) -> (ScoreTensor, Vec<usize>) {
    let labels: Vec<usize> = (0..N).map(|i| i % K).collect();
    let mut s = Vec::with_capacity(N * M * K);
    for (i, &y) in labels.iter().enumerate() {
        for d in 0..M {
            for c in 0..K {
                let mean = match (c == y, y == HARD) {
                    (true, true) => 0.3,
                    (true, false) => 2.0,
                    _ => 0.0,
                };
                s.push(mean + standard_normal(20_261_128 + r as u64, i as u32, d as u32, c as u32));
            }
        }
    }
    (ScoreTensor::new(N, M, K, s).unwrap(), labels)
}

/// Each class's mean coverage over the splits and its standard error.
fn class_coverage(method: Method, opts: &ScoreOptions) -> Vec<(f64, f64)> {
    let (mut sum, mut sum_sq) = ([0.0; K], [0.0; K]);
    let split = Split::new((0..N / 2).collect(), (N / 2..N).collect());
    for r in 0..SPLITS {
        let (t, labels) = data(r);
        let need = rvalue_core::conformal::needs_draw_orders(&[method], opts);
        let prepared = Prepared::new(&t, &labels, need).unwrap();
        let c = prepared.calibrate(method, opts, &[split.clone().keyed(7, r as u64)]).unwrap().remove(0);
        let (mut covered, mut count) = ([0usize; K], [0usize; K]);
        for pos in 0..c.test.len() {
            let y = c.label(pos);
            count[y] += 1;
            covered[y] += usize::from(c.row(pos)[y] <= c.class_threshold(pos, y, ALPHA));
        }
        for k in 0..K {
            let cov = covered[k] as f64 / count[k] as f64;
            sum[k] += cov;
            sum_sq[k] += cov * cov;
        }
    }
    let n = SPLITS as f64;
    (0..K)
        .map(|k| {
            let mean = sum[k] / n;
            let var = (sum_sq[k] / n - mean * mean).max(0.0) * n / (n - 1.0);
            (mean, (var / n).sqrt())
        })
        .collect()
}

#[test]
fn every_class_is_covered_per_class() {
    let kinds = [
        (Method::Cp, RvalueKind::Parametric),
        (Method::CpAvg, RvalueKind::Parametric),
        (Method::CpR, RvalueKind::Parametric),
        (Method::CpR, RvalueKind::Nonparametric),
        (Method::CpR, RvalueKind::Pooled),
    ];
    for (method, kind) in kinds {
        let opts = ScoreOptions { kind, coverage: Coverage::PerClass, ..ScoreOptions::default() };
        for (class, (mean, se)) in class_coverage(method, &opts).into_iter().enumerate() {
            println!("{method} {kind} class {class}: {mean:.4} ± {se:.4}");
            assert!(
                mean >= 1.0 - ALPHA - 3.0 * se,
                "{method} {kind}: class {class} covered {mean} (se {se})"
            );
        }
    }
    // Marginal coverage hides the hard class: the same bound fails there.
    let marginal = class_coverage(Method::Cp, &ScoreOptions::default());
    let (mean, se) = marginal[HARD];
    println!("cp marginal, hard class: {mean:.4} ± {se:.4}");
    assert!(mean < 1.0 - ALPHA - 3.0 * se, "marginal CP covers the hard class {mean} (se {se})");
}
