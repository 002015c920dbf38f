//! The page's `<canvas>` elements: a plotters backend that measures text with the canvas itself,
//! sizing a canvas to its box, and the current-value markers drawn on a transparent canvas
//! stacked over a figure.
//!
//! Why the backend: plotters' web font layer measures text by appending a span to the page and
//! reading its size, a forced layout of the whole page per label. [`Canvas`] delegates every
//! drawing call to plotters-canvas and answers [`DrawingBackend::estimate_text_size`] with the
//! canvas' `measureText`, which touches no layout.

use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, Document, HtmlCanvasElement};

use super::dom::by_id;
use super::figure::{Figure, Frame, Marker};
use crate::{Error, Result};

/// plotters-canvas with text measured by the canvas.
pub struct Canvas {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
}

type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

impl Canvas {
    pub fn new(canvas: HtmlCanvasElement) -> Result<Self> {
        let ctx = context(&canvas)?;
        let inner = CanvasBackend::with_canvas_object(canvas)
            .ok_or_else(|| Error::invalid("a canvas has no 2D context"))?;
        Ok(Canvas { inner, ctx })
    }
}

/// The canvas' 2D context (the same object plotters-canvas draws through).
fn context(canvas: &HtmlCanvasElement) -> Result<CanvasRenderingContext2d> {
    canvas
        .get_context("2d")
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

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> std::result::Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_text(text, style, pos)
    }

    /// The canvas' own measure, in the font plotters-canvas draws with. The height is the
    /// font's line box (ascent + descent), as the span plotters would measure.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> std::result::Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        let size = style.size();
        self.ctx.set_font(&format!("{} {}px {}", style.style().as_str(), size, style.family().as_str()));
        match self.ctx.measure_text(text) {
            Ok(m) => Ok((
                m.width().ceil().max(0.0) as u32,
                (m.font_bounding_box_ascent() + m.font_bounding_box_descent()).ceil().max(0.0) as u32,
            )),
            // Never seen; a rough size keeps the figure drawable.
            Err(_) => Ok(((0.6 * size * text.chars().count() as f64) as u32, (1.2 * size) as u32)),
        }
    }
}

/// The device pixel ratio the canvases are drawn at (1–3).
pub fn pixel_ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 3.0)
}

/// Draws `fig` on the canvas `id`, first sized to its box (times the device pixel ratio), or
/// with `keep_size` at its current size when it has one (no layout read). The figure's frame,
/// or `None` when the canvas is hidden (it is drawn when shown). Reading the box needs a fresh
/// layout: draw figures before writing to the DOM in a frame.
pub fn draw_figure(
    doc: &Document,
    id: &str,
    fig: &Figure,
    font_css: f64,
    keep_size: bool,
) -> Result<Option<Frame>> {
    let canvas: HtmlCanvasElement = by_id(doc, id)?;
    let dpr = pixel_ratio();
    if !(keep_size && canvas.width() > 0 && canvas.height() > 0) {
        let (cw, ch) = (canvas.client_width(), canvas.client_height());
        if cw <= 0 || ch <= 0 {
            return Ok(None);
        }
        let (w, h) = ((cw as f64 * dpr).round() as u32, (ch as f64 * dpr).round() as u32);
        if canvas.width() != w {
            canvas.set_width(w);
        }
        if canvas.height() != h {
            canvas.set_height(h);
        }
    }
    let backend = Canvas::new(canvas)?;
    fig.draw(&backend.into_drawing_area(), (font_css * dpr).round() as u32).map(Some)
}

/// Draws `marker` on the overlay canvas `id` over a figure drawn with `frame`: sizes the overlay
/// to the figure's pixels, clears it and draws the marker with plain canvas calls (no layout
/// read, no text). `None` clears it.
pub fn draw_marker(doc: &Document, id: &str, frame: &Frame, marker: Option<&Marker>) -> Result<()> {
    let canvas: HtmlCanvasElement = by_id(doc, id)?;
    let (w, h) = frame.size;
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let ctx = context(&canvas)?;
    ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
    let Some(m) = marker else { return Ok(()) };
    let (y0, y1) = frame.y_range();
    let ((x, top), (_, bottom)) = (frame.pixel(m.x, y1), frame.pixel(m.x, y0));
    // Half-pixel offset for an odd width, so a thin line is crisp (as plotters-canvas does).
    let width = Marker::line_width(frame.font);
    let x = x as f64 + if width % 2 == 1 { 0.5 } else { 0.0 };
    let dash = js_sys::Array::of2(&(Marker::DASH.0 as f64).into(), &(Marker::DASH.1 as f64).into());
    ctx.set_line_dash(&dash).map_err(|_| Error::invalid("setLineDash failed"))?;
    ctx.set_line_width(width as f64);
    ctx.set_stroke_style_str(&css(m.colour));
    ctx.begin_path();
    ctx.move_to(x, top as f64);
    ctx.line_to(x, bottom as f64);
    ctx.stroke();
    ctx.set_line_dash(&js_sys::Array::new()).map_err(|_| Error::invalid("setLineDash failed"))?;
    let r = Marker::dot_radius(frame.font) as f64;
    for &(y, colour) in m.dots.iter().filter(|(y, _)| y.is_finite()) {
        let (px, py) = frame.pixel(m.x, y);
        ctx.set_fill_style_str(&css(colour));
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
