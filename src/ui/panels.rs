//! What each figure shows: turns the explorer's curves and analysis into [`Figure`]s, and the
//! table, inspector and data summary into HTML. No maths here beyond choosing axis ranges.

mod classes;
pub use classes::{classes, strata_head, strata_table};

use super::dom::esc;
use super::figure::*;
use rvalue_core::conformal::Method;
use rvalue_model::scales::{fixed, short};
use rvalue_model::{
    AlphaView, DataPoint, DataSummary, FittedThreshold, InclusionCurves, ItemView, ScoreDensities,
    SummaryRow, SweepCurves, ThresholdCurves, ThresholdSeries,
};

/// The σ² axis of panels 2 and 5: log-spaced from 0.001 to the slider's top (σ² = 0 sits on the
/// left edge).
pub fn sigma2_axis(count: usize) -> Vec<f64> {
    let (lo, hi) = (1e-3f64.log10(), rvalue_model::SIGMA2_RANGE.1.log10());
    (0..count).map(|j| 10f64.powf(lo + (hi - lo) * j as f64 / (count - 1) as f64)).collect()
}

const SIGMA2_LO: f64 = 1e-3;

pub fn method_label(m: Method) -> &'static str {
    match m {
        Method::Cp => "CP",
        Method::CpAvg => "CP_avg",
        Method::CpR => "CP_r",
        Method::Aps | Method::Raps | Method::Saps => m.label(),
    }
}

pub(super) fn method_html(m: Method) -> &'static str {
    match m {
        Method::Cp => "CP",
        Method::CpAvg => "CP<sub>avg</sub>",
        Method::CpR => "CP<sub>r</sub>",
        Method::Aps | Method::Raps | Method::Saps => m.label(),
    }
}

/// Panel 1: densities of p and q.
pub fn scores(d: &ScoreDensities) -> Figure {
    let x = (d.xs.first().copied().unwrap_or(-1.0), d.xs.last().copied().unwrap_or(1.0));
    let y = y_range(d.p.iter().chain(&d.q).flatten().copied().chain([0.0]), (0.0, 1.0));
    let mut f = Figure::new("score", "density", x, (0.0, y.1));
    f.lines.push(Line::new("p: true candidate", BLUE, &d.xs, &d.p));
    f.lines.push(Line::new("q: false candidate", VERMILLION, &d.xs, &d.q).dashed());
    f
}

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
        (SIGMA2_LO, c.sigma2.last().copied().unwrap_or(5000.0)),
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
    f.vlines.push((sigma2.max(SIGMA2_LO), GREEN));
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
            f.exits.push((m.sigma2.max(SIGMA2_LO), GREEN));
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
fn threshold_y(c: &ThresholdCurves, points: &[DataPoint], whole: bool) -> (f64, f64) {
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
        fit((3.0 * back.sigma2).max(10.0 * SIGMA2_LO))
    }
}

/// The scores of `points` that a y axis should hold: all of a few, the central 98 % of many (the
/// data can spread far beyond the curve).
fn central_scores<'a>(points: impl Iterator<Item = &'a DataPoint>) -> Vec<f64> {
    let mut scores: Vec<f64> = points.map(|p| p.score).filter(|v| v.is_finite()).collect();
    scores.sort_unstable_by(f64::total_cmp);
    if scores.len() > 50 {
        vec![scores[scores.len() / 100], scores[scores.len() - 1 - scores.len() / 100]]
    } else {
        scores
    }
}

