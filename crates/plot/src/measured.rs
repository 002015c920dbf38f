//! A backend whose text is measured, and maybe drawn, by something other than plotters' font
//! layer ([`Measured`]). That layer measures text on the web by appending a span to the page
//! and reading its size (a forced layout of the whole page per label); natively, without a font
//! feature, it guesses from the number of bytes. The page measures with its canvas'
//! `measureText`; the tests with a font of fixed advance.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// How a [`Measured`] backend's text is measured and, if it has its own way, drawn.
pub trait Text {
    /// `text`'s size in pixels in `style`: width, and the height of the font's line box.
    fn size<S: BackendTextStyle>(&self, text: &str, style: &S) -> (u32, u32);

    /// Draws `text` at `pos`: by default the backend `inner` draws it.
    fn draw<B: DrawingBackend, S: BackendTextStyle>(
        &self,
        inner: &mut B,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        inner.draw_text(text, style, pos)
    }
}

/// The backend `inner` with text measured, and maybe drawn, by `text`.
pub struct Measured<B, T> {
    pub inner: B,
    pub text: T,
}

type Drawn<B, T = ()> = Result<T, DrawingErrorKind<<B as DrawingBackend>::ErrorType>>;

impl<B: DrawingBackend, T: Text> DrawingBackend for Measured<B, T> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Drawn<B> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Drawn<B> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<B> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Drawn<B> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        z: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<B> {
        self.inner.draw_rect(a, z, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<B> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> Drawn<B> {
        self.inner.draw_circle(c, r, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<B> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Drawn<B> {
        self.text.draw(&mut self.inner, text, style, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Drawn<B, (u32, u32)> {
        Ok(self.text.size(text, style))
    }
}
