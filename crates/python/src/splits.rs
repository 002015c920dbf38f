//! `split_masks`: the seeded splits of `conformal` as boolean masks, so a split the CLI, the page
//! or a Dask worker ran can be named, saved and run again anywhere (`split=`, `--split`).

use numpy::{PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use rvalue_core::conformal::Split;

use crate::arrays::value_error;

/// Masks `[R, n]` (`True` = calibration) of splits `0..splits` of seed `seed`, or of the split
/// numbers in `indices`: row `r` is the split that `conformal(..., seed=seed)` runs as split
/// `r`, and `rvalue sets --split-index r` runs.
#[pyfunction]
#[pyo3(signature = (n, splits=100, *, seed=0, cal_fraction=0.5, indices=None))]
pub fn split_masks<'py>(
    py: Python<'py>,
    n: usize,
    splits: usize,
    seed: u64,
    cal_fraction: f64,
    indices: Option<Vec<usize>>,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let indices = indices.unwrap_or_else(|| (0..splits).collect());
    if indices.is_empty() {
        return Err(value_error(rvalue_core::Error::invalid(
            "no split asked for: splits = 0 or indices empty",
        )));
    }
    let mut rows = Vec::with_capacity(indices.len() * n);
    for &r in &indices {
        rows.extend(Split::random(n, cal_fraction, seed, r).map_err(value_error)?.mask(n));
    }
    let flat = numpy::PyArray1::from_vec(py, rows);
    flat.reshape([indices.len(), n])
}
