//! rvalue-bench, never published: the benchmark suite (native `cargo bench -p rvalue-bench` and
//! the wasm bench in Chromium run the same workloads on the same numbers), on the seeded inputs
//! of [`rvalue_core::samples`]. Kept out of the core so that its API holds numerics only.

use rvalue_core::samples::{cifar_like, clip_log_probabilities, clip_probabilities, units};
use rvalue_core::tensor::ScoreTensor;

/// The benchmark workloads, on seeded data built once; each method runs one workload
/// and returns something to keep the optimiser honest. Shared by `benches/core.rs` (native) and
/// `tests/wasm_bench.rs` (wasm in Chromium), so both time exactly the same work.
pub struct Suite {
    /// The CIFAR-shaped logits, their draw orders and one half/half split.
    pub data: PooledCase,
    pub summaries: rvalue_core::tensor::Summaries,
    pub units_x: Vec<f64>,
    pub units_s: Vec<f64>,
    pooled: Vec<rvalue_core::conformal::Calibrated>,
    avg: Vec<rvalue_core::conformal::Calibrated>,
}

impl Suite {
    /// Builds the CIFAR-shaped tensor, one half/half split and 100,000 units (seed 1).
    // Fixed seeded inputs, no caller's data: each `expect` states what that data satisfies.
    #[allow(clippy::expect_used)]
    pub fn new() -> Self {
        use rvalue_core::conformal::{Method, Prepared, RvalueKind, ScoreOptions};
        let data = PooledCase::logits();
        let summaries = rvalue_core::tensor::Summaries::of(&data.tensor);
        let (units_x, units_s) = units(100_000, 1);
        let prepared = Prepared::new(&data.tensor, &data.labels, true).expect("valid data");
        let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
        let one = std::slice::from_ref(&data.split);
        let pooled = prepared.calibrate(Method::CpR, &opts, one).expect("valid data");
        let avg = prepared.calibrate(Method::CpAvg, &opts, one).expect("valid data");
        Suite { data, summaries, units_x, units_s, pooled, avg }
    }

    /// Per-draw candidate orders of the whole tensor (once per data set).
    pub fn draw_orders(&self) -> usize {
        rvalue_core::rvalue::DrawOrder::of(&self.data.tensor).map_or(0, |o| o.k())
    }

    /// Per-item nonparametric r-values of all 2000 items, draw orders included.
    pub fn nonparametric(&self) -> f64 {
        let Ok(order) = rvalue_core::rvalue::DrawOrder::of(&self.data.tensor) else { return 0.0 };
        (0..self.data.tensor.n())
            .map(|i| rvalue_core::rvalue::nonparametric::nonparametric_from_order(&order, i)[0])
            .sum()
    }

    /// Per-item parametric exact r-values (model rule) of all 2000 items.
    pub fn parametric_exact(&self) -> f64 {
        use rvalue_core::rvalue::{parametric, Algorithm, HyperChoice, LambdaRule};
        use rvalue_core::tensor::VarianceKind;
        let k = self.data.tensor.k();
        (0..self.data.tensor.n())
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
        let alphas = rvalue_core::conformal::alpha_grid(0.005, 0.5, 100);
        rvalue_core::conformal::sweep(&self.pooled, &alphas, false).iter().map(|p| p.1).sum()
    }

    /// The same for CP_avg (one global threshold per α).
    pub fn sweep_avg(&self) -> f64 {
        let alphas = rvalue_core::conformal::alpha_grid(0.005, 0.5, 100);
        rvalue_core::conformal::sweep(&self.avg, &alphas, false).iter().map(|p| p.1).sum()
    }

    /// rvalues-0.7.1 grid r-values of 100,000 units.
    pub fn grid_100k(&self) -> f64 {
        use rvalue_core::rvalue::{parametric, Algorithm, HyperChoice, LambdaRule};
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

/// One data set and split for the pooled benchmarks across score scales: the tensor, its draw
/// orders and a half/half split (seed 1), built only by the benchmarks that use it.
pub struct PooledCase {
    pub tensor: ScoreTensor,
    pub labels: Vec<usize>,
    pub split: rvalue_core::conformal::Split,
    pub order: rvalue_core::rvalue::DrawOrder,
}

/// Why the fixed CIFAR-100 shape's seeded probabilities are never refused: no dimension is empty
/// and every score is finite.
const FIXED: &str = "a fixed shape of finite scores";

// Fixed seeded inputs, no caller's data: each `expect` states what that data satisfies.
#[allow(clippy::expect_used)]
impl PooledCase {
    /// The CIFAR-shaped logits of [`Suite`].
    pub fn logits() -> Self {
        Self::of(cifar_like(1))
    }

    /// [`rvalue_core::samples::clip_probabilities`] in the CIFAR-100 shape (2000 × 31 × 100, seed 1).
    pub fn probabilities() -> Self {
        Self::of(clip_probabilities(2000, 31, 100, 1).expect(FIXED))
    }

    /// [`rvalue_core::samples::clip_log_probabilities`] in the same shape: the same rankings as [`Self::probabilities`].
    pub fn log_probabilities() -> Self {
        Self::of(clip_log_probabilities(2000, 31, 100, 1).expect(FIXED))
    }

    /// [`Self::probabilities`] stored as f32, as a float32 file is read: the same r-values.
    pub fn probabilities_f32() -> Self {
        let (t, labels) = clip_probabilities(2000, 31, 100, 1).expect(FIXED);
        let narrow = t.data().iter().map(|&x| x as f32).collect();
        Self::of((
            ScoreTensor::from_f32(t.n(), t.m(), t.k(), narrow).expect("finite by construction"),
            labels,
        ))
    }

    fn of((tensor, labels): (ScoreTensor, Vec<usize>)) -> Self {
        let split =
            rvalue_core::conformal::Split::random(tensor.n(), 0.5, 1, 0).expect("2000 items split in two");
        let order = rvalue_core::rvalue::DrawOrder::of(&tensor).expect("K ≤ 65536");
        PooledCase { tensor, labels, split, order }
    }

    /// Pooled CP_r for one split under the tie order `ties`: the greedy for each test item
    /// (their number).
    pub fn pooled_split(&self, ties: rvalue_core::rvalue::TieOrder) -> usize {
        rvalue_core::conformal::Calibrated::pooled(
            &self.tensor,
            &self.labels,
            Some(&self.order),
            &self.split,
            ties,
        )
        .map_or(0, |c| c.test.len())
    }
}

impl Default for Suite {
    fn default() -> Self {
        Self::new()
    }
}
