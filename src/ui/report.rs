//! A saved report (`rvalue_explorer.save_html`): the page, its data and its settings in one
//! file opened from disk. The data and settings are base64 in two inert blocks
//! (`<script type="application/octet-stream">`, which the browser never runs); the settings are
//! a link's query ([`rvalue_model::url::report`] reads it). The data is read as a dropped file
//! is, and its class names and the name given are shown as text, as any file's are.
//! A notebook's widget (`rvalue_explorer.explore`) leaves the data block empty and gives the
//! data as bytes instead, on the frame it writes the page into ([`WIDGET_DATA`]): base64 text
//! of half a gigabyte would not fit in one JavaScript string.

use super::dom;
use super::files::{Got, Sink};
use rvalue_model::url::report::{decode_base64, in_force};
use rvalue_model::url::{DataRef, Restored};

/// The block holding the score file (an `.npz`).
const DATA: &str = "report-data";
/// The block holding the settings.
const SETTINGS: &str = "report-settings";
/// The property of the page's frame element holding the data as bytes (an `ArrayBuffer` or a
/// typed array): set by the widget, which shows the page in a frame of its own origin; a page
/// in no frame, or in another origin's, sees no frame element.
const WIDGET_DATA: &str = "rvalueReportData";

/// The settings in force if this page is a saved report ([`in_force`]).
pub fn settings() -> Option<(Restored, Option<String>)> {
    let doc = dom::document().ok()?;
    doc.get_element_by_id(DATA)?;
    let own = block(&doc, SETTINGS).and_then(|b| String::from_utf8(b).ok()).unwrap_or_default();
    Some(in_force(&own, &super::permalink::search()))
}

/// A block's bytes (`None` when it is missing or not base64).
fn block(doc: &web_sys::Document, id: &str) -> Option<Vec<u8>> {
    decode_base64(&doc.get_element_by_id(id)?.text_content()?).ok()
}

/// Reads the report's data and hands it to `sink` (after the page's start, as a sample's
/// arrives), shown under the name given, if one was.
pub fn load(sink: &Sink) {
    let sink = sink.clone();
    wasm_bindgen_futures::spawn_local(async move { read_into(&sink) });
}

fn read_into(sink: &Sink) {
    let Some((_, name)) = settings() else { return };
    let Ok(doc) = dom::document() else { return };
    let text = || doc.get_element_by_id(DATA).and_then(|e| e.text_content()).unwrap_or_default();
    match widget_data().map_or_else(|| decode_base64(&text()), Ok) {
        Ok(bytes) => sink(Got::whole("report.npz".to_string(), &bytes, None, name, DataRef::Report, None)),
        Err(why) => sink(Got::Failed(format!("The report's data cannot be read: {why}."))),
    }
}

/// The data a widget gave the page's frame, if it gave any.
fn widget_data() -> Option<Vec<u8>> {
    let frame = web_sys::window()?.frame_element().ok()??;
    let value = js_sys::Reflect::get(&frame, &WIDGET_DATA.into()).ok()?;
    // Made in the page's own realm: the widget's array belongs to the notebook's.
    value.is_object().then(|| js_sys::Uint8Array::new(&value).to_vec())
}
