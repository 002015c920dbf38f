//! `calibrate` and its `Calibration`: calibrate once on labelled items, then predict sets for
//! new items (`rvalue_core::predict`, docs/method.md §5).
//!
//! A prediction is the split whose calibration items are the labelled ones and whose test items
//! are the new ones, so a method whose scores look at other items (a pooled prior, pooled
//! r-values) is computed at `predict`, with the new items present. That is why the threshold is
//! known only after a prediction: one number for CP, CP_avg and per-item r-values, one per new
//! item for pooled r-values.
//!
//! A calibration may instead be on true-label draws alone (`cal_true`, `[n_cal, M]`, the layout
//! of the paper's ImageNet true-label draws): CP, CP_avg and pooled CP_r need nothing else of a
//! calibration item (`rvalue_core::conformal::true_draws`).
//!
//! Labelled items given as a file or a memmap are streamed a block at a time, never held
//! whole, and only what a prediction needs of them is kept (`rvalue_core::predict::from_blocks`): the
//! true-label draws (CP, CP_avg, pooled CP_r), the true label's score (per-item r-values), or
//! the summaries (a pooled prior). Predictions are those of the items held whole, bit for bit,
//! so a file is streamed whatever its size: the choice never depends on a threshold. A
//! prediction's new items are streamed too when they are a file or a memmap.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::Streaming;
use rvalue_core::conformal::true_draws::{self, TrueDraws};
use rvalue_core::conformal::{Coverage, Method, RvalueKind, ScoreOptions};
use rvalue_core::predict::from_blocks::{self, Keeps};
use rvalue_core::predict::{self, Prediction};
use rvalue_core::probability::ScoresAre;
use rvalue_core::{atomic_file, Error};

use crate::arrays::{self, value_error};
use crate::options;
use crate::scoring_fn::scoring_fn;
use crate::streamed::{self, Source};
use crate::watched::{self, Progress};
use rvalue_core::predict::saved::{self, Basis, Settings};

// The Python docstrings below are the stub's (rvalue_explorer.pyi), word for word:
// test_help.py checks it.
/// A method calibrated on labelled items, or on true-label draws (made by :func:`calibrate`).
///
/// ``predict(test_scores)`` gives the new items' prediction sets. A new item's set is its own:
/// the same alone, in any batch, at any place in it and repeated. A prediction is the split
/// whose calibration items are the labelled ones and whose test items are the new ones, with
/// two rules that keep the batch out: a pooled prior is fitted on the labelled items alone, and
/// pooled r-values order a new item's tied draws by a key of its own scores and ``seed``, not by
/// its place. Without a pooled prior and exchangeable pooled ties, the sets equal ``sets(...)``
/// (and ``rvalue sets``) on the joined items with that split, bit for bit. Pooled r-values are
/// computed at ``predict``, so their thresholds are known only after a prediction.
#[pyclass(module = "rvalue_explorer", name = "Calibration")]
pub struct Calibration {
    /// What it was calibrated on, copied: a later change to the caller's array changes nothing.
    basis: Basis,
    method: Method,
    opts: ScoreOptions,
    #[pyo3(get)]
    alpha: f64,
    #[pyo3(get)]
    never_empty: bool,
    #[pyo3(get)]
    seed: u64,
    #[pyo3(get)]
    threads: usize,
    /// The last prediction and the α it was asked at.
    last: Option<(Prediction, f64)>,
    /// Per class, the classes of true-label units (draws or scores), which carry none.
    classes: Option<Vec<usize>>,
}

scoring_fn! {
    /// Calibrates `method` on labelled `scores` and `labels` (an array; or a file and the labels
    /// it carries, or a memmap, streamed), or on true-label draws `cal_true` `[n_cal, M]`, for
    /// predicting sets of new items.
    fn calibrate<'py>(
        [scores=None, labels=None, alpha=0.1, *, method="cp-r"]
        scores: Option<&Bound<'py, PyAny>>,
        labels: Option<&Bound<'py, PyAny>>,
        alpha: f64,
        method: &str,
    )
    [never_empty=false, seed=0, threads=None, cal_true=None, progress=None, coverage="marginal",
    cal_labels=None]
    (
        never_empty: bool,
        seed: u64,
        threads: Option<usize>,
        cal_true: Option<&Bound<'py, PyAny>>,
        progress: Option<&Bound<'py, PyAny>>,
        coverage: &str,
        cal_labels: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Calibration>;
    |scoring, coverage| {
        let progress = Progress::of(progress)?;
        let settings = Settings {
            method: options::parse(method)?,
            opts: scoring.options()?,
            alpha: options::alpha(alpha)?,
            never_empty,
            seed,
        };
        calibrated(settings, (scores, labels), (cal_true, cal_labels), threads, progress)
    }
}

