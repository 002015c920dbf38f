//! Python inputs as the core's types: anything `numpy.asarray` accepts (numpy arrays in any
//! memory order, memmaps, CPU torch tensors, lists) becomes a `ScoreTensor`, labels, a split
//! mask or a vector of numbers. Every refusal is a `ValueError` with the core's message.
//!
//! What is copied: for a call that uses the scores only while it runs (`conformal`, `sets`,
//! `predict`'s new items), a C-ordered, aligned, native-endian float64, float32 or float16 array
//! is read in place (`ScoreTensor::from_shared`); any other layout is copied once into the core's
//! row-major tensor (`ScoreTensor::from_view` / `from_view_f32` / `from_view_f16_bits`, each
//! float kept in its width). `calibrate` always copies, so that a later change to the array
//! changes no `Calibration`. Integer or big-endian scores are first converted to a float64 array
//! by numpy (a second copy). Labels and masks are copied into `usize`/`bool` vectors; both are N
//! numbers, small beside the scores.

use ndarray::{ArrayView3, Axis, Ix3};
use numpy::{PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rvalue_core::tensor::{ScoreTensor, Scores, SharedScores};
use rvalue_core::Error;
use std::sync::Arc;

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

/// How a call holds the scores it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// For the call only: read in place when the layout allows ([`in_place`]).
    Call,
    /// A private copy, kept after the call (a snapshot of the array as it is now).
    Copy,
}

/// Scores as the core's tensor, and the numpy array they may be read from in place.
pub struct Tensor<'py> {
    tensor: ScoreTensor,
    /// The numpy crate's shared borrow of the array read in place, held while the tensor is used.
    _lease: Option<Lease<'py>>,
}

#[expect(dead_code, reason = "held, never read: the borrow ends when the lease is dropped")]
enum Lease<'py> {
    F64(PyReadonlyArrayDyn<'py, f64>),
    F32(PyReadonlyArrayDyn<'py, f32>),
    /// A `uint16` view of a float16 array (the same buffer): its bit patterns.
    F16(PyReadonlyArrayDyn<'py, u16>),
}

impl Tensor<'_> {
    /// A tensor the package owns (read from a file), leasing nothing.
    pub fn owned(tensor: ScoreTensor) -> Tensor<'static> {
        Tensor { tensor, _lease: None }
    }

    pub fn tensor(&self) -> &ScoreTensor {
        &self.tensor
    }

    /// The tensor for keeping, once it is certain to be a copy ([`Hold::Copy`]).
    pub fn into_copy(self) -> ScoreTensor {
        debug_assert!(!self.tensor.is_shared(), "a borrowed tensor kept beyond its call");
        self.tensor
    }
}

/// Scores `[N, M, K]`, or `[N, K]` read as M = 1 (`what` names the argument in messages).
/// The copy into the tensor, or the check of scores read in place, runs with the GIL released.
pub fn scores<'py>(obj: &Bound<'py, PyAny>, what: &str, hold: Hold) -> PyResult<Tensor<'py>> {
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
            "{what} must be real numbers (float16, float32 or float64), got dtype {}",
            dtype_name(&a)
        ))));
    }
    // Only the caller's own float buffer is read in place, not numpy's conversion.
    let shareable = hold == Hold::Call && a.is_c_contiguous() && a.is_aligned();
    if let Ok(f) = a.cast::<PyArrayDyn<f32>>() {
        let typed = Typed { run: Scores::F32, copy: ScoreTensor::from_view_f32, lease: Lease::F32 };
        return typed.tensor(f.readonly(), shareable);
    }
    if let Some(bits) = float16_bits(&a)? {
        let typed = Typed { run: Scores::F16, copy: ScoreTensor::from_view_f16_bits, lease: Lease::F16 };
        return typed.tensor(bits.readonly(), shareable);
    }
    // Native float64 as it is; any other real dtype (integers, big-endian) through numpy.
    let converted = a.cast::<PyArrayDyn<f64>>().is_err();
    if converted {
        a = astype(&a, "float64")?;
    }
    let typed = Typed { run: Scores::F64, copy: ScoreTensor::from_view, lease: Lease::F64 };
    typed.tensor(a.cast::<PyArrayDyn<f64>>()?.readonly(), shareable && !converted)
}

/// A native-endian float16 array seen as `uint16` (`a.view('uint16')`: the same buffer, no copy,
/// each element its binary16 bit pattern), so that the core keeps it as float16; `None` for any
/// other dtype. The numpy crate has no float16 element without the `half` crate.
fn float16_bits<'py>(a: &Bound<'py, PyUntypedArray>) -> PyResult<Option<Bound<'py, PyArrayDyn<u16>>>> {
    let d = a.dtype();
    if d.kind() != b'f' || d.itemsize() != 2 || d.is_native_byteorder() == Some(false) {
        return Ok(None);
    }
    let view = a.call_method1("view", ("uint16",))?;
    Ok(Some(view.cast_into::<PyArrayDyn<u16>>()?))
}

