//! `conformal`, `summarize` and `sets`: the numbers of `rvalue conformal` and `rvalue sets`,
//! computed by the same core calls in the same order, so they are the same bits.
//!
//! A run over many splits can be cut into pieces of split indices (`split_indices=`, e.g. one
//! piece per Dask task); `per_split=True` returns each split's metrics, and `summarize` turns the
//! gathered metrics into the rows one run would give: it orders them by split index and calls
//! the core's `conformal::summarize`, which adds them up in that order.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::{
    self as core, Calibrated, Method, Prepared, Split, SplitMetrics, SplitPlan, SplitTallies, Summary,
};
use rvalue_core::probability::ScoresAre;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

use crate::arrays::{self, value_error};
use crate::options::{self, Job};
use crate::scoring_fn::scoring_fn;
use crate::streamed::{self, Source};
use crate::tallies;
use crate::warned;
use crate::watched::{self, Progress};
use rvalue_core::conformal::true_draws::TrueDraws;

/// One method's metrics on one split of a run: what `per_split=True` returns, as a dict.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitRecord {
    pub method: Method,
    pub alpha: f64,
    pub split: u64,
    pub metrics: SplitMetrics,
    /// The split's conditional tallies; `None` in a record that lacks them.
    pub tallies: Option<SplitTallies>,
}

/// What a run computes: every method's metrics on every split, and the summary rows.
struct Run {
    records: Vec<SplitRecord>,
    rows: Vec<Summary>,
}

/// The splits a call asks for: one mask, the first `count` of a seeded series, or the given
/// indices of it.
struct Plan {
    splits: Vec<Split>,
}

impl Plan {
    fn of(n: usize, args: &ConformalArgs<'_, '_>) -> PyResult<Plan> {
        let splits = match (&args.split, &args.split_indices) {
            (Some(_), Some(_)) => {
                return Err(value_error(Error::invalid("give split (a mask) or split_indices, not both")))
            }
            (Some(mask), None) => {
                let split = Split::from_mask(&arrays::mask(mask, n)?).map_err(value_error)?;
                vec![split.keyed(args.seed, 0)]
            }
            (None, Some(indices)) => seeded(n, args.cal_fraction, args.seed, &split_indices(indices)?)?,
            (None, None) => {
                SplitPlan::Random { count: args.splits, cal_fraction: args.cal_fraction, seed: args.seed }
                    .splits(n)
                    .map_err(value_error)?
            }
        };
        Ok(Plan { splits })
    }
}

/// Splits `indices` of the series of `seed`: the same splits as the first `R` of a run.
fn seeded(n: usize, cal_fraction: f64, seed: u64, indices: &[usize]) -> PyResult<Vec<Split>> {
    indices.iter().map(|&r| Split::random(n, cal_fraction, seed, r).map_err(value_error)).collect()
}

/// Split indices: integers ≥ 0, at least one, none twice.
fn split_indices(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let raw: Vec<i64> = obj.extract()?;
    let mut out = Vec::with_capacity(raw.len());
    for (i, &r) in raw.iter().enumerate() {
        let r = usize::try_from(r)
            .map_err(|_| value_error(Error::invalid(format!("split_indices[{i}] is {r}, expected ≥ 0"))))?;
        if out.contains(&r) {
            return Err(value_error(Error::invalid(format!("split_indices lists split {r} twice"))));
        }
        out.push(r);
    }
    if out.is_empty() {
        return Err(value_error(Error::invalid("split_indices is empty; expected at least one split")));
    }
    Ok(out)
}

/// The arguments of `conformal` that pick the splits.
struct ConformalArgs<'a, 'py> {
    splits: usize,
    seed: u64,
    cal_fraction: f64,
    split: Option<&'a Bound<'py, PyAny>>,
    split_indices: Option<&'a Bound<'py, PyAny>>,
}

/// What `conformal` and `sets` set up before they run: the scores (an array, a file or a
/// memmap), their labels, the true-label draws if given, and the progress to report to.
struct Call<'py> {
    src: Source<'py>,
    labels: Vec<usize>,
    true_draws: Option<TrueDraws>,
    progress: Progress<'py>,
}

