//! The browser entry point that trunk builds (see index.html, `data-bin="explorer"`): starts the
//! explorer UI ([`rvalue_explorer::ui`]) on the page.

#[cfg(target_arch = "wasm32")]
fn main() {
    // A page without the explorer's markup (a documentation page importing the JavaScript API,
    // `rvalue_explorer::api`) loads this module for its exports only.
    let has_app =
        web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.get_element_by_id("app").is_some());
    if !has_app {
        return;
    }
    match rvalue_explorer::ui::start() {
        // The app lives on in its event listeners and animation frames.
        Ok(app) => std::mem::forget(app),
        Err(e) => {
            web_sys::console::error_1(&format!("rvalue-explorer could not start: {e}").into());
            if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
                if let Some(p) = doc.get_element_by_id("panic") {
                    p.set_text_content(Some(&format!("The explorer could not start: {e}")));
                    let _ = p.remove_attribute("hidden");
                }
            }
        }
    }
}

/// Panics on purpose, through the same hook as any real panic: the browser test of the panic
/// banner (e2e/hardening.test.mjs) calls it as `window.wasmBindings.rvalue_test_panic()`. It can
/// only stop the page it runs in.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn rvalue_test_panic() {
    panic!("test panic requested by rvalue_test_panic()");
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("the explorer runs in the browser: make serve");
}
