//! One way to draw every line figure of the page with plotters: a [`Figure`] says what to draw
//! (lines with gaps, dots, vertical markers, axes); [`Figure::draw`] draws it on any plotters
//! backend, so the canvas on the page and a vector export share the code.
//!
//! A log axis is drawn as a linear axis over `log10 x` with decade labels: one coordinate type
//! for both kinds of axis, and `x = 0` can sit on the left edge instead of at −∞.
//!
//! The legend is laid out by [`super::legend`] rather than by plotters (whose font layer
//! measures text by a forced layout of the page); this module chooses where it goes: inside the
//! plot where it hides the fewest points, or under the plot on a narrow page. A [`Look`] gives
//! the colours (the page's theme) and that choice.
//!
//! [`Figure::draw`] returns the figure's [`Frame`] (data to pixel mapping), so that a
//! [`Marker`] can be drawn on a transparent canvas stacked over the figure without drawing the
//! figure again.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::legend::{self, Swatch};
use super::theme::Palette;
use rvalue_core::{Error, Result};

/// How a figure is drawn, besides what it shows.
#[derive(Clone, Copy, Debug)]
pub struct Look {
    /// Tick-label size in backend pixels.
    pub font: u32,
    pub palette: Palette,
    /// The legend in a strip under the plot rather than inside it (a narrow figure).
    pub legend_below: bool,
}

impl Look {
    /// The light palette, the legend inside the plot.
    pub fn light(font: u32) -> Look {
        Look { font, palette: Palette::light(), legend_below: false }
    }

    /// The page's palette now; the legend under the plot on a `narrow` page
    /// ([`legend::NARROW_CSS_PX`]).
    pub fn page(font: u32, narrow: bool) -> Look {
        Look { font, palette: Palette::current(), legend_below: narrow }
    }
}

/// Okabe–Ito colours: distinguishable with every common colour-vision deficiency.
pub const BLUE: RGBColor = RGBColor(0, 114, 178);
pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub const GREEN: RGBColor = RGBColor(0, 158, 115);
pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub const SKY: RGBColor = RGBColor(86, 180, 233);
pub const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub const GREY: RGBColor = RGBColor(110, 110, 110);
pub const INK: RGBColor = RGBColor(29, 29, 31);

/// CP, CP_avg, CP_r, APS, RAPS, SAPS (in `Method::ALL` order): six of Okabe–Ito's eight, so
/// that every method keeps a colour of its own whichever are on.
pub const METHOD_COLOURS: [RGBColor; 6] = [ORANGE, SKY, GREEN, BLUE, VERMILLION, PURPLE];

/// `m`'s colour (and the `swatch m{i}` class of its legend in the page's tables).
pub fn method_colour(m: rvalue_core::conformal::Method) -> RGBColor {
    METHOD_COLOURS[method_slot(m)]
}

/// `m`'s place in `Method::ALL`.
pub fn method_slot(m: rvalue_core::conformal::Method) -> usize {
    rvalue_core::conformal::Method::ALL.iter().position(|&x| x == m).unwrap_or(0)
}

/// Bars of one colour from 0 up to a value: `(left, right, top)` in data coordinates (a legend
/// entry when labelled).
#[derive(Clone)]
pub struct Bars {
    pub label: Option<String>,
    pub colour: RGBColor,
    pub bars: Vec<(f64, f64, f64)>,
}

/// A polyline with gaps where a value is undefined.
#[derive(Clone)]
pub struct Line {
    pub label: Option<String>,
    pub colour: RGBColor,
    pub width: u32,
    pub dashed: bool,
    pub opacity: f64,
    /// Drawn on the front layer when the figure is drawn in two ([`Layer`]): a line that moves
    /// with a slider the rest of the figure does not depend on.
    pub front: bool,
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
            front: false,
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

    pub fn in_front(mut self) -> Self {
        self.front = true;
        self
    }

    pub fn faint(mut self) -> Self {
        self.opacity = 0.35;
        self.width = 1;
        self
    }
}

/// Points of one colour and shape (a legend entry when labelled).
#[derive(Clone)]
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

#[derive(Clone)]
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
    /// Upward arrows on the top edge `(x, colour)`: where a curve or a point leaves the frame
    /// above, so that a zoomed figure says what it cuts off.
    pub exits: Vec<(f64, RGBColor)>,
    pub bars: Vec<Bars>,
    /// Names of the integer x positions (class names): the x labels, where they fit.
    pub x_names: Vec<String>,
    pub legend: Legend,
}

