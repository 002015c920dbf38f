//! How a table body or a ranking list that shows what was last written becomes one that shows
//! the new rows in place, so that an α move rewrites only what changed: the page applies these
//! edits to its elements, or writes the markup afresh where there are none to apply.

use std::ops::Range;

use crate::figure::tables::TableRow;

/// The edits that turn a table body showing `old` rows into one showing `new` ([`rows_patch`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowsPatch {
    /// (row, header markup) of each row whose header changed.
    pub heads: Vec<(usize, String)>,
    /// (row, data cell, text) of each data cell that changed.
    pub cells: Vec<(usize, usize, String)>,
    /// The rows removed from the end.
    pub removed: Range<usize>,
    /// The rows of `new` added at the end.
    pub added: Range<usize>,
}

/// The in-place edits from `old` to `new`; `None` when the body is to be written afresh (it
/// showed no rows, or the rows have another number of cells).
pub fn rows_patch(old: &[TableRow], new: &[TableRow]) -> Option<RowsPatch> {
    let same_width = old.first().zip(new.first()).is_none_or(|(a, b)| a.cells.len() == b.cells.len());
    if old.is_empty() || !same_width {
        return None;
    }
    let kept = old.len().min(new.len());
    let mut p = RowsPatch { removed: kept..old.len(), added: kept..new.len(), ..RowsPatch::default() };
    for (r, (o, n)) in old.iter().zip(new).enumerate().filter(|(_, (o, n))| o != n) {
        if o.head != n.head {
            p.heads.push((r, n.head.clone()));
        }
        let changed = o.cells.iter().zip(&n.cells).enumerate().filter(|(_, (a, b))| a != b);
        p.cells.extend(changed.map(|(c, (_, b))| (r, c, b.clone())));
    }
    Some(p)
}

/// How a ranking list's cut between the set and the rest moves ([`cut_move`]); indices are
/// of the list's elements as it shows the old cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CutMove {
    Stay,
    /// Into or out of an empty set, whose cut is labelled: the list is written afresh.
    Afresh,
    /// The cut element at `cut` goes before the element `before`.
    Move {
        cut: usize,
        before: usize,
    },
    /// A cut is inserted before the element `before`.
    Insert {
        before: usize,
    },
    /// The cut element at `cut` goes (every listed row is in the set).
    Remove {
        cut: usize,
    },
}

/// The cut's move when the set's first row out moves `from` → `to` (`None`: every listed
/// row is in the set) over the same rows.
pub fn cut_move(from: Option<usize>, to: Option<usize>) -> CutMove {
    if from == to {
        return CutMove::Stay;
    }
    if from == Some(0) || to == Some(0) {
        return CutMove::Afresh;
    }
    // The element of row `r` while the cut is still at `from`.
    let element = |r: usize| r + usize::from(from.is_some_and(|f| r >= f));
    match (from, to) {
        (Some(cut), Some(j)) => CutMove::Move { cut, before: element(j) },
        (None, Some(j)) => CutMove::Insert { before: element(j) },
        (Some(cut), None) => CutMove::Remove { cut },
        (None, None) => CutMove::Stay,
    }
}

#[cfg(test)]
mod tests;
