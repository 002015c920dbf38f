//! rvalue-explorer: r-value conformal prediction in the browser.
//!
//! This package is the web explorer: the page's UI ([`ui`], started by the `explorer` bin that
//! trunk builds from `index.html`), wasm only. The page's module also exports the JavaScript API
//! (`rvalue-wasm-api`, here as [`api`]). The UI names the crates it is built from: the numerics
//! (`rvalue_core`), the page model (`rvalue_model`), the figures' drawing (`rvalue_plot`) and the
//! GPU path (`rvalue_gpu`). See `ARCHITECTURE.md`.

// Naming the crate links it in, and with it its wasm-bindgen exports.
#[cfg(target_arch = "wasm32")]
pub use rvalue_wasm_api as api;
#[cfg(target_arch = "wasm32")]
pub mod ui;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