/// Where the legend would rather sit in the plotting area: a corner, or halfway down a side. It
/// moves to another of those places if that one covers fewer of the figure's data points
/// ([`legend_spot`]).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Legend {
    UpperLeft,
    UpperRight,
    LowerLeft,
    LowerRight,
    MiddleLeft,
    MiddleRight,
}

impl Legend {
    const ALL: [Legend; 6] = [
        Legend::UpperRight,
        Legend::UpperLeft,
        Legend::LowerRight,
        Legend::LowerLeft,
        Legend::MiddleRight,
        Legend::MiddleLeft,
    ];

    /// The top-left corner of a `w × h` box here, in an area of `aw × ah` pixels (5 px inside
    /// its edges, as plotters places series labels).
    fn origin(self, (w, h): (i32, i32), (aw, ah): (i32, i32)) -> (i32, i32) {
        let x = match self {
            Legend::UpperLeft | Legend::LowerLeft | Legend::MiddleLeft => 5,
            Legend::UpperRight | Legend::LowerRight | Legend::MiddleRight => aw - w - 5,
        };
        let y = match self {
            Legend::UpperLeft | Legend::UpperRight => 5,
            Legend::LowerLeft | Legend::LowerRight => ah - h - 5,
            Legend::MiddleLeft | Legend::MiddleRight => (ah - h) / 2,
        };
        (x, y)
    }
}

/// Where a `w × h` legend goes in an `aw × ah` area holding the data `points` (pixels, relative
/// to the area): the place covering the fewest of them, `preferred` unless another covers
/// strictly fewer. Only the figure's back layer counts, so a line that follows a slider never
/// makes the legend jump.
pub fn legend_spot(
    preferred: Legend,
    size: (i32, i32),
    area: (i32, i32),
    points: &[(i32, i32)],
) -> (i32, i32) {
    let covered = |at: Legend| {
        let (x, y) = at.origin(size, area);
        points.iter().filter(|&&(px, py)| px >= x && px <= x + size.0 && py >= y && py <= y + size.1).count()
    };
    let mut best = (covered(preferred), preferred);
    for at in Legend::ALL {
        let n = covered(at);
        if n < best.0 {
            best = (n, at);
        }
    }
    best.1.origin(size, area)
}

/// A figure's data-to-pixel mapping, as drawn: what an overlay needs to mark a point on it.
#[derive(Clone)]
pub struct Frame {
    coord: Cartesian2d<RangedCoordf64, RangedCoordf64>,
    x_axis: Axis,
    x_lo: f64,
    y: (f64, f64),
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
}

/// A current-value marker drawn over a figure: a dashed vertical line at `x` and dots on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub colour: RGBColor,
    /// `(y, colour)`; non-finite values are left out.
    pub dots: Vec<(f64, RGBColor)>,
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

