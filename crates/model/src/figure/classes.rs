//! Panel 9: each class's coverage per method against 1 − α (bars for a few classes, sorted
//! curves for many), and the set-size strata's rows.

use super::html::esc;
use super::tables::TableRow;
use super::{method_colour, method_html, method_label, y_range, Bars, Figure, Legend, Line, INK};
use crate::classes::{ClassView, Layout};
use crate::scales::fixed;

/// The figure of panel 9; `names`: the file's class names, if it gives them.
pub fn classes(v: &ClassView, names: Option<&[String]>) -> Figure {
    match v.layout {
        Layout::Bars => bars(v, names),
        Layout::Sorted => sorted(v),
    }
}

/// A group of bars per class, the methods side by side, and the 1 − α line across.
fn bars(v: &ClassView, names: Option<&[String]>) -> Figure {
    let k = v.k as f64;
    let lowest = v.methods.iter().flat_map(|m| m.coverage.iter().flatten().copied());
    let (lo, _) = y_range(lowest.chain([v.target]), (0.0, 1.0));
    let mut f =
        Figure::new("class", "coverage (pooled over splits)", (-0.5, k - 0.5), (lo.clamp(0.0, 0.9), 1.0));
    f.legend = Legend::LowerRight;
    let width = 0.8 / v.methods.len().max(1) as f64;
    for (mi, m) in v.methods.iter().enumerate() {
        let left = |c: usize| c as f64 - 0.4 + mi as f64 * width;
        let bars = m
            .coverage
            .iter()
            .enumerate()
            .filter_map(|(c, x)| Some((left(c), left(c) + width, (*x)?)))
            .collect();
        f.bars.push(Bars {
            label: Some(method_label(m.method).into()),
            colour: method_colour(m.method),
            bars,
        });
    }
    f.lines.push(Line::of("1 − α", INK, &[-0.5, k - 0.5], &[v.target, v.target]).dashed());
    f.x_names = (0..v.k).map(|c| crate::classes::class_label(names, c)).collect();
    f
}

/// Each method's coverages sorted ascending against the share of classes, and 1 − α.
fn sorted(v: &ClassView) -> Figure {
    let all = v.methods.iter().flat_map(|m| m.sorted.iter().copied());
    let (lo, _) = y_range(all.chain([v.target]), (0.0, 1.0));
    let mut f = Figure::new(
        "share of classes (sorted by coverage)",
        "class coverage",
        (0.0, 1.0),
        (lo.max(0.0), 1.0),
    );
    f.legend = Legend::LowerRight;
    f.lines.push(Line::of("1 − α", INK, &[0.0, 1.0], &[v.target, v.target]).dashed());
    for m in &v.methods {
        let xs = ClassView::sorted_x(m.sorted.len());
        f.lines.push(Line::of(method_label(m.method), method_colour(m.method), &xs, &m.sorted));
    }
    f
}

/// The strata table's header row: a coverage and an items column per method.
pub fn strata_head(v: &ClassView) -> String {
    let mut html = String::from("<tr><th scope=\"col\">Set size</th>");
    for m in &v.methods {
        let name = method_html(m.method);
        html += &format!("<th scope=\"col\">{name} coverage</th><th scope=\"col\">{name} items</th>");
    }
    html + "</tr>"
}

/// The strata table's body: a row per set-size stratum, each method's coverage and items.
pub fn strata_table(v: &ClassView) -> Vec<TableRow> {
    v.strata
        .iter()
        .map(|s| TableRow {
            head: esc(&s.label),
            cells: s
                .coverage
                .iter()
                .zip(&s.count)
                .flat_map(|(cov, count)| [cov.map_or("–".to_string(), |c| fixed(c, 3)), count.to_string()])
                .collect(),
        })
        .collect()
}
