//! The line figures of panels 1, 3, 4, 5 and 8 from the explorer's curves and analysis, the
//! current α's marker and readout on panels 3 and 4. No maths here beyond choosing axis ranges.

use super::{method_colour, method_label, y_range, Axis, Figure, Legend, Line, Marker};
use super::{BLUE, GREEN, GREY, INK, METHOD_COLOURS, VERMILLION};
use crate::curves::SIGMA2_AXIS_LO;
use crate::scales::{fixed, short};
use crate::{AlphaView, DataSummary, InclusionCurves, ScoreDensities, SweepCurves};
use rvalue_core::conformal::Method;

/// Panel 1: densities of p and q.
pub fn scores(d: &ScoreDensities) -> Figure {
    let x = (d.xs.first().copied().unwrap_or(-1.0), d.xs.last().copied().unwrap_or(1.0));
    let y = y_range(d.p.iter().chain(&d.q).flatten().copied().chain([0.0]), (0.0, 1.0));
    let mut f = Figure::new("score", "density", x, (0.0, y.1));
    f.lines.push(Line::new("p: true candidate", BLUE, &d.xs, &d.p));
    f.lines.push(Line::new("q: false candidate", VERMILLION, &d.xs, &d.q).dashed());
    f
}

/// Panels 3 and 4: a quantity against α for the methods run (`methods`, the sweep's order);
/// the baselines' lines are dashed. The current α is not in it: [`alpha_marker`] draws that
/// over it, so an α move redraws no figure.
pub fn against_alpha(sweep: &SweepCurves, methods: &[Method], coverage: bool) -> Figure {
    let x = (sweep.alphas.first().copied().unwrap_or(0.0), sweep.alphas.last().copied().unwrap_or(1.0));
    let data = if coverage { &sweep.coverage } else { &sweep.size };
    let values = data.iter().flatten().copied();
    let y = if coverage {
        let (lo, _) = y_range(values.chain(sweep.target.iter().copied()), (0.0, 1.0));
        (lo.max(0.0), 1.0)
    } else {
        let (_, hi) = y_range(values, (0.0, 1.0));
        (0.0, hi)
    };
    let mut f = Figure::new("α", if coverage { "coverage" } else { "mean set size" }, x, y);
    // Upper right for both: coverage falls along 1 − α, leaving that corner empty, and the
    // current α's marker (small by default) crossed a lower-left legend.
    f.legend = Legend::UpperRight;
    if coverage {
        f.lines.push(Line::of("1 − α", GREY, &sweep.alphas, &sweep.target).dashed());
    }
    for (&m, ys) in methods.iter().zip(data) {
        let line = Line::of(method_label(m), method_colour(m), &sweep.alphas, ys);
        f.lines.push(if m.is_baseline() { line.dashed() } else { line });
    }
    f
}

/// The current α on panel 3 or 4: a line at α and each method's value there.
pub fn alpha_marker(view: Option<&AlphaView>, alpha: f64, coverage: bool) -> Marker {
    let dots = view
        .map(|v| {
            v.rows
                .iter()
                .map(|r| (if coverage { r.coverage_mean } else { r.size_mean }, method_colour(r.method)))
                .collect()
        })
        .unwrap_or_default();
    Marker { x: alpha, colour: INK, dots }
}

/// One line per method for the readouts of panels 3 and 4 (what the markers show).
pub fn readout(v: &AlphaView, coverage: bool) -> String {
    let parts: Vec<String> = v
        .rows
        .iter()
        .map(|r| {
            let value = if coverage { fixed(r.coverage_mean, 3) } else { fixed(r.size_mean, 2) };
            format!("{} {value}", method_label(r.method))
        })
        .collect();
    format!("α = {}: {}", short(v.alpha), parts.join(", "))
}

/// Panel 5: Theorem 3's inclusion probabilities.
pub fn theorem3(c: &InclusionCurves, sigma2: f64) -> Figure {
    let mut f = Figure::new(
        "false candidate's σ² (log scale)",
        "P(in the set)",
        (SIGMA2_AXIS_LO, c.sigma2.last().copied().unwrap_or(5000.0)),
        (0.0, 1.02),
    );
    f.x_axis = Axis::Log;
    f.legend = Legend::UpperLeft;
    // Every curve moves with α (CP's cut, CP_r's r̂): they are drawn in front (an overlay
    // canvas), and the back (axes, the σ² marker) is not drawn again on an α move.
    f.lines.push(Line::new("CP", METHOD_COLOURS[0], &c.sigma2, &c.cp).in_front());
    let m = c.inputs.draws;
    if m > 1 {
        f.lines.push(
            Line::new("CP_r, one draw (the theorem's)", METHOD_COLOURS[2], &c.sigma2, &c.cp_r_one_draw)
                .faint()
                .dashed()
                .in_front(),
        );
    }
    let main = if m > 1 { format!("CP_r, mean of M = {m} draws") } else { "CP_r".to_string() };
    f.lines.push(Line::new(main, METHOD_COLOURS[2], &c.sigma2, &c.cp_r).in_front());
    f.vlines.push((sigma2.max(SIGMA2_AXIS_LO), GREEN));
    f
}

/// Panel 8: distribution of the per-candidate variance, true against false candidates.
pub fn variances(s: &DataSummary) -> Figure {
    let edges = &s.bin_edges;
    let log = edges.first().is_some_and(|&e| e > 0.0);
    let mids: Vec<f64> =
        edges.windows(2).map(|w| if log { (w[0] * w[1]).sqrt() } else { 0.5 * (w[0] + w[1]) }).collect();
    let share = |h: &[u64]| -> Vec<f64> {
        let total = h.iter().sum::<u64>().max(1) as f64;
        h.iter().map(|&c| c as f64 / total).collect()
    };
    let mut groups = Vec::new();
    match (&s.true_candidates, &s.false_candidates) {
        (Some(t), Some(fc)) => {
            groups.push(("true candidates", BLUE, share(&t.histogram), false));
            groups.push(("false candidates", VERMILLION, share(&fc.histogram), true));
        }
        _ => groups.push(("all candidates", INK, share(&s.all.histogram), false)),
    }
    let y = y_range(groups.iter().flat_map(|g| g.2.iter().copied()).chain([0.0]), (0.0, 1.0));
    let x = (edges.first().copied().unwrap_or(0.0), edges.last().copied().unwrap_or(1.0));
    let mut f = Figure::new(
        if log { "variance s of a candidate (log scale)" } else { "variance s of a candidate" },
        "share",
        x,
        (0.0, y.1),
    );
    if log {
        f.x_axis = Axis::Log;
    }
    for (label, colour, ys, dashed) in groups {
        let line = Line::of(label, colour, &mids, &ys);
        f.lines.push(if dashed { line.dashed() } else { line });
    }
    f
}
