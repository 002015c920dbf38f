//! Panel 6: the summary tables at α, their cells rewritten in place.

use web_sys::Document;

use crate::ui::panels;
use rvalue_model::AlphaView;

/// Panel 6: both tables' cells.
pub(super) fn show_summary(d: &Document, v: &AlphaView) {
    let cells: Vec<Vec<String>> = panels::summary_cells(v).into_iter().map(Vec::from).collect();
    show_table(d, "#summary-table tbody", &cells, || panels::summary_rows(v));
    let cells: Vec<Vec<String>> = panels::conditional_cells(v).into_iter().map(Vec::from).collect();
    show_table(d, "#conditional-table tbody", &cells, || panels::conditional_rows(v));
}

/// The cells' text where the table has its three rows, else the rows afresh (`rows`).
fn show_table(d: &Document, body: &str, cells: &[Vec<String>], rows: impl FnOnce() -> String) {
    let Some(body) = d.query_selector(body).ok().flatten() else { return };
    let columns = cells.first().map_or(0, Vec::len) as u32 + 1;
    let trs = body.children();
    let in_place = trs.length() as usize == cells.len()
        && (0..trs.length()).all(|r| trs.item(r).is_some_and(|row| row.children().length() == columns));
    if !in_place {
        body.set_inner_html(&rows());
        return;
    }
    for (r, texts) in cells.iter().enumerate() {
        let Some(row) = trs.item(r as u32) else { continue };
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
