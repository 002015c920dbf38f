//! Score files too large to hold, read a byte range at a time (`File.slice`, or Range requests
//! for a hosted file: [`ByteSource`]): opened from their header and labels ([`open`]), their
//! shares read by the page and by the workers ([`ByteSource::read`], [`rvalue_hold_file`],
//! [`rvalue_hold_hosted`] and [`rvalue_compute_share`]), and its pooled splits by the workers
//! alone ([`rvalue_splits_start`], [`rvalue_splits_step`]). The file itself is never in memory;
//! a share is about [`rvalue_model::SHARE_BYTES`].

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use super::byte_source::{ByteSource, HostedFile};
use super::dom;

use rvalue_core::{Error, Result};
use rvalue_model::files::{self, ReadAhead};
use rvalue_model::workers::HeldStream;
use rvalue_model::StreamedFile;

thread_local! {
    /// The size from which score files are streamed, from the address the page started with
    /// (the address is then rewritten, and keeps no switch).
    static STREAM_FROM: std::cell::Cell<f64> = const { std::cell::Cell::new(files::STREAM_FROM_BYTES) };
}

/// Sets the size from which score files are streamed: the `stream` switch (megabytes), or the
/// default without one.
pub fn set_stream_switch(switch: Option<&str>) {
    STREAM_FROM.with(|s| s.set(files::stream_from(switch)));
}

/// The size from which score files are streamed.
pub fn stream_from() -> f64 {
    STREAM_FROM.with(|s| s.get())
}

/// Why `file` could not be read.
fn cannot_read(file: &File) -> impl Fn(JsValue) -> Error + '_ {
    |e| Error::Io { file: file.name(), message: format!("cannot read: {}", dom::js_message(e)) }
}

/// The size of the buffer reads land in (a read fills at most this much at a time).
const READ_BUFFER_BYTES: u32 = 1 << 20;

thread_local! {
    /// The buffer reads land in before they are copied into wasm memory: one, which each read
    /// hands back. Reading a share into a new `ArrayBuffer` each time left hundreds of
    /// megabytes of read buffers waiting for the collector while a 4 GB file went through.
    static READ_BUFFER: RefCell<Option<js_sys::ArrayBuffer>> = const { RefCell::new(None) };
}

/// Bytes `range` of `file`, read without holding the rest, through [`READ_BUFFER`] (a "bring
/// your own buffer" reader of the slice's stream).
pub(super) async fn read_file_range(file: &File, range: Range<u64>) -> Result<Vec<u8>> {
    let fail = cannot_read(file);
    let part = file.slice_with_f64_and_f64(range.start as f64, range.end as f64).map_err(&fail)?;
    let reader = web_sys::ReadableStreamByobReader::new(&part.stream()).map_err(&fail)?;
    let want = (range.end - range.start) as usize;
    let mut out = Vec::with_capacity(want);
    let mut buf = READ_BUFFER.with(|b| b.borrow_mut().take());
    loop {
        let into = buf.take().unwrap_or_else(|| js_sys::ArrayBuffer::new(READ_BUFFER_BYTES));
        let view = js_sys::Uint8Array::new(&into);
        let got = JsFuture::from(reader.read_with_array_buffer_view(&view)).await.map_err(&fail)?;
        let field = |name: &str| js_sys::Reflect::get(&got, &JsValue::from_str(name)).map_err(&fail);
        let done = field("done")?.as_bool() == Some(true);
        // The read moved the buffer into the view it gives back (empty when done).
        if let Some(v) = field("value")?.dyn_ref::<js_sys::Uint8Array>() {
            let at = out.len();
            out.resize(at + v.length() as usize, 0);
            v.copy_to(&mut out[at..]);
            buf = Some(v.buffer());
        }
        if done || out.len() >= want {
            break;
        }
    }
    READ_BUFFER.with(|b| *b.borrow_mut() = buf);
    if out.len() != want {
        return Err(Error::Io {
            file: file.name(),
            message: format!("read {} bytes where {want} were asked for", out.len()),
        });
    }
    Ok(out)
}

/// Opens the large `.npy` `scores` from its header ([`files::open_streamed`]), with the labels
/// `labels`. Nothing of the scores is read beyond its first [`files::HEAD_BYTES`], and not
/// those either when `head` holds them already.
pub async fn open(
    scores: &ByteSource,
    head: Option<Vec<u8>>,
    labels: Option<(String, Vec<u8>)>,
) -> Result<StreamedFile> {
    let size = scores.size();
    let head = match head {
        Some(h) => h,
        None => scores.read(0..size.min(files::HEAD_BYTES)).await?,
    };
    files::open_streamed(&scores.name(), size, &head, labels)
}

