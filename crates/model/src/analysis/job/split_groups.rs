//! The job's side of pooled CP_r on a streamed file ([`crate::analysis::streamed_splits`]):
//! groups of splits handed out to threads that read the file, taken back in split order.

use super::{AnalysisJob, Phase};
use crate::analysis::streamed_splits::{group_size, read_reply, splits_request};
use crate::analysis::{internal, HandOut, Source, Work, CP_R};
use crate::url::UrlState;
use rvalue_core::conformal::Calibrated;
use rvalue_core::{Error, Result};

impl AnalysisJob {
    /// The next group of splits nobody calibrates, once the pass has made the part.
    pub(in crate::analysis) fn hand_out_splits(&mut self) -> Option<HandOut> {
        let Source::Streamed(file) = self.inputs.source() else { return None };
        if self.work.part().is_none() || !self.streamed_pooled() {
            return None;
        }
        let group = group_size(file, self.inputs.controls());
        let splits = self.splits.claims_mut().hand_out_group(group)?;
        let query = UrlState::with_controls(self.inputs.controls().clone()).to_query();
        let request = splits_request(splits.start, splits.len(), &query);
        Some(HandOut { part: splits.start, request, work: Work::Splits })
    }

    /// Takes the group of splits starting at `first`, as
    /// [`StreamedSplits::compute`](crate::StreamedSplits) made it.
    pub(in crate::analysis) fn supply_splits(&mut self, first: usize, bytes: &[u8]) -> Result<()> {
        let (index, calibrated, units) = read_reply(bytes)?;
        let part =
            self.work.part_mut().ok_or_else(|| internal("a group of splits is back after its part"))?;
        let (_, m, k) = part.shape();
        let end = first + calibrated.len();
        let out = self.splits.claims().all_out(first..end);
        let fits = |(r, c): (usize, &Calibrated)| {
            c.k == k && c.test == part.splits()[r].test && c.per_item_threshold()
        };
        let units_fit = units.len() == if first == 0 { part.splits()[0].cal.len() * m } else { 0 };
        if index != first
            || calibrated.is_empty()
            || !out
            || !units_fit
            || !(first..).zip(&calibrated).all(fits)
        {
            return Err(Error::shape(format!("the result handed in for splits from {first} is not theirs")));
        }
        if first == 0 {
            part.set_units(units);
        }
        self.record_splits(first, calibrated);
        Ok(())
    }

    /// Gives the group from `first` back (its thread failed): another thread takes it.
    pub(in crate::analysis) fn hand_back_splits(&mut self, first: usize) {
        let Source::Streamed(file) = self.inputs.source() else { return };
        let end = (first + group_size(file, self.inputs.controls())).min(self.splits.len());
        self.splits.claims_mut().hand_back_all(first..end);
    }

    /// The fraction done of pooled CP_r on a streamed file, weighting each read of the file
    /// alike: the pass, then the groups of splits.
    pub(in crate::analysis) fn streamed_pooled_fraction(&self) -> Option<f64> {
        let Source::Streamed(file) = self.inputs.source() else { return None };
        if !self.streamed_pooled() {
            return None;
        }
        let splits = self.splits.len().max(1);
        // A pass weighs as a group's read, when the rows were not kept.
        let pass = if self.read_file { 1.0 } else { 0.0 };
        let pass_share = pass / (pass + splits.div_ceil(group_size(file, self.inputs.controls())) as f64);
        Some(match (self.phase, &self.pass) {
            (Phase::Done, _) => 1.0,
            (Phase::Load, _) => 0.0,
            (_, Some(p)) => pass_share * p.fraction(),
            _ => pass_share + (1.0 - pass_share) * self.recorded.splits(CP_R) as f64 / splits as f64,
        })
    }
}
