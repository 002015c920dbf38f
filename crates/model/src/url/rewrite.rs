//! The page's address kept in step with its state: the address with a query in place of its
//! own, and the writes a slider's drag makes (one scheduled at a time, taking the newest query),
//! so the address changes a few times per drag, not once per position.

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

#[cfg(test)]
mod tests;
