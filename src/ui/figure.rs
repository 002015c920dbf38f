//! One way to draw every line figure of the page with plotters: a [`Figure`] says what to draw
//! (lines with gaps, dots, vertical markers, axes); [`Figure::draw`] draws it on any plotters
//! backend, so the canvas on the page and a vector export share the code.
//!
//! A log axis is drawn as a linear axis over `log10 x` with decade labels: one coordinate type
//! for both kinds of axis, and `x = 0` can sit on the left edge instead of at −∞.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::{Error, Result};

/// Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub const SKY: RGBColor = RGBColor(86, 180, 233);
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const GREY: RGBColor = RGBColor(110, 110, 110);
pub const INK: RGBColor = RGBColor(29, 29, 31);

/// CP, CP_avg, CP_r (in `Method::ALL` order).
pub const METHOD_COLOURS: [RGBColor; 3] = [ORANGE, SKY, GREEN];

/// A polyline with gaps where a value is undefined.
pub struct Line {
    pub label: Option<String>,
    pub colour: RGBColor,
    pub width: u32,
    pub dashed: bool,
    pub opacity: f64,
    pub points: Vec<(f64, Option<f64>)>,
}

impl Line {
    pub fn new(label: impl Into<String>, colour: RGBColor, xs: &[f64], ys: &[Option<f64>]) -> Self {
        Line {
            label: Some(label.into()),
            colour,
            width: 2,
            dashed: false,
            opacity: 1.0,
            points: xs.iter().copied().zip(ys.iter().copied()).collect(),
        }
    }

    pub fn of(label: impl Into<String>, colour: RGBColor, xs: &[f64], ys: &[f64]) -> Self {
        let ys: Vec<Option<f64>> = ys.iter().map(|&y| y.is_finite().then_some(y)).collect();
        Line::new(label, colour, xs, &ys)
    }

    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }

    pub fn faint(mut self) -> Self {
        self.opacity = 0.35;
        self.width = 1;
        self
    }
}

/// Points of one colour and shape (a legend entry when labelled).
pub struct Dots {
    pub label: Option<String>,
    pub colour: RGBColor,
    pub radius: u32,
    pub filled: bool,
    pub opacity: f64,
    pub points: Vec<(f64, f64)>,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Axis {
    Linear,
    /// Decades; values `≤ lo` are drawn at `lo`.
    Log,
}

pub struct Figure {
    pub x_desc: String,
    pub y_desc: String,
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub x_axis: Axis,
    pub lines: Vec<Line>,
    pub dots: Vec<Dots>,
    /// Vertical markers `(x, colour)`.
    pub vlines: Vec<(f64, RGBColor)>,
    pub legend: Legend,
}

/// Where the legend sits (plotters' own position type is neither `Copy` nor `Clone`).
#[derive(Clone, Copy, PartialEq)]
pub enum Legend {
    UpperLeft,
    UpperRight,
    LowerLeft,
    LowerRight,
}

impl Legend {
    fn position(self) -> SeriesLabelPosition {
        match self {
            Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            Legend::UpperRight => SeriesLabelPosition::UpperRight,
            Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
            Legend::LowerRight => SeriesLabelPosition::LowerRight,
        }
    }
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::invalid(format!("drawing failed: {e}"))
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
    pub fn new(x_desc: &str, y_desc: &str, x: (f64, f64), y: (f64, f64)) -> Self {
        Figure {
            x_desc: x_desc.to_string(),
            y_desc: y_desc.to_string(),
            x,
            y,
            x_axis: Axis::Linear,
            lines: Vec::new(),
            dots: Vec::new(),
            vlines: Vec::new(),
            legend: Legend::UpperRight,
        }
    }

    /// The drawing coordinate of a data x.
    fn tx(&self, x: f64) -> f64 {
        match self.x_axis {
            Axis::Linear => x,
            Axis::Log => x.max(self.x.0).log10(),
        }
    }