/// The first σ² of the grid at which the curve `t` lies above `top`, coming from below it.
fn exit_sigma2(sigma2: &[f64], t: &[Option<f64>], top: f64) -> Option<f64> {
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

/// Panels 3 and 4: a quantity against α for the methods run (`methods`, the sweep's order);
/// the baselines' lines are dashed. The current α is not in it: [`alpha_marker`] draws that
/// over it, so an α move redraws no figure.
pub fn against_alpha(sweep: &SweepCurves, methods: &[Method], coverage: bool) -> Figure {
    let x = (sweep.alphas[0], sweep.alphas[sweep.alphas.len() - 1]);
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

/// Panel 5: Theorem 3's inclusion probabilities.
pub fn theorem3(c: &InclusionCurves, sigma2: f64) -> Figure {
    let mut f = Figure::new(
        "false candidate's σ² (log scale)",
        "P(in the set)",
        (SIGMA2_LO, c.sigma2.last().copied().unwrap_or(5000.0)),
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
    f.vlines.push((sigma2.max(SIGMA2_LO), GREEN));
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

/// Panel 6's cells after the row header, per method: coverage, set size, label position, empty.
pub fn summary_cells(v: &AlphaView) -> Vec<[String; 4]> {
    v.rows
        .iter()
        .map(|r| {
            [
                format!("{} ± {}", fixed(r.coverage_mean, 3), fixed(r.coverage_sd, 3)),
                format!("{} ± {}", fixed(r.size_mean, 2), fixed(r.size_sd, 2)),
                r.position_mean.map_or("–".to_string(), |p| fixed(p, 2)),
                fixed(100.0 * r.empty_rate, 1) + " %",
            ]
        })
        .collect()
}

/// Panel 6's second table, per method: macro coverage, worst-class coverage and CovGap
/// (docs/method.md §5, conditional coverage), each a mean over splits ± its sd ("–" where
/// undefined). A table of its own: the first one fills a half-width panel already.
pub fn conditional_cells(v: &AlphaView) -> Vec<[String; 3]> {
    let pm = |mean: f64, sd: f64, digits: usize, unit: &str| {
        if mean.is_finite() {
            format!("{} ± {}{unit}", fixed(mean, digits), fixed(sd, digits))
        } else {
            "–".to_string()
        }
    };
    v.rows
        .iter()
        .map(|r| {
            let c = &r.conditional;
            [
                pm(c.macro_coverage_mean, c.macro_coverage_sd, 3, ""),
                pm(c.worst_class_coverage_mean, c.worst_class_coverage_sd, 3, ""),
                pm(c.covgap_mean, c.covgap_sd, 1, " %"),
            ]
        })
        .collect()
}

/// Panel 6's column headers after the method (index.html's `<thead>`), repeated on each cell as
/// `data-label` for the narrow layout in which the rows become labelled cards. The label position
/// counts from 0, like the paper's average index, while the inspector's ranks count from 1: the
/// header says so.
pub const SUMMARY_COLUMNS: &[&str] = &["Coverage", "Set size", "Label position (from 0)", "Empty"];

/// The second table's column headers after the method.
pub const CONDITIONAL_COLUMNS: &[&str] = &["Macro coverage", "Worst class", "CovGap"];

/// A table body's row: its header cell's markup (the page's own: a method's name, or text
/// escaped) and its data cells as text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableRow {
    pub head: String,
    pub cells: Vec<String>,
}

/// The markup of `row`, each data cell labelled from `labels` (for the narrow layout) if given.
pub fn row_html(row: &TableRow, labels: Option<&[&str]>) -> String {
    let mut html = format!("<tr><th scope=\"row\">{}</th>", row.head);
    for (c, cell) in row.cells.iter().enumerate() {
        match labels.and_then(|l| l.get(c)) {
            Some(label) => html += &format!("<td data-label=\"{label}\">{}</td>", esc(cell)),
            None => html += &format!("<td>{}</td>", esc(cell)),
        }
    }
    html + "</tr>"
}

/// Panel 6's rows: the cells of [`summary_cells`] under a header per method.
pub fn summary_table(v: &AlphaView) -> Vec<TableRow> {
    method_rows(v, summary_cells(v))
}

/// Panel 6's second table's rows: the cells of [`conditional_cells`].
pub fn conditional_table(v: &AlphaView) -> Vec<TableRow> {
    method_rows(v, conditional_cells(v))
}

fn method_rows<const N: usize>(v: &AlphaView, all: Vec<[String; N]>) -> Vec<TableRow> {
    v.rows
        .iter()
        .zip(all)
        .map(|(r, cells)| TableRow {
            head: format!(
                "<span class=\"swatch m{}\"></span>{}",
                method_slot(r.method),
                method_html(r.method)
            ),
            cells: Vec::from(cells),
        })
        .collect()
}

/// Panel 6's note: how CP_r's mean set size compares with CP's and CP_avg's at this α, unless a
/// method covers less than its guarantee promises here; smaller sets that under-cover are no
/// gain, so the note then names the methods that fall short instead. The toy's splits are its
/// repeats (`toy`), as its controls and status line call them.
pub fn reduction_text(v: &AlphaView, toy: bool) -> String {
    let n = v.rows.first().map_or(0, |r| r.splits);
    let splits = format!("{n} {}", if toy { "repeats" } else { "splits" });
    let short_of: Vec<String> = v
        .rows
        .iter()
        .filter(|r| under_covers(r, v.alpha))
        .map(|r| format!("{} covers {}", method_label(r.method), fixed(r.coverage_mean, 3)))
        .collect();
    if !short_of.is_empty() {
        return format!(
            "{}, below 1 − α = {} by more than three standard errors (α = {}, {}): \
             set sizes are not compared.",
            short_of.join(" and "),
            short(1.0 - v.alpha),
            short(v.alpha),
            splits
        );
    }
    let change = |r: Option<f64>| match r {
        None => "undefined (empty baseline sets)".to_string(),
        Some(r) if r < 0.0 => format!("larger by {} %", fixed(-r, 1)),
        Some(r) => format!("smaller by {} %", fixed(r, 1)),
    };
    format!(
        "CP_r's sets are {} against CP and {} against CP_avg (α = {}, {}).",
        change(v.reduction_vs_cp),
        change(v.reduction_vs_cp_avg),
        short(v.alpha),
        splits
    )
}

/// Whether a method's mean coverage lies more than three standard errors below `1 − α`: the
/// larger of the spread over splits and the binomial error of all its test sets.
fn under_covers(r: &SummaryRow, alpha: f64) -> bool {
    let sets = r.size_histogram.iter().sum::<u64>().max(1) as f64;
    let over_splits = r.coverage_sd / (r.splits.max(1) as f64).sqrt();
    let se = over_splits.max((alpha * (1.0 - alpha) / sets).sqrt());
    r.coverage_mean < 1.0 - alpha - 3.0 * se
}

/// Candidates listed per method in the inspector (the true label is listed in any case).
const INSPECTOR_ROWS: usize = 20;

/// One column of panel 7, in parts that change at different times: the title (method), the
/// threshold q̂ (moves with α) and the listed candidates. For one item the list's order does not
/// depend on α (the set is a prefix of the order: members are the lowest scores, and a
/// never-empty fallback is the best candidate, already first); α only moves the cut, i.e.
/// which rows are `in_set`. So an α move can update a column in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankingColumn {
    pub title: String,
    /// What the scores are.
    pub what: &'static str,
    pub threshold: String,
    /// Shown instead of a list (one draw per candidate: no r-value).
    pub note: Option<&'static str>,
    pub rows: Vec<RankingRow>,
    /// Candidates past [`INSPECTOR_ROWS`] that are not listed.
    pub hidden: usize,
}

/// One listed candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankingRow {
    /// 1-based position in the method's order.
    pub rank: usize,
    pub candidate: usize,
    pub score: String,
    pub in_set: bool,
    pub is_true: bool,
}

impl RankingRow {
    /// The row's markup attributes: only the true label is marked. Membership is not: the set
    /// is the rows above the cut, so an α move moves one element per column and restyles no
    /// row.
    pub fn class_attr(&self) -> &'static str {
        if self.is_true {
            " class=\"true\""
        } else {
            ""
        }
    }
}

