//! The mesh: grid, tick labels and axis titles, fitted to the room there is. As many x labels
//! as fit are asked for (plotters then picks a coarser step, which a phone with large text
//! needs); a title too long loses its parenthesised tail or shrinks rather than being clipped.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Chart, Plot};
use crate::draw_err;
use crate::look::Palette;
use rvalue_core::Result;
use rvalue_model::figure::layout::{self, margin, x_label_area, y_label_area};
use rvalue_model::figure::Axis;

impl Plot<'_> {
    /// The mesh of the chart built on `area` (the back layer's).
    pub(super) fn draw_axes<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
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
