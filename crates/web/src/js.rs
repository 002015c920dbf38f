//! JavaScript's errors as ours and ours as JavaScript's.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A JavaScript exception or rejection as text: its message, or the string thrown.
pub fn js_message(v: JsValue) -> String {
    v.as_string()
        .or_else(|| v.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| "unknown error".to_string())
}

/// An error of ours as a JavaScript exception (what a `#[wasm_bindgen]` export throws).
pub fn to_js(e: rvalue_core::Error) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// The bytes an `ArrayBuffer` promise (a file's or an answer's `arrayBuffer()`) resolves to.
pub(crate) async fn array_bytes(promise: js_sys::Promise) -> Result<Vec<u8>, JsValue> {
    let buf = JsFuture::from(promise).await?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
