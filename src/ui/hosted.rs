//! `?src=`: a score file hosted on the page's own site (and `&labels=` for an `.npy`'s labels),
//! fetched with its progress on the status line and read as a dropped file is. Another site's
//! address is refused before anything is fetched: the page's Content-Security-Policy would
//! block it anyway, silently. `&name=` replaces the file's name where the page shows it (the
//! model has checked it; the page writes it as text); the read's errors keep the file's own.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Response, Url};

use super::dom;
use super::files::{self, Got, Sink};
use rvalue_model::url::DataRef;

/// Fetches the hosted file `src` (and its labels `labels`) and hands what it read to `sink`.
/// `name` is shown in place of the file's own name.
pub fn load(sink: &Sink, src: String, labels: Option<String>, name: Option<String>) {
    if let Ok(d) = dom::document() {
        dom::set_text(&d, "status", &format!("Fetching {src}…"));
        dom::set_attr(&d, "status", "data-state", "loading");
    }
    spawn_local(fetch_and_read(sink.clone(), src, labels, name));
}

async fn fetch_and_read(sink: Sink, src: String, labels: Option<String>, shown: Option<String>) {
    let got = async {
        let bytes = fetch(&src).await?;
        let labels = match &labels {
            Some(l) => Some((file_name(l), fetch(l).await?)),
            None => None,
        };
        Ok::<_, String>((bytes, labels))
    }
    .await;
    match got {
        Ok((bytes, read_labels)) => {
            let origin = DataRef::Hosted { src: src.clone(), labels, name: shown.clone() };
            let (own, got) = files::read(file_name(&src), &bytes, read_labels);
            let name = shown.unwrap_or(own);
            let (data, names) = files::split_names(got);
            sink(Got::Dataset { name, data, names, pool: None, origin })
        }
        Err(e) => sink(Got::Failed(e)),
    }
}

/// The last part of an address' path: the name its extension is read from.
fn file_name(address: &str) -> String {
    let path = address.split(['?', '#']).next().unwrap_or(address);
    path.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(path).to_string()
}

/// `address` resolved against the page's own, if it is on the page's site.
fn on_this_site(address: &str) -> Result<String, String> {
    let w = web_sys::window().ok_or("no window")?;
    let here = w.location();
    let page = here.href().map_err(dom::js_message)?;
    let url = Url::new_with_base(address, &page).map_err(|_| format!("'{address}' is not an address"))?;
    let own = here.origin().map_err(dom::js_message)?;
    if url.origin() != own {
        return Err(format!(
            "'{address}' is on another site ({}); the page loads hosted files from its own site \
             ({own}) only",
            url.origin()
        ));
    }
    Ok(url.href())
}

/// The bytes at `address`, the status line saying how far the download is.
async fn fetch(address: &str) -> Result<Vec<u8>, String> {
    let url = on_this_site(address)?;
    let w = web_sys::window().ok_or("no window")?;
    let fail = |e| format!("'{address}' could not be fetched: {}", dom::js_message(e));
    let resp: Response =
        JsFuture::from(w.fetch_with_str(&url)).await.map_err(fail)?.dyn_into().map_err(fail)?;
    if !resp.ok() {
        return Err(format!("'{address}' could not be fetched: HTTP {}", resp.status()));
    }
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    if header("content-type").is_some_and(|t| t.starts_with("text/html")) {
        return Err(format!("'{address}' is a web page, not a score file: is the address right?"));
    }
    let total = header("content-length").and_then(|n| n.parse::<f64>().ok());
    // Read whole, as a dropped file is, so within the same limit.
    if let Some(why) = total.and_then(|n| files::too_large(&format!("'{address}'"), n)) {
        return Err(why);
    }
    if let (Some(t), Ok(d)) = (total, dom::document()) {
        dom::set_text(&d, "status", &format!("Fetching {address} ({:.1} MB)…", t / 1e6));
    }
    // Read whole, as a sample is: a stream reader's last read raced the request's end, which
    // the browser then reported as aborted although every byte had arrived.
    let buf: js_sys::ArrayBuffer =
        JsFuture::from(resp.array_buffer().map_err(fail)?).await.map_err(fail)?.unchecked_into();
    if let Some(why) = files::too_large(&format!("'{address}'"), f64::from(buf.byte_length())) {
        return Err(why); // a server that gave no length
    }
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
