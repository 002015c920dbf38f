//! Panel 6: the summary table at α, its cells rewritten in place.

use web_sys::Document;

use crate::ui::panels;
use rvalue_model::AlphaView;

/// Panel 6: the cells' text where the table has its three rows, else the rows afresh.
pub(super) fn show_summary(d: &Document, v: &AlphaView) {
    let Some(body) = d.query_selector("#summary-table tbody").ok().flatten() else { return };
    let cells = panels::summary_cells(v);
    let rows = body.children();
    let in_place = rows.length() as usize == cells.len()
        && (0..rows.length()).all(|r| rows.item(r).is_some_and(|row| row.children().length() == 8));
    if !in_place {
        body.set_inner_html(&panels::summary_rows(v));
        return;
    }
    for (r, texts) in cells.iter().enumerate() {
        let Some(row) = rows.item(r as u32) else { continue };
        let tds = row.children();
        for (c, text) in texts.iter().enumerate() {
            if let Some(td) = tds.item(c as u32 + 1) {
                if td.text_content().as_deref() != Some(text.as_str()) {
                    td.set_text_content(Some(text));
                }
            }
        }
    }
}
