//! Split conformal prediction (docs/method.md §5): splits, the three nonconformity scores, calibration,
//! prediction sets and their metrics over repeated splits.
//!
//! A method's scores for a split are kept as a [`Calibrated`]: candidate scores of the test
//! items (sorted once) and what the threshold needs. Any α, or a sweep over 100 of them, is then
//! answered without recomputing a single r-value.

use crate::probability::ScoresAre;
use crate::rvalue::{Algorithm, LambdaRule, TieOrder};
use crate::tensor::VarianceKind;

pub use crate::quantile::{conformal_quantile, k_star};

crate::options! {
    /// A conformal method (docs/method.md §5).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Method("method") {
        /// `−S[x][m0][k]`: one draw's score.
        Cp = "cp",
        /// `−X`: the mean over draws.
        CpAvg = "cp-avg",
        /// The r-value.
        CpR = "cp-r",
        /// Adaptive prediction sets: the probability mass down to the candidate.
        Aps = "aps",
        /// APS with a penalty on ranks beyond `k_reg`.
        Raps = "raps",
        /// Sorted APS: the top probability, then a step per rank.
        Saps = "saps",
    }

    /// Which r-value CP_r uses. The default, with [`Prior`]'s, is every face's (the CLI, Python,
    /// the JS API, the page): chosen from measured coverage, size and speed (docs/method.md §5,
    /// "The default r-value").
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum RvalueKind("r-value kind") {
        /// Normal–Normal r-value over each item's K candidates (docs/method.md §2).
        #[default]
        Parametric = "parametric",
        /// Rank counts over each item's draws (docs/method.md §3).
        Nonparametric = "nonparametric",
        /// Pooled with the calibration items' true labels (docs/method.md §4).
        Pooled = "pooled",
    }

    /// Where the parametric r-value's prior comes from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Prior("prior") {
        /// One prior per item, over its K candidates (the paper's setting).
        PerItem = "per-item",
        /// One prior estimated from all items' candidates (a prediction's: the labelled
        /// items'). The default: a per-item prior fills the toy's sets (docs/method.md §11).
        #[default]
        Pooled = "pooled",
    }

    /// Which coverage the thresholds guarantee (docs/method.md §5).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
    pub enum Coverage("coverage") {
        /// One threshold from all calibration items: `1 − α` on average over items.
        #[default]
        Marginal = "marginal",
        /// A threshold per class from that class's calibration items (Mondrian): `1 − α` for
        /// each class's items.
        PerClass = "per-class",
    }
}

impl Method {
    /// The paper's three methods: what every face runs unless asked for others.
    pub const PAPER: [Method; 3] = [Method::Cp, Method::CpAvg, Method::CpR];
    /// The adaptive baselines, scored from class probabilities.
    pub const BASELINES: [Method; 3] = [Method::Aps, Method::Raps, Method::Saps];

    /// Whether the method is one of the baselines (APS, RAPS, SAPS).
    pub fn is_baseline(self) -> bool {
        Method::BASELINES.contains(&self)
    }

    /// The method's name in tables and plots (`CP_r`, `APS`).
    pub fn label(self) -> &'static str {
        match self {
            Method::Cp => "CP",
            Method::CpAvg => "CP_avg",
            Method::CpR => "CP_r",
            Method::Aps => "APS",
            Method::Raps => "RAPS",
            Method::Saps => "SAPS",
        }
    }
}

/// Whether scoring `methods` with `opts` ranks draws (CP_r with rank-based r-values), i.e.
/// whether [`Prepared::new`] should build the draw orders.
pub fn needs_draw_orders(methods: &[Method], opts: &ScoreOptions) -> bool {
    methods.contains(&Method::CpR) && opts.kind != RvalueKind::Parametric
}

/// Everything that shapes the scores and their calibration (not α, not the split).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreOptions {
    pub kind: RvalueKind,
    pub variance: VarianceKind,
    pub prior: Prior,
    pub algorithm: Algorithm,
    pub lambda: LambdaRule,
    /// CP's draw `m0`.
    pub cp_draw: usize,
    /// How pooled r-values break ties between units (docs/method.md §4).
    pub ties: TieOrder,
    /// Marginal or per-class thresholds; per-class needs each calibration unit's class.
    pub coverage: Coverage,
    /// How the baselines read a draw's scores as probabilities.
    pub scores_are: ScoresAre,
    /// The baselines' parameters.
    pub baseline: Baseline,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            kind: RvalueKind::default(),
            variance: VarianceKind::PerDraw,
            prior: Prior::default(),
            algorithm: Algorithm::Exact,
            lambda: LambdaRule::Model,
            cp_draw: 0,
            ties: TieOrder::Exchangeable,
            coverage: Coverage::Marginal,
            scores_are: ScoresAre::Auto,
            baseline: Baseline::default(),
        }
    }
}

mod baselines;
mod bytes;
mod calibrated;
mod chunks;
pub mod conditional;
mod metrics;
mod per_class;
mod pooled;
mod prepared;
mod scores;
mod split;
mod steps;
pub mod streamed;
mod sweep;
pub mod true_draws;
pub mod warnings;

pub use baselines::{uniform as baseline_u, Baseline, Ranked};
pub use bytes::{read_block_rows, read_calibrations, write_block_rows, write_calibrations};
pub use calibrated::{Calibrated, ItemSet, ScoreRows};
pub use chunks::in_chunks;
pub use conditional::{
    difficulty_of, difficulty_of_block, difficulty_ranks, summarize_conditional, ConditionalMetrics,
    ConditionalSummary, SplitTallies, Stratum, Tally, DIFFICULTY_STRATA, SIZE_STRATA,
};
pub use metrics::{
    check_alpha, evaluate, evaluate_with, mean_sd, summarize, summarize_with, Conditional, SplitMetrics,
    Summary, CONDITIONAL_COLUMNS,
};
pub use pooled::PooledBuilder;
pub use prepared::{calibrate_each_lean, check_data, ranked_of, Prepared};
pub(crate) use scores::parametric_rows;
pub use scores::{
    item_scores, item_scores_only, needed_candidates, parametric_scores, pooled_hyper, pooled_hyper_on, Need,
};
pub use split::{Split, SplitPlan};
pub use sweep::{alpha_grid, sweep};

#[cfg(test)]
mod tests;
