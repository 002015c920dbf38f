//! Toy repeats computed in other threads (the page's Web Workers): the job hands out a repeat
//! as a short text, another thread computes it with [`compute_part`] (the job's own steps, so
//! the same bits) and returns bytes, and the job records the repeats in order whoever computed
//! them. Nothing here knows of threads: a caller that never hands out leaves the job as it was.

use super::{internal, AnalysisJob, Claim, Phase, Source};
use crate::conformal::{read_calibrations, write_calibrations, Calibrated};
use crate::explorer::url::UrlState;
use crate::{Error, Result};

/// A toy repeat handed out of the job: its index, and the request [`compute_part`] takes.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOut {
    pub part: usize,
    pub request: String,
}

impl AnalysisJob {
    /// Hands the first toy repeat nobody computes yet to another thread (never the first
    /// repeat, whose data the job keeps for the panels). `None` for score files (one data set)
    /// or when every repeat is taken.
    pub fn hand_out(&mut self) -> Option<HandOut> {
        if !matches!(self.source, Source::Toy(_)) {
            return None;
        }
        let part = (1..self.parts_total).find(|&p| self.claims[p] == Claim::Free)?;
        self.claims[part] = Claim::Out;
        let query = UrlState::with_controls(self.controls.clone()).to_query();
        Some(HandOut { part, request: format!("{part}\n{query}") })
    }

    /// Takes repeat `part`, handed out before, as [`compute_part`] returned it.
    pub fn supply_part(&mut self, part: usize, bytes: &[u8]) -> Result<()> {
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

    /// Gives repeat `part` back (its thread failed): the job computes it itself.
    pub fn hand_back(&mut self, part: usize) {
        if let Some(c @ Claim::Out) = self.claims.get_mut(part) {
            *c = Claim::Free;
            if self.phase == Phase::Waiting {
                self.next_part();
            }
        }
    }

    /// Repeats handed out and not back yet.
    pub fn parts_out(&self) -> usize {
        self.claims.iter().filter(|&&c| c == Claim::Out).count()
    }

    /// Computes part `index` alone with the job's own steps; its calibrations per split in
    /// `Method::ALL` order.
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
    let bad = || Error::invalid("a repeat request must be '<repeat>\\n<settings>'");
    let (index, query) = request.split_once('\n').ok_or_else(bad)?;
    let index: usize = index.parse().map_err(|_| bad())?;
    let restored = UrlState::from_query(query);
    if let Some(w) = restored.warnings.first() {
        return Err(Error::invalid(format!("the repeat's settings do not read back: {w}")));
    }
    let controls = restored.state.controls;
    let job = AnalysisJob::new(Source::Toy(controls.toy_params()), &controls)?;
    Ok(write_calibrations(index, &job.part_alone(index)?))
}