thread_local! {
    /// In a worker: the streamed file whose shares and pooled splits it reads.
    static HELD: RefCell<Option<(ByteSource, HeldStream)>> = const { RefCell::new(None) };
}

/// For the worker script: holds `file` (a handle, not its bytes), whose items have `labels`,
/// for the shares and pooled splits after it.
#[wasm_bindgen]
pub fn rvalue_hold_file(file: File, labels: Vec<f64>) -> std::result::Result<(), JsValue> {
    hold(ByteSource::File(file), labels)
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
    hold(ByteSource::Hosted(HostedFile { url, name, size: size as u64 }), labels)
}

fn hold(source: ByteSource, labels: Vec<f64>) -> std::result::Result<(), JsValue> {
    HELD.with(|h| h.borrow_mut().take());
    let size = source.size();
    let head = source.read_sync(0..size.min(files::HEAD_BYTES)).map_err(dom::to_js)?;
    let held = HeldStream::open(&source.name(), size, &head, labels).map_err(dom::to_js)?;
    HELD.with(|h| *h.borrow_mut() = Some((source, held)));
    Ok(())
}

/// `f` of the held file and what the worker knows of it.
fn with_held<T>(
    f: impl FnOnce(&ByteSource, &mut HeldStream) -> Result<T>,
) -> std::result::Result<T, JsValue> {
    HELD.with(|h| match h.borrow_mut().as_mut() {
        Some((file, held)) => f(file, held).map_err(dom::to_js),
        None => Err(JsValue::from_str("no streamed file is held")),
    })
}

/// For the worker script: starts pooled CP_r on the group of splits a request names
/// (`rvalue_model::StreamedSplits`); [`rvalue_splits_step`] reads and calibrates it.
#[wasm_bindgen]
pub fn rvalue_splits_start(request: &str) -> std::result::Result<(), JsValue> {
    with_held(|_, held| held.start(request))
}

/// For the worker script: reads and calibrates about [`rvalue_model::STEP_BYTES`] more of the
/// group started; its bytes once done. The step's bytes are read ahead ([`ByteSource::read`],
/// into the one reused buffer for a file), so no read buffers pile up for the collector over a
/// group's passes.
#[wasm_bindgen]
pub async fn rvalue_splits_step() -> std::result::Result<Option<Vec<u8>>, JsValue> {
    let (file, ahead) = with_held(|file, held| Ok((file.clone(), held.ahead())))?;
    let bytes = match ahead.is_empty() {
        true => Vec::new(),
        false => file.read(ahead.clone()).await.map_err(dom::to_js)?,
    };
    // What the step reads lies in `ahead`; anything else (none expected) is read as it comes.
    let ahead = ReadAhead::new(ahead, bytes);
    with_held(|file, held| held.step(&|r: Range<u64>| ahead.get(&r).map_or_else(|| file.read_sync(r), Ok)))
}

/// For the worker script: the rows of the share a request names
/// ([`rvalue_model::ShareRequest`]), read as the page reads its own ([`ByteSource::read`]).
#[wasm_bindgen]
pub async fn rvalue_compute_share(request: String) -> std::result::Result<Vec<u8>, JsValue> {
    let (file, (share, range)) = with_held(|file, held| Ok((file.clone(), held.share(&request)?)))?;
    let raw = file.read(range).await.map_err(dom::to_js)?;
    with_held(|_, held| held.score(&share, &raw))
}

/// Bytes `range` of `file`, read synchronously (workers only: a header).
pub(super) fn read_file_sync(file: &File, range: Range<u64>) -> Result<Vec<u8>> {
    let reader = web_sys::FileReaderSync::new().map_err(cannot_read(file))?;
    let part =
        file.slice_with_f64_and_f64(range.start as f64, range.end as f64).map_err(cannot_read(file))?;
    let buf = reader.read_as_array_buffer(&part).map_err(cannot_read(file))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// A streamed file for the page: where its bytes are and what the model knows of it.
#[derive(Clone)]
pub struct Streamed {
    pub file: ByteSource,
    pub info: Arc<StreamedFile>,
}
