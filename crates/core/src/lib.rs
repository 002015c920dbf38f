//! rvalue-core: r-value conformal prediction, free of terminals and browsers.
//!
//! It computes everything in `docs/method.md` §§1–6. Data flows one way:
//! file ([`io::read_scores`]) or simulator ([`toy::simulate`]) → [`tensor::ScoreTensor`] →
//! [`tensor::Summaries`] → [`rvalue`] → [`conformal`] (calibration, sets, metrics). Seeded
//! synthetic inputs (tests, benchmarks, the page's samples) live in [`samples`]. See
//! `ARCHITECTURE.md`.

pub mod atomic_file;
pub mod blocks;
pub mod conformal;
pub mod eb;
pub mod error;
pub mod float16;
pub mod io;
pub mod normal;
pub mod options;
pub mod predict;
pub mod probability;
pub mod quantile;
pub mod rng;
pub mod rvalue;
pub mod samples;
pub mod tensor;
pub mod toy;
pub mod watch;

pub use error::{Error, Result};

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
