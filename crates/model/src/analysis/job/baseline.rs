//! The baselines' steps (APS, RAPS, SAPS), once the paper's three methods are recorded: per
//! data set its class probabilities sorted once, then one method on one split per step, as
//! the core's `Ranked::calibrate_each` calibrates them for the command line.

use super::{AnalysisJob, Phase};
use crate::analysis::streamed_file::ReadProbabilities;
use crate::analysis::{internal, LabelInfo, PartTensor, Source};
use rvalue_core::conformal::{Calibrated, Method, Ranked, Split};
use rvalue_core::probability::{self, ScoresAre};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::toy;
use rvalue_core::Result;
use std::sync::Arc;

/// A data set the baselines calibrate on: its index, labels, splits and sorted probabilities.
type DataSet = (usize, Vec<usize>, Vec<Split>, Arc<Ranked>);

/// The baselines being computed, and their results so far.
#[derive(Debug, Default)]
pub(in crate::analysis) struct BaselineWork {
    /// The baselines that are on, in `Method::BASELINES` order.
    pub(in crate::analysis) methods: Vec<Method>,
    pub(in crate::analysis) calibrated: Vec<Vec<Calibrated>>,
    pub(in crate::analysis) label_info: Vec<Vec<LabelInfo>>,
    /// How the first data set's scores were read (`auto` decided).
    pub(in crate::analysis) read_as: Option<ScoresAre>,
    /// A streamed file's class probabilities, sorted as its shares came in (its items are not
    /// held to make them from).
    pub(in crate::analysis) streamed: Option<ReadProbabilities>,
    /// The data set being calibrated: its index, labels, splits and sorted probabilities.
    data: Option<DataSet>,
}

impl BaselineWork {
    pub(in crate::analysis) fn new(methods: Vec<Method>) -> Self {
        let n = methods.len();
        BaselineWork {
            methods,
            calibrated: vec![Vec::new(); n],
            label_info: vec![Vec::new(); n],
            read_as: None,
            streamed: None,
            data: None,
        }
    }
}

/// Where the paper's three methods' results end and the baselines' begin.
pub(in crate::analysis) const FIRST_BASELINE: usize = 3;

impl AnalysisJob {
    /// After the paper's methods: the baselines' first step, or the end.
    pub(in crate::analysis) fn after_parts(&mut self) {
        if self.baseline.methods.is_empty() || self.baselines_done() {
            let splits = self.calibrated[0].len();
            for sw in self.sweeps.iter_mut() {
                sw.mean_over(splits);
            }
            self.phase = Phase::Done;
        } else {
            self.phase = Phase::Baseline { part: 0, method: 0, next: 0 };
        }
    }

    /// The fraction done `f` of the paper's methods, with the baselines' share after it.
    pub(in crate::analysis) fn with_baselines(&self, f: f64) -> f64 {
        let n = self.baseline.methods.len();
        if n == 0 || self.phase == Phase::Done {
            return f;
        }
        let done: usize = self.baseline.calibrated.iter().map(Vec::len).sum();
        let all = (n * self.calibrated[0].len()).max(1);
        let b = if matches!(self.phase, Phase::Baseline { .. }) { done as f64 / all as f64 } else { 0.0 };
        0.8 * f + 0.2 * b.min(1.0)
    }

    fn baselines_done(&self) -> bool {
        self.baseline.calibrated.first().is_some_and(|c| c.len() == self.calibrated[0].len())
    }

    /// Sorts data set `part`'s probabilities (a step of its own), or calibrates baseline
    /// `method` on its split `next`.
    pub(in crate::analysis) fn baseline_step(
        &mut self,
        part: usize,
        method: usize,
        next: usize,
    ) -> Result<()> {
        if self.baseline.data.as_ref().map(|d| d.0) != Some(part) {
            self.baseline.data = None;
            let data = self.baseline_data(part)?;
            self.baseline.data = Some(data);
            return Ok(());
        }
        let Some((_, labels, splits, ranked)) = &self.baseline.data else {
            return Err(internal("the baselines' data set is gone"));
        };
        let m = self.baseline.methods[method];
        let mut out = None;
        let how = (self.opts.coverage, 1);
        let one = std::slice::from_ref(&splits[next]);
        ranked.calibrate_each(m, &self.opts.baseline, labels, how, one, |_, c| {
            out = Some(c);
            Ok(())
        })?;
        let c = out.ok_or_else(|| internal("a baseline's split was not calibrated"))?;
        let splits_here = splits.len();
        Self::add_to_sweeps(&mut self.sweeps, FIRST_BASELINE + method, &c);
        self.baseline.label_info[method].push(LabelInfo::of(&c));
        self.baseline.calibrated[method].push(c);
        self.phase = if next + 1 < splits_here {
            Phase::Baseline { part, method, next: next + 1 }
        } else if method + 1 < self.baseline.methods.len() {
            Phase::Baseline { part, method: method + 1, next: 0 }
        } else if part + 1 < self.parts_total {
            Phase::Baseline { part: part + 1, method: 0, next: 0 }
        } else {
            self.baseline.data = None;
            self.after_parts();
            return Ok(());
        };
        Ok(())
    }

    /// Data set `part`'s labels, splits and sorted class probabilities: the kept first data
    /// set, or a toy repeat simulated again (its scores are not kept).
    fn baseline_data(&mut self, part: usize) -> Result<DataSet> {
        let first = self.first_part.as_ref().ok_or_else(|| internal("the first part was not kept"))?;
        if let (Source::Streamed(_), 0) = (&self.source, part) {
            self.opts.baseline.check()?;
            let kept = self.baseline.streamed.as_ref().ok_or_else(|| internal("no class probabilities"))?;
            return Ok((0, first.labels.clone(), first.splits.clone(), kept.ranked.clone()));
        }
        let (tensor, labels, splits) = match (&self.source, part) {
            (_, 0) => (first.tensor.clone(), first.labels.clone(), first.splits.clone()),
            (Source::Toy(p), r) => {
                let (t, y) = toy::simulate(p, r)?;
                let split =
                    Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect()).keyed(p.seed, r as u64);
                (PartTensor::Owned(Arc::new(t)), y, vec![split])
            }
            _ => return Err(internal("a score file has one data set")),
        };
        let ranked = self.ranked(tensor.get()?, part == 0)?;
        Ok((part, labels, splits, Arc::new(ranked)))
    }

    /// `t`'s class probabilities sorted, read as the options say; the first data set's reading
    /// is kept for the page to report.
    fn ranked(&mut self, t: &ScoreTensor, first: bool) -> Result<Ranked> {
        self.opts.baseline.check()?;
        let as_ = probability::resolve(t, self.opts.scores_are)?;
        if first {
            self.baseline.read_as = Some(as_);
        }
        let probs = probability::mean_probabilities_of(t, as_, 0..t.n())?;
        Ranked::of(&probs, t.k(), 1)
    }
}
