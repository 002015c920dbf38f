//! The same assertions natively (`cargo test`) and in headless Chromium
//! (`cargo test --target wasm32-unknown-unknown`, see `.cargo/config.toml` and `webdriver.json`):
//! proves the core computes the same numbers in the browser.

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_core::tensor::{ScoreTensor, Summaries};

// Without this the runner would use Node.js; we want the real browser.
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn summaries_mean_and_variance() {
    // N = 1 item, M = 4 draws, K = 2 candidates (k fastest): candidate 0 sees 1, 2, 3, 4,
    // candidate 1 a constant 10.
    let data = vec![1.0, 10.0, 2.0, 10.0, 3.0, 10.0, 4.0, 10.0];
    let tensor = ScoreTensor::new(1, 4, 2, data).unwrap();
    let s = Summaries::of(&tensor);

    assert_eq!((s.n, s.m, s.k), (1, 4, 2));
    assert_eq!(s.mean_row(0), &[2.5, 10.0]);
    // Sample variance (divisor M - 1) of 1, 2, 3, 4 is 5/3; a constant has none.
    assert!((s.var[0] - 5.0 / 3.0).abs() < 1e-12, "var = {}", s.var[0]);
    assert_eq!(s.var[1], 0.0);

    // On wasm, make sure this really ran in a page, not in Node.js.
    #[cfg(target_arch = "wasm32")]
    assert!(web_sys::window().is_some(), "not running in a browser");
}
