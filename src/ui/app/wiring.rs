//! The page's events wired to the app: sliders draw in the event, other inputs when
//! committed, plus the buttons, the file inputs, the Copy link button and the exports.

use super::export;
use super::frame::{with, with_now};
use super::replies::file_sink;
use super::{App, Shared};
use crate::ui::dom::{self, checked, number};
use crate::ui::{files, permalink, print};
use rvalue_core::Result;
use rvalue_model::controls::table::{Input, CONTROLS};
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::page::{form, inputs, ItemMove};
use rvalue_model::Mode;
use wasm_bindgen::JsCast;
use web_sys::{Document, KeyboardEvent};

/// Calls `f` on the app when element `id` fires `event`; a frame then shows what it changed.
fn on(app: &Shared, doc: &Document, id: &str, event: &str, f: impl Fn(&mut App) + 'static) -> Result<()> {
    let a = app.clone();
    dom::listen_id(doc, id, event, move |_| with(&a, &f))
}

/// The radio buttons `{key}-{mode}`, one per [`Mode`].
fn wire_modes(app: &Shared, doc: &Document, key: &str) -> Result<()> {
    for &mode in Mode::ALL.iter() {
        on(app, doc, &format!("{key}-{}", mode.name()), "change", move |app| app.set_mode(mode))?;
    }
    Ok(())
}

/// A slider: it draws as it moves, and PageUp/PageDown take the scale's big steps
/// ([`Input::Slider`]'s `page`) rather than the browser's tenth of the positions, which on σ²'s
/// log scale lands between round values.
fn wire_slider(app: &Shared, doc: &Document, key: &str, page: fn(u32, bool) -> u32) -> Result<()> {
    let a = app.clone();
    dom::listen_id(doc, key, "input", move |_| with_now(&a, App::controls_changed))?;
    let (a, input) = (app.clone(), dom::input(doc, key)?);
    dom::listen_id(doc, key, "keydown", move |e| {
        let Some(k) = e.dyn_ref::<KeyboardEvent>() else { return };
        let modified = k.alt_key() || k.ctrl_key() || k.meta_key() || k.shift_key();
        let Some(to) = inputs::page_key(&k.key(), modified, &input.value(), page) else { return };
        e.prevent_default();
        input.set_value(&to.to_string());
        with_now(&a, App::controls_changed);
    })
}

/// Panel 9's worst classes: a click on one (a button the list rebuilds) opens the inspector.
/// Panel 9's events: a worst class clicked, and the panel entering or leaving the part of the
/// page the browser renders.
fn wire_classes(app: &Shared, doc: &Document) -> Result<()> {
    let a = app.clone();
    dom::listen_id(doc, ids::PANEL_CLASSES, "contentvisibilityautostatechange", move |e| {
        let skipped = js_sys::Reflect::get(&e, &"skipped".into()).ok().and_then(|v| v.as_bool());
        a.borrow().classes_in_view(skipped.unwrap_or(false));
    })?;
    let a = app.clone();
    dom::listen_id(doc, ids::WORST_CLASSES, "click", move |e| {
        let class = e
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.closest("button[data-class]").ok().flatten())
            .and_then(|b| b.get_attribute("data-class"))
            .and_then(|c| c.parse::<usize>().ok());
        if let Some(c) = class {
            with(&a, |app| app.open_class(c));
        }
    })
}

pub(super) fn wire(app: &Shared) -> Result<()> {
    let doc = app.borrow().doc.clone();
    // Sliders follow the pointer ("input") and draw in the event; other inputs apply when
    // committed ("change"); a mode's radio button switches the mode.
    for control in CONTROLS.iter() {
        match control.input {
            Input::Slider { page, .. } => wire_slider(app, &doc, control.key, page)?,
            Input::Number | Input::Select | Input::Checkbox => {
                on(app, &doc, control.key, "change", App::controls_changed)?
            }
            Input::Radio => wire_modes(app, &doc, control.key)?,
            Input::LinkOnly => {}
        }
    }
    on(app, &doc, ids::CANCEL, "click", App::cancel)?;
    on(app, &doc, ids::START_LONG, "click", App::start_long)?;
    on(app, &doc, ids::PER_ITEM_PRIOR, "click", App::toggle_per_item_prior)?;
    let a = app.clone();
    dom::listen_id(&doc, ids::LARGE_TEXT, "change", move |_| {
        with(&a, |app| {
            let on = checked(&app.doc, ids::LARGE_TEXT).unwrap_or(false);
            app.framing.set_large_text(on);
            dom::apply(&app.doc, &form::large_text(on));
            app.drawn.all_dirty();
        })
    })?;
    for (id, to) in [
        (ids::ITEM_PREV, ItemMove::Prev),
        (ids::ITEM_NEXT, ItemMove::Next),
        (ids::ITEM_RANDOM, ItemMove::Random),
    ] {
        on(app, &doc, id, "click", move |app| app.step_item(to))?;
    }
    let a = app.clone();
    dom::listen_id(&doc, ids::ITEM_INDEX, "change", move |_| {
        with(&a, |app| match number::<usize>(&app.doc, ids::ITEM_INDEX, "test item") {
            Ok(i) => app.step_item(ItemMove::To(i)),
            Err(e) => app.show_error(Some(&sentence(&e))),
        })
    })?;
    wire_classes(app, &doc)?;
    if let Some(w) = web_sys::window() {
        let a = app.clone();
        dom::listen(&w, "resize", move |_| with(&a, |app| app.drawn.all_dirty()));
    }
    let a = app.clone();
    print::wire(&doc, move || with_now(&a, |app| app.drawn.all_dirty()));
    files::wire(&file_sink(app), &doc)?;
    let a = app.clone();
    permalink::wire(&doc, move || a.borrow_mut().link_now())?;
    export::wire(app, &doc)?;
    Ok(())
}
