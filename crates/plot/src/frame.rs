//! A drawn figure's data-to-pixel mapping ([`Frame`]), and the layers a figure can be drawn in
//! ([`Layer`]): what an overlay canvas needs to mark a point on a figure without drawing the
//! figure again.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::{Cartesian2d, CoordTranslate};
use rvalue_model::figure::{Axis, Marker};
use rvalue_model::theme::Rgb;

/// Which part of a figure to draw. A figure can be drawn whole on one canvas, or in two layers
/// on two canvases stacked one over the other: the back (background, axes, every line not
/// marked `front`, bars, dots) and the front (transparent: the `front` lines and the legend, so
/// the legend stays over every line). The two layers have the same frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layer {
    Whole,
    Back,
    Front,
}

/// A figure's data-to-pixel mapping, as drawn: what an overlay needs to mark a point on it.
#[derive(Clone)]
pub struct Frame {
    pub(crate) coord: Cartesian2d<RangedCoordf64, RangedCoordf64>,
    pub(crate) x_axis: Axis,
    pub(crate) x_lo: f64,
    pub(crate) y: (f64, f64),
    /// The backend's size in pixels when the figure was drawn.
    pub size: (u32, u32),
    /// Tick-label size in backend pixels (marker sizes scale with it).
    pub font: u32,
    /// The plotting area `(left, top, right, bottom)` in backend pixels.
    pub plot: (i32, i32, i32, i32),
    /// The legend's box in backend pixels: laid out in every layer, drawn by the front one.
    pub legend: Option<(i32, i32, i32, i32)>,
    /// The dots the back layer drew: centre and radius in backend pixels.
    pub marks: Vec<(i32, i32, i32)>,
}

/// A [`Marker`]'s line in a frame's backend pixels (its dots are at [`Frame::pixel`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerLine {
    /// The line's x, half a pixel in for an odd width so that a thin line is crisp (as
    /// plotters-canvas draws lines).
    pub x: f64,
    /// The line's ends: the top and bottom of the data range.
    pub top: i32,
    pub bottom: i32,
    pub width: u32,
    /// The radius of the marker's dots.
    pub radius: u32,
}

impl Frame {
    /// The backend pixel of a data point (a log axis clamps `x` to its lower end).
    pub fn pixel(&self, x: f64, y: f64) -> (i32, i32) {
        let x = match self.x_axis {
            Axis::Linear => x,
            Axis::Log => x.max(self.x_lo).log10(),
        };
        self.coord.translate(&(x, y))
    }

    /// The data y range (bottom, top).
    pub fn y_range(&self) -> (f64, f64) {
        self.y
    }

    /// Where the line of a marker at `x` is drawn over the figure.
    pub fn marker_line(&self, x: f64) -> MarkerLine {
        let (y0, y1) = self.y;
        let ((px, top), (_, bottom)) = (self.pixel(x, y1), self.pixel(x, y0));
        let width = Marker::line_width(self.font);
        let x = f64::from(px) + if width % 2 == 1 { 0.5 } else { 0.0 };
        MarkerLine { x, top, bottom, width, radius: Marker::dot_radius(self.font) }
    }

    /// Where the dots of `marker` are drawn over the figure: centre in backend pixels and
    /// colour, those of a non-finite value left out.
    pub fn marker_dots<'a>(&'a self, marker: &'a Marker) -> impl Iterator<Item = ((i32, i32), Rgb)> + 'a {
        let finite = marker.dots.iter().filter(|(y, _)| y.is_finite());
        finite.map(|&(y, colour)| (self.pixel(marker.x, y), colour))
    }

    /// Where the figure put its plotting area, legend and dots, as the page records them on
    /// its canvas for scripts (the browser tests) to read: `data-plot` and `data-legend` as
    /// `left top right bottom`, `data-marks` as comma-separated `x y r`.
    pub fn attributes(&self) -> [(&'static str, String); 3] {
        let quad = |(a, b, c, d): (i32, i32, i32, i32)| format!("{a} {b} {c} {d}");
        let marks: Vec<String> = self.marks.iter().map(|(x, y, r)| format!("{x} {y} {r}")).collect();
        [
            ("data-plot", quad(self.plot)),
            ("data-legend", self.legend.map(quad).unwrap_or_default()),
            ("data-marks", marks.join(",")),
        ]
    }
}
