//! The job's side of the hook for work done outside the core ([`crate::analysis::offload`]):
//! what its next step would compute, and that work's result taken in its place.

use super::{AnalysisJob, Phase};
use crate::analysis::{pooled_items_per_step, Offload, OffloadRequest, Source, CP_R};
use rvalue_core::conformal::{Calibrated, RvalueKind};
use rvalue_core::{Error, Result};

/// The offloadable step the job is at: nonparametric r-values, or pooled split `i`.
#[derive(Debug, Clone, Copy)]
enum Pending {
    Rvalues,
    Split(usize),
}

impl AnalysisJob {
    /// The rank-based work the next step would do, if any: nonparametric r-values before the
    /// first chunk of them, a pooled split before its first test item. `None` for everything
    /// else (parametric r-values, CP, CP_avg, loading).
    pub fn offload(&self) -> Option<OffloadRequest> {
        let part = self.work.part()?;
        let what = match self.pending()? {
            Pending::Rvalues => Offload::Nonparametric,
            Pending::Split(next) => {
                let split = part.splits()[next].clone();
                let items_per_step = pooled_items_per_step(self.inputs.budget(), part.tensor().ok()?, &split);
                let (ties, coverage) = (self.inputs.opts().ties, self.inputs.opts().coverage);
                Offload::Pooled { index: next, split, ties, coverage, items_per_step }
            }
        };
        Some(OffloadRequest {
            what,
            part: self.parts.index(),
            tensor: part.data().clone(),
            labels: part.labels().to_vec(),
        })
    }

    /// The fraction of the job done when the work [`AnalysisJob::offload`] names is `done`
    /// (in `[0, 1]`) done elsewhere, for a progress bar that moves while it runs.
    pub fn fraction_done_offloaded(&self, done: f64) -> f64 {
        match self.pending() {
            Some(_) => self.fraction_with(Some(done.clamp(0.0, 1.0))),
            None => self.fraction_done(),
        }
    }

    /// What [`AnalysisJob::offload`] would name, without copying anything.
    fn pending(&self) -> Option<Pending> {
        let part = self.work.part()?;
        if matches!(self.inputs.source(), Source::TrueDraws(..) | Source::Streamed(_)) {
            // True-label draws' units are not the part's items: the job ranks them itself.
            return None;
        }
        match (self.phase, self.inputs.opts().kind) {
            (Phase::Scores { method: CP_R, next: 0 }, RvalueKind::Nonparametric) if !part.has_rows(CP_R) => {
                Some(Pending::Rvalues)
            }
            (Phase::Calibrate { next, method: CP_R }, RvalueKind::Pooled)
                if self.work.pooled_done().is_none() =>
            {
                Some(Pending::Split(next))
            }
            _ => None,
        }
    }

    /// Takes CP_r's nonparametric r-values `[N][K]` of part `part` computed elsewhere, in place
    /// of the step [`AnalysisJob::offload`] announced as [`Offload::Nonparametric`].
    pub fn supply_rvalues(&mut self, part: usize, rvalues: Vec<f64>) -> Result<()> {
        if part != self.parts.index() || !matches!(self.pending(), Some(Pending::Rvalues)) {
            return Err(stale("nonparametric r-values"));
        }
        let p = self.work.part_mut().ok_or_else(|| stale("nonparametric r-values"))?;
        let (n, _, k) = p.shape();
        if rvalues.len() != n * k {
            return Err(Error::length("r-values", rvalues.len(), format!("{n} items × {k} candidates")));
        }
        p.set_scores(CP_R, Some(rvalues));
        self.phase = Phase::Calibrate { next: 0, method: 0 };
        Ok(())
    }

    /// Takes pooled CP_r on split number `index` of part `part` computed elsewhere (e.g.
    /// `Calibrated::from_pooled_items`), in place of the step announced as [`Offload::Pooled`].
    pub fn supply_pooled(&mut self, part: usize, index: usize, c: Calibrated) -> Result<()> {
        let current =
            part == self.parts.index() && matches!(self.pending(), Some(Pending::Split(i)) if i == index);
        let Some(p) = self.work.part().filter(|_| current) else { return Err(stale("a pooled split")) };
        let (wanted, k) = (&p.splits()[index], p.shape().2);
        if c.test != wanted.test || c.k != k {
            return Err(Error::shape(format!(
                "a pooled split of {} test items × K = {} for one of {} × {k}",
                c.test.len(),
                c.k,
                wanted.test.len()
            )));
        }
        self.record(index, CP_R, c);
        Ok(())
    }
}

fn stale(what: &str) -> Error {
    Error::invalid(format!("{what} handed in for a step the analysis is not at"))
}
