//! A figure's legend on a plotters backend: its labels measured by the backend (the page's
//! canvas answers with `measureText`), not by plotters' font layer, which on the web measures a
//! span appended to the page (a forced layout per label), then laid out by the model
//! ([`rvalue_model::figure::legend`]) and painted here.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::draw_err;
use crate::look::{rgb, Palette};
use rvalue_core::Result;
use rvalue_model::figure::legend::{self as model, Layout, Swatch, MARGIN, SWATCH};

fn measure<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Vec<(u32, u32)>> {
    entries.iter().map(|(label, _)| area.estimate_text_size(label, font).map_err(draw_err)).collect()
}

/// The legend's box inside the plotting area `area` ([`model::inside`]).
pub fn inside<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Layout> {
    let ah = f64::from(area.dim_in_pixel().1);
    Ok(model::inside(measure(area, entries, font)?, font.font.get_size(), ah))
}

/// Whether the legend inside a plotting area of `plot` pixels would bury it ([`model::crowds`]);
/// `area` measures the text.
pub fn crowds<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
    plot: (f64, f64),
) -> Result<bool> {
    let layout = model::inside(measure(area, entries, font)?, font.font.get_size(), plot.1);
    Ok(model::crowds(&layout, plot))
}

/// The legend in rows across the full width of `area` (the figure, [`model::below`]).
pub fn below<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Layout> {
    let width = area.dim_in_pixel().0 as i32;
    Ok(model::below(measure(area, entries, font)?, font.font.get_size(), width))
}

/// Draws the legend laid out as `layout` with its box's corner at `(x, y)` in `area`.
pub fn paint<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    (x, y): (i32, i32),
    entries: &[(&str, Swatch)],
    (font, palette): (&TextStyle, &Palette),
) -> Result<()> {
    let corner = [(x, y), (x + layout.w, y + layout.h)];
    area.draw(&Rectangle::new(corner, palette.legend.mix(0.85).filled())).map_err(draw_err)?;
    area.draw(&Rectangle::new(corner, palette.edge)).map_err(draw_err)?;
    for ((&(label, ref swatch), &(_, th)), &(left, top)) in
        entries.iter().zip(&layout.sizes).zip(&layout.cells)
    {
        let (tx, ty) = (x + left + MARGIN + SWATCH, y + MARGIN + top);
        area.draw(&Text::new(label, (tx, ty), font.clone())).map_err(draw_err)?;
        let (sx, sy) = (x + left + MARGIN, ty + th as i32 / 2);
        match *swatch {
            Swatch::Line(c) => area
                .draw(&PathElement::new(vec![(sx, sy), (sx + 20, sy)], rgb(c).stroke_width(3)))
                .map_err(draw_err)?,
            Swatch::Dot(c, true) => {
                area.draw(&Circle::new((sx + 10, sy), 4, rgb(c).filled())).map_err(draw_err)?
            }
            Swatch::Dot(c, false) => {
                area.draw(&Circle::new((sx + 10, sy), 4, rgb(c).stroke_width(2))).map_err(draw_err)?
            }
        }
    }
    Ok(())
}
