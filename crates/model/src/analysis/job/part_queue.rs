//! The job's data sets (toy repeats; a score file is one): which one the job computes, who
//! computes the others, and the finished ones waiting for their turn to be recorded, so that
//! every sum over data sets adds them in one order wherever they were computed.

use std::collections::BTreeMap;

use super::claims::{Claim, Claims};
use rvalue_core::conformal::Calibrated;

/// The job's data sets and their order of recording.
#[derive(Debug)]
pub(in crate::analysis) struct PartQueue {
    total: usize,
    /// The data set the job is computing (they may finish out of order when some are handed out).
    index: usize,
    /// Data sets recorded, which the results take in order.
    recorded: usize,
    claims: Claims,
    /// Finished data sets not yet recorded: their calibrations, per split in `Method::PAPER`
    /// order.
    finished: BTreeMap<usize, Vec<Calibrated>>,
    /// The current data set's calibrations so far, when it is kept whole.
    current: Vec<Calibrated>,
    /// Computing one data set for another thread: stop after it.
    alone: bool,
}

impl PartQueue {
    /// `total` data sets, the job at the first.
    pub(in crate::analysis) fn new(total: usize) -> Self {
        PartQueue {
            total,
            index: 0,
            recorded: 0,
            claims: Claims::new(total, true),
            finished: BTreeMap::new(),
            current: Vec::new(),
            alone: false,
        }
    }

    pub(in crate::analysis) fn total(&self) -> usize {
        self.total
    }

    /// The data set the job is computing.
    pub(in crate::analysis) fn index(&self) -> usize {
        self.index
    }

    /// Data sets recorded (the first ones, in order).
    pub(in crate::analysis) fn recorded(&self) -> usize {
        self.recorded
    }

    /// Data sets finished, recorded or not.
    pub(in crate::analysis) fn done(&self) -> usize {
        self.recorded + self.finished.len()
    }

    pub(in crate::analysis) fn claims(&self) -> &Claims {
        &self.claims
    }

    pub(in crate::analysis) fn claims_mut(&mut self) -> &mut Claims {
        &mut self.claims
    }

    /// Whether the job computes one data set alone, for another thread.
    pub(in crate::analysis) fn alone(&self) -> bool {
        self.alone
    }

    /// Computes data set `index` alone from now on.
    pub(in crate::analysis) fn start_alone(&mut self, index: usize) {
        self.alone = true;
        self.index = index;
    }

    /// Whether the current data set's calibrations are kept whole until it ends, rather than
    /// recorded as they come: the data set next in order is recorded as it goes (a score
    /// file's hundred splits would otherwise all be summed in its last step), one started
    /// ahead of its turn is kept whole, even when its turn comes meanwhile.
    pub(in crate::analysis) fn keeps_whole(&self) -> bool {
        self.alone || self.index != self.recorded || !self.current.is_empty()
    }

    /// Keeps a calibration of the current data set, kept whole.
    pub(in crate::analysis) fn keep(&mut self, c: Calibrated) {
        self.current.push(c);
    }

    /// The current data set is done: kept until its turn when `whole`, else counted recorded.
    pub(in crate::analysis) fn end(&mut self, whole: bool) {
        if whole {
            self.finished.insert(self.index, std::mem::take(&mut self.current));
        } else {
            self.recorded += 1;
        }
    }

    /// The finished data set next in order, if it is in, counted recorded.
    pub(in crate::analysis) fn next_in_order(&mut self) -> Option<Vec<Calibrated>> {
        let out = self.finished.remove(&self.recorded)?;
        self.recorded += 1;
        Some(out)
    }

    /// Moves the job to the first data set nobody computes yet, if any.
    pub(in crate::analysis) fn claim_next(&mut self) -> Option<usize> {
        let p = self.claims.first_free()?;
        self.claims.set(p, Claim::Job);
        self.index = p;
        Some(p)
    }

    /// Whether every data set is recorded.
    pub(in crate::analysis) fn all_recorded(&self) -> bool {
        self.recorded >= self.total
    }

    /// Takes data set `part`, computed by another thread.
    pub(in crate::analysis) fn supply(&mut self, part: usize, calibrated: Vec<Calibrated>) {
        self.claims.set(part, Claim::Job);
        self.finished.insert(part, calibrated);
    }

    /// Data set `index`'s calibrations, finished and not recorded.
    pub(in crate::analysis) fn take_finished(&mut self, index: usize) -> Option<Vec<Calibrated>> {
        self.finished.remove(&index)
    }
}
