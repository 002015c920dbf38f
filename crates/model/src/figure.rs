//! What the page's panels show, free of any drawing library: a [`Figure`] says what to draw
//! (lines with gaps, dots, bars, vertical markers, axes, where the legend would rather sit), and
//! the panels' tables, inspector and statistics are HTML strings. The page draws a figure with
//! plotters and writes the strings into the DOM; every choice (ranges, ticks, clipping, legend
//! placement, colours, sentences) is made here, where it is tested natively.
//!
//! - [`panels`]: the figures of panels 1, 3, 4, 5 and 8, panel 3 and 4's marker and readout;
//! - [`threshold`]: panel 2's figure, its y range and the note on what it cuts off;
//! - [`classes`]: panel 9's figure and its strata table;
//! - [`tables`]: panel 6's tables and its note; [`inspector`]: panel 7's columns;
//! - [`stats`]: panel 8's statistics; [`placeholder`]: sentences shown instead of a figure;
//! - [`legend`]: where a legend goes; [`layout`]: the plot's margins and tick labels;
//! - [`clip`]: polylines cut to the frame; [`html`]: escaping text for markup.
//!
//! A log axis is drawn as a linear axis over `log10 x` ([`Figure::tx`]): one coordinate type for
//! both kinds of axis, and `x = 0` can sit on the left edge instead of at −∞.

pub mod classes;
pub mod clip;
pub mod html;
pub mod inspector;
pub mod layout;
pub mod legend;
pub mod panels;
pub mod placeholder;
pub mod stats;
pub mod tables;
pub mod threshold;

#[cfg(test)]
mod tests;

pub use clip::clip_band;
pub use legend::{legend_spot, Legend};

use crate::theme::{self, Rgb};
use rvalue_core::conformal::Method;

/// Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
pub const BLUE: Rgb = (0, 114, 178);
pub const ORANGE: Rgb = (230, 159, 0);
pub const GREEN: Rgb = (0, 158, 115);
pub const VERMILLION: Rgb = (213, 94, 0);
pub const SKY: Rgb = (86, 180, 233);
pub const PURPLE: Rgb = (204, 121, 167);
/// The light palette's grey and text colours: a dark palette draws them in its own
/// ([`Figure::recoloured`]).
pub const GREY: Rgb = theme::LIGHT.grey;
pub const INK: Rgb = theme::LIGHT.ink;

/// CP, CP_avg, CP_r, APS, RAPS, SAPS (in `Method::ALL` order): six of Okabe–Ito's eight, so
/// that every method keeps a colour of its own whichever are on.
pub const METHOD_COLOURS: [Rgb; 6] = theme::METHODS;

/// `m`'s colour (and the `swatch m{i}` class of its legend in the page's tables).
pub fn method_colour(m: Method) -> Rgb {
    METHOD_COLOURS[method_slot(m)]
}

/// `m`'s place in `Method::ALL`.
pub fn method_slot(m: Method) -> usize {
    Method::ALL.iter().position(|&x| x == m).unwrap_or(0)
}

/// `m`'s name in a legend or a line of text.
pub fn method_label(m: Method) -> &'static str {
    match m {
        Method::Cp => "CP",
        Method::CpAvg => "CP_avg",
        Method::CpR => "CP_r",
        Method::Aps | Method::Raps | Method::Saps => m.label(),
    }
}

/// `m`'s name in markup, subscripts as the paper writes them.
pub fn method_html(m: Method) -> &'static str {
    match m {
        Method::Cp => "CP",
        Method::CpAvg => "CP<sub>avg</sub>",
        Method::CpR => "CP<sub>r</sub>",
        Method::Aps | Method::Raps | Method::Saps => m.label(),
    }
}

/// Bars of one colour from 0 up to a value: `(left, right, top)` in data coordinates (a legend
/// entry when labelled).
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    pub label: Option<String>,
    pub colour: Rgb,
    pub bars: Vec<(f64, f64, f64)>,
}

