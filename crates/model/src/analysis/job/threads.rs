//! The job's side of work done in other threads ([`crate::analysis::hand_out`]): handing toy
//! repeats and a score file's pooled splits out, taking them back, and computing one repeat
//! alone for another thread.

use super::{AnalysisJob, Claim, Phase};
use crate::analysis::{internal, HandOut, Source, StreamedFile, Work, CP_R};
use crate::url::UrlState;
use rvalue_core::conformal::{read_calibrations, Calibrated};
use rvalue_core::io::Dataset;
use rvalue_core::{Error, Result};
use std::sync::Arc;

impl AnalysisJob {
    /// Hands the first toy repeat, or score file's pooled split, nobody computes yet to another
    /// thread (never the first, which the job keeps for the panels). `None` when every one is
    /// taken, for a score file's other methods, and before the file's part is loaded.
    pub fn hand_out(&mut self) -> Option<HandOut> {
        let (claims, work) = match self.inputs.source() {
            Source::Streamed(_) if self.pass.is_some() => return self.hand_out_share(),
            Source::Streamed(_) => return self.hand_out_splits(),
            Source::Toy(_) => (self.parts.claims_mut(), Work::Repeat),
            Source::Data(_) if self.work.part().is_some() => (self.splits.claims_mut(), Work::Split),
            Source::Data(_) | Source::TrueDraws(..) => return None,
        };
        let part = claims.hand_out()?;
        let query = UrlState::with_controls(self.inputs.controls().clone()).to_query();
        Some(HandOut { part, request: format!("{part}\n{query}"), work })
    }

    /// Takes repeat `part`, handed out before, as [`compute_part`](crate::compute_part)
    /// returned it.
    pub fn supply_part(&mut self, part: usize, bytes: &[u8]) -> Result<()> {
        if matches!(self.inputs.source(), Source::Streamed(_)) {
            return match self.pass {
                Some(_) => self.supply_share(part, bytes),
                None => self.supply_splits(part, bytes),
            };
        }
        let Source::Toy(p) = self.inputs.source() else { return self.supply_split(part, bytes) };
        if self.parts.claims().get(part) != Some(Claim::Out) {
            return Err(Error::invalid(format!("repeat {part} was not handed out, or is back already")));
        }
        let (index, calibrated) = read_calibrations(bytes)?;
        let test: Vec<usize> = (p.n_cal..p.n()).collect();
        let fits = calibrated.len() == 3 && calibrated.iter().all(|c| c.k == p.k && c.test == test);
        if index != part || !fits {
            return Err(Error::shape(format!(
                "the result handed in for repeat {part} is not one of its shape"
            )));
        }
        self.parts.supply(part, calibrated);
        self.flush();
        if self.phase == Phase::Waiting {
            self.next_part();
        }
        Ok(())
    }

    /// Takes a score file's pooled split `r`, handed out before, as
    /// [`HeldData::compute_split`](crate::HeldData::compute_split) returned it.
    fn supply_split(&mut self, r: usize, bytes: &[u8]) -> Result<()> {
        if self.splits.claims().get(r) != Some(Claim::Out) {
            return Err(Error::invalid(format!("split {r} was not handed out, or is back already")));
        }
        let (index, mut calibrated) = read_calibrations(bytes)?;
        let part = self.work.part().ok_or_else(|| internal("a split handed out is back after its part"))?;
        let (k, split) = (part.shape().2, &part.splits()[r]);
        let fits = |c: &Calibrated| c.k == k && c.test == split.test && c.per_item_threshold();
        let Some(c) = calibrated.pop().filter(|c| index == r && calibrated.is_empty() && fits(c)) else {
            return Err(Error::shape(format!("the result handed in for split {r} is not one of its shape")));
        };
        self.record_splits(r, [c]);
        Ok(())
    }

    /// Records the splits from `first` on calibrated by another thread, in split order, and ends
    /// the part once every split is in.
    pub(in crate::analysis) fn record_splits(
        &mut self,
        first: usize,
        calibrated: impl IntoIterator<Item = Calibrated>,
    ) {
        self.splits.supply(first, calibrated);
        self.take_splits_in_order();
        if self.phase == Phase::Waiting && self.splits.claims().all_job() {
            self.end_part(false);
        }
    }

    /// Gives repeat or split `part` back (its thread failed): the job computes it itself.
    pub fn hand_back(&mut self, part: usize) {
        if matches!(self.inputs.source(), Source::Streamed(_)) {
            return match self.pass {
                Some(_) => self.hand_back_share(part),
                None => self.hand_back_splits(part),
            };
        }
        let data = !matches!(self.inputs.source(), Source::Toy(_));
        let claims = if data { self.splits.claims_mut() } else { self.parts.claims_mut() };
        if claims.hand_back(part) {
            match (self.phase, data) {
                (Phase::Waiting, false) => self.next_part(),
                (Phase::Waiting, true) => {
                    self.splits.claims_mut().set(part, Claim::Job);
                    self.phase = Phase::Calibrate { next: part, method: CP_R };
                }
                _ => {}
            }
        }
    }

    /// Repeats and splits handed out and not back yet.
    pub fn parts_out(&self) -> usize {
        self.parts.claims().out() + self.splits.claims().out()
    }

    /// The score file analysed, for a thread that calibrates its splits
    /// ([`HeldData`](crate::HeldData)).
    pub fn data(&self) -> Option<&Arc<Dataset>> {
        match self.inputs.source() {
            Source::Data(d) => Some(d),
            // Splits on true-label draws are not handed out.
            Source::Toy(_) | Source::TrueDraws(..) | Source::Streamed(_) => None,
        }
    }

    /// The streamed file analysed, for a thread that reads its shares
    /// ([`ShareRequest`](crate::ShareRequest)).
    pub fn streamed(&self) -> Option<&Arc<StreamedFile>> {
        match self.inputs.source() {
            Source::Streamed(f) => Some(f),
            _ => None,
        }
    }

    /// Computes part `index` alone with the job's own steps; its calibrations per split in
    /// `Method::PAPER` order.
    pub(in crate::analysis) fn part_alone(mut self, index: usize) -> Result<Vec<Calibrated>> {
        if index >= self.parts.total() {
            return Err(Error::invalid(format!(
                "repeat {index} does not exist ({} repeats)",
                self.parts.total()
            )));
        }
        self.parts.start_alone(index);
        self.phase = Phase::Load;
        while self.phase != Phase::Done {
            self.step()?;
        }
        self.parts.take_finished(index).ok_or_else(|| internal("the part computed alone was not kept"))
    }
}
