//! The core's warnings on data and settings (`conformal::warnings`), raised as Python
//! `UserWarning`s in the CLI's words, so `warnings.filterwarnings` and pytest see them.

use std::ffi::CString;

use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use rvalue_core::conformal::warnings::{self, Facts};

/// Warns once per warning that applies; an error only if a warning filter turned it into one.
/// Its callers (`conformal`, `sets`) run under the stub's documented wrapper (`py/docs.py`), so
/// the warning names the frame above it: the user's call.
pub fn warn_data(py: Python<'_>, facts: &Facts) -> PyResult<()> {
    for w in warnings::check(facts) {
        // A sentence of ours never holds a NUL; skip rather than fail if one ever did.
        let Ok(text) = CString::new(w.to_string()) else { continue };
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 2)?;
    }
    Ok(())
}
