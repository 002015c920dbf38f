//! rvalue-cli: the `rvalue` command line (docs/method.md §9): `rank`, `conformal`, `sets`,
//! `predict` and `toy`. [`main`] is the entry point (the `rvalue` bin calls it); the numbers come
//! from `rvalue-core`, `--device` routes rank-based r-values through `rvalue-gpu`.
//!
//! Exit status 0 on success; on any bad input one line `rvalue: <message>` on stderr and status 2
//! (clap's own usage errors included); `--help` on every subcommand prints to stdout, status 0.

mod interrupt;
mod output;
mod pool;
mod predict;
mod streamed;
mod units;

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};

use output::Progress;
use rvalue_core::conformal::{
    self, Calibrated, Method, Prepared, Prior, RvalueKind, ScoreOptions, Split, SplitMetrics, SplitPlan,
    Summary,
};
use rvalue_core::eb::Hyper;
use rvalue_core::io::{self, Dataset};
use rvalue_core::options::{self, Choice};
use rvalue_core::rvalue::{self, Algorithm, DrawOrder, HyperChoice, LambdaRule, TieOrder};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::tensor::VarianceKind;
use rvalue_core::toy::{self, ToyParams};
use rvalue_gpu as gpu;

/// The one warning of docs/method.md §8 for single-draw data.
const SINGLE_DRAW_WARNING: &str = "M = 1: only CP and CP_avg are meaningful";

#[derive(Parser, Debug)]
#[command(
    name = "rvalue",
    version,
    about = "r-value conformal prediction: empirical Bayes r-values, split-conformal sets and the paper's toy",
    propagate_version = true,
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parametric r-values (Normal–Normal empirical Bayes) of units given as estimate and standard error
    Rank(RankArgs),
    /// Split-conformal coverage, set size, position and empty rate of CP, CP_avg and CP_r
    Conformal(ConformalArgs),
    /// Write the prediction sets of one given split to a CSV file
    Sets(SetsArgs),
    /// Calibrate on labelled items, write the prediction sets of new, unlabelled ones
    Predict(predict::PredictArgs),
    /// The paper's toy setting: P(q > p) and a simulated conformal experiment
    Toy(ToyArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq)]
enum FormatArg {
    Csv,
    Json,
}

/// clap's parser for a core option: the names of its values (listed by `--help` and in clap's
/// error for a bad value), read back by its `FromStr`. The option is defined once, in the core.
fn choice<T>() -> impl TypedValueParser<Value = T>
where
    T: Choice + FromStr<Err = rvalue_core::Error> + Send + Sync,
{
    PossibleValuesParser::new(options::names::<T>()).try_map(|s| s.parse::<T>())
}

#[derive(Args, Debug)]
struct RankArgs {
    /// CSV with a header holding 'estimate' and 'se' (standard error) columns; other columns are ignored
    #[arg(long, value_name = "UNITS.csv")]
    input: PathBuf,
    /// exact: the infimum over β to 1e-9; grid: the rvalues 0.7.1 log grid (R-compatible)
    #[arg(long, value_parser = choice::<Algorithm>(), default_value_t)]
    algorithm: Algorithm,
    /// model: the paper's λ_β; empirical: Henderson & Newton's (1 − β) quantile of V_β
    /// [default: model with --algorithm exact, empirical with --algorithm grid, which then gives
    /// the rvalues R package's r-values]
    #[arg(long, value_parser = choice::<LambdaRule>())]
    lambda: Option<LambdaRule>,
    /// Prior N(μ, τ²): 'estimate' (μ = mean, τ² by marginal ML) or fixed as MU,TAU2
    #[arg(long, value_name = "estimate|MU,TAU2", default_value = "estimate", value_parser = parse_hyper)]
    hyper: HyperChoice,
}

/// α, the methods, how they score and where: shared by `conformal` and `sets` (several methods,
/// [`MethodList`]) and `predict` (one, [`OneMethod`]).
#[derive(Args, Debug)]
struct ScoreArgs<M: Args = MethodList> {
    /// Miscoverage level α in (0, 1); sets aim at coverage 1 − α
    #[arg(long, value_name = "A", value_parser = parse_alpha)]
    alpha: f64,
    #[command(flatten)]
    methods: M,
    #[command(flatten)]
    method: MethodArgs,
    /// Where nonparametric and pooled r-values rank draws: cpu, gpu (fails without an adapter),
    /// or auto (a hardware GPU if present, else the CPU); the output is the same on each
    #[arg(long, value_parser = choice::<gpu::Device>(), default_value = "auto")]
    device: gpu::Device,
    /// Threads for the CPU's work (default: every core); the output is the same for any number
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

impl<M: Args> ScoreArgs<M> {
    /// `--threads`, or every core the system offers.
    fn threads(&self) -> usize {
        self.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from)
    }
}

/// Which methods: shared by `conformal`, `sets` and `toy`.
#[derive(Args, Debug)]
struct MethodList {
    /// Methods, comma-separated, rows in this order [default: cp,cp-avg,cp-r]
    #[arg(long = "method", value_name = "METHODS", value_delimiter = ',', value_parser = parse_method)]
    list: Vec<Method>,
}

