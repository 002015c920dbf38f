//! `--calibration-true CAL.npy`: calibration given as the true label's draws alone, `[n_cal, M]`
//! (the layout of the paper's ImageNet true-label draws), for `conformal`, `sets` and `predict`.
//! CP, CP_avg and pooled CP_r need nothing else of a calibration item
//! (`rvalue_core::conformal::true_draws`); the test items are streamed as `--scores` always is. Every
//! result is the joined tensor `[true draws; test items]`'s split, bit for bit.

use std::io::Write;
use std::path::Path;

use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::{Report, Streaming};
use rvalue_core::conformal::true_draws::{
    calibrate_with_true_draws, calibrate_with_true_draws_ranked, true_draws_splits, TrueDraws,
};
use rvalue_core::conformal::{self, Calibrated, Coverage, Method, ScoreOptions, Split};
use rvalue_core::io;
use rvalue_core::predict::{predict_with_true_draws, Prediction};

use super::output::Progress;
use super::streamed::{self, GpuBlocks, Scores};
use super::{display, fail, read_file, CliError, CliResult, DataArgs};

/// Where true draws' classes come from (`--calibration-labels`), and whether they are needed.
#[derive(Clone, Copy)]
pub(crate) struct Classes<'a> {
    pub(crate) path: Option<&'a Path>,
    pub(crate) coverage: Coverage,
}

/// Per-class coverage with true draws needs the true draws' classes: refused before anything is read.
pub(crate) fn check_classes(classes: Classes<'_>) -> CliResult<()> {
    match (classes.coverage, classes.path) {
        (Coverage::PerClass, None) => fail(
            "--coverage per-class needs the class of every calibration item, and --calibration-true \
             holds true-label draws only: give the pool's classes with --calibration-labels Y.npy",
        ),
        _ => Ok(()),
    }
}

/// A baseline with true draws: refused before anything is read, as its scores need every class's
/// probability of a calibration item.
pub(crate) fn refuse_baselines(methods: &[Method]) -> CliResult<()> {
    match methods.iter().find(|m| m.is_baseline()) {
        Some(&m) => Err(conformal::true_draws::baseline_needs_all_candidates(m).into()),
        None => Ok(()),
    }
}

/// The true draws at `path`: a `[n_cal, M]` array of float scores, with its classes (in `0..k`)
/// when `classes` names a file.
pub(crate) fn read_calibration_true(path: &Path, classes: Classes<'_>, k: usize) -> CliResult<TrueDraws> {
    check_classes(classes)?;
    let true_draws = TrueDraws::of_dataset(&display(path), io::read_scores_file(path)?)?;
    let Some(labels) = classes.path else { return Ok(true_draws) };
    let read = io::read_labels(&display(labels), &read_file(labels)?, true_draws.n(), k)?;
    Ok(true_draws.with_classes(read)?)
}

/// The test items of `data` (streamed or held) and their labels.
pub(crate) fn test_items(data: &DataArgs) -> CliResult<(Scores, Vec<usize>)> {
    streamed::open_scores(data)
}

/// The test items, their labels, the true draws and the test items' `(M, K)`.
pub(crate) type Opened = (Scores, Vec<usize>, TrueDraws, (usize, usize));

/// What `conformal` and `sets` read for `--calibration-true`, checked in the order a user meets
/// the errors: the classes the coverage needs, no baselines, then the test items (`data`) and
/// the true draws at `path`.
pub(crate) fn open(
    classes: Classes<'_>,
    methods: &[Method],
    data: &DataArgs,
    path: &Path,
) -> CliResult<Opened> {
    check_classes(classes)?;
    refuse_baselines(methods)?;
    let (test, labels) = test_items(data)?;
    let (_, m, k) = streamed::shape(&test);
    let true_draws = read_calibration_true(path, classes, k)?;
    Ok((test, labels, true_draws, (m, k)))
}

/// The new items of `predict`: their labels, if the file carries any, are not read.
pub(crate) fn test_items_unlabelled(data: &DataArgs) -> CliResult<Scores> {
    Ok(io::ScoreFile::open(&data.scores)?.into())
}

fn blocks(s: &Scores) -> &dyn ScoreBlocks {
    match s {
        Scores::Streamed(f) => f,
        Scores::Whole(d) => &d.scores,
    }
}

