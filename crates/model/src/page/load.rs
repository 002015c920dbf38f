//! What the page says of a file it loads, and what a file read a block at a time changes in
//! the controls.

use rvalue_core::conformal::RvalueKind;

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
/// pooled splits of a file held whole (`held`; a pool's splits run in the page).
pub fn uses_workers(c: &Controls, streamed: bool, held: bool) -> bool {
    match c.mode {
        Mode::Toy => c.toy.repeats > 1,
        Mode::Scores => streamed || c.score.kind == RvalueKind::Pooled && c.splits > 1 && held,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn load_sentences() {
        assert!(no_labels("x.npy").starts_with("x.npy has no labels") && no_labels("x").ends_with(UNCHANGED));
        assert_eq!(load_failed("x.npy: bad header."), format!("x.npy: bad header. {UNCHANGED}"));
        assert_eq!(loaded("a.npz", None), "Loaded a.npz: the data stays in this page.");
        assert!(loaded("a.npz", Some("Pool read.")).ends_with("page. Pool read."));
        let c = Controls::default();
        let s = opened_streamed("big.npy", (1000, 30, 10), 2_400_000_000, &c);
        assert!(s.starts_with("Opened big.npy (1000 × 30 × 10, 2.4 GB)"), "{s}");
        assert_eq!(
            s.contains("CP_r starts with the nonparametric"),
            streamed_kind(&c.for_mode(Mode::Scores), true).is_some()
        );
    }

    #[test]
    fn a_streamed_file_starts_nonparametric() {
        let mut c = Controls::default().for_mode(Mode::Scores);
        c.score.kind = RvalueKind::Pooled;
        assert_eq!(streamed_kind(&c, true), Some(RvalueKind::Nonparametric));
        assert_eq!(streamed_kind(&c, false), None, "held whole");
        c.score.kind = RvalueKind::Parametric;
        assert_eq!(streamed_kind(&c, true), None);
        assert_eq!(streamed_kind(&Controls::default(), true), None, "the toy");
    }

    #[test]
    fn who_computes_a_jobs_parts() {
        let mut c = Controls::default();
        c.toy.repeats = 1;
        assert!(!uses_workers(&c, false, false));
        c.toy.repeats = 4;
        assert!(uses_workers(&c, false, false));
        let mut s = Controls::default().for_mode(Mode::Scores);
        s.score.kind = RvalueKind::Pooled;
        s.splits = 3;
        assert!(uses_workers(&s, false, true));
        assert!(!uses_workers(&s, false, false), "a pool's splits run in the page");
        assert!(uses_workers(&s, true, false), "a streamed file's shares");
        s.splits = 1;
        assert!(!uses_workers(&s, false, true));
    }
}
