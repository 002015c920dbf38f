//! One plotters backend for every figure: the page's canvases ([`Canvas`]) and the SVG exports
//! ([`MeasuredSvg`]). plotters' chart code is generic over its backend, so drawing through one
//! type compiles `figure`'s routines once rather than once per backend: about 30 kB less
//! wasm, which the page's download budget needs. Every call goes unchanged to the backend
//! inside; only its error is carried as text.

use plotters::prelude::SVGBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use web_sys::CanvasRenderingContext2d;

use super::canvas::Canvas;

/// A canvas or an SVG document to draw a figure on.
pub enum Backend<'a> {
    Canvas(Canvas),
    Svg(MeasuredSvg<'a>),
}

/// A drawing error of either backend, as its text.
#[derive(Debug)]
pub struct BackendError(String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Drawn<T = ()> = std::result::Result<T, DrawingErrorKind<BackendError>>;

fn lift<T, E: std::error::Error + Send + Sync>(r: std::result::Result<T, DrawingErrorKind<E>>) -> Drawn<T> {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(BackendError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

/// `$call` on the backend inside, its error lifted.
macro_rules! inside {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            Backend::Canvas($b) => lift($call),
            Backend::Svg($b) => lift($call),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Backend::Canvas(b) => b.get_size(),
            Backend::Svg(b) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Drawn {
        inside!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Drawn {
        inside!(self, b => b.present())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        inside!(self, b => b.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Drawn {
        inside!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        z: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        inside!(self, b => b.draw_rect(a, z, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        inside!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> Drawn {
        inside!(self, b => b.draw_circle(c, r, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn {
        inside!(self, b => b.fill_polygon(vert, style))
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Drawn {
        inside!(self, b => b.draw_text(text, style, pos))
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Drawn<(u32, u32)> {
        inside!(self, b => b.estimate_text_size(text, style))
    }
}

/// plotters' SVG backend with text measured by a canvas context (see the module's note).
pub struct MeasuredSvg<'a> {
    pub svg: SVGBackend<'a>,
    pub ctx: CanvasRenderingContext2d,
}

type SvgError = <SVGBackend<'static> as DrawingBackend>::ErrorType;
type DrawResult = std::result::Result<(), DrawingErrorKind<SvgError>>;

impl DrawingBackend for MeasuredSvg<'_> {
    type ErrorType = SvgError;

    fn get_size(&self) -> (u32, u32) {
        self.svg.get_size()
    }
    fn ensure_prepared(&mut self) -> DrawResult {
        self.svg.ensure_prepared()
    }
    fn present(&mut self) -> DrawResult {
        self.svg.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> DrawResult {
        self.svg.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> DrawResult {
        self.svg.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> DrawResult {
        self.svg.draw_rect(a, b, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> DrawResult {
        self.svg.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> DrawResult {
        self.svg.draw_circle(c, r, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> DrawResult {
        self.svg.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> DrawResult {
        self.svg.draw_text(text, style, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> std::result::Result<(u32, u32), DrawingErrorKind<SvgError>> {
        Ok(super::canvas::measure_text(&self.ctx, |f| self.ctx.set_font(f), text, style))
    }
}
