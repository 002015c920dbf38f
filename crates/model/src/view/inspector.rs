//! Panel 7 for one test item at α: the item number's input, the line about the item, and its
//! rankings, or the sentence shown while its block is read or when it cannot be shown.

use std::ops::Range;

use crate::edits::Edits;
use crate::figure::html::esc;
use crate::figure::inspector::{inspector_columns, RankingColumn};
use crate::ids;
use crate::message::sentence;
use crate::page::patch::{cut_move, CutMove};
use crate::page::readouts::item_info;
use crate::Analysis;

/// What panel 7 shows, from [`inspector_view`].
#[derive(Clone, Debug, PartialEq)]
pub struct InspectorView {
    /// The item number input's maximum.
    pub max: String,
    /// The line about the item; `None` leaves it as it is.
    pub info: Option<String>,
    pub body: InspectorBody,
}

/// What the inspector holds.
#[derive(Clone, Debug, PartialEq)]
pub enum InspectorBody {
    /// Pooled CP_r on a streamed file: the data item's bytes are read first; `html` says so
    /// meanwhile.
    Read { item: usize, range: Range<u64>, html: String },
    /// The item's rankings, a column per method.
    Columns(Vec<RankingColumn>),
    /// Why the item cannot be shown.
    Error(String),
}

impl InspectorView {
    /// The writes for item `item`: its number and the input's maximum, the line about it, and
    /// the inspector's sentence while the item is read or when it cannot be shown (its
    /// rankings are patched in place by the page).
    pub fn edits(&self, item: usize) -> Edits {
        let mut e = Edits::new();
        e.value(ids::ITEM_INDEX, item.to_string()).attr(ids::ITEM_INDEX, "max", self.max.as_str());
        if let Some(info) = &self.info {
            e.text(ids::ITEM_INFO, info.as_str());
        }
        if let InspectorBody::Read { html, .. } | InspectorBody::Error(html) = &self.body {
            e.html(ids::INSPECTOR, html.as_str());
        }
        e
    }
}

/// Panel 7 emptied: no analysis on show.
pub fn inspector_cleared() -> Edits {
    let mut e = Edits::new();
    e.html(ids::INSPECTOR, "").text(ids::ITEM_INFO, "");
    e
}

/// Panel 7 for test item `t` of `a` at `alpha`.
pub fn inspector_view(a: &Analysis, t: usize, alpha: f64, never_empty: bool) -> InspectorView {
    let n = a.n_inspectable();
    let max = n.saturating_sub(1).to_string();
    if let Some((item, range)) = a.item_bytes(t) {
        let html = format!("<p class=\"muted\" role=\"status\">reading item {t}…</p>");
        let info = Some(item_info(n, item, None, alpha));
        return InspectorView { max, info, body: InspectorBody::Read { item, range, html } };
    }
    match a.inspect(t, alpha, never_empty) {
        Ok(v) => InspectorView {
            max,
            info: Some(item_info(n, v.item, Some(v.label), alpha)),
            body: InspectorBody::Columns(inspector_columns(&v, a.single_draw)),
        },
        Err(e) => {
            let html = format!("<p class=\"muted\">{}</p>", esc(&sentence(&e)));
            InspectorView { max, info: None, body: InspectorBody::Error(html) }
        }
    }
}

/// How one of the inspector's columns goes from what it shows to the new one
/// ([`inspector_patch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnPatch {
    /// Its threshold's text changed.
    pub threshold: bool,
    pub list: ListPatch,
}

/// How a column's ranking list changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListPatch {
    Same,
    /// The same rows, the set's cut moved (an α move).
    Cut(CutMove),
    /// Other rows (another item): the list is written afresh.
    Afresh,
}

/// The in-place patch from the inspector showing `shown` to `columns`, a column each; `None`
/// when it is written afresh (the columns differ in number, title or kind of score).
pub fn inspector_patch(shown: &[RankingColumn], columns: &[RankingColumn]) -> Option<Vec<ColumnPatch>> {
    let same_shape = shown.len() == columns.len()
        && shown.iter().zip(columns).all(|(a, b)| a.title == b.title && a.what == b.what);
    let column = |(old, new): (&RankingColumn, &RankingColumn)| ColumnPatch {
        threshold: old.threshold != new.threshold,
        list: match (old == new, old.same_rows(new)) {
            (true, _) => ListPatch::Same,
            (false, true) => ListPatch::Cut(cut_move(old.cut(), new.cut())),
            (false, false) => ListPatch::Afresh,
        },
    };
    same_shape.then(|| shown.iter().zip(columns).map(column).collect())
}