impl<'py> Call<'py> {
    fn new(
        scores: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        job: &Job,
        (cal_true, cal_labels): (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
        progress: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        let progress = Progress::of(progress)?;
        let (src, carried) = streamed::source(scores)?;
        let labels = streamed::labels(labels, carried)?;
        let true_draws = cal_true.map(|p| streamed::true_draws_with(p, cal_labels, &job.opts)).transpose()?;
        Ok(Call { src, labels, true_draws, progress })
    }

    /// `whole` on an array held in memory, else `blocks` on the scores streamed a block at a
    /// time (with the true-label draws, if any), watched: progress, Ctrl-C.
    fn run<T: Send>(
        &self,
        py: Python<'py>,
        what: &str,
        total: usize,
        whole: impl FnOnce(&ScoreTensor, &[usize]) -> Result<T> + Send,
        blocks: impl FnOnce(&dyn ScoreBlocks, Option<&TrueDraws>, &[usize]) -> Result<T> + Send,
    ) -> PyResult<T> {
        let (src, streams) = self.src.blocks();
        let (labels, true_draws) = (&self.labels, self.true_draws.as_ref());
        match &self.src {
            Source::Array { tensor, .. } if !streams && true_draws.is_none() => {
                let t = tensor.tensor();
                watched::run(py, self.progress.clone(), what, total, || whole(t, labels))
            }
            _ => watched::run(py, self.progress.clone(), what, total, || blocks(src, true_draws, labels)),
        }
    }

    /// The data's warnings for `job`, at the smallest calibration size `n_cal`.
    fn warn(&self, py: Python<'py>, job: &Job, n_cal: Option<usize>) -> PyResult<()> {
        let shape = self.src.blocks().0.shape();
        warned::warn_data(py, &job.facts(shape, labels_to_check(&self.labels, &self.true_draws), n_cal))
    }
}

/// Every method over every split at α, as `rvalue conformal` runs them (free of Python).
fn run(t: &ScoreTensor, labels: &[usize], job: &Job, splits: &[Split]) -> Result<Run> {
    let prep = Prepared::new(t, labels, core::needs_draw_orders(&job.methods, &job.opts))?;
    let ranks = core::difficulty_ranks(&prep.summaries.mean, t.k(), labels);
    let (alpha, never_empty) = (job.alpha, job.never_empty);
    let (mut records, mut rows) = (Vec::new(), Vec::new());
    for &method in &job.methods {
        let mut got = Measured::default();
        prep.calibrate_each_threads(method, &job.opts, splits, job.threads, |r, c| {
            records.push(got.add(method, alpha, splits[r].index, c.measure(alpha, never_empty, &ranks)));
        })?;
        rows.push(got.summary(method, alpha, t.k()));
    }
    Ok(Run { records, rows })
}

/// [`run`] on scores streamed a block at a time: the same records and rows.
fn run_streamed(
    src: &dyn ScoreBlocks,
    true_draws: Option<&TrueDraws>,
    labels: &[usize],
    job: &Job,
    splits: &[Split],
) -> Result<Run> {
    let (alpha, never_empty, k) = (job.alpha, job.never_empty, src.shape().2);
    // The methods come interleaved: each keeps its own measures, and the records and rows are
    // put in the methods' order at the end.
    let (mut records, mut rows): (Vec<Vec<SplitRecord>>, Vec<Option<Summary>>) =
        (per_method(job), per_method(job));
    let mut got: Vec<Measured> = per_method(job);
    streamed::each_calibrated_ranked(src, true_draws, labels, job, splits, |method, r, c, ranks| {
        let i = job.methods.iter().position(|x| *x == method).unwrap_or(0);
        records[i].push(got[i].add(method, alpha, splits[r].index, c.measure(alpha, never_empty, ranks)));
        if r + 1 == splits.len() {
            rows[i] = Some(std::mem::take(&mut got[i]).summary(method, alpha, k));
        }
    })?;
    Ok(Run { records: records.into_iter().flatten().collect(), rows: rows.into_iter().flatten().collect() })
}

/// A default value per method of `job`.
fn per_method<T: Default>(job: &Job) -> Vec<T> {
    job.methods.iter().map(|_| T::default()).collect()
}

/// One method's splits measured so far.
#[derive(Default)]
struct Measured {
    metrics: Vec<SplitMetrics>,
    sizes: Vec<Vec<usize>>,
    tallies: Vec<SplitTallies>,
}

impl Measured {
    /// Keeps split `split`'s measures and returns its record.
    fn add(
        &mut self,
        method: Method,
        alpha: f64,
        split: u64,
        (m, sizes, tallies): (SplitMetrics, Vec<usize>, SplitTallies),
    ) -> SplitRecord {
        self.metrics.push(m);
        self.sizes.push(sizes);
        self.tallies.push(tallies.clone());
        SplitRecord { method, alpha, split, metrics: m, tallies: Some(tallies) }
    }

