//! The page's `<canvas>` elements: sized to their boxes (times the device pixel ratio), drawn
//! with rvalue-plot's canvas backend ([`rvalue_plot::canvas`]), through a detached canvas where
//! that spares a style recalculation, and the overlays stacked over figures cleared and drawn.

use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlCanvasElement};

use super::dom::by_id;
use super::theme;
use rvalue_core::{Error, Result};
use rvalue_model::figure::legend::NARROW_CSS_PX;
use rvalue_model::figure::{layout, Figure, Marker};
use rvalue_plot::canvas::{context, Backend};
use rvalue_plot::{Draw, Either, Frame, Layer, Look};

thread_local! {
    /// The detached canvases of [`draw_detached`], by the id of the page canvas they stand in for.
    static SCRATCH: std::cell::RefCell<std::collections::HashMap<String, HtmlCanvasElement>> =
        std::cell::RefCell::default();
}

/// Whether the page is narrow enough for legends under their plots
/// ([`NARROW_CSS_PX`]).
pub fn narrow() -> bool {
    let width = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|w| w.as_f64());
    width.is_some_and(|w| w < NARROW_CSS_PX)
}

/// The device pixel ratio the canvases are drawn at ([`layout::pixel_ratio`]).
pub fn pixel_ratio() -> f64 {
    let screen = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    layout::pixel_ratio(screen, super::print::printing())
}

/// Draws `fig` (or one layer of it) on the canvas `id`, first sized to its box (times the
/// device pixel ratio). The figure's frame, or `None` when the canvas is hidden (it is drawn
/// when shown). Reading the box needs a fresh layout: draw figures before writing to the DOM
/// in a frame.
pub fn draw_figure(
    doc: &Document,
    id: &str,
    fig: &Figure,
    layer: Layer,
    font_css: f64,
) -> Result<Option<Frame>> {
    let canvas: HtmlCanvasElement = by_id(doc, id)?;
    let dpr = pixel_ratio();
    let Some((w, h)) = layout::backing_size((canvas.client_width(), canvas.client_height()), dpr) else {
        return Ok(None);
    };
    resize(&canvas, (w, h));
    let frame = draw_on(canvas.clone(), fig, layer, font_css * dpr)?;
    record(&canvas, &frame);
    Ok(Some(frame))
}

/// Draws `fig` (or one layer of it) on the canvas `id` at the pixel size it already has, without
/// reading its box: for a redraw whose box cannot have changed since [`draw_figure`] sized it
/// (the page's layout is then not forced in the middle of an input event).
pub fn redraw_figure(doc: &Document, id: &str, fig: &Figure, layer: Layer, font_css: f64) -> Result<Frame> {
    let canvas: HtmlCanvasElement = by_id(doc, id)?;
    let frame = draw_detached(doc, &canvas, fig, layer, font_css * pixel_ratio())?;
    record(&canvas, &frame);
    Ok(frame)
}

/// Writes where the figure on `canvas` put its plotting area, legend and dots (canvas pixels,
/// as `left top right bottom` and `x y r` triples) into its `data-plot`, `data-legend` and
/// `data-marks`: what a script (the browser tests) reads to tell whether a legend covers data.
fn record(canvas: &HtmlCanvasElement, frame: &Frame) {
    for (name, value) in frame.attributes() {
        if canvas.get_attribute(name).as_deref() != Some(value.as_str()) {
            let _ = canvas.set_attribute(name, &value);
        }
    }
}