/// [`calibrate`] with its options read: on items, or on true-label draws.
fn calibrated<'py>(
    mut settings: Settings,
    (scores, labels): (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    (cal_true, cal_labels): (Option<&Bound<'py, PyAny>>, Option<&Bound<'py, PyAny>>),
    threads: Option<usize>,
    progress: Progress<'py>,
) -> PyResult<Calibration> {
    let opts = settings.opts;
    let threads = options::threads(threads)?;
    let per_class = opts.coverage == Coverage::PerClass;
    let (basis, classes) = match (scores, cal_true) {
        (Some(scores), None) if cal_labels.is_none() => {
            on_items(scores, labels, &mut settings, threads, progress)?
        }
        (Some(_), None) => {
            return Err(value_error(Error::invalid("cal_labels go with cal_true; give labels with scores")))
        }
        (None, Some(true_draws)) if labels.is_none() => {
            let classes = cal_labels.map(|l| arrays::indices(l, "cal_labels")).transpose()?;
            (Basis::TrueDraws(streamed::true_draw_scores(true_draws)?), classes.filter(|_| per_class))
        }
        (None, Some(_)) => {
            return Err(value_error(Error::invalid("cal_true carries its labels: give no labels")))
        }
        _ => return Err(value_error(Error::invalid("give scores and labels, or cal_true, one of them"))),
    };
    Calibration::new(settings, basis, classes, threads).map_err(value_error)
}

/// The basis of a calibration on labelled items: an array copied whole; a file or a memmap
/// streamed (watched: progress, Ctrl-C), keeping what [`Keeps`] says (the baselines: each
/// item's true-label score, under the reading decided here on the file and kept in `s`).
fn on_items<'py>(
    scores: &Bound<'py, PyAny>,
    labels: Option<&Bound<'py, PyAny>>,
    s: &mut Settings,
    threads: usize,
    progress: Progress<'py>,
) -> PyResult<(Basis, Option<Vec<usize>>)> {
    if !streamed::is_file_or_memmap(scores)? {
        let (cal, _) = streamed::whole(scores, "scores")?;
        return Ok((Basis::Items { cal, labels: streamed::labels(labels, None)? }, None));
    }
    let (src, carried) = streamed::source(scores)?;
    let labels = streamed::labels(labels, carried)?;
    if let Source::Array { tensor, streamed: false } = src {
        // A file the core reads whole (CSV, Fortran order): the package owns it already.
        return Ok((Basis::Items { cal: tensor.into_copy(), labels }, None));
    }
    let (blocks, _) = src.blocks();
    let (_, m, k) = blocks.shape();
    // What `Calibration::new` checks, before a pass over what may be a large file.
    from_blocks::check_labels(&labels, blocks.shape().0, k).map_err(value_error)?;
    if s.opts.cp_draw >= m {
        let msg = format!("CP's draw {} does not exist (M = {m})", s.opts.cp_draw);
        return Err(value_error(Error::invalid(msg)));
    }
    if s.method.is_baseline() {
        s.opts.scores_are = reading(scores.py(), blocks, s.opts.scores_are, threads, progress.clone())?;
    }
    let (method, opts, seed) = (s.method, &s.opts, s.seed);
    let work = || -> rvalue_core::Result<Basis> {
        // Each pass counts its items as done, for the progress bar.
        let blocks = &from_blocks::Counted(blocks);
        let run = Streaming { threads, ..Streaming::default() };
        let report = &mut |_: &str, _: usize, _: usize| {};
        Ok(match Keeps::of(method, opts) {
            Keeps::TrueDraws => {
                Basis::TrueDraws(from_blocks::true_label_draws(blocks, &labels, &run, report)?)
            }
            Keeps::TrueScores => {
                let scores = from_blocks::true_label_scores(blocks, &labels, method, opts, &run, report)?;
                Basis::TrueScores { scores, m, k }
            }
            Keeps::Summaries => {
                let summaries = from_blocks::summaries(blocks, &run, report)?;
                Basis::Summaries { summaries, labels: labels.clone() }
            }
            Keeps::Probabilities => {
                let scores =
                    from_blocks::baseline_true_scores(blocks, &labels, method, opts, seed, &run, report)?;
                Basis::TrueScores { scores, m, k }
            }
        })
    };
    let basis = watched::run(scores.py(), progress, "calibrate", blocks.shape().0, work)?;
    // Per class, true-label units keep their labels as their classes.
    let per_class = opts.coverage == Coverage::PerClass;
    let classes =
        (per_class && matches!(basis, Basis::TrueDraws(_) | Basis::TrueScores { .. })).then_some(labels);
    Ok((basis, classes))
}

