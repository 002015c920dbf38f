//! The data set the job is at ([`Part`]) and the work on it: loading it, its
//! split-independent scores a chunk at a time, and its calibrations one method and split at a
//! time; and the first data set, kept for the panels.

use std::sync::Arc;

use super::inputs::Inputs;
use super::Phase;
use crate::analysis::{internal, pooled_items_per_step, true_draws_splits, Part, PartTensor, Source};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::conformal::{Calibrated, Coverage, Method, PooledBuilder, RvalueKind, Split};
use rvalue_core::eb::Hyper;
use rvalue_core::toy;
use rvalue_core::{Error, Result};

/// The data set being worked on, and the first one.
#[derive(Debug, Default)]
pub(in crate::analysis) struct PartWork {
    part: Option<Part>,
    first: Option<Part>,
    /// The pooled prior of the current data set (parametric CP_r with `Prior::Pooled`).
    hyper: Option<Hyper>,
    /// Pooled CP_r of the split being calibrated.
    pooled: Option<PooledBuilder>,
    /// True-label draws' calibration units' CP and CP_avg scores, once computed.
    unit_scores: [Option<Vec<f64>>; 3],
}

impl PartWork {
    /// The data set being worked on.
    pub(in crate::analysis) fn part(&self) -> Option<&Part> {
        self.part.as_ref()
    }

    pub(in crate::analysis) fn part_mut(&mut self) -> Option<&mut Part> {
        self.part.as_mut()
    }

    /// Works on `part` from now on.
    pub(in crate::analysis) fn set_part(&mut self, part: Part) {
        self.part = Some(part);
    }

    /// The data set worked on, done with.
    pub(in crate::analysis) fn take_part(&mut self) -> Option<Part> {
        self.part.take()
    }

    /// The first data set, once done.
    pub(in crate::analysis) fn first(&self) -> Option<&Part> {
        self.first.as_ref()
    }

    pub(in crate::analysis) fn set_first(&mut self, first: Option<Part>) {
        self.first = first;
    }

    pub(in crate::analysis) fn into_first(self) -> Option<Part> {
        self.first
    }

    /// Test items of the split being calibrated that pooled CP_r has done, while it runs.
    pub(in crate::analysis) fn pooled_done(&self) -> Option<usize> {
        self.pooled.as_ref().map(PooledBuilder::done)
    }

