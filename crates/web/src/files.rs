//! Getting bytes into the page: files the reader dropped or chose, and the bundled samples
//! (fetched from the app's own `assets/`, or made in the page). Nothing is sent anywhere. Each
//! load ends in a [`Got`], which the page shows.

use std::sync::Arc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, Response};

use crate::byte_source::ByteSource;
use crate::streamed::{self, Streamed};
use crate::{array_bytes, js_message};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::Dataset;
use rvalue_core::Result;
use rvalue_model::files::{self, DropPlan};
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
    array_bytes(f.array_buffer()).await.map_err(|e| format!("{}: {}", f.name(), js_message(e)))
}

/// `scores` with its labels file `labels`, opened to be read a block at a time.
async fn open_streamed(scores: &File, labels: Option<&File>) -> std::result::Result<Streamed, String> {
    let labels = match labels {
        Some(l) => Some((l.name(), read_file(l).await?)),
        None => None,
    };
    let file = ByteSource::File(scores.clone());
    Streamed::open(file, None, labels, None).await.map_err(|e| rvalue_model::message::plain(&e))
}

/// Files the reader dropped or chose: up to three (the scores, a labels file (the one whose
/// name holds "label") and a pool), or a score file too large to hold, with its labels, read a
/// block at a time.
pub async fn dropped(all: Vec<File>) -> Got {
    let sized: Vec<(String, f64)> = all.iter().map(|f| (f.name(), f.size())).collect();
    let named = match files::plan_drop(&sized, streamed::stream_from()) {
        DropPlan::Stream { scores, labels } => {
            return match open_streamed(&all[scores], labels.map(|l| &all[l])).await {
                Ok(s) => Got::Streamed(s, DataRef::Upload),
                Err(e) => Got::Failed(e),
            };
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
            Got::Dataset { name, data, names, pool, origin: DataRef::Upload, note: None }
        }
        Err(e) => Got::Failed(e),
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

/// The bundled sample `name` (one of [`rvalue_model::samples::SAMPLES`]): downloaded, or made
/// in the page; `None` for a synthetic name the model does not make.
pub async fn sample(name: String) -> Option<Got> {
    if name == SYNTHETIC_CIFAR || name == SYNTHETIC_TOY {
        return synthetic(name).await;
    }
    Some(match download(&name).await {
        Ok(bytes) => Got::whole(name.clone(), &bytes, None, None, DataRef::Sample(name), None),
        Err(e) => Got::Failed(format!("sample {name} could not be fetched: {e}")),
    })
}

async fn download(name: &str) -> std::result::Result<Vec<u8>, String> {
    let w = web_sys::window().ok_or("no window")?;
    // Relative, so the page works from any sub-path of a static server.
    let resp = JsFuture::from(w.fetch_with_str(&format!("assets/{name}"))).await.map_err(js_message)?;
    let resp: Response = resp.dyn_into().map_err(|_| "not a response".to_string())?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    array_bytes(resp.array_buffer().map_err(js_message)?).await.map_err(js_message)
}

/// Lets the browser paint (the page's status line) before a long synchronous piece of work.
async fn next_paint() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// A sample made in the page rather than downloaded ([`rvalue_model::samples::synthetic`]).
async fn synthetic(name: String) -> Option<Got> {
    next_paint().await;
    let (label, data) = rvalue_model::samples::synthetic(&name)?;
    Some(Got::Dataset {
        name: label.to_string(),
        data,
        names: None,
        pool: None,
        origin: DataRef::Sample(name),
        note: None,
    })
}
