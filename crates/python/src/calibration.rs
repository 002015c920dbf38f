//! `calibrate` and its `Calibration`: calibrate once on labelled items, then predict sets for
//! new items (`rvalue_core::predict`, docs/method.md §5).
//!
//! A prediction is the split whose calibration items are the labelled ones and whose test items
//! are the new ones, so a method whose scores look at other items (a pooled prior, pooled
//! r-values) is computed at `predict`, with the new items present. That is why the threshold is
//! known only after a prediction: one number for CP, CP_avg and per-item r-values, one per new
//! item for pooled r-values.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rvalue_core::conformal::{Method, RvalueKind, ScoreOptions};
use rvalue_core::predict::{self, Prediction};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{whole_file, Error};

use crate::arrays::{self, value_error, Hold};
use crate::options::{self, Scoring};
use crate::saved::{self, Settings};
use crate::watched::{self, Progress};

/// A method calibrated on labelled items. `predict(test_scores)` gives the new items' sets.
#[pyclass(module = "rvalue_explorer", name = "Calibration")]
pub struct Calibration {
    /// The labelled items' scores, copied: a later change to the caller's array changes nothing.
    cal: ScoreTensor,
    labels: Vec<usize>,
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
}

/// Calibrates `method` on labelled `scores` and `labels` for predicting sets of new items.
#[pyfunction]
#[pyo3(signature = (
    scores, labels, alpha=0.1, *, method="cp-r", rvalue="pooled", variance="per-draw",
    prior="per-item", algorithm="exact", lambda_rule="model", cp_draw=0, ties="exchangeable",
    never_empty=false, seed=0, threads=None
))]
#[allow(clippy::too_many_arguments)] // the command line's options, by name
pub fn calibrate(
    scores: &Bound<'_, PyAny>,
    labels: &Bound<'_, PyAny>,
    alpha: f64,
    method: &str,
    rvalue: &str,
    variance: &str,
    prior: &str,
    algorithm: &str,
    lambda_rule: &str,
    cp_draw: usize,
    ties: &str,
    never_empty: bool,
    seed: u64,
    threads: Option<usize>,
) -> PyResult<Calibration> {
    let opts = Scoring { rvalue, variance, prior, algorithm, lambda_rule, cp_draw, ties }.options()?;
    let cal = arrays::scores(scores, "scores", Hold::Copy)?.into_copy();
    let labels = arrays::indices(labels, "labels")?;
    let settings =
        Settings { method: options::parse(method)?, opts, alpha: options::alpha(alpha)?, never_empty, seed };
    Calibration::new(settings, cal, labels, options::threads(threads)?).map_err(value_error)
}

/// Reads a calibration saved by `Calibration.save`; `threads` as in `calibrate`.
#[pyfunction]
#[pyo3(signature = (path, *, threads=None))]
pub fn load(path: std::path::PathBuf, threads: Option<usize>) -> PyResult<Calibration> {
    let bytes = std::fs::read(&path)
        .map_err(|e| PyOSError::new_err(format!("{}: cannot read: {e}", path.display())))?;
    let name = path.display().to_string();
    let (settings, cal, labels) = saved::decode(&bytes, &name).map_err(value_error)?;
    let threads = options::threads(threads)?;
    Calibration::new(settings, cal, labels, threads)
        .map_err(|e| value_error(Error::parse(name, "data", e.to_string())))
}

/// A pickled calibration's bytes back (what `Calibration.__reduce__` names).
#[pyfunction]
#[pyo3(name = "_from_bytes")]
pub fn from_bytes(data: &[u8]) -> PyResult<Calibration> {
    let (settings, cal, labels) = saved::decode(data, "pickled calibration").map_err(value_error)?;
    Calibration::new(settings, cal, labels, options::threads(None)?).map_err(value_error)
}

impl Calibration {
    /// A calibration on `cal` and `labels`, checked as `calibrate` checks its arguments.
    fn new(
        s: Settings,
        cal: ScoreTensor,
        labels: Vec<usize>,
        threads: usize,
    ) -> rvalue_core::Result<Calibration> {
        rvalue_core::conformal::check_data(&cal, &labels)?;
        rvalue_core::conformal::check_alpha(s.alpha)?;
        if s.opts.cp_draw >= cal.m() {
            return Err(Error::invalid(format!(
                "CP's draw {} does not exist (M = {})",
                s.opts.cp_draw,
                cal.m()
            )));
        }
        Ok(Calibration {
            cal,
            labels,
            method: s.method,
            opts: s.opts,
            alpha: s.alpha,
            never_empty: s.never_empty,
            seed: s.seed,
            threads,
            last: None,
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

#[pymethods]
impl Calibration {
    /// The new items' sets as a boolean mask `[n_test, K]` (`True` = in the set), at `alpha`
    /// (default: the calibration's).
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
        // Read in place: the core joins the new items to the calibration's in a copy of its own.
        let test = arrays::scores(test_scores, "test_scores", Hold::Call)?;
        let test = test.tensor();
        let (cal, labels, method, opts) = (&self.cal, &self.labels, self.method, &self.opts);
        let (seed, threads) = (self.seed, self.threads);
        let work = || predict::predict(cal, labels, test, method, opts, seed, threads);
        let p = watched::run(py, progress, "predict", test.n(), work)?;
        let mask = PyArray1::from_vec(py, p.mask(alpha, self.never_empty)).reshape([p.n_test(), p.k()])?;
        self.last = Some((p, alpha));
        Ok(mask)
    }

    /// Writes the calibration to `path` (whole or not at all: a temporary file beside it,
    /// renamed when complete). The last prediction is not saved.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let bytes = saved::encode(&self.settings(), &self.cal, &self.labels);
        py.detach(|| whole_file::write(&path, &bytes)).map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// Pickles through the saved-file format (never Python objects): `_from_bytes(bytes)`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let bytes = saved::encode(&self.settings(), &self.cal, &self.labels);
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

    /// Labelled items calibrated on.
    #[getter]
    fn n_calibration(&self) -> usize {
        self.cal.n()
    }

    /// Draws per item.
    #[getter]
    fn m(&self) -> usize {
        self.cal.m()
    }

    /// Candidates per item.
    #[getter]
    fn k(&self) -> usize {
        self.cal.k()
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
    /// r-values; None before a prediction.
    #[getter]
    fn threshold<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some((p, alpha)) = &self.last else { return Ok(None) };
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
        };
        let last = match &self.last {
            None => "no prediction yet".to_string(),
            Some((p, a)) => format!("last prediction: {} items at alpha={a}", p.n_test()),
        };
        format!(
            "Calibration(method='{}'{options}, alpha={}, never_empty={}, n_calibration={}, M={}, K={}; {last})",
            self.method.name(),
            self.alpha,
            if self.never_empty { "True" } else { "False" },
            self.cal.n(),
            self.cal.m(),
            self.cal.k()
        )
    }
}
