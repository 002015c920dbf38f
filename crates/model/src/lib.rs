//! The explorer's state model, independent of any UI: the settings ([`Controls`]), an
//! incremental analysis ([`AnalysisJob`] → [`Analysis`]) and pure curve functions for the panels.
//!
//! Nothing here touches the browser: the web page calls these functions natively compiled to wasm,
//! and the same code runs (and is tested) natively. Every number handed to a plot or table is
//! finite or an explicit `None`; failures are [`rvalue_core::Error`]s.
//!
//! Live behaviour the model supports:
//! - α changes: [`Analysis::at_alpha`] and [`Analysis::inspect`] answer from the stored
//!   [`rvalue_core::conformal::Calibrated`] scores; no r-value is recomputed. The coverage and size
//!   curves against α ([`Analysis::sweep`]) are computed once per analysis.
//! - β and σ² changes: [`threshold_curves`] and [`inclusion_curves`] are closed forms, cheap
//!   enough to redraw on every slider event.
//! - Toy parameters, the r-value kind, the variance, the prior, CP's draw or the splits change
//!   the scores: build a new [`AnalysisJob`] and step it across animation frames; the previous
//!   [`Analysis`] stays valid until the job finishes, and dropping the job cancels it.
//!   [`Controls::impact`] tells which of these a change of settings needs.
//!
//! A page's loop, in short:
//!
//! ```
//! use rvalue_model::*;
//! use rvalue_core::toy::ToyParams;
//!
//! let controls = Controls {
//!     toy: ToyParams { n_cal: 40, n_test: 40, repeats: 2, ..ToyParams::default() },
//!     ..Controls::default()
//! };
//! // Panels 1, 2 and 5 need no analysis.
//! let p = controls.toy_params();
//! let densities = score_densities(&p, &default_score_xs(&p, 200))?;
//! let (prior, variances) = threshold_inputs(&controls, None)?;
//! let curves = threshold_curves(Some(prior), &variances, &panel_betas(controls.beta),
//!                               &sigma2_grid(200), controls.sigma2)?;
//! let theorem3 = inclusion_curves(&InclusionInputs::toy(&p, controls.alpha, controls.beta)?,
//!                                 &sigma2_grid(200))?;
//! // The analysis runs a step per slice of an animation frame; dropping the job cancels it.
//! let mut job = AnalysisJob::new(Source::from_controls(&controls, None)?, &controls)?;
//! while let Progress::Working(_fraction) = job.step()? {}
//! let analysis = job.finish()?;
//! // α moves: no r-value is recomputed.
//! let table = analysis.at_alpha(0.05, controls.never_empty)?;
//! let item = analysis.inspect(0, 0.05, controls.never_empty)?;
//! let curves_3_4 = analysis.sweep(controls.never_empty);
//! # assert!(densities.prob_q_exceeds_p > 0.48 && curves.series.len() == 4 && theorem3.cp.len() == 200);
//! # assert!(table.rows.len() == 3 && item.methods.len() == 3 && curves_3_4.alphas.len() == 100);
//! # Ok::<(), rvalue_core::Error>(())
//! ```

mod analysis;
mod curves;
pub mod export;
pub mod samples;
pub mod scales;
mod summary;
pub mod tour;
pub mod url;

#[cfg(test)]
mod pool_tests;
#[cfg(test)]
mod tests;

pub use analysis::{
    compute_part, AlphaView, Analysis, AnalysisJob, HandOut, HeldData, ItemView, MethodRanking, Offload,
    OffloadRequest, PartTensor, Progress, RankedCandidate, Source, SummaryRow, SweepCurves,
    DEFAULT_STEP_BUDGET, SWEEP_POINTS,
};
pub use curves::{
    data_points, default_score_xs, inclusion_curves, panel_betas, score_densities, sigma2_grid,
    threshold_curves, threshold_curves_with, threshold_inputs, toy_design, DataPoint, InclusionCurves,
    InclusionInputs, Marker, ScoreDensities, ThresholdCurves, ThresholdSeries, MAX_DATA_POINTS,
};
pub use summary::{DataSummary, VarianceDistribution};

use rvalue_core::conformal::{Prior, RvalueKind, ScoreOptions, SplitPlan};
use rvalue_core::toy::ToyParams;
use rvalue_core::{Error, Result};

/// Slider ranges of the page.
pub const ALPHA_RANGE: (f64, f64) = (0.005, 0.5);
pub const BETA_RANGE: (f64, f64) = (0.001, 0.999);
pub const SIGMA2_RANGE: (f64, f64) = (0.0, 5000.0);

rvalue_core::options! {
    /// Where the data comes from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Mode("mode") {
        /// The simulated experiment of docs/method.md §6.
        #[default]
        Toy = "toy",
        /// An uploaded or bundled score file.
        Scores = "scores",
    }
}