/// Which part of a figure to draw. A figure can be drawn whole on one canvas, or in two layers
/// on two canvases stacked one over the other: the back (white background, axes, every line
/// not marked `front`, dots) and the front (transparent: the `front` lines and the legend, so
/// the legend stays over every line). The two layers have the same frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layer {
    Whole,
    Back,
    Front,
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
            bars: Vec::new(),
            x_names: Vec::new(),
            vlines: Vec::new(),
            exits: Vec::new(),
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

    /// Draws the figure filling `area`.
    pub fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, look: &Look) -> Result<Frame> {
        self.draw_layer(area, look, Layer::Whole)
    }

    /// Draws one layer of the figure filling `area` (see [`Layer`]); the front layer draws on
    /// whatever `area` holds (clear it first).
    pub fn draw_layer<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        look: &Look,
        layer: Layer,
    ) -> Result<Frame> {
        match self.recoloured(&look.palette) {
            Some(fig) => fig.draw_in(area, look, layer),
            None => self.draw_in(area, look, layer),
        }
    }

    /// This figure with the palette's text and grey colours for the light ones, if any differ.
    fn recoloured(&self, p: &Palette) -> Option<Figure> {
        if p.colour(INK) == INK && p.colour(GREY) == GREY {
            return None;
        }
        let mut f = self.clone();
        f.lines.iter_mut().for_each(|l| l.colour = p.colour(l.colour));
        f.dots.iter_mut().for_each(|d| d.colour = p.colour(d.colour));
        f.bars.iter_mut().for_each(|b| b.colour = p.colour(b.colour));
        f.vlines.iter_mut().chain(f.exits.iter_mut()).for_each(|v| v.1 = p.colour(v.1));
        Some(f)
    }

    fn draw_in<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        look: &Look,
        layer: Layer,
    ) -> Result<Frame> {
        let (back, front) = (layer != Layer::Front, layer != Layer::Back);
        if let Some(bg) = look.palette.background.filter(|_| back) {
            area.fill(&bg).map_err(draw_err)?;
        }
        let font = look.font;
        let label_font = ("sans-serif", font).into_font().color(&look.palette.ink);
        let entries = self.legend_entries();
        let below_plot = !entries.is_empty()
            && (look.legend_below || legend::crowds(area, &entries, &label_font, plot_size(area, font))?);
        let below = match below_plot {
            true => Some(legend::below(area, &entries, &label_font)?),
            false => None,
        };
        let (_, h) = area.dim_in_pixel();
        let (chart_area, strip) = match &below {
            Some(l) => {
                let (top, bottom) = area.split_vertically(h as i32 - l.h.min(h as i32 / 2));
                (top, Some(bottom))
            }
            None => (area.clone(), None),
        };
        let mut chart = self.chart(&chart_area, font)?;
        // Axes, grid and labels are the back layer's: the front layer (redrawn on an α move)
        // needs only the chart's coordinates, not the label fitting below.
        if back {
            self.draw_axes(&mut chart, &chart_area, (font, &label_font), &look.palette)?;
            self.draw_vlines(&mut chart, font)?;
        }
        let mut frame = self.frame(&chart, area.dim_in_pixel(), font);
        if back {
            self.draw_bars(&mut chart)?;
        }
        frame.marks = self.draw_lines_and_dots(&mut chart, font, (back, front))?;
        if back && !self.exits.is_empty() {
            self.draw_exits(&chart, font)?;
        }
        let legend_look = (&label_font, &look.palette);
        frame.legend = match (below, strip) {
            (Some(l), Some(strip)) => Some(paint_below(&strip, &l, &entries, legend_look, front)?),
            _ if entries.is_empty() => None,
            _ => Some(self.legend_inside(&chart, &entries, legend_look, front)?),
        };
        area.present().map_err(draw_err)?;
        Ok(frame)
    }

    /// The chart's coordinates on `area`, with room for the tick labels and titles.
    fn chart<'a, DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        font: u32,
    ) -> Result<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>> {
        let (x0, x1) = (self.tx(self.x.0), self.tx(self.x.1));
        let (y0, y1) = self.y;
        ChartBuilder::on(area)
            .margin(margin(font))
            .x_label_area_size(x_label_area(font))
            .y_label_area_size(y_label_area(font))
            .build_cartesian_2d(x0..x1.max(x0 + 1e-12), y0..y1.max(y0 + 1e-12))
            .map_err(draw_err)
    }

    fn frame<DB: DrawingBackend>(
        &self,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        size: (u32, u32),
        font: u32,
    ) -> Frame {
        let (xs, ys) = chart.plotting_area().get_pixel_range();
        Frame {
            coord: chart.as_coord_spec().clone(),
            x_axis: self.x_axis,
            x_lo: self.x.0,
            y: self.y,
            size,
            font,
            plot: (xs.start, ys.start, xs.end, ys.end),
            legend: None,
            marks: Vec::new(),
        }
    }

    /// Every labelled bar, line and dot set, in drawing order: the legend's entries, the same
    /// in every layer so that both layers lay the legend out alike.
    fn legend_entries(&self) -> Vec<(&str, Swatch)> {
        let bars = self.bars.iter().filter_map(|b| Some((b.label.as_deref()?, Swatch::Dot(b.colour, true))));
        let lines = self.lines.iter().filter_map(|l| Some((l.label.as_deref()?, Swatch::Line(l.colour))));
        let dots =
            self.dots.iter().filter_map(|d| Some((d.label.as_deref()?, Swatch::Dot(d.colour, d.filled))));
        bars.chain(lines).chain(dots).collect()
    }

    /// The legend inside the plotting area where it hides the fewest data points
    /// ([`legend_spot`]), drawn when `paint`; its box in backend pixels.
    fn legend_inside<DB: DrawingBackend>(
        &self,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        entries: &[(&str, Swatch)],
        look: (&TextStyle, &Palette),
        paint: bool,
    ) -> Result<(i32, i32, i32, i32)> {
        let area = chart.plotting_area().strip_coord_spec();
        let layout = legend::inside(&area, entries, look.0)?;
        let (aw, ah) = area.dim_in_pixel();
        let (x, y) = legend_spot(
            self.legend,
            (layout.w, layout.h),
            (aw as i32, ah as i32),
            &self.legend_points(chart),
        );
        if paint {
            legend::paint(&area, &layout, (x, y), entries, look)?;
        }
        let (bx, by) = area.get_base_pixel();
        Ok((bx + x, by + y, bx + x + layout.w, by + y + layout.h))
    }

    /// The marked x positions, dashed across the whole frame: part of the back layer.
    fn draw_vlines<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        font: u32,
    ) -> Result<()> {
        let (y0, y1) = self.y;
        for &(x, colour) in &self.vlines {
            let x = self.tx(x);
            chart
                .draw_series(DashedLineSeries::new(
                    [(x, y0), (x, y1)],
                    Marker::DASH.0,
                    Marker::DASH.1,
                    colour.stroke_width(Marker::line_width(font)),
                ))
                .map_err(draw_err)?;
        }
        Ok(())
    }

    /// The curves and dots of the layers asked for (`(back, front)`); the dots drawn, as
    /// `(x, y, radius)` in backend pixels.
    fn draw_lines_and_dots<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        font: u32,
        (back, front): (bool, bool),
    ) -> Result<Vec<(i32, i32, i32)>> {
        for line in &self.lines {
            if (line.front && front) || (!line.front && back) {
                self.draw_line(chart, line, font)?;
            }
        }
        let mut marks = Vec::new();
        for d in self.dots.iter().filter(|_| back) {
            marks.extend(self.draw_dots(chart, d, font)?);
        }
        Ok(marks)
    }

    /// The mesh: grid, tick labels (as many x labels as fit: plotters then picks a coarser step,
    /// which a phone with large text needs) and axis titles (shortened or shrunk rather than
    /// clipped).
    fn draw_axes<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        area: &DrawingArea<DB, Shift>,
        (font, label_font): (u32, &TextStyle),
        palette: &Palette,
    ) -> Result<()> {
        let (x0, x1) = (self.tx(self.x.0), self.tx(self.x.1));
        let desc_font = ("sans-serif", font + font / 6).into_font().color(&palette.ink);
        let log = self.x_axis == Axis::Log;
        let names = &self.x_names;
        let x_fmt = move |v: &f64| {
            if !names.is_empty() {
                let i = v.round();
                let at = (i >= 0.0 && (v - i).abs() < 1e-6).then(|| names.get(i as usize)).flatten();
                at.cloned().unwrap_or_default()
            } else if log {
                rvalue_model::scales::short(10f64.powf(*v))
            } else {
                rvalue_model::scales::short(*v)
            }
        };
        let y_fmt = |v: &f64| rvalue_model::scales::short(*v);
        let (area_w, area_h) = area.dim_in_pixel();
        // The plotting area's size, less the label areas and margins the chart was built with.
        let width = area_w.saturating_sub(y_label_area(font) + 2 * margin(font));
        let height = area_h.saturating_sub(x_label_area(font) + 2 * margin(font));
        let x_desc = fitted_desc(area, &self.x_desc, &desc_font, width)?;
        let desc_font = fitted_font(area, &self.y_desc, desc_font, height, (font, &palette.ink))?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(x_desc)
            .y_desc(self.y_desc.as_str())
            .label_style(label_font.clone())
            .axis_desc_style(desc_font)
            .light_line_style(palette.grid.0)
            .bold_line_style(palette.grid.1)
            .axis_style(palette.ink)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .y_labels(6);
        if log {
            // One label per decade (the formatter shows 10^v), or every other one.
            let decades = (x1.floor() - x0.ceil()).max(1.0) as usize + 1;
            let labels = (x0.ceil() as i32..=x1.floor() as i32).map(|d| x_fmt(&f64::from(d)));
            mesh.x_labels(decades.min(8).min(labels_that_fit(area, label_font, labels, width)?));
        } else if !names.is_empty() {
            let fit = labels_that_fit(area, label_font, names.iter().cloned(), width)?;
            mesh.x_labels(fit.min(names.len()).max(2));
        } else {
            let labels = round_ticks(x0, x1, 6).map(|v| x_fmt(&v));
            mesh.x_labels(labels_that_fit(area, label_font, labels, width)?.min(6));
        }
        mesh.draw().map_err(draw_err)
    }

    /// The bars (back layer).
    fn draw_bars<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ) -> Result<()> {
        for b in &self.bars {
            let style = b.colour.filled();
            let rects = b.bars.iter().map(|&(l, r, top)| {
                Rectangle::new([(self.tx(l), self.y.0.max(0.0)), (self.tx(r), top)], style)
            });
            chart.draw_series(rects).map_err(draw_err)?;
        }
        Ok(())
    }

    /// The back layer's data points in the plotting area's pixels (what a legend should not hide).
    fn legend_points<DB: DrawingBackend>(
        &self,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ) -> Vec<(i32, i32)> {
        let (bx, by) = chart.plotting_area().get_base_pixel();
        self.lines
            .iter()
            .filter(|l| !l.front)
            .flat_map(|l| l.points.iter().filter_map(|&(x, y)| Some((x, y?))))
            .chain(self.dots.iter().flat_map(|d| d.points.iter().copied()))
            .chain(self.bars.iter().flat_map(|b| b.bars.iter().map(|&(l, r, top)| (0.5 * (l + r), top))))
            .map(|(x, y)| {
                let (px, py) = chart.backend_coord(&(self.tx(x), y));
                (px - bx, py - by)
            })
            .collect()
    }

    /// One set of dots, those in the frame: a zoomed figure cuts off what lies above or below.
    fn draw_dots<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        d: &Dots,
        font: u32,
    ) -> Result<Vec<(i32, i32, i32)>> {
        let style =
            if d.filled { d.colour.mix(d.opacity).filled() } else { d.colour.mix(d.opacity).stroke_width(2) };
        let r = (d.radius * font / 14).max(2);
        let inside: Vec<(f64, f64)> = d
            .points
            .iter()
            .filter(|(_, y)| (self.y.0..=self.y.1).contains(y))
            .map(|&(x, y)| (self.tx(x), y))
            .collect();
        chart.draw_series(inside.iter().map(|&p| Circle::new(p, r, style))).map_err(draw_err)?;
        Ok(inside.iter().map(|p| chart.backend_coord(p)).map(|(x, y)| (x, y, r as i32)).collect())
    }

    /// The [`Figure::exits`]: an arrow pointing up out of the plotting area's top edge at each x.
    fn draw_exits<DB: DrawingBackend>(
        &self,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        font: u32,
    ) -> Result<()> {
        let plot = chart.plotting_area();
        let (bx, by) = plot.get_base_pixel();
        let area = plot.strip_coord_spec();
        let (head, shaft) = ((font / 2).max(4) as i32, font as i32 + 4);
        for &(x, colour) in &self.exits {
            let (px, py) = chart.backend_coord(&(self.tx(x), self.y.1));
            let (px, top) = (px - bx, py - by + 1);
            let style = colour.stroke_width(Marker::line_width(font) + 1);
            let arrow = [
                vec![(px, top + shaft), (px, top)],
                vec![(px - head, top + head), (px, top), (px + head, top + head)],
            ];
            for path in arrow {
                area.draw(&PathElement::new(path, style)).map_err(draw_err)?;
            }
        }
        Ok(())
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
        // Cut where the line leaves the frame: a curve that rises out of a zoomed figure ends on
        // its top edge instead of running over the margins and labels.
        let clipped = segments.iter().flat_map(|s| clip_band(s, self.y));
        for seg in clipped.filter(|s| s.len() > 1) {
            if line.dashed {
                chart.draw_series(DashedLineSeries::new(seg, 8, 5, style)).map_err(draw_err)?;
            } else {
                chart.draw_series(LineSeries::new(seg, style)).map_err(draw_err)?;
            }
        }
        Ok(())
    }
}

