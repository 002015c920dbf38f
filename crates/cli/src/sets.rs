//! `rvalue sets`: every test item's prediction set on one split, written as CSV.

use std::io::Write;
use std::path::{Path, PathBuf};

use rvalue_core::conformal::{self, Method, ScoreOptions, Split};
use rvalue_core::io::{self, Dataset};
use rvalue_core::tensor::ScoreTensor;

use crate::args::SetsArgs;
use crate::device::{for_each_split, Pass, Probe, Ranker};
use crate::inputs::{facts, methods_of, read_split, reading_of, warn_data};
use crate::output::Progress;
use crate::{calibration_true, display, interrupt, streamed, write_file, CliError, CliResult};

pub(crate) fn run_sets(a: &SetsArgs) -> CliResult<()> {
    let methods = methods_of(&a.score.methods.list)?;
    let opts = a.score.options();
    let at = (a.score.alpha.one()?, a.score.method.never_empty, a.score.threads());
    if let Some(true_draws) = &a.calibration_true.calibration_true {
        return sets_of_true_draws(a, true_draws, &methods, &opts, at);
    }
    let path = &a.output;
    let probe = Probe::start(a.score.device, &methods, &opts);
    let (scores, labels) = streamed::open_scores(&a.data)?;
    let (n, m, k) = streamed::shape(&scores);
    let (opts, _) = reading_of((&scores).into(), &methods, opts)?;
    let split = the_split(a, n)?;
    warn_data(&facts((m, k), &labels, Some(split.cal.len()), (at.0, &methods, opts.kind)));
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

/// The split `sets` runs on: the mask given, else split `--split-index` of the seeded series
/// (`conformal`'s split of that number); its mask written where `--save-split` says.
fn the_split(a: &SetsArgs, n: usize) -> CliResult<Split> {
    let split = match &a.split {
        Some(mask) => read_split(mask, n)?.keyed(a.seed, 0),
        None => Split::random(n, a.cal_fraction, a.seed, a.split_index)?,
    };
    if let Some(out) = &a.save_split {
        write_file(out, &io::write_npy_bool(&[n], &split.mask(n)))?;
    }
    Ok(split)
}

/// `sets` with `--calibration-true`: every test item's set, calibrated on all the true draws.
pub(crate) fn sets_of_true_draws(
    a: &SetsArgs,
    true_draws: &Path,
    methods: &[Method],
    opts: &ScoreOptions,
    (alpha, never_empty, threads): (f64, bool, usize),
) -> CliResult<()> {
    let probe = Probe::start(a.score.device, methods, opts);
    let classes = calibration_true::Classes {
        path: a.calibration_true.calibration_labels.as_deref(),
        coverage: opts.coverage,
    };
    let (test, labels, true_draws, (m, k)) = calibration_true::open(classes, methods, &a.data, true_draws)?;
    warn_data(&facts((m, k), &[], Some(true_draws.n()), (alpha, methods, opts.kind)));
    let ranker = streamed::GpuBlocks::of(probe.open()?);
    with_output(&a.output, |out| {
        let (at, run) = ((alpha, never_empty, a.seed), (threads, ranker.as_ref()));
        calibration_true::write_sets(&true_draws, &test, &labels, methods, opts, at, run, out)?
            .map_err(|e| CliError(format!("{}: cannot write: {e}", display(&a.output))))
    })
}

/// Writes `sets`' CSV to `path`: the header, then what `rows` writes. Rows go as they come (a
/// large tensor's sets take more memory than its scores) to a temporary file beside the output,
/// renamed onto it when all are written: a run that fails or is interrupted leaves the output
/// path as it was.
pub(crate) fn with_output(path: &Path, rows: impl FnOnce(&mut dyn Write) -> CliResult<()>) -> CliResult<()> {
    let cannot_write = |e: std::io::Error| CliError(format!("{}: cannot write: {e}", display(path)));
    let mut out = interrupt::Output::create(path)?;
    out.write_all(b"method,item,candidate,score,position\n").map_err(cannot_write)?;
    rows(&mut out)?;
    out.flush().map_err(cannot_write)?;
    Ok(out.commit()?)
}

/// The scores of `sets`, ready to run: streamed, or held with what ranks their draws.
#[allow(clippy::large_enum_variant)] // one per run
pub(crate) enum Ready {
    Streamed(io::ScoreFile, Option<streamed::GpuBlocks>),
    Whole(Dataset, Box<Ranker>),
}

/// `sets`' rows for a tensor held in memory, method by method.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where rows go
pub(crate) fn whole_sets(
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
