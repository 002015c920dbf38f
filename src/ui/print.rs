//! Printing, and printing to PDF. The print rules of `www/style.css` hide the controls, the
//! status line and the export buttons, and give each figure's canvas the aspect of its bitmap:
//! the aspect it was drawn at on screen. Here every figure is redrawn at its printed size when
//! printing starts (the `print` media query turns on with the printed layout already in place,
//! so a canvas' box is its printed box), at a pixel ratio of at least [`PRINT_PIXEL_RATIO`] so
//! that text and lines stay sharp on paper, and at the screen's size again when it ends.
//!
//! An embed's parent sizes the frame from the height the frame posted for the screen, and
//! nothing the frame posts while printing reaches the parent before the pages are laid out.
//! So that this height covers the printed content, each figure is kept no wider than it was on
//! screen (its screen width pinned as `max-width` at `beforeprint`, while the layout is still
//! the screen's): printed, an embed is no taller than on screen, its controls gone.

use std::cell::Cell;

use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlElement};

use super::dom;

/// The least pixel ratio figures are printed at (about 190 dpi on paper).
pub const PRINT_PIXEL_RATIO: f64 = 2.0;

/// The figures' canvases, not the transparent overlays stacked on some of them.
const FIGURE_CANVASES: &str = "#panels canvas:not(.overlay)";

thread_local! {
    static PRINTING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the page is being printed (the `print` media query matches).
pub fn printing() -> bool {
    PRINTING.with(Cell::get)
}

/// Listens for printing: `redraw` is called, in the event, when printing starts and when it
/// ends; it must draw every figure at once (a frame would come too late for the printout).
pub fn wire(doc: &Document, redraw: impl Fn() + 'static) {
    let Some(w) = web_sys::window() else { return };
    let d = doc.clone();
    dom::listen(&w, "beforeprint", move |_| pin_widths(&d, true));
    let d = doc.clone();
    dom::listen(&w, "afterprint", move |_| pin_widths(&d, false));
    let Some(query) = w.match_media("print").ok().flatten() else {
        web_sys::console::warn_1(&"no print media query: figures print as drawn for the screen".into());
        return;
    };
    let q = query.clone();
    dom::listen(&query, "change", move |_| {
        PRINTING.with(|p| p.set(q.matches()));
        redraw();
    });
}

/// Pins each shown figure's width to its current one as `max-width` (`on`), or unpins it.
fn pin_widths(doc: &Document, on: bool) {
    let Ok(all) = doc.query_selector_all(FIGURE_CANVASES) else { return };
    for i in 0..all.length() {
        let Some(e) = all.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) else { continue };
        let style = e.style();
        let width = e.client_width();
        let _ = if on && width > 0 {
            style.set_property("max-width", &format!("{width}px"))
        } else {
            style.remove_property("max-width").map(|_| ())
        };
    }
}
