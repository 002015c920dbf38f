//! Two plotters backends behind one type ([`Either`]). plotters' chart code is generic over
//! its backend, so a program that draws figures on two kinds of backend through one type
//! compiles the figure code once rather than once per backend (the page's canvases and its SVG
//! exports: about 30 kB less wasm, which the page's download budget needs). Every call goes
//! unchanged to the backend inside; only its error is carried as text.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// One of two backends.
pub enum Either<A, B> {
    Left(A),
    Right(B),
}

/// A drawing error of either backend, as its text.
#[derive(Debug)]
pub struct EitherError(String);

impl std::fmt::Display for EitherError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EitherError {}

type Drawn<T = ()> = std::result::Result<T, DrawingErrorKind<EitherError>>;

fn lift<T, E: std::error::Error + Send + Sync>(r: std::result::Result<T, DrawingErrorKind<E>>) -> Drawn<T> {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(EitherError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

/// `$call` on the backend inside, its error lifted.
macro_rules! inside {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            Either::Left($b) => lift($call),
            Either::Right($b) => lift($call),
        }
    };
}

impl<A: DrawingBackend, B: DrawingBackend> DrawingBackend for Either<A, B> {
    type ErrorType = EitherError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Either::Left(b) => b.get_size(),
            Either::Right(b) => b.get_size(),
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
