//! [`Draw::draw`]: a model figure on any plotters backend, whole or in layers. The steps that
//! draw axes and series are in `draw/`; here the figure is laid out: where the legend goes (the
//! model decides from the backend's measures), the chart's coordinates, and the frame returned.

mod axes;
mod series;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::draw_err;
use crate::frame::{Frame, Layer};
use crate::legend;
use crate::look::{Look, Palette};
use rvalue_core::Result;
use rvalue_model::figure::layout::{self, margin, x_label_area, y_label_area};
use rvalue_model::figure::legend::{Layout, Swatch};
use rvalue_model::figure::{legend_spot, Figure};

/// A chart on a backend, in the figure's drawing coordinates.
type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

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
        let below = self.legend_below(area, look, &entries, &label_font)?;
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

    /// The legend's layout in a strip under the plot, if it goes there: asked for by `look` (a
    /// narrow page), or because inside the plot it would bury it ([`legend::crowds`]).
    fn legend_below<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        look: &Look,
        entries: &[(&str, Swatch)],
        label_font: &TextStyle,
    ) -> Result<Option<Layout>> {
        let below_plot = !entries.is_empty()
            && (look.legend_below
                || legend::crowds(
                    area,
                    entries,
                    label_font,
                    layout::plot_size(area.dim_in_pixel(), look.font),
                )?);
        match below_plot {
            true => Ok(Some(legend::below(area, entries, label_font)?)),
            false => Ok(None),
        }
    }

    /// The chart's coordinates on `area`, with room for the tick labels and titles.
    fn chart<'a, DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        font: u32,
    ) -> Result<Chart<'a, DB>> {
        let (x0, x1) = (self.tx(self.x.0), self.tx(self.x.1));
        let (y0, y1) = self.y;
        ChartBuilder::on(area)
            .margin(margin(font))
            .x_label_area_size(x_label_area(font))
            .y_label_area_size(y_label_area(font))
            .build_cartesian_2d(x0..x1.max(x0 + 1e-12), y0..y1.max(y0 + 1e-12))
            .map_err(draw_err)
    }

    fn frame<DB: DrawingBackend>(&self, chart: &Chart<'_, DB>, size: (u32, u32), font: u32) -> Frame {
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
    /// ([`legend_spot`]), drawn when `paint`; its box in backend pixels. Inlined into its one
    /// caller: a smaller page.
    #[inline(always)]
    fn legend_inside<DB: DrawingBackend>(
        &self,
        chart: &Chart<'_, DB>,
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

    /// The back layer's data points ([`Figure::legend_points`]) in the plotting area's pixels.
    fn legend_pixels<DB: DrawingBackend>(&self, chart: &Chart<'_, DB>) -> Vec<(i32, i32)> {
        let (bx, by) = chart.plotting_area().get_base_pixel();
        let pixel = |&(x, y): &(f64, f64)| {
            let (px, py) = chart.backend_coord(&(self.tx(x), y));
            (px - bx, py - by)
        };
        self.legend_points().iter().map(pixel).collect()
    }
}

/// The legend in the strip `strip` under a narrow figure's plot, drawn when `paint`; its box
/// in backend pixels.
fn paint_below<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    layout: &Layout,
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
