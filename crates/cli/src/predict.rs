//! `rvalue predict`: the sets of new, unlabelled items, calibrated on labelled ones
//! (docs/method.md §5). The run is `rvalue sets` on the split whose test items are the new ones,
//! through the same ranker, so `--device` and `--threads` change nothing in the output.

use std::path::{Path, PathBuf};

use clap::Args;
use rvalue_core::conformal::{self, Calibrated, Split};
use rvalue_core::io::{write_npy_bool, Dataset};
use rvalue_core::predict::{joined_split, Prediction};
use rvalue_core::tensor::ScoreTensor;

use super::output::{warn_unbounded, Progress};
use super::{
    display, facts, fail, for_each_split, labels_of, read_scores_file, warn_data, write_file, CliError,
    CliResult, DataArgs, OneMethod, Pass, Probe, ScoreArgs,
};

#[derive(Args, Debug)]
pub(crate) struct PredictArgs {
    /// Labelled scores that calibrate, S[n][m][k] (or [n][k]): .npy, .npz with 'scores' (and
    /// 'labels'), or long-form CSV
    #[arg(long, value_name = "CAL.npz", required_unless_present = "calibration_true")]
    calibration: Option<PathBuf>,
    /// Labels of the calibration items, in 0..K (.npy); optional when the calibration file
    /// carries them. With --calibration-true: each true-draw unit's class, which --coverage
    /// per-class needs
    #[arg(long, value_name = "Y.npy")]
    calibration_labels: Option<PathBuf>,
    /// Calibrate on these true-label draws [n_cal, M] (each calibration item's true-label score
    /// in each draw) instead of on --calibration; CP, CP_avg and pooled CP_r only
    #[arg(long, value_name = "CAL.npy", conflicts_with = "calibration")]
    calibration_true: Option<PathBuf>,
    /// Scores of the new items, in any of the same formats, with the same M and K; labels it
    /// carries are not read
    #[arg(long, value_name = "TEST.npy")]
    test: PathBuf,
    #[command(flatten)]
    score: ScoreArgs<OneMethod>,
    /// Seed of pooled r-values' exchangeable tie order (the prediction is split 0 of it)
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Output, by its extension: .csv, one row per (new item, candidate in its set):
    /// item,candidate,score,position, items counted from 0, an empty set as one row with the
    /// last three fields empty; .npy, a boolean mask [n_test, K]
    #[arg(long, value_name = "SETS.csv|SETS.npy")]
    output: PathBuf,
}

/// What `--output`'s extension asks for.
#[derive(Clone, Copy)]
enum OutputKind {
    Csv,
    Npy,
}

impl OutputKind {
    /// Known before anything is read, so a misnamed output costs no computation.
    fn of(path: &Path) -> CliResult<OutputKind> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => Ok(OutputKind::Csv),
            Some("npy") => Ok(OutputKind::Npy),
            _ => fail(format!(
                "{}: unknown output type; expected a name ending in .csv (rows) or .npy (a boolean mask)",
                display(path)
            )),
        }
    }
}

