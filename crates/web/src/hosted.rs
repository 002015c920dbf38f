//! `?src=`: a score file hosted on the page's own site (and `&labels=` for an `.npy`'s labels),
//! read as a dropped file is: its first bytes are asked for with an HTTP Range request, and a
//! large file whose server answers it is read a block at a time with more of them
//! ([`ByteSource::Hosted`]); a server that ignores Range requests sends the whole file, which
//! is read whole up to the page's limit, and the page says so. Another site's address is
//! refused before anything is fetched: the page's Content-Security-Policy would block it
//! anyway, silently. `&name=` replaces the file's name where the page shows it (the model has
//! checked it; the page writes it as text); the read's errors keep the file's own.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Response, Url};

use crate::byte_source::{self, ByteSource, HostedFile};
use crate::files::Got;
use crate::js_message;
use crate::streamed::{self, Streamed};
use rvalue_model::files::{too_large, HEAD_BYTES};
use rvalue_model::url::hosted::{self, file_name, unranged_note, HostedRead};
use rvalue_model::url::DataRef;

/// Fetches the hosted file `src` (and its labels `labels`) and reads it; `name` is shown in
/// place of the file's own name. `fetching` is told, for the status line, how large a download
/// is once the server says ([`hosted::fetching`]).
pub async fn load(
    src: String,
    labels: Option<String>,
    name: Option<String>,
    fetching: &dyn Fn(String),
) -> Got {
    let origin = DataRef::Hosted { src: src.clone(), labels: labels.clone(), name: name.clone() };
    let at = Fetch { fetching };
    match at.read(&src, labels.as_deref(), name.as_deref()).await {
        Ok(Read::Streamed(s)) => Got::Streamed(s, origin),
        Ok(Read::Whole { bytes, labels, note }) => {
            Got::whole(file_name(&src), &bytes, labels, name, origin, note)
        }
        Err(e) => Got::Failed(e),
    }
}

/// What a hosted file gave: opened to be read a block at a time, or its bytes (and its labels'
/// name and bytes) with what the page says of how they were read.
enum Read {
    Streamed(Streamed),
    Whole { bytes: Vec<u8>, labels: Option<(String, Vec<u8>)>, note: Option<String> },
}

/// A load's downloads, and where they say how large they are.
struct Fetch<'a> {
    fetching: &'a dyn Fn(String),
}

impl Fetch<'_> {
    async fn read(&self, src: &str, labels: Option<&str>, shown: Option<&str>) -> Result<Read, String> {
        let url = on_this_site(src)?;
        let head = 0..HEAD_BYTES;
        let fail = |e| format!("'{src}' could not be fetched: {}", js_message(e));
        let resp = checked(src, byte_source::fetch_range(&url, &head).await.map_err(fail)?)?;
        let range = resp.headers().get("content-range").ok().flatten();
        let labels = match labels {
            Some(l) => Some((file_name(l), self.whole(l, checked(l, get(l).await?)?).await?)),
            None => None,
        };
        match HostedRead::of(resp.status(), range.as_deref(), head.end, streamed::stream_from()) {
            HostedRead::Stream { size } => {
                // The answer holds the file's first bytes: its header, read once.
                let first = self.whole(src, resp).await?;
                let file = ByteSource::Hosted(HostedFile { url, name: file_name(src), size });
                let opened = Streamed::open(file, Some(first), labels, shown).await;
                Ok(Read::Streamed(opened.map_err(|e| rvalue_model::message::plain(&e))?))
            }
            HostedRead::Refetch => {
                drain(&resp).await;
                let bytes = self.whole(src, checked(src, get(src).await?)?).await?;
                Ok(Read::Whole { bytes, labels, note: None })
            }
            HostedRead::AsIs => {
                let ranged = resp.status() == 206;
                let bytes = self.whole(src, resp).await?;
                let note =
                    if ranged { None } else { unranged_note(bytes.len() as f64, streamed::stream_from()) };
                Ok(Read::Whole { bytes, labels, note })
            }
        }
    }

    /// The body of `resp` (from `address`), [`Fetch::fetching`] told how large the download is.
    async fn whole(&self, address: &str, resp: Response) -> Result<Vec<u8>, String> {
        let fail = |e| format!("'{address}' could not be fetched: {}", js_message(e));
        let total = resp.headers().get("content-length").ok().flatten().and_then(|n| n.parse::<f64>().ok());
        // Read whole, as a dropped file is, so within the same limit.
        if let Some(why) = total.and_then(|n| too_large(&format!("'{address}'"), n)) {
            return Err(why);
        }
        if let Some(t) = total {
            (self.fetching)(hosted::fetching(address, t));
        }
        // Read whole, as a sample is: a stream reader's last read raced the request's end, which
        // the browser then reported as aborted although every byte had arrived.
        let buf: js_sys::ArrayBuffer =
            JsFuture::from(resp.array_buffer().map_err(fail)?).await.map_err(fail)?.unchecked_into();
        if let Some(why) = too_large(&format!("'{address}'"), f64::from(buf.byte_length())) {
            return Err(why); // a server that gave no length
        }
        Ok(js_sys::Uint8Array::new(&buf).to_vec())
    }
}

/// Reads an answer whose body is not wanted to its end (at most the first bytes asked for):
/// cancelling it would show as a failed request in the console.
async fn drain(resp: &Response) {
    if let Ok(body) = resp.array_buffer() {
        let _ = JsFuture::from(body).await;
    }
}

/// `address` resolved against the page's own, if it is on the page's site.
fn on_this_site(address: &str) -> Result<String, String> {
    let w = web_sys::window().ok_or("no window")?;
    let here = w.location();
    let page = here.href().map_err(js_message)?;
    let url = Url::new_with_base(address, &page).map_err(|_| format!("'{address}' is not an address"))?;
    match hosted::other_site(address, &url.origin(), &here.origin().map_err(js_message)?) {
        Some(why) => Err(why),
        None => Ok(url.href()),
    }
}

/// A plain GET of `address`, on this site.
async fn get(address: &str) -> Result<Response, String> {
    let url = on_this_site(address)?;
    let w = web_sys::window().ok_or("no window")?;
    let fail = |e| format!("'{address}' could not be fetched: {}", js_message(e));
    JsFuture::from(w.fetch_with_str(&url)).await.map_err(fail)?.dyn_into().map_err(fail)
}

/// `resp` if it is a file's bytes: not an error status, nor a web page.
fn checked(address: &str, resp: Response) -> Result<Response, String> {
    let kind = resp.headers().get("content-type").ok().flatten();
    match hosted::refused_answer(address, resp.ok(), resp.status(), kind.as_deref()) {
        Some(why) => Err(why),
        None => Ok(resp),
    }
}
