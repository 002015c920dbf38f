//! rvalue-web: the browser's I/O for the explorer page and its workers. Where the page's data
//! comes from and where its work runs, as plain async functions, values and [`Error`]s:
//!
//! - [`byte_source`]: a file's bytes by range, from a file the reader chose (`File.slice`) or
//!   a file on the page's site (HTTP Range requests);
//! - [`files`]: dropped or chosen files, bundled samples and synthetic ones, as a [`files::Got`];
//! - [`hosted`]: `?src=`, a file on the page's own site, read whole or streamed;
//! - [`streamed`]: a score file too large to hold, opened from its header;
//! - [`pool`]: the page's Web Workers (`www/worker.js`), posting work and reading replies;
//! - [`worker`]: what a worker runs, the `#[wasm_bindgen]` exports its script calls;
//! - [`device`]: the WebGPU device, or the CPU, for CP_r's rank-based r-values;
//! - [`marks`]: performance marks the browser tests wait for.
//!
//! Decisions (what to read, which worker gets what, GPU or CPU, the sentences) are
//! `rvalue_model`'s; this crate does the browser's side of them. It never writes the page's
//! document: where a load has something to say, it returns or reports it, and the page shows
//! it. Wasm only: natively the crate is empty, so the workspace builds and tests without it.
//!
//! [`Error`]: rvalue_core::Error

#[cfg(target_arch = "wasm32")]
pub mod byte_source;
#[cfg(target_arch = "wasm32")]
pub mod device;
#[cfg(target_arch = "wasm32")]
pub mod files;
#[cfg(target_arch = "wasm32")]
pub mod hosted;
#[cfg(target_arch = "wasm32")]
pub mod marks;
#[cfg(target_arch = "wasm32")]
pub mod pool;
#[cfg(target_arch = "wasm32")]
pub mod streamed;
#[cfg(target_arch = "wasm32")]
pub mod worker;

#[cfg(target_arch = "wasm32")]
mod js;
#[cfg(target_arch = "wasm32")]
use js::array_bytes;
#[cfg(target_arch = "wasm32")]
pub use js::{js_message, to_js};

// Wasm only, as the crate (tests.rs says so); a plain `cfg(test)` lets the tests unwrap.
#[cfg(test)]
mod tests;