/// Every setting of the page, with the defaults of docs/method.md.
///
/// The σ² slider is one value, [`Controls::sigma2`]: in toy mode it is the high-variance false
/// candidates' variance (it overrides `toy.sigma2`, see [`Controls::toy_params`]), and in both
/// modes it is the σ² marked on the threshold curves (panel 2).
#[derive(Debug, Clone, PartialEq)]
pub struct Controls {
    pub mode: Mode,
    /// Toy parameters (`ToyParams::default()`); `toy.sigma2` is replaced by `sigma2`.
    pub toy: ToyParams,
    /// Miscoverage level, in [`ALPHA_RANGE`]. Default 0.1.
    pub alpha: f64,
    /// β of the threshold curves, in [`BETA_RANGE`]. Default 0.1.
    pub beta: f64,
    /// The σ² slider, in [`SIGMA2_RANGE`]. Default 1000 (docs/method.md §6).
    pub sigma2: f64,
    /// How CP and CP_r score (r-value kind, variance, prior, algorithm, λ rule, CP's draw).
    /// Defaults as in the core except the prior, which is pooled (see [`Controls::for_mode`]).
    pub score: ScoreOptions,
    /// Add the best candidate to an empty set (default off).
    pub never_empty: bool,
    /// Score files: number of random splits (docs/method.md §5 default 100).
    pub splits: usize,
    /// Score files: calibration fraction (default 0.5).
    pub cal_fraction: f64,
    /// Score files: split seed (default 0).
    pub seed: u64,
}

impl Default for Controls {
    fn default() -> Self {
        let toy = ToyParams::default();
        Controls {
            mode: Mode::Toy,
            sigma2: toy.sigma2,
            toy,
            alpha: 0.1,
            beta: 0.1,
            score: Controls::score_defaults(Mode::Toy),
            never_empty: false,
            splits: 100,
            cal_fraction: 0.5,
            seed: 0,
        }
    }
}

/// What a change of [`Controls`] requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Impact {
    /// Scores change: run a new [`AnalysisJob`] (toy re-simulation, r-values, splits).
    pub reanalyse: bool,
    /// Redraw panels 3, 4 (α marker), 6 and 7 from the stored analysis.
    pub alpha: bool,
    /// Redraw panels 1, 2 and 5 (closed forms).
    pub curves: bool,
}

impl Controls {
    fn check_range(name: &str, v: f64, (lo, hi): (f64, f64)) -> Result<()> {
        if v.is_finite() && v >= lo && v <= hi {
            Ok(())
        } else {
            Err(Error::invalid(format!("{name} = {v} is outside [{lo}, {hi}]")))
        }
    }

    /// Checks every setting (and, in toy mode, the toy parameters).
    pub fn validate(&self) -> Result<()> {
        Self::check_range("α", self.alpha, ALPHA_RANGE)?;
        Self::check_range("β", self.beta, BETA_RANGE)?;
        Self::check_range("σ²", self.sigma2, SIGMA2_RANGE)?;
        if self.mode == Mode::Toy {
            self.toy_params().validate()?;
        } else {
            if self.splits == 0 {
                return Err(Error::invalid("the number of splits must be at least 1"));
            }
            if !(self.cal_fraction > 0.0 && self.cal_fraction < 1.0) {
                return Err(Error::invalid(format!(
                    "calibration fraction {} is not in (0, 1)",
                    self.cal_fraction
                )));
            }
        }
        Ok(())
    }

    /// The score options a mode opens with: parametric r-values for the toy and pooled ones for
    /// score files, as in the paper's experiments. The parametric prior is pooled over all items:
    /// with a per-item prior over the toy's ten candidates CP_r's sets hold 9.9 of 10 candidates
    /// at the defaults (README, findings), which hides what the page is meant to show.
    pub fn score_defaults(mode: Mode) -> ScoreOptions {
        let kind = match mode {
            Mode::Toy => RvalueKind::Parametric,
            Mode::Scores => RvalueKind::Pooled,
        };
        ScoreOptions { kind, prior: Prior::Pooled, ..ScoreOptions::default() }
    }

    /// Switches to `mode`, with that mode's default r-value kind; other settings stay.
    pub fn for_mode(&self, mode: Mode) -> Controls {
        if mode == self.mode {
            return self.clone();
        }
        let kind = Controls::score_defaults(mode).kind;
        Controls { mode, score: ScoreOptions { kind, ..self.score }, ..self.clone() }
    }

    /// The toy parameters with σ² taken from the slider.
    pub fn toy_params(&self) -> ToyParams {
        ToyParams { sigma2: self.sigma2, ..self.toy.clone() }
    }

    /// The score options of the core.
    pub fn score_options(&self) -> ScoreOptions {
        self.score
    }

    /// The split plan for score files (toy repeats carry their own split).
    pub fn split_plan(&self) -> SplitPlan {
        SplitPlan::Random { count: self.splits, cal_fraction: self.cal_fraction, seed: self.seed }
    }

    /// A calibration pool's split sizes (`conformal::pool`): each split calibrates on the
    /// calibration fraction of the pool's `n_pool` units (at least one), drawn at random, and
    /// tests on all `n_test` test items, which a pool keeps apart from calibration.
    pub fn pool_sizes(&self, n_pool: usize, n_test: usize) -> (usize, usize) {
        let cal = (n_pool as f64 * self.cal_fraction).round() as usize;
        (cal.clamp(1, n_pool.max(1)), n_test)
    }

    /// What moving from `self` to `new` requires.
    pub fn impact(&self, new: &Controls) -> Impact {
        let scores_changed = self.mode != new.mode
            || self.score_options() != new.score_options()
            || (new.mode == Mode::Toy && self.toy_params() != new.toy_params())
            || (new.mode == Mode::Scores && self.split_plan() != new.split_plan());
        Impact {
            reanalyse: scores_changed,
            alpha: scores_changed || self.alpha != new.alpha || self.never_empty != new.never_empty,
            curves: scores_changed
                || self.beta != new.beta
                || self.sigma2 != new.sigma2
                || self.alpha != new.alpha,
        }
    }
}