impl RankingColumn {
    /// Whether `other` lists the same candidates in the same order with the same scores (it
    /// may cut the set elsewhere).
    pub fn same_rows(&self, other: &RankingColumn) -> bool {
        self.note == other.note
            && self.hidden == other.hidden
            && self.rows.len() == other.rows.len()
            && self.rows.iter().zip(&other.rows).all(|(a, b)| {
                (a.rank, a.candidate, &a.score, a.is_true) == (b.rank, b.candidate, &b.score, b.is_true)
            })
    }

    /// The place of the cut: the index of the first row out of the set (members come first,
    /// so the set is the rows above it), or `None` when every listed row is in the set.
    pub fn cut(&self) -> Option<usize> {
        self.rows.iter().position(|r| !r.in_set)
    }
}

/// The markup of the cut between the set and the rest.
pub const CUT_HTML: &str = "<li class=\"cut\" aria-label=\"end of the set\"></li>";

/// The cut when the set is empty: it says so, as a line above every candidate is easy to miss.
pub const EMPTY_CUT_HTML: &str = "<li class=\"cut empty\">empty set</li>";

/// Panel 7's columns: one per method, candidates in its order, the set above the line.
pub fn inspector_columns(v: &ItemView, single_draw: bool) -> Vec<RankingColumn> {
    let mut columns = Vec::new();
    for m in &v.methods {
        let mi = method_slot(m.method);
        let what = match m.method {
            Method::Cp => "score −S (one draw)",
            Method::CpAvg => "score −X (mean)",
            Method::CpR => "r-value",
            Method::Aps | Method::Raps | Method::Saps => "adaptive score E",
        };
        let title = format!("<span class=\"swatch m{mi}\"></span>{}", method_html(m.method));
        // No finite threshold only when k* > n: q̂ = +∞ and every candidate is in the set.
        let threshold = m.threshold.map_or("+∞ (k* > n: full sets)".to_string(), |q| fixed(q, 4));
        let mut column = RankingColumn { title, what, threshold, note: None, rows: Vec::new(), hidden: 0 };
        if single_draw && m.method == Method::CpR {
            column.note = Some("One draw per candidate: no r-value.");
            columns.push(column);
            continue;
        }
        for (rank, c) in m.ranked.iter().enumerate() {
            // A long list costs layout; the true label is always shown.
            if rank >= INSPECTOR_ROWS && !c.is_true {
                column.hidden += 1;
                continue;
            }
            column.rows.push(RankingRow {
                rank: rank + 1,
                candidate: c.candidate,
                score: fixed(c.score, 4),
                in_set: c.in_set,
                is_true: c.is_true,
            });
        }
        columns.push(column);
    }
    columns
}

