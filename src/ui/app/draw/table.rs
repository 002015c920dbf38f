//! The page's tables whose numbers move with α (panel 6's two, panel 9's set-size strata):
//! their bodies rewritten in place, cell by cell, from the rows last written.

use web_sys::{Document, Element};

use crate::ui::panels::{self, TableRow};
use rvalue_model::page::{Tables, Written};
use rvalue_model::AlphaView;

/// Panel 6: both tables' cells.
pub(super) fn show_summary(d: &Document, v: &AlphaView, shown: &Tables) {
    show_summary_rows(d, shown, panels::summary_table(v), panels::conditional_table(v));
}

/// Panel 6: both tables' rows (none: empty tables).
pub(super) fn show_summary_rows(
    d: &Document,
    shown: &Tables,
    summary: Vec<TableRow>,
    conditional: Vec<TableRow>,
) {
    show_rows(d, &shown.summary, "#summary-table tbody", summary, Some(panels::SUMMARY_COLUMNS));
    show_rows(
        d,
        &shown.conditional,
        "#conditional-table tbody",
        conditional,
        Some(panels::CONDITIONAL_COLUMNS),
    );
}

/// Makes the body `selector` show `rows`: in place where it holds what was last written
/// (rows added or removed at its end, changed cells rewritten), else afresh.
pub(super) fn show_rows(
    d: &Document,
    shown: &Written<Vec<TableRow>>,
    selector: &str,
    rows: Vec<TableRow>,
    labels: Option<&[&str]>,
) {
    let Some(body) = d.query_selector(selector).ok().flatten() else { return };
    shown.update(rows, |old, new| {
        if patch(&body, old, new, labels).is_none() {
            body.set_inner_html(&new.iter().map(|r| panels::row_html(r, labels)).collect::<String>());
        }
    });
}

/// Rewrites what differs between `old` (what `body` shows) and `new`; `None` when `body` does
/// not hold `old`'s shape or the cells per row differ, for the caller to write it afresh.
fn patch(body: &Element, old: &[TableRow], new: &[TableRow], labels: Option<&[&str]>) -> Option<()> {
    let trs = body.children();
    let same_width = old.first().zip(new.first()).is_none_or(|(a, b)| a.cells.len() == b.cells.len());
    if trs.length() as usize != old.len() || old.is_empty() || !same_width {
        return None;
    }
    for (r, (o, n)) in old.iter().zip(new).enumerate() {
        if o == n {
            continue;
        }
        let cells = trs.item(r as u32)?.children();
        if o.head != n.head {
            cells.item(0)?.set_inner_html(&n.head);
        }
        for (c, (a, b)) in o.cells.iter().zip(&n.cells).enumerate() {
            if a != b {
                cells.item(c as u32 + 1)?.set_text_content(Some(b));
            }
        }
    }
    for r in (new.len()..old.len()).rev() {
        trs.item(r as u32)?.remove();
    }
    let added: String = new.iter().skip(old.len()).map(|r| panels::row_html(r, labels)).collect();
    if !added.is_empty() {
        body.insert_adjacent_html("beforeend", &added).ok()?;
    }
    Some(())
}
