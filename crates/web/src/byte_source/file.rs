//! A file the reader chose, read a byte range at a time through `File.slice`.

use std::cell::RefCell;
use std::ops::Range;

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use super::cannot_read;
use crate::js_message;
use rvalue_core::{Error, Result};

/// Why `file` could not be read.
fn fail(file: &File) -> impl Fn(JsValue) -> Error + '_ {
    |e| cannot_read(file.name(), js_message(e))
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
pub(super) async fn read_range(file: &File, range: Range<u64>) -> Result<Vec<u8>> {
    let fail = fail(file);
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

/// Bytes `range` of `file`, read synchronously (workers only: a header).
pub(super) fn read_sync(file: &File, range: Range<u64>) -> Result<Vec<u8>> {
    let reader = web_sys::FileReaderSync::new().map_err(fail(file))?;
    let part = file.slice_with_f64_and_f64(range.start as f64, range.end as f64).map_err(fail(file))?;
    let buf = reader.read_as_array_buffer(&part).map_err(fail(file))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