/// The one method of `predict`, whose output has no method column.
#[derive(Args, Debug)]
struct OneMethod {
    /// The method, one of cp, cp-avg, cp-r (run again for another)
    #[arg(long = "method", value_name = "METHOD", default_value = "cp-r", value_parser = parse_one_method)]
    one: Method,
}

/// How CP and CP_r score: shared by `conformal`, `sets`, `predict` and `toy`.
#[derive(Args, Debug)]
struct MethodArgs {
    /// CP_r's r-value: parametric (per item over its K candidates), nonparametric (draw ranks), pooled (with the calibration items)
    #[arg(long, value_parser = choice::<RvalueKind>(), default_value_t)]
    rvalue: RvalueKind,
    /// Variance in the parametric r-value: per-draw (s = v) or of-mean (s = v/M)
    #[arg(long, value_parser = choice::<VarianceKind>(), default_value_t)]
    variance: VarianceKind,
    /// Prior of the parametric r-value: one per item (the paper's) or pooled over all items
    #[arg(long, value_parser = choice::<Prior>(), default_value_t)]
    prior: Prior,
    /// Algorithm of the parametric r-value (exact or the rvalues 0.7.1 grid)
    #[arg(long, value_parser = choice::<Algorithm>(), default_value_t)]
    algorithm: Algorithm,
    /// λ rule of the parametric r-value (model or empirical)
    #[arg(long, value_parser = choice::<LambdaRule>(), default_value_t)]
    lambda: LambdaRule,
    /// The draw m0 whose scores CP uses
    #[arg(long, value_name = "M0", default_value_t = 0)]
    cp_draw: usize,
    /// Tie order of pooled r-values: exchangeable (seeded random, keeps coverage) or index
    /// (the authors' code: calibration units win ties, under-covers with few draws)
    #[arg(long, value_parser = choice::<TieOrder>(), default_value_t)]
    ties: TieOrder,
    /// Add the best candidate to an empty set (as the authors' LAC did)
    #[arg(long)]
    never_empty: bool,
}

/// Where the scores and labels come from: shared by `conformal` and `sets`.
#[derive(Args, Debug)]
struct DataArgs {
    /// Scores S[n][m][k] (or [n][k], read as M = 1): .npy, .npz with 'scores' (and 'labels'), or long-form CSV
    #[arg(long, value_name = "S.npy")]
    scores: PathBuf,
    /// Labels y[n] in 0..K (.npy); optional when the scores file carries labels
    #[arg(long, value_name = "Y.npy")]
    labels: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ConformalArgs {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    score: ScoreArgs,
    /// Number R of random calibration/test splits
    #[arg(long, value_name = "R", default_value_t = 100)]
    splits: usize,
    /// Seed of the random splits and of pooled r-values' exchangeable tie order
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Fraction of the items that calibrate in a random split, in (0, 1)
    #[arg(long, value_name = "F", default_value_t = 0.5)]
    cal_fraction: f64,
    /// Use this one split instead of random ones: a boolean mask [N] (.npy), true = calibration
    #[arg(long, value_name = "MASK.npy", conflicts_with_all = ["splits", "cal_fraction"])]
    split: Option<PathBuf>,
    #[command(flatten)]
    pool: PoolArgs,
    /// With --calibration-true: calibration units per split, drawn at random from the pool
    /// (--splits R splits); default: the whole pool and every test item, one split
    #[arg(long, value_name = "n", requires_all = ["calibration_true", "test_size"])]
    cal_size: Option<usize>,
    /// With --calibration-true and --cal-size: test items per split, drawn at random
    #[arg(long, value_name = "m", requires_all = ["calibration_true", "cal_size"])]
    test_size: Option<usize>,
    /// Output format
    #[arg(long, value_enum, default_value = "csv")]
    format: FormatArg,
}

/// Calibration given as true-label draws alone: shared by `conformal`, `sets` and `predict`.
#[derive(Args, Debug)]
struct PoolArgs {
    /// Calibrate on these true-label draws [n_cal, M] (each calibration item's true-label score
    /// in each draw; float16/32/64) instead of on a split of --scores, which then holds the
    /// test items; CP, CP_avg and pooled CP_r only
    #[arg(long, value_name = "CAL.npy", conflicts_with = "split")]
    calibration_true: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct SetsArgs {
    #[command(flatten)]
    data: DataArgs,
    #[command(flatten)]
    score: ScoreArgs,
    /// The split: a boolean mask [N] (.npy), true = calibration, false = test (required unless
    /// --calibration-true)
    #[arg(long, value_name = "MASK.npy", required_unless_present = "calibration_true")]
    split: Option<PathBuf>,
    #[command(flatten)]
    pool: PoolArgs,
    /// Seed of pooled r-values' exchangeable tie order (the split is split 0 of it)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Output CSV, one row per (method, test item, candidate in the set): method,item,candidate,score,position (required)
    #[arg(long, value_name = "SETS.csv")]
    output: PathBuf,
}

#[derive(Args, Debug)]
struct ToyArgs {
    /// Variance σ² of the high-variance false candidates' draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().sigma2)]
    sigma2: f64,
    /// Mean μp of the true candidate's draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().mu_p)]
    mu_p: f64,
    /// Variance σp² of the true candidate's draws (and of the low-variance false ones)
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().sigma2_p)]
    sigma2_p: f64,
    /// Mean μq of the false candidates' draws
    #[arg(long, value_name = "V", default_value_t = ToyParams::default().mu_q)]
    mu_q: f64,
    /// Candidates K per item (candidate 0 is the true one)
    #[arg(long, value_name = "K", default_value_t = ToyParams::default().k)]
    k: usize,
    /// Draws M per item and candidate
    #[arg(long, value_name = "M", default_value_t = ToyParams::default().m)]
    m: usize,
    /// Calibration items per repeat
    #[arg(long, value_name = "N", default_value_t = ToyParams::default().n_cal)]
    n_cal: usize,
    /// Test items per repeat
    #[arg(long, value_name = "N", default_value_t = ToyParams::default().n_test)]
    n_test: usize,
    /// Independent repeats of the experiment
    #[arg(long, value_name = "R", default_value_t = ToyParams::default().repeats)]
    repeats: usize,
    /// Fraction h of the false candidates with variance σ² (the rest have σp²), in [0, 1]
    #[arg(long, value_name = "H", default_value_t = ToyParams::default().high_var_fraction)]
    high_var_fraction: f64,
    /// Seed of the simulator
    #[arg(long, value_name = "S", default_value_t = ToyParams::default().seed)]
    seed: u64,
    /// Miscoverage level α in (0, 1)
    #[arg(long, value_name = "A", default_value_t = 0.1, value_parser = parse_alpha)]
    alpha: f64,
    #[command(flatten)]
    methods: MethodList,
    #[command(flatten)]
    method: MethodArgs,
}

