//! The page's state in its address ([`rvalue_model::url`] does the mapping): read once at
//! start, rewritten when a control changes, and the "Copy link" button.
//!
//! The address is rewritten with `history.replaceState` (a link, not a history entry per slider
//! step) at most once per [`WRITE_EVERY_MS`]: a slider dragged across its range writes a few
//! times, not once per position. History and clipboard are reached through `js_sys::Reflect`,
//! which needs no further web-sys features (each one is a rebuild of web-sys).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{Document, HtmlInputElement};

use super::dom;
use rvalue_core::Result;
use rvalue_model::ids;
use rvalue_model::url::rewrite::{copy_status, with_query, Rewrites};
use rvalue_model::url::{Restored, UrlState};

/// The shortest interval between two rewrites of the address.
const WRITE_EVERY_MS: i32 = 300;

/// The settings the page was opened with.
pub fn read() -> Restored {
    UrlState::from_query(&search())
}

/// The address' query, without `?`.
pub fn search() -> String {
    let s = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    s.strip_prefix('?').unwrap_or(&s).to_string()
}

/// The page's address with `query` in place of its own (the fragment is dropped).
pub fn url_with(query: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    with_query(&href, query)
}

/// `target.method(args…)`, for the browser APIs reached by name.
pub(super) fn call(
    target: &JsValue,
    method: &str,
    args: &[JsValue],
) -> std::result::Result<JsValue, JsValue> {
    let f: Function = Reflect::get(target, &method.into())?.dyn_into()?;
    f.apply(target, &args.iter().collect())
}

fn replace_address(url: &str) {
    let Some(w) = web_sys::window() else { return };
    let done = Reflect::get(&w, &"history".into())
        .and_then(|h| call(&h, "replaceState", &[JsValue::NULL, "".into(), url.into()]));
    if let Err(e) = done {
        web_sys::console::warn_1(&format!("the address could not be updated: {e:?}").into());
    }
}

/// Keeps the address in step with the page's state ([`Rewrites`]).
pub struct Link(Rc<RefCell<Rewrites>>);

impl Link {
    /// `current`: the query the address has now.
    pub fn new(current: String) -> Link {
        Link(Rc::new(RefCell::new(Rewrites::new(current))))
    }

    /// Schedules a write of `query` unless the address already has it; a write already
    /// scheduled takes the newer query instead.
    pub fn update(&mut self, query: String) {
        if !self.0.borrow_mut().update(query) {
            return;
        }
        let rewrites = self.0.clone();
        let write = Closure::once_into_js(move || {
            if let Some(q) = rewrites.borrow_mut().due() {
                replace_address(&url_with(&q));
            }
        });
        if let Some(w) = web_sys::window() {
            let _ = w
                .set_timeout_with_callback_and_timeout_and_arguments_0(write.unchecked_ref(), WRITE_EVERY_MS);
        }
    }

    /// Writes `query` at once (a pending write is dropped); the address.
    pub fn now(&mut self, query: String) -> String {
        let url = url_with(&query);
        replace_address(&url);
        self.0.borrow_mut().now(query);
        url
    }
}

/// The Copy link button: the clipboard when the browser allows it, else the link in a text
/// field, selected, for the user to copy. `link_now`: the page's address as it is now, written
/// into the address bar at once.
pub fn wire(doc: &Document, link_now: impl Fn() -> String + 'static) -> Result<()> {
    let d = doc.clone();
    dom::listen_id(doc, ids::COPY_LINK, "click", move |_| {
        let url = link_now();
        let d = d.clone();
        match clipboard_write(&url) {
            Some(p) => spawn_local(async move {
                match JsFuture::from(p).await {
                    Ok(_) => dom::apply(&d, &copy_status(true, true)),
                    Err(_) => show_field(&d, &url),
                }
            }),
            None => show_field(&d, &url),
        }
    })
}

/// `navigator.clipboard.writeText(text)`, if the browser has it (it needs a secure context:
/// localhost or https).
fn clipboard_write(text: &str) -> Option<Promise> {
    let nav = web_sys::window()?.navigator();
    let clip = Reflect::get(&nav, &"clipboard".into()).ok().filter(|c| !c.is_undefined() && !c.is_null())?;
    call(&clip, "writeText", &[text.into()]).ok()?.dyn_into().ok()
}

/// The fallback: the link selected in a text field, and the legacy copy command tried on it.
fn show_field(d: &Document, url: &str) {
    let Ok(field) = dom::by_id::<HtmlInputElement>(d, ids::LINK_TEXT) else { return };
    field.set_value(url);
    field.set_hidden(false);
    let _ = field.focus();
    field.select();
    let copied = call(d, "execCommand", &["copy".into()]).ok().and_then(|v| v.as_bool()) == Some(true);
    dom::apply(d, &copy_status(false, copied));
}
