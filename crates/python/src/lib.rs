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
mod saved;
mod streamed;
mod tallies;
mod watched;

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
    m.add_function(wrap_pyfunction!(rank::toy_probability, m)?)?;
    m.add_function(wrap_pyfunction!(borrows, m)?)?;
    Ok(())
}

/// Internal, for the package's tests: whether `conformal`, `sets` and `predict` would read these
/// scores in place rather than copy them (the same decision, on the same checks).
#[pyfunction]
#[pyo3(name = "_borrows")]
fn borrows(scores: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(arrays::scores(scores, "scores", arrays::Hold::Call)?.tensor().is_shared())
}
