//! Panel 2: the threshold curves, the data's candidates and the slider's σ², in a frame that
//! zooms on the dip Proposition 1 is about unless the whole curve is asked for, and the note on
//! what that frame cuts off.

use super::{y_range, Axis, Dots, Figure, Legend, Line};
use super::{BLUE, GREEN, GREY, INK, PURPLE, SKY, VERMILLION};
use crate::curves::SIGMA2_AXIS_LO;
use crate::scales::short;
use crate::{DataPoint, FittedThreshold, ThresholdCurves, ThresholdSeries};

/// Panel 2: threshold curves, their `s*` and `s0`, the slider's σ², the data's candidates.
/// `whole`: the y axis holds the whole curve; else it fits the region [`threshold_y`] picks,
/// and arrows on the top edge mark where the curve and the marked σ² leave it.
/// `fitted`: in the toy, the current β's threshold under the prior fitted to the data (what
/// the r-values use), dashed beside the true prior's curves.
pub fn threshold(
    c: &ThresholdCurves,
    points: &[DataPoint],
    (sigma2, whole): (f64, bool),
    fitted: Option<&FittedThreshold>,
) -> Figure {
    let main = c.series.first();
    let y = threshold_y(c, points, whole);
    let mut f = Figure::new(
        "σ² (log scale)",
        "score threshold",
        (SIGMA2_AXIS_LO, c.sigma2.last().copied().unwrap_or(5000.0)),
        y,
    );
    f.x_axis = Axis::Log;
    f.legend = Legend::UpperLeft;
    let (truth, other): (Vec<_>, Vec<_>) = points.iter().partition(|p| p.is_true);
    let dots = |label: &str, colour, pts: Vec<&DataPoint>, filled| Dots {
        label: Some(label.to_string()),
        colour,
        radius: 3,
        filled,
        opacity: 0.45,
        points: pts.iter().map(|p| (p.sigma2, p.score)).collect(),
    };
    if !other.is_empty() {
        f.dots.push(dots("false candidates", VERMILLION, other, false));
    }
    if !truth.is_empty() {
        f.dots.push(dots("true candidates", BLUE, truth, true));
    }
    // One legend entry for the faint curves of the other β, listing them.
    let others: Vec<String> = c.series.iter().skip(1).map(|s| short(s.beta)).collect();
    for (i, s) in c.series.iter().skip(1).enumerate() {
        let label = format!("t* at β = {}", others.join(", "));
        let line = Line::new(label, GREY, &c.sigma2, &s.t).faint();
        f.lines.push(if i == 0 { line } else { Line { label: None, ..line } });
    }
    if let Some(fit) = fitted {
        // Named in the panel's note rather than the legend, which already fills the plot's width.
        f.lines.push(Line { label: None, ..Line::new("", SKY, &c.sigma2, &fit.t).dashed() });
    }
    if let Some(s) = main {
        main_curve(&mut f, c, s, sigma2, y.1);
    }
    f.vlines.push((sigma2.max(SIGMA2_AXIS_LO), GREEN));
    f
}

/// The current β's curve with its marks, drawn over the other curves and the data: `s*` and
/// `s0`, where it leaves a frame topped at `y_top`, and the slider's σ² on it.
fn main_curve(f: &mut Figure, c: &ThresholdCurves, s: &ThresholdSeries, sigma2: f64, y_top: f64) {
    f.lines.push(Line::new(format!("t*(σ²), β = {}", short(s.beta)), INK, &c.sigma2, &s.t));
    let mut marks = Vec::new();
    marks.extend(s.s_star.map(|m| (m.sigma2, m.t)));
    marks.extend(s.s0.map(|m| (m.sigma2, m.t)));
    if !marks.is_empty() {
        f.dots.push(Dots {
            label: Some("s* (lowest), s0".to_string()),
            colour: PURPLE,
            radius: 6,
            filled: true,
            opacity: 1.0,
            points: marks,
        });
    }
    if let Some(x) = exit_sigma2(&c.sigma2, &s.t, y_top) {
        f.exits.push((x, INK));
    }
    if let Some(m) = s.slider {
        let above = m.t > y_top;
        if above {
            f.exits.push((m.sigma2.max(SIGMA2_AXIS_LO), GREEN));
        }
        f.dots.push(Dots {
            label: Some(if above {
                format!("σ² = {} (t* = {}, above)", short(sigma2), short(m.t))
            } else {
                format!("σ² = {}", short(sigma2))
            }),
            colour: GREEN,
            radius: 7,
            filled: true,
            opacity: 1.0,
            points: vec![(m.sigma2, m.t)],
        });
    }
}

