//! Where a file read a block at a time gets its bytes: a file the reader chose (`File.slice`,
//! [`file`]) or a file hosted on the page's own site (HTTP Range requests). The page and its
//! workers read either the same way, so a hosted file streams as a dropped one does.

mod file;

use std::ops::Range;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, Headers, Request, RequestInit, Response, XmlHttpRequest, XmlHttpRequestResponseType};

use crate::{array_bytes, js_message};
use rvalue_core::{Error, Result};
use rvalue_model::url::hosted::{self, range_header};

/// A file on the page's own site whose server answers Range requests.
#[derive(Clone)]
pub struct HostedFile {
    /// The address, resolved against the page's.
    pub url: String,
    /// The name its extension and messages are read from.
    pub name: String,
    /// Its length in bytes, from the server's `Content-Range`.
    pub size: u64,
}

/// The bytes of a streamed file, wherever they are.
#[derive(Clone)]
pub enum ByteSource {
    File(File),
    Hosted(HostedFile),
}

impl ByteSource {
    pub fn name(&self) -> String {
        match self {
            ByteSource::File(f) => f.name(),
            ByteSource::Hosted(h) => h.name.clone(),
        }
    }

    pub fn size(&self) -> u64 {
        match self {
            ByteSource::File(f) => f.size() as u64,
            ByteSource::Hosted(h) => h.size,
        }
    }

    /// Bytes `range`, read without holding the rest.
    pub async fn read(&self, range: Range<u64>) -> Result<Vec<u8>> {
        match self {
            ByteSource::File(f) => file::read_range(f, range).await,
            ByteSource::Hosted(h) => read_hosted(h, range).await,
        }
    }

    /// Bytes `range`, read synchronously (workers only: a header, or a stray range).
    pub fn read_sync(&self, range: Range<u64>) -> Result<Vec<u8>> {
        match self {
            ByteSource::File(f) => file::read_sync(f, range),
            ByteSource::Hosted(h) => read_hosted_sync(h, range),
        }
    }
}

/// A GET of `url` for `range` (a Range request), from the page or a worker.
pub async fn fetch_range(url: &str, range: &Range<u64>) -> std::result::Result<Response, JsValue> {
    let headers = Headers::new()?;
    headers.set("Range", &range_header(range))?;
    let init = RequestInit::new();
    init.set_method("GET");
    init.set_headers(&headers);
    let request = Request::new_with_str_and_init(url, &init)?;
    let promise = match web_sys::window() {
        Some(w) => w.fetch_with_request(&request),
        None => js_sys::global().unchecked_into::<web_sys::WorkerGlobalScope>().fetch_with_request(&request),
    };
    JsFuture::from(promise).await?.dyn_into()
}

/// Why the file `name` could not be read.
fn cannot_read(name: String, why: String) -> Error {
    Error::Io { file: name, message: format!("cannot read: {why}") }
}

async fn read_hosted(h: &HostedFile, range: Range<u64>) -> Result<Vec<u8>> {
    let fail = |e| cannot_read(h.name.clone(), js_message(e));
    let resp = fetch_range(&h.url, &range).await.map_err(fail)?;
    if let Some(why) = hosted::unranged(resp.status()) {
        return Err(cannot_read(h.name.clone(), why));
    }
    let bytes = array_bytes(resp.array_buffer().map_err(fail)?).await.map_err(fail)?;
    checked_length(h, &range, bytes)
}

/// A synchronous Range request: allowed in workers, where it blocks only the worker.
fn read_hosted_sync(h: &HostedFile, range: Range<u64>) -> Result<Vec<u8>> {
    let fail = |e| cannot_read(h.name.clone(), js_message(e));
    let xhr = XmlHttpRequest::new().map_err(fail)?;
    xhr.open_with_async("GET", &h.url, false).map_err(fail)?;
    xhr.set_request_header("Range", &range_header(&range)).map_err(fail)?;
    xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
    xhr.send().map_err(fail)?;
    let status = xhr.status().map_err(fail)?;
    if let Some(why) = hosted::unranged(status) {
        return Err(cannot_read(h.name.clone(), why));
    }
    let buf = xhr.response().map_err(fail)?;
    checked_length(h, &range, js_sys::Uint8Array::new(&buf).to_vec())
}

fn checked_length(h: &HostedFile, range: &Range<u64>, bytes: Vec<u8>) -> Result<Vec<u8>> {
    match hosted::short_read(range, bytes.len()) {
        Some(why) => Err(cannot_read(h.name.clone(), why)),
        None => Ok(bytes),
    }
}
