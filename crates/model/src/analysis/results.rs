//! A finished [`Analysis`]: built in one go (the reference for the stepped job) or assembled
//! from a job, and the facts of its first data set the panels read.

use super::{internal, method_index, AnalysisJob, LabelInfo, Part, Phase, Source, SweepCurves};
use crate::Controls;
use rvalue_core::conformal::{self, item_scores, pooled_hyper, Calibrated, Method, RvalueKind, Split};
use rvalue_core::eb::Hyper;
use rvalue_core::rvalue::PooledSplit;
use rvalue_core::tensor::VarianceKind;

/// Panel 2's curves average over at most this many candidates ([`Analysis::variances`]).
pub const MAX_CURVE_CANDIDATES: usize = 1 << 17;
use rvalue_core::toy::ToyParams;
use rvalue_core::Result;

/// A finished analysis: answers any α without recomputing a score.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The settings it was built with (α, β and σ² may have moved since).
    pub controls: Controls,
    /// The toy parameters (toy mode).
    pub toy: Option<ToyParams>,
    /// Shape of the (first) data set.
    pub n: usize,
    pub m: usize,
    pub k: usize,
    /// `M = 1`: only CP and CP_avg are meaningful (docs/method.md §8).
    pub single_draw: bool,
    /// Calibrated on a pool of true-label draws: units per split, units in the pool.
    pub pool: Option<(usize, usize)>,
    pub(in crate::analysis) calibrated: [Vec<Calibrated>; 3],
    pub(in crate::analysis) label_info: [Vec<LabelInfo>; 3],
    /// `[never_empty = false, never_empty = true]`.
    pub(in crate::analysis) sweeps: [SweepCurves; 2],
    pub(in crate::analysis) first: Part,
    pub(in crate::analysis) hyper: Option<Hyper>,
    /// Pooled CP_r: the first split's calibration units, for the inspector's r-values.
    pub(in crate::analysis) pooled_first: Option<PooledSplit>,
    /// Pooled CP_r: the first data set's item `i` is keyed as item `key_offset + i` (a pool's
    /// test items follow its units).
    pub(in crate::analysis) key_offset: usize,
    /// `z_β` of the first data set by the model rule, per β (bits) asked so far: a root over all
    /// N·K candidates, too slow to repeat on every redraw of a large file.
    pub(in crate::analysis) z_memo: std::cell::RefCell<Vec<(u64, Option<f64>)>>,
    /// Mean of the first data set's false candidates' mean scores (Theorem 3's μ0 for files).
    pub(in crate::analysis) false_mean: f64,
    /// Pooled CP_r: the r-values of the test item inspected last (α moves re-inspect it).
    pub(in crate::analysis) inspected: std::cell::RefCell<Option<(usize, Vec<f64>)>>,
}