/// How far above the dip's depth panel 2's y axis may reach before the dip would look flat
/// again: the candidates' σ² range is fitted only while the frame is at most this many depths tall.
const DIP_DEPTHS: f64 = 8.0;

/// Panel 2's y range. Whole: the current β's curve over every σ² (the faint curves for other β
/// may leave it) and the data's central 98 %. Otherwise the region Proposition 1 is about:
/// the curve and the candidates up to the bulk (98 %) of the candidates' σ² and past `s0`,
/// with `s*`, `s0` and the marked σ² when they lie there; when that frame is taller than
/// [`DIP_DEPTHS`] times the dip's depth (wide candidates far up the rising curve, as in the toy),
/// only up to `3 s0`, so that the dip shows as one.
pub(super) fn threshold_y(c: &ThresholdCurves, points: &[DataPoint], whole: bool) -> (f64, f64) {
    let main = c.series.first();
    let fit = |upto: f64| {
        let within = |x: f64| x <= upto;
        let curve = main.into_iter().flat_map(|s| {
            let grid = c.sigma2.iter().zip(&s.t).filter(move |(x, _)| within(**x)).filter_map(|(_, t)| *t);
            let marks = [s.s_star, s.s0, s.slider].into_iter().flatten().filter(move |m| within(m.sigma2));
            grid.chain(marks.map(|m| m.t))
        });
        y_range(curve.chain(central_scores(points.iter().filter(|p| within(p.sigma2)))), (-1.0, 1.0))
    };
    let Some(s) = main.filter(|_| !whole) else { return fit(f64::INFINITY) };
    let mut variances: Vec<f64> = points.iter().map(|p| p.sigma2).filter(|v| v.is_finite()).collect();
    variances.sort_unstable_by(f64::total_cmp);
    let bulk = variances.get(variances.len().saturating_sub(1) * 49 / 50).copied().unwrap_or(f64::INFINITY);
    let (Some(low), Some(back)) = (s.s_star, s.s0) else { return fit(bulk) };
    let wide = fit(bulk.max(3.0 * back.sigma2));
    if wide.1 - wide.0 <= DIP_DEPTHS * (back.t - low.t) {
        wide
    } else {
        fit((3.0 * back.sigma2).max(10.0 * SIGMA2_AXIS_LO))
    }
}

/// The scores of `points` that a y axis should hold: all of a few, the central 98 % of many (the
/// data can spread far beyond the curve).
pub(super) fn central_scores<'a>(points: impl Iterator<Item = &'a DataPoint>) -> Vec<f64> {
    let mut scores: Vec<f64> = points.map(|p| p.score).filter(|v| v.is_finite()).collect();
    scores.sort_unstable_by(f64::total_cmp);
    if scores.len() > 50 {
        vec![scores[scores.len() / 100], scores[scores.len() - 1 - scores.len() / 100]]
    } else {
        scores
    }
}

/// The first σ² of the grid at which the curve `t` lies above `top`, coming from below it.
pub(super) fn exit_sigma2(sigma2: &[f64], t: &[Option<f64>], top: f64) -> Option<f64> {
    let mut below = false;
    for (&x, &y) in sigma2.iter().zip(t) {
        match y {
            Some(y) if y > top && below => return Some(x),
            Some(y) => below = y <= top,
            None => below = false,
        }
    }
    None
}

/// Panel 2's note on what its frame leaves out: where the current β's curve leaves the top, and
/// the curve's value at the marked σ² when that is above it; `None` when everything is in view.
pub fn threshold_cut(fig: &Figure, c: &ThresholdCurves) -> Option<String> {
    let s = c.series.first()?;
    let exit = exit_sigma2(&c.sigma2, &s.t, fig.y.1);
    let marked = s.slider.filter(|m| m.t > fig.y.1);
    let mut parts = Vec::new();
    if let Some(x) = exit {
        parts.push(format!("the curve rises out of the frame at σ² ≈ {} (arrow)", short(x)));
    }
    if let Some(m) = marked {
        parts.push(format!("at the marked σ² = {} it is {}", short(m.sigma2), short(m.t)));
    }
    let on = if s.s0.is_some() { "the dip" } else { "the candidates" };
    (!parts.is_empty())
        .then(|| format!("Zoomed on {on}: {}. Tick “Whole curve” to see all of it.", parts.join("; ")))
}
