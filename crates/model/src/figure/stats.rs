//! Panel 8's statistics as `<dt>`/`<dd>` pairs: a held file's shape, accuracy and median
//! variances, or a streamed file's shape and why there is no more.

use super::html::esc;
use crate::scales::fixed;
use crate::DataSummary;

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
    let median = |d: &crate::VarianceDistribution| fixed(d.quantiles[3], 4);
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