    fn summary(self, method: Method, alpha: f64, k: usize) -> Summary {
        core::summarize_with(method, alpha, &self.metrics, &self.sizes, k, &self.tallies)
    }
}

scoring_fn! {
    /// Split-conformal coverage, set size, position and empty rate of each method over repeated
    /// splits: one dict per method with the columns of `rvalue conformal`.
    fn conformal<'py>(
        [scores, labels=None, alpha=options::Alphas(vec![0.1]), *, methods=options::Names::paper(),
        splits=100, seed=0, cal_fraction=0.5, split=None, split_indices=None, per_split=false]
        py: Python<'py>,
        scores: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        alpha: options::Alphas,
        methods: options::Names,
        splits: usize,
        seed: u64,
        cal_fraction: f64,
        split: Option<&Bound<'py, PyAny>>,
        split_indices: Option<&Bound<'py, PyAny>>,
        per_split: bool,
    )
    [never_empty=false, threads=None, cal_true=None, cal_size=None, test_size=None, progress=None,
    coverage="marginal", cal_labels=None]
    (
        never_empty: bool,
        threads: Option<usize>,
        cal_true: Option<&Bound<'py, PyAny>>,
        cal_size: Option<usize>,
        test_size: Option<usize>,
        progress: Option<&Bound<'py, PyAny>>,
        coverage: &str,
        cal_labels: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>>;
    |scoring, coverage| {
        let mut job = Job::new(methods.0, &scoring, lowest(&alpha.0)?, never_empty, threads)?;
        let c = Call::new(scores, labels, &job, (cal_true, cal_labels), progress)?;
        let (blocks, _) = c.src.blocks();
        let reading = if c.true_draws.is_none() { job.decide_reading(blocks)? } else { None };
        let args = ConformalArgs { splits, seed, cal_fraction, split, split_indices };
        let plan = plan_of(c.true_draws.as_ref(), blocks.shape().0, (cal_size, test_size), &args)?;
        let total = job.methods.len() * plan.splits.iter().map(|s| s.test.len()).sum::<usize>();
        let done = at_each(&alpha.0, &mut job, |job| {
            c.run(py, "conformal", total, |t, labels| run(t, labels, job, &plan.splits), |b, d, labels| {
                run_streamed(b, d, labels, job, &plan.splits)
            })
        })?;
        // After the run, which checks the labels: warnings then speak of data that was accepted.
        c.warn(py, &job, plan.splits.iter().map(|s| s.cal.len()).min())?;
        returned(py, &done, per_split, (blocks.shape().2, reading))
    }
}

/// The lowest of the levels `alphas`, each checked before any work: the warnings speak of it.
fn lowest(alphas: &[f64]) -> PyResult<f64> {
    alphas.iter().map(|&a| options::alpha(a)).try_fold(1.0_f64, |m, a| a.map(|a| m.min(a)))
}

/// One run per level of `alphas`, each on the same splits, joined in order: each run's rows are
/// those of a call at its level. `job` is left at the lowest level, which the warnings speak of.
fn at_each(alphas: &[f64], job: &mut Job, mut one: impl FnMut(&Job) -> PyResult<Run>) -> PyResult<Run> {
    let mut done = Run { records: Vec::new(), rows: Vec::new() };
    for &a in alphas {
        job.alpha = a;
        let run = one(job)?;
        done.records.extend(run.records);
        done.rows.extend(run.rows);
    }
    job.alpha = lowest(alphas)?;
    Ok(done)
}

/// The splits of `conformal`: of the true draws and the test items, or of the `n` items.
fn plan_of(
    true_draws: Option<&TrueDraws>,
    n: usize,
    sizes: (Option<usize>, Option<usize>),
    a: &ConformalArgs<'_, '_>,
) -> PyResult<Plan> {
    match true_draws {
        Some(p) => Ok(Plan { splits: streamed::true_draws_plan(p, n, sizes, a.splits, a.seed)? }),
        None => Plan::of(n, a),
    }
}

/// What `conformal` returns: the rows, or with `per_split` the records; per class, a warning
/// for each method whose classes entered every set for too few calibration items.
fn returned<'py>(
    py: Python<'py>,
    done: &Run,
    per_split: bool,
    (k, reading): (usize, Option<ScoresAre>),
) -> PyResult<Bound<'py, PyList>> {
    for s in &done.rows {
        let count = s.unbounded_classes.unwrap_or(0);
        options::warn_unbounded(py, s.method, count, (k, s.alpha), " in some split", true)?;
    }
    if per_split {
        PyList::new(py, done.records.iter().map(|r| record_dict(py, r)).collect::<PyResult<Vec<_>>>()?)
    } else {
        let with_reading = |s: &Summary| {
            let d = row_dict(py, s)?;
            if let (true, Some(r)) = (s.method.is_baseline(), reading) {
                d.set_item("scores_are", r.name())?;
            }
            Ok(d)
        };
        PyList::new(py, done.rows.iter().map(with_reading).collect::<PyResult<Vec<_>>>()?)
    }
}

