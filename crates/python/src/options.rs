//! The keyword options, spelt as the command line spells them (`rvalue="pooled"`,
//! `ties="index"`), read by the core's own parsers so the names and their error messages are the
//! CLI's and the page's.

use std::str::FromStr;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::{self, Streaming};
use rvalue_core::conformal::warnings::Facts;
use rvalue_core::conformal::{Baseline, Method, ScoreOptions};
use rvalue_core::probability::ScoresAre;
use rvalue_core::Error;

use crate::arrays::value_error;

/// An option's value from its name, or the core's error listing the names allowed.
pub fn parse<T: FromStr<Err = Error>>(name: &str) -> PyResult<T> {
    name.parse().map_err(value_error)
}

/// `methods=`: one method's name, or a sequence of names (any iterable of strings but a string).
pub struct Names(pub Vec<String>);

impl Names {
    /// The paper's three methods, in the CLI's order: the default, as the CLI's (the baselines
    /// on request).
    pub fn paper() -> Names {
        Names(Method::PAPER.iter().map(|m| m.name().to_string()).collect())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Names {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(one) = obj.extract::<String>() {
            return Ok(Names(vec![one]));
        }
        obj.extract::<Vec<String>>()
            .map(Names)
            .map_err(|_| PyTypeError::new_err("expected a method's name or a sequence of names"))
    }
}

/// `alpha=` of `conformal`: one level, or a sequence of them (one row per level and method).
pub struct Alphas(pub Vec<f64>);

impl<'a, 'py> FromPyObject<'a, 'py> for Alphas {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(one) = obj.extract::<f64>() {
            return Ok(Alphas(vec![one]));
        }
        match obj.extract::<Vec<f64>>() {
            Ok(all) if !all.is_empty() => Ok(Alphas(all)),
            _ => Err(PyTypeError::new_err("expected a number or a non-empty sequence of numbers")),
        }
    }
}

/// The core's default r-value kind (every face's): the keyword's default.
pub fn default_rvalue() -> &'static str {
    ScoreOptions::default().kind.name()
}

/// The core's default prior of the parametric r-value (every face's): the keyword's default.
pub fn default_prior() -> &'static str {
    ScoreOptions::default().prior.name()
}

/// How CP and CP_r score: the options shared by `conformal`, `sets` and `calibrate`.
pub struct Scoring<'a> {
    pub rvalue: &'a str,
    pub variance: &'a str,
    pub prior: &'a str,
    pub algorithm: &'a str,
    pub lambda_rule: &'a str,
    pub cp_draw: usize,
    pub ties: &'a str,
    pub coverage: &'a str,
    pub baselines: Baselines<'a>,
}

/// The baselines' options (APS, RAPS, SAPS): `scores_are`, `raps_lambda`, `raps_kreg`,
/// `saps_lambda`, `randomized`.
#[derive(Clone, Copy)]
pub struct Baselines<'a> {
    pub scores_are: &'a str,
    pub raps_lambda: f64,
    pub raps_kreg: f64,
    pub saps_lambda: f64,
    pub randomized: bool,
}

impl Baselines<'_> {
    fn baseline(&self) -> PyResult<Baseline> {
        let b = Baseline {
            raps_lambda: self.raps_lambda,
            raps_kreg: self.raps_kreg,
            saps_lambda: self.saps_lambda,
            randomized: self.randomized,
        };
        b.check().map_err(value_error)?;
        Ok(b)
    }
}

impl Scoring<'_> {
    pub fn options(&self) -> PyResult<ScoreOptions> {
        Ok(ScoreOptions {
            kind: parse(self.rvalue)?,
            variance: parse(self.variance)?,
            prior: parse(self.prior)?,
            algorithm: parse(self.algorithm)?,
            lambda: parse(self.lambda_rule)?,
            cp_draw: self.cp_draw,
            ties: parse(self.ties)?,
            coverage: parse(self.coverage)?,
            scores_are: parse(self.baselines.scores_are)?,
            baseline: self.baselines.baseline()?,
        })
    }
}

