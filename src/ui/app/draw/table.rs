//! The page's tables whose numbers move with α (panel 6's two, panel 9's set-size strata):
//! their bodies rewritten in place, cell by cell, from the rows last written.

use std::cell::RefCell;

use web_sys::{Document, Element};

use rvalue_model::figure::tables::{self, TableRow};
use rvalue_model::AlphaView;

/// A table body as last written, kept so that an α move compares numbers in memory rather than
/// reading each cell's text back from the page.
#[derive(Default)]
pub(in crate::ui::app) struct ShownBody(RefCell<Vec<TableRow>>);

/// What the page's α tables show.
#[derive(Default)]
pub(in crate::ui::app) struct ShownTables {
    summary: ShownBody,
    conditional: ShownBody,
    strata: ShownBody,
    strata_head: RefCell<String>,
    /// Panel 9's worst classes: (class, line).
    worst: RefCell<Vec<(usize, String)>>,
}

impl ShownTables {
    /// Panel 9's table by set size: its body.
    pub(in crate::ui::app) fn strata(&self) -> &ShownBody {
        &self.strata
    }

    /// Panel 9's table by set size: makes its head `head`, written only when it changed.
    pub(in crate::ui::app) fn show_strata_head(&self, d: &Document, head: String) {
        if *self.strata_head.borrow() != head {
            crate::ui::dom::set_html(d, rvalue_model::ids::STRATA_HEAD, &head);
            *self.strata_head.borrow_mut() = head;
        }
    }

    /// Panel 9's worst classes as the list shows them: (class, line).
    pub(in crate::ui::app) fn worst(&self) -> &RefCell<Vec<(usize, String)>> {
        &self.worst
    }
}

/// Panel 6: both tables' cells.
pub(super) fn show_summary(d: &Document, v: &AlphaView, shown: &ShownTables) {
    show_summary_rows(d, shown, &tables::summary_table(v), &tables::conditional_table(v));
}

/// Panel 6: both tables' rows (none: empty tables).
pub(super) fn show_summary_rows(
    d: &Document,
    shown: &ShownTables,
    summary: &[TableRow],
    conditional: &[TableRow],
) {
    shown.summary.show(d, "#summary-table tbody", summary, Some(tables::SUMMARY_COLUMNS));
    shown.conditional.show(d, "#conditional-table tbody", conditional, Some(tables::CONDITIONAL_COLUMNS));
}

impl ShownBody {
    /// Makes the body `selector` show `rows`: in place where it holds what was last written
    /// (rows added or removed at its end, changed cells rewritten), else afresh.
    pub(in crate::ui::app) fn show(
        &self,
        d: &Document,
        selector: &str,
        rows: &[TableRow],
        labels: Option<&[&str]>,
    ) {
        let Some(body) = d.query_selector(selector).ok().flatten() else { return };
        let mut shown = self.0.borrow_mut();
        if *shown == rows {
            return;
        }
        if patch(&body, &shown, rows, labels).is_none() {
            body.set_inner_html(&rows.iter().map(|r| tables::row_html(r, labels)).collect::<String>());
        }
        *shown = rows.to_vec();
    }
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
    let added: String = new.iter().skip(old.len()).map(|r| tables::row_html(r, labels)).collect();
    if !added.is_empty() {
        body.insert_adjacent_html("beforeend", &added).ok()?;
    }
    Some(())
}
