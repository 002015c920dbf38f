//! The analysis behind panels 3, 4, 6 and 7: calibrated scores of every method on every split
//! (score files) or repeat (toy), built in bounded steps by [`AnalysisJob`].

use rvalue_core::conformal::{PooledBuilder, RvalueKind, Split};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::Error;

mod hand_out;
mod inclusion_inputs;
mod job;
mod label_info;
mod long_run;
mod offload;
mod part;
mod results;
mod source;
mod streamed_file;
mod streamed_splits;
mod sweep;
mod views;
pub use hand_out::{compute_part, HandOut, HeldData, Work};
pub use inclusion_inputs::limit_slope;
pub use job::AnalysisJob;
use label_info::LabelInfo;
pub use long_run::LongRun;
pub use offload::{Offload, OffloadRequest};
use part::Part;
use results::finite;
use results::Calibrations;
pub use results::{Analysis, MAX_CURVE_CANDIDATES};
use source::true_draws_splits;
pub use source::{PartTensor, Source};
pub use streamed_file::{ShareRequest, StreamedFile, SHARE_BYTES};
pub use streamed_splits::{StreamedSplits, GROUP_BYTES, STEP_BYTES};
pub use sweep::SweepCurves;
pub use views::{AlphaView, Conditional, ItemView, MethodRanking, RankedCandidate, SummaryRow};

/// CP_r's place in `Method::PAPER`.
const CP_R: usize = 2;

/// Number of α values of the coverage and size curves (panels 3 and 4).
pub const SWEEP_POINTS: usize = 100;

/// Default work per step, in candidate-units (items × K, weighted by the r-value's cost): small
/// enough that a step of parametric r-values leaves the page's frame responsive, large enough
/// that the steps' overhead stays small (its time: docs/performance.md, the explorer).
pub const DEFAULT_STEP_BUDGET: usize = 8_000;

/// Pooled CP_r's draw-unit updates per candidate-unit of budget (measured: one parametric
/// r-value costs about as much as 400 updates of the pooled greedy).
const POOLED_UNITS_PER_BUDGET: usize = 400;

/// Test items of a pooled split per step within `budget` (at least one).
fn pooled_items_per_step(budget: usize, t: &ScoreTensor, split: &Split) -> usize {
    (budget.saturating_mul(POOLED_UNITS_PER_BUDGET) / PooledBuilder::item_cost(t, split).max(1)).max(1)
}

/// Work of one item's r-values in candidate-units of the step budget, for `m` draws and `k`
/// candidates: the weights the explorer bench measured (docs/performance.md, the explorer), the
/// rank-based r-values' cost growing with the draws.
fn item_cost(kind: RvalueKind, m: usize, k: usize) -> usize {
    match kind {
        RvalueKind::Nonparametric => k * (1 + m / 16),
        _ => 4 * k,
    }
    .max(1)
}

/// Test items a split of a file tests, after checking that `n` items split as `controls` say.
fn test_items(n: usize, controls: &crate::Controls) -> rvalue_core::Result<usize> {
    Split::random(n, controls.cal_fraction, controls.seed, 0)?;
    Ok(n - (n as f64 * controls.cal_fraction).round() as usize)
}

/// Largest memory the stored calibrated scores may take (wasm32 has 4 GiB in all).
const MAX_STORED_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// Result of one [`AnalysisJob::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// More steps are needed; the fraction done so far, in `[0, 1)`.
    Working(f64),
    /// Nothing to do until a part handed out ([`AnalysisJob::hand_out`]) is supplied or handed
    /// back; the fraction done so far.
    Waiting(f64),
    /// Call [`AnalysisJob::finish`].
    Done,
}

/// A broken invariant of the job's own bookkeeping: reported as an error, because a panic would
/// kill the page.
fn internal(what: &str) -> Error {
    Error::invalid(format!("internal error in the analysis: {what}"))
}
