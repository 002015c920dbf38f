//! r-values: the parametric Normal–Normal r-value (docs/method.md §2), the nonparametric r-value of one
//! item's draws (docs/method.md §3) and the pooled-calibration r-value (docs/method.md §4).
//!
//! Smaller is better: `r_i = inf{β : V_β(i) ≥ λ_β}` is the smallest top fraction that unit `i`
//! can be placed in.

mod brent;
pub mod nonparametric;
pub mod parametric;
pub mod pooled;
mod strided;
pub mod ties;

pub use nonparametric::{nested_greedy, nonparametric, rank_counts, DrawOrder};
pub use parametric::{
    parametric, parametric_unit, parametric_up_to, Algorithm, HyperChoice, LambdaRule, Parametric,
};
pub use pooled::{pooled_item_oracle, PooledItem, PooledSplit, Workspace};
pub use ties::{TieOrder, Ties};
