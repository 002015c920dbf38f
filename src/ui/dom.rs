//! Small typed helpers over `web-sys`: finding the page's elements, reading and writing inputs,
//! attaching listeners. Every failure is an [`Error`], never a panic, because a panic in wasm
//! kills the page.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement, HtmlSelectElement};

use rvalue_core::{Error, Result};
use rvalue_model::edits::{Edit, Edits};

pub fn document() -> Result<Document> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| Error::invalid("no document"))
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

pub use rvalue_web::marks::{mark, DROPPED_ANSWER, SHARE_READ};
pub use rvalue_web::{js_message, to_js};

pub fn by_id<T: JsCast>(doc: &Document, id: &str) -> Result<T> {
    doc.get_element_by_id(id)
        .ok_or_else(|| Error::invalid(format!("the page has no #{id}")))?
        .dyn_into::<T>()
        .map_err(|_| Error::invalid(format!("#{id} is not the expected kind of element")))
}

pub fn input(doc: &Document, id: &str) -> Result<HtmlInputElement> {
    by_id(doc, id)
}

pub fn select(doc: &Document, id: &str) -> Result<HtmlSelectElement> {
    by_id(doc, id)
}

pub fn set_text(doc: &Document, id: &str, text: &str) {
    if let Some(e) = doc.get_element_by_id(id) {
        // Writing the same text again would still re-layout; skip it.
        if e.text_content().as_deref() != Some(text) {
            e.set_text_content(Some(text));
        }
    }
}

/// Sets attribute `name` of element `id`, skipping a write of the value it already has.
pub fn set_attr(doc: &Document, id: &str, name: &str, value: &str) {
    if let Some(e) = doc.get_element_by_id(id) {
        if e.get_attribute(name).as_deref() != Some(value) {
            let _ = e.set_attribute(name, value);
        }
    }
}

/// Applies the model's writes ([`Edits`]) in their order; each skips a write of what the
/// element already holds, as the setters below do.
pub fn apply(doc: &Document, edits: &Edits) {
    for e in &edits.0 {
        match e {
            Edit::Text(id, t) => set_text(doc, id, t),
            Edit::Html(id, h) => set_html(doc, id, h),
            Edit::Attr(id, name, v) => set_attr(doc, id, name, v),
            Edit::Hidden(id, h) => set_hidden(doc, id, *h),
            Edit::Class(id, name, on) => toggle_class(doc.get_element_by_id(id), name, *on),
            Edit::BodyClass(name, on) => toggle_class(doc.body().map(Element::from), name, *on),
            Edit::Value(id, v) => set_value(doc, id, v),
            Edit::Checked(id, on) => set_checked(doc, id, *on),
            Edit::Disabled(id, off) => {
                if let Some(e) = doc.get_element_by_id(id) {
                    let _ = e.toggle_attribute_with_force("disabled", *off);
                }
            }
        }
    }
}

fn toggle_class(e: Option<Element>, name: &str, on: bool) {
    if let Some(e) = e {
        let _ = e.class_list().toggle_with_force(name, on);
    }
}

pub fn set_html(doc: &Document, id: &str, html: &str) {
    if let Some(e) = doc.get_element_by_id(id) {
        e.set_inner_html(html);
    }
}

pub fn set_hidden(doc: &Document, id: &str, hidden: bool) {
    if let Ok(e) = by_id::<HtmlElement>(doc, id) {
        // Unchanged, not written: a write invalidates style.
        if e.hidden() != hidden {
            e.set_hidden(hidden);
        }
    }
}

/// Parses a number input; the message names the field by its label.
pub fn number<T: std::str::FromStr>(doc: &Document, id: &str, what: &str) -> Result<T> {
    let raw = input(doc, id)?.value();
    raw.trim().parse().map_err(|_| Error::invalid(format!("{what}: '{raw}' is not a valid number")))
}

pub fn set_value(doc: &Document, id: &str, value: &str) {
    if let Some(e) = doc.get_element_by_id(id) {
        if let Some(i) = e.dyn_ref::<HtmlInputElement>() {
            if i.value() != value {
                i.set_value(value);
            }
        } else if let Some(s) = e.dyn_ref::<HtmlSelectElement>() {
            s.set_value(value);
        }
    }
}

pub fn checked(doc: &Document, id: &str) -> Result<bool> {
    Ok(input(doc, id)?.checked())
}

pub fn set_checked(doc: &Document, id: &str, on: bool) {
    if let Ok(i) = input(doc, id) {
        i.set_checked(on);
    }
}

/// Adds a listener that lives as long as the page (the closure is leaked on purpose: the page's
/// controls are never removed).
pub fn listen(target: &web_sys::EventTarget, event: &str, f: impl FnMut(web_sys::Event) + 'static) {
    let cb = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    // The only failure is a non-callable listener, which a Closure never is.
    let _ = target.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref());
    cb.forget();
}

pub fn listen_id(
    doc: &Document,
    id: &str,
    event: &str,
    f: impl FnMut(web_sys::Event) + 'static,
) -> Result<()> {
    let e: Element = by_id(doc, id)?;
    listen(&e, event, f);
    Ok(())
}
