//! What an α move rewrites besides the markers: the readouts of panels 3, 4 and 6, and panel 9
//! (coverage by class and by set size, its worst classes).

use crate::classes::ClassView;
use crate::edits::Edits;
use crate::figure::classes::{classes, strata_head, strata_table};
use crate::figure::html::esc;
use crate::figure::panels::readout;
use crate::figure::tables::{reduction_text, TableRow};
use crate::figure::Figure;
use crate::scales::short;
use crate::{ids, AlphaView, Analysis};

/// The readouts of panels 3, 4 and 6: coverage, set size, and the reduction (with no analysis
/// on show, each reads "–").
pub const ALPHA_READOUTS: [&str; 3] = [ids::COVERAGE_READOUT, ids::SIZE_READOUT, ids::REDUCTION];

/// The writes of an α move besides the markers and tables: `alpha` on each overlay it was drawn
/// on (`drawn`, for the scripts that wait for a marker), and the readouts of panels 3, 4 and 6
/// at `v`'s α, if there is a view; `toy`: the analysis is the toy's (repeats, not splits).
pub fn alpha_edits(
    v: Option<&AlphaView>,
    alpha: f64,
    toy: bool,
    drawn: impl IntoIterator<Item = &'static str>,
) -> Edits {
    let mut e = Edits::new();
    let label = short(alpha);
    for overlay in drawn {
        e.attr(overlay, "data-alpha", label.as_str());
    }
    if let Some(v) = v {
        let [coverage, size, reduction] = ALPHA_READOUTS;
        e.text(coverage, readout(v, true)).text(size, readout(v, false));
        e.text(reduction, reduction_text(v, toy));
    }
    e
}

/// With no analysis on show: the readouts of panels 3, 4 and 6 and panel 9's read "–", panel
/// 9's note and worst classes are hidden, and the inspector is emptied if it `shows` an item.
pub fn alpha_cleared(shows: bool) -> Edits {
    let mut e = Edits::new();
    for id in ALPHA_READOUTS {
        e.text(id, "–");
    }
    e.hidden(ids::CLASSES_NOTE, true).text(ids::CLASSES_READOUT, "–").hidden(ids::WORST_HEADING, true);
    if shows {
        e.extend(super::inspector_cleared());
    }
    e
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

impl ClassesView {
    /// Panel 9's note, readout and worst classes' heading.
    pub fn edits(&self) -> Edits {
        let mut e = Edits::new();
        e.hidden(ids::CLASSES_NOTE, self.note.is_none()).text(ids::CLASSES_NOTE, self.note.unwrap_or(""));
        e.text(ids::CLASSES_READOUT, self.readout.as_str()).hidden(ids::WORST_HEADING, self.worst.is_empty());
        e
    }
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

/// Panel 9's worst classes as list items, a button each that opens the inspector on a test
/// item of its class (the line escaped: a class name is the file's, never markup).
pub fn worst_html(worst: &[(usize, String)]) -> String {
    let title = "Open the item inspector on a test item of this class";
    let item = |(class, line): &(usize, String)| {
        format!(
            "<li><button type=\"button\" data-class=\"{class}\" title=\"{title}\">{}</button></li>",
            esc(line)
        )
    };
    worst.iter().map(item).collect()
}
