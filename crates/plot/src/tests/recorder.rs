//! A plotters backend that keeps every call it is given (a real backend: plotters' chart code
//! draws on it as on any other), and a font of fixed advance to measure text with.

use std::cell::RefCell;
use std::rc::Rc;

use plotters::prelude::IntoDrawingArea;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

use crate::{Draw, Frame, Layer, Look, Measured, Text};
use rvalue_model::figure::Figure;

/// A colour as drawn: sRGB and opacity in thousandths.
pub type Rgba = ((u8, u8, u8), u32);

fn rgba(c: BackendColor) -> Rgba {
    (c.rgb, (c.alpha * 1000.0).round() as u32)
}

/// One drawing call.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Pixel(BackendCoord, Rgba),
    Line(BackendCoord, BackendCoord, Rgba, u32),
    Rect(BackendCoord, BackendCoord, Rgba, bool),
    Path(Vec<BackendCoord>, Rgba, u32),
    Circle(BackendCoord, u32, Rgba, bool),
    Polygon(Vec<BackendCoord>, Rgba),
    /// Text, where, its font size in pixels.
    Text(String, BackendCoord, u32, Rgba),
}

/// A backend of a given size that records what is drawn on it, in calls the test holds too.
pub struct Recorder {
    size: (u32, u32),
    calls: Rc<RefCell<Vec<Call>>>,
}

/// Text `ADVANCE` tenths of its font size wide per character, and 12 tenths high.
pub struct Fixed;

pub const ADVANCE: u32 = 6;

impl Text for Fixed {
    fn size<S: BackendTextStyle>(&self, text: &str, style: &S) -> (u32, u32) {
        let px = style.size().round() as u32;
        (px * ADVANCE * text.chars().count() as u32 / 10, px * 12 / 10)
    }
}

/// A recorder of `w × h` pixels with fixed-advance text, and what it records.
pub fn recorder(w: u32, h: u32) -> (Measured<Recorder, Fixed>, Rc<RefCell<Vec<Call>>>) {
    let calls = Rc::new(RefCell::new(Vec::new()));
    (Measured { inner: Recorder { size: (w, h), calls: calls.clone() }, text: Fixed }, calls)
}

/// `fig`'s `layer` drawn on a `w × h` recorder in `look`: its frame and the calls.
pub fn drawn(fig: &Figure, (w, h): (u32, u32), look: &Look, layer: Layer) -> (Frame, Calls) {
    let (backend, calls) = recorder(w, h);
    let frame = fig.draw_layer(&backend.into_drawing_area(), look, layer).unwrap();
    let calls = calls.borrow().clone();
    (frame, Calls(calls))
}

/// `fig` drawn whole on a `w × h` recorder with 13-pixel text, the light palette.
pub fn whole(fig: &Figure, size: (u32, u32)) -> (Frame, Calls) {
    drawn(fig, size, &Look::light(13), Layer::Whole)
}

/// What a recorder recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Calls(pub Vec<Call>);

type Drawn = Result<(), DrawingErrorKind<std::io::Error>>;

impl DrawingBackend for Recorder {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }
    fn present(&mut self) -> Drawn {
        Ok(())
    }
    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Drawn {
        self.calls.borrow_mut().push(Call::Pixel(p, rgba(c)));
        Ok(())
    }
    fn draw_line<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S) -> Drawn {
        self.calls.borrow_mut().push(Call::Line(a, b, rgba(s.color()), s.stroke_width()));
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, s: &S, fill: bool) -> Drawn {
        self.calls.borrow_mut().push(Call::Rect(a, b, rgba(s.color()), fill));
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Drawn {
        self.calls.borrow_mut().push(Call::Path(p.into_iter().collect(), rgba(s.color()), s.stroke_width()));
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, s: &S, fill: bool) -> Drawn {
        self.calls.borrow_mut().push(Call::Circle(c, r, rgba(s.color()), fill));
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, p: I, s: &S) -> Drawn {
        self.calls.borrow_mut().push(Call::Polygon(p.into_iter().collect(), rgba(s.color())));
        Ok(())
    }
    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, s: &S, pos: BackendCoord) -> Drawn {
        self.calls.borrow_mut().push(Call::Text(
            text.to_string(),
            pos,
            s.size().round() as u32,
            rgba(s.color()),
        ));
        Ok(())
    }
}

impl Calls {
    /// The texts drawn, in order.
    pub fn texts(&self) -> Vec<&str> {
        self.0
            .iter()
            .filter_map(|c| match c {
                Call::Text(t, ..) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The paths drawn in `colour` (sRGB) `width` pixels wide, each as its points.
    pub fn paths(&self, colour: (u8, u8, u8), width: u32) -> Vec<&[BackendCoord]> {
        self.0
            .iter()
            .filter_map(|c| match c {
                Call::Path(p, (rgb, _), w) if *rgb == colour && *w == width => Some(p.as_slice()),
                _ => None,
            })
            .collect()
    }

    /// The text calls of `text`: where and at which size.
    pub fn text(&self, text: &str) -> Vec<(BackendCoord, u32)> {
        self.0
            .iter()
            .filter_map(|c| match c {
                Call::Text(t, at, size, _) if t == text => Some((*at, *size)),
                _ => None,
            })
            .collect()
    }
}