/// Per class: a Python warning when `count` of the `k` classes enter every set at α for too
/// few calibration items (`where_`: in which splits, or empty). `wrapped`: the caller runs under
/// the stub's documented wrapper (`py/docs.py`), whose frame the warning skips to name the user's.
pub fn warn_unbounded(
    py: Python<'_>,
    method: Method,
    count: usize,
    (k, alpha): (usize, f64),
    where_: &str,
    wrapped: bool,
) -> PyResult<()> {
    if count == 0 {
        return Ok(());
    }
    let msg = format!(
        "{method}: {count} of {k} classes have too few calibration items for per-class coverage at \
         alpha = {alpha}{where_}: their threshold is +inf, so they enter every set"
    );
    let level = if wrapped { 2 } else { 1 };
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("stacklevel", level)?;
    py.import("warnings")?.call_method("warn", (msg,), Some(&kwargs))?;
    Ok(())
}

/// The methods in the given order, refusing none and duplicates (as `--method` does).
pub fn methods(names: Vec<String>) -> PyResult<Vec<Method>> {
    if names.is_empty() {
        return Err(value_error(Error::invalid(
            "methods is empty; expected some of cp, cp-avg, cp-r, aps, raps and saps",
        )));
    }
    let methods = names.iter().map(|n| parse::<Method>(n)).collect::<PyResult<Vec<_>>>()?;
    for (i, m) in methods.iter().enumerate() {
        if methods[..i].contains(m) {
            return Err(value_error(Error::invalid(format!("methods lists {} twice", m.name()))));
        }
    }
    Ok(methods)
}

/// `threads`, or every core the system offers; at least one.
pub fn threads(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(value_error(Error::invalid("threads must be at least 1"))),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// α in (0, 1).
pub fn alpha(alpha: f64) -> PyResult<f64> {
    rvalue_core::conformal::check_alpha(alpha).map_err(value_error)?;
    Ok(alpha)
}

/// What a run computes, checked: the methods, how they score, α, never-empty sets and threads.
pub struct Job {
    pub methods: Vec<Method>,
    pub opts: ScoreOptions,
    pub alpha: f64,
    pub never_empty: bool,
    pub threads: usize,
}

impl Job {
    pub fn new(
        methods: Vec<String>,
        scoring: &Scoring<'_>,
        alpha: f64,
        never_empty: bool,
        threads: Option<usize>,
    ) -> PyResult<Job> {
        Ok(Job {
            methods: self::methods(methods)?,
            opts: scoring.options()?,
            alpha: self::alpha(alpha)?,
            never_empty,
            threads: self::threads(threads)?,
        })
    }

    /// Decides the baselines' reading of `scores` once, before the run (`auto` on the data, an
    /// explicit one checked), so that their rows can say which it was: `None` when no baseline
    /// runs.
    pub fn decide_reading(&mut self, scores: &dyn ScoreBlocks) -> PyResult<Option<ScoresAre>> {
        if !self.methods.iter().any(|m| m.is_baseline()) {
            return Ok(None);
        }
        let run = Streaming { threads: self.threads, ..Streaming::default() };
        let asked = self.opts.scores_are;
        let got = streamed::reading(scores, asked, &run, &mut |_, _, _| {}).map_err(value_error)?;
        self.opts.scores_are = got;
        Ok(Some(got))
    }

    /// What the core's warnings read, for data of `shape` `(N, M, K)`.
    pub fn facts<'a>(
        &'a self,
        shape: (usize, usize, usize),
        labels: &'a [usize],
        n_cal: Option<usize>,
    ) -> Facts<'a> {
        let (_, m, k) = shape;
        Facts { m, k, labels, n_cal, alpha: self.alpha, methods: &self.methods, kind: self.opts.kind }
    }
}