/// A one-line message for the user; `main` prints it as `rvalue: <message>` and exits 2.
#[derive(Debug)]
struct CliError(String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, whatever the source said.
        let one: Vec<&str> = self.0.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect();
        f.write_str(&one.join(" "))
    }
}

impl From<rvalue_core::Error> for CliError {
    fn from(e: rvalue_core::Error) -> Self {
        CliError(e.to_string())
    }
}

type CliResult<T> = std::result::Result<T, CliError>;

fn fail<T>(msg: impl Into<String>) -> CliResult<T> {
    Err(CliError(msg.into()))
}

fn parse_alpha(s: &str) -> std::result::Result<f64, String> {
    let a: f64 = s.trim().parse().map_err(|_| "expected a number in (0, 1)".to_string())?;
    if a > 0.0 && a < 1.0 {
        Ok(a)
    } else {
        Err("α must be in (0, 1)".to_string())
    }
}

fn parse_method(s: &str) -> std::result::Result<Method, String> {
    s.trim().parse::<Method>().map_err(|_| "expected cp, cp-avg or cp-r".to_string())
}

/// `--method` of `predict`: one name; a list gets a message of its own, not "unknown method".
fn parse_one_method(s: &str) -> std::result::Result<Method, String> {
    if s.contains(',') {
        return Err("one method only; the sets of each method need a run of their own".to_string());
    }
    parse_method(s)
}

fn parse_hyper(s: &str) -> std::result::Result<HyperChoice, String> {
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

/// Runs the command line; returns the process exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    // The commands that write files remove their partial output on Ctrl-C or SIGTERM; the
    // others keep the default (the process ends at once, with nothing to clean up).
    if matches!(cli.command, Command::Sets(_) | Command::Predict(_)) {
        interrupt::install();
    }
    let result = match cli.command {
        Command::Rank(a) => run_rank(&a),
        Command::Conformal(a) => run_conformal(&a),
        Command::Sets(a) => run_sets(&a),
        Command::Predict(a) => predict::run(&a),
        Command::Toy(a) => run_toy(&a),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rvalue: {e}");
            2
        }
    }
}

/// Help and version go to stdout with status 0; every other clap error becomes one line, status 2.
fn clap_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            0
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!(
                "rvalue: no command given; expected rank, conformal, sets, predict or toy (see rvalue --help)"
            );
            2
        }
        _ => {
            // Point at the help of the subcommand in use, if any.
            let sub = std::env::args()
                .skip(1)
                .find(|a| ["rank", "conformal", "sets", "predict", "toy"].contains(&a.as_str()))
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            eprintln!("rvalue: {} (see rvalue{sub} --help)", clap_message(&e.render().to_string()));
            2
        }
    }
}

/// Clap's multi-line error as one line: its text up to the usage, without `error:`, tips and
/// the "for more information" hint.
fn clap_message(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines().map(str::trim) {
        if line.starts_with("Usage:") {
            break;
        }
        if line.is_empty() || line.starts_with("tip:") || line.starts_with("For more information") {
            continue;
        }
        parts.push(line.strip_prefix("error:").unwrap_or(line).trim());
    }
    parts.join(" ")
}

fn read_file(path: &Path) -> CliResult<Vec<u8>> {
    std::fs::read(path).map_err(|e| CliError(format!("{}: cannot read: {e}", path.display())))
}

