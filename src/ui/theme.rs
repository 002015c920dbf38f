//! The page's theme (`?theme=light|dark|auto`, `?background=transparent`): attributes on
//! `<html>` whose CSS custom properties colour the page (`www/style.css`), and the figures'
//! palette to match ([`palette`]), read from those attributes when a figure is drawn
//! so no caller passes it along. `auto` follows `prefers-color-scheme`, also when the reader's
//! system switches: the figures are redrawn then ([`on_change`]).
//!
//! Exports follow the theme: the PNG is the canvas as shown, the SVG is drawn with the same
//! palette (a dark docs page gets dark figures, a transparent embed transparent ones).

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Document;

use super::dom;
use super::permalink::call;
use rvalue_model::theme;
use rvalue_model::url::{Theme, View};
use rvalue_plot::Palette;

/// The media query `auto` follows.
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// The palette of the page as it is now: its theme resolved (`auto` by the media query) and
/// its background.
pub fn palette() -> Palette {
    let html = dom::document().ok().and_then(|d| d.document_element());
    let attr = |name| html.as_ref().and_then(|h| h.get_attribute(name));
    let (colours, transparent) =
        theme::page_palette(attr("data-theme").as_deref(), attr("data-background").as_deref());
    Palette::of(colours, transparent)
}

/// Marks `<html>` with the link's theme, resolved (`auto` by the media query, so the style
/// sheet and the figures need one rule each), and background, before anything is drawn.
pub fn mark(doc: &Document, view: &View) {
    let Some(html) = doc.document_element() else { return };
    for (name, value) in theme::html_attrs(view, || media_query(DARK_QUERY).is_some_and(|q| matches(&q))) {
        let _ = html.set_attribute(name, value);
    }
}

/// `window.matchMedia(query)`, reached through `js_sys::Reflect` (no web-sys feature).
pub(super) fn media_query(query: &str) -> Option<JsValue> {
    call(&web_sys::window()?.into(), "matchMedia", &[query.into()]).ok()
}

/// Whether the media query `q` matches now.
pub(super) fn matches(q: &JsValue) -> bool {
    Reflect::get(q, &"matches".into()).is_ok_and(|m| m.is_truthy())
}

/// Marks the page again and calls `f` when the system's colour scheme changes, if the page
/// follows it (`theme=auto`).
pub fn on_change(doc: &Document, view: &View, f: impl FnMut() + 'static) {
    if view.theme != Theme::Auto {
        return;
    }
    match media_query(DARK_QUERY).and_then(|q| q.dyn_into::<web_sys::EventTarget>().ok()) {
        Some(q) => {
            let (mut f, doc, view) = (f, doc.clone(), view.clone());
            dom::listen(&q, "change", move |_| {
                mark(&doc, &view);
                f()
            });
        }
        None => web_sys::console::warn_1(&"no matchMedia: the figures keep their first colours".into()),
    }
}
