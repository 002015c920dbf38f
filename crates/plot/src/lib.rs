//! A model [`Figure`](rvalue_model::figure::Figure) drawn with plotters on any
//! `DrawingBackend`: the page's canvases, its SVG exports, and the native tests' backends draw
//! through the same code. The model decides what a figure shows (ranges, ticks, clipping, the
//! legend's place); this crate measures text through the backend, asks the model, and draws.
//!
//! - [`Draw`]: a figure drawn whole or in layers ([`Layer`]), returning its [`Frame`] (the
//!   data-to-pixel mapping an overlay marks points with);
//! - [`Look`] and [`Palette`]: the colours and the legend's placement;
//! - [`legend`]: the legend measured by the backend and painted;
//! - [`Measured`]: a backend whose text is measured (and maybe drawn) by a [`Text`], since
//!   plotters' own font layer measures text by a forced layout on the web and crudely natively;
//! - [`Either`]: two backends behind one type, so the drawing code is compiled once;
//! - [`css`]: plotters' styles as a canvas context is told them;
//! - `canvas` (the `canvas` feature, wasm32 only): the page's backends, whose [`Text`] is the
//!   canvas' own, and its current-value markers. Natively the tests measure text with a
//!   fixed-advance font.

mod backend;
#[cfg(all(feature = "canvas", target_arch = "wasm32"))]
pub mod canvas;
pub mod css;
mod draw;
mod frame;
pub mod legend;
mod look;
mod measured;

pub use backend::{Either, EitherError};
pub use draw::Draw;
pub use frame::{Frame, Layer, MarkerLine};
pub use look::{rgb, Look, Palette};
pub use measured::{Measured, Text};

use plotters::drawing::DrawingAreaErrorKind;
use rvalue_core::Error;

/// A plotters drawing error as the crate's error value.
fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::invalid(format!("drawing failed: {e}"))
}

#[cfg(test)]
mod tests;
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
