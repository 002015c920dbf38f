//! The split-conformal guarantee, tested statistically (issue 6): over many seeded toy splits
//! the mean coverage of every method lies within `[1 − α − 3·se, 1 − α + 1/(n+1) + 3·se]`, with
//! `se` = sd of the per-split coverage / √splits and `n` the calibration items.
//!
//! Each split is a fresh toy data set (the simulator's first `n_cal` items calibrate), so splits
//! are independent and `se` is honest. The upper bound holds only for scores without ties;
//! discrete r-values tie, so for them only the lower bound is asserted and the excess is printed.
//! The same stored scores are also judged with a local strict rule `score < q̂` (the paper's
//! notation): for the discrete nonparametric r-values it falls below the lower bound, so this test
//! catches a `<` in the core's set rule. Pooled CP_r misses the lower bound because of SPEC §4's
//! tie order, and covers with ties broken at random: see
//! [`cp_r_pooled_covers_with_random_tie_order_and_not_with_specs`].
#![cfg(not(target_arch = "wasm32"))]

use rvalue_explorer::conformal::{Method, Prepared, RvalueKind, ScoreOptions, Split};
use rvalue_explorer::rvalue::nested_greedy;
use rvalue_explorer::toy::{self, ToyParams};

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

/// Pooled CP_r as SPEC §4 defines it under-covers on this toy, and the test shows why. Pooled
/// r-values never tie (one unit per greedy step, so `<` and `≤` agree), but the greedy's count
/// ties go to the lower unit index, i.e. to the calibration units: the test label loses every tie,
/// which breaks exchangeability. So, on the same draws, this test runs SPEC §4's pooled greedy
/// itself ([`pooled_steps`]) twice: in SPEC §4's unit order, where it must give the core's sets
/// item for item and fall below the lower bound at every α (the documented deviation: measured
/// 0.883 / 0.807 / 0.681 at M = 10, and 0.919 / 0.858 / 0.745 at M = 50, 0.936 / 0.879 / 0.775 at
/// M = 200 with the toy's earlier draws); and with the unit order of each item drawn at random,
/// where it must cover within both bounds, as the split-conformal argument promises.
#[test]
fn cp_r_pooled_covers_with_random_tie_order_and_not_with_specs() {
    let p = params(10);
    let split = Split::from_mask(&(0..p.n()).map(|i| i < p.n_cal).collect::<Vec<_>>()).unwrap();
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let (mut spec, mut random) = (Tally::default(), Tally::default());
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for r in 0..p.repeats {
        let (t, labels) = toy::simulate(&p, r).unwrap();
        let prepared = Prepared::new(&t, &labels, true).unwrap();
        let cal = prepared.calibrate(Method::CpR, &opts, std::slice::from_ref(&split)).unwrap().remove(0);
        let mut covered_spec = [0usize; 3];
        let mut covered_random = [0usize; 3];
        for (i, item) in (p.n_cal..p.n()).enumerate() {
            let identity: Vec<usize> = (0..p.n_cal + p.k).collect();
            let shuffled = shuffle(identity.clone(), &mut rng);
            let in_spec = steps_of_truth(&pooled_steps(&t, p.n_cal, item, &identity), p.n_cal);
            let in_random = steps_of_truth(&pooled_steps(&t, p.n_cal, item, &shuffled), p.n_cal);
            for (a, &alpha) in ALPHAS.iter().enumerate() {
                let spec_covers = covers(&in_spec, alpha);
                // The core's set for this item agrees with the greedy run here in SPEC's order.
                let core = cal.row(i)[cal.label(i)] <= cal.threshold(i, alpha);
                assert_eq!(spec_covers, core, "repeat {r}, item {item}, α {alpha}");
                covered_spec[a] += usize::from(spec_covers);
                covered_random[a] += usize::from(covers(&in_random, alpha));
            }
        }
        for a in 0..3 {
            for (tally, covered) in [(&mut spec, covered_spec[a]), (&mut random, covered_random[a])] {
                let cov = covered as f64 / p.n_test as f64;
                tally.sum[a] += cov;
                tally.sum_sq[a] += cov * cov;
                tally.strict_sum[a] += cov;
            }
        }
    }
    check("CP_r pooled, random ties", &p, &random, true);
    for (a, &alpha) in ALPHAS.iter().enumerate() {
        let (mean, se) = spec.mean_se(a);
        println!("coverage CP_r pooled, SPEC §4   M={:<3} α={alpha:<4}: mean {mean:.4} se {se:.4}", p.m);
        assert!(
            mean < 1.0 - alpha - 3.0 * se,
            "α {alpha}: SPEC §4's tie order now covers ({mean:.4}): update README"
        );
    }
}

/// The calibration units' greedy steps in selection order, and the true label's step
/// (candidate 0 is the true label in the toy).
fn steps_of_truth(step: &[u32], n_cal: usize) -> (Vec<u32>, u32) {
    let mut cal = step[..n_cal].to_vec();
    cal.sort_unstable();
    (cal, step[n_cal])
}

/// Whether the true label is in the set at `alpha` (SPEC §4): its step comes no later than that
/// of the k*-th calibration unit in selection order; every label is in when k* > n.
fn covers((cal, truth): &(Vec<u32>, u32), alpha: f64) -> bool {
    let k_star = ((cal.len() as f64 + 1.0) * (1.0 - alpha)).ceil() as usize;
    k_star > cal.len() || *truth <= cal[k_star - 1]
}

/// SPEC §4's greedy for test item `item` with the calibration items `0..n_cal`: each unit's step
/// (units: the calibration true labels, then the item's candidates), ties in the ranking and in
/// the greedy broken by the units' places in `order` (`order[u]` = unit u's place; the identity
/// is SPEC §4's rule, ties to the lower unit index).
fn pooled_steps(
    t: &rvalue_explorer::tensor::ScoreTensor,
    n_cal: usize,
    item: usize,
    order: &[usize],
) -> Vec<u32> {
    let u = n_cal + t.k();
    let score = |x: usize, d: usize| if x < n_cal { t.get(x, d, 0) } else { t.get(item, d, x - n_cal) };
    // Work in places: place q holds unit `unit[q]`, so "ties to the lower index" is "to the lower place".
    let mut unit = vec![0; u];
    for (x, &q) in order.iter().enumerate() {
        unit[q] = x;
    }
    let mut count = vec![0u32; u * u];
    let mut places: Vec<usize> = (0..u).collect();
    for d in 0..t.m() {
        places.sort_by(|&a, &b| score(unit[b], d).total_cmp(&score(unit[a], d)).then(a.cmp(&b)));
        for (rank, &q) in places.iter().enumerate() {
            count[q * u + rank] += 1;
        }
    }
    for row in count.chunks_exact_mut(u) {
        for j in 1..u {
            row[j] += row[j - 1];
        }
    }
    let by_place = nested_greedy(&count, u);
    (0..u).map(|x| by_place[order[x]]).collect()
}

/// A uniformly random permutation (Fisher–Yates on a xorshift stream).
fn shuffle(mut v: Vec<usize>, state: &mut u64) -> Vec<usize> {
    for i in (1..v.len()).rev() {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        v.swap(i, (*state % (i as u64 + 1)) as usize);
    }
    v
}
