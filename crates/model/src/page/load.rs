//! What the page says of a file it loads, and what a file read a block at a time changes in
//! the controls.

use rvalue_core::conformal::RvalueKind;

use crate::edits::Edits;
use crate::ids;
use crate::{Controls, Mode};

/// What a failed load leaves on the page.
pub const UNCHANGED: &str = "The results shown are unchanged.";

/// A file `name` without labels, which conformal prediction cannot use.
pub fn no_labels(name: &str) -> String {
    // The file's name opens the sentence as it is spelled.
    format!(
        "{name} has no labels: conformal prediction needs the true label of every item \
         (an .npz member 'labels', a CSV column 'label', or a second .npy named *labels*). \
         {UNCHANGED}"
    )
}

/// A failed load's message `msg` (a file's name may open it, spelled as it is).
pub fn load_failed(msg: &str) -> String {
    format!("{}. {UNCHANGED}", msg.trim_end_matches('.'))
}

/// A loaded file put in place, `what` saying what it is: the error line hidden, its name
/// shown and, when the link asked for an `upload`, the note asking for it hidden (it has done
/// its job).
pub fn put_in(what: &str, upload: bool) -> Edits {
    let mut e = super::form::error(None);
    e.text(ids::DATA_NAME, what);
    if upload {
        e.hidden(ids::URL_NOTES, true);
    }
    e
}

/// A file `name` read whole, with the reader's `note` on it.
pub fn loaded(name: &str, note: Option<&str>) -> String {
    let what = format!("Loaded {name}: the data stays in this page.");
    match note {
        Some(note) => format!("{what} {note}"),
        None => what,
    }
}

/// A file `name` of `shape` `(N, M, K)` and `bytes` opened to be read a block at a time;
/// `c`: the controls, whose score mode's r-value [`streamed_kind`] may change.
pub fn opened_streamed(name: &str, (n, m, k): (usize, usize, usize), bytes: u64, c: &Controls) -> String {
    let gb = bytes as f64 / 1e9;
    let mut what = format!(
        "Opened {name} ({n} × {m} × {k}, {gb:.1} GB): read a block at a time, never held whole; \
         the data stays in this page."
    );
    if streamed_kind(&c.for_mode(Mode::Scores), true).is_some() {
        what.push_str(
            " CP_r starts with the nonparametric r-value, one read of the file: pooled r-values \
             read it again for every group of splits, and the page says how long before it \
             starts them.",
        );
    }
    what
}

/// The r-value a file read a block at a time (`streamed`) starts with, when it is not `c`'s:
/// pooled r-values (the score files' default) read it again for every group of splits, so a
/// streamed file opens (and score mode starts) with the nonparametric r-value, which reads it
/// once; the reader may then choose pooled, and is told what it costs.
pub fn streamed_kind(c: &Controls, streamed: bool) -> Option<RvalueKind> {
    (streamed && c.mode == Mode::Scores && c.score.kind == RvalueKind::Pooled)
        .then_some(RvalueKind::Nonparametric)
}

/// Whether a job of `c` hands parts to the workers: toy repeats, a streamed file's shares,
/// pooled splits of a file held whole (`held`; true draws' splits run in the page).
pub fn uses_workers(c: &Controls, streamed: bool, held: bool) -> bool {
    match c.mode {
        Mode::Toy => c.toy.repeats > 1,
        Mode::Scores => streamed || c.score.kind == RvalueKind::Pooled && c.splits > 1 && held,
    }
}

#[cfg(test)]
mod tests;
