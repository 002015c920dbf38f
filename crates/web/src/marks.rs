//! Performance marks: moments the browser tests (and benchmarks) wait for, where no state of
//! the page shows them.

/// Records the performance mark `name`.
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// The mark of an answer (of the GPU or a worker) for a job since replaced or cancelled, which
/// the page drops.
pub const DROPPED_ANSWER: &str = "rvalue:dropped-answer";

/// The mark of a share of a streamed file's items sent to be read (by the page or a worker):
/// how a script tells that an analysis read the file again.
pub const SHARE_READ: &str = "rvalue:share-read";