/// Writes `bytes` to `path` whole or not at all ([`interrupt::write`]).
fn write_file(path: &Path, bytes: &[u8]) -> CliResult<()> {
    Ok(interrupt::write(path, bytes)?)
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// Writes all of `text` to stdout; a closed pipe (`| head`) is not an error.
fn print_stdout(text: &str) -> CliResult<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => fail(format!("writing to stdout: {e}")),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// rank

/// `rank`'s λ rule when `--lambda` is not given: who asks for the grid asks for the rvalues R
/// package's numbers, and the package uses the empirical rule (docs/method.md §9).
fn rank_lambda(algorithm: Algorithm, lambda: Option<LambdaRule>) -> LambdaRule {
    lambda.unwrap_or(match algorithm {
        Algorithm::Exact => LambdaRule::Model,
        Algorithm::Grid => LambdaRule::Empirical,
    })
}

fn run_rank(a: &RankArgs) -> CliResult<()> {
    let file = display(&a.input);
    let u = units::parse_units(&file, &read_file(&a.input)?)?;
    let s: Vec<f64> = u.se.iter().map(|se| se * se).collect();
    let lambda = rank_lambda(a.algorithm, a.lambda);
    let p = rvalue::parametric(&u.estimate, &s, a.hyper, a.algorithm, lambda)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let mut out = String::from("estimate,se,post_mean,post_sd,rvalue\n");
    for i in 0..u.estimate.len() {
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            u.estimate[i], u.se[i], p.post_mean[i], p.post_sd[i], p.rvalue[i]
        ));
    }
    print_stdout(&out)
}

// ---------------------------------------------------------------------------------------------
// conformal and sets

/// A `.npy` is streamed into its tensor, never held as bytes beside it.
fn read_scores_file(path: &Path) -> CliResult<Dataset> {
    Ok(io::read_scores_file(path)?)
}

/// The labels of `data` (read from `scores`): from the file `given` by option `flag`, else the
/// ones `data` carried (taken out of it).
fn labels_of(data: &mut Dataset, scores: &Path, given: Option<&Path>, flag: &str) -> CliResult<Vec<usize>> {
    let (n, k) = (data.scores.n(), data.scores.k());
    labels_or(data.labels.take(), given, (n, k), || no_labels(scores, flag))
}

/// Labels of `n` items in `0..k`: from the file `given`, else those the scores `carried`, else
/// what `missing` says.
fn labels_or(
    carried: Option<Vec<usize>>,
    given: Option<&Path>,
    (n, k): (usize, usize),
    missing: impl FnOnce() -> CliResult<Vec<usize>>,
) -> CliResult<Vec<usize>> {
    match (given, carried) {
        (Some(path), _) => Ok(io::read_labels(&display(path), &read_file(path)?, n, k)?),
        (None, Some(l)) => Ok(l),
        (None, None) => missing(),
    }
}

/// The scores at `scores` carry no labels and option `flag` gave none.
fn no_labels<T>(scores: &Path, flag: &str) -> CliResult<T> {
    fail(format!(
        "{}: the scores carry no labels; give {flag} Y.npy (or an .npz with a 'labels' member, \
         or a long-form CSV with a 'label' column)",
        display(scores)
    ))
}

fn read_split(path: &Path, n: usize) -> CliResult<Split> {
    let mask = io::read_mask(&display(path), &read_file(path)?, n)?;
    Split::from_mask(&mask).map_err(|e| CliError(format!("{}: {e}", display(path))))
}

/// The methods in the given order (default all three), refusing duplicates.
fn methods_of(given: &[Method]) -> CliResult<Vec<Method>> {
    if given.is_empty() {
        return Ok(Method::ALL.to_vec());
    }
    for (i, m) in given.iter().enumerate() {
        if given[..i].contains(m) {
            return fail(format!("--method lists {} twice", m.name()));
        }
    }
    Ok(given.to_vec())
}

impl MethodArgs {
    fn options(&self) -> ScoreOptions {
        ScoreOptions {
            kind: self.rvalue,
            variance: self.variance,
            prior: self.prior,
            algorithm: self.algorithm,
            lambda: self.lambda,
            cp_draw: self.cp_draw,
            ties: self.ties,
        }
    }
}

/// Notes on data that is accepted but limits what the results mean. Called once every input is
/// read, so that a refused file still gets a message of one line only.
fn warn_data(m: usize, k: usize, methods: &[Method]) {
    warn_single_draw(m, methods);
    if k == 1 {
        eprintln!(
            "rvalue: warning: K = 1: one candidate, so every prediction set is that candidate or empty"
        );
    }
}

fn warn_single_draw(m: usize, methods: &[Method]) {
    if m == 1 && methods.contains(&Method::CpR) {
        eprintln!("rvalue: warning: {SINGLE_DRAW_WARNING}");
    }
}

/// The GPU that ranks draws for CP_r's rank-based r-values, if `--device` and the machine
/// give one, with the tensor's sort keys. Results are the same as the CPU's (`gpu` module).
struct Ranker {
    gpu: Option<(gpu::Gpu, gpu::keys::Keys)>,
    /// `--device gpu`: a GPU failure is an error; with `auto` the CPU takes over.
    required: bool,
}

/// Opening the GPU, started on a thread of its own before the data are read: creating a Vulkan
/// instance and listing its adapters takes about a tenth of a second, as long as reading a
/// large score file, so the two overlap.
struct Probe {
    device: gpu::Device,
    opening: Option<std::thread::JoinHandle<rvalue_core::Result<Opened>>>,
}