/// The summary rows of per-split records gathered from any number of `conformal(...,
/// per_split=True)` calls: the rows of one `conformal` call over the same splits, bit for bit.
#[pyfunction]
pub fn summarize<'py>(py: Python<'py>, records: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let mut parsed = Vec::new();
    for item in records.try_iter()? {
        parsed.push(record_of(&item?)?);
    }
    let rows = summary_rows(parsed).map_err(value_error)?;
    PyList::new(py, rows.iter().map(|s| row_dict(py, s)).collect::<PyResult<Vec<_>>>()?)
}

/// Rows per method in the order the methods first appear, each over its splits in index order.
pub fn summary_rows(mut records: Vec<SplitRecord>) -> Result<Vec<Summary>> {
    if records.is_empty() {
        return Err(Error::invalid("no per-split records to summarise"));
    }
    let mut methods: Vec<Method> = Vec::new();
    for r in &records {
        if !methods.contains(&r.method) {
            methods.push(r.method);
        }
    }
    // Stable: a method's records keep their split order, whatever order the pieces came in.
    records.sort_by_key(|r| r.split);
    methods
        .iter()
        .map(|&method| {
            let mine: Vec<&SplitRecord> = records.iter().filter(|r| r.method == method).collect();
            check_records(method, &mine)?;
            let metrics: Vec<SplitMetrics> = mine.iter().map(|r| r.metrics).collect();
            // Conditional metrics only when every record carries its tallies.
            let tallies: Vec<SplitTallies> = mine.iter().map_while(|r| r.tallies.clone()).collect();
            let tallies = if tallies.len() == mine.len() { tallies } else { Vec::new() };
            // The size histogram is not a column; the core needs no sizes for the rest.
            Ok(core::summarize_with(method, mine[0].alpha, &metrics, &[], 0, &tallies))
        })
        .collect()
}

/// One α per method and no split twice (a piece gathered twice would count double).
fn check_records(method: Method, mine: &[&SplitRecord]) -> Result<()> {
    for pair in mine.windows(2) {
        if pair[0].split == pair[1].split {
            return Err(Error::invalid(format!("{}: split {} appears twice", method.name(), pair[0].split)));
        }
        if pair[0].alpha.to_bits() != pair[1].alpha.to_bits() {
            return Err(Error::invalid(format!(
                "{}: records at α = {} and α = {}; summarise one α at a time",
                method.name(),
                pair[0].alpha,
                pair[1].alpha
            )));
        }
    }
    Ok(())
}

