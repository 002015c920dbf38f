//! Panel 7: each method's candidates for one item in its order, the set above a cut, as columns
//! that an α move updates in place.

use super::{method_html, method_slot};
use crate::scales::fixed;
use crate::ItemView;
use rvalue_core::conformal::Method;

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
