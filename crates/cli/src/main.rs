//! `rvalue`: the native command line. All logic lives in the `rvalue_cli` library.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(rvalue_cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {}
