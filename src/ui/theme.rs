//! The page's theme (`?theme=light|dark|auto`, `?background=transparent`): attributes on
//! `<html>` whose CSS custom properties colour the page (`www/style.css`), and the figures'
//! palette to match ([`Palette::current`]), read from those attributes when a figure is drawn
//! so no caller passes it along. `auto` follows `prefers-color-scheme`, also when the reader's
//! system switches: the figures are redrawn then ([`on_change`]).
//!
//! Exports follow the theme: the PNG is the canvas as shown, the SVG is drawn with the same
//! palette (a dark docs page gets dark figures, a transparent embed transparent ones).

use js_sys::{Function, Reflect};
use plotters::style::RGBColor;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Document;

use super::dom;
use rvalue_model::theme::{self, Rgb};
use rvalue_model::url::{Theme, View};

/// The media query `auto` follows.
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// What a figure draws in colours that are not a method's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Palette {
    /// `None`: nothing is painted under the figure (a transparent embed).
    pub background: Option<RGBColor>,
    pub ink: RGBColor,
    pub grey: RGBColor,
    pub grid: (RGBColor, RGBColor),
    pub edge: RGBColor,
    /// Under the legend's text, whatever the background.
    pub legend: RGBColor,
}

/// A model colour as plotters draws it.
pub fn rgb((r, g, b): Rgb) -> RGBColor {
    RGBColor(r, g, b)
}

impl Palette {
    pub fn of(p: &theme::Palette, transparent: bool) -> Palette {
        Palette {
            background: (!transparent).then(|| rgb(p.background)),
            ink: rgb(p.ink),
            grey: rgb(p.grey),
            grid: (rgb(p.grid.0), rgb(p.grid.1)),
            edge: rgb(p.edge),
            legend: rgb(p.background),
        }
    }

    pub fn light() -> Palette {
        Palette::of(&theme::LIGHT, false)
    }

    /// The palette of the page as it is now: its theme resolved (`auto` by the media query)
    /// and its background.
    pub fn current() -> Palette {
        let Ok(doc) = dom::document() else { return Palette::light() };
        let Some(html) = doc.document_element() else { return Palette::light() };
        let dark = html.get_attribute("data-theme").as_deref() == Some("dark");
        let transparent = html.get_attribute("data-background").as_deref() == Some("transparent");
        Palette::of(if dark { &theme::DARK } else { &theme::LIGHT }, transparent)
    }

    /// `c` as this palette draws it: the light palette's text and grey become this one's.
    pub fn colour(&self, c: Rgb) -> RGBColor {
        let light = theme::LIGHT;
        if c == light.ink {
            self.ink
        } else if c == light.grey {
            self.grey
        } else {
            rgb(c)
        }
    }
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
