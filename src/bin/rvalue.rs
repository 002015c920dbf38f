//! `rvalue`: the native command line. All logic lives in `rvalue_explorer::cli`.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(rvalue_explorer::cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {}
