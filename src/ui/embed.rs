//! Embed mode (`?embed=<panel>`, or `?embed=tour&tour=N`, a step of the guided tour alone): one
//! panel and the sliders it needs (or a step's card, panels and control), filling an iframe,
//! with its content height posted to the parent page so the iframe can fit it.
//!
//! The page itself is unchanged: a class on `<body>` and `embed-keep` on what stays make
//! `www/style.css` hide the rest. The message is
//! `{type: 'rvalue-explorer:height', height, panel}`, sent on start and whenever the body's size
//! changes (a `ResizeObserver`, reached through `js_sys::Reflect` like the history API in
//! [`super::permalink`]).

use std::cell::RefCell;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Window};

use super::dom;
use super::permalink::call;
use rvalue_model::embed::{height_message, marks, posted_as, Heights};
use rvalue_model::panel::Panel;
use rvalue_model::tour::Step;
use rvalue_model::url::Slider;

/// Marks the page for what `?embed=` asks, one panel or a tour step alone ([`marks`]): a
/// slider is kept by its wrapper, a control by its slider or fieldset (a direct child of the
/// controls).
pub fn mark(doc: &Document, panel: Option<Panel>, step: Option<&Step>) {
    let (Some(m), Some(body)) = (marks(panel, step), doc.body()) else { return };
    let _ = body.class_list().add_1("embed");
    let _ = body.set_attribute("data-embed", m.name);
    for id in &m.keep {
        keep(doc.get_element_by_id(id));
    }
    for id in m.sliders {
        keep(dom::input(doc, id).ok().and_then(|i| i.parent_element()));
    }
    for id in m.controls {
        keep(doc.get_element_by_id(id).and_then(|e| e.closest(".slider, fieldset").ok().flatten()));
    }
}

/// Posts the heights of what `?embed=` shows (nothing for the whole page).
pub fn post(doc: &Document, panel: Option<Panel>, tour_alone: bool) {
    if let Some(name) = posted_as(panel, tour_alone) {
        post_heights(doc, name);
    }
}

/// Marks the page for a figure alone (`?embed=<panel>&chrome=none`): `body.figure-only`, which
/// `www/style.css` uses to hide the panel's caption, notes, exports and the page's status, and
/// `figure-keep` on the sliders the link names (every other slider is hidden).
pub fn mark_figure_only(doc: &Document, panel: Option<Panel>, sliders: &[Slider]) {
    let (Some(_), Some(body)) = (panel, doc.body()) else { return };
    let _ = body.class_list().add_1("figure-only");
    for s in sliders {
        if let Some(e) = dom::input(doc, s.name()).ok().and_then(|i| i.parent_element()) {
            let _ = e.class_list().add_2("embed-keep", "figure-keep");
        }
    }
}

fn keep(e: Option<web_sys::Element>) {
    if let Some(e) = e {
        let _ = e.class_list().add_1("embed-keep");
    }
}

/// Posts the content height to the parent page now and on every change of it. Nothing when
/// the page is not in a frame.
fn post_heights(doc: &Document, panel: &'static str) {
    let Some(w) = web_sys::window() else { return };
    let Some(parent) = w.parent().ok().flatten() else { return };
    if Object::is(&parent, &w) {
        return;
    }
    let doc = doc.clone();
    let heights = RefCell::new(Heights::default());
    let post = move || {
        let Some(body) = doc.body() else { return };
        if let Some(height) = heights.borrow_mut().changed(body.get_bounding_client_rect().height()) {
            send(&parent, height, panel);
        }
    };
    post();
    observe_body(&w, post);
}

fn send(parent: &Window, height: f64, panel: &str) {
    let Ok(msg) = js_sys::JSON::parse(&height_message(height, panel)) else { return };
    // Any origin: the page holds no secret, and the embedding site's origin is not known.
    if let Err(e) = parent.post_message(&msg, "*") {
        web_sys::console::warn_1(&format!("the height could not be posted: {e:?}").into());
    }
}

/// `new ResizeObserver(f).observe(document.body)`; the observer lives as long as the page.
fn observe_body(w: &Window, f: impl Fn() + 'static) {
    let observed = (|| -> std::result::Result<(), JsValue> {
        let body = w.document().and_then(|d| d.body()).ok_or("no body")?;
        let class: Function = Reflect::get(w, &"ResizeObserver".into())?.dyn_into()?;
        let callback = Closure::<dyn Fn()>::new(f);
        let observer = Reflect::construct(&class, &Array::of1(callback.as_ref()))?;
        callback.forget();
        call(&observer, "observe", &[body.into()]).map(|_| ())
    })();
    if let Err(e) = observed {
        web_sys::console::warn_1(&format!("no ResizeObserver: the height is posted once ({e:?})").into());
    }
}
