//! A score file's pooled CP_r per split: who calibrates each split (they can be handed out
//! like toy repeats), and the splits calibrated before their turn to be recorded.

use std::collections::BTreeMap;

use super::claims::{Claim, Claims};
use rvalue_core::conformal::Calibrated;

/// Pooled CP_r's splits of a score file; empty for any other analysis.
#[derive(Debug, Default)]
pub(in crate::analysis) struct SplitQueue {
    claims: Claims,
    /// Splits of the current data set whose CP and CP_avg are done.
    next: usize,
    /// Pooled CP_r of splits done before their turn to be recorded (one each; the map's type
    /// is the data sets' one, which keeps the page's wasm from holding a second copy of its
    /// code).
    early: BTreeMap<usize, Vec<Calibrated>>,
}

impl SplitQueue {
    pub(in crate::analysis) fn new(claims: Claims) -> Self {
        SplitQueue { claims, next: 0, early: BTreeMap::new() }
    }

    /// Whether pooled CP_r's splits are queued here (a score file's), rather than recorded as
    /// the other methods'.
    pub(in crate::analysis) fn is_on(&self) -> bool {
        !self.claims.is_empty()
    }

    pub(in crate::analysis) fn len(&self) -> usize {
        self.claims.len()
    }

    pub(in crate::analysis) fn claims(&self) -> &Claims {
        &self.claims
    }

    pub(in crate::analysis) fn claims_mut(&mut self) -> &mut Claims {
        &mut self.claims
    }

    /// A data set starts: none of its splits is done.
    pub(in crate::analysis) fn restart(&mut self) {
        self.next = 0;
    }

    /// The first split whose CP and CP_avg are not done.
    pub(in crate::analysis) fn next(&self) -> usize {
        self.next
    }

    /// CP and CP_avg of split `r` are done.
    pub(in crate::analysis) fn passed(&mut self, r: usize) {
        self.next = r + 1;
    }

    /// Keeps pooled CP_r of split `r` until its turn.
    pub(in crate::analysis) fn keep(&mut self, r: usize, c: Calibrated) {
        self.early.insert(r, vec![c]);
    }

    /// Split `r`'s pooled CP_r, if it is in: `r` is the next split in order.
    pub(in crate::analysis) fn take(&mut self, r: usize) -> Option<Vec<Calibrated>> {
        self.early.remove(&r)
    }

    /// Whether the job calibrates CP_r on split `r` itself (no other thread has it), given
    /// the splits of pooled CP_r recorded so far.
    pub(in crate::analysis) fn claim(&mut self, r: usize, recorded: usize) -> bool {
        match self.claims.get(r) {
            None => true,
            Some(Claim::Free) => {
                self.claims.set(r, Claim::Job);
                true
            }
            Some(c) => c == Claim::Job && !self.early.contains_key(&r) && recorded <= r,
        }
    }

    /// A split the job passed whose CP_r nobody calibrates (handed back), claimed now.
    pub(in crate::analysis) fn claim_passed(&mut self) -> Option<usize> {
        let r = (0..self.next).find(|&r| self.claims.get(r) == Some(Claim::Free))?;
        self.claims.set(r, Claim::Job);
        Some(r)
    }

    /// Takes the splits from `first` on, calibrated by another thread.
    pub(in crate::analysis) fn supply(
        &mut self,
        first: usize,
        calibrated: impl IntoIterator<Item = Calibrated>,
    ) {
        for (r, c) in (first..).zip(calibrated) {
            self.claims.set(r, Claim::Job);
            self.keep(r, c);
        }
    }

    /// Whether some split is calibrated elsewhere, or not yet by anyone.
    pub(in crate::analysis) fn any_elsewhere(&self) -> bool {
        !self.claims.all_job()
    }
}