/// The parts of the polyline `points` with `lo ≤ y ≤ hi`, each segment cut where it crosses
/// an edge (Liang–Barsky in y alone: x stays within the axis by construction).
pub fn clip_band(points: &[(f64, f64)], (lo, hi): (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    if let [(x, y)] = points {
        if (lo..=hi).contains(y) {
            out.push(vec![(*x, *y)]);
        }
    }
    for w in points.windows(2) {
        let ((xa, ya), (xb, yb)) = (w[0], w[1]);
        let dy = yb - ya;
        let (t0, t1) = if dy == 0.0 {
            if (lo..=hi).contains(&ya) {
                (0.0, 1.0)
            } else {
                (1.0, 0.0)
            }
        } else {
            let (a, b) = ((lo - ya) / dy, (hi - ya) / dy);
            (a.min(b).max(0.0), a.max(b).min(1.0))
        };
        if t0 > t1 {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            continue;
        }
        let at = |t: f64| (xa + t * (xb - xa), ya + t * dy);
        if t0 > 0.0 || current.is_empty() {
            out.extend((!current.is_empty()).then(|| std::mem::take(&mut current)));
            current.push(at(t0));
        }
        current.push(at(t1));
        if t1 < 1.0 {
            out.push(std::mem::take(&mut current));
        }
    }
    out.extend((!current.is_empty()).then_some(current));
    out
}

/// A figure's margin and the room below (tick labels and title) and left of the plot, in
/// backend pixels for tick labels of `font` pixels.
/// The plotting area's size in pixels on `area`: less the margins and the axes' label areas, as
/// [`Figure::chart`] lays it out.
fn plot_size<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, font: u32) -> (f64, f64) {
    let (w, h) = area.dim_in_pixel();
    let m = 2 * margin(font);
    (f64::from(w.saturating_sub(m + y_label_area(font))), f64::from(h.saturating_sub(m + x_label_area(font))))
}