/// The baselines' reading of a streamed file, `asked` or under `auto` decided in a pass over it
/// (watched: Ctrl-C), kept in the calibration so that new items are read alike.
fn reading<'py>(
    py: Python<'py>,
    blocks: &dyn ScoreBlocks,
    asked: ScoresAre,
    threads: usize,
    progress: Progress<'py>,
) -> PyResult<ScoresAre> {
    let decide = || {
        let run = Streaming { threads, ..Streaming::default() };
        rvalue_core::conformal::streamed::reading(blocks, asked, &run, &mut |_, _, _| {})
    };
    watched::run(py, progress, "read", blocks.shape().0, decide)
}

/// Reads a calibration saved by `Calibration.save`; `threads` as in `calibrate`.
#[pyfunction]
#[pyo3(signature = (path, *, threads=None))]
pub fn load(path: std::path::PathBuf, threads: Option<usize>) -> PyResult<Calibration> {
    let bytes = std::fs::read(&path)
        .map_err(|e| PyOSError::new_err(format!("{}: cannot read: {e}", path.display())))?;
    let name = path.display().to_string();
    let (settings, basis, classes) = saved::decode(&bytes, &name).map_err(value_error)?;
    let threads = options::threads(threads)?;
    Calibration::new(settings, basis, classes, threads)
        .map_err(|e| value_error(Error::parse(name, "data", e.to_string())))
}

/// A pickled calibration's bytes back (what `Calibration.__reduce__` names).
#[pyfunction]
#[pyo3(name = "_from_bytes")]
pub fn from_bytes(data: &[u8]) -> PyResult<Calibration> {
    let (settings, basis, classes) = saved::decode(data, "pickled calibration").map_err(value_error)?;
    Calibration::new(settings, basis, classes, options::threads(None)?).map_err(value_error)
}

/// A streamed calibration's basis must be what its method keeps ([`Keeps`]), its labels those
/// of its candidates.
fn check_kept(s: &Settings, basis: &Basis) -> rvalue_core::Result<()> {
    let got = match basis {
        Basis::TrueScores { .. } if s.method.is_baseline() => Keeps::Probabilities,
        Basis::TrueScores { .. } => Keeps::TrueScores,
        Basis::Summaries { .. } => Keeps::Summaries,
        Basis::Items { .. } | Basis::TrueDraws(_) => Keeps::TrueDraws,
    };
    if got != Keeps::of(s.method, &s.opts) {
        return Err(Error::invalid(format!(
            "a calibration on {} does not fit {} with these options",
            basis.name(),
            s.method
        )));
    }
    match basis {
        Basis::Summaries { summaries, labels } => from_blocks::check_labels(labels, summaries.n, summaries.k),
        _ => Ok(()),
    }
}

/// A calibration's true-label draws, held as read (float16 stays float16, widened
/// where read), with its units' classes when per class.
fn true_draws_of(
    draws: &rvalue_core::tensor::ScoreTensor,
    classes: Option<&[usize]>,
) -> rvalue_core::Result<TrueDraws> {
    let true_draws = TrueDraws::of_single_draw(draws.clone())?;
    match classes {
        Some(c) => true_draws.with_classes(c.to_vec()),
        None => Ok(true_draws),
    }
}

