//! What a Web Worker of the page runs (`www/worker.js`, which loads the page's own wasm module):
//! the `#[wasm_bindgen]` exports its script calls. A worker computes toy repeats
//! ([`rvalue_compute_part`]), a held score file's pooled splits ([`rvalue_hold_data`],
//! [`rvalue_compute_split`]) and a streamed file's shares and pooled splits: it holds the
//! file's handle or address, not its bytes ([`rvalue_hold_file`], [`rvalue_hold_hosted`]),
//! and reads what each request names ([`rvalue_compute_share`], [`rvalue_splits_start`],
//! [`rvalue_splits_step`]). Each answer is bytes the page's job takes as its own.

use std::cell::RefCell;
use std::ops::Range;

use js_sys::{Float32Array, Float64Array, Uint16Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::File;

use crate::byte_source::{ByteSource, HostedFile};
use crate::to_js;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::Result;
use rvalue_model::files::{self, ReadAhead};
use rvalue_model::workers::HeldStream;
use rvalue_model::HeldData;

/// The repeat a worker computes, for the worker script: `explorer::compute_part`.
#[wasm_bindgen]
pub fn rvalue_compute_part(request: &str) -> std::result::Result<Vec<u8>, JsValue> {
    rvalue_model::compute_part(request).map_err(to_js)
}

thread_local! {
    /// The score file whose splits the worker calibrates.
    static HELD_DATA: RefCell<Option<HeldData>> = const { RefCell::new(None) };
    /// The streamed file whose shares and pooled splits the worker reads.
    static HELD_STREAM: RefCell<Option<(ByteSource, HeldStream)>> = const { RefCell::new(None) };
}

/// A score file for the worker script to hold, replacing the one before: its shape, labels and
/// scores (the labels as numbers too, which spares the module a second kind of array). The
/// scores come in the page's stored type (`crate::pool`'s `stored_array`) and are held in it.
#[wasm_bindgen]
pub fn rvalue_hold_data(
    n: usize,
    m: usize,
    k: usize,
    labels: Vec<f64>,
    scores: JsValue,
) -> std::result::Result<(), JsValue> {
    HELD_DATA.with(|h| h.borrow_mut().take());
    let labels = labels.into_iter().map(|y| y as usize).collect();
    let tensor = if let Some(a) = scores.dyn_ref::<Uint16Array>() {
        ScoreTensor::from_f16_bits(n, m, k, a.to_vec())
    } else if let Some(a) = scores.dyn_ref::<Float32Array>() {
        ScoreTensor::from_f32(n, m, k, a.to_vec())
    } else if let Some(a) = scores.dyn_ref::<Float64Array>() {
        ScoreTensor::new(n, m, k, a.to_vec())
    } else {
        return Err(JsValue::from_str("the scores are not a Float64Array, Float32Array or Uint16Array"));
    };
    let held = tensor.and_then(|t| HeldData::new(t, labels)).map_err(to_js)?;
    HELD_DATA.with(|h| *h.borrow_mut() = Some(held));
    Ok(())
}

/// The split a worker calibrates, for the worker script: `HeldData::compute_split`.
#[wasm_bindgen]
pub fn rvalue_compute_split(request: &str) -> std::result::Result<Vec<u8>, JsValue> {
    HELD_DATA.with(|h| match h.borrow_mut().as_mut() {
        Some(held) => held.compute_split(request).map_err(to_js),
        None => Err(JsValue::from_str("no score file is held")),
    })
}

/// For the worker script: holds `file` (a handle, not its bytes), whose items have `labels`,
/// for the shares and pooled splits after it.
#[wasm_bindgen]
pub fn rvalue_hold_file(file: File, labels: Vec<f64>) -> std::result::Result<(), JsValue> {
    hold_stream(ByteSource::File(file), labels)
}

/// For the worker script: holds the hosted file at `url` of `size` bytes (read with Range
/// requests), named `name`, whose items have `labels`, as [`rvalue_hold_file`] holds a file.
#[wasm_bindgen]
pub fn rvalue_hold_hosted(
    url: String,
    name: String,
    size: f64,
    labels: Vec<f64>,
) -> std::result::Result<(), JsValue> {
    hold_stream(ByteSource::Hosted(HostedFile { url, name, size: size as u64 }), labels)
}

fn hold_stream(source: ByteSource, labels: Vec<f64>) -> std::result::Result<(), JsValue> {
    HELD_STREAM.with(|h| h.borrow_mut().take());
    let size = source.size();
    let head = source.read_sync(0..size.min(files::HEAD_BYTES)).map_err(to_js)?;
    let held = HeldStream::open(&source.name(), size, &head, labels).map_err(to_js)?;
    HELD_STREAM.with(|h| *h.borrow_mut() = Some((source, held)));
    Ok(())
}

/// `f` of the held streamed file and what the worker knows of it.
fn with_stream<T>(
    f: impl FnOnce(&ByteSource, &mut HeldStream) -> Result<T>,
) -> std::result::Result<T, JsValue> {
    HELD_STREAM.with(|h| match h.borrow_mut().as_mut() {
        Some((file, held)) => f(file, held).map_err(to_js),
        None => Err(JsValue::from_str("no streamed file is held")),
    })
}

/// For the worker script: starts pooled CP_r on the group of splits a request names
/// (`rvalue_model::StreamedSplits`); [`rvalue_splits_step`] reads and calibrates it.
#[wasm_bindgen]
pub fn rvalue_splits_start(request: &str) -> std::result::Result<(), JsValue> {
    with_stream(|_, held| held.start(request))
}

/// For the worker script: reads and calibrates about [`rvalue_model::STEP_BYTES`] more of the
/// group started; its bytes once done. The step's bytes are read ahead ([`ByteSource::read`],
/// into the one reused buffer for a file), so no read buffers pile up for the collector over a
/// group's passes.
#[wasm_bindgen]
pub async fn rvalue_splits_step() -> std::result::Result<Option<Vec<u8>>, JsValue> {
    let (file, ahead) = with_stream(|file, held| Ok((file.clone(), held.ahead())))?;
    let bytes = match ahead.is_empty() {
        true => Vec::new(),
        false => file.read(ahead.clone()).await.map_err(to_js)?,
    };
    // What the step reads lies in `ahead`; anything else (none expected) is read as it comes.
    let ahead = ReadAhead::new(ahead, bytes);
    with_stream(|file, held| held.step(&|r: Range<u64>| ahead.get(&r).map_or_else(|| file.read_sync(r), Ok)))
}

/// For the worker script: the rows of the share a request names
/// ([`rvalue_model::ShareRequest`]), read as the page reads its own ([`ByteSource::read`]).
#[wasm_bindgen]
pub async fn rvalue_compute_share(request: String) -> std::result::Result<Vec<u8>, JsValue> {
    let (file, (share, range)) = with_stream(|file, held| Ok((file.clone(), held.share(&request)?)))?;
    let raw = file.read(range).await.map_err(to_js)?;
    with_stream(|_, held| held.score(&share, &raw))
}
