//! Builds the explorer page into the module, for `save_html`: the page `trunk build --release`
//! left in the workspace's `dist/` (its markup, its JavaScript glue and wasm, its style sheet),
//! found through the loader that `dist/index.html` holds. Without a built page (a source
//! install without trunk) the module is built without it, and `save_html` says so.

// A build script sees no user data: a failed `expect` is a failed build with its reason.
#![allow(clippy::expect_used)]

use std::path::{Path, PathBuf};

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dist = Path::new(&manifest).join("../../dist");
    // A directory is watched whole: a new build of the page rebuilds the module.
    println!("cargo:rerun-if-changed={}", dist.display());
    let code = match page_files(&dist) {
        Some([html, js, wasm, css]) => format!(
            "Some(Page {{ html: include_str!({html:?}), script: include_str!({js:?}), \
             wasm: include_bytes!({wasm:?}), style: include_str!({css:?}) }})"
        ),
        None => "None".to_string(),
    };
    std::fs::write(out.join("page.rs"), format!("const PAGE: Option<Page> = {code};\n"))
        .expect("OUT_DIR is writable");
}

/// The page's markup, script, wasm and style sheet in `dist`, if it holds a built page.
fn page_files(dist: &Path) -> Option<[String; 4]> {
    let html = std::fs::read_to_string(dist.join("index.html")).ok()?;
    // trunk's loader: `import init, * as bindings from './explorer-….js'` and
    // `module_or_path: './explorer-…_bg.wasm'`.
    let quoted_after = |marker: &str| -> Option<String> {
        let rest = &html[html.find(marker)? + marker.len()..];
        let name = rest.split('\'').next()?;
        Some(name.strip_prefix("./").unwrap_or(name).to_string())
    };
    let js = quoted_after("from '")?;
    let wasm = quoted_after("module_or_path: '")?;
    let files = [dist.join("index.html"), dist.join(js), dist.join(wasm), dist.join("www/style.css")];
    let absolute = |p: &PathBuf| p.canonicalize().ok().map(|p| p.display().to_string());
    let found: Option<Vec<String>> = files.iter().map(absolute).collect();
    found?.try_into().ok()
}