    /// Draws the figure filling `area`; `font` is the tick-label size in backend pixels.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, font: u32) -> Result<()> {
        area.fill(&WHITE).map_err(draw_err)?;
        let (x0, x1) = (self.tx(self.x.0), self.tx(self.x.1));
        let (y0, y1) = self.y;
        let label_font = ("sans-serif", font).into_font().color(&INK);
        let desc_font = ("sans-serif", font + font / 6).into_font().color(&INK);
        let mut chart = ChartBuilder::on(area)
            .margin(font / 2 + 4)
            .x_label_area_size(font * 3)
            .y_label_area_size(font * 4)
            .build_cartesian_2d(x0..x1.max(x0 + 1e-12), y0..y1.max(y0 + 1e-12))
            .map_err(draw_err)?;
        let log = self.x_axis == Axis::Log;
        let x_fmt = move |v: &f64| {
            if log {
                crate::explorer::scales::short(10f64.powf(*v))
            } else {
                crate::explorer::scales::short(*v)
            }
        };
        let y_fmt = |v: &f64| crate::explorer::scales::short(*v);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .label_style(label_font.clone())
            .axis_desc_style(desc_font)
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(220, 220, 220))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .x_labels(6)
            .y_labels(6);
        if log {
            // One label per decade (the formatter shows 10^v).
            let decades = (x1.floor() - x0.ceil()).max(1.0) as usize + 1;
            mesh.x_labels(decades.min(8));
        }
        mesh.draw().map_err(draw_err)?;

        for &(x, colour) in &self.vlines {
            let x = self.tx(x);
            chart
                .draw_series(DashedLineSeries::new(
                    [(x, y0), (x, y1)],
                    6,
                    4,
                    colour.stroke_width(font / 8 + 1),
                ))
                .map_err(draw_err)?;
        }
        for line in &self.lines {
            self.draw_line(&mut chart, line, font)?;
        }
        for d in &self.dots {
            let style = if d.filled {
                d.colour.mix(d.opacity).filled()
            } else {
                d.colour.mix(d.opacity).stroke_width(2)
            };
            let r = d.radius * font / 14;
            let series = chart
                .draw_series(d.points.iter().map(|&(x, y)| Circle::new((self.tx(x), y), r.max(2), style)))
                .map_err(draw_err)?;
            if let Some(label) = &d.label {
                let c = d.colour;
                series.label(label.as_str()).legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
            }
        }
        if self.lines.iter().any(|l| l.label.is_some()) || self.dots.iter().any(|d| d.label.is_some()) {
            chart
                .configure_series_labels()
                .position(self.legend.position())
                .label_font(label_font)
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(200, 200, 200))
                .draw()
                .map_err(draw_err)?;
        }
        area.present().map_err(draw_err)
    }

    fn draw_line<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<
            DB,
            Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
        >,
        line: &Line,
        font: u32,
    ) -> Result<()> {
        let width = line.width * (font / 14).max(1);
        let style = line.colour.mix(line.opacity).stroke_width(width);
        let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for &(x, y) in &line.points {
            match y {
                Some(y) if y.is_finite() => {
                    // Clip far-off values to just outside the frame so a steep curve leaves it.
                    let span = (self.y.1 - self.y.0).abs().max(1e-12);
                    let y = y.clamp(self.y.0 - span, self.y.1 + span);
                    if let Some(s) = segments.last_mut() {
                        s.push((self.tx(x), y));
                    }
                }
                _ => {
                    if segments.last().is_some_and(|s| !s.is_empty()) {
                        segments.push(Vec::new());
                    }
                }
            }
        }
        let mut labelled = false;
        for seg in segments.into_iter().filter(|s| !s.is_empty()) {
            let anno = if line.dashed {
                chart.draw_series(DashedLineSeries::new(seg, 8, 5, style)).map_err(draw_err)?
            } else {
                chart.draw_series(LineSeries::new(seg, style)).map_err(draw_err)?
            };
            if !labelled {
                if let Some(label) = &line.label {
                    let c = line.colour;
                    anno.label(label.as_str())
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3)));
                }
                labelled = true;
            }
        }
        Ok(())
    }
}
