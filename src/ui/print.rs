//! Printing, and printing to PDF. The print rules of `www/style.css` hide the controls, the
//! status line and the export buttons, and give each figure's canvas the aspect of its bitmap:
//! the aspect it was drawn at on screen. Here every figure is redrawn at its printed size when
//! printing starts (the `print` media query turns on with the printed layout already in place,
//! so a canvas' box is its printed box), at a pixel ratio of at least
//! [`PRINT_PIXEL_RATIO`](rvalue_model::figure::layout::PRINT_PIXEL_RATIO) so that text and lines
//! stay sharp on paper, and at the screen's size again when it ends.
//!
//! An embed's parent sizes the frame from the height the frame posted for the screen, and
//! nothing the frame posts while printing reaches the parent before the pages are laid out.
//! So that this height covers the printed content, each figure is kept no wider than it was on
//! screen: its bitmap, drawn for the screen, gives that width (its pixels over the pixel
//! ratio), pinned as `max-width` before the figure is redrawn. Printed, an embed is then no
//! taller than on screen, its controls gone.

use std::cell::Cell;

use js_sys::Reflect;
use wasm_bindgen::JsCast;
use web_sys::{Document, EventTarget, HtmlCanvasElement};

use super::dom;
use super::theme::{matches, media_query};

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
    // Without `matchMedia`, figures print as drawn for the screen.
    let Some(query) = media_query("print") else { return };
    let Some(target) = query.dyn_ref::<EventTarget>() else { return };
    let (q, doc) = (query.clone(), doc.clone());
    dom::listen(target, "change", move |_| {
        let on = matches(&q);
        pin_widths(&doc, on.then(super::canvas::pixel_ratio));
        PRINTING.with(|p| p.set(on));
        redraw();
    });
}

/// Pins each figure's width to its bitmap's at `ratio` pixels per CSS pixel as `max-width`, or
/// unpins it (`None`). Set through the CSS object model (`style.maxWidth`), which the page's
/// Content-Security-Policy allows, as it does not a `style` attribute.
fn pin_widths(doc: &Document, ratio: Option<f64>) {
    let Ok(all) = doc.query_selector_all(&figure_canvases()) else { return };
    for i in 0..all.length() {
        let Some(c) = all.item(i).and_then(|n| n.dyn_into::<HtmlCanvasElement>().ok()) else { continue };
        let width = ratio.map_or(String::new(), |r| format!("{}px", f64::from(c.width()) / r));
        if let Ok(style) = Reflect::get(&c, &"style".into()) {
            let _ = Reflect::set(&style, &"maxWidth".into(), &width.into());
        }
    }
}

/// The figures' canvases, not the transparent overlays stacked on some of them.
fn figure_canvases() -> String {
    format!("#{} canvas:not(.overlay)", rvalue_model::ids::PANELS)
}
