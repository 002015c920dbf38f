//! The split-conformal guarantee, tested statistically: over many seeded toy splits
//! the mean coverage of every method lies within `[1 − α − 3·se, 1 − α + 1/(n+1) + 3·se]`, with
//! `se` = sd of the per-split coverage / √splits and `n` the calibration items.
//!
//! Each split is a fresh toy data set (the simulator's first `n_cal` items calibrate), so splits
//! are independent and `se` is honest. The upper bound holds only for scores without ties;
//! discrete r-values tie, so for them only the lower bound is asserted and the excess is printed.
//! The same stored scores are also judged with a local strict rule `score < q̂` (the paper's
//! notation): for the discrete nonparametric r-values it falls below the lower bound, so this test
//! catches a `<` in the core's set rule. Pooled CP_r covers with its default exchangeable tie
//! order and misses the lower bound with the authors' index order (docs/method.md §4).
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_core::conformal::{Method, Prepared, RvalueKind, ScoreOptions, Split};
use rvalue_core::rvalue::TieOrder;
use rvalue_core::toy::{self, ToyParams};

const SPLITS: usize = 1000;
const ALPHAS: [f64; 3] = [0.05, 0.1, 0.2];

/// Small enough for `make test`; σ² and h make the high-variance false candidates that CP_r
/// is about.
fn params(m: usize) -> ToyParams {
    ToyParams {
        k: 5,
        m,
        n_cal: 100,
        n_test: 100,
        repeats: SPLITS,
        sigma2: 30.0,
        high_var_fraction: 0.5,
        seed: 20_261_122,
        ..ToyParams::default()
    }
}

/// Per-split coverage sums at each α, under the core's rule (`≤`) and a strict rule (`<`).
#[derive(Default)]
struct Tally {
    sum: [f64; 3],
    sum_sq: [f64; 3],
    strict_sum: [f64; 3],
}

impl Tally {
    fn mean_se(&self, a: usize) -> (f64, f64) {
        let n = SPLITS as f64;
        let mean = self.sum[a] / n;
        let var = (self.sum_sq[a] / n - mean * mean).max(0.0) * n / (n - 1.0);
        (mean, (var / n).sqrt())
    }

    fn strict_mean(&self, a: usize) -> f64 {
        self.strict_sum[a] / SPLITS as f64
    }
}

fn tally(p: &ToyParams, method: Method, kind: RvalueKind) -> Tally {
    let opts = ScoreOptions { kind, ..ScoreOptions::default() };
    let split = Split::from_mask(&(0..p.n()).map(|i| i < p.n_cal).collect::<Vec<_>>()).unwrap();
    let mut out = Tally::default();
    for r in 0..p.repeats {
        let (t, labels) = toy::simulate(p, r).unwrap();
        let prepared = Prepared::new(&t, &labels, kind != RvalueKind::Parametric).unwrap();
        let cal = prepared.calibrate(method, &opts, std::slice::from_ref(&split)).unwrap().remove(0);
        for (a, &alpha) in ALPHAS.iter().enumerate() {
            let cov = cal.metrics(alpha, false).coverage;
            out.sum[a] += cov;
            out.sum_sq[a] += cov * cov;
            let strict =
                (0..cal.test.len()).filter(|&i| cal.row(i)[cal.label(i)] < cal.threshold(i, alpha)).count();
            out.strict_sum[a] += strict as f64 / cal.test.len() as f64;
        }
    }
    out
}

/// Asserts the bounds at every α (the upper one only when `ties_free`) and prints the row.
fn check(name: &str, p: &ToyParams, t: &Tally, ties_free: bool) {
    let mut failures = Vec::new();
    for (a, &alpha) in ALPHAS.iter().enumerate() {
        let (mean, se) = t.mean_se(a);
        let lo = 1.0 - alpha - 3.0 * se;
        let hi = 1.0 - alpha + 1.0 / (p.n_cal as f64 + 1.0) + 3.0 * se;
        println!(
            "coverage {name:<22} M={:<3} α={alpha:<4}: mean {mean:.4} se {se:.4} bounds [{lo:.4}, {hi:.4}]{} strict(<) {:.4}",
            p.m,
            if ties_free { "" } else { " (upper not asserted: ties)" },
            t.strict_mean(a),
        );
        if mean < lo || (ties_free && mean > hi) {
            failures.push(format!("α {alpha}: mean {mean:.4} outside [{lo:.4}, {hi:.4}]"));
        }
    }
    assert!(failures.is_empty(), "{name}: {failures:?}");
}

