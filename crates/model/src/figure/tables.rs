//! Panel 6: the summary and conditional-coverage tables (a row per method, cells as text) and
//! the note under them comparing set sizes, which names the methods that cover less than their
//! guarantee instead.

use super::html::esc;
use super::{method_html, method_label, method_slot};
use crate::scales::{fixed, short};
use crate::{AlphaView, SummaryRow};

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
pub fn under_covers(r: &SummaryRow, alpha: f64) -> bool {
    let sets = r.size_histogram.iter().sum::<u64>().max(1) as f64;
    let over_splits = r.coverage_sd / (r.splits.max(1) as f64).sqrt();
    let se = over_splits.max((alpha * (1.0 - alpha) / sets).sqrt());
    r.coverage_mean < 1.0 - alpha - 3.0 * se
}