fn margin(font: u32) -> u32 {
    font / 2 + 4
}

fn x_label_area(font: u32) -> u32 {
    font * 3
}

fn y_label_area(font: u32) -> u32 {
    font * 4
}

/// How many evenly spaced labels as wide as the widest of `labels` fit in `width` pixels with
/// at least half that width between neighbours; at least 2.
fn labels_that_fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    font: &TextStyle,
    labels: impl Iterator<Item = String>,
    width: u32,
) -> Result<usize> {
    let mut widest = 1;
    for label in labels {
        widest = widest.max(area.estimate_text_size(&label, font).map_err(draw_err)?.0);
    }
    Ok((width as usize * 2 / (widest as usize * 3)).max(1) + 1)
}

/// Up to about `count` round values in `lo..=hi` (steps of 1, 2 or 5 times a power of ten), as
/// plotters picks its tick labels: what to measure before asking for them.
fn round_ticks(lo: f64, hi: f64, count: usize) -> impl Iterator<Item = f64> {
    let raw = (hi - lo) / count.saturating_sub(1).max(1) as f64;
    let decade = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * decade).find(|s| *s >= raw).unwrap_or(raw);
    let (first, last) = ((lo / step).ceil(), (hi / step).floor());
    let n = if step > 0.0 && last >= first { (last - first) as usize + 1 } else { 0 };
    (0..n.min(count + 1)).map(move |i| (first + i as f64) * step)
}