/// What `gpu::open` gives: the GPU, or why the CPU ranks instead.
type Opened = (Option<gpu::Gpu>, Option<String>);

impl Probe {
    /// Starts opening the GPU if `--device` allows one and a method ranks draws.
    fn start(device: gpu::Device, methods: &[Method], opts: &ScoreOptions) -> Probe {
        if device == gpu::Device::Cpu || !conformal::needs_draw_orders(methods, opts) {
            return Probe { device, opening: None };
        }
        // Before the thread starts: it sets an environment variable.
        gpu::quiet_device_select();
        Probe { device, opening: Some(std::thread::spawn(move || gpu::open(device))) }
    }

    /// The ranker for `t`, once the GPU is open (or known to be absent).
    fn finish(self, t: &ScoreTensor) -> CliResult<Ranker> {
        let (g, required) = self.open()?;
        Ok(Ranker { gpu: g.map(|g| (g, gpu::keys::Keys::of_tensor(t))), required })
    }

    /// The GPU once open (or `None`: the CPU ranks), and whether `--device gpu` asked for it.
    fn open(self) -> CliResult<(Option<gpu::Gpu>, bool)> {
        let required = self.device == gpu::Device::Gpu;
        let Some(opening) = self.opening else { return Ok((None, required)) };
        let (g, _why_cpu) = match opening.join() {
            Ok(opened) => opened?,
            Err(_) if required => return Err(CliError("the GPU could not be opened".into())),
            Err(_) => (None, None),
        };
        Ok((g, required))
    }
}

impl Ranker {
    /// A GPU failure: an error under `--device gpu`, else a warning and the CPU from now on.
    fn failed(&mut self, e: rvalue_core::Error) -> CliResult<()> {
        if self.required {
            return Err(e.into());
        }
        eprintln!("rvalue: warning: {e}; using the CPU");
        self.gpu = None;
        Ok(())
    }

    /// Calibrated scores of `method` on every split, on the GPU when there is one and the
    /// method ranks draws; `None` when the CPU should do it.
    fn calibrate_each(
        &mut self,
        prep: &Pass<'_>,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        each: &mut dyn FnMut(usize, Calibrated),
    ) -> CliResult<Option<usize>> {
        let Some((g, keys)) = &self.gpu else { return Ok(None) };
        if method != Method::CpR {
            return Ok(None);
        }
        let (t, labels) = (prep.t, prep.labels);
        match opts.kind {
            RvalueKind::Parametric => Ok(None),
            RvalueKind::Nonparametric => match gpu::nonparametric_rvalues(g, t, keys) {
                Ok(scores) => {
                    for (r, split) in splits.iter().enumerate() {
                        each(r, Calibrated::fixed(&scores, t.k(), labels, split));
                    }
                    Ok(Some(splits.len()))
                }
                Err(e) => self.failed(e).map(|()| Some(0)),
            },
            RvalueKind::Pooled => {
                for (r, split) in splits.iter().enumerate() {
                    match gpu::pooled_calibrated(g, t, keys, labels, split, opts.ties) {
                        Ok(c) => each(r, c),
                        Err(e) => return self.failed(e).map(|()| Some(r)),
                    }
                }
                Ok(Some(splits.len()))
            }
        }
    }
}

/// One method's pass over the data: the scores and labels, and the draw orders if the CPU ranks
/// draws for it. Each method's pass builds what it needs and frees it, so that no two passes'
/// inputs are held beside a large tensor at once (summaries are made and freed inside the pass).
pub(crate) struct Pass<'a> {
    t: &'a ScoreTensor,
    labels: &'a [usize],
    order: Option<DrawOrder>,
}

/// The most memory the draw orders may take to be kept for a whole pass (two bytes per score).
/// Larger ones are not kept: each split then sorts its test items' draws again, a small part of
/// a pooled split's time, where a large tensor's orders take half the memory of its f32 scores.
const MAX_ORDER_BYTES: usize = 64 << 20;

impl<'a> Pass<'a> {
    pub(crate) fn new(
        t: &'a ScoreTensor,
        labels: &'a [usize],
        method: Method,
        opts: &ScoreOptions,
        ranker: &Ranker,
    ) -> CliResult<Self> {
        let ranks = conformal::needs_draw_orders(&[method], opts) && ranker.gpu.is_none();
        let bytes = t.n() * t.m() * t.k() * std::mem::size_of::<u16>();
        Ok(Pass {
            t,
            labels,
            order: if ranks && bytes <= MAX_ORDER_BYTES { Some(DrawOrder::of(t)?) } else { None },
        })
    }
}

