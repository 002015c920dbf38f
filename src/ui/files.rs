//! Getting bytes into the page, the wiring: the file picker, drag and drop anywhere on the
//! page, the sample buttons and `?src=`, with the status line saying what is read. The reads
//! themselves are [`rvalue_web::files`] and [`rvalue_web::hosted`].

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Document, File, FileList, HtmlInputElement};

use super::dom;
use rvalue_core::Result;
use rvalue_model::{files, ids};
pub use rvalue_web::files::Got;

/// Where loads deliver what they got: the page, which shows it.
pub type Sink = Rc<dyn Fn(Got)>;

fn files_of(list: &FileList) -> Vec<File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Reads `all` and hands what it gave to `sink`.
fn load_list(sink: &Sink, all: Vec<File>) {
    let sink = sink.clone();
    spawn_local(async move { sink(rvalue_web::files::dropped(all).await) });
}

pub fn wire(sink: &Sink, doc: &Document) -> Result<()> {
    let a = sink.clone();
    dom::listen_id(doc, ids::FILE, "change", move |e| {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if let Some(files) = input.files() {
            // The FileList is live: take the files before the input is cleared below.
            load_list(&a, files_of(&files));
        }
        // Choosing the same file again must fire "change" again.
        input.set_value("");
    })?;
    // Drop anywhere on the page; dragover must be cancelled for drop to fire.
    dom::listen(doc, "dragover", |e| e.prevent_default());
    let a = sink.clone();
    let d = doc.clone();
    dom::listen(doc, "drop", move |e| {
        e.prevent_default();
        let files = e.dyn_ref::<web_sys::DragEvent>().and_then(|d| d.data_transfer()).and_then(|t| t.files());
        if let Some(files) = files {
            load_list(&a, files_of(&files));
        }
        loading(&d, "Reading the dropped file…");
    });
    let buttons = doc
        .query_selector_all("button.sample")
        .map_err(|_| rvalue_core::Error::invalid("no sample buttons"))?;
    for i in 0..buttons.length() {
        let Some(b) = buttons.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        // A file under assets/ (data-file) or one made in the page (data-synthetic).
        let Some(name) = b.get_attribute("data-file").or_else(|| b.get_attribute("data-synthetic")) else {
            continue;
        };
        let a = sink.clone();
        dom::listen(&b, "click", move |_| load_named(&a, name.clone()));
    }
    Ok(())
}

/// The status line saying what is read, in its loading state.
fn loading(doc: &Document, text: &str) {
    dom::set_text(doc, ids::STATUS, text);
    dom::set_attr(doc, ids::STATUS, "data-state", "loading");
}

/// Loads the bundled sample `name` (one of [`rvalue_model::samples::SAMPLES`]), as its button does.
pub fn load_named(sink: &Sink, name: String) {
    if let Ok(d) = dom::document() {
        dom::set_text(&d, ids::STATUS, &files::sample_status(&name));
    }
    let sink = sink.clone();
    spawn_local(async move {
        if let Some(got) = rvalue_web::files::sample(name).await {
            sink(got);
        }
    });
}

/// Fetches the hosted file `src` (and its labels `labels`), the status line following the
/// download, and hands what it read to `sink`. `name` is shown in place of the file's own.
pub fn load_hosted(sink: &Sink, src: String, labels: Option<String>, name: Option<String>) {
    if let Ok(d) = dom::document() {
        loading(&d, &format!("Fetching {src}…"));
    }
    let sink = sink.clone();
    let status = |text: String| {
        if let Ok(d) = dom::document() {
            dom::set_text(&d, ids::STATUS, &text);
        }
    };
    spawn_local(async move { sink(rvalue_web::hosted::load(src, labels, name, &status).await) });
}
