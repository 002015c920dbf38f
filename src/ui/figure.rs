//! One way to draw every line figure of the page with plotters: a model
//! [`Figure`](rvalue_model::figure::Figure) says what to draw; [`Draw::draw`] draws it on any
//! plotters backend, so the canvas on the page and a vector export share the code. Every choice
//! (ranges, ticks, clipping, where the legend goes) is the model's; this module measures text,
//! asks the model, and draws.
//!
//! The legend is laid out by the model and painted by [`super::legend`] rather than by plotters
//! (whose font layer measures text by a forced layout of the page). A [`Look`] gives the colours
//! (the page's theme) and whether the legend goes under the plot.
//!
//! [`Draw::draw`] returns the figure's [`Frame`] (data to pixel mapping), so that a [`Marker`]
//! can be drawn on a transparent canvas stacked over the figure without drawing the figure again.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::legend;
use super::theme::{rgb, Palette};
use rvalue_core::{Error, Result};
use rvalue_model::figure::layout::{self, margin, x_label_area, y_label_area};
use rvalue_model::figure::legend::Swatch;
pub use rvalue_model::figure::{
    clip_band, legend_spot, method_colour, method_slot, y_range, Axis, Bars, Dots, Figure, Legend, Line,
    Marker, BLUE, GREEN, GREY, INK, METHOD_COLOURS, ORANGE, PURPLE, SKY, VERMILLION,
};

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

/// Drawing a figure with plotters.
pub trait Draw {
    /// Draws the figure filling `area`.
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, look: &Look) -> Result<Frame>;

    /// Draws one layer of the figure filling `area` (see [`Layer`]); the front layer draws on
    /// whatever `area` holds (clear it first).
    fn draw_layer<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        look: &Look,
        layer: Layer,
    ) -> Result<Frame>;
}

impl Draw for Figure {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, look: &Look) -> Result<Frame> {
        self.draw_layer(area, look, Layer::Whole)
    }

    fn draw_layer<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        look: &Look,
        layer: Layer,
    ) -> Result<Frame> {
        let tuple = |c: RGBColor| (c.0, c.1, c.2);
        match self.recoloured(tuple(look.palette.ink), tuple(look.palette.grey)) {
            Some(fig) => Plot(&fig).draw_in(area, look, layer),
            None => Plot(self).draw_in(area, look, layer),
        }
    }
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::invalid(format!("drawing failed: {e}"))
}

/// A figure being drawn: the drawing steps, each reading the figure.
struct Plot<'a>(&'a Figure);

impl std::ops::Deref for Plot<'_> {
    type Target = Figure;

    fn deref(&self) -> &Figure {
        self.0
    }
}

impl Plot<'_> {
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
            && (look.legend_below
                || legend::crowds(
                    area,
                    &entries,
                    &label_font,
                    layout::plot_size(area.dim_in_pixel(), font),
                )?);
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
            &self.legend_pixels(chart),
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
                    rgb(colour).stroke_width(Marker::line_width(font)),
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
        let x_fmt = |v: &f64| self.x_tick_label(*v);
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
            let (decades, most) = layout::decades(x0, x1);
            let labels = decades.map(|d| x_fmt(&f64::from(d)));
            mesh.x_labels(most.min(labels_that_fit(area, label_font, labels, width)?));
        } else if !names.is_empty() {
            let fit = labels_that_fit(area, label_font, names.iter().cloned(), width)?;
            mesh.x_labels(fit.min(names.len()).max(2));
        } else {
            let labels = layout::round_ticks(x0, x1, 6).map(|v| x_fmt(&v));
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
            let style = rgb(b.colour).filled();
            let rects = b.bars.iter().map(|&(l, r, top)| {
                Rectangle::new([(self.tx(l), self.y.0.max(0.0)), (self.tx(r), top)], style)
            });
            chart.draw_series(rects).map_err(draw_err)?;
        }
        Ok(())
    }

    /// The back layer's data points ([`Figure::legend_points`]) in the plotting area's pixels.
    fn legend_pixels<DB: DrawingBackend>(
        &self,
        chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ) -> Vec<(i32, i32)> {
        let (bx, by) = chart.plotting_area().get_base_pixel();
        let pixel = |&(x, y): &(f64, f64)| {
            let (px, py) = chart.backend_coord(&(self.tx(x), y));
            (px - bx, py - by)
        };
        self.legend_points().iter().map(pixel).collect()
    }

    /// One set of dots, those in the frame: a zoomed figure cuts off what lies above or below.
    fn draw_dots<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        d: &Dots,
        font: u32,
    ) -> Result<Vec<(i32, i32, i32)>> {
        let colour = rgb(d.colour).mix(d.opacity);
        let style = if d.filled { colour.filled() } else { colour.stroke_width(2) };
        let r = d.drawn_radius(font);
        let inside = self.dots_inside(d);
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
            let style = rgb(colour).stroke_width(Marker::line_width(font) + 1);
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
        let style = rgb(line.colour).mix(line.opacity).stroke_width(width);
        for seg in line.segments(self.y, |x| self.tx(x)) {
            if line.dashed {
                chart.draw_series(DashedLineSeries::new(seg, 8, 5, style)).map_err(draw_err)?;
            } else {
                chart.draw_series(LineSeries::new(seg, style)).map_err(draw_err)?;
            }
        }
        Ok(())
    }
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
    Ok(match layout::fitted_size(style.font.get_size(), w, length, floor) {
        Some(size) => ("sans-serif", size).into_font().color(ink),
        None => style,
    })
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
    match layout::shortened_desc(desc) {
        Some(short) if !fits(desc)? => Ok(short),
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

/// How many labels as wide as the widest of `labels` fit in `width` pixels
/// ([`layout::labels_that_fit`]), the labels measured on `area`.
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
    Ok(layout::labels_that_fit(widest, width))
}
