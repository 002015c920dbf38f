//! rvalue-explorer: r-value conformal prediction.
//!
//! The core computes everything in `docs/method.md` §§1–6 and knows nothing of the
//! browser. Data flows one way:
//! file or simulator → [`tensor::ScoreTensor`] → [`tensor::Summaries`] → [`rvalue`] →
//! [`conformal`] (calibration, sets, metrics). See `ARCHITECTURE.md`.

// Index loops read closest to the formulas in numerical code.
#![allow(clippy::needless_range_loop)]
// `!(x > 0.0)` is deliberate where NaN must take the fallback branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

#[cfg(target_arch = "wasm32")]
pub mod api;
pub mod conformal;
pub mod eb;
pub mod error;
pub mod explorer;
pub mod gpu;
pub mod io;
pub mod normal;
pub mod quantile;
pub mod rng;
pub mod rvalue;
pub mod samples;
pub mod tensor;
pub mod toy;
#[cfg(target_arch = "wasm32")]
pub mod ui;
pub mod workload;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

pub use error::{Error, Result};

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
