//! The Python package `rvalue_explorer`: r-value conformal prediction on numpy arrays (and
//! anything `numpy.asarray` takes: memmaps, CPU torch tensors). Every number comes from
//! `rvalue-core`, through the same calls as the `rvalue` command line, so the results are the
//! CLI's bit for bit. Work runs with the GIL released, on every core unless `threads=` says
//! otherwise; a bad input raises `ValueError` with the core's message.
//!
//! `rvalue_explorer.pyi` (beside Cargo.toml) holds the signatures and docstrings Python users
//! read; maturin ships it in the wheel.

mod arrays;
mod calibration;
mod conformal;
mod options;
mod rank;
mod report;
mod scoring_fn;
mod splits;
mod streamed;
mod tallies;
mod warned;
mod watched;
mod widget;

use pyo3::prelude::*;

#[pymodule]
fn rvalue_explorer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<calibration::Calibration>()?;
    m.add_function(wrap_pyfunction!(calibration::calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(calibration::load, m)?)?;
    m.add_function(wrap_pyfunction!(calibration::from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(conformal::conformal, m)?)?;
    m.add_function(wrap_pyfunction!(conformal::summarize, m)?)?;
    m.add_function(wrap_pyfunction!(conformal::sets, m)?)?;
    m.add_function(wrap_pyfunction!(rank::rvalues, m)?)?;
    m.add_function(wrap_pyfunction!(splits::split_masks, m)?)?;
    m.add_function(wrap_pyfunction!(rank::toy_probability, m)?)?;
    m.add_function(wrap_pyfunction!(borrows, m)?)?;
    m.add_function(wrap_pyfunction!(report::page, m)?)?;
    m.add_function(wrap_pyfunction!(report::report_query, m)?)?;
    m.add_function(wrap_pyfunction!(widget::slider_position, m)?)?;
    m.add_function(wrap_pyfunction!(widget::slider_value, m)?)?;
    m.add("_widget_esm", widget::ESM)?;
    add_python_helpers(m)
}

/// The helpers written in Python (numpy and duck typing suit them better than Rust), built into
/// the extension and run at import, so that the wheel remains one compiled module; then the
/// stub's docstrings on the functions (`py/docs.py`), so that `help` shows them.
fn add_python_helpers(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let code = pyo3::ffi::c_str!(include_str!("py/estimators.py"));
    let helpers =
        PyModule::from_code(m.py(), code, c"rvalue_explorer/estimators.py", c"rvalue_explorer._estimators")?;
    let f = helpers.getattr("from_estimators")?;
    f.setattr("__module__", "rvalue_explorer")?;
    m.add("from_estimators", f)?;
    let code = pyo3::ffi::c_str!(include_str!("py/report.py"));
    let report = PyModule::from_code(m.py(), code, c"rvalue_explorer/report.py", c"rvalue_explorer._report")?;
    report.getattr("_bind")?.call1((m,))?;
    for name in ["save_html", "report_inputs"] {
        let f = report.getattr(name)?;
        f.setattr("__module__", "rvalue_explorer")?;
        m.add(name, f)?;
    }
    let code = pyo3::ffi::c_str!(include_str!("py/widget.py"));
    let widget = PyModule::from_code(m.py(), code, c"rvalue_explorer/widget.py", c"rvalue_explorer._widget")?;
    widget.getattr("_bind")?.call1((m, report))?;
    let f = widget.getattr("explore")?;
    f.setattr("__module__", "rvalue_explorer")?;
    m.add("explore", f)?;
    let code = pyo3::ffi::c_str!(include_str!("py/docs.py"));
    let docs = PyModule::from_code(m.py(), code, c"rvalue_explorer/docs.py", c"rvalue_explorer._docs")?;
    docs.getattr("document")?.call1((m, include_str!("../rvalue_explorer.pyi")))?;
    Ok(())
}

/// Internal, for the package's tests: whether `conformal`, `sets` and `predict` would read these
/// scores in place rather than copy them (the same decision, on the same checks).
#[pyfunction]
#[pyo3(name = "_borrows")]
fn borrows(scores: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(arrays::scores(scores, "scores", arrays::Hold::Call)?.tensor().is_shared())
}
