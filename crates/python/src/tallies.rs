//! The conditional coverage fields of `conformal`'s dicts (docs/method.md §5, conditional
//! coverage): a summary row's metrics over splits and tallies pooled over splits, a per-split record's metrics and tallies
//! (which `summarize` reads back).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rvalue_core::conformal::{
    SplitTallies, Stratum, Summary, Tally, CONDITIONAL_COLUMNS, DIFFICULTY_STRATA, SIZE_STRATA,
};
use rvalue_core::Error;

use crate::arrays::value_error;

/// The conditional columns of a summary row, after `splits`, as `rvalue conformal` names them.
pub fn put_summary(d: &Bound<'_, PyDict>, s: &Summary) -> PyResult<()> {
    for (key, x) in CONDITIONAL_COLUMNS.into_iter().zip(s.conditional.numbers()) {
        d.set_item(key, x)?;
    }
    d.set_item(
        "class_coverage",
        s.conditional.class_tallies.iter().map(Tally::coverage).collect::<Vec<f64>>(),
    )?;
    d.set_item("class_count", s.conditional.class_tallies.iter().map(|t| t.count).collect::<Vec<u64>>())?;
    d.set_item("size_strata", strata(d.py(), &s.conditional.size_strata)?)?;
    d.set_item("difficulty_strata", strata(d.py(), &s.conditional.difficulty_strata)?)?;
    Ok(())
}

/// `[{lo, hi, coverage, count}, ...]` (coverage NaN for an empty stratum).
fn strata<'py>(py: Python<'py>, all: &[Stratum]) -> PyResult<Bound<'py, PyList>> {
    let dicts = all
        .iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("lo", s.lo)?;
            d.set_item("hi", s.hi)?;
            d.set_item("coverage", s.coverage())?;
            d.set_item("count", s.count)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, dicts)
}

/// A per-split record's conditional metrics at α and its tallies (covered and count per class,
/// per size stratum and per difficulty stratum).
pub fn put(d: &Bound<'_, PyDict>, t: &SplitTallies, alpha: f64) -> PyResult<()> {
    let m = t.metrics(alpha);
    d.set_item("macro_coverage", m.macro_coverage)?;
    d.set_item("worst_class_coverage", m.worst_class_coverage)?;
    d.set_item("covgap", m.covgap)?;
    d.set_item("violated_classes", m.violated_classes)?;
    d.set_item("sscv", m.sscv)?;
    d.set_item("dsv", m.dsv)?;
    let covered = |c: &[Stratum]| c.iter().map(|s| s.covered).collect::<Vec<u64>>();
    let count = |c: &[Stratum]| c.iter().map(|s| s.count).collect::<Vec<u64>>();
    d.set_item("class_covered", t.classes.iter().map(|c| c.covered).collect::<Vec<u64>>())?;
    d.set_item("class_count", t.classes.iter().map(|c| c.count).collect::<Vec<u64>>())?;
    d.set_item("size_covered", covered(&t.sizes))?;
    d.set_item("size_count", count(&t.sizes))?;
    d.set_item("difficulty_covered", covered(&t.difficulty))?;
    d.set_item("difficulty_count", count(&t.difficulty))?;
    Ok(())
}

/// The tallies of a per-split record, `None` when it has none (a record from before they
/// existed, or written by hand): `summarize` then leaves the conditional metrics NaN.
pub fn of(item: &Bound<'_, PyAny>) -> PyResult<Option<SplitTallies>> {
    if !item.contains("class_count").unwrap_or(false) {
        return Ok(None);
    }
    let list = |key: &str| -> PyResult<Vec<u64>> { item.get_item(key)?.extract() };
    let (covered, count) = (list("class_covered")?, list("class_count")?);
    if covered.len() != count.len() || covered.iter().zip(&count).any(|(a, b)| a > b) {
        return Err(bad("class_covered and class_count"));
    }
    let mut t = SplitTallies::new(count.len());
    for (c, (&a, &b)) in t.classes.iter_mut().zip(covered.iter().zip(&count)) {
        *c = Tally { covered: a, count: b };
    }
    fill(&mut t.sizes, list("size_covered")?, list("size_count")?, SIZE_STRATA.len(), "size")?;
    let (a, b) = (list("difficulty_covered")?, list("difficulty_count")?);
    fill(&mut t.difficulty, a, b, DIFFICULTY_STRATA.len(), "difficulty")?;
    Ok(Some(t))
}

fn fill(strata: &mut [Stratum], covered: Vec<u64>, count: Vec<u64>, n: usize, what: &str) -> PyResult<()> {
    if covered.len() != n || count.len() != n || covered.iter().zip(&count).any(|(a, b)| a > b) {
        return Err(bad(&format!("{what}_covered and {what}_count")));
    }
    for (s, (a, b)) in strata.iter_mut().zip(covered.into_iter().zip(count)) {
        (s.covered, s.count) = (a, b);
    }
    Ok(())
}

fn bad(what: &str) -> PyErr {
    value_error(Error::invalid(format!(
        "a per-split record's {what} do not fit together; expected the dicts of conformal(..., per_split=True)"
    )))
}
