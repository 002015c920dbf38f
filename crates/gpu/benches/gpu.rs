//! Items per second of the CPU and GPU paths on the same machine. `cargo bench --bench
//! gpu [filter]`. Prints, never asserts. On a machine whose only adapter is lavapipe (a Vulkan
//! emulation on the CPU) the "GPU" figures measure that emulation: no speed-up is expected.
//!
//! Workloads: rank counting (the nonparametric r-value's counts) for the CIFAR-shaped tensor
//! (`samples::cifar_like`, 2000 × 31 × 100) and for 1000 candidates × 1000 draws; pooled
//! positions for one split of the CIFAR-shaped tensor; the normal generator.

// A benchmark (not a user data path): a failed unwrap is a failed run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[cfg(not(target_arch = "wasm32"))]
include!("gpu/native.rs");

/// Nothing to time in wasm (the blocking GPU calls are native only); this keeps
/// `cargo clippy --target wasm32-unknown-unknown --all-targets` building every target.
#[cfg(target_arch = "wasm32")]
fn main() {}
