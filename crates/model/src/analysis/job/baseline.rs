//! The baselines' steps (APS, RAPS, SAPS), once the paper's three methods are recorded: per
//! data set its class probabilities sorted once, then one method on one split per step, as
//! the core's `Ranked::calibrate_each` calibrates them for the command line.

use super::{AnalysisJob, Phase};
use crate::analysis::streamed_file::ReadProbabilities;
use crate::analysis::{internal, Calibrations, LabelInfo, PartTensor, Source};
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
    methods: Vec<Method>,
    calibrated: Vec<Vec<Calibrated>>,
    label_info: Vec<Vec<LabelInfo>>,
    /// How the first data set's scores were read (`auto` decided).
    read_as: Option<ScoresAre>,
    /// A streamed file's class probabilities, sorted as its shares came in (its items are not
    /// held to make them from).
    streamed: Option<ReadProbabilities>,
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

    /// Whether any baseline is on.
    pub(in crate::analysis) fn any(&self) -> bool {
        !self.methods.is_empty()
    }

    /// The name of baseline `i` among those on (empty beyond them).
    pub(in crate::analysis) fn label(&self, i: usize) -> &'static str {
        self.methods.get(i).map_or("", |m| m.label())
    }

    /// A streamed file's class probabilities sorted, and so its reading.
    pub(in crate::analysis) fn set_streamed(&mut self, ranked: Option<ReadProbabilities>) {
        self.read_as = ranked.as_ref().map(|r| r.read_as);
        self.streamed = ranked;
    }

    /// A streamed file's class probabilities sorted, when a baseline is on.
    pub(in crate::analysis) fn streamed(&self) -> Option<&ReadProbabilities> {
        self.streamed.as_ref()
    }

    /// The one-shot build's results: every baseline's calibrations at once, and the reading of
    /// the first data set.
    pub(in crate::analysis) fn set_whole(
        &mut self,
        calibrated: Vec<Vec<Calibrated>>,
        read_as: Option<ScoresAre>,
    ) {
        self.label_info = calibrated.iter().map(|c| c.iter().map(LabelInfo::of).collect()).collect();
        self.calibrated = calibrated;
        self.read_as = read_as;
    }

    /// The paper's three methods' calibrations followed by the baselines'.
    pub(in crate::analysis) fn calibrations(
        self,
        calibrated: [Vec<Calibrated>; 3],
        label_info: [Vec<LabelInfo>; 3],
    ) -> Calibrations {
        Calibrations::new(
            Method::PAPER.into_iter().chain(self.methods).collect(),
            calibrated.into_iter().chain(self.calibrated).collect(),
            label_info.into_iter().chain(self.label_info).collect(),
            self.read_as,
        )
    }
}

/// Where the paper's three methods' results end and the baselines' begin.
pub(in crate::analysis) const FIRST_BASELINE: usize = 3;

impl AnalysisJob {
    /// After the paper's methods: the baselines' first step, or the end.
    pub(in crate::analysis) fn after_parts(&mut self) {
        if self.baseline.methods.is_empty() || self.baselines_done() {
            self.recorded.mean_over_splits();
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
        let all = (n * self.recorded.splits(0)).max(1);
        let b = if matches!(self.phase, Phase::Baseline { .. }) { done as f64 / all as f64 } else { 0.0 };
        0.8 * f + 0.2 * b.min(1.0)
    }

    fn baselines_done(&self) -> bool {
        self.baseline.calibrated.first().is_some_and(|c| c.len() == self.recorded.splits(0))
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
        let opts = self.inputs.opts();
        let how = (opts.coverage, 1);
        let one = std::slice::from_ref(&splits[next]);
        ranked.calibrate_each(m, &opts.baseline, labels, how, one, |_, c| {
            out = Some(c);
            Ok(())
        })?;
        let c = out.ok_or_else(|| internal("a baseline's split was not calibrated"))?;
        let splits_here = splits.len();
        self.recorded.sum(FIRST_BASELINE + method, &c);
        self.baseline.label_info[method].push(LabelInfo::of(&c));
        self.baseline.calibrated[method].push(c);
        self.phase = if next + 1 < splits_here {
            Phase::Baseline { part, method, next: next + 1 }
        } else if method + 1 < self.baseline.methods.len() {
            Phase::Baseline { part, method: method + 1, next: 0 }
        } else if part + 1 < self.parts.total() {
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
        let first = self.work.first().ok_or_else(|| internal("the first part was not kept"))?;
        if let (Source::Streamed(_), 0) = (self.inputs.source(), part) {
            self.inputs.opts().baseline.check()?;
            let kept = self.baseline.streamed.as_ref().ok_or_else(|| internal("no class probabilities"))?;
            return Ok((0, first.labels().to_vec(), first.splits().to_vec(), kept.ranked.clone()));
        }
        let (tensor, labels, splits) = match (self.inputs.source(), part) {
            (_, 0) => (first.data().clone(), first.labels().to_vec(), first.splits().to_vec()),
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
        let opts = self.inputs.opts();
        opts.baseline.check()?;
        let as_ = probability::resolve(t, opts.scores_are)?;
        if first {
            self.baseline.read_as = Some(as_);
        }
        let probs = probability::mean_probabilities_of(t, as_, 0..t.n())?;
        Ranked::of(&probs, t.k(), 1)
    }
}
