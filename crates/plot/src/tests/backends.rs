//! The figure on plotters' SVG backend, and the two backend wrappers: [`Either`] changes
//! nothing of what is drawn, [`Measured`] measures (and may draw) text with its [`Text`].

use std::cell::RefCell;
use std::rc::Rc;

use plotters::prelude::{IntoDrawingArea, SVGBackend};
use plotters_backend::{BackendCoord, BackendTextStyle, DrawingBackend, DrawingErrorKind};

use super::labelled_figure;
use super::recorder::{recorder, whole, Call, Fixed, Recorder};
use crate::{Draw, Either, Look, Measured, Text};
use rvalue_model::figure::Figure;

fn svg(fig: &Figure, size: (u32, u32)) -> String {
    let mut out = String::new();
    {
        let backend = Measured { inner: SVGBackend::with_string(&mut out, size), text: Fixed };
        fig.draw(&backend.into_drawing_area(), &Look::light(13)).unwrap();
    }
    out
}

#[test]
fn the_svg_export_draws_each_curve_dot_and_label() {
    let fig = labelled_figure();
    let out = svg(&fig, (640, 400));
    assert!(out.starts_with("<svg width=\"640\" height=\"400\""), "{}", &out[..80]);
    // The solid curve: one stretch and its swatch; the dashed grey curve in dashes.
    let blue = out.matches("<polyline fill=\"none\" opacity=\"1\" stroke=\"#0072B2\"").count();
    assert_eq!(blue, 2);
    assert!(out.matches("stroke=\"#6E6E6E\"").count() > 10);
    // Two dots and the swatch of one.
    assert_eq!(out.matches("<circle").count(), 3);
    for label in ["a curve", "some dots", "value", "σ² (log scale)"] {
        assert!(
            out.contains(&format!(">\n{label}\n</text>")) || out.contains(&format!(">{label}</text>")),
            "{label}"
        );
    }
}

#[test]
fn either_backend_draws_what_the_backend_inside_draws() {
    let fig = labelled_figure();
    let direct = svg(&fig, (500, 300));
    let mut out = String::new();
    {
        let inner = Measured { inner: SVGBackend::with_string(&mut out, (500, 300)), text: Fixed };
        let either: Either<Measured<Recorder, Fixed>, _> = Either::Right(inner);
        fig.draw(&either.into_drawing_area(), &Look::light(13)).unwrap();
    }
    assert_eq!(out, direct);
    let (frame, calls) = whole(&fig, (500, 300));
    let (backend, recorded) = recorder(500, 300);
    let either: Either<_, Measured<SVGBackend, Fixed>> = Either::Left(backend);
    let through = fig.draw(&either.into_drawing_area(), &Look::light(13)).unwrap();
    assert_eq!(*recorded.borrow(), calls.0);
    assert_eq!((through.plot, through.legend), (frame.plot, frame.legend));
}

/// Text that draws itself: it keeps what it was asked to draw.
struct Drawing(Rc<RefCell<Vec<String>>>);

impl Text for Drawing {
    fn size<S: BackendTextStyle>(&self, text: &str, style: &S) -> (u32, u32) {
        Fixed.size(text, style)
    }
    fn draw<B: DrawingBackend, S: BackendTextStyle>(
        &self,
        _: &mut B,
        text: &str,
        _: &S,
        _: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.0.borrow_mut().push(text.to_string());
        Ok(())
    }
}

#[test]
fn text_that_draws_itself_is_not_drawn_by_the_backend_inside() {
    let fig = labelled_figure();
    let (_, calls) = whole(&fig, (500, 300));
    let (backend, recorded) = recorder(500, 300);
    let texts = Rc::new(RefCell::new(Vec::new()));
    let drawing = Measured { inner: backend.inner, text: Drawing(texts.clone()) };
    fig.draw(&drawing.into_drawing_area(), &Look::light(13)).unwrap();
    let (with_text, without): (Vec<_>, Vec<_>) =
        calls.0.iter().cloned().partition(|c| matches!(c, Call::Text(..)));
    assert_eq!(*recorded.borrow(), without);
    let drawn: Vec<String> = with_text
        .iter()
        .map(|c| match c {
            Call::Text(t, ..) => t.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(*texts.borrow(), drawn);
    assert!(drawn.len() > 10);
}