    /// Loads (or simulates) data set `index` of a source whose items are held.
    pub(in crate::analysis) fn load(&mut self, inputs: &Inputs, index: usize) -> Result<()> {
        let (source, opts) = (inputs.source(), inputs.opts());
        let (tensor, labels, splits) = match source {
            Source::Toy(p) => {
                let (t, y) = toy::simulate(p, index)?;
                // Repeat r's tie order is split r of the toy's seed: independent across repeats.
                let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect())
                    .keyed(p.seed, index as u64);
                (PartTensor::Owned(Arc::new(t)), y, vec![split])
            }
            Source::Data(d) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = inputs.controls().split_plan().splits(d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
            Source::TrueDraws(d, true_draws) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = true_draws_splits(inputs.controls(), true_draws, d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
            Source::Streamed(_) => return Err(internal("a streamed file is loaded by its pass")),
        };
        // True-label draws' pooled CP_r ranks its test items as the command line's streamed
        // path does, without draw orders (the same results, bit for bit).
        let need_order = opts.kind != RvalueKind::Parametric && !matches!(source, Source::TrueDraws(..));
        self.part = Some(Part::held(tensor, labels, splits, need_order)?);
        Ok(())
    }

    /// Item scores of data set `index`: CP and CP_avg in one step each, CP_r's r-values in
    /// chunks of items; the phase after this step.
    pub(in crate::analysis) fn scores(
        &mut self,
        inputs: &Inputs,
        index: usize,
        method: usize,
        next: usize,
    ) -> Result<Phase> {
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the scores phase"))?;
        let advance = |method: usize| {
            if method + 1 < 3 {
                Phase::Scores { method: method + 1, next: 0 }
            } else {
                Phase::Calibrate { next: 0, method: 0 }
            }
        };
        let n_cal = bounded_n_cal(inputs.source(), index, inputs.full_rows());
        let end = part.score_chunk(method, next, inputs.opts(), inputs.budget(), &mut self.hyper, n_cal)?;
        Ok(if end < part.shape().0 { Phase::Scores { method, next: end } } else { advance(method) })
    }

    /// Calibrates method `mi` on split `next`: the calibration, or `None` while pooled CP_r's
    /// greedy needs more steps.
    pub(in crate::analysis) fn calibrate(
        &mut self,
        inputs: &Inputs,
        next: usize,
        mi: usize,
    ) -> Result<Option<Calibrated>> {
        let (source, opts) = (inputs.source(), inputs.opts());
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the calibration phase"))?;
        let k = part.shape().2;
        // Rows several calibrations share are sorted once; the scores move into them.
        if part.splits().len() > 1 || !matches!(source, Source::Toy(_) | Source::Data(_)) {
            part.share_rows(mi);
        }
        let part = &*part;
        let (split, labels) = (&part.splits()[next], part.labels());
        let per_class = opts.coverage == Coverage::PerClass;
        Ok(Some(match (part.rows(mi), part.scores(mi)) {
            (Some(rows), _) if matches!(source, Source::TrueDraws(..)) => {
                let Source::TrueDraws(_, true_draws) = source else {
                    return Err(internal("not true-label draws"));
                };
                let cal = match &mut self.unit_scores[mi] {
                    Some(c) => c,
                    slot => slot.insert(true_draws.scores(Method::PAPER[mi], opts)?),
                };
                let classes = true_draws_classes(true_draws, per_class)?;
                Calibrated::of_units_with(rows, k, labels, split, classes, |j| cal[j])
            }
            (Some(rows), _) => Calibrated::shared_with(rows, k, labels, split, opts.coverage),
            (None, Some(s)) => Calibrated::fixed_with(s, k, labels, split, opts.coverage),
            (None, None) => {
                let t = part.tensor()?;
                // Pooled CP_r: the greedy per test item is the heavy part; a chunk per step.
                let b = match (self.pooled.as_mut(), source) {
                    (Some(b), _) => b,
                    (None, Source::TrueDraws(_, true_draws)) => {
                        let b = PooledBuilder::of_true_draws(true_draws, k, split, opts.ties)?;
                        let b = match true_draws_classes(true_draws, per_class)? {
                            Some(classes) => b.by_class(classes, split),
                            None => b,
                        };
                        self.pooled.insert(b)
                    }
                    (None, _) => {
                        let b = PooledBuilder::new(t, labels, split, opts.ties)?;
                        self.pooled.insert(if per_class { b.by_class(labels, split) } else { b })
                    }
                };
                let items = pooled_items_per_step(inputs.budget(), t, split);
                if !b.step(t, part.order(), split, items) {
                    return Ok(None);
                }
                let b = self.pooled.take().ok_or_else(|| internal("the pooled builder is gone"))?;
                b.finish(labels, split)
            }
        }))
    }
}

/// The true-label draws' units' classes when a threshold per class is asked for (`None`:
/// marginal); draws without them cannot have one.
fn true_draws_classes(true_draws: &TrueDraws, per_class: bool) -> Result<Option<&[usize]>> {
    match (per_class, true_draws.classes()) {
        (false, _) => Ok(None),
        (true, Some(c)) => Ok(Some(c)),
        (true, None) => Err(Error::invalid(
            "per-class coverage needs each calibration unit's class, which a pool of true-label \
             draws does not carry: choose marginal coverage for this pool",
        )),
    }
}

/// A toy repeat other than the one on show: its test items, after its n_cal calibration items,
/// need exact r-values only up to the highest threshold an α in the slider's range can pick,
/// known once the calibration scores are in (a chunk stops there). `None` for every other part.
fn bounded_n_cal(source: &Source, part_index: usize, full_rows: bool) -> Option<usize> {
    match source {
        Source::Toy(p) if part_index > 0 && !full_rows => Some(p.n_cal),
        _ => None,
    }
}
