//! Work computed in other threads (the page's Web Workers): the job hands out a toy repeat, or
//! a score file's pooled split, as a short text; another thread computes it with
//! [`compute_part`] (the job's own steps) or [`HeldData::compute_split`] (the core's pooled
//! calibration, which the job's steps equal) and returns bytes; the job records repeats and
//! splits in order whoever computed them, so the numbers are those of one thread. Nothing here
//! knows of threads: a caller that never hands out leaves the job as it was.

use super::{AnalysisJob, Source};
use crate::url::UrlState;
use crate::Controls;
use rvalue_core::conformal::{check_data, write_calibrations, Calibrated, Split};
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
