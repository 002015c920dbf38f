//! The figure's data: marked x positions, bars, curves, dots and the arrows where a curve
//! leaves the plot's top, each drawn in the layer it belongs to.

use plotters::prelude::*;

use super::{Chart, Plot};
use crate::draw_err;
use crate::look::rgb;
use rvalue_core::Result;
use rvalue_model::figure::{Dots, Line, Marker};

impl Plot<'_> {
    /// The marked x positions, dashed across the whole frame: part of the back layer.
    pub(super) fn draw_vlines<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, font: u32) -> Result<()> {
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
    pub(super) fn draw_lines_and_dots<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
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

    /// The bars (back layer).
    pub(super) fn draw_bars<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>) -> Result<()> {
        for b in &self.bars {
            let style = rgb(b.colour).filled();
            let rects = b.bars.iter().map(|&(l, r, top)| {
                Rectangle::new([(self.tx(l), self.y.0.max(0.0)), (self.tx(r), top)], style)
            });
            chart.draw_series(rects).map_err(draw_err)?;
        }
        Ok(())
    }

    /// One set of dots, those in the frame: a zoomed figure cuts off what lies above or below.
    fn draw_dots<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
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

    /// The [`Figure::exits`](rvalue_model::figure::Figure::exits): an arrow pointing up out of
    /// the plotting area's top edge at each x. Inlined into its one caller: a smaller page.
    #[inline(always)]
    pub(super) fn draw_exits<DB: DrawingBackend>(&self, chart: &Chart<'_, DB>, font: u32) -> Result<()> {
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

    /// One curve, in its stretches inside the frame ([`Line::segments`]).
    fn draw_line<DB: DrawingBackend>(&self, chart: &mut Chart<'_, DB>, line: &Line, font: u32) -> Result<()> {
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