/// `work(run, report)` with the command line's streaming settings (`threads`, the GPU if any)
/// and progress line, its error named after the option that asked for it.
fn with_progress<T>(
    (threads, ranker): Run<'_>,
    work: impl FnOnce(&Streaming, Report<'_>) -> rvalue_core::Result<T>,
) -> CliResult<T> {
    let mut progress = Progress::new();
    let mut report =
        |what: &str, done: usize, total: usize| progress.count(&format!("{what}: items"), done, total);
    let run = streamed::streaming(threads, ranker);
    work(&run, &mut report).map_err(|e| match e {
        // A GPU failure under `--device gpu` is the device's, not the true draws'.
        e @ rvalue_core::Error::Gpu { .. } => e.into(),
        e => CliError(format!("--calibration-true: {e}")),
    })
}

/// Threads, and the GPU that ranks pooled CP_r's test items if there is one.
pub(crate) type Run<'a> = (usize, Option<&'a GpuBlocks>);

/// `each(method, calibrated)` for every method on every split: each method's splits in order,
/// the split-independent methods before pooled CP_r.
#[allow(clippy::too_many_arguments)] // the inputs, the run's settings, and where results go
fn for_each(
    true_draws: &TrueDraws,
    test: &Scores,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: Run<'_>,
    mut each: impl FnMut(Method, Calibrated),
) -> CliResult<()> {
    let mut take = |m, _, c| {
        each(m, c);
        Ok(())
    };
    with_progress(run, |run, report| {
        calibrate_with_true_draws(
            true_draws,
            blocks(test),
            labels,
            methods,
            opts,
            splits,
            run,
            report,
            &mut take,
        )
    })
}

/// Every calibrated split of `methods`, in method order (for the few splits of `sets`, `predict`).
fn calibrated(
    true_draws: &TrueDraws,
    test: &Scores,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: Run<'_>,
) -> CliResult<Vec<(Method, Calibrated)>> {
    let mut got = Vec::new();
    for_each(true_draws, test, labels, methods, opts, splits, run, |m, c| got.push((m, c)))?;
    got.sort_by_key(|(m, _)| methods.iter().position(|x| x == m));
    Ok(got)
}

/// `conformal`'s rows with true draws: metrics of each method over the true-draw splits, tallied as
/// each split arrives.
#[allow(clippy::too_many_arguments)] // the inputs and the run's settings
pub(crate) fn summaries(
    true_draws: &TrueDraws,
    test: &Scores,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    (sizes, count, seed): (Option<(usize, usize)>, usize, u64),
    (alpha, never_empty): (f64, bool),
    run: Run<'_>,
) -> CliResult<Vec<conformal::Summary>> {
    let (n_test, _, k) = blocks(test).shape();
    let splits = true_draws_splits(true_draws.n(), n_test, sizes, count, seed)?;
    let mut tally = streamed::Tally::new(methods, alpha, never_empty, run.0);
    let mut take = |m, _, c, r: &[u32]| {
        tally.add(m, c, r);
        Ok(())
    };
    with_progress(run, |run, report| {
        calibrate_with_true_draws_ranked(
            true_draws,
            blocks(test),
            labels,
            methods,
            opts,
            &splits,
            run,
            report,
            &mut take,
        )
    })?;
    Ok(tally.rows(k))
}

/// `sets`' rows with true draws: every test item's set, calibrated on all the true draws.
#[allow(clippy::too_many_arguments)] // the inputs, the run's settings, and where rows go
pub(crate) fn write_sets(
    true_draws: &TrueDraws,
    test: &Scores,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    (alpha, never_empty, seed): (f64, bool, u64),
    run: Run<'_>,
    out: &mut dyn Write,
) -> CliResult<std::io::Result<()>> {
    let splits = true_draws_splits(true_draws.n(), blocks(test).shape().0, None, 1, seed)?;
    let all = calibrated(true_draws, test, labels, methods, opts, &splits, run)?;
    Ok(all.iter().try_for_each(|(m, c)| streamed::set_rows(*m, c, alpha, never_empty, out)))
}

/// `predict`'s sets with true draws: the new items' sets, calibrated on all the true draws.
pub(crate) fn predict(
    true_draws: &TrueDraws,
    test: &Scores,
    method: Method,
    opts: &ScoreOptions,
    seed: u64,
    run: Run<'_>,
) -> CliResult<Prediction> {
    with_progress(run, |run, report| {
        predict_with_true_draws(true_draws, blocks(test), method, opts, seed, run, report)
    })
}
