//! The page's `<canvas>` elements: a plotters backend whose text is measured and drawn by the
//! canvas itself, sizing a canvas to its box, and the current-value markers drawn on a
//! transparent canvas stacked over a figure.
//!
//! Why the backend: plotters' web font layer measures text by appending a span to the page and
//! reading its size, a forced layout of the whole page per label. [`Canvas`] delegates every
//! drawing call to plotters-canvas and answers text with the canvas' `measureText`
//! ([`CanvasText`]), which touches no layout. The SVG export measures its text alike ([`Svg`]).

use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendCoord, BackendTextStyle, DrawingErrorKind, FontTransform};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

use super::dom::by_id;
use super::theme;
use rvalue_core::{Error, Result};
use rvalue_model::figure::legend::NARROW_CSS_PX;
use rvalue_model::figure::{layout, Figure, Marker};
use rvalue_plot::{css_font, Draw, Either, Frame, Layer, Look, Measured, Text};

/// plotters-canvas with text measured and drawn by the canvas ([`CanvasText`]).
pub type Canvas = Measured<CanvasBackend, CanvasText>;

/// plotters' SVG backend with text measured by a canvas ([`Measure`]).
pub type Svg<'a> = Measured<SVGBackend<'a>, Measure>;

/// Every figure's backend: one type, so the figure code is compiled once ([`Either`]).
pub type Backend<'a> = Either<Canvas, Svg<'a>>;

/// The canvas `canvas` as a figure's backend.
pub fn canvas(canvas: HtmlCanvasElement) -> Result<Canvas> {
    let ctx = context(&canvas)?;
    let inner = CanvasBackend::with_canvas_object(canvas)
        .ok_or_else(|| Error::invalid("a canvas has no 2D context"))?;
    Ok(Measured { inner, text: CanvasText::new(ctx) })
}

/// An SVG document of `size` pixels written to `out`, its text measured by `ctx`.
pub fn svg(out: &mut String, size: (u32, u32), ctx: CanvasRenderingContext2d) -> Backend<'_> {
    Either::Right(Measured { inner: SVGBackend::with_string(out, size), text: Measure(ctx) })
}

/// A canvas' text, measured by its 2D context, and drawn with the context's font set only when
/// it changes: setting `font` parses it and resolves the canvas' style, i.e. forces a style
/// recalculation when the page was written to. The context keeps its font between drawings
/// (until the canvas is resized), so an overlay redrawn on every slider move sets it once.
pub struct CanvasText {
    ctx: CanvasRenderingContext2d,
    /// The font last set on the context through this backend.
    font: std::cell::RefCell<String>,
}

/// Text measured by a canvas context and drawn by the backend it measures for (the SVG
/// export's).
pub struct Measure(CanvasRenderingContext2d);

impl CanvasText {
    fn new(ctx: CanvasRenderingContext2d) -> Self {
        let font = std::cell::RefCell::new(ctx.font());
        CanvasText { ctx, font }
    }

    /// Sets the context's font unless it is set.
    fn set_font(&self, font: &str) {
        let mut last = self.font.borrow_mut();
        if *last != font {
            self.ctx.set_font(font);
            *last = font.to_string();
        }
    }
}

/// The canvas' 2D context (the same object plotters-canvas draws through).
pub fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d> {
    // The first call fixes the context's options: drawn on the CPU (see `scratch`). The
    // options object is made once: this runs several times per slider move.
    let options = CPU_CONTEXT.with(|o| o.clone());
    canvas
        .get_context_with_context_options("2d", &options)
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
        .ok_or_else(|| Error::invalid(format!("#{} has no 2D context", canvas.id())))
}

impl Text for CanvasText {
    /// The canvas' own measure, in the font plotters-canvas draws with ([`measure_text`]).
    fn size<S: BackendTextStyle>(&self, text: &str, style: &S) -> (u32, u32) {
        measure_text(&self.ctx, |f| self.set_font(f), text, style)
    }

    /// plotters-canvas' `draw_text`, with the font set only when it changes.
    fn draw<B: DrawingBackend, S: BackendTextStyle>(
        &self,
        _: &mut B,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> std::result::Result<(), DrawingErrorKind<B::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let degrees = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 90.0,
            FontTransform::Rotate180 => 180.0,
            FontTransform::Rotate270 => 270.0,
        };
        let ctx = &self.ctx;
        // Set before `save`: `restore` would otherwise put back another font than the one this
        // backend remembers as set.
        ctx.set_text_baseline(match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        });
        ctx.set_text_align(match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        });
        let (r, g, b) = colour.rgb;
        ctx.set_fill_style_str(&format!("rgba({r},{g},{b},{})", colour.alpha));
        self.set_font(&css_font(style));
        let (mut x, mut y) = (f64::from(pos.0), f64::from(pos.1));
        if degrees != 0.0 {
            ctx.save();
            // Both only fail on non-finite arguments.
            let _ = ctx.translate(x, y);
            let _ = ctx.rotate(f64::to_radians(degrees));
            (x, y) = (0.0, 0.0);
        }
        // fillText fails only on non-finite coordinates; the text is left out then.
        let _ = ctx.fill_text(text, x, y);
        if degrees != 0.0 {
            ctx.restore();
        }
        Ok(())
    }
}