/// A polyline with gaps where a value is undefined.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub label: Option<String>,
    pub colour: Rgb,
    pub width: u32,
    pub dashed: bool,
    pub opacity: f64,
    /// Drawn on the front layer when the figure is drawn in two: a line that moves with a
    /// slider the rest of the figure does not depend on.
    pub front: bool,
    pub points: Vec<(f64, Option<f64>)>,
}

impl Line {
    pub fn new(label: impl Into<String>, colour: Rgb, xs: &[f64], ys: &[Option<f64>]) -> Self {
        Line {
            label: Some(label.into()),
            colour,
            width: 2,
            dashed: false,
            opacity: 1.0,
            front: false,
            points: xs.iter().copied().zip(ys.iter().copied()).collect(),
        }
    }

    /// A line through `ys`, with a gap at each value that is not finite.
    pub fn of(label: impl Into<String>, colour: Rgb, xs: &[f64], ys: &[f64]) -> Self {
        let ys: Vec<Option<f64>> = ys.iter().map(|&y| y.is_finite().then_some(y)).collect();
        Line::new(label, colour, xs, &ys)
    }

    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }

    pub fn in_front(mut self) -> Self {
        self.front = true;
        self
    }

    pub fn faint(mut self) -> Self {
        self.opacity = 0.35;
        self.width = 1;
        self
    }

    /// The defined stretches of the line, each cut to `lo ≤ y ≤ hi` (where a curve leaves a
    /// zoomed figure it ends on the frame's edge): the polylines to draw, of two points or more.
    pub fn segments(&self, band: (f64, f64), tx: impl Fn(f64) -> f64) -> Vec<Vec<(f64, f64)>> {
        let mut defined: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for &(x, y) in &self.points {
            match y {
                Some(y) if y.is_finite() => {
                    if let Some(s) = defined.last_mut() {
                        s.push((tx(x), y));
                    }
                }
                _ => {
                    if defined.last().is_some_and(|s| !s.is_empty()) {
                        defined.push(Vec::new());
                    }
                }
            }
        }
        defined.iter().flat_map(|s| clip_band(s, band)).filter(|s| s.len() > 1).collect()
    }
}

/// Points of one colour and shape (a legend entry when labelled).
#[derive(Clone, Debug, PartialEq)]
pub struct Dots {
    pub label: Option<String>,
    pub colour: Rgb,
    pub radius: u32,
    pub filled: bool,
    pub opacity: f64,
    pub points: Vec<(f64, f64)>,
}

impl Dots {
    /// The drawn radius for tick labels of `font` pixels (`radius` at 14 px), at least 2.
    pub fn drawn_radius(&self, font: u32) -> u32 {
        (self.radius * font / 14).max(2)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axis {
    Linear,
    /// Decades; values `≤ lo` are drawn at `lo`.
    Log,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub x_desc: String,
    pub y_desc: String,
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub x_axis: Axis,
    pub lines: Vec<Line>,
    pub dots: Vec<Dots>,
    /// Vertical markers `(x, colour)`.
    pub vlines: Vec<(f64, Rgb)>,
    /// Upward arrows on the top edge `(x, colour)`: where a curve or a point leaves the frame
    /// above, so that a zoomed figure says what it cuts off.
    pub exits: Vec<(f64, Rgb)>,
    pub bars: Vec<Bars>,
    /// Names of the integer x positions (class names): the x labels, where they fit.
    pub x_names: Vec<String>,
    pub legend: Legend,
}

/// A current-value marker drawn over a figure: a dashed vertical line at `x` and dots on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub colour: Rgb,
    /// `(y, colour)`; non-finite values are left out.
    pub dots: Vec<(f64, Rgb)>,
}

impl Marker {
    /// Dash and gap of the line in backend pixels, as the figure's own vertical markers.
    pub const DASH: (u32, u32) = (6, 4);

    /// Line width for tick labels of `font` backend pixels, as the figure's vertical markers.
    pub fn line_width(font: u32) -> u32 {
        font / 8 + 1
    }

