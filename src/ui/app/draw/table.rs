//! The page's tables whose numbers move with α (panel 6's two, panel 9's set-size strata):
//! their bodies rewritten in place, cell by cell, from the rows last written.

use web_sys::{Document, Element};

use rvalue_model::figure::tables::{self, TableRow};
use rvalue_model::ids;
use rvalue_model::page::patch::rows_patch;
use rvalue_model::page::{Tables, Written};
use rvalue_model::AlphaView;

/// Panel 6: both tables' cells at `v`'s α (no view: empty tables).
pub(super) fn show_summary(d: &Document, v: Option<&AlphaView>, shown: &Tables) {
    let rows = |table: fn(&AlphaView) -> Vec<TableRow>| v.map_or_else(Vec::new, table);
    let (summary, conditional) = (rows(tables::summary_table), rows(tables::conditional_table));
    show_rows(
        d,
        &shown.summary,
        &ids::table_body(ids::SUMMARY_TABLE),
        summary,
        Some(tables::SUMMARY_COLUMNS),
    );
    let columns = Some(tables::CONDITIONAL_COLUMNS);
    show_rows(d, &shown.conditional, &ids::table_body(ids::CONDITIONAL_TABLE), conditional, columns);
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
            body.set_inner_html(&new.iter().map(|r| tables::row_html(r, labels)).collect::<String>());
        }
    });
}

/// Applies to `body`, which shows `old`, the edits to `new` ([`rows_patch`]); `None` when
/// there are none or `body` does not hold `old`'s rows, for the caller to write it afresh.
fn patch(body: &Element, old: &[TableRow], new: &[TableRow], labels: Option<&[&str]>) -> Option<()> {
    let trs = body.children();
    if trs.length() as usize != old.len() {
        return None;
    }
    let p = rows_patch(old, new)?;
    for (r, head) in p.heads {
        trs.item(r as u32)?.children().item(0)?.set_inner_html(&head);
    }
    for (r, c, text) in p.cells {
        trs.item(r as u32)?.children().item(c as u32 + 1)?.set_text_content(Some(&text));
    }
    for r in p.removed.rev() {
        trs.item(r as u32)?.remove();
    }
    let added: String = new[p.added].iter().map(|r| tables::row_html(r, labels)).collect();
    if !added.is_empty() {
        body.insert_adjacent_html("beforeend", &added).ok()?;
    }
    Some(())
}
