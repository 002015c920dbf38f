//! A figure's room in backend pixels: the margin, the areas left of and under the plot for tick
//! labels and titles, and how many tick labels fit, all for tick labels of `font` pixels. The
//! page measures text; these turn the measures into sizes and counts.

/// The margin around the chart.
pub fn margin(font: u32) -> u32 {
    font / 2 + 4
}

/// The room under the plot: tick labels and the x title.
pub fn x_label_area(font: u32) -> u32 {
    font * 3
}

/// The room left of the plot: tick labels and the y title.
pub fn y_label_area(font: u32) -> u32 {
    font * 4
}

/// The plotting area's size in pixels in a figure of `(w, h)` pixels: less the margins and the
/// axes' label areas.
pub fn plot_size((w, h): (u32, u32), font: u32) -> (f64, f64) {
    let m = 2 * margin(font);
    (f64::from(w.saturating_sub(m + y_label_area(font))), f64::from(h.saturating_sub(m + x_label_area(font))))
}

/// How many evenly spaced labels as wide as the widest (`widest` pixels) fit in `width` pixels
/// with at least half that width between neighbours; at least 2.
pub fn labels_that_fit(widest: u32, width: u32) -> usize {
    (width as usize * 2 / (widest.max(1) as usize * 3)).max(1) + 1
}

/// Up to about `count` round values in `lo..=hi` (steps of 1, 2 or 5 times a power of ten), as
/// plotters picks its tick labels: what to measure before asking for them.
pub fn round_ticks(lo: f64, hi: f64, count: usize) -> impl Iterator<Item = f64> {
    let raw = (hi - lo) / count.saturating_sub(1).max(1) as f64;
    let decade = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * decade).find(|s| *s >= raw).unwrap_or(raw);
    let (first, last) = ((lo / step).ceil(), (hi / step).floor());
    let n = if step > 0.0 && last >= first { (last - first) as usize + 1 } else { 0 };
    (0..n.min(count + 1)).map(move |i| (first + i as f64) * step)
}

/// The decades `10^d` a log axis over drawing coordinates `x0..=x1` labels, and how many labels
/// it asks for at most (one per decade, up to 8).
pub fn decades(x0: f64, x1: f64) -> (std::ops::RangeInclusive<i32>, usize) {
    let count = (x1.floor() - x0.ceil()).max(1.0) as usize + 1;
    (x0.ceil() as i32..=x1.floor() as i32, count.min(8))
}

/// The font size, down to `floor` pixels, at which a title measured `w` pixels wide at `size`
/// fits in `length` pixels; `None` when it fits as it is. A short figure (a phone with large
/// text) would otherwise clip its vertical axis title.
pub fn fitted_size(size: f64, w: u32, length: u32, floor: u32) -> Option<f64> {
    if w <= length || w == 0 {
        return None;
    }
    Some((size * f64::from(length) / f64::from(w)).floor().max(f64::from(floor)))
}

/// The axis title without its parenthesised tail (" (log scale)"), if it has one: what is drawn
/// when the whole would not fit, as clipped text reads worse than a shorter one.
pub fn shortened_desc(desc: &str) -> Option<&str> {
    desc.find(" (").map(|cut| &desc[..cut])
}

/// The least pixel ratio figures are printed at (about 190 dpi on paper).
pub const PRINT_PIXEL_RATIO: f64 = 2.0;

/// The pixel ratio the canvases are drawn at, from the screen's: held within 1–3 (beyond 3 the
/// backing stores grow for nothing the eye sees), and at least [`PRINT_PIXEL_RATIO`] in print.
pub fn pixel_ratio(screen: f64, printing: bool) -> f64 {
    let screen = screen.clamp(1.0, 3.0);
    if printing {
        screen.max(PRINT_PIXEL_RATIO)
    } else {
        screen
    }
}

/// A canvas' backing-store size for a box of `css` pixels at pixel ratio `ratio`, or `None` for
/// a box with no area (a hidden canvas is drawn when it is shown).
pub fn backing_size((w, h): (i32, i32), ratio: f64) -> Option<(u32, u32)> {
    (w > 0 && h > 0).then(|| ((f64::from(w) * ratio).round() as u32, (f64::from(h) * ratio).round() as u32))
}
