//! Scores given as a file path, or as a `numpy.memmap`: streamed a block of items at a time
//! (`rvalue_core::conformal::streamed`), so a file larger than memory is scored as the command
//! line scores it, with the same bits as an array in memory.

use pyo3::prelude::*;
use pyo3::types::PyString;
use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::{calibrate_streamed, calibrate_streamed_ranked, Streaming};
use rvalue_core::conformal::true_draws::{
    calibrate_with_true_draws, calibrate_with_true_draws_ranked, true_draws_splits, TrueDraws,
};
use rvalue_core::conformal::{Calibrated, Coverage, Method, ScoreOptions, Split};
use rvalue_core::io::{self, Opened, ScoreFile};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

use crate::arrays::{self, value_error, Hold, Tensor};
use crate::options::Job;

/// Where a call's scores are: a file read a block at a time, or an array (`streamed` when it
/// is a memmap, so that its pages are read a block at a time too).
pub enum Source<'py> {
    File(ScoreFile),
    Array { tensor: Tensor<'py>, streamed: bool },
}

impl Source<'_> {
    /// The scores as blocks, and whether to stream them (else the in-memory path runs).
    pub fn blocks(&self) -> (&dyn ScoreBlocks, bool) {
        match self {
            Source::File(f) => (f, true),
            Source::Array { tensor, streamed } => (tensor.tensor(), *streamed),
        }
    }
}

/// `scores` as given: a `str` or `os.PathLike` names a `.npy`, `.npz` or CSV file; anything
/// else is an array. The labels a file carries are returned with it.
pub fn source<'py>(scores: &Bound<'py, PyAny>) -> PyResult<(Source<'py>, Option<Vec<usize>>)> {
    let py = scores.py();
    if let Some(path) = path_of(scores)? {
        let opened = py.detach(|| ScoreFile::open(&path)).map_err(value_error)?;
        return match opened {
            Opened::Streamed(mut f) => {
                let labels = f.take_labels();
                Ok((Source::File(f), labels))
            }
            Opened::Whole(d) => {
                let labels = d.labels.clone();
                let tensor = Tensor::owned(d.scores);
                Ok((Source::Array { tensor, streamed: false }, labels))
            }
        };
    }
    let memmap = scores.is_instance(&py.import("numpy")?.getattr("memmap")?)?;
    let tensor = arrays::scores(scores, "scores", Hold::Call)?;
    Ok((Source::Array { tensor, streamed: memmap }, None))
}

/// Whether `obj` is a path or a `numpy.memmap`: what [`source`] may stream.
pub fn is_file_or_memmap(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(path_of(obj)?.is_some() || obj.is_instance(&obj.py().import("numpy")?.getattr("memmap")?)?)
}

/// The labels: given, or carried by the scores' file; one of the two is needed.
pub fn labels(given: Option<&Bound<'_, PyAny>>, carried: Option<Vec<usize>>) -> PyResult<Vec<usize>> {
    match (given, carried) {
        (Some(l), _) => arrays::indices(l, "labels"),
        (None, Some(l)) => Ok(l),
        (None, None) => Err(value_error(Error::invalid(
            "no labels: give labels=, or scores as an .npz file with a 'labels' member",
        ))),
    }
}

/// How the package streams: 32 MiB blocks, half a GiB of pooled splits per pass.
fn streaming(threads: usize) -> Streaming<'static> {
    Streaming { threads, ..Streaming::default() }
}

/// `each(method, split, calibrated)` for every method of `job` on every split, streamed: in the
/// order of `job.methods`, each method's splits in order (the in-memory path's order).
pub fn each_calibrated(
    src: &dyn ScoreBlocks,
    true_draws: Option<&TrueDraws>,
    labels: &[usize],
    job: &Job,
    splits: &[Split],
    mut each: impl FnMut(Method, usize, &Calibrated),
) -> Result<()> {
    each_with(src, true_draws, labels, job, splits, (false, true), &mut |m, r, c, _| each(m, r, c))
}

/// [`each_calibrated`], also handing `each` the items' difficulty ranks (by test item for a
/// true draws), gathered in the first pass; calibrations come as they are made, each method's
/// splits in order but the methods interleaved (the baselines split by split), so that none
/// is held waiting for its method's turn.
pub fn each_calibrated_ranked(
    src: &dyn ScoreBlocks,
    true_draws: Option<&TrueDraws>,
    labels: &[usize],
    job: &Job,
    splits: &[Split],
    mut each: impl FnMut(Method, usize, &Calibrated, &[u32]),
) -> Result<()> {
    each_with(src, true_draws, labels, job, splits, (true, false), &mut each)
}

/// Where a calibrated split goes: `(method, split, calibrated, difficulty ranks)`.
type Each<'a> = dyn FnMut(Method, usize, &Calibrated, &[u32]) + 'a;

