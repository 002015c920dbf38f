//! What `save_html` (written in Python, `py/report.py`) needs from Rust: the explorer page
//! built into the module, and the checks of a report's inputs, made as the package's other
//! functions and the page make them, so that a bad input raises before any file is written.

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rvalue_core::conformal::streamed::check_labels;
use rvalue_core::io::check_names;
use rvalue_core::Error;
use rvalue_model::url::report::{query, Refused};

use crate::arrays::{self, value_error, Hold};
use crate::streamed;

/// The built page: `dist/index.html`, its JavaScript glue and wasm, its style sheet.
struct Page {
    html: &'static str,
    script: &'static str,
    wasm: &'static [u8],
    style: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/page.rs"));

/// Internal: the explorer page's files, by role (`html`, `script`, `wasm`, `style`), for
/// `save_html` and anything else that shows the page from Python.
#[pyfunction]
#[pyo3(name = "_page")]
pub fn page(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let Some(p) = PAGE else {
        return Err(PyRuntimeError::new_err(
            "this build of rvalue_explorer has no explorer page (dist/ was not built when it was \
             compiled): build the package with `make wheel`, which builds the page first",
        ));
    };
    let d = PyDict::new(py);
    d.set_item("html", p.html)?;
    d.set_item("script", p.script)?;
    d.set_item("wasm", PyBytes::new(py, p.wasm))?;
    d.set_item("style", p.style)?;
    Ok(d)
}

/// Internal: checks a report's arrays, class names and settings (name, value as text), and
/// returns the settings as the query the page reads. Bad data: `ValueError` with the message
/// the package's other functions give; unknown settings: `TypeError` naming them.
#[pyfunction]
#[pyo3(name = "_report_query", signature = (scores, labels, class_names, settings))]
pub fn report_query(
    scores: &Bound<'_, PyAny>,
    labels: Option<&Bound<'_, PyAny>>,
    class_names: Option<Vec<String>>,
    settings: Vec<(String, String)>,
) -> PyResult<String> {
    let t = arrays::scores(scores, "scores", Hold::Call)?;
    let (n, k) = (t.tensor().n(), t.tensor().k());
    let labels = streamed::labels(labels, None)?;
    check_labels(&labels, n, k).map_err(value_error)?;
    if let Some(names) = &class_names {
        check_names(names, k).map_err(|why| value_error(Error::invalid(format!("class_names: {why}"))))?;
    }
    query(&settings).map_err(|r| match r {
        Refused::Unknown(names) => PyTypeError::new_err(format!(
            "save_html() got unknown settings: {}; a report takes the page's link parameters \
             (alpha, beta, sigma2, rvalue, splits, item, panel, name, …), '-' written '_'",
            names.join(", ")
        )),
        Refused::Bad(why) => PyValueError::new_err(why),
    })
}