/// `style` made smaller, down to `floor` pixels, so that `desc` fits in `length` pixels: a short
/// figure (a phone with large text) would otherwise clip its vertical axis title.
fn fitted_font<'a, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    desc: &str,
    style: TextStyle<'a>,
    length: u32,
    (floor, ink): (u32, &RGBColor),
) -> Result<TextStyle<'a>> {
    let (w, _) = area.estimate_text_size(desc, &style).map_err(draw_err)?;
    if w <= length || w == 0 {
        return Ok(style);
    }
    let size = (style.font.get_size() * f64::from(length) / f64::from(w)).floor().max(f64::from(floor));
    Ok(("sans-serif", size).into_font().color(ink))
}

/// The axis description without its parenthesised tail (" (log scale)") when it would not fit
/// in `width` pixels: clipped text reads worse than a shorter one.
fn fitted_desc<'a, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    desc: &'a str,
    font: &TextStyle,
    width: u32,
) -> Result<&'a str> {
    let fits = |s: &str| area.estimate_text_size(s, font).map(|(w, _)| w <= width).map_err(draw_err);
    match desc.find(" (") {
        Some(cut) if !fits(desc)? => Ok(&desc[..cut]),
        _ => Ok(desc),
    }
}

/// The legend in the strip `strip` under a narrow figure's plot, drawn when `paint`; its box
/// in backend pixels.
fn paint_below<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    layout: &legend::Layout,
    entries: &[(&str, Swatch)],
    look: (&TextStyle, &Palette),
    paint: bool,
) -> Result<(i32, i32, i32, i32)> {
    if paint {
        legend::paint(strip, layout, (0, 0), entries, look)?;
    }
    let (bx, by) = strip.get_base_pixel();
    Ok((bx, by, bx + layout.w, by + layout.h))
}
