//! The job's steps: loading a data set, its split-independent scores, its calibrations, and
//! recording finished data sets and splits in order.

use super::{AnalysisJob, Phase};
use crate::analysis::{Source, CP_R};
use rvalue_core::conformal::Calibrated;
use rvalue_core::Result;

impl AnalysisJob {
    /// Loads the data set the job is at (a streamed file's through its pass).
    pub(in crate::analysis) fn load(&mut self) -> Result<()> {
        if let Source::Streamed(f) = self.inputs.source() {
            return self.load_streamed(&f.clone());
        }
        self.work.load(&self.inputs, self.parts.index())?;
        self.phase = Phase::Scores { method: 0, next: 0 };
        self.splits.restart();
        Ok(())
    }

    /// Item scores: CP and CP_avg in one step each, CP_r's r-values in chunks of items.
    pub(in crate::analysis) fn scores(&mut self, method: usize, next: usize) -> Result<()> {
        self.phase = self.work.scores(&self.inputs, self.parts.index(), method, next)?;
        Ok(())
    }

    /// Calibrates one method on one split and adds the split to that method's α sweep.
    pub(in crate::analysis) fn calibrate(&mut self, next: usize, mi: usize) -> Result<()> {
        if let Some(c) = self.work.calibrate(&self.inputs, next, mi)? {
            self.record(next, mi, c);
        }
        Ok(())
    }

    /// Keeps method `mi`'s calibration of split `next` and moves on to the next method, split,
    /// part, or the end.
    pub(in crate::analysis) fn record(&mut self, next: usize, mi: usize, c: Calibrated) {
        let whole = self.parts.keeps_whole();
        if mi == CP_R && self.splits.is_on() {
            self.splits.keep(next, c);
            self.take_splits_in_order();
        } else if whole {
            self.parts.keep(c);
        } else {
            self.recorded.take_in(mi, c);
        }
        match self.next_in_part(next, mi) {
            Some(phase) => self.phase = phase,
            // Splits handed out, or (a streamed file's) not yet.
            None if self.splits.any_elsewhere() => self.phase = Phase::Waiting,
            None => self.end_part(whole),
        }
    }

    /// The calibration after method `mi` of split `next`: the next method, CP_r of a split
    /// handed back after the job passed it, or the next split; `None` at the part's end.
    fn next_in_part(&mut self, next: usize, mi: usize) -> Option<Phase> {
        if mi == 0 {
            return Some(Phase::Calibrate { next, method: 1 });
        }
        if mi == 1 {
            self.splits.passed(next);
            if self.claim_split(next) {
                return Some(Phase::Calibrate { next, method: CP_R });
            }
        }
        if !self.streamed_pooled() {
            if let Some(r) = self.splits.claim_passed() {
                return Some(Phase::Calibrate { next: r, method: CP_R });
            }
        }
        let splits = self.work.part().map_or(0, |p| p.splits().len());
        let first_left = self.splits.next();
        (first_left < splits).then_some(Phase::Calibrate { next: first_left, method: 0 })
    }

    /// Whether the job calibrates CP_r on split `r` itself (no other thread has it).
    fn claim_split(&mut self, r: usize) -> bool {
        !self.streamed_pooled() && self.splits.claim(r, self.recorded.splits(CP_R))
    }

    /// Records pooled CP_r's splits that are next in split order.
    pub(in crate::analysis) fn take_splits_in_order(&mut self) {
        while let Some(c) = self.splits.take(self.recorded.splits(CP_R)) {
            c.into_iter().for_each(|c| self.recorded.take_in(CP_R, c));
        }
    }

    /// The current part is calibrated: keeps it, and moves to the next part or the end.
    pub(in crate::analysis) fn end_part(&mut self, whole: bool) {
        let done = self.work.take_part();
        if let Some(p) = &done {
            self.keep_rows(p);
        }
        if self.parts.index() == 0 {
            self.work.set_first(done);
        }
        self.parts.end(whole);
        if self.parts.alone() {
            self.phase = Phase::Done;
            return;
        }
        self.flush();
        self.next_part();
    }

    /// Records the finished parts that are next in part order, so that every sum over parts
    /// adds them in the same order wherever they were computed.
    pub(in crate::analysis) fn flush(&mut self) {
        while let Some(out) = self.parts.next_in_order() {
            for (j, c) in out.into_iter().enumerate() {
                self.recorded.take_in(j % 3, c);
            }
        }
    }

    /// Moves to the first part nobody computes yet; else waits for parts handed out; else ends.
    pub(in crate::analysis) fn next_part(&mut self) {
        if self.parts.claim_next().is_some() {
            self.phase = Phase::Load;
        } else if !self.parts.all_recorded() {
            self.phase = Phase::Waiting;
        } else {
            self.after_parts();
        }
    }

    /// Splits of CP recorded so far (for tests: a score file's are recorded one by one).
    #[cfg(test)]
    pub(crate) fn recorded_splits(&self) -> usize {
        self.recorded.splits(0)
    }
}
