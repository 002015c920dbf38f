//! A figure's legend: its layout (a box inside the plotting area, or rows under it on a
//! narrow figure) and its drawing. The text is measured by the backend (the page's canvas
//! answers with `measureText`), not by plotters' font layer, which on the web measures a span
//! appended to the page (a forced layout per label).
//!
//! On a page below about 500 CSS pixels wide a legend inside the plot covers a large share of it (its text
//! does not shrink with the canvas), so there the figure gives up a strip under the plot and
//! the legend flows across it in rows ([`below`]).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::theme::Palette;
use rvalue_core::{Error, Result};

/// On a page (an iframe's, in an embed) narrower than this many CSS pixels, figures have their
/// legend under the plot. The page's width, not the figure's: a desktop's two columns of
/// figures keep their legends inside.
pub const NARROW_CSS_PX: f64 = 500.0;

const MARGIN: i32 = 10;
const SWATCH: i32 = 30;

/// What a legend entry shows beside its label.
pub enum Swatch {
    Line(RGBColor),
    /// A dot as the plot draws it: filled, or a ring.
    Dot(RGBColor, bool),
}

/// A legend laid out: its size and each entry's cell `(left, top)` from the box's corner.
pub struct Layout {
    pub w: i32,
    pub h: i32,
    cells: Vec<(i32, i32)>,
    sizes: Vec<(u32, u32)>,
}

fn draw_err<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Error {
    Error::invalid(format!("drawing the legend failed: {e}"))
}

fn measure<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Vec<(u32, u32)>> {
    entries.iter().map(|(label, _)| area.estimate_text_size(label, font).map_err(draw_err)).collect()
}

/// A box inside a plotting area `area` of height `ah`, laid out as plotters lays out its series
/// labels (10 px inside the box, 30 px for the swatch, lines 1.25 font sizes apart); many
/// entries in a short plot (six methods in large text) go in two columns.
pub fn inside<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Layout> {
    inside_of_height(area, entries, font, f64::from(area.dim_in_pixel().1))
}

/// [`inside`] a plotting area of height `ah`, the text measured on `area`.
fn inside_of_height<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
    ah: f64,
) -> Result<Layout> {
    let sizes = measure(area, entries, font)?;
    let line = font.font.get_size() * 1.25;
    let one_column_h = entries.len() as f64 * line + 2.0 * f64::from(MARGIN);
    let rows =
        if entries.len() > 4 && one_column_h > 0.5 * ah { entries.len().div_ceil(2) } else { entries.len() }
            .max(1);
    let text_w = sizes.iter().map(|s| s.0 as i32).max().unwrap_or(0);
    let column_w = text_w + SWATCH + MARGIN;
    let cells: Vec<(i32, i32)> = (0..entries.len())
        .map(|i| ((i / rows) as i32 * column_w, ((i % rows) as f64 * line).round() as i32))
        .collect();
    let last_h = sizes.last().map_or(0, |s| s.1 as i32);
    let columns = entries.len().div_ceil(rows) as i32;
    let h = cells.iter().map(|c| c.1).max().unwrap_or(0) + last_h + 2 * MARGIN;
    let w = columns * column_w - MARGIN + 2 * MARGIN;
    Ok(Layout { w, h, cells, sizes })
}

/// Whether a legend laid out [`inside`] a plotting area of `plot` pixels (width, height) would
/// bury it: wider than it and over half its height, or taller than most of it (large text in a
/// narrow, short panel). Such a legend goes [`below`] the plot, as on a narrow page. `area`
/// measures the text.
pub fn crowds<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
    plot: (f64, f64),
) -> Result<bool> {
    let layout = inside_of_height(area, entries, font, plot.1)?;
    let (w, h) = (f64::from(layout.w), f64::from(layout.h));
    Ok((w > plot.0 && h > 0.5 * plot.1) || h > 0.8 * plot.1)
}

/// Rows across the full width of `area` (the figure), each entry after the last until the row
/// is full: what goes in the strip under a narrow figure's plot.
pub fn below<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(&str, Swatch)],
    font: &TextStyle,
) -> Result<Layout> {
    let sizes = measure(area, entries, font)?;
    let line = (font.font.get_size() * 1.35).round() as i32;
    let width = area.dim_in_pixel().0 as i32 - 2 * MARGIN;
    let (mut x, mut y) = (0, 0);
    let mut cells = Vec::with_capacity(entries.len());
    for s in &sizes {
        let w = SWATCH + s.0 as i32 + 2 * MARGIN;
        if x > 0 && x + w > width {
            (x, y) = (0, y + line);
        }
        cells.push((x, y));
        x += w;
    }
    let h = y + sizes.iter().map(|s| s.1 as i32).max().unwrap_or(0) + 2 * MARGIN;
    Ok(Layout { w: width + 2 * MARGIN, h, cells, sizes })
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
                .draw(&PathElement::new(vec![(sx, sy), (sx + 20, sy)], c.stroke_width(3)))
                .map_err(draw_err)?,
            Swatch::Dot(c, true) => {
                area.draw(&Circle::new((sx + 10, sy), 4, c.filled())).map_err(draw_err)?
            }
            Swatch::Dot(c, false) => {
                area.draw(&Circle::new((sx + 10, sy), 4, c.stroke_width(2))).map_err(draw_err)?
            }
        }
    }
    Ok(())
}
