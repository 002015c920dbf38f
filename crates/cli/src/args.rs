//! The command line's definition (clap): the commands, their options and the parsers of their
//! values.

use std::path::PathBuf;
use std::str::FromStr;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use rvalue_core::conformal::{Baseline, Coverage, Method, Prior, RvalueKind, ScoreOptions};
use rvalue_core::eb::Hyper;
use rvalue_core::options::{self, Choice};
use rvalue_core::probability::ScoresAre;
use rvalue_core::rvalue::{Algorithm, HyperChoice, LambdaRule, TieOrder};
use rvalue_core::tensor::VarianceKind;
use rvalue_core::toy::ToyParams;
use rvalue_gpu as gpu;

use crate::predict;

#[derive(Parser, Debug)]
#[command(
    name = "rvalue",
    version,
    about = "r-value conformal prediction: empirical Bayes r-values, split-conformal sets and the paper's toy",
    propagate_version = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Parametric r-values (Normal–Normal empirical Bayes) of units given as estimate and standard error
    Rank(RankArgs),
    /// Split-conformal coverage, set size, position and empty rate of CP, CP_avg, CP_r and the baselines
    Conformal(ConformalArgs),
    /// Write the prediction sets of one given split to a CSV file
    Sets(SetsArgs),
    /// Calibrate on labelled items, write the prediction sets of new, unlabelled ones
    Predict(predict::PredictArgs),
    /// The paper's toy setting: P(q > p) and a simulated conformal experiment
    Toy(ToyArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
pub(crate) enum FormatArg {
    Csv,
    Json,
}

/// clap's parser for a core option: the names of its values (listed by `--help` and in clap's
/// error for a bad value), read back by its `FromStr`. The option is defined once, in the core.
pub(crate) fn choice<T>() -> impl TypedValueParser<Value = T>
where
    T: Choice + FromStr<Err = rvalue_core::Error> + Send + Sync,
{
    PossibleValuesParser::new(options::names::<T>()).try_map(|s| s.parse::<T>())
}

#[derive(Args, Debug)]
pub(crate) struct RankArgs {
    /// CSV with a header holding 'estimate' and 'se' (standard error) columns; other columns are ignored
    #[arg(long, value_name = "UNITS.csv")]
    pub(crate) input: PathBuf,
    /// exact: the infimum over β to 1e-9; grid: the rvalues 0.7.1 log grid (R-compatible)
    #[arg(long, value_parser = choice::<Algorithm>(), default_value_t)]
    pub(crate) algorithm: Algorithm,
    /// model: the paper's λ_β; empirical: Henderson & Newton's (1 − β) quantile of V_β
    /// [default: model with --algorithm exact, empirical with --algorithm grid, which then gives
    /// the rvalues R package's r-values]
    #[arg(long, value_parser = choice::<LambdaRule>())]
    pub(crate) lambda: Option<LambdaRule>,
    /// Prior N(μ, τ²): 'estimate' (μ = mean, τ² by marginal ML) or fixed as MU,TAU2
    #[arg(long, value_name = "estimate|MU,TAU2", default_value = "estimate", value_parser = parse_hyper)]
    pub(crate) hyper: HyperChoice,
}

/// α, the methods, how they score and where: shared by `conformal` and `sets` (several methods,
/// [`MethodList`]) and `predict` (one, [`OneMethod`]).
#[derive(Args, Debug)]
pub(crate) struct ScoreArgs<M: Args = MethodList> {
    /// Miscoverage level α in (0, 1); sets aim at coverage 1 − α. conformal: a comma-separated
    /// list, one row per α and method, from the same splits
    #[arg(long, value_name = "A", value_parser = parse_alphas, allow_negative_numbers = true)]
    pub(crate) alpha: Alphas,
    #[command(flatten)]
    pub(crate) methods: M,
    #[command(flatten)]
    pub(crate) method: MethodArgs,
    /// Where nonparametric and pooled r-values rank draws: cpu, gpu (fails without an adapter),
    /// or auto (a hardware GPU if present, else the CPU); the output is the same on each
    #[arg(long, value_parser = choice::<gpu::Device>(), default_value = "auto")]
    pub(crate) device: gpu::Device,
    /// Threads for the CPU's work (default: every core); the output is the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) threads: Option<u16>,
    /// marginal: one threshold, coverage 1 − α on average over items; per-class: a threshold
    /// per class from its own calibration items (Mondrian), coverage 1 − α within each class
    #[arg(long, value_parser = choice::<Coverage>(), default_value_t)]
    pub(crate) coverage: Coverage,
}

impl<M: Args> ScoreArgs<M> {
    /// How the methods score and calibrate.
    pub(crate) fn options(&self) -> ScoreOptions {
        ScoreOptions { coverage: self.coverage, ..self.method.options() }
    }

    /// `--threads`, or every core the system offers.
    pub(crate) fn threads(&self) -> usize {
        self.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from)
    }
}

