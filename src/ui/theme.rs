//! The page's theme (`?theme=light|dark|auto`, `?background=transparent`): attributes on
//! `<html>` whose CSS custom properties colour the page (`www/style.css`), and the figures'
//! palette to match ([`palette`]), read from those attributes when a figure is drawn
//! so no caller passes it along. `auto` follows `prefers-color-scheme`, also when the reader's
//! system switches: the figures are redrawn then ([`on_change`]).
//!
//! Exports follow the theme: the PNG is the canvas as shown, the SVG is drawn with the same
//! palette (a dark docs page gets dark figures, a transparent embed transparent ones).

use js_sys::{Function, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Document;

use super::dom;
use rvalue_model::theme;
use rvalue_model::url::{Theme, View};
use rvalue_plot::Palette;

/// The media query `auto` follows.
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// The palette of the page as it is now: its theme resolved (`auto` by the media query) and
/// its background.
pub fn palette() -> Palette {
    let Ok(doc) = dom::document() else { return Palette::light() };
    let Some(html) = doc.document_element() else { return Palette::light() };
    let dark = html.get_attribute("data-theme").as_deref() == Some("dark");
    let transparent = html.get_attribute("data-background").as_deref() == Some("transparent");
    Palette::of(if dark { &theme::DARK } else { &theme::LIGHT }, transparent)
}

/// Marks `<html>` with the link's theme, resolved (`auto` by the media query, so the style
/// sheet and the figures need one rule each), and background, before anything is drawn.
pub fn mark(doc: &Document, view: &View) {
    let Some(html) = doc.document_element() else { return };
    let dark = match view.theme {
        Theme::Light => false,
        Theme::Dark => true,
        Theme::Auto => prefers_dark(),
    };
    let _ = html.set_attribute("data-theme", if dark { "dark" } else { "light" });
    if view.transparent {
        let _ = html.set_attribute("data-background", "transparent");
    }
}

/// `window.matchMedia(DARK_QUERY)`, reached through `js_sys::Reflect` (no web-sys feature).
fn dark_query() -> Option<JsValue> {
    let w = web_sys::window()?;
    let f: Function = Reflect::get(&w, &"matchMedia".into()).ok()?.dyn_into().ok()?;
    f.call1(&w, &DARK_QUERY.into()).ok()
}

fn prefers_dark() -> bool {
    dark_query().and_then(|q| Reflect::get(&q, &"matches".into()).ok()).and_then(|m| m.as_bool())
        == Some(true)
}

/// Marks the page again and calls `f` when the system's colour scheme changes, if the page
/// follows it (`theme=auto`).
pub fn on_change(doc: &Document, view: &View, f: impl FnMut() + 'static) {
    if view.theme != Theme::Auto {
        return;
    }
    match dark_query().and_then(|q| q.dyn_into::<web_sys::EventTarget>().ok()) {
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
