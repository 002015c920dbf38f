//! Work computed in other threads (the page's Web Workers): the job hands out a toy repeat, or
//! a score file's pooled split, as a short text; another thread computes it with
//! [`compute_part`] (the job's own steps) or [`HeldData::compute_split`] (the core's pooled
//! calibration, which the job's steps equal) and returns bytes; the job records repeats and
//! splits in order whoever computed them, so the numbers are those of one thread. Nothing here
//! knows of threads: a caller that never hands out leaves the job as it was.

use super::{internal, AnalysisJob, Claim, Phase, Source, CP_R};
use crate::url::UrlState;
use crate::Controls;
use rvalue_core::conformal::{check_data, read_calibrations, write_calibrations, Calibrated, Split};
use rvalue_core::rvalue::DrawOrder;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

/// A toy repeat or a score file's split handed out of the job: its index, and the request
/// [`compute_part`] or [`HeldData::compute_split`] takes.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOut {
    pub part: usize,
    pub request: String,
    pub work: Work,
}

/// What a [`HandOut`] asks for, and so which function of the other thread computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A toy repeat: [`compute_part`].
    Repeat,
    /// A held score file's pooled split: [`HeldData::compute_split`].
    Split,
    /// A streamed file's share of items: [`ShareRequest`](super::ShareRequest).
    Share,
    /// A streamed file's group of pooled splits: [`StreamedSplits::compute`](super::StreamedSplits::compute).
    Splits,
}

impl AnalysisJob {
    /// Hands the first toy repeat, or score file's pooled split, nobody computes yet to another
    /// thread (never the first, which the job keeps for the panels). `None` when every one is
    /// taken, for a score file's other methods, and before the file's part is loaded.
    pub fn hand_out(&mut self) -> Option<HandOut> {
        let (claims, work) = match self.source {
            Source::Streamed(_) if self.pass.is_some() => return self.hand_out_share(),
            Source::Streamed(_) => return self.hand_out_splits(),
            Source::Toy(_) => (&mut self.claims, Work::Repeat),
            Source::Data(_) if self.part.is_some() => (&mut self.split_claims, Work::Split),
            Source::Data(_) | Source::TrueDraws(..) => return None,
        };
        let part = (1..claims.len()).find(|&p| claims[p] == Claim::Free)?;
        claims[part] = Claim::Out;
        let query = UrlState::with_controls(self.controls.clone()).to_query();
        Some(HandOut { part, request: format!("{part}\n{query}"), work })
    }

    /// Takes repeat `part`, handed out before, as [`compute_part`] returned it.
    pub fn supply_part(&mut self, part: usize, bytes: &[u8]) -> Result<()> {
        if matches!(self.source, Source::Streamed(_)) {
            return match self.pass {
                Some(_) => self.supply_share(part, bytes),
                None => self.supply_splits(part, bytes),
            };
        }
        if !matches!(self.source, Source::Toy(_)) {
            return self.supply_split(part, bytes);
        }
        if self.claims.get(part) != Some(&Claim::Out) {
            return Err(Error::invalid(format!("repeat {part} was not handed out, or is back already")));
        }
        let (index, calibrated) = read_calibrations(bytes)?;
        let Source::Toy(p) = &self.source else { return Err(internal("a toy repeat for a score file")) };
        let test: Vec<usize> = (p.n_cal..p.n()).collect();
        let fits = calibrated.len() == 3 && calibrated.iter().all(|c| c.k == p.k && c.test == test);
        if index != part || !fits {
            return Err(Error::shape(format!(
                "the result handed in for repeat {part} is not one of its shape"
            )));
        }
        self.claims[part] = Claim::Job;
        self.finished.insert(part, calibrated);
        self.flush();
        if self.phase == Phase::Waiting {
            self.next_part();
        }
        Ok(())
    }

    /// Takes a score file's pooled split `r`, handed out before, as
    /// [`HeldData::compute_split`] returned it.
    fn supply_split(&mut self, r: usize, bytes: &[u8]) -> Result<()> {
        if self.split_claims.get(r) != Some(&Claim::Out) {
            return Err(Error::invalid(format!("split {r} was not handed out, or is back already")));
        }
        let (index, mut calibrated) = read_calibrations(bytes)?;
        let part = self.part.as_ref().ok_or_else(|| internal("a split handed out is back after its part"))?;
        let (k, split) = (part.shape().2, &part.splits[r]);
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
        for (r, c) in (first..).zip(calibrated) {
            self.split_claims[r] = Claim::Job;
            self.by_split.insert(r, vec![c]);
        }
        self.take_splits_in_order();
        if self.phase == Phase::Waiting && self.split_claims.iter().all(|&c| c == Claim::Job) {
            self.end_part(false);
        }
    }