/// Which methods: shared by `conformal`, `sets` and `toy`.
#[derive(Args, Debug)]
pub(crate) struct MethodList {
    /// Methods, comma-separated, rows in this order: cp, cp-avg, cp-r and the baselines aps,
    /// raps, saps [default: cp,cp-avg,cp-r]
    #[arg(long = "method", value_name = "METHODS", value_delimiter = ',', value_parser = parse_method)]
    pub(crate) list: Vec<Method>,
}

/// The one method of `predict`, whose output has no method column.
#[derive(Args, Debug)]
pub(crate) struct OneMethod {
    /// The method, one of cp, cp-avg, cp-r, aps, raps, saps (run again for another)
    #[arg(long = "method", value_name = "METHOD", default_value = "cp-r", value_parser = parse_one_method)]
    pub(crate) one: Method,
}

/// How CP and CP_r score: shared by `conformal`, `sets`, `predict` and `toy`.
#[derive(Args, Debug)]
pub(crate) struct MethodArgs {
    /// CP_r's r-value: parametric (per item over its K candidates), nonparametric (draw ranks), pooled (with the calibration items)
    #[arg(long, value_parser = choice::<RvalueKind>(), default_value_t)]
    pub(crate) rvalue: RvalueKind,
    /// Variance in the parametric r-value: per-draw (s = v) or of-mean (s = v/M)
    #[arg(long, value_parser = choice::<VarianceKind>(), default_value_t)]
    pub(crate) variance: VarianceKind,
    /// Prior of the parametric r-value: one per item (the paper's) or pooled over all items
    #[arg(long, value_parser = choice::<Prior>(), default_value_t)]
    pub(crate) prior: Prior,
    /// Algorithm of the parametric r-value (exact or the rvalues 0.7.1 grid)
    #[arg(long, value_parser = choice::<Algorithm>(), default_value_t)]
    pub(crate) algorithm: Algorithm,
    /// λ rule of the parametric r-value (model or empirical)
    #[arg(long, value_parser = choice::<LambdaRule>(), default_value_t)]
    pub(crate) lambda: LambdaRule,
    /// The draw m0 whose scores CP uses
    #[arg(long, value_name = "M0", default_value_t = 0)]
    pub(crate) cp_draw: usize,
    /// Tie order of pooled r-values: exchangeable (seeded random, keeps coverage) or index
    /// (the authors' code: calibration units win ties, under-covers with few draws)
    #[arg(long, value_parser = choice::<TieOrder>(), default_value_t)]
    pub(crate) ties: TieOrder,
    /// Add the best candidate to an empty set (as the authors' LAC did)
    #[arg(long)]
    pub(crate) never_empty: bool,
    /// How APS, RAPS and SAPS read a draw's scores: logits and log-probabilities through a
    /// softmax, probabilities as given; auto: probabilities if every row is non-negative and
    /// sums to 1, log-probabilities if every value is ≤ 0 and each row's log-sum-exp is 0 (both
    /// within 0.01), else logits
    #[arg(long, value_parser = choice::<ScoresAre>(), default_value_t)]
    pub(crate) scores_are: ScoresAre,
    /// RAPS's penalty λ ≥ 0 per rank beyond --raps-kreg
    #[arg(long, value_name = "L", default_value_t = Baseline::default().raps_lambda, allow_negative_numbers = true)]
    pub(crate) raps_lambda: f64,
    /// RAPS's k_reg ≥ 0: ranks up to it are not penalised
    #[arg(long, value_name = "K", default_value_t = Baseline::default().raps_kreg, allow_negative_numbers = true)]
    pub(crate) raps_kreg: f64,
    /// SAPS's λ ≥ 0: the score's step per rank after the first
    #[arg(long, value_name = "L", default_value_t = Baseline::default().saps_lambda, allow_negative_numbers = true)]
    pub(crate) saps_lambda: f64,
    /// APS, RAPS and SAPS with u = 1 (the non-randomized variants) instead of u uniform, drawn
    /// from --seed by split, item and candidate
    #[arg(long)]
    pub(crate) deterministic: bool,
}

