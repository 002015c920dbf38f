//! What `explore` (written in Python, `py/widget.py`) needs from Rust: the sliders' scales, so
//! that a value set from Python moves the page's slider to the position the page itself would
//! give it (as a link does), and a position the reader moved to reads back as the page shows it.
//! The widget's browser side (`py/widget.js`) is built in as text.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rvalue_model::scales;

/// The widget's JavaScript module (anywidget's `_esm`).
pub const ESM: &str = include_str!("py/widget.js");

/// A slider's scale: the value at a position, and the position nearest a value.
type Scale = (fn(u32) -> f64, fn(f64) -> u32);

fn scale(name: &str) -> PyResult<Scale> {
    match name {
        "alpha" => Ok((scales::alpha_at, scales::alpha_position)),
        "beta" => Ok((scales::beta_at, scales::beta_position)),
        "sigma2" => Ok((scales::sigma2_at, scales::sigma2_position)),
        _ => Err(PyValueError::new_err(format!("no slider named {name:?} (alpha, beta, sigma2)"))),
    }
}

/// Internal: the position of slider `name` nearest `value`.
#[pyfunction]
#[pyo3(name = "_slider_position")]
pub fn slider_position(name: &str, value: f64) -> PyResult<u32> {
    Ok(scale(name)?.1(value))
}

/// Internal: the value slider `name` shows at `position`.
#[pyfunction]
#[pyo3(name = "_slider_value")]
pub fn slider_value(name: &str, position: u32) -> PyResult<f64> {
    Ok(scale(name)?.0(position))
}