pub(crate) fn run(a: &PredictArgs) -> CliResult<()> {
    let kind = OutputKind::of(&a.output)?;
    let method = a.score.methods.one;
    let opts = a.score.options();
    let (alpha, never_empty) = (a.score.alpha.one()?, a.score.method.never_empty);
    let probe = Probe::start(a.score.device, &[method], &opts);
    let calibration = match (&a.calibration, &a.calibration_true) {
        (_, Some(true_draws)) => {
            let classes = super::calibration_true::Classes {
                path: a.calibration_labels.as_deref(),
                coverage: opts.coverage,
            };
            super::calibration_true::refuse_baselines(&[method])?;
            let data = DataArgs { scores: a.test.clone(), labels: None };
            let test = super::calibration_true::test_items_unlabelled(&data)?;
            let true_draws = super::calibration_true::read_calibration_true(
                true_draws,
                classes,
                super::streamed::shape(&test).2,
            )?;
            let ranker = super::streamed::GpuBlocks::of(probe.open()?);
            let run = (a.score.threads(), ranker.as_ref());
            let prediction =
                super::calibration_true::predict(&true_draws, &test, method, &opts, a.seed, run)?;
            warn_unbounded(method, prediction.unbounded_classes(alpha), prediction.k(), alpha, "");
            return write_file(&a.output, &output_bytes(kind, &prediction, alpha, never_empty));
        }
        (Some(c), None) => c,
        (None, None) => return fail("give --calibration CAL, or --calibration-true CAL.npy"),
    };
    let j = read_joined(a, calibration)?;
    let (opts, _) = super::inputs::reading_of(super::inputs::ReadFrom::Whole(&j.t), &[method], opts)?;
    let cal_labels = &j.labels[..j.n_cal];
    warn_data(&facts((j.t.m(), j.t.k()), cal_labels, Some(j.n_cal), (alpha, &[method], opts.kind)));
    let mut ranker = probe.finish(&j.t)?;
    conformal::check_data(&j.t, &j.labels)?;
    let prep = Pass::new(&j.t, &j.labels, method, &opts, &ranker)?;
    let mut progress = Progress::new();
    let mut calibrated: Option<Calibrated> = None;
    let splits = std::slice::from_ref(&j.split);
    for_each_split(&prep, &mut ranker, method, &opts, splits, a.score.threads(), &mut progress, |c| {
        calibrated = Some(c)
    })?;
    let Some(calibrated) = calibrated else { return fail("the new items were not scored") };
    let prediction = Prediction::from_calibrated(calibrated, j.n_cal);
    progress.clear();
    warn_unbounded(method, prediction.unbounded_classes(alpha), prediction.k(), alpha, "");
    write_file(&a.output, &output_bytes(kind, &prediction, alpha, never_empty))
}

/// The prediction as `--output`'s extension asks.
fn output_bytes(kind: OutputKind, prediction: &Prediction, alpha: f64, never_empty: bool) -> Vec<u8> {
    match kind {
        OutputKind::Csv => sets_csv(prediction, alpha, never_empty).into_bytes(),
        OutputKind::Npy => {
            write_npy_bool(&[prediction.n_test(), prediction.k()], &prediction.mask(alpha, never_empty))
        }
    }
}

/// The joined split of `predict::joined_split`, with the labelled items before the new ones.
struct Joined {
    t: ScoreTensor,
    labels: Vec<usize>,
    split: Split,
    n_cal: usize,
}

/// Reads and joins both files. The tensors of each file are dropped here, so the run holds the
/// scores once, as `rvalue sets` does.
fn read_joined(a: &PredictArgs, calibration: &Path) -> CliResult<Joined> {
    let (mut cal, test) = (read_scores_file(calibration)?, read_scores_file(&a.test)?);
    let cal_labels =
        labels_of(&mut cal, calibration, a.calibration_labels.as_deref(), "--calibration-labels")?;
    let (t, labels, split) =
        joined_split(&cal.scores, &cal_labels, &test.scores, a.seed).map_err(|e| match e {
            rvalue_core::Error::Shape(_) => CliError(format!("{}: {e}", display(&a.test))),
            e => e.into(),
        })?;
    note_ignored_labels(&test, &a.test);
    Ok(Joined { t, labels, split, n_cal: cal.scores.n() })
}

/// Labels in the test file are allowed (the same file may serve `rvalue sets`) but unused: say
/// so, lest someone take the output for an evaluation.
fn note_ignored_labels(test: &Dataset, path: &Path) {
    if test.labels.is_some() {
        eprintln!("rvalue: note: {}: the file carries labels; predict does not read them", display(path));
    }
}

/// `item,candidate,score,position` rows, items counted from 0 among the new ones, each set in
/// its method's order: the rows of `rvalue sets` without the method column (an empty set is
/// one row `item,,,`).
fn sets_csv(p: &Prediction, alpha: f64, never_empty: bool) -> String {
    let mut out = String::from("item,candidate,score,position\n");
    for j in 0..p.n_test() {
        let set = p.set(j, alpha, never_empty);
        if set.members.is_empty() {
            out.push_str(&format!("{},,,\n", set.item));
        }
        for (position, (cand, score)) in set.members.iter().enumerate() {
            out.push_str(&format!("{},{cand},{score},{position}\n", set.item));
        }
    }
    out
}