/// Where the scores and labels come from: shared by `conformal` and `sets`.
#[derive(Args, Debug)]
pub(crate) struct DataArgs {
    /// Scores S[n][m][k] (or [n][k], read as M = 1): .npy, .npz with 'scores' (and 'labels'), or long-form CSV
    #[arg(long, value_name = "S.npy")]
    pub(crate) scores: PathBuf,
    /// Labels y[n] in 0..K (.npy); optional when the scores file carries labels
    #[arg(long, value_name = "Y.npy")]
    pub(crate) labels: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct ConformalArgs {
    #[command(flatten)]
    pub(crate) data: DataArgs,
    #[command(flatten)]
    pub(crate) score: ScoreArgs,
    /// Number R of random calibration/test splits
    #[arg(long, value_name = "R", default_value_t = 100)]
    pub(crate) splits: usize,
    /// Seed of the random splits and of pooled r-values' exchangeable tie order
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Fraction of the items that calibrate in a random split, in (0, 1)
    #[arg(long, value_name = "F", default_value_t = 0.5)]
    pub(crate) cal_fraction: f64,
    /// Use this one split instead of random ones: a boolean mask [N] (.npy), true = calibration
    #[arg(long, value_name = "MASK.npy", conflicts_with_all = ["splits", "cal_fraction"])]
    pub(crate) split: Option<PathBuf>,
    /// Write each split's mask into DIR as split_<r>.npy (bool [N], true = calibration), which
    /// `--split` and Python read back
    #[arg(long, value_name = "DIR", conflicts_with = "calibration_true")]
    pub(crate) save_splits: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) calibration_true: CalibrationTrueArgs,
    /// With --calibration-true: calibration units per split, drawn at random from the true draws
    /// (--splits R splits); default: all the true draws and every test item, one split
    #[arg(long, value_name = "n", requires_all = ["calibration_true", "test_size"])]
    pub(crate) cal_size: Option<usize>,
    /// With --calibration-true and --cal-size: test items per split, drawn at random
    #[arg(long, value_name = "m", requires_all = ["calibration_true", "cal_size"])]
    pub(crate) test_size: Option<usize>,
    /// Output format
    #[arg(long, value_enum, default_value = "csv")]
    pub(crate) format: FormatArg,
}

/// Calibration given as true-label draws alone: shared by `conformal`, `sets` and `predict`.
#[derive(Args, Debug)]
pub(crate) struct CalibrationTrueArgs {
    /// Calibrate on these true-label draws [n_cal, M] (each calibration item's true-label score
    /// in each draw; float16/32/64) instead of on a split of --scores, which then holds the
    /// test items; CP, CP_avg and pooled CP_r only
    #[arg(long, value_name = "CAL.npy", conflicts_with = "split")]
    pub(crate) calibration_true: Option<PathBuf>,
    /// With --calibration-true: each true-draw unit's class [n_cal] (.npy), which --coverage
    /// per-class needs
    #[arg(long, value_name = "Y_CAL.npy", requires = "calibration_true")]
    pub(crate) calibration_labels: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct SetsArgs {
    #[command(flatten)]
    pub(crate) data: DataArgs,
    #[command(flatten)]
    pub(crate) score: ScoreArgs,
    /// The split: a boolean mask [N] (.npy), true = calibration, false = test; without it (and
    /// without --calibration-true), split --split-index of `conformal`'s seeded series
    #[arg(long, value_name = "MASK.npy", conflicts_with_all = ["cal_fraction", "split_index"])]
    pub(crate) split: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) calibration_true: CalibrationTrueArgs,
    /// Seed of the random split and of pooled r-values' exchangeable tie order (a --split mask
    /// is split 0 of it)
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub(crate) seed: u64,
    /// Fraction of the items that calibrate in the random split, in (0, 1)
    #[arg(long, value_name = "F", default_value_t = 0.5, conflicts_with = "calibration_true")]
    pub(crate) cal_fraction: f64,
    /// Which split of the seeded series: `conformal --seed S`'s split i (0 = its first)
    #[arg(long, value_name = "i", default_value_t = 0, conflicts_with = "calibration_true")]
    pub(crate) split_index: usize,
    /// Write the split's mask here (bool [N], true = calibration), for --split elsewhere
    #[arg(long, value_name = "MASK.npy", conflicts_with = "calibration_true")]
    pub(crate) save_split: Option<PathBuf>,
    /// Output CSV, one row per (method, test item, candidate in the set): method,item,candidate,score,position;
    /// an empty set is one row with candidate, score and position empty (required)
    #[arg(long, value_name = "SETS.csv")]
    pub(crate) output: PathBuf,
}

