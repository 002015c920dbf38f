//! The browser entry point that trunk builds (see index.html, `data-bin="explorer"`).
//!
//! Placeholder until the explorer UI lands: it writes a heading and one number computed by the
//! core into the page, which proves the core compiles to wasm and runs in the browser.

#[cfg(target_arch = "wasm32")]
fn main() {
    use rvalue_explorer::tensor::{ScoreTensor, Summaries};

    let document = web_sys::window().and_then(|w| w.document()).expect("explorer: no document");
    let app = document.get_element_by_id("app").expect("explorer: index.html has no #app");

    // One item, four draws, one candidate: mean 2.5, sample variance 5/3.
    let tensor = ScoreTensor::new(1, 4, 1, vec![1.0, 2.0, 3.0, 4.0]).expect("valid tensor");
    let summaries = Summaries::of(&tensor);

    let heading = document.create_element("h1").expect("h1");
    heading.set_text_content(Some("rvalue-explorer"));
    let check = document.create_element("p").expect("p");
    // A stable id so browser tests can find the number.
    check.set_id("core-check");
    check.set_text_content(Some(&format!("core check: mean of [1, 2, 3, 4] = {}", summaries.mean[0])));
    app.append_child(&heading).expect("append h1");
    app.append_child(&check).expect("append p");
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    println!("the explorer runs in the browser: make serve");
}
