//! Score files read from their bytes by the core's readers, as the page reads a dropped file:
//! `.npy`, `.npz` and long-form CSV, told apart by content, with the page's messages.

use js_sys::{ArrayBuffer, Float64Array, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use rvalue_core::{io, Error, Result};

use crate::{js_error, object};

/// Reads a score file (`.npy` of `[N, M, K]` or `[N, K]`, `.npz` with `scores` and optional
/// `labels`, or long-form CSV) from its `bytes` (a Uint8Array, such as Node's Buffer, or an
/// ArrayBuffer); `name` is the file's name, used in messages only.
///
/// Returns `{scores, shape, labels}`: the scores as a Float64Array (row-major, candidate
/// fastest, as [`conformal`](crate::conformal) takes them), `shape: [n, m, k]` (`m = 1` for
/// `[N, K]`) and `labels` (a Uint32Array, or null when the file has none). A file the page
/// refuses throws an `Error` with the page's message.
#[wasm_bindgen(js_name = readScores)]
pub fn read_scores(bytes: JsValue, name: &str) -> std::result::Result<JsValue, JsError> {
    read_scores_of(&bytes, name).map_err(js_error)
}

fn read_scores_of(bytes: &JsValue, name: &str) -> Result<JsValue> {
    let d = io::read_scores(name, &bytes_of(bytes)?)?;
    let t = &d.scores;
    let shape: js_sys::Array = [t.n(), t.m(), t.k()].iter().map(|&v| JsValue::from(v as f64)).collect();
    let labels = d.labels.map_or(JsValue::NULL, |y| {
        let y: Vec<u32> = y.iter().map(|&v| v as u32).collect();
        Uint32Array::from(&y[..]).into()
    });
    Ok(object(&[
        ("scores", Float64Array::from(&t.data()[..]).into()),
        ("shape", shape.into()),
        ("labels", labels),
    ]))
}

/// The bytes of a Uint8Array (Node's Buffer is one) or an ArrayBuffer.
pub(crate) fn bytes_of(v: &JsValue) -> Result<Vec<u8>> {
    if let Some(a) = v.dyn_ref::<Uint8Array>() {
        return Ok(a.to_vec());
    }
    if let Some(b) = v.dyn_ref::<ArrayBuffer>() {
        return Ok(Uint8Array::new(b).to_vec());
    }
    Err(Error::invalid("bytes must be a Uint8Array (or Node's Buffer) or an ArrayBuffer"))
}
