//! Seeded synthetic inputs for the benchmarks (native `cargo bench` and the wasm bench in
//! Chromium run the same workloads on the same numbers; nothing large is committed).

use crate::rng::{key_of, open01, philox4x32_10};
use crate::tensor::ScoreTensor;

/// A CIFAR-100-shaped logit tensor: `n` items × `m` draws × `k` classes, label `item mod k`.
/// Each class has a latent logit (the true one higher) and its own draw-to-draw spread, so
/// stable and unstable candidates mix as in a weighted-bootstrap ensemble. Logits are rounded
/// to `f32`, as a model's outputs are.
pub fn logits(n: usize, m: usize, k: usize, seed: u64) -> (ScoreTensor, Vec<usize>) {
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let mut data = Vec::with_capacity(n * m * k);
    let latent: Vec<f64> = (0..n * k)
        .map(|j| {
            let (i, c) = (j / k, j % k);
            let z = standard_normal(seed, i as u32, u32::MAX, c as u32);
            if c == labels[i] {
                2.0 + z
            } else {
                z
            }
        })
        .collect();
    let spread: Vec<f64> = (0..n * k)
        .map(|j| 0.2 + 0.8 * standard_normal(seed, (j / k) as u32, u32::MAX - 1, (j % k) as u32).abs())
        .collect();
    for i in 0..n {
        for d in 0..m {
            for c in 0..k {
                let z = standard_normal(seed, i as u32, d as u32, c as u32);
                data.push((latent[i * k + c] + spread[i * k + c] * z) as f32 as f64);
            }
        }
    }
    (ScoreTensor::new(n, m, k, data).expect("finite by construction"), labels)
}

/// The CIFAR-100 shape used by the benchmarks: 2000 items, 31 draws, 100 classes.
pub fn cifar_like(seed: u64) -> (ScoreTensor, Vec<usize>) {
    logits(2000, 31, 100, seed)
}

/// `u` units with estimates and noise variances, as an rvalues-package input.
pub fn units(u: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let x = (0..u).map(|i| 1.5 * standard_normal(seed, i as u32, 0, 0)).collect();
    let s = (0..u)
        .map(|i| {
            let se = 0.3 + standard_normal(seed, i as u32, 1, 0).abs();
            se * se
        })
        .collect();
    (x, s)
}

/// The benchmark workloads, on seeded data built once; each method runs one workload
/// and returns something to keep the optimiser honest. Shared by `benches/core.rs` (native) and
/// `tests/wasm_bench.rs` (wasm in Chromium), so both time exactly the same work.
pub struct Suite {
    pub tensor: ScoreTensor,
    pub labels: Vec<usize>,
    pub split: crate::conformal::Split,
    pub order: crate::rvalue::DrawOrder,
    pub summaries: crate::tensor::Summaries,
    pub units_x: Vec<f64>,
    pub units_s: Vec<f64>,
    pooled: Vec<crate::conformal::Calibrated>,
    avg: Vec<crate::conformal::Calibrated>,
}

impl Suite {
    /// Builds the CIFAR-shaped tensor, one half/half split and 100,000 units (seed 1).
    pub fn new() -> Self {
        use crate::conformal::{Method, Prepared, RvalueKind, ScoreOptions, Split};
        let (tensor, labels) = cifar_like(1);
        let split = Split::random(tensor.n(), 0.5, 1, 0).expect("2000 items split in two");
        let order = crate::rvalue::DrawOrder::of(&tensor).expect("K ≤ 65536");
        let summaries = crate::tensor::Summaries::of(&tensor);
        let (units_x, units_s) = units(100_000, 1);
        let prepared = Prepared::new(&tensor, &labels, true).expect("valid data");
        let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
        let one = std::slice::from_ref(&split);
        let pooled = prepared.calibrate(Method::CpR, &opts, one).expect("valid data");
        let avg = prepared.calibrate(Method::CpAvg, &opts, one).expect("valid data");
        Suite { tensor, labels, split, order, summaries, units_x, units_s, pooled, avg }
    }

    /// Per-draw candidate orders of the whole tensor (once per data set).
    pub fn draw_orders(&self) -> usize {
        crate::rvalue::DrawOrder::of(&self.tensor).map_or(0, |o| o.k())
    }

    /// Pooled CP_r for one split under the tie order `ties`: the greedy for each of the 1000
    /// test items.
    pub fn pooled_split(&self, ties: crate::rvalue::TieOrder) -> usize {
        crate::conformal::Calibrated::pooled(&self.tensor, &self.labels, Some(&self.order), &self.split, ties)
            .map_or(0, |c| c.test.len())
    }

    /// Per-item nonparametric r-values of all 2000 items, draw orders included.
    pub fn nonparametric(&self) -> f64 {
        let Ok(order) = crate::rvalue::DrawOrder::of(&self.tensor) else { return 0.0 };
        (0..self.tensor.n())
            .map(|i| crate::rvalue::nonparametric::nonparametric_from_order(&order, i)[0])
            .sum()
    }

    /// Per-item parametric exact r-values (model rule) of all 2000 items.
    pub fn parametric_exact(&self) -> f64 {
        use crate::rvalue::{parametric, Algorithm, HyperChoice, LambdaRule};
        use crate::tensor::VarianceKind;
        let k = self.tensor.k();
        (0..self.tensor.n())
            .map(|i| {
                let s: Vec<f64> = (0..k).map(|c| self.summaries.s(i, c, VarianceKind::PerDraw)).collect();
                parametric(
                    self.summaries.mean_row(i),
                    &s,
                    HyperChoice::Estimate,
                    Algorithm::Exact,
                    LambdaRule::Model,
                )
                .map_or(0.0, |p| p.rvalue[0])
            })
            .sum()
    }

    /// Coverage and size at 100 α values from stored pooled CP_r scores.
    pub fn sweep_pooled(&self) -> f64 {
        let alphas = crate::conformal::alpha_grid(0.005, 0.5, 100);
        crate::conformal::sweep(&self.pooled, &alphas, false).iter().map(|p| p.1).sum()
    }

    /// The same for CP_avg (one global threshold per α).
    pub fn sweep_avg(&self) -> f64 {
        let alphas = crate::conformal::alpha_grid(0.005, 0.5, 100);
        crate::conformal::sweep(&self.avg, &alphas, false).iter().map(|p| p.1).sum()
    }

    /// rvalues-0.7.1 grid r-values of 100,000 units.
    pub fn grid_100k(&self) -> f64 {
        use crate::rvalue::{parametric, Algorithm, HyperChoice, LambdaRule};
        parametric(
            &self.units_x,
            &self.units_s,
            HyperChoice::Estimate,
            Algorithm::Grid,
            LambdaRule::Empirical,
        )
        .map_or(0.0, |p| p.rvalue.iter().sum())
    }
}

impl Default for Suite {
    fn default() -> Self {
        Self::new()
    }
}

/// The standard normal for (seed, item, draw, candidate) by Box–Muller on one Philox4x32-10
/// block (counter `[item, draw, cand, 0]`): the benchmarks' inputs, kept as they were when the
/// toy simulator used this recipe so that benchmark figures stay comparable across versions.
#[inline]
pub fn standard_normal(seed: u64, item: u32, draw: u32, cand: u32) -> f64 {
    let w = philox4x32_10([item, draw, cand, 0], key_of(seed));
    let u1 = open01(w[0]);
    let u2 = open01(w[1]);
    (-2.0 * libm::log(u1)).sqrt() * libm::cos(std::f64::consts::TAU * u2)
}