    /// Gives repeat or split `part` back (its thread failed): the job computes it itself.
    pub fn hand_back(&mut self, part: usize) {
        if matches!(self.source, Source::Streamed(_)) {
            return match self.pass {
                Some(_) => self.hand_back_share(part),
                None => self.hand_back_splits(part),
            };
        }
        let data = !matches!(self.source, Source::Toy(_));
        let claims = if data { &mut self.split_claims } else { &mut self.claims };
        if let Some(c @ Claim::Out) = claims.get_mut(part) {
            *c = Claim::Free;
            match (self.phase, data) {
                (Phase::Waiting, false) => self.next_part(),
                (Phase::Waiting, true) => {
                    *c = Claim::Job;
                    self.phase = Phase::Calibrate { next: part, method: CP_R };
                }
                _ => {}
            }
        }
    }

    /// Repeats and splits handed out and not back yet.
    pub fn parts_out(&self) -> usize {
        self.claims.iter().chain(&self.split_claims).filter(|&&c| c == Claim::Out).count()
    }

    /// The score file analysed, for a thread that calibrates its splits ([`HeldData`]).
    pub fn data(&self) -> Option<&std::sync::Arc<rvalue_core::io::Dataset>> {
        match &self.source {
            Source::Data(d) => Some(d),
            // Splits on true-label draws are not handed out.
            Source::Toy(_) | Source::TrueDraws(..) | Source::Streamed(_) => None,
        }
    }

    /// The streamed file analysed, for a thread that reads its shares ([`ShareRequest`](super::ShareRequest)).
    pub fn streamed(&self) -> Option<&std::sync::Arc<super::StreamedFile>> {
        match &self.source {
            Source::Streamed(f) => Some(f),
            _ => None,
        }
    }

    /// Computes part `index` alone with the job's own steps; its calibrations per split in
    /// `Method::PAPER` order.
    fn part_alone(mut self, index: usize) -> Result<Vec<Calibrated>> {
        if index >= self.parts_total {
            return Err(Error::invalid(format!(
                "repeat {index} does not exist ({} repeats)",
                self.parts_total
            )));
        }
        self.alone = true;
        self.part_index = index;
        self.phase = Phase::Load;
        while self.phase != Phase::Done {
            self.step()?;
        }
        self.finished.remove(&index).ok_or_else(|| internal("the part computed alone was not kept"))
    }
}

/// Computes the toy repeat a [`HandOut::request`] names; the bytes go to
/// [`AnalysisJob::supply_part`].
pub fn compute_part(request: &str) -> Result<Vec<u8>> {
    let (index, controls) = read_request(request)?;
    let job = AnalysisJob::new(Source::Toy(controls.toy_params()), &controls)?;
    Ok(write_calibrations(index, &job.part_alone(index)?))
}

/// A request's index and settings.
pub(in crate::analysis) fn read_request(request: &str) -> Result<(usize, Controls)> {
    // The index is judged first, as the settings take longer to read.
    let index = request.split_once('\n').and_then(|(i, _)| i.parse().ok()).ok_or_else(bad_request)?;
    Ok((index, split_request(request)?.1))
}

/// A request's first line and settings.
pub(in crate::analysis) fn split_request(request: &str) -> Result<(&str, Controls)> {
    let (head, query) = request.split_once('\n').ok_or_else(bad_request)?;
    let restored = UrlState::from_query(query);
    if let Some(w) = restored.warnings.first() {
        return Err(Error::invalid(format!("the request's settings do not read back: {w}")));
    }
    Ok((head, restored.state.controls))
}

fn bad_request() -> Error {
    Error::invalid("a request for other threads must be '<index>\\n<settings>'")
}

/// A score file held by another thread, which calibrates the pooled splits handed to it: the
/// tensor crosses over once per file, each split's result as a few bytes per test item.
pub struct HeldData {
    tensor: ScoreTensor,
    labels: Vec<usize>,
    /// Made with the first split, kept for the rest.
    order: Option<DrawOrder>,
}

impl HeldData {
    pub fn new(tensor: ScoreTensor, labels: Vec<usize>) -> Result<Self> {
        check_data(&tensor, &labels)?;
        Ok(HeldData { tensor, labels, order: None })
    }

    /// Pooled CP_r on the split a [`HandOut::request`] of a score file names; the bytes go to
    /// [`AnalysisJob::supply_part`].
    pub fn compute_split(&mut self, request: &str) -> Result<Vec<u8>> {
        let (index, controls) = read_request(request)?;
        if index >= controls.splits {
            return Err(Error::invalid("the split asked for does not exist"));
        }
        // Split `index` of the seeded series, as `SplitPlan::splits` makes it for the job.
        let split = &Split::random(self.tensor.n(), controls.cal_fraction, controls.seed, index)?;
        if self.order.is_none() {
            self.order = Some(DrawOrder::of(&self.tensor)?);
        }
        let (ties, coverage) = (controls.score.ties, controls.score.coverage);
        let c =
            Calibrated::pooled_with(&self.tensor, &self.labels, self.order.as_ref(), split, ties, coverage)?;
        Ok(write_calibrations(index, &[c]))
    }
}
