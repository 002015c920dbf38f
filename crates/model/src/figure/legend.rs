//! Where a figure's legend goes: its entries, its layout (a box inside the plotting area, or
//! rows in a strip under it) from its labels' measured sizes, whether a box inside would bury
//! the plot, and which corner or side hides the fewest data points. The page measures the text
//! and paints the box; these decide.
//!
//! On a page below [`NARROW_CSS_PX`] wide a legend inside the plot covers a large share of it
//! (its text does not shrink with the canvas), so there the figure gives up a strip under the
//! plot and the legend flows across it in rows ([`below`]).

use super::Figure;
use crate::theme::Rgb;

/// On a page (an iframe's, in an embed) narrower than this many CSS pixels, figures have their
/// legend under the plot. The page's width, not the figure's: a desktop's two columns of
/// figures keep their legends inside.
pub const NARROW_CSS_PX: f64 = 500.0;

/// Inside the legend's box, around its entries.
pub const MARGIN: i32 = 10;
/// An entry's swatch and the gap after it.
pub const SWATCH: i32 = 30;

/// What a legend entry shows beside its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    Line(Rgb),
    /// A dot as the plot draws it: filled, or a ring.
    Dot(Rgb, bool),
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
    pub fn origin(self, (w, h): (i32, i32), (aw, ah): (i32, i32)) -> (i32, i32) {
        let x = match self {
            Legend::UpperLeft | Legend::LowerLeft | Legend::MiddleLeft => 5,
            Legend::UpperRight | Legend::LowerRight | Legend::MiddleRight => aw - w - 5,
        };
        let y = match self {
            Legend::UpperLeft | Legend::UpperRight => 5,
            Legend::LowerLeft | Legend::LowerRight => ah - h - 5,
            Legend::MiddleLeft | Legend::MiddleRight => (ah - h) / 2,
        };
        // A legend too large for the margins keeps inside the area, flush with an edge.
        (x.min(aw - w).max(0), y.min(ah - h).max(0))
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

impl Figure {
    /// Every labelled bar, line and dot set, in drawing order: the legend's entries, the same
    /// in every layer so that both layers lay the legend out alike.
    pub fn legend_entries(&self) -> Vec<(&str, Swatch)> {
        let bars = self.bars.iter().filter_map(|b| Some((b.label.as_deref()?, Swatch::Dot(b.colour, true))));
        let lines = self.lines.iter().filter_map(|l| Some((l.label.as_deref()?, Swatch::Line(l.colour))));
        let dots =
            self.dots.iter().filter_map(|d| Some((d.label.as_deref()?, Swatch::Dot(d.colour, d.filled))));
        bars.chain(lines).chain(dots).collect()
    }

    /// The back layer's data points in data coordinates (what a legend should not hide): the
    /// lines not in front, the dots, the bars' tops.
    pub fn legend_points(&self) -> Vec<(f64, f64)> {
        self.lines
            .iter()
            .filter(|l| !l.front)
            .flat_map(|l| l.points.iter().filter_map(|&(x, y)| Some((x, y?))))
            .chain(self.dots.iter().flat_map(|d| d.points.iter().copied()))
            .chain(self.bars.iter().flat_map(|b| b.bars.iter().map(|&(l, r, top)| (0.5 * (l + r), top))))
            .collect()
    }
}

/// A legend laid out: its size and each entry's cell `(left, top)` from the box's corner, with
/// each label's measured size.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub w: i32,
    pub h: i32,
    pub cells: Vec<(i32, i32)>,
    pub sizes: Vec<(u32, u32)>,
}

/// A box inside a plotting area of height `ah` for labels of `sizes` pixels in a font of `font`
/// pixels, laid out as plotters lays out its series labels (10 px inside the box, 30 px for the
/// swatch, lines 1.25 font sizes apart); many entries in a short plot (six methods in large
/// text) go in two columns.
pub fn inside(sizes: Vec<(u32, u32)>, font: f64, ah: f64) -> Layout {
    let n = sizes.len();
    let line = font * 1.25;
    let one_column_h = n as f64 * line + 2.0 * f64::from(MARGIN);
    let rows = if n > 4 && one_column_h > 0.5 * ah { n.div_ceil(2) } else { n }.max(1);
    let text_w = sizes.iter().map(|s| s.0 as i32).max().unwrap_or(0);
    let column_w = text_w + SWATCH + MARGIN;
    let cells: Vec<(i32, i32)> =
        (0..n).map(|i| ((i / rows) as i32 * column_w, ((i % rows) as f64 * line).round() as i32)).collect();
    let last_h = sizes.last().map_or(0, |s| s.1 as i32);
    let columns = n.div_ceil(rows) as i32;
    let h = cells.iter().map(|c| c.1).max().unwrap_or(0) + last_h + 2 * MARGIN;
    let w = columns * column_w - MARGIN + 2 * MARGIN;
    Layout { w, h, cells, sizes }
}

/// Whether `layout`, laid out [`inside`] a plotting area of `plot` pixels (width, height), would
/// bury it: wider than it and over half its height, or taller than most of it (large text in a
/// narrow, short panel). Such a legend goes [`below`] the plot, as on a narrow page.
pub fn crowds(layout: &Layout, plot: (f64, f64)) -> bool {
    let (w, h) = (f64::from(layout.w), f64::from(layout.h));
    (w > plot.0 && h > 0.5 * plot.1) || h > 0.8 * plot.1
}

/// Rows across a figure `width` pixels wide, each entry after the last until the row is full:
/// what goes in the strip under a narrow figure's plot.
pub fn below(sizes: Vec<(u32, u32)>, font: f64, width: i32) -> Layout {
    let line = (font * 1.35).round() as i32;
    let width = width - 2 * MARGIN;
    let (mut x, mut y) = (0, 0);
    let mut cells = Vec::with_capacity(sizes.len());
    for s in &sizes {
        let w = SWATCH + s.0 as i32 + 2 * MARGIN;
        if x > 0 && x + w > width {
            (x, y) = (0, y + line);
        }
        cells.push((x, y));
        x += w;
    }
    let h = y + sizes.iter().map(|s| s.1 as i32).max().unwrap_or(0) + 2 * MARGIN;
    Layout { w: width + 2 * MARGIN, h, cells, sizes }
}
