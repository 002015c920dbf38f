//! The page's backends on `<canvas>` (the `canvas` feature, wasm32): plotters-canvas with text
//! measured and drawn by the canvas itself ([`Canvas`]), the SVG export's text measured by a
//! canvas ([`Svg`]), both behind one type ([`Backend`]), and the current-value markers drawn
//! with plain canvas calls ([`draw_marker`]).
//!
//! Why the text: plotters' web font layer measures text by appending a span to the page and
//! reading its size, a forced layout of the whole page per label. [`Canvas`] delegates every
//! drawing call to plotters-canvas and answers text with the canvas' `measureText`
//! ([`CanvasText`]), which touches no layout. The SVG export measures its text alike.

mod marker;

pub use marker::draw_marker;

use plotters::prelude::SVGBackend;
use plotters_backend::{BackendCoord, BackendTextStyle, DrawingBackend, DrawingErrorKind};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

use crate::css::{css_font, css_rgba, rough_text_box, text_align, text_baseline, text_box, text_degrees};
use crate::{Either, Measured, Text};
use rvalue_core::{Error, Result};

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
    // The first call fixes the context's options: drawn on the CPU (see the page's `scratch`,
    // whose detached canvases are copied onto the page's). The options object is made once:
    // this runs several times per slider move.
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
        let degrees = text_degrees(style.transform());
        let ctx = &self.ctx;
        // Set before `save`: `restore` would otherwise put back another font than the one this
        // backend remembers as set.
        ctx.set_text_baseline(text_baseline(style.anchor().v_pos));
        ctx.set_text_align(text_align(style.anchor().h_pos));
        ctx.set_fill_style_str(&css_rgba(colour));
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
/// `set_font` when a measure is needed. The height is the font's line box ([`text_box`]), as
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
        Ok(m) => text_box(m.width(), m.font_bounding_box_ascent(), m.font_bounding_box_descent()),
        Err(_) => rough_text_box(text, style.size()),
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
    /// Text sizes by font and text: `measureText` resolves the canvas' style, which forces a
    /// style recalculation when the page was written to; the legends of overlays are measured
    /// on every slider move, always with the same few labels.
    static MEASURED: std::cell::RefCell<std::collections::HashMap<(String, String), (u32, u32)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}
