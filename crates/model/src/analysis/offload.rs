//! The job's hook for work done outside the core (the page's GPU path): the job says which
//! rank-based work its next step would do, and takes the result computed elsewhere instead of
//! doing it. The core stays free of any device: the caller decides where the work runs, and a
//! caller that never answers leaves the job to do the work itself on the next `step`.

use super::PartTensor;
use rvalue_core::conformal::{Coverage, Split};
use rvalue_core::rvalue::TieOrder;

/// What the job's next step would compute.
#[derive(Debug, Clone, PartialEq)]
pub enum Offload {
    /// CP_r's nonparametric r-values `[N][K]` of the whole part, as `conformal::item_scores`
    /// gives them; answer with [`AnalysisJob::supply_rvalues`].
    Nonparametric,
    /// Pooled CP_r calibrated on the part's split number `index`, as `Calibrated::pooled` gives
    /// it; answer with [`AnalysisJob::supply_pooled`]. `items_per_step` is the chunk of test
    /// items the job itself would do per step, for a caller that keeps a page responsive.
    /// `coverage`: per class, the split's calibration is by class (of the request's labels).
    Pooled { index: usize, split: Split, ties: TieOrder, coverage: Coverage, items_per_step: usize },
}

/// Work handed out of the job, with what is needed to do it; it holds no borrow of the job.
#[derive(Debug, Clone)]
pub struct OffloadRequest {
    pub what: Offload,
    /// The part (toy repeat) it belongs to; a result for another part is refused.
    pub part: usize,
    pub tensor: PartTensor,
    pub labels: Vec<usize>,
}