    /// Dot radius, as the figure's radius-6 dots.
    pub fn dot_radius(font: u32) -> u32 {
        (6 * font / 14).max(2)
    }
}

/// A y range that holds `values` with a margin, or `fallback` when there are none.
pub fn y_range(values: impl IntoIterator<Item = f64>, fallback: (f64, f64)) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !(lo.is_finite() && hi.is_finite()) {
        return fallback;
    }
    let pad = if hi > lo { 0.06 * (hi - lo) } else { lo.abs().max(1.0) * 0.1 };
    (lo - pad, hi + pad)
}

impl Figure {
    /// Adds the α marker `m` as the figure's own elements, a vertical marker and radius-6 dots
    /// at its finite values: what an exported figure shows where the page draws the marker on
    /// an overlay.
    pub fn add_marker(&mut self, m: &Marker) {
        self.vlines.push((m.x, m.colour));
        for &(y, colour) in m.dots.iter().filter(|(y, _)| y.is_finite()) {
            let points = vec![(m.x, y)];
            self.dots.push(Dots { label: None, colour, radius: 6, filled: true, opacity: 1.0, points });
        }
    }

    pub fn new(x_desc: &str, y_desc: &str, x: (f64, f64), y: (f64, f64)) -> Self {
        Figure {
            x_desc: x_desc.to_string(),
            y_desc: y_desc.to_string(),
            x,
            y,
            x_axis: Axis::Linear,
            lines: Vec::new(),
            dots: Vec::new(),
            bars: Vec::new(),
            x_names: Vec::new(),
            vlines: Vec::new(),
            exits: Vec::new(),
            legend: Legend::UpperRight,
        }
    }

    /// The drawing coordinate of a data x: itself, or on a log axis `log10 x` with `x` held at
    /// the axis' lower end or above.
    pub fn tx(&self, x: f64) -> f64 {
        match self.x_axis {
            Axis::Linear => x,
            Axis::Log => x.max(self.x.0).log10(),
        }
    }

    /// The text of an x tick at drawing coordinate `v`: the class name at an integer position
    /// (none between them), a decade's value on a log axis, else the value.
    pub fn x_tick_label(&self, v: f64) -> String {
        if !self.x_names.is_empty() {
            let i = v.round();
            let at = (i >= 0.0 && (v - i).abs() < 1e-6).then(|| self.x_names.get(i as usize)).flatten();
            at.cloned().unwrap_or_default()
        } else if self.x_axis == Axis::Log {
            crate::scales::short(10f64.powf(v))
        } else {
            crate::scales::short(v)
        }
    }

    /// The dots of `d` inside the frame's y range, in drawing coordinates: a zoomed figure cuts
    /// off what lies above or below.
    pub fn dots_inside(&self, d: &Dots) -> Vec<(f64, f64)> {
        d.points
            .iter()
            .filter(|(_, y)| (self.y.0..=self.y.1).contains(y))
            .map(|&(x, y)| (self.tx(x), y))
            .collect()
    }

    /// This figure with the light palette's text and grey drawn as `ink` and `grey`, if either
    /// differs (a dark page): every other colour is a method's or Okabe–Ito's, kept in both.
    pub fn recoloured(&self, ink: Rgb, grey: Rgb) -> Option<Figure> {
        if ink == INK && grey == GREY {
            return None;
        }
        let colour = |c: Rgb| match c {
            c if c == INK => ink,
            c if c == GREY => grey,
            c => c,
        };
        let mut f = self.clone();
        f.lines.iter_mut().for_each(|l| l.colour = colour(l.colour));
        f.dots.iter_mut().for_each(|d| d.colour = colour(d.colour));
        f.bars.iter_mut().for_each(|b| b.colour = colour(b.colour));
        f.vlines.iter_mut().chain(f.exits.iter_mut()).for_each(|v| v.1 = colour(v.1));
        Some(f)
    }
}