pub(in crate::analysis) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Analysis {
    /// Builds in one go with the core's `Prepared::calibrate` and `conformal::sweep` (the
    /// reference the stepped [`AnalysisJob`] is tested against); blocks, so not for the page.
    pub fn build(source: Source, controls: &Controls) -> Result<Self> {
        let mut job = AnalysisJob::new(source.clone(), controls)?;
        if matches!(source, Source::Pool(..)) {
            // `Prepared` calibrates on the file's own items: a pool's reference is the joined
            // tensor's split instead (`explorer::pool_tests`), and its stepped job is run here.
            return job.run();
        }
        let opts = job.opts;
        let need_order = opts.kind != RvalueKind::Parametric;
        let mut calibrated: [Vec<Calibrated>; 3] = Default::default();
        let mut label_info: [Vec<LabelInfo>; 3] = Default::default();
        let mut first = None;
        for r in 0..job.parts_total {
            job.part_index = r;
            job.load()?;
            let mut part = job.part.take().ok_or_else(|| internal("load() left no part"))?;
            let prepared = conformal::Prepared::new(part.tensor.get()?, &part.labels, need_order)?;
            for (mi, &m) in Method::PAPER.iter().enumerate() {
                let scores = item_scores(prepared.t, &prepared.summaries, prepared.order.as_ref(), m, &opts)?;
                for c in prepared.calibrate(m, &opts, &part.splits)? {
                    label_info[mi].push(LabelInfo::of(&c));
                    calibrated[mi].push(c);
                }
                part.scores[mi] = scores;
            }
            if r == 0 {
                first = Some(part);
            }
        }
        for sw in job.sweeps.iter_mut() {
            for mi in 0..3 {
                let curve = conformal::sweep(&calibrated[mi], &sw.alphas, sw.never_empty);
                sw.coverage[mi] = curve.iter().map(|c| c.0).collect();
                sw.size[mi] = curve.iter().map(|c| c.1).collect();
            }
        }
        job.calibrated = calibrated;
        job.label_info = label_info;
        job.first_part = first;
        job.phase = Phase::Done;
        job.finish()
    }

    /// An analysis of `first` (the first data set) and the calibrated splits; `sweeps` is
    /// `[never_empty = false, true]`.
    pub(in crate::analysis) fn assemble(
        controls: Controls,
        source: &Source,
        first: Part,
        single_draw: bool,
        calibrated: [Vec<Calibrated>; 3],
        label_info: [Vec<LabelInfo>; 3],
        sweeps: [SweepCurves; 2],
    ) -> Result<Self> {
        let (n, m, k) = first.shape();
        let hyper = pooled_hyper(&first.summaries, controls.score.variance).ok();
        let (labels, means) = (&first.labels, &first.summaries.mean);
        let (sum, count) = (0..n)
            .flat_map(|i| (0..k).filter(move |&c| c != labels[i]).map(move |c| i * k + c))
            .fold((0.0, 0usize), |(a, n), u| (a + means[u], n + 1));
        let false_mean = if count == 0 { 0.0 } else { sum / count as f64 };
        let ties = |split: &Split| split.ties(controls.score.ties);
        let (pooled_first, key_offset) = match source {
            _ if first.has_rows(2) => (None, 0),
            Source::Pool(_, pool) => {
                let split = &first.splits[0];
                (Some(pool.tables(&split.cal, k, ties(split))?), pool.n())
            }
            Source::Streamed(_) => {
                let units =
                    first.units.as_ref().ok_or_else(|| internal("split 0's units did not come back"))?;
                (Some(PooledSplit::from_draws(units, m, k, ties(&first.splits[0]))?), 0)
            }
            _ => {
                let split = &first.splits[0];
                (Some(PooledSplit::new(first.tensor()?, &first.labels, &split.cal, ties(split))?), 0)
            }
        };
        let pool = match source {
            Source::Pool(_, pool) => Some((controls.pool_sizes(pool.n(), n).0, pool.n())),
            _ => None,
        };
        Ok(Analysis {
            toy: match source {
                Source::Toy(_) => Some(controls.toy.clone()),
                Source::Data(_) | Source::Pool(..) | Source::Streamed(_) => None,
            },
            controls,
            pool,
            key_offset,
            n,
            m,
            k,
            single_draw,
            calibrated,
            label_info,
            sweeps,
            first,
            hyper,
            pooled_first,
            z_memo: Default::default(),
            false_mean,
            inspected: Default::default(),
        })
    }

    /// Mean of the first data set's false candidates' mean scores (0 when there are none).
    pub fn false_mean(&self) -> f64 {
        self.false_mean
    }

    /// `z_β` by the model rule over the first data set's candidates with the pooled prior
    /// ([`Analysis::hyper`]); `None` without a prior with `τ² > 0` or a finite root. Remembered
    /// per β.
    pub fn z_model(&self, beta: f64) -> Option<f64> {
        if let Some(&(_, z)) = self.z_memo.borrow().iter().find(|(b, _)| *b == beta.to_bits()) {
            return z;
        }
        let z = self.hyper.filter(|h| h.tau2 > 0.0).and_then(|h| {
            let ss: Vec<f64> = self.variances().iter().map(|s| s / h.tau2).collect();
            rvalue_core::eb::z_model(beta, &ss).filter(|z| z.is_finite())
        });
        let mut memo = self.z_memo.borrow_mut();
        // The slider visits at most a few hundred β; keep the most recent ones.
        if memo.len() >= 256 {
            memo.remove(0);
        }
        memo.push((beta.to_bits(), z));
        z
    }

    /// The stored calibrated scores of a method, one per split (or repeat).
    pub fn calibrated(&self, method: Method) -> &[Calibrated] {
        // The page runs the paper's three methods: another has no calibrations.
        self.calibrated.get(method_index(method)).map_or(&[], |c| &c[..])
    }

    /// Coverage and size against α (panels 3 and 4), computed once per analysis.
    pub fn sweep(&self, never_empty: bool) -> &SweepCurves {
        &self.sweeps[usize::from(never_empty)]
    }

    /// Pooled prior of the first data set (for the threshold curves); `None` if it cannot be
    /// estimated.
    pub fn hyper(&self) -> Option<Hyper> {
        self.hyper
    }

    /// The first data set's per-candidate variances `s` (the controls' variance choice) that
    /// panel 2's curves average over: all of them, or every `j`-th (in item-major order) of a data
    /// set of more than [`MAX_CURVE_CANDIDATES`], so that a β move stays a fraction of a second
    /// and a large file's curves need no copy of its `N × K` variances.
    pub fn variances(&self) -> Vec<f64> {
        self.variances_of(self.controls.score.variance)
    }

    pub(crate) fn variances_of(&self, kind: VarianceKind) -> Vec<f64> {
        let s = &self.first.summaries;
        let all = s.n * s.k;
        (0..all)
            .step_by(all.div_ceil(MAX_CURVE_CANDIDATES).max(1))
            .map(|u| s.s(u / s.k, u % s.k, kind))
            .collect()
    }

    pub(crate) fn first_part(&self) -> &Part {
        &self.first
    }
}
