//! Getting bytes into the page: the file picker, drag and drop anywhere on the page, and the
//! bundled samples (fetched from the app's own `assets/`). Nothing is sent anywhere.

use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Document, File, FileList, HtmlInputElement, Response};

use super::byte_source::ByteSource;
use super::dom;
use super::streamed::{self, Streamed};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::Dataset;
use rvalue_core::Result;
use rvalue_model::files::{self, DropPlan};
use rvalue_model::ids;
use rvalue_model::samples::{SYNTHETIC_CIFAR, SYNTHETIC_TOY};
use rvalue_model::url::DataRef;

/// What a load gave, for the page to show.
pub enum Got {
    /// A data set read from a file or made in the page, or why it could not be; with a pool of
    /// calibration units' true-label draws to calibrate on, when one was given.
    /// `names`: the names an `.npz` gives its classes (a bad member makes `data` an error).
    Dataset {
        name: String,
        data: Result<Dataset>,
        names: Option<Vec<String>>,
        pool: Option<Arc<TrueDraws>>,
        origin: DataRef,
        /// A sentence on how it was read, when the page should say it.
        note: Option<String>,
    },
    /// A score file too large to hold, opened to be read a block at a time, and where from.
    Streamed(Streamed, DataRef),
    /// Why nothing could be read.
    Failed(String),
}

/// Where loads deliver what they got: the page, which shows it.
pub type Sink = Rc<dyn Fn(Got)>;

impl Got {
    /// A score file's bytes read whole, with its labels' name and bytes if given apart;
    /// shown as `shown`, or under its own name.
    pub fn whole(
        name: String,
        bytes: &[u8],
        labels: Option<(String, Vec<u8>)>,
        shown: Option<String>,
        origin: DataRef,
        note: Option<String>,
    ) -> Got {
        let (own, got) = files::read(name, bytes, labels);
        let (data, names) = files::split_names(got);
        Got::Dataset { name: shown.unwrap_or(own), data, names, pool: None, origin, note }
    }
}

async fn read_file(f: &File) -> std::result::Result<Vec<u8>, String> {
    if let Some(why) = files::too_large(&f.name(), f.size()) {
        return Err(why);
    }
    let buf = JsFuture::from(f.array_buffer())
        .await
        .map_err(|e| format!("{}: {}", f.name(), dom::js_message(e)))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// `scores` with its labels file `labels`, opened to be read a block at a time.
async fn open_streamed(scores: &File, labels: Option<&File>) -> std::result::Result<Streamed, String> {
    let labels = match labels {
        Some(l) => Some((l.name(), read_file(l).await?)),
        None => None,
    };
    let file = ByteSource::File(scores.clone());
    let info = streamed::open(&file, None, labels).await.map_err(|e| rvalue_model::message::plain(&e))?;
    Ok(Streamed { file, info: Arc::new(info) })
}

/// Up to three files: the scores, a labels file (the one whose name holds "label") and a pool;
/// or a score file too large to hold, with its labels, read a block at a time.
async fn load_list(sink: Sink, all: Vec<File>) {
    let sized: Vec<(String, f64)> = all.iter().map(|f| (f.name(), f.size())).collect();
    let named = match files::plan_drop(&sized, streamed::stream_from()) {
        DropPlan::Stream { scores, labels } => {
            return sink(match open_streamed(&all[scores], labels.map(|l| &all[l])).await {
                Ok(s) => Got::Streamed(s, DataRef::Upload),
                Err(e) => Got::Failed(e),
            });
        }
        DropPlan::Refused(why) => Err(why),
        DropPlan::Whole => read_all(&all).await,
    };
    match named {
        Ok(named) => {
            let (name, got) = files::read_named(named);
            let (data, pool, names) = match got {
                Ok((d, pool, names)) => (Ok(d), pool.map(Arc::new), names),
                Err(e) => (Err(e), None, None),
            };
            sink(Got::Dataset { name, data, names, pool, origin: DataRef::Upload, note: None })
        }
        Err(e) => sink(Got::Failed(e)),
    }
}

/// Every file's name and bytes.
async fn read_all(all: &[File]) -> std::result::Result<Vec<(String, Vec<u8>)>, String> {
    let mut named = Vec::with_capacity(all.len());
    for f in all {
        named.push((f.name(), read_file(f).await?));
    }
    Ok(named)
}

async fn load_sample(sink: Sink, name: String) {
    let result = async {
        let w = web_sys::window().ok_or("no window")?;
        // Relative, so the page works from any sub-path of a static server.
        let resp =
            JsFuture::from(w.fetch_with_str(&format!("assets/{name}"))).await.map_err(dom::js_message)?;
        let resp: Response = resp.dyn_into().map_err(|_| "not a response".to_string())?;
        if !resp.ok() {
            return Err(format!("HTTP {}", resp.status()));
        }
        let buf =
            JsFuture::from(resp.array_buffer().map_err(dom::js_message)?).await.map_err(dom::js_message)?;
        Ok::<_, String>(js_sys::Uint8Array::new(&buf).to_vec())
    }
    .await;
    match result {
        Ok(bytes) => sink(Got::whole(name.clone(), &bytes, None, None, DataRef::Sample(name), None)),
        Err(e) => sink(Got::Failed(format!("sample {name} could not be fetched: {e}"))),
    }
}

fn files_of(list: &FileList) -> Vec<File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

pub fn wire(sink: &Sink, doc: &Document) -> Result<()> {
    let a = sink.clone();
    dom::listen_id(doc, ids::FILE, "change", move |e| {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if let Some(files) = input.files() {
            // The FileList is live: take the files before the input is cleared below.
            spawn_local(load_list(a.clone(), files_of(&files)));
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
            spawn_local(load_list(a.clone(), files_of(&files)));
        }
        dom::set_text(&d, ids::STATUS, "Reading the dropped file…");
        dom::set_attr(&d, ids::STATUS, "data-state", "loading");
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

/// Loads the bundled sample `name` (one of [`rvalue_model::samples::SAMPLES`]), as its button does.
pub fn load_named(sink: &Sink, name: String) {
    if let Ok(d) = dom::document() {
        dom::set_text(&d, ids::STATUS, &files::sample_status(&name));
    }
    if name == SYNTHETIC_CIFAR || name == SYNTHETIC_TOY {
        spawn_local(synthetic(sink.clone(), name));
    } else {
        spawn_local(load_sample(sink.clone(), name));
    }
}

/// Lets the browser paint (the status line) before a long synchronous piece of work.
async fn next_paint() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// A sample made in the page rather than downloaded ([`rvalue_model::samples::synthetic`]).
async fn synthetic(sink: Sink, name: String) {
    next_paint().await;
    let Some((label, data)) = rvalue_model::samples::synthetic(&name) else { return };
    sink(Got::Dataset {
        name: label.to_string(),
        data,
        names: None,
        pool: None,
        origin: DataRef::Sample(name),
        note: None,
    });
}
