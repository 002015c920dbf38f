//! What an α move rewrites besides the markers: the readouts of panels 3, 4 and 6, and panel 9
//! (coverage by class and by set size, its worst classes).

use crate::classes::ClassView;
use crate::figure::classes::{classes, strata_head, strata_table};
use crate::figure::panels::readout;
use crate::figure::tables::{reduction_text, TableRow};
use crate::figure::Figure;
use crate::{ids, AlphaView, Analysis};

/// The readouts of panels 3, 4 and 6, in the order [`alpha_readouts`] gives them (with no
/// analysis on show, each reads "–").
pub const ALPHA_READOUTS: [&str; 3] = [ids::COVERAGE_READOUT, ids::SIZE_READOUT, ids::REDUCTION];

/// The readouts of panels 3, 4 and 6 at `v`'s α; `toy`: the analysis is the toy's (repeats,
/// not splits).
pub fn alpha_readouts(v: &AlphaView, toy: bool) -> [(&'static str, String); 3] {
    let [coverage, size, reduction] = ALPHA_READOUTS;
    [(coverage, readout(v, true)), (size, readout(v, false)), (reduction, reduction_text(v, toy))]
}

/// Panel 9 at `v`'s α: the figure, the note that replaces the worst classes (if any), the
/// readout, the worst classes as (class, line), and the table by set size.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassesView {
    pub figure: Figure,
    pub note: Option<&'static str>,
    pub readout: String,
    pub worst: Vec<(usize, String)>,
    pub strata_head: String,
    pub strata: Vec<TableRow>,
}

/// Panel 9 of `a` at `v`'s α; `file_names`: the class names the file gives, if any (a toy's
/// classes have none).
pub fn classes_view(v: &AlphaView, a: &Analysis, file_names: Option<&[String]>) -> ClassesView {
    let toy = a.toy.is_some();
    let names = if toy { None } else { file_names };
    let cv = ClassView::new(v, a.k, toy);
    let worst = match cv.note {
        Some(_) => Vec::new(),
        None => cv.worst.iter().map(|w| (w.class, cv.worst_text(w, names))).collect(),
    };
    ClassesView {
        figure: classes(&cv, names),
        note: cv.note,
        readout: cv.readout(),
        worst,
        strata_head: strata_head(&cv),
        strata: strata_table(&cv),
    }
}
