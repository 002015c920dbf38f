//! A finished [`Analysis`]: built in one go (the reference for the stepped job) or assembled
//! from a job, and the facts of its first data set the panels read.

use super::{internal, AnalysisJob, LabelInfo, Part, Source, SweepCurves};
use crate::Controls;
use rvalue_core::conformal::{pooled_hyper, Calibrated, Method, Split};
use rvalue_core::eb::Hyper;
use rvalue_core::probability::ScoresAre;
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
    /// Calibrated on true-label draws: units per split, units in all.
    pub true_draws: Option<(usize, usize)>,
    /// The methods run: the paper's three, then the baselines that are on.
    pub(in crate::analysis) methods: Vec<Method>,
    /// Per method (in `methods` order), one per split.
    pub(in crate::analysis) calibrated: Vec<Vec<Calibrated>>,
    pub(in crate::analysis) label_info: Vec<Vec<LabelInfo>>,
    /// How the baselines read the first data set's scores (`None` without baselines).
    pub(in crate::analysis) scores_read_as: Option<ScoresAre>,
    /// `[never_empty = false, never_empty = true]`.
    pub(in crate::analysis) sweeps: [SweepCurves; 2],
    pub(in crate::analysis) first: Part,
    pub(in crate::analysis) hyper: Option<Hyper>,
    /// Pooled CP_r: the first split's calibration units, for the inspector's r-values.
    pub(in crate::analysis) pooled_first: Option<PooledSplit>,
    /// Pooled CP_r: the first data set's item `i` is keyed as item `key_offset + i` (true draws'
    /// test items follow their units).
    pub(in crate::analysis) key_offset: usize,
    /// `z_β` of the first data set by the model rule, per β (bits) asked so far: a root over all
    /// N·K candidates, too slow to repeat on every redraw of a large file.
    pub(in crate::analysis) z_memo: std::cell::RefCell<Vec<(u64, Option<f64>)>>,
    /// Panel 5's CP_r threshold rule per level `r` (bits) asked so far.
    pub(in crate::analysis) cut_memo: std::cell::RefCell<Vec<(u64, Option<crate::CutRule>)>>,
    /// Mean of the first data set's false candidates' mean scores (Theorem 3's μ0 for files).
    pub(in crate::analysis) false_mean: f64,
    /// Pooled CP_r: the r-values of the test item inspected last (α moves re-inspect it).
    pub(in crate::analysis) inspected: std::cell::RefCell<Option<(usize, Vec<f64>)>>,
}

/// Every method's calibrations, one per split, and what the baselines read.
pub(in crate::analysis) struct Calibrations {
    methods: Vec<Method>,
    calibrated: Vec<Vec<Calibrated>>,
    label_info: Vec<Vec<LabelInfo>>,
    read_as: Option<ScoresAre>,
}

impl Calibrations {
    /// `methods`, and per method its calibrations and their label facts.
    pub(in crate::analysis) fn new(
        methods: Vec<Method>,
        calibrated: Vec<Vec<Calibrated>>,
        label_info: Vec<Vec<LabelInfo>>,
        read_as: Option<ScoresAre>,
    ) -> Self {
        Calibrations { methods, calibrated, label_info, read_as }
    }
}

pub(in crate::analysis) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Analysis {
    /// Builds in one go with the core's `Prepared::calibrate` and `conformal::sweep` (the
    /// reference the stepped [`AnalysisJob`] is tested against); blocks, so not for the page.
    pub fn build(source: Source, controls: &Controls) -> Result<Self> {
        let job = AnalysisJob::new(source, controls)?;
        job.build_whole()
    }

    /// An analysis of `first` (the first data set) and the calibrated splits; `sweeps` is
    /// `[never_empty = false, true]`.
    pub(in crate::analysis) fn assemble(
        controls: Controls,
        source: &Source,
        first: Part,
        single_draw: bool,
        calibrations: Calibrations,
        sweeps: [SweepCurves; 2],
    ) -> Result<Self> {
        let Calibrations { methods, calibrated, label_info, read_as } = calibrations;
        let (n, m, k) = first.shape();
        let hyper = pooled_hyper(first.summaries(), controls.score.variance).ok();
        let (labels, means) = (first.labels(), &first.summaries().mean);
        let (sum, count) = (0..n)
            .flat_map(|i| (0..k).filter(move |&c| c != labels[i]).map(move |c| i * k + c))
            .fold((0.0, 0usize), |(a, n), u| (a + means[u], n + 1));
        let false_mean = if count == 0 { 0.0 } else { sum / count as f64 };
        let ties = |split: &Split| split.ties(controls.score.ties);
        let (pooled_first, key_offset) = match source {
            _ if first.has_rows(2) => (None, 0),
            Source::TrueDraws(_, true_draws) => {
                let split = &first.splits()[0];
                (Some(true_draws.tables(&split.cal, k, ties(split))?), true_draws.n())
            }
            Source::Streamed(_) => {
                let units = first.units().ok_or_else(|| internal("split 0's units did not come back"))?;
                (Some(PooledSplit::from_draws(units, m, k, ties(&first.splits()[0]))?), 0)
            }
            _ => {
                let split = &first.splits()[0];
                (Some(PooledSplit::new(first.tensor()?, first.labels(), &split.cal, ties(split))?), 0)
            }
        };
        let true_draws = match source {
            Source::TrueDraws(_, true_draws) => {
                Some((controls.true_draws_sizes(true_draws.n(), n).0, true_draws.n()))
            }
            _ => None,
        };
        Ok(Analysis {
            toy: match source {
                Source::Toy(_) => Some(controls.toy.clone()),
                Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_) => None,
            },
            controls,
            true_draws,
            key_offset,
            n,
            m,
            k,
            single_draw,
            methods,
            calibrated,
            label_info,
            scores_read_as: read_as,
            sweeps,
            first,
            hyper,
            pooled_first,
            z_memo: Default::default(),
            cut_memo: Default::default(),
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

    /// The stored calibrated scores of a method, one per split (or repeat); empty for a
    /// baseline that was off.
    pub fn calibrated(&self, method: Method) -> &[Calibrated] {
        self.slot(method).map_or(&[], |mi| &self.calibrated[mi][..])
    }

    /// The methods run, in the order of the panels' rows and curves: the paper's three, then
    /// the baselines that are on.
    pub fn methods(&self) -> &[Method] {
        &self.methods
    }

    /// `method`'s place in [`Analysis::methods`].
    pub(in crate::analysis) fn slot(&self, method: Method) -> Option<usize> {
        self.methods.iter().position(|&m| m == method)
    }

    /// How the baselines read the scores (`auto` decided on the data); `None` without baselines.
    pub fn scores_read_as(&self) -> Option<ScoresAre> {
        self.scores_read_as
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
        let s = self.first.summaries();
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