/// Calls `each` with the calibrated scores of `method` on every split in turn, with progress.
#[allow(clippy::too_many_arguments)] // each is one of the run's settings
fn for_each_split(
    prep: &Pass<'_>,
    ranker: &mut Ranker,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    progress: &mut Progress,
    mut each: impl FnMut(Calibrated),
) -> CliResult<()> {
    let label = format!("{}: splits", method.name());
    progress.show(&format!("{}: scoring…", method.name()));
    let mut report = |r: usize, c: Calibrated| {
        progress.count(&label, r + 1, splits.len());
        each(c);
    };
    // The GPU does what it can; the CPU does the splits it did not get to.
    let done = ranker.calibrate_each(prep, method, opts, splits, &mut report)?.unwrap_or(0);
    if done < splits.len() {
        let (t, labels, order) = (prep.t, prep.labels, prep.order.as_ref());
        let rest = &splits[done..];
        conformal::calibrate_each_lean(t, labels, order, method, opts, rest, threads, |r, c| {
            report(done + r, c)
        })?;
    }
    progress.count(&label, splits.len(), splits.len());
    Ok(())
}

fn run_conformal(a: &ConformalArgs) -> CliResult<()> {
    let methods = methods_of(&a.score.methods.list)?;
    let opts = a.score.method.options();
    let at = (a.score.alpha, a.score.method.never_empty, a.score.threads());
    if let Some(path) = &a.pool.calibration_true {
        let pool = pool::read_pool(path)?;
        let (test, labels) = pool::test_items(&a.data)?;
        let (_, m, k) = streamed::shape(&test);
        warn_data(m, k, &methods);
        let sizes = a.cal_size.zip(a.test_size);
        let count = if sizes.is_some() { a.splits } else { 1 };
        let rows = pool::summaries(&pool, &test, &labels, &methods, &opts, (sizes, count, a.seed), at)?;
        return print_rows(a.format, &rows);
    }
    let probe = Probe::start(a.score.device, &methods, &opts);
    let pooled = methods.contains(&Method::CpR) && opts.kind == RvalueKind::Pooled;
    let (scores, labels) = streamed::open_scores(&a.data, a.score.device, pooled)?;
    let (n, m, k) = streamed::shape(&scores);
    let plan = match &a.split {
        Some(path) => SplitPlan::Fixed(read_split(path, n)?.keyed(a.seed, 0)),
        None => SplitPlan::Random { count: a.splits, cal_fraction: a.cal_fraction, seed: a.seed },
    };
    warn_data(m, k, &methods);
    let splits = plan.splits(n)?;
    let rows = match &scores {
        streamed::Scores::Streamed(file) => {
            let ranker = streamed::GpuBlocks::of(probe.open()?);
            let at = streamed::At { alpha: at.0, never_empty: at.1, threads: at.2, ranker: ranker.as_ref() };
            streamed::summaries(file, &labels, &methods, &opts, &splits, &at)?
        }
        streamed::Scores::Whole(data) => {
            let ranker = probe.finish(&data.scores)?;
            whole_summaries(&data.scores, &labels, ranker, &methods, &opts, &splits, at)?
        }
    };
    print_rows(a.format, &rows)
}

fn print_rows(format: FormatArg, rows: &[Summary]) -> CliResult<()> {
    print_stdout(&match format {
        FormatArg::Csv => output::summary_csv(rows),
        FormatArg::Json => output::summary_json(rows),
    })
}

/// `conformal`'s rows for a tensor held in memory, each method's splits on the GPU where it ranks.
fn whole_summaries(
    t: &ScoreTensor,
    labels: &[usize],
    mut ranker: Ranker,
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    (alpha, never_empty, threads): (f64, bool, usize),
) -> CliResult<Vec<Summary>> {
    conformal::check_data(t, labels)?;
    let mut progress = Progress::new();
    let mut rows = Vec::with_capacity(methods.len());
    for &method in methods {
        let (mut metrics, mut sizes) = (Vec::new(), Vec::new());
        let prep = Pass::new(t, labels, method, opts, &ranker)?;
        for_each_split(&prep, &mut ranker, method, opts, splits, threads, &mut progress, |c| {
            metrics.push(c.metrics(alpha, never_empty));
            sizes.push(c.sizes(alpha, never_empty));
        })?;
        rows.push(conformal::summarize(method, alpha, &metrics, &sizes, t.k()));
    }
    progress.clear();
    Ok(rows)
}

fn run_sets(a: &SetsArgs) -> CliResult<()> {
    let methods = methods_of(&a.score.methods.list)?;
    let opts = a.score.method.options();
    let at = (a.score.alpha, a.score.method.never_empty, a.score.threads());
    let (split, path) = match (&a.split, &a.pool.calibration_true) {
        (Some(split), _) => (split, &a.output),
        (None, Some(pool)) => return sets_of_pool(a, pool, &methods, &opts, at),
        (None, None) => return fail("give --split MASK.npy, or --calibration-true CAL.npy"),
    };
    let probe = Probe::start(a.score.device, &methods, &opts);
    let pooled = methods.contains(&Method::CpR) && opts.kind == RvalueKind::Pooled;
    let (scores, labels) = streamed::open_scores(&a.data, a.score.device, pooled)?;
    let (n, m, k) = streamed::shape(&scores);
    let split = read_split(split, n)?.keyed(a.seed, 0);
    warn_data(m, k, &methods);
    let mut ready = match scores {
        streamed::Scores::Whole(data) => {
            let ranker = probe.finish(&data.scores)?;
            conformal::check_data(&data.scores, &labels)?;
            Ready::Whole(data, Box::new(ranker))
        }
        streamed::Scores::Streamed(file) => Ready::Streamed(file, streamed::GpuBlocks::of(probe.open()?)),
    };
    with_output(path, |out| match ready {
        Ready::Whole(ref data, ref mut ranker) => {
            whole_sets(&data.scores, &labels, ranker, &methods, &opts, &split, at, (out, path))
        }
        Ready::Streamed(ref file, ref ranker) => {
            let at = streamed::At { alpha: at.0, never_empty: at.1, threads: at.2, ranker: ranker.as_ref() };
            streamed::write_sets(file, &labels, &methods, &opts, &split, &at, (out, path))
        }
    })
}

