//! The page's address kept in step with its state: the address with a query in place of its
//! own, and the writes a slider's drag makes (one scheduled at a time, taking the newest query),
//! so the address changes a few times per drag, not once per position; and what the Copy link
//! button says.

use crate::edits::Edits;
use crate::ids;

/// `href` with `query` in place of its own (its fragment dropped).
pub fn with_query(href: &str, query: &str) -> String {
    let base = href.split(['?', '#']).next().unwrap_or_default();
    if query.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{query}")
    }
}

/// The address' query as written, and the one a scheduled write will write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrites {
    /// The query the address has, or will have once the pending write runs.
    written: String,
    pending: Option<String>,
}

impl Rewrites {
    /// `current`: the query the address has now.
    pub fn new(current: String) -> Rewrites {
        Rewrites { written: current, pending: None }
    }

    /// Asks for the address to hold `query`; whether a write must be scheduled (none is when
    /// the address holds it, or one is scheduled already, which will write it instead).
    pub fn update(&mut self, query: String) -> bool {
        if query == self.written {
            return false;
        }
        self.written = query.clone();
        self.pending.replace(query).is_none()
    }

    /// The scheduled write's query, now it runs (`None`: written meanwhile).
    pub fn due(&mut self) -> Option<String> {
        self.pending.take()
    }

    /// `query` written at once: a scheduled write is dropped.
    pub fn now(&mut self, query: String) {
        self.pending = None;
        self.written = query;
    }
}

/// The Copy link button's status. `clipboard`: the link went to the clipboard, and the text
/// field it falls back to stays hidden; else the link is shown in that field, selected, and
/// `copied` says whether the browser's copy command took it.
pub fn copy_status(clipboard: bool, copied: bool) -> Edits {
    let mut e = Edits::new();
    if clipboard {
        e.hidden(ids::LINK_TEXT, true);
    }
    e.text(ids::COPY_STATUS, if copied { "Copied" } else { "Press Ctrl+C (⌘C) to copy the selected link" });
    e
}

#[cfg(test)]
mod tests;