/// Keys of a per-split record, in order.
const RECORD_KEYS: [&str; 7] = ["method", "alpha", "split", "coverage", "size", "position", "empty_rate"];

fn record_dict<'py>(py: Python<'py>, r: &SplitRecord) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(RECORD_KEYS[0], r.method.name())?;
    d.set_item(RECORD_KEYS[1], r.alpha)?;
    d.set_item(RECORD_KEYS[2], r.split)?;
    d.set_item(RECORD_KEYS[3], r.metrics.coverage)?;
    d.set_item(RECORD_KEYS[4], r.metrics.size)?;
    d.set_item(RECORD_KEYS[5], r.metrics.position)?;
    d.set_item(RECORD_KEYS[6], r.metrics.empty_rate)?;
    if let Some(t) = &r.tallies {
        tallies::put(&d, t, r.alpha)?;
    }
    Ok(d)
}

fn record_of(item: &Bound<'_, PyAny>) -> PyResult<SplitRecord> {
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        item.get_item(key).map_err(|_| {
            value_error(Error::invalid(format!(
                "a per-split record lacks '{key}'; expected the dicts of conformal(..., per_split=True)"
            )))
        })
    };
    let method: String = get(RECORD_KEYS[0])?.extract()?;
    Ok(SplitRecord {
        method: options::parse(&method)?,
        alpha: get(RECORD_KEYS[1])?.extract()?,
        split: get(RECORD_KEYS[2])?.extract()?,
        metrics: SplitMetrics {
            coverage: get(RECORD_KEYS[3])?.extract()?,
            size: get(RECORD_KEYS[4])?.extract()?,
            position: get(RECORD_KEYS[5])?.extract()?,
            empty_rate: get(RECORD_KEYS[6])?.extract()?,
            unbounded_classes: None,
        },
        tallies: tallies::of(item)?,
    })
}

/// A summary row with the CSV columns of `rvalue conformal` as keys, in their order.
fn row_dict<'py>(py: Python<'py>, s: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("method", s.method.name())?;
    d.set_item("alpha", s.alpha)?;
    d.set_item("coverage_mean", s.coverage_mean)?;
    d.set_item("coverage_sd", s.coverage_sd)?;
    d.set_item("size_mean", s.size_mean)?;
    d.set_item("size_sd", s.size_sd)?;
    d.set_item("position_mean", s.position_mean)?;
    d.set_item("empty_rate", s.empty_rate)?;
    d.set_item("splits", s.splits)?;
    tallies::put_summary(&d, s)?;
    if let Some(n) = s.unbounded_classes {
        d.set_item("coverage", "per-class")?;
        d.set_item("unbounded_classes", n)?;
    }
    Ok(d)
}

/// The columns of `rvalue sets`' CSV, one entry per (method, test item, candidate in the set).
#[derive(Default)]
struct SetRows {
    method: Vec<&'static str>,
    item: Vec<usize>,
    candidate: Vec<usize>,
    score: Vec<f64>,
    position: Vec<usize>,
    /// Per class: each method's classes that enter every set.
    unbounded: Vec<(Method, usize)>,
}

fn set_rows(t: &ScoreTensor, labels: &[usize], job: &Job, split: &Split) -> Result<SetRows> {
    let prep = Prepared::new(t, labels, core::needs_draw_orders(&job.methods, &job.opts))?;
    let mut out = SetRows::default();
    for &method in &job.methods {
        prep.calibrate_each_threads(method, &job.opts, std::slice::from_ref(split), job.threads, |_, c| {
            out.add(method, &c, job)
        })?;
    }
    Ok(out)
}

/// [`set_rows`] on scores streamed a block at a time: the same rows.
fn set_rows_streamed(
    src: &dyn ScoreBlocks,
    true_draws: Option<&TrueDraws>,
    labels: &[usize],
    job: &Job,
    split: &Split,
) -> Result<SetRows> {
    let mut out = SetRows::default();
    streamed::each_calibrated(src, true_draws, labels, job, std::slice::from_ref(split), |m, _, c| {
        out.add(m, c, job)
    })?;
    Ok(out)
}