#[test]
fn cp_covers() {
    let p = params(10);
    check("CP", &p, &tally(&p, Method::Cp, RvalueKind::Parametric), true);
}

#[test]
fn cp_avg_covers() {
    let p = params(10);
    check("CP_avg", &p, &tally(&p, Method::CpAvg, RvalueKind::Parametric), true);
}

#[test]
fn cp_r_parametric_covers() {
    let p = params(10);
    check("CP_r parametric", &p, &tally(&p, Method::CpR, RvalueKind::Parametric), true);
}

#[test]
fn cp_r_nonparametric_covers_and_a_strict_rule_would_not() {
    let p = params(10);
    let t = tally(&p, Method::CpR, RvalueKind::Nonparametric);
    check("CP_r nonparametric", &p, &t, false);
    for (a, &alpha) in ALPHAS.iter().enumerate() {
        let (_, se) = t.mean_se(a);
        let lo = 1.0 - alpha - 3.0 * se;
        assert!(t.strict_mean(a) < lo, "α {alpha}: strict rule {} not below {lo}", t.strict_mean(a));
    }
}

/// Pooled CP_r with the default exchangeable tie order covers within both bounds at every M and
/// α (pooled r-values never tie: one unit per greedy step, so the upper bound applies too). With
/// the authors' index order the test label loses every tie and coverage falls below the lower
/// bound when draws are few: kept as a test so that the finding stays true of the code.
#[test]
fn cp_r_pooled_covers_with_exchangeable_ties() {
    for m in [5, 10, 30] {
        let p = params(m);
        check("CP_r pooled, exchangeable", &p, &pooled_tally(&p, TieOrder::Exchangeable, false), true);
    }
}

/// The same with each test item's tie order keyed by its scores, as a prediction's new items
/// have it (docs/method.md §4: the order is still uniform given the data).
#[test]
fn cp_r_pooled_covers_with_ties_keyed_by_content() {
    for m in [5, 10] {
        let p = params(m);
        check("CP_r pooled, by content", &p, &pooled_tally(&p, TieOrder::Exchangeable, true), true);
    }
}

#[test]
fn cp_r_pooled_with_index_ties_under_covers() {
    for m in [5, 10, 30] {
        let p = params(m);
        let t = pooled_tally(&p, TieOrder::Index, false);
        for (a, &alpha) in ALPHAS.iter().enumerate() {
            let (mean, se) = t.mean_se(a);
            println!("coverage CP_r pooled, index        M={m:<3} α={alpha:<4}: mean {mean:.4} se {se:.4}");
            // Asserted where the finding is stated (docs/method.md §11); printed elsewhere.
            if m == 10 {
                assert!(
                    mean < 1.0 - alpha - 3.0 * se,
                    "α {alpha}: the index tie order now covers ({mean:.4})"
                );
            }
        }
    }
}

/// Pooled CP_r's coverage over the toy's repeats under `ties`; repeat `r`'s tie order is split
/// `r` of the toy's seed, so repeats are independent in their tie orders too; a prediction's
/// split (`by_content`) keys each test item's order by its scores instead of its place.
fn pooled_tally(p: &ToyParams, ties: TieOrder, by_content: bool) -> Tally {
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ties, ..ScoreOptions::default() };
    let mut out = Tally::default();
    for r in 0..p.repeats {
        let (t, labels) = toy::simulate(p, r).unwrap();
        let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect()).keyed(p.seed, r as u64);
        let split = if by_content { split.for_prediction() } else { split };
        let prepared = Prepared::new(&t, &labels, true).unwrap();
        let cal = prepared.calibrate(Method::CpR, &opts, std::slice::from_ref(&split)).unwrap().remove(0);
        for (a, &alpha) in ALPHAS.iter().enumerate() {
            let cov = cal.metrics(alpha, false).coverage;
            out.sum[a] += cov;
            out.sum_sq[a] += cov * cov;
            out.strict_sum[a] += cov;
        }
    }
    out
}
