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
use rvalue_model::ids;
use rvalue_model::samples::{SYNTHETIC_CIFAR, SYNTHETIC_TOY};
use rvalue_model::url::DataRef;

/// Largest file the page reads whole (the core refuses tensors over 2^28 elements anyway);
/// larger `.npy` score files are read a block at a time ([`streamed`]).
const MAX_FILE_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

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

/// Why a file of `bytes` named `name` is not read, if it is larger than the page reads whole.
pub fn too_large(name: &str, bytes: f64) -> Option<String> {
    (bytes > MAX_FILE_BYTES).then(|| {
        format!(
            "{name}: {:.1} GiB is larger than the page reads (2 GiB); use the rvalue command line",
            bytes / 1024f64.powi(3)
        )
    })
}

async fn read_file(f: &File) -> std::result::Result<Vec<u8>, String> {
    if let Some(why) = too_large(&f.name(), f.size()) {
        return Err(why);
    }
    let buf = JsFuture::from(f.array_buffer())
        .await
        .map_err(|e| format!("{}: {}", f.name(), dom::js_message(e)))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// A data set read and its class names, if its `.npz` gives them.
pub type Labelled = (Dataset, Option<Vec<String>>);

/// A score file's bytes (from a drop, the picker or a sample) read, with `labels` from a
/// separate labels file when two were dropped; the name to show, and the data set.
pub fn read(name: String, bytes: &[u8], labels: Option<(String, Vec<u8>)>) -> (String, Result<Labelled>) {
    let data = rvalue_core::io::read_scores(&name, bytes).and_then(|mut d| {
        if let Some((lname, lbytes)) = &labels {
            d.labels = Some(rvalue_core::io::read_labels(lname, lbytes, d.scores.n(), d.scores.k())?);
        }
        let names = rvalue_core::io::read_class_names(&name, bytes, d.scores.k())?;
        Ok((d, names))
    });
    let name = match &labels {
        Some((l, _)) => format!("{name} + {l}"),
        None => name,
    };
    (name, data)
}

/// A read's data set and class names apart, as [`Got::Dataset`] holds them.
pub fn split_names(got: Result<Labelled>) -> (Result<Dataset>, Option<Vec<String>>) {
    match got {
        Ok((d, names)) => (Ok(d), names),
        Err(e) => (Err(e), None),
    }
}

/// A score file of at least the stream size (`stream=MB`) and, if given, its labels: read a
/// block at a time. `None` when no file is that large.
async fn load_streamed(sink: &Sink, all: &[File]) -> Option<()> {
    let from = streamed::stream_from();
    let is_labels = |f: &File| f.name().to_lowercase().contains("label");
    let big = all.iter().position(|f| !is_labels(f) && f.size() >= from)?;
    let labels = all.iter().enumerate().find(|(i, f)| *i != big && is_labels(f)).map(|(_, f)| f);
    let got = if all.len() > 1 + usize::from(labels.is_some()) {
        Err(format!(
            "{} is read a block at a time: drop it with its labels file alone (a calibration pool \
             needs the test items in memory)",
            all[big].name()
        ))
    } else {
        open_streamed(&all[big], labels).await
    };
    sink(match got {
        Ok(s) => Got::Streamed(s, DataRef::Upload),
        Err(e) => Got::Failed(e),
    });
    Some(())
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

/// Up to three files: the scores, a labels file (the one whose name holds "label") and a pool.
async fn load_list(sink: Sink, all: Vec<File>) {
    if load_streamed(&sink, &all).await.is_some() {
        return;
    }
    let result = async {
        if all.is_empty() || all.len() > 3 {
            return Err(format!(
                "{} files were given: load one file, or up to three: a scores file, a labels file \
                 (its name holding \"label\") and a calibration pool of true-label draws [n_cal, M]",
                all.len()
            ));
        }
        let mut named = Vec::with_capacity(all.len());
        for f in &all {
            named.push((f.name(), read_file(f).await?));
        }
        Ok(named)
    }
    .await;
    match result {
        Ok(named) => {
            let (name, got) = read_named(named);
            let (data, pool, names) = match got {
                Ok((d, pool, names)) => (Ok(d), pool.map(Arc::new), names),
                Err(e) => (Err(e), None, None),
            };
            sink(Got::Dataset { name, data, names, pool, origin: DataRef::Upload, note: None })
        }
        Err(e) => sink(Got::Failed(e)),
    }
}

/// A data set read, its pool, if any, and its class names, if its `.npz` gives them.
pub type Named = (Dataset, Option<TrueDraws>, Option<Vec<String>>);

/// Files' bytes by role. A name holding "label" is the labels file (the second of two such
/// names is taken as scores). Of two score files, the pool is the 2-D one `[n_cal, M]` whose
/// second dimension is the other's M (two files that are not both scores are scores and
/// labels, in that order); an `.npz` of scores may carry its pool as member `cal_true`. The
/// name to show, and the scores (labelled) with the pool, if any.
pub fn read_named(files: Vec<(String, Vec<u8>)>) -> (String, Result<Named>) {
    let (mut labels, mut scores): (Vec<_>, Vec<_>) =
        files.into_iter().partition(|(n, _)| n.to_lowercase().contains("label"));
    if scores.is_empty() && labels.len() > 1 {
        scores.push(labels.remove(1));
    }
    let read_all = |scores: &[(String, Vec<u8>)]| {
        scores.iter().map(|(n, b)| rvalue_core::io::read_scores(n, b)).collect::<Result<Vec<_>>>()
    };
    let mut read = read_all(&scores);
    if read.is_err() && labels.is_empty() && scores.len() == 2 {
        labels.push(scores.remove(1));
        read = read_all(&scores);
    }
    let names: Vec<&str> = scores.iter().chain(&labels).map(|(n, _)| n.as_str()).collect();
    let shown = names.join(" + ");
    if labels.len() > 1 || scores.is_empty() {
        let e = rvalue_core::Error::invalid(format!(
            "{shown}: more than one file names labels; give one labels file (its name holding \"label\")"
        ));
        return (shown, Err(e));
    }
    let got = read.and_then(|mut read| {
        let (test_at, pool) = pool_of(&scores, &read)?;
        let mut d = read.swap_remove(test_at);
        if let Some((lname, lbytes)) = labels.first() {
            d.labels = Some(rvalue_core::io::read_labels(lname, lbytes, d.scores.n(), d.scores.k())?);
        }
        let (sname, sbytes) = &scores[test_at];
        let names = rvalue_core::io::read_class_names(sname, sbytes, d.scores.k())?;
        Ok((test_at, d, pool, names))
    });
    match got {
        Ok((test_at, d, pool, names)) => {
            let mut name = scores[test_at].0.clone();
            for (l, _) in &labels {
                name = format!("{name} + {l}");
            }
            if let Some(p) = &pool {
                let from = scores.get(1 - test_at).map_or("cal_true", |(n, _)| n.as_str());
                name = format!("{name} with the pool {from} [{}, {}]", p.n(), p.m());
            }
            (name, Ok((d, pool, names)))
        }
        Err(e) => (shown, Err(e)),
    }
}

/// Which of the score files read is the test file, and the pool: the other file, or the test
/// file's member `cal_true`.
fn pool_of(files: &[(String, Vec<u8>)], read: &[Dataset]) -> Result<(usize, Option<TrueDraws>)> {
    match (files, read) {
        ([(name, bytes)], _) => {
            let pool = rvalue_core::io::read_cal_true(name, bytes)?;
            Ok((0, pool.map(|d| TrueDraws::of_dataset(&format!("{name}: member cal_true"), d)).transpose()?))
        }
        ([(a, _), (b, _)], [da, db]) => {
            let pool_for = |p: &Dataset, t: &Dataset| p.single_draw && p.scores.k() == t.scores.m();
            let (test_at, pool_name) = match (pool_for(db, da), pool_for(da, db)) {
                (true, false) => (0, b),
                (false, true) => (1, a),
                _ => {
                    return Err(rvalue_core::Error::invalid(format!(
                        "{a} and {b} are two score files: one should be a calibration pool of \
                         true-label draws [n_cal, M] for the other's M draws (or name a labels \
                         file \"…label…\")"
                    )))
                }
            };
            Ok((test_at, Some(TrueDraws::of_dataset(pool_name, read[1 - test_at].clone())?)))
        }
        _ => Err(rvalue_core::Error::invalid("give at most two score files: the test items and a pool")),
    }
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
        Ok(bytes) => {
            let origin = DataRef::Sample(name.clone());
            let (name, got) = read(name, &bytes, None);
            let (data, names) = split_names(got);
            sink(Got::Dataset { name, data, names, pool: None, origin, note: None })
        }
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
    let status = match name.as_str() {
        SYNTHETIC_CIFAR => "Generating a CIFAR-100-shaped tensor (2000 × 31 × 100)…".to_string(),
        SYNTHETIC_TOY => "Simulating the toy at its defaults (1000 × 30 × 10)…".to_string(),
        _ => format!("Fetching {name}…"),
    };
    if let Ok(d) = dom::document() {
        dom::set_text(&d, ids::STATUS, &status);
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