/// Per class, true-label units need their classes, one per unit, each a candidate when the
/// calibration knows K (true-label draws are checked against the new items' K).
fn check_classes(s: &Settings, basis: &Basis, classes: Option<&[usize]>) -> rvalue_core::Result<()> {
    let true_label = matches!(basis, Basis::TrueDraws(_) | Basis::TrueScores { .. });
    match (s.opts.coverage, classes) {
        (Coverage::PerClass, None) if true_label => Err(Error::invalid(
            "coverage='per-class' needs the class of every calibration item, and true-label draws \
             carry none: give the pool's classes as cal_labels",
        )),
        (_, Some(c)) => {
            let n = basis.units();
            if c.len() != n {
                return Err(Error::length("cal_labels", c.len(), format!("{n} calibration units")));
            }
            let k = basis.candidates().unwrap_or(usize::MAX);
            match c.iter().position(|&y| y >= k) {
                Some(i) => {
                    Err(Error::invalid(format!("calibration label of unit {i} is {} but K = {k}", c[i])))
                }
                None => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

impl Calibration {
    /// A calibration on `basis`, checked as `calibrate` checks its arguments.
    fn new(
        s: Settings,
        basis: Basis,
        classes: Option<Vec<usize>>,
        threads: usize,
    ) -> rvalue_core::Result<Calibration> {
        check_classes(&s, &basis, classes.as_deref())?;
        match &basis {
            Basis::Items { cal, labels } => rvalue_core::conformal::check_data(cal, labels)?,
            Basis::TrueDraws(_) => true_draws::check_methods(&[s.method], &s.opts)?,
            Basis::TrueScores { .. } | Basis::Summaries { .. } => check_kept(&s, &basis)?,
        }
        rvalue_core::conformal::check_alpha(s.alpha)?;
        let m = basis.draws();
        if s.opts.cp_draw >= m {
            return Err(Error::invalid(format!("CP's draw {} does not exist (M = {m})", s.opts.cp_draw)));
        }
        Ok(Calibration {
            basis,
            method: s.method,
            opts: s.opts,
            alpha: s.alpha,
            never_empty: s.never_empty,
            seed: s.seed,
            threads,
            last: None,
            classes,
        })
    }

    fn settings(&self) -> Settings {
        Settings {
            method: self.method,
            opts: self.opts,
            alpha: self.alpha,
            never_empty: self.never_empty,
            seed: self.seed,
        }
    }
}

impl Calibration {
    /// The prediction of `test_scores`, watched (progress, Ctrl-C).
    fn predicted<'py>(
        &self,
        py: Python<'py>,
        test_scores: &Bound<'py, PyAny>,
        progress: Progress<'py>,
    ) -> PyResult<Prediction> {
        let (method, opts, seed, threads) = (self.method, &self.opts, self.seed, self.threads);
        let classes = self.classes.as_deref();
        let p = match &self.basis {
            Basis::Items { cal, labels } => {
                // Read in place: the core joins the new items to the calibration's in a copy.
                let test = streamed::for_call(test_scores, "test_scores")?;
                let test = test.tensor();
                let work = || predict::predict(cal, labels, test, method, opts, seed, threads);
                watched::run(py, progress, "predict", test.n(), work)?
            }
            Basis::TrueDraws(draws) => {
                // Streamed when given as a file or a memmap, as `conformal` streams.
                let (src, _) = streamed::source(test_scores)?;
                let (test, _) = src.blocks();
                let work = || {
                    let run = Streaming { threads, ..Streaming::default() };
                    let (cal, quiet) = (true_draws_of(draws, classes)?, &mut |_: &str, _, _| {});
                    predict::predict_with_true_draws(&cal, test, method, opts, seed, &run, quiet)
                };
                watched::run(py, progress, "predict", test.shape().0, work)?
            }
            Basis::TrueScores { scores, m, k } => {
                let (src, _) = streamed::source(test_scores)?;
                let (test, _) = src.blocks();
                let work = || {
                    let (run, report) =
                        (Streaming { threads, ..Streaming::default() }, &mut |_: &str, _, _| {});
                    let cal = (scores.as_slice(), classes, (*m, *k));
                    from_blocks::predict_with_true_scores(
                        cal.0, cal.1, cal.2, test, method, opts, seed, &run, report,
                    )
                };
                watched::run(py, progress, "predict", test.shape().0, work)?
            }
            Basis::Summaries { summaries, labels } => {
                let (src, _) = streamed::source(test_scores)?;
                let (test, _) = src.blocks();
                let work = || {
                    let run = Streaming { threads, ..Streaming::default() };
                    let report = &mut |_: &str, _: usize, _: usize| {};
                    from_blocks::predict_with_summaries(summaries, labels, test, opts, seed, &run, report)
                };
                watched::run(py, progress, "predict", test.shape().0, work)?
            }
        };
        Ok(p)
    }
}

#[pymethods]
impl Calibration {
    /// Prediction sets of new items as a boolean mask ``[n_test, K]`` (True = in the set).
    ///
    /// ``test_scores``: ``[n_test, M, K]`` or ``[n_test, K]``, the same M and K as the
    /// calibration; or a path. A path or a ``numpy.memmap`` is streamed a block of items at a
    /// time, as :func:`conformal` streams, unless the calibration is on an array's items (then
    /// a path is read whole, as the new items are joined to the calibration's). ``alpha``:
    /// default the calibration's. Updates ``threshold``, ``scores`` and
    /// ``predicted_alpha``. ``progress``: see the module's notes (total: ``n_test``).
    #[pyo3(signature = (test_scores, alpha=None, *, progress=None))]
    fn predict<'py>(
        &mut self,
        py: Python<'py>,
        test_scores: &Bound<'py, PyAny>,
        alpha: Option<f64>,
        progress: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let progress = Progress::of(progress)?;
        let alpha = options::alpha(alpha.unwrap_or(self.alpha))?;
        let p = self.predicted(py, test_scores, progress)?;
        let method = self.method;
        options::warn_unbounded(py, method, p.unbounded_classes(alpha), (p.k(), alpha), "", false)?;
        let mask = PyArray1::from_vec(py, p.mask(alpha, self.never_empty)).reshape([p.n_test(), p.k()])?;
        self.last = Some((p, alpha));
        Ok(mask)
    }

    /// Writes the calibration (options, labels, scores; not the last prediction) to
    /// ``path``, whole or not at all: a temporary file beside it is renamed onto it when
    /// complete, so an older file there survives a failure. :func:`load` reads it back.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let bytes = saved::encode(&self.settings(), &self.basis, self.classes.as_deref());
        py.detach(|| atomic_file::write(&path, &bytes)).map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// Pickles as the bytes ``save`` writes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = saved::encode(&self.settings(), &self.basis, self.classes.as_deref());
        let from_bytes = py.import("rvalue_explorer")?.getattr("_from_bytes")?;
        Ok((from_bytes, (PyBytes::new(py, &bytes),)))
    }

    /// The method: "cp", "cp-avg" or "cp-r".
    #[getter]
    fn method(&self) -> &'static str {
        self.method.name()
    }

    /// CP_r's r-value kind.
    #[getter]
    fn rvalue(&self) -> &'static str {
        self.opts.kind.name()
    }

    #[getter]
    fn variance(&self) -> &'static str {
        self.opts.variance.name()
    }

    #[getter]
    fn prior(&self) -> &'static str {
        self.opts.prior.name()
    }

    #[getter]
    fn algorithm(&self) -> &'static str {
        self.opts.algorithm.name()
    }

    #[getter]
    fn lambda_rule(&self) -> &'static str {
        self.opts.lambda.name()
    }

    #[getter]
    fn cp_draw(&self) -> usize {
        self.opts.cp_draw
    }

    #[getter]
    fn ties(&self) -> &'static str {
        self.opts.ties.name()
    }

    /// "marginal" (one threshold) or "per-class" (a threshold per class).
    #[getter]
    fn coverage(&self) -> &'static str {
        self.opts.coverage.name()
    }

    /// Labelled items (or true-label units) calibrated on.
    #[getter]
    fn n_calibration(&self) -> usize {
        self.basis.units()
    }

    /// Draws per item.
    #[getter]
    fn m(&self) -> usize {
        self.basis.draws()
    }

    /// Candidates per item; None for a calibration on true-label draws (any K is predicted).
    #[getter]
    fn k(&self) -> Option<usize> {
        self.basis.candidates()
    }

    /// What the calibration is on: "items" (an array), "true-label-draws" (`cal_true`, or a
    /// file or memmap under CP, CP_avg or pooled CP_r), "true-label-scores" (a file or memmap
    /// under per-item r-values or a baseline) or "summaries" (under a pooled prior).
    #[getter]
    fn calibrated_on(&self) -> &'static str {
        self.basis.name()
    }

    /// Whether each new item gets a threshold of its own (pooled r-values).
    #[getter]
    fn per_item_threshold(&self) -> bool {
        self.method == Method::CpR && self.opts.kind == RvalueKind::Pooled
    }

    /// The α of the last prediction, or None before one.
    #[getter]
    fn predicted_alpha(&self) -> Option<f64> {
        self.last.as_ref().map(|(_, a)| *a)
    }

    /// The last prediction's threshold: a float, or an array with one per new item for pooled
    /// r-values; per class, an array `[n_test, K]` of each candidate's class threshold; None
    /// before a prediction.
    #[getter]
    fn threshold<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((p, alpha)) = &self.last else { return Ok(None) };
        if self.opts.coverage == Coverage::PerClass {
            let (n, k) = (p.n_test(), p.k());
            let each: Vec<f64> = (0..n * k).map(|u| p.class_threshold(u / k, u % k, *alpha)).collect();
            return Ok(Some(PyArray1::from_vec(py, each).reshape([n, k])?.into_any()));
        }
        if !p.per_item_threshold() {
            return Ok(Some(p.threshold(0, *alpha).into_pyobject(py)?.into_any()));
        }
        let each: Vec<f64> = (0..p.n_test()).map(|j| p.threshold(j, *alpha)).collect();
        Ok(Some(PyArray1::from_vec(py, each).into_any()))
    }

    /// The last prediction's scores `[n_test, K]` under the method (lower is more conforming;
    /// the r-values for CP_r); None before a prediction.
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let Some((p, _)) = &self.last else { return Ok(None) };
        let flat: Vec<f64> = (0..p.n_test()).flat_map(|j| p.scores(j).into_owned()).collect();
        Ok(Some(PyArray1::from_vec(py, flat).reshape([p.n_test(), p.k()])?))
    }

    fn __repr__(&self) -> String {
        let options = match (self.method, self.opts.kind) {
            (Method::Cp, _) => format!(", cp_draw={}", self.opts.cp_draw),
            (Method::CpAvg, _) => String::new(),
            (Method::CpR, RvalueKind::Pooled) => {
                format!(", rvalue='pooled', ties='{}'", self.opts.ties.name())
            }
            (Method::CpR, RvalueKind::Nonparametric) => ", rvalue='nonparametric'".to_string(),
            (Method::CpR, RvalueKind::Parametric) => format!(
                ", rvalue='parametric', variance='{}', prior='{}', algorithm='{}', lambda_rule='{}'",
                self.opts.variance.name(),
                self.opts.prior.name(),
                self.opts.algorithm.name(),
                self.opts.lambda.name()
            ),
            (m, _) => {
                let b = &self.opts.baseline;
                let params = match m {
                    Method::Raps => format!(", raps_lambda={}, raps_kreg={}", b.raps_lambda, b.raps_kreg),
                    Method::Saps => format!(", saps_lambda={}", b.saps_lambda),
                    _ => String::new(),
                };
                let randomized = if b.randomized { "True" } else { "False" };
                format!(", scores_are='{}'{params}, randomized={randomized}", self.opts.scores_are.name())
            }
        };
        let last = match &self.last {
            None => "no prediction yet".to_string(),
            Some((p, a)) => format!("last prediction: {} items at alpha={a}", p.n_test()),
        };
        let on = match &self.basis {
            Basis::Items { cal, .. } => format!("n_calibration={}, M={}, K={}", cal.n(), cal.m(), cal.k()),
            Basis::TrueDraws(t) => format!("true-label draws of {} items, M={}", t.n(), t.k()),
            Basis::TrueScores { scores, m, k } => {
                format!("true-label scores of {} items, M={m}, K={k}", scores.len())
            }
            Basis::Summaries { summaries: s, .. } => {
                format!("summaries of {} items, M={}, K={}", s.n, s.m, s.k)
            }
        };
        let coverage = match self.opts.coverage {
            Coverage::PerClass => ", coverage='per-class'",
            Coverage::Marginal => "",
        };
        format!(
            "Calibration(method='{}'{options}{coverage}, alpha={}, never_empty={}, {on}; {last})",
            self.method.name(),
            self.alpha,
            if self.never_empty { "True" } else { "False" },
        )
    }
}
