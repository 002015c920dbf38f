//! The page's `<canvas>` elements: a plotters backend that measures text with the canvas itself,
//! sizing a canvas to its box, and the current-value markers drawn on a transparent canvas
//! stacked over a figure.
//!
//! Why the backend: plotters' web font layer measures text by appending a span to the page and
//! reading its size, a forced layout of the whole page per label. [`Canvas`] delegates every
//! drawing call to plotters-canvas and answers [`DrawingBackend::estimate_text_size`] with the
//! canvas' `measureText`, which touches no layout.

use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

use super::backend::Backend;
use super::dom::by_id;
use super::figure::{Draw, Figure, Frame, Layer, Look, Marker};
use super::theme::Palette;
use rvalue_core::{Error, Result};
use rvalue_model::figure::layout;

/// plotters-canvas with text measured by the canvas, and text drawn with the canvas' font set
/// only when it changes: setting `font` parses it and resolves the canvas' style, i.e. forces a
/// style recalculation when the page was written to. The context keeps its font between
/// drawings (until the canvas is resized), so an overlay redrawn on every slider move sets it
/// once.
pub struct Canvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    /// The font last set on the context through this backend.
    font: std::cell::RefCell<String>,
}

type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

impl Canvas {
    pub fn new(canvas: HtmlCanvasElement) -> Result<Self> {
        let ctx = context(&canvas)?;
        let inner = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| Error::invalid("a canvas has no 2D context"))?;
        let font = std::cell::RefCell::new(ctx.font());
        Ok(Canvas { inner, ctx, font })
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

/// `style`'s font as the context serialises it (no `normal`), so that a context's own font
/// compares equal.
fn font_of<S: BackendTextStyle>(style: &S) -> String {
    let (kind, family) = (style.style(), style.family());
    let (kind, size, family) = (kind.as_str(), style.size(), family.as_str());
    if kind == "normal" {
        format!("{size}px {family}")
    } else {
        format!("{kind} {size}px {family}")
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

impl DrawingBackend for Canvas {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(vert, style)
    }

    /// plotters-canvas' `draw_text`, with the font set only when it changes.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
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
        self.set_font(&font_of(style));
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

    /// The canvas' own measure, in the font plotters-canvas draws with. The height is the
    /// font's line box (ascent + descent), as the span plotters would measure.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> std::result::Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        Ok(measure_text(&self.ctx, |f| self.set_font(f), text, style))
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
    let key = (font_of(style), text.to_string());
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
/// ([`legend::NARROW_CSS_PX`](super::legend::NARROW_CSS_PX)).
pub fn narrow() -> bool {
    let width = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|w| w.as_f64());
    width.is_some_and(|w| w < super::legend::NARROW_CSS_PX)
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
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
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
    let quad = |(a, b, c, d): (i32, i32, i32, i32)| format!("{a} {b} {c} {d}");
    let marks: Vec<String> = frame.marks.iter().map(|(x, y, r)| format!("{x} {y} {r}")).collect();
    let legend = frame.legend.map(quad).unwrap_or_default();
    for (name, value) in
        [("data-plot", quad(frame.plot)), ("data-legend", legend), ("data-marks", marks.join(","))]
    {
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
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    Ok(canvas)
}

fn draw_on(canvas: HtmlCanvasElement, fig: &Figure, layer: Layer, font_px: f64) -> Result<Frame> {
    let look = Look::page(font_px.round() as u32, narrow());
    let backend = Backend::Canvas(Canvas::new(canvas)?);
    fig.draw_layer(&backend.into_drawing_area(), &look, layer)
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
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    context(&canvas)?.clear_rect(0.0, 0.0, w as f64, h as f64);
    Ok(canvas)
}

/// Draws `marker` on the overlay canvas `id` over a figure drawn with `frame`: sizes the overlay
/// to the figure's pixels, clears it and draws the marker with plain canvas calls (no layout
/// read, no text). `None` clears it.
pub fn draw_marker(doc: &Document, id: &str, frame: &Frame, marker: Option<&Marker>) -> Result<()> {
    let ctx = context(&overlay(doc, id, frame)?)?;
    let Some(m) = marker else { return Ok(()) };
    let palette = Palette::current();
    let (y0, y1) = frame.y_range();
    let ((x, top), (_, bottom)) = (frame.pixel(m.x, y1), frame.pixel(m.x, y0));
    // Half-pixel offset for an odd width, so a thin line is crisp (as plotters-canvas does).
    let width = Marker::line_width(frame.font);
    let x = x as f64 + if width % 2 == 1 { 0.5 } else { 0.0 };
    let dash = js_sys::Array::of2(&(Marker::DASH.0 as f64).into(), &(Marker::DASH.1 as f64).into());
    ctx.set_line_dash(&dash).map_err(|_| Error::invalid("setLineDash failed"))?;
    ctx.set_line_width(width as f64);
    ctx.set_stroke_style_str(&css(palette.colour(m.colour)));
    ctx.begin_path();
    ctx.move_to(x, top as f64);
    ctx.line_to(x, bottom as f64);
    ctx.stroke();
    ctx.set_line_dash(&js_sys::Array::new()).map_err(|_| Error::invalid("setLineDash failed"))?;
    let r = Marker::dot_radius(frame.font) as f64;
    for &(y, colour) in m.dots.iter().filter(|(y, _)| y.is_finite()) {
        let (px, py) = frame.pixel(m.x, y);
        ctx.set_fill_style_str(&css(palette.colour(colour)));
        ctx.begin_path();
        ctx.arc(px as f64, py as f64, r, 0.0, std::f64::consts::TAU)
            .map_err(|_| Error::invalid("arc failed"))?;
        ctx.fill();
    }
    Ok(())
}

fn css(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}