/// What differs between float scores of each width: how a run is tagged, copied and leased.
struct Typed<'py, T: numpy::Element + 'static> {
    run: fn(&'static [T]) -> Scores<'static>,
    copy: fn(ArrayView3<'_, T>) -> rvalue_core::Result<ScoreTensor>,
    lease: fn(PyReadonlyArrayDyn<'py, T>) -> Lease<'py>,
}

impl<'py, T: numpy::Element + Sync + 'static> Typed<'py, T> {
    /// The tensor of `ro`'s scores: read in place if `share` (and the buffer is one run), else
    /// copied; the check or copy runs with the GIL released.
    fn tensor(self, ro: PyReadonlyArrayDyn<'py, T>, share: bool) -> PyResult<Tensor<'py>> {
        let view = three_d(ro.as_array())?;
        let (n, m, k) = view.dim();
        let tensor = match share.then(|| in_place(&ro, self.run)).flatten() {
            Some(owner) => ro.py().detach(|| ScoreTensor::from_shared(n, m, k, Arc::new(owner))),
            None => ro.py().detach(|| (self.copy)(view)),
        };
        let tensor = tensor.map_err(value_error)?;
        let lease = tensor.is_shared().then(|| (self.lease)(ro));
        Ok(Tensor { tensor, _lease: lease })
    }
}

/// A numpy array's scores, read in place by a tensor ([`ScoreTensor::from_shared`]).
struct InPlace {
    /// A reference to the array: its buffer lives at least as long as this.
    _array: Py<PyAny>,
    scores: Scores<'static>,
}

impl std::fmt::Debug for InPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InPlace({} scores of a numpy array)", self.scores.len())
    }
}

impl SharedScores for InPlace {
    fn scores(&self) -> Scores<'_> {
        self.scores
    }
}

/// The scores of a contiguous array to read in place (`run` tags their type), or None when its
/// buffer is not one contiguous run.
///
/// Safety argument for the one `unsafe` of the package: the slice is the array's buffer, and the
/// returned owner holds a reference to the array, so the buffer is not freed while the slice is
/// reachable (it is only ever lent out for as long as the owner is borrowed). numpy frees or
/// moves a buffer only when no reference remains (`resize` refuses while one does; with
/// `refcheck=False` the caller takes that risk, as for any view). [`scores`] keeps the numpy
/// crate's shared borrow (`ro`) in the `Tensor` the call uses, so no Rust code that respects it
/// writes to the array meanwhile; Python code writing to the array from another thread during
/// the call is not allowed, as for numpy's own functions that release the GIL (said in the
/// `.pyi`).
fn in_place<T: numpy::Element>(
    ro: &PyReadonlyArrayDyn<'_, T>,
    run: fn(&'static [T]) -> Scores<'static>,
) -> Option<InPlace> {
    let slice = ro.as_slice().ok()?;
    // SAFETY: see above; pointer and length come from a valid slice of the same buffer.
    let scores: &'static [T] = unsafe { std::slice::from_raw_parts(slice.as_ptr(), slice.len()) };
    Some(InPlace { _array: ro.as_any().clone().unbind(), scores: run(scores) })
}

/// An `[N, M, K]` view of a 3-d array, or of a 2-d one with M = 1 inserted (no copy).
fn three_d<T>(v: ndarray::ArrayViewD<'_, T>) -> PyResult<ArrayView3<'_, T>> {
    let v = if v.ndim() == 2 { v.insert_axis(Axis(1)) } else { v };
    v.into_dimensionality::<Ix3>().map_err(|e| value_error(Error::shape(e.to_string())))
}

/// A one-dimensional array of any integer dtype, or of whole-number floats, each ≥ 0 (`what`
/// names it); the core checks that labels are below K.
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
        // Integer-valued floats, as the CLI and the page read them from a file.
        'f' => whole_numbers(vector::<f64>(&astype(&a, "float64")?)?, what)?,
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

/// Floats that are whole numbers, as integers; anything else refused in the files' words.
fn whole_numbers(v: Vec<f64>, what: &str) -> PyResult<Vec<i128>> {
    v.into_iter()
        .enumerate()
        .map(|(i, x)| match x.is_finite() && x.fract() == 0.0 && x.abs() < 2f64.powi(63) {
            true => Ok(x as i128),
            false => Err(value_error(Error::invalid(format!(
                "{what}[{i}] is {x}; expected an integer class index"
            )))),
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
