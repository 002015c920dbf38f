//! Python inputs as the core's types: anything `numpy.asarray` accepts (numpy arrays in any
//! memory order, memmaps, CPU torch tensors, lists) becomes a `ScoreTensor`, labels, a split
//! mask or a vector of numbers. Every refusal is a `ValueError` with the core's message.
//!
//! What is copied: the scores, once, into the core's row-major tensor (`ScoreTensor::from_view`
//! / `from_view_f32`: one `memcpy` for a C-ordered float64 or float32 array, float32 kept as f32,
//! an element-wise pass in logical order for any other layout). Integer or float16 scores are first
//! converted to a float64 array by numpy (a second copy). Labels and masks are copied into
//! `usize`/`bool` vectors; both are N numbers, small beside the scores.

use ndarray::{ArrayView3, Axis, Ix3};
use numpy::{PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::Error;

/// The core's error as the `ValueError` Python callers catch, with the core's message.
pub fn value_error(e: Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `numpy.asarray(obj)` as an array of any dtype.
fn as_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = obj.py();
    let a = py.import("numpy")?.getattr("asarray")?.call1((obj,))?;
    Ok(a.cast_into::<PyUntypedArray>()?)
}

/// The dtype's kind character: `f` float, `i` signed, `u` unsigned, `b` bool, …
fn kind(a: &Bound<'_, PyUntypedArray>) -> char {
    char::from(a.dtype().kind())
}

fn dtype_name(a: &Bound<'_, PyUntypedArray>) -> String {
    a.dtype().to_string()
}

/// `a.astype(dtype)` (a copy).
fn astype<'py>(a: &Bound<'py, PyUntypedArray>, dtype: &str) -> PyResult<Bound<'py, PyUntypedArray>> {
    Ok(a.call_method1("astype", (dtype,))?.cast_into::<PyUntypedArray>()?)
}

/// Scores `[N, M, K]`, or `[N, K]` read as M = 1 (`what` names the argument in messages).
/// The copy into the tensor runs with the GIL released.
pub fn scores(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<ScoreTensor> {
    let mut a = as_array(obj)?;
    let ndim = a.ndim();
    if ndim != 2 && ndim != 3 {
        return Err(value_error(Error::shape(format!(
            "{what} must have shape [N, M, K] or [N, K], got {ndim} dimensions {:?}",
            a.shape()
        ))));
    }
    if !matches!(kind(&a), 'f' | 'i' | 'u') {
        return Err(value_error(Error::invalid(format!(
            "{what} must be real numbers (float32 or float64), got dtype {}",
            dtype_name(&a)
        ))));
    }
    let py = a.py();
    if let Ok(f) = a.cast::<PyArrayDyn<f32>>() {
        let ro = f.readonly();
        let view = three_d(ro.as_array())?;
        return py.detach(|| ScoreTensor::from_view_f32(view)).map_err(value_error);
    }
    // Native float64 as it is; any other real dtype (integers, float16, big-endian) through numpy.
    if a.cast::<PyArrayDyn<f64>>().is_err() {
        a = astype(&a, "float64")?;
    }
    let ro: PyReadonlyArrayDyn<'_, f64> = a.cast::<PyArrayDyn<f64>>()?.readonly();
    let view = three_d(ro.as_array())?;
    py.detach(|| ScoreTensor::from_view(view)).map_err(value_error)
}

/// An `[N, M, K]` view of a 3-d array, or of a 2-d one with M = 1 inserted (no copy).
fn three_d<T>(v: ndarray::ArrayViewD<'_, T>) -> PyResult<ArrayView3<'_, T>> {
    let v = if v.ndim() == 2 { v.insert_axis(Axis(1)) } else { v };
    v.into_dimensionality::<Ix3>().map_err(|e| value_error(Error::shape(e.to_string())))
}

/// A one-dimensional array of any integer dtype, each ≥ 0 (`what` names it); the core checks
/// that labels are below K.
pub fn indices(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    let a = as_array(obj)?;
    if a.ndim() != 1 {
        return Err(value_error(Error::shape(format!(
            "{what} must be one-dimensional, got shape {:?}",
            a.shape()
        ))));
    }
    let values: Vec<i128> = match kind(&a) {
        'i' => vector::<i64>(&astype(&a, "int64")?)?.into_iter().map(i128::from).collect(),
        'u' => vector::<u64>(&astype(&a, "uint64")?)?.into_iter().map(i128::from).collect(),
        _ => {
            return Err(value_error(Error::invalid(format!(
                "{what} must be integers, got dtype {}",
                dtype_name(&a)
            ))))
        }
    };
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v)
                .map_err(|_| value_error(Error::invalid(format!("{what}[{i}] is {v}, expected ≥ 0"))))
        })
        .collect()
}

/// A boolean mask of `n` entries (`True` = calibration).
pub fn mask(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<bool>> {
    let a = as_array(obj)?;
    if kind(&a) != 'b' || a.ndim() != 1 {
        return Err(value_error(Error::invalid(format!(
            "split must be a one-dimensional boolean mask (True = calibration), got dtype {} and shape {:?}",
            dtype_name(&a),
            a.shape()
        ))));
    }
    let mask = vector::<bool>(&a)?;
    if mask.len() != n {
        return Err(value_error(Error::shape(format!(
            "the split mask has {} entries for {n} items",
            mask.len()
        ))));
    }
    Ok(mask)
}

/// A one-dimensional array of real numbers as f64 (`what` names it).
pub fn numbers(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
    let a = as_array(obj)?;
    if a.ndim() != 1 || !matches!(kind(&a), 'f' | 'i' | 'u') {
        return Err(value_error(Error::invalid(format!(
            "{what} must be a one-dimensional array of real numbers, got dtype {} and shape {:?}",
            dtype_name(&a),
            a.shape()
        ))));
    }
    vector::<f64>(&astype(&a, "float64")?)
}

/// The elements of a one-dimensional array of dtype `T`, in order.
fn vector<T: numpy::Element + Copy>(a: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<T>> {
    Ok(a.cast::<PyArray1<T>>()?.readonly().as_array().iter().copied().collect())
}