impl SetRows {
    /// The rows of one calibrated split's sets.
    fn add(&mut self, method: Method, c: &Calibrated, job: &Job) {
        self.unbounded.push((method, c.unbounded_classes(job.alpha)));
        for pos in 0..c.test.len() {
            let set = c.set(pos, job.alpha, job.never_empty);
            for (position, &(candidate, score)) in set.members.iter().enumerate() {
                self.method.push(method.name());
                self.item.push(set.item);
                self.candidate.push(candidate);
                self.score.push(score);
                self.position.push(position);
            }
        }
    }
}

scoring_fn! {
    /// The prediction sets of one split (`split`: a boolean mask, `True` = calibration), as the
    /// columns of `rvalue sets`.
    fn sets<'py>(
        [scores, labels=None, split=None, alpha=0.1, *, methods=options::Names::paper(), seed=0]
        py: Python<'py>,
        scores: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        split: Option<&Bound<'py, PyAny>>,
        alpha: f64,
        methods: options::Names,
        seed: u64,
    )
    [never_empty=false, threads=None, cal_true=None, progress=None, coverage="marginal", cal_labels=None]
    (
        never_empty: bool,
        threads: Option<usize>,
        cal_true: Option<&Bound<'py, PyAny>>,
        progress: Option<&Bound<'py, PyAny>>,
        coverage: &str,
        cal_labels: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>>;
    |scoring, coverage| {
        let job = Job::new(methods.0, &scoring, alpha, never_empty, threads)?;
        let c = Call::new(scores, labels, &job, (cal_true, cal_labels), progress)?;
        let (blocks, _) = c.src.blocks();
        let split = split_of_sets(split, c.true_draws.as_ref(), blocks.shape().0, seed)?;
        let total = job.methods.len() * split.test.len();
        let rows = c.run(py, "sets", total, |t, labels| set_rows(t, labels, &job, &split), |b, d, labels| {
            set_rows_streamed(b, d, labels, &job, &split)
        })?;
        c.warn(py, &job, Some(split.cal.len()))?;
        for &(method, count) in &rows.unbounded {
            options::warn_unbounded(py, method, count, (blocks.shape().2, alpha), "", true)?;
        }
        set_columns(py, rows)
    }
}

/// The split `sets` runs: the mask given, or all the true draws against every item.
fn split_of_sets(
    split: Option<&Bound<'_, PyAny>>,
    true_draws: Option<&TrueDraws>,
    n: usize,
    seed: u64,
) -> PyResult<Split> {
    match (split, true_draws) {
        (Some(mask), None) => {
            Ok(Split::from_mask(&arrays::mask(mask, n)?).map_err(value_error)?.keyed(seed, 0))
        }
        (None, Some(p)) => Ok(streamed::true_draws_plan(p, n, (None, None), 1, seed)?.remove(0)),
        _ => Err(value_error(rvalue_core::Error::invalid("give split (a mask) or cal_true, one of them"))),
    }
}

/// `sets`' rows as the CSV's columns, numbers as numpy arrays.
fn set_columns(py: Python<'_>, rows: SetRows) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("method", PyList::new(py, rows.method)?)?;
    d.set_item("item", numpy::PyArray1::from_vec(py, to_i64(rows.item)))?;
    d.set_item("candidate", numpy::PyArray1::from_vec(py, to_i64(rows.candidate)))?;
    d.set_item("score", numpy::PyArray1::from_vec(py, rows.score))?;
    d.set_item("position", numpy::PyArray1::from_vec(py, to_i64(rows.position)))?;
    Ok(d)
}

/// The labels the warnings may judge: none with true draws, whose test items' labels may be
/// placeholders (sets need none).
fn labels_to_check<'a, P>(labels: &'a [usize], true_draws: &Option<P>) -> &'a [usize] {
    if true_draws.is_some() {
        &[]
    } else {
        labels
    }
}

/// Indices as numpy's default integer.
pub fn to_i64(v: Vec<usize>) -> Vec<i64> {
    v.into_iter().map(|x| x as i64).collect()
}