#[derive(Args, Debug)]
pub(crate) struct ToyArgs {
    /// Variance σ² of the high-variance false candidates' draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().sigma2)]
    pub(crate) sigma2: f64,
    /// Mean μp of the true candidate's draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().mu_p)]
    pub(crate) mu_p: f64,
    /// Variance σp² of the true candidate's draws (and of the low-variance false ones)
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().sigma2_p)]
    pub(crate) sigma2_p: f64,
    /// Mean μq of the false candidates' draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().mu_q)]
    pub(crate) mu_q: f64,
    /// Candidates K per item (candidate 0 is the true one)
    #[arg(long, value_name = "K", default_value_t = ToyParams::default().k)]
    pub(crate) k: usize,
    /// Draws M per item and candidate
    #[arg(long, value_name = "M", default_value_t = ToyParams::default().m)]
    pub(crate) m: usize,
    /// Calibration items per repeat
    #[arg(long, value_name = "N", default_value_t = ToyParams::default().n_cal)]
    pub(crate) n_cal: usize,
    /// Test items per repeat
    #[arg(long, value_name = "N", default_value_t = ToyParams::default().n_test)]
    pub(crate) n_test: usize,
    /// Independent repeats of the experiment
    #[arg(long, value_name = "R", default_value_t = ToyParams::default().repeats)]
    pub(crate) repeats: usize,
    /// Fraction h of the false candidates with variance σ² (the rest have σp²), in [0, 1]
    #[arg(long, value_name = "H", default_value_t = ToyParams::default().high_var_fraction)]
    pub(crate) high_var_fraction: f64,
    /// Seed of the simulator
    #[arg(long, value_name = "S", default_value_t = ToyParams::default().seed)]
    pub(crate) seed: u64,
    /// Miscoverage level α in (0, 1)
    #[arg(long, value_name = "A", default_value_t = 0.1, value_parser = parse_alpha, allow_negative_numbers = true)]
    pub(crate) alpha: f64,
    #[command(flatten)]
    pub(crate) methods: MethodList,
    #[command(flatten)]
    pub(crate) method: MethodArgs,
}

/// `--alpha`: one level, or (for `conformal`) several.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Alphas(pub(crate) Vec<f64>);

impl Alphas {
    /// The one level of a command that takes one (`sets`, `predict`).
    pub(crate) fn one(&self) -> Result<f64, crate::CliError> {
        match self.0[..] {
            [a] => Ok(a),
            _ => Err(crate::CliError("--alpha: one level only; conformal takes several".to_string())),
        }
    }
}

pub(crate) fn parse_alphas(s: &str) -> std::result::Result<Alphas, String> {
    s.split(',').map(parse_alpha).collect::<Result<Vec<_>, _>>().map(Alphas)
}

pub(crate) fn parse_alpha(s: &str) -> std::result::Result<f64, String> {
    let a: f64 = s.trim().parse().map_err(|_| "expected a number in (0, 1)".to_string())?;
    if a > 0.0 && a < 1.0 {
        Ok(a)
    } else {
        Err("α must be in (0, 1)".to_string())
    }
}

pub(crate) fn parse_method(s: &str) -> std::result::Result<Method, String> {
    s.trim().parse::<Method>().map_err(|_| "expected cp, cp-avg, cp-r, aps, raps or saps".to_string())
}

/// `--method` of `predict`: one name; a list gets a message of its own, not "unknown method".
pub(crate) fn parse_one_method(s: &str) -> std::result::Result<Method, String> {
    if s.contains(',') {
        return Err("one method only; the sets of each method need a run of their own".to_string());
    }
    parse_method(s)
}

pub(crate) fn parse_hyper(s: &str) -> std::result::Result<HyperChoice, String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("estimate") {
        return Ok(HyperChoice::Estimate);
    }
    let bad = || "expected 'estimate' or MU,TAU2 (two numbers, τ² ≥ 0)".to_string();
    let (mu, tau2) = s.split_once(',').ok_or_else(bad)?;
    let mu: f64 = mu.trim().parse().map_err(|_| bad())?;
    let tau2: f64 = tau2.trim().parse().map_err(|_| bad())?;
    let h = Hyper::fixed(mu, tau2).map_err(|e| e.to_string())?;
    Ok(HyperChoice::Fixed(h))
}

impl MethodArgs {
    pub(crate) fn options(&self) -> ScoreOptions {
        ScoreOptions {
            kind: self.rvalue,
            variance: self.variance,
            prior: self.prior,
            algorithm: self.algorithm,
            lambda: self.lambda,
            cp_draw: self.cp_draw,
            ties: self.ties,
            coverage: Coverage::Marginal,
            scores_are: self.scores_are,
            baseline: Baseline {
                raps_lambda: self.raps_lambda,
                raps_kreg: self.raps_kreg,
                saps_lambda: self.saps_lambda,
                randomized: !self.deterministic,
            },
        }
    }
}