/// `sets` with `--calibration-true`: every test item's set, calibrated on the whole pool.
fn sets_of_pool(
    a: &SetsArgs,
    pool: &Path,
    methods: &[Method],
    opts: &ScoreOptions,
    (alpha, never_empty, threads): (f64, bool, usize),
) -> CliResult<()> {
    let pool = pool::read_pool(pool)?;
    let (test, labels) = pool::test_items(&a.data)?;
    let (_, m, k) = streamed::shape(&test);
    warn_data(m, k, methods);
    with_output(&a.output, |out| {
        let at = (alpha, never_empty, threads, a.seed);
        pool::write_sets(&pool, &test, &labels, methods, opts, at, out)?
            .map_err(|e| CliError(format!("{}: cannot write: {e}", display(&a.output))))
    })
}

/// Writes `sets`' CSV to `path`: the header, then what `rows` writes. Rows go as they come (a
/// large tensor's sets take more memory than its scores) to a temporary file beside the output,
/// renamed onto it when all are written: a run that fails or is interrupted leaves the output
/// path as it was.
fn with_output(path: &Path, rows: impl FnOnce(&mut dyn Write) -> CliResult<()>) -> CliResult<()> {
    let cannot_write = |e: std::io::Error| CliError(format!("{}: cannot write: {e}", display(path)));
    let mut out = interrupt::Output::create(path)?;
    out.write_all(b"method,item,candidate,score,position\n").map_err(cannot_write)?;
    rows(&mut out)?;
    out.flush().map_err(cannot_write)?;
    Ok(out.commit()?)
}

/// The scores of `sets`, ready to run: streamed, or held with what ranks their draws.
#[allow(clippy::large_enum_variant)] // one per run
enum Ready {
    Streamed(io::ScoreFile, Option<streamed::GpuBlocks>),
    Whole(Dataset, Box<Ranker>),
}

/// `sets`' rows for a tensor held in memory, method by method.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where rows go
fn whole_sets(
    t: &ScoreTensor,
    labels: &[usize],
    ranker: &mut Ranker,
    methods: &[Method],
    opts: &ScoreOptions,
    split: &Split,
    (alpha, never_empty, threads): (f64, bool, usize),
    (out, path): (&mut dyn Write, &PathBuf),
) -> CliResult<()> {
    let mut progress = Progress::new();
    let mut written = Ok(());
    for &method in methods {
        let prep = Pass::new(t, labels, method, opts, ranker)?;
        let one = std::slice::from_ref(split);
        for_each_split(&prep, ranker, method, opts, one, threads, &mut progress, |c| {
            if written.is_ok() {
                written = streamed::set_rows(method, &c, alpha, never_empty, out);
            }
        })?;
    }
    progress.clear();
    written.map_err(|e| CliError(format!("{}: cannot write: {e}", display(path))))
}

// ---------------------------------------------------------------------------------------------
// toy

