//! Copies the WGSL kernels into `OUT_DIR` without their comments and indentation: the sources
//! explain themselves at length, and every byte of them would otherwise ship in the page's wasm,
//! which has a size budget. Nothing else changes: WGSL has no string literals, so a `//` always
//! starts a comment.

// A build script sees no user data: a failed `expect` is a failed build with its reason.
#![allow(clippy::expect_used)]

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    for name in ["rank.wgsl", "draws.wgsl"] {
        let src = Path::new("src").join(name);
        println!("cargo:rerun-if-changed={}", src.display());
        let text = std::fs::read_to_string(&src).expect("the WGSL sources are in src");
        std::fs::write(Path::new(&out).join(name), strip(&text)).expect("OUT_DIR is writable");
    }
}

/// Each line without its comment and surrounding blanks; lines left empty are dropped.
fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if !code.is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}