fn each_with(
    src: &dyn ScoreBlocks,
    true_draws: Option<&TrueDraws>,
    labels: &[usize],
    job: &Job,
    splits: &[Split],
    (ranked, in_order): (bool, bool),
    each: &mut Each<'_>,
) -> Result<()> {
    // Metrics and sets are what callers keep: in order, calibrations are held only until their
    // method's turn, and pooled ones (last from the stream) are in order already.
    let mut held: Vec<Vec<Calibrated>> = job.methods.iter().map(|_| Vec::new()).collect();
    let mut next = 0;
    let mut report = |_: &str, _: usize, _: usize| {};
    let mut take = |m: Method, r: usize, c: Calibrated, ranks: &[u32]| {
        if !in_order {
            each(m, r, &c, ranks);
            return Ok(());
        }
        let i = job.methods.iter().position(|x| *x == m).unwrap_or(0);
        held[i].push(c);
        while next < held.len() && held[next].len() == splits.len() {
            for (r, c) in std::mem::take(&mut held[next]).iter().enumerate() {
                each(job.methods[next], r, c, ranks);
            }
            next += 1;
        }
        Ok(())
    };
    let (methods, opts, run) = (&job.methods, &job.opts, &streaming(job.threads));
    match (true_draws, ranked) {
        (Some(true_draws), true) => calibrate_with_true_draws_ranked(
            true_draws,
            src,
            labels,
            methods,
            opts,
            splits,
            run,
            &mut report,
            &mut take,
        ),
        (None, true) => {
            calibrate_streamed_ranked(src, labels, methods, opts, splits, run, &mut report, &mut take)
        }
        (Some(true_draws), false) => {
            let take = &mut |m, r, c| take(m, r, c, &[]);
            calibrate_with_true_draws(true_draws, src, labels, methods, opts, splits, run, &mut report, take)
        }
        (None, false) => {
            let take = &mut |m, r, c| take(m, r, c, &[]);
            calibrate_streamed(src, labels, methods, opts, splits, run, &mut report, take)
        }
    }
}

/// The path `obj` names, if it is a `str` or an `os.PathLike`.
fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<Option<std::path::PathBuf>> {
    if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
        return Ok(Some(obj.py().import("os")?.call_method1("fspath", (obj,))?.extract()?));
    }
    Ok(None)
}

/// The file `obj` names, read whole with the GIL released; `None` when `obj` is no path.
fn read_whole(obj: &Bound<'_, PyAny>) -> PyResult<Option<io::Dataset>> {
    let Some(path) = path_of(obj)? else { return Ok(None) };
    obj.py().detach(|| io::read_scores_file(&path)).map(Some).map_err(value_error)
}

/// Scores held whole, as a copy of their own: a file read whole (with the labels it carries),
/// or an array copied (`what` names the argument in messages).
pub fn whole(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(ScoreTensor, Option<Vec<usize>>)> {
    match read_whole(obj)? {
        Some(d) => Ok((d.scores, d.labels)),
        None => Ok((arrays::scores(obj, what, Hold::Copy)?.into_copy(), None)),
    }
}

/// Scores for the call only: a file read whole, or an array read in place where it can be.
pub fn for_call<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Tensor<'py>> {
    match read_whole(obj)? {
        Some(d) => Ok(Tensor::owned(d.scores)),
        None => arrays::scores(obj, what, Hold::Call),
    }
}

/// True-label draws `[n_cal, M]` (an array of any real dtype numpy reads, or a file), held as
/// the tensor `[n_cal, 1, M]` in the type they came in.
pub fn true_draw_scores(obj: &Bound<'_, PyAny>) -> PyResult<ScoreTensor> {
    let (t, _) = whole(obj, "cal_true")?;
    if t.m() != 1 {
        return Err(value_error(Error::shape(format!(
            "cal_true must have shape [n_cal, M] (each calibration item's true-label score in each \
             draw), got [{}, {}, {}]",
            t.n(),
            t.m(),
            t.k()
        ))));
    }
    Ok(t)
}

/// True-label draws `[n_cal, M]`, as [`true_draw_scores`] reads them.
pub fn true_draws(obj: &Bound<'_, PyAny>) -> PyResult<TrueDraws> {
    TrueDraws::of_single_draw(true_draw_scores(obj)?).map_err(value_error)
}

/// [`true_draws`] with its units' classes `cal_labels` (each in `0..K`, checked against the test
/// items' K when calibrating), which per-class coverage needs.
pub fn true_draws_with(
    obj: &Bound<'_, PyAny>,
    cal_labels: Option<&Bound<'_, PyAny>>,
    opts: &ScoreOptions,
) -> PyResult<TrueDraws> {
    let true_draws = true_draws(obj)?;
    match (cal_labels, opts.coverage) {
        (Some(l), _) => true_draws.with_classes(arrays::indices(l, "cal_labels")?).map_err(value_error),
        (None, Coverage::PerClass) => Err(value_error(Error::invalid(
            "coverage='per-class' needs the class of every calibration item, and cal_true holds \
             true-label draws only: give the pool's classes as cal_labels",
        ))),
        (None, Coverage::Marginal) => Ok(true_draws),
    }
}

/// The splits of true draws and `n_test` test items: everything once, or `count` seeded subsets of
/// `(cal_size, test_size)`.
pub fn true_draws_plan(
    true_draws: &TrueDraws,
    n_test: usize,
    sizes: (Option<usize>, Option<usize>),
    count: usize,
    seed: u64,
) -> PyResult<Vec<Split>> {
    let sizes = match sizes {
        (Some(c), Some(t)) => Some((c, t)),
        (None, None) => None,
        _ => return Err(value_error(Error::invalid("give cal_size and test_size together"))),
    };
    let count = if sizes.is_some() { count } else { 1 };
    true_draws_splits(true_draws.n(), n_test, sizes, count, seed).map_err(value_error)
}