fn run_toy(a: &ToyArgs) -> CliResult<()> {
    let methods = methods_of(&a.methods.list)?;
    let params = ToyParams {
        k: a.k,
        m: a.m,
        n_cal: a.n_cal,
        n_test: a.n_test,
        repeats: a.repeats,
        mu_p: a.mu_p,
        sigma2_p: a.sigma2_p,
        mu_q: a.mu_q,
        sigma2: a.sigma2,
        high_var_fraction: a.high_var_fraction,
        seed: a.seed,
    };
    params.validate()?;
    let opts = a.method.options();
    warn_single_draw(a.m, &methods);

    let p = toy::prob_q_exceeds_p(a.mu_p, a.sigma2_p, a.mu_q, a.sigma2);
    let mut out = format!(
        "P(q > p) = {:.2} % ({p})   [p ~ N({}, {}), q ~ N({}, {})]\n",
        100.0 * p,
        a.mu_p,
        a.sigma2_p,
        a.mu_q,
        a.sigma2
    );
    out.push_str(&format!("Note: {}\n", toy::NOTE_ON_PAPER));
    out.push_str(&format!(
        "Simulated conformal experiment: K = {}, M = {}, n_cal = {}, n_test = {}, repeats = {}, \
         h = {}, seed = {}, alpha = {}\n\n",
        a.k, a.m, a.n_cal, a.n_test, a.repeats, a.high_var_fraction, a.seed, a.alpha
    ));
    print_stdout(&out)?;

    let mask: Vec<bool> = (0..params.n()).map(|i| i < params.n_cal).collect();
    let split = Split::from_mask(&mask)?;
    let mut metrics: Vec<Vec<SplitMetrics>> = vec![Vec::new(); methods.len()];
    let mut sizes: Vec<Vec<Vec<usize>>> = vec![Vec::new(); methods.len()];
    let mut progress = Progress::new();
    for r in 0..params.repeats {
        progress.count("toy: repeats", r, params.repeats);
        let (t, labels) = toy::simulate(&params, r)?;
        let prep = Prepared::new(&t, &labels, conformal::needs_draw_orders(&methods, &opts))?;
        // Repeat r's tie order is split r of the toy's seed, as in the explorer.
        let split = split.clone().keyed(params.seed, r as u64);
        for (j, &method) in methods.iter().enumerate() {
            for c in prep.calibrate(method, &opts, std::slice::from_ref(&split))? {
                metrics[j].push(c.metrics(a.alpha, a.method.never_empty));
                sizes[j].push(c.sizes(a.alpha, a.method.never_empty));
            }
        }
    }
    progress.clear();
    let rows: Vec<Summary> = methods
        .iter()
        .enumerate()
        .map(|(j, &method)| conformal::summarize(method, a.alpha, &metrics[j], &sizes[j], a.k))
        .collect();
    print_stdout(&output::summary_csv(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn hyper_values() {
        assert_eq!(parse_hyper("estimate"), Ok(HyperChoice::Estimate));
        assert_eq!(parse_hyper(" 0.5, 2 "), Ok(HyperChoice::Fixed(Hyper { mu: 0.5, tau2: 2.0 })));
        assert!(parse_hyper("1,-1").unwrap_err().contains("τ²"));
        assert!(parse_hyper("1").is_err());
        assert!(parse_hyper("a,b").is_err());
    }

    #[test]
    fn alpha_and_methods() {
        assert_eq!(parse_alpha("0.1"), Ok(0.1));
        assert!(parse_alpha("1.5").is_err() && parse_alpha("0").is_err() && parse_alpha("x").is_err());
        assert_eq!(parse_method("cp-avg"), Ok(Method::CpAvg));
        assert!(parse_method("lac").is_err());
        assert_eq!(methods_of(&[]).unwrap(), Method::ALL);
        assert!(methods_of(&[Method::Cp, Method::Cp]).unwrap_err().0.contains("twice"));
    }

    #[test]
    fn clap_errors_become_one_line() {
        let e = Cli::try_parse_from(["rvalue", "conformal", "--scores", "s.npy"]).unwrap_err();
        let m = clap_message(&e.render().to_string());
        assert!(!m.contains('\n') && m.contains("--alpha"), "{m}");
        let e = Cli::try_parse_from(["rvalue", "conformal", "--scores", "s", "--alpha", "1.5"]).unwrap_err();
        let m = clap_message(&e.render().to_string());
        assert!(m.contains("'1.5'") && m.contains("(0, 1)"), "{m}");
        assert_eq!(CliError("a\n  b\r\n".into()).to_string(), "a b");
    }

    /// A GPU that fails in the middle of a run (its device destroyed after opening): under
    /// `auto` the CPU computes the splits instead and nothing changes; under `gpu` it is an
    /// error. Needs an adapter (lavapipe), like the `gpu` module's tests.
    #[cfg(feature = "gpu")]
    #[test]
    fn a_gpu_failing_mid_run_falls_back_to_the_cpu() {
        let g = match gpu::Gpu::new() {
            Ok(g) => g,
            Err(_) if std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") => return,
            Err(e) => {
                panic!("no GPU adapter ({e}); install mesa-vulkan-drivers or set RVALUE_SKIP_GPU_TESTS=1")
            }
        };
        g.destroy_device();
        let (t, labels) = rvalue_core::samples::logits(40, 6, 5, 3);
        let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 1 }.splits(t.n()).unwrap();
        let prep = Prepared::new(&t, &labels, false).unwrap();
        let keys = gpu::keys::Keys::of_tensor(&t);
        let mut ranker = Ranker { gpu: Some((g, keys)), required: false };
        for kind in [RvalueKind::Nonparametric, RvalueKind::Pooled] {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            let want: Vec<SplitMetrics> = prep
                .calibrate(Method::CpR, &opts, &splits)
                .unwrap()
                .iter()
                .map(|c| c.metrics(0.2, false))
                .collect();
            let mut got = Vec::new();
            let pass = Pass { t: &t, labels: &labels, order: None };
            for_each_split(&pass, &mut ranker, Method::CpR, &opts, &splits, 1, &mut Progress::new(), |c| {
                got.push(c.metrics(0.2, false))
            })
            .unwrap();
            assert_eq!(got, want, "{kind:?}");
            assert!(ranker.gpu.is_none(), "the failed GPU is dropped");
            // Put a failing GPU back for the next kind, this time required.
            let g = gpu::Gpu::new().unwrap();
            g.destroy_device();
            ranker.gpu = Some((g, gpu::keys::Keys::of_tensor(&t)));
        }
        ranker.required = true;
        let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
        let pass = Pass { t: &t, labels: &labels, order: None };
        let e =
            for_each_split(&pass, &mut ranker, Method::CpR, &opts, &splits, 1, &mut Progress::new(), |_| {})
                .unwrap_err();
        assert!(e.0.starts_with("GPU: "), "{}", e.0);
    }
}
