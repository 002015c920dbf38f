//! Every setting of the page ([`Controls`]), its defaults, and what a change of them requires
//! ([`Impact`]). How each setting is named, shown and checked is the one table in [`table`].

pub mod table;

use rvalue_core::conformal::{Method, ScoreOptions, SplitPlan};
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
    /// Which baselines run beside the paper's three, in `Method::BASELINES` order (APS, RAPS,
    /// SAPS); none by default, so that the paper's methods are the first view.
    pub baselines: [bool; 3],
    /// Panel 2's y axis fits the whole curve up to the largest σ² rather than zooming on its
    /// dip (default off). A view only: nothing is recomputed.
    pub whole_curve: bool,
    /// Panel 5's CP_r threshold: the calibrated `r̂` (default) or β. A view only.
    pub cut: crate::CutFrom,
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
            baselines: [false; 3],
            whole_curve: false,
            cut: crate::CutFrom::Calibrated,
        }
    }
}

/// What a change of [`Controls`] requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Impact {
    /// Scores change: run a new [`AnalysisJob`](crate::AnalysisJob) (toy re-simulation, r-values, splits).
    pub reanalyse: bool,
    /// Redraw panels 3, 4 (α marker), 6 and 7 from the stored analysis.
    pub alpha: bool,
    /// Redraw panels 1, 2 and 5 (closed forms).
    pub curves: bool,
    /// On a score file the variance choice changed what σ² measures: the σ² marker starts again
    /// at the data's median variance.
    pub sigma2_from_data: bool,
}

impl Controls {
    /// Checks every setting of the mode against its row of [`table::CONTROLS`] and, in toy
    /// mode, the toy parameters together (the core's limits on the simulated tensor). Settings
    /// of the other mode do not apply, so they do not block this one.
    pub fn validate(&self) -> Result<()> {
        for control in table::CONTROLS.iter().filter(|c| c.mode.is_none_or(|m| m == self.mode)) {
            if let Err(p) = control.check(self) {
                return Err(Error::invalid(format!("{}: '{}' {p}", control.name, control.text(self))));
            }
        }
        if self.mode == Mode::Toy {
            self.toy_params().validate()?;
        }
        Ok(())
    }

    /// The score options a mode opens with: the core's defaults, every face's (parametric
    /// r-values with a prior pooled over the items; docs/method.md §5), in both modes, so the
    /// page opens a file with the settings the CLI and Python use.
    pub fn score_defaults(_mode: Mode) -> ScoreOptions {
        ScoreOptions::default()
    }

    /// Switches to `mode`, with that mode's default r-value kind; other settings stay, except
    /// σ²: in toy mode it is a parameter of the simulation, on a score file only a marker (which
    /// starts at the data's median variance), so the toy's σ² is kept in `toy.sigma2` while a
    /// score file is on show and comes back with the toy.
    pub fn for_mode(&self, mode: Mode) -> Controls {
        if mode == self.mode {
            return self.clone();
        }
        let kind = Controls::score_defaults(mode).kind;
        let (sigma2, toy) = match mode {
            Mode::Scores => (self.sigma2, ToyParams { sigma2: self.sigma2, ..self.toy.clone() }),
            Mode::Toy => (self.toy.sigma2, self.toy.clone()),
        };
        Controls { mode, sigma2, toy, score: ScoreOptions { kind, ..self.score }, ..self.clone() }
    }

    /// The toy parameters with σ² taken from the slider.
    pub fn toy_params(&self) -> ToyParams {
        ToyParams { sigma2: self.sigma2, ..self.toy.clone() }
    }

    /// The methods the analysis runs: the paper's three, then the baselines that are on.
    pub fn methods(&self) -> Vec<Method> {
        let on = Method::BASELINES.into_iter().zip(self.baselines).filter_map(|(m, on)| on.then_some(m));
        Method::PAPER.into_iter().chain(on).collect()
    }

    /// The score options of the core.
    pub fn score_options(&self) -> ScoreOptions {
        self.score
    }

    /// The split plan for score files (toy repeats carry their own split).
    pub fn split_plan(&self) -> SplitPlan {
        SplitPlan::Random { count: self.splits, cal_fraction: self.cal_fraction, seed: self.seed }
    }

    /// Split sizes on calibration-true draws (`conformal::true_draws`): each split calibrates on the
    /// calibration fraction of the `n_units` units (at least one), drawn at random, and tests
    /// on all `n_test` test items, which true-label draws keep apart from calibration.
    pub fn true_draws_sizes(&self, n_units: usize, n_test: usize) -> (usize, usize) {
        let cal = (n_units as f64 * self.cal_fraction).round() as usize;
        (cal.clamp(1, n_units.max(1)), n_test)
    }

    /// What moving from `self` to `new` requires.
    pub fn impact(&self, new: &Controls) -> Impact {
        let scores_changed = self.mode != new.mode
            || self.score_options() != new.score_options()
            || self.baselines != new.baselines
            || (new.mode == Mode::Toy && self.toy_params() != new.toy_params())
            || (new.mode == Mode::Scores && self.split_plan() != new.split_plan());
        Impact {
            reanalyse: scores_changed,
            alpha: scores_changed || self.alpha != new.alpha || self.never_empty != new.never_empty,
            curves: scores_changed
                || self.beta != new.beta
                || self.sigma2 != new.sigma2
                || self.alpha != new.alpha,
            sigma2_from_data: new.mode == Mode::Scores
                && self.mode == Mode::Scores
                && self.score.variance != new.score.variance,
        }
    }
}