/// Draws `fig` on a canvas outside the document, of `canvas`' pixel size, then copies it onto
/// `canvas` in one call. Why: setting a connected canvas' font resolves its style first, a
/// style recalculation of whatever the page changed since the last frame, on every font change
/// of a figure's text; a canvas outside the document has no style to resolve. The fonts are
/// absolute (pixels and a family), so they come out the same.
fn draw_detached(
    doc: &Document,
    canvas: &HtmlCanvasElement,
    fig: &Figure,
    layer: Layer,
    font_px: f64,
) -> Result<Frame> {
    let (w, h) = (canvas.width(), canvas.height());
    let scratch = scratch(doc, canvas.id(), w, h)?;
    context(&scratch)?.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
    let frame = draw_on(scratch.clone(), fig, layer, font_px)?;
    let ctx = context(canvas)?;
    ctx.clear_rect(0.0, 0.0, f64::from(w), f64::from(h));
    ctx.draw_image_with_html_canvas_element(&scratch, 0.0, 0.0)
        .map_err(|_| Error::invalid(format!("#{} could not be copied", canvas.id())))?;
    Ok(frame)
}

/// The detached canvas that figures for the canvas `id` are drawn on, at `w` × `h` pixels: one
/// per page canvas, so that each keeps its size (resizing resets a context) between moves.
fn scratch(doc: &Document, id: String, w: u32, h: u32) -> Result<HtmlCanvasElement> {
    let found = SCRATCH.with(|s| s.borrow().get(&id).cloned());
    let canvas = match found {
        Some(c) => c,
        None => {
            let c: HtmlCanvasElement = doc
                .create_element("canvas")
                .ok()
                .and_then(|e| e.dyn_into().ok())
                .ok_or_else(|| Error::invalid("a canvas could not be created"))?;
            // Drawn on the CPU, as every canvas of the page ([`context`]).
            context(&c)?;
            SCRATCH.with(|s| s.borrow_mut().insert(id, c.clone()));
            c
        }
    };
    resize(&canvas, (w, h));
    Ok(canvas)
}

/// Gives `canvas` a bitmap of `w × h` pixels, unless it has one: setting a size clears the
/// canvas and resets its context.
fn resize(canvas: &HtmlCanvasElement, (w, h): (u32, u32)) {
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
}

fn draw_on(canvas: HtmlCanvasElement, fig: &Figure, layer: Layer, font_px: f64) -> Result<Frame> {
    let backend: Backend = Either::Left(rvalue_plot::canvas::canvas(canvas)?);
    fig.draw_layer(&backend.into_drawing_area(), &look(font_px.round() as u32), layer)
}

/// How the page draws its figures now: tick labels of `font` backend pixels, the page's
/// palette, the legend under the plot on a narrow page.
pub fn look(font: u32) -> Look {
    Look { font, palette: theme::palette(), legend_below: narrow() }
}

/// Sizes the overlay canvas `id` to `frame` (the figure's back layer, drawn on the canvas under
/// it), clears it and draws the figure's front layer on it. Drawn in place, not through
/// [`draw_detached`]: the front is drawn before a move writes any text (see `App::render`), so
/// the style its fonts resolve is the slider's alone, cheaper than copying a whole canvas.
pub fn draw_front(doc: &Document, id: &str, fig: &Figure, frame: &Frame) -> Result<()> {
    draw_on(overlay(doc, id, frame)?, fig, Layer::Front, f64::from(frame.font)).map(|_| ())
}

/// The overlay canvas `id` at `frame`'s pixel size, cleared.
fn overlay(doc: &Document, id: &str, frame: &Frame) -> Result<HtmlCanvasElement> {
    let canvas: HtmlCanvasElement = by_id(doc, id)?;
    let (w, h) = frame.size;
    resize(&canvas, (w, h));
    context(&canvas)?.clear_rect(0.0, 0.0, w as f64, h as f64);
    Ok(canvas)
}

/// Draws `marker` on the overlay canvas `id` over a figure drawn with `frame`: sizes the overlay
/// to the figure's pixels, clears it and draws the marker ([`rvalue_plot::canvas::draw_marker`]).
/// `None` clears it.
pub fn draw_marker(doc: &Document, id: &str, frame: &Frame, marker: Option<&Marker>) -> Result<()> {
    let ctx = context(&overlay(doc, id, frame)?)?;
    let Some(m) = marker else { return Ok(()) };
    rvalue_plot::canvas::draw_marker(&ctx, frame, m, &theme::palette())
}
