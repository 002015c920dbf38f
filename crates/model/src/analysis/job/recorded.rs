//! The paper's three methods' results as the job records them: per method one calibration and
//! its label facts per split, in split order, and the coverage and size sums against α.

use super::baseline::FIRST_BASELINE;
use crate::analysis::{internal, LabelInfo, SweepCurves};
use rvalue_core::conformal::{self, Calibrated};
use rvalue_core::Result;

/// The paper's three methods' calibrations and label facts, and every method's curves.
pub(in crate::analysis) type PaperResults = ([Vec<Calibrated>; 3], [Vec<LabelInfo>; 3], [SweepCurves; 2]);

/// The results recorded so far.
#[derive(Debug)]
pub(in crate::analysis) struct Recorded {
    calibrated: [Vec<Calibrated>; 3],
    label_info: [Vec<LabelInfo>; 3],
    /// `[never_empty = false, true]`, of every method that is on (baselines after the paper's).
    sweeps: [SweepCurves; 2],
}

impl Recorded {
    /// Nothing recorded, with sums for `methods` methods.
    pub(in crate::analysis) fn new(methods: usize) -> Self {
        Recorded {
            calibrated: Default::default(),
            label_info: Default::default(),
            sweeps: [SweepCurves::zero(false, methods), SweepCurves::zero(true, methods)],
        }
    }

    /// Splits of method `mi` recorded.
    pub(in crate::analysis) fn splits(&self, mi: usize) -> usize {
        self.calibrated[mi].len()
    }

    /// Adds method `mi`'s calibration of the next split in order to the results and sums.
    pub(in crate::analysis) fn take_in(&mut self, mi: usize, c: Calibrated) {
        let info = LabelInfo::of(&c);
        self.sum(mi, &c);
        self.calibrated[mi].push(c);
        self.label_info[mi].push(info);
    }

    /// Adds one split of method `mi` (a baseline's too) to the coverage and size sums (both
    /// never-empty settings), in split order exactly as `conformal::sweep` sums them.
    pub(in crate::analysis) fn sum(&mut self, mi: usize, c: &Calibrated) {
        for sw in self.sweeps.iter_mut() {
            let per = c.sweep(&sw.alphas, sw.never_empty);
            for (j, (cov, size)) in per.into_iter().enumerate() {
                sw.coverage[mi][j] += cov;
                sw.size[mi][j] += size;
            }
        }
    }

    /// Every split is in: the sums become means.
    pub(in crate::analysis) fn mean_over_splits(&mut self) {
        let splits = self.calibrated[0].len();
        for sw in self.sweeps.iter_mut() {
            sw.mean_over(splits);
        }
    }

    /// The first `done` splits of every method, when each method holds exactly that many (between
    /// toy repeats), with the paper's methods' curves over them.
    pub(in crate::analysis) fn first(&self, done: usize) -> Option<PaperResults> {
        if self.calibrated.iter().any(|c| c.len() != done) {
            return None;
        }
        let calibrated = std::array::from_fn(|mi| self.calibrated[mi][..done].to_vec());
        let label_info = std::array::from_fn(|mi| self.label_info[mi][..done].to_vec());
        // The baselines come after every repeat: a partial analysis shows the paper's three.
        let sweeps = self.sweeps.clone().map(|mut sw| {
            sw.truncate(FIRST_BASELINE);
            sw.mean_over(done);
            sw
        });
        Some((calibrated, label_info, sweeps))
    }

    /// The one-shot build's results: every method's calibrations at once (`all`, the paper's
    /// three first), with the curves `conformal::sweep` makes of them; the baselines' back.
    pub(in crate::analysis) fn set_whole(
        &mut self,
        mut all: Vec<Vec<Calibrated>>,
    ) -> Result<Vec<Vec<Calibrated>>> {
        for sw in self.sweeps.iter_mut() {
            for (mi, cals) in all.iter().enumerate() {
                let curve = conformal::sweep(cals, &sw.alphas, sw.never_empty);
                sw.coverage[mi] = curve.iter().map(|c| c.0).collect();
                sw.size[mi] = curve.iter().map(|c| c.1).collect();
            }
        }
        let baselines = all.split_off(FIRST_BASELINE);
        let paper: [Vec<Calibrated>; 3] =
            all.try_into().map_err(|_| internal("the paper's three methods are not three"))?;
        self.label_info = std::array::from_fn(|mi| paper[mi].iter().map(LabelInfo::of).collect());
        self.calibrated = paper;
        Ok(baselines)
    }

    /// The calibrations, their label facts and the curves.
    pub(in crate::analysis) fn into_parts(self) -> PaperResults {
        (self.calibrated, self.label_info, self.sweeps)
    }
}