impl Text for Measure {
    fn size<S: BackendTextStyle>(&self, text: &str, style: &S) -> (u32, u32) {
        measure_text(&self.0, |f| self.0.set_font(f), text, style)
    }
}

/// `text`'s size in `style` by `ctx.measureText` (cached by font and text), the font set through
/// `set_font` when a measure is needed. The height is the font's line box (ascent + descent), as
/// the span plotters' web font layer would measure, but touching no layout and adding no element
/// with an inline style (which the page's CSP refuses).
pub fn measure_text<S: BackendTextStyle>(
    ctx: &CanvasRenderingContext2d,
    set_font: impl FnOnce(&str),
    text: &str,
    style: &S,
) -> (u32, u32) {
    let key = (css_font(style), text.to_string());
    if let Some(size) = MEASURED.with(|m| m.borrow().get(&key).copied()) {
        return size;
    }
    set_font(&key.0);
    let size = match ctx.measure_text(text) {
        Ok(m) => (
            m.width().ceil().max(0.0) as u32,
            (m.font_bounding_box_ascent() + m.font_bounding_box_descent()).ceil().max(0.0) as u32,
        ),
        // Never seen; a rough size keeps the figure drawable.
        Err(_) => {
            let px = style.size();
            ((0.6 * px * text.chars().count() as f64) as u32, (1.2 * px) as u32)
        }
    };
    MEASURED.with(|m| {
        let mut m = m.borrow_mut();
        // A bound on what a long session keeps (labels are few; numbers could be many).
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(key, size);
    });
    size
}

thread_local! {
    /// `{willReadFrequently: true}`, the options of every canvas context ([`context`]).
    static CPU_CONTEXT: JsValue = {
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"willReadFrequently".into(), &true.into());
        options.into()
    };
    /// The detached canvases of [`draw_detached`], by the id of the page canvas they stand in for.
    static SCRATCH: std::cell::RefCell<std::collections::HashMap<String, HtmlCanvasElement>> =
        std::cell::RefCell::default();
    /// Text sizes by font and text: `measureText` resolves the canvas' style, which forces a
    /// style recalculation when the page was written to; the legends of overlays are measured
    /// on every slider move, always with the same few labels.
    static MEASURED: std::cell::RefCell<std::collections::HashMap<(String, String), (u32, u32)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
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
    let backend: Backend = Either::Left(self::canvas(canvas)?);
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
/// to the figure's pixels, clears it and draws the marker with plain canvas calls (no layout
/// read, no text). `None` clears it.
pub fn draw_marker(doc: &Document, id: &str, frame: &Frame, marker: Option<&Marker>) -> Result<()> {
    let ctx = context(&overlay(doc, id, frame)?)?;
    let Some(m) = marker else { return Ok(()) };
    let palette = theme::palette();
    let line = frame.marker_line(m.x);
    let dash = js_sys::Array::of2(&(Marker::DASH.0 as f64).into(), &(Marker::DASH.1 as f64).into());
    ctx.set_line_dash(&dash).map_err(|_| Error::invalid("setLineDash failed"))?;
    ctx.set_line_width(line.width as f64);
    ctx.set_stroke_style_str(&css(palette.colour(m.colour)));
    ctx.begin_path();
    ctx.move_to(line.x, line.top as f64);
    ctx.line_to(line.x, line.bottom as f64);
    ctx.stroke();
    ctx.set_line_dash(&js_sys::Array::new()).map_err(|_| Error::invalid("setLineDash failed"))?;
    for &(y, colour) in m.dots.iter().filter(|(y, _)| y.is_finite()) {
        let (px, py) = frame.pixel(m.x, y);
        ctx.set_fill_style_str(&css(palette.colour(colour)));
        ctx.begin_path();
        ctx.arc(px as f64, py as f64, f64::from(line.radius), 0.0, std::f64::consts::TAU)
            .map_err(|_| Error::invalid("arc failed"))?;
        ctx.fill();
    }
    Ok(())
}

fn css(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}