/// One column's list (or note), with the cut before the first candidate out of the set.
pub fn ranking_list(c: &RankingColumn) -> String {
    if let Some(note) = c.note {
        return format!("<p class=\"muted\">{note}</p>");
    }
    let mut list = String::from("<ol>");
    let mut cut = false;
    for (i, r) in c.rows.iter().enumerate() {
        if !r.in_set && !cut {
            list += if i == 0 { EMPTY_CUT_HTML } else { CUT_HTML };
            cut = true;
        }
        let mark = if r.is_true { " <b>✓ true</b>" } else { "" };
        list += &format!(
            "<li{} value=\"{}\"><span class=\"cand\">#{}</span> <span class=\"num\">{}</span>{mark}</li>",
            r.class_attr(),
            r.rank,
            r.candidate,
            r.score
        );
    }
    if c.hidden > 0 {
        list += &format!("<li class=\"more\">… and {} more candidates</li>", c.hidden);
    }
    list + "</ol>"
}

/// Panel 7's markup from its columns: `<div class="ranking">` per column with the threshold in
/// `<span class="q">` and the list in `<div class="list">`.
pub fn inspector(columns: &[RankingColumn]) -> String {
    columns
        .iter()
        .map(|c| {
            format!(
                "<div class=\"ranking\"><h3>{} <small>{}; q̂ = <span class=\"q\">{}</span></small></h3><div class=\"list\">{}</div></div>",
                c.title,
                c.what,
                c.threshold,
                ranking_list(c)
            )
        })
        .collect()
}

/// Panel 8's numbers.
pub fn data_stats(name: &str, s: &DataSummary) -> String {
    let mut rows = vec![
        ("file", "File", esc(name)),
        ("n", "N items", s.n.to_string()),
        ("m", "M draws", s.m.to_string()),
        ("k", "K candidates", s.k.to_string()),
        (
            "accuracy",
            "Mean-score accuracy",
            s.accuracy.map_or("– (no labels)".to_string(), |a| format!("{} %", fixed(100.0 * a, 2))),
        ),
    ];
    let median = |d: &rvalue_model::VarianceDistribution| fixed(d.quantiles[3], 4);
    if let (Some(t), Some(f)) = (&s.true_candidates, &s.false_candidates) {
        rows.push(("median-true", "Median variance, true", median(t)));
        rows.push(("median-false", "Median variance, false", median(f)));
    }
    if s.single_draw {
        rows.push(("note", "Note", "one draw per candidate: only CP and CP_avg are meaningful".to_string()));
    }
    rows.iter().map(|(id, k, v)| format!("<div><dt>{k}</dt><dd id=\"stat-{id}\">{v}</dd></div>")).collect()
}

/// Panel 8's statistics of a file read a block at a time: its shape, and why there is no more.
pub fn streamed_stats(name: &str, (n, m, k): (usize, usize, usize)) -> String {
    let rows = [
        ("file", "File", esc(name)),
        ("n", "N items", n.to_string()),
        ("m", "M draws", m.to_string()),
        ("k", "K candidates", k.to_string()),
        (
            "note",
            "Note",
            "read a block at a time: the variance histogram is drawn for files the page holds".into(),
        ),
    ];
    rows.iter().map(|(id, k, v)| format!("<div><dt>{k}</dt><dd id=\"stat-{id}\">{v}</dd></div>")).collect()
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

/// What panels 2 and 5 say in place of a figure: plain sentences for a reader, never an error
/// kind. `e2e/explorer.test.mjs` lists them.
pub mod placeholder {
    pub const THRESHOLD_NO_FILE: &str =
        "Load a score file to see its threshold curve: drop one on the page, choose one, or pick a sample.";
    pub const THRESHOLD_WAITING: &str = "The threshold curve appears when the score file's analysis is done.";
    pub const THRESHOLD_NO_PRIOR: &str = "These scores give no prior to draw a threshold curve with: the \
        candidates' mean scores do not spread more than their noise explains.";
    pub const THRESHOLD_FLAT_PRIOR: &str = "No threshold curve to draw: every candidate has the same \
        latent mean here (τ² = 0), so no threshold can tell them apart.";
    pub const THRESHOLD_NO_VARIANCE: &str = "No threshold curve to draw: every candidate's \
        variance is 0, so the r-value ranks by the mean score alone.";
    pub const THEOREM3_NO_FILE: &str =
        "Load a score file to see how likely a false candidate is to enter each method's set.";
    pub const THEOREM3_WAITING: &str = "The inclusion curves appear when the score file's analysis is done.";
    pub const THEOREM3_TOY_WAITING: &str =
        "The inclusion curves appear when the toy's first repeat is analysed: they use its calibrated threshold.";
}
