//! Calibration given as the true label's draws alone: true draws `[n][M]` of calibration units,
//! the layout the paper's ImageNet calibration images come in. CP reads one draw of the true
//! label, CP_avg their mean and pooled CP_r exactly these draws as its calibration units
//! (docs/method.md §4), so nothing else of a calibration item is needed; parametric and per-item
//! nonparametric CP_r need all `K` candidates and are refused.
//!
//! A split of true draws and a test set is a [`Split`] whose `cal` counts true-draw units and whose
//! `test` counts test items. Test item `t` is keyed (its pooled tie order) as item `n + t` of the
//! joined tensor `[true draws; test items]`, as `predict` keys new items: so every set and metric is the
//! joined tensor's split's, bit for bit ([`joined_split`]).

use super::streamed::{
    fixed_rows_ranked, no_classes, pooled_with_units, EachRanked, Report, Streaming, Units,
};
use super::{Calibrated, Coverage, Method, RvalueKind, ScoreOptions, ScoreRows, Split};
use crate::blocks::ScoreBlocks;
use crate::io::Dataset;
use crate::rng::Stream;
use crate::rvalue::{PooledSplit, Ties};
use crate::tensor::ScoreTensor;
use crate::watch;
use crate::{Error, Result};

/// Calibration units given as their true label's `M` draws: `[n][M]` scores, finite, kept in
/// the width they were read in (float16 true draws take two bytes a score) and widened where read.
#[derive(Debug, Clone)]
pub struct TrueDraws {
    n: usize,
    m: usize,
    /// Unit `j`'s draw `d` at item `j`, draw 0, candidate `d`: the `[n, M]` array as read.
    draws: ScoreTensor,
    /// Each unit's class, when known: per-class coverage needs them.
    classes: Option<Vec<usize>>,
}

impl TrueDraws {
    /// `n` true-draw units of `m` draws each, `draws[j·m + d]`; refuses none at all and
    /// non-finite scores.
    pub fn new(n: usize, m: usize, draws: Vec<f64>) -> Result<Self> {
        // The checks and messages of a tensor `[n][M][1]`: one candidate, the true label.
        let checked = ScoreTensor::new(n, m, 1, draws)?;
        Self::of_single_draw(ScoreTensor::new(n, 1, m, checked.data().into_owned())?)
    }

    /// The true draws of a tensor read from a file of shape `[n, M]` (read as `M = 1`, `K = M`).
    pub fn of_single_draw(t: ScoreTensor) -> Result<Self> {
        if t.m() != 1 {
            return Err(Error::shape(format!(
                "true-label draws must have shape [n_cal, M], got [{}, {}, {}]",
                t.n(),
                t.m(),
                t.k()
            )));
        }
        Ok(TrueDraws { n: t.n(), m: t.k(), draws: t, classes: None })
    }

    /// The true draws with each unit's class (`n` of them), for per-class coverage; each is checked
    /// against the test items' `K` when calibrating.
    pub fn with_classes(self, classes: Vec<usize>) -> Result<Self> {
        if classes.len() != self.n {
            return Err(Error::length("calibration labels", classes.len(), format!("{} pool units", self.n)));
        }
        Ok(TrueDraws { classes: Some(classes), ..self })
    }

    /// Each unit's class, when given.
    pub fn classes(&self) -> Option<&[usize]> {
        self.classes.as_deref()
    }

    pub fn n(&self) -> usize {
        self.n
    }
    pub fn m(&self) -> usize {
        self.m
    }

    /// Unit `j`'s score in draw `d`.
    #[inline]
    pub fn draw(&self, j: usize, d: usize) -> f64 {
        self.draws.get(j, 0, d)
    }

    /// The pooled r-values' calibration tables of the units `cal` (a split's units, in that
    /// order), read from the true draws in place.
    pub fn tables(&self, cal: &[usize], k: usize, ties: Ties) -> Result<PooledSplit> {
        PooledSplit::from_fn(cal.len(), self.m, k, ties, |j, d| self.draw(cal[j], d))
    }

    /// The true draws read from a file (`name` in messages): its array must be 2-D, `[n_cal, M]`.
    pub fn of_dataset(name: &str, d: Dataset) -> Result<Self> {
        if !d.single_draw {
            let t = &d.scores;
            return Err(Error::shape(format!(
                "{name}: true-label draws have shape [{}, {}, {}]; expected [n_cal, M], each \
                 calibration item's true-label score in each draw",
                t.n(),
                t.m(),
                t.k()
            )));
        }
        Self::of_single_draw(d.scores)
    }

    /// Unit `j`'s nonconformity score under CP or CP_avg (`−` its draw or its mean draw).
    pub fn scores(&self, method: Method, opts: &ScoreOptions) -> Result<Vec<f64>> {
        match method {
            Method::Cp if opts.cp_draw < self.m => {
                Ok((0..self.n).map(|j| -self.draw(j, opts.cp_draw)).collect())
            }
            Method::Cp => {
                Err(Error::invalid(format!("CP's draw {} does not exist (M = {})", opts.cp_draw, self.m)))
            }
            Method::CpAvg => Ok((0..self.n).map(|j| -mean((0..self.m).map(|d| self.draw(j, d)))).collect()),
            Method::CpR => Err(needs_all_candidates(opts.kind)),
            Method::Aps | Method::Raps | Method::Saps => Err(baseline_needs_all_candidates(method)),
        }
    }
}

/// The mean of one unit's draws with the summaries' arithmetic (Welford's update with weights
/// `1/(d + 1)`, `tensor::Summaries`), so CP_avg's calibration scores are the tensor's, bit for
/// bit, without a copy of the true draws.
fn mean(draws: impl Iterator<Item = f64>) -> f64 {
    let mut mu = 0.0;
    for (d, x) in draws.enumerate() {
        mu += (x - mu) * (1.0 / (d + 1) as f64);
    }
    mu
}

/// Refuses a method that needs more of a calibration item than its true label's draws:
/// parametric and per-item nonparametric CP_r.
pub fn check_methods(methods: &[Method], opts: &ScoreOptions) -> Result<()> {
    if methods.contains(&Method::CpR) && opts.kind != RvalueKind::Pooled {
        return Err(needs_all_candidates(opts.kind));
    }
    if let Some(&m) = methods.iter().find(|m| m.is_baseline()) {
        return Err(baseline_needs_all_candidates(m));
    }
    Ok(())
}

pub(crate) fn needs_all_candidates(kind: RvalueKind) -> Error {
    Error::invalid(format!(
        "{kind} CP_r needs every candidate's draws of a calibration item, and true-label draws \
         give its true label's only; use --rvalue pooled, or CP / CP_avg"
    ))
}

/// A baseline asked of true-label draws: its score needs every class's probability.
pub fn baseline_needs_all_candidates(method: Method) -> Error {
    Error::invalid(format!(
        "{} needs every class's probability of a calibration item, and true-label draws give its \
         true label's only; use CP, CP_avg or pooled CP_r with --calibration-true",
        method.label()
    ))
}

/// The splits of `n_true` true-draw units and `n_test` test items: all of both when `sizes` is
/// `None`, else `count` seeded random subsets of `(cal, test)` sizes, split `r` of `seed` drawing
/// both from its own permutation streams.
pub fn true_draws_splits(
    n_true: usize,
    n_test: usize,
    sizes: Option<(usize, usize)>,
    count: usize,
    seed: u64,
) -> Result<Vec<Split>> {
    let Some((cal, test)) = sizes else {
        return Ok(vec![Split::new((0..n_true).collect(), (0..n_test).collect()).keyed(seed, 0)]);
    };
    if cal == 0 || cal > n_true || test == 0 || test > n_test {
        return Err(Error::invalid(format!(
            "a split of {cal} calibration units and {test} test items does not fit a pool of {n_true} \
             and {n_test} test items (each at least 1)"
        )));
    }
    let draw = |n: usize, take: usize, stream: u64| {
        let mut v = Stream::new(seed, stream).permutation(n)[..take].to_vec();
        v.sort_unstable();
        v
    };
    Ok((0..count as u64)
        .map(|r| Split::new(draw(n_true, cal, 2 * r), draw(n_test, test, 2 * r + 1)).keyed(seed, r))
        .collect())
}

/// The split of the joined tensor `[true draws; test items]` that a true-draw split is, bit for bit.
pub fn joined_split(split: &Split, n_true: usize) -> Split {
    Split { cal: split.cal.clone(), test: split.test.iter().map(|&t| n_true + t).collect(), ..split.clone() }
}

/// Calls `each(method, index, calibrated)` for every method on every true-draw split: the test
/// items' scores streamed from `test` (labels `labels`, one per test item), the calibration
/// units' from `true_draws`. The calibrated splits' `test` counts test items.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_with_true_draws(
    true_draws: &TrueDraws,
    test: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming<'_>,
    report: Report<'_>,
    each: &mut dyn FnMut(Method, usize, Calibrated) -> Result<()>,
) -> Result<()> {
    let each = &mut |m, r, c, _: &[u32]| each(m, r, c);
    with_true_draws(true_draws, test, labels, methods, opts, splits, run, report, None, each)
}

/// [`calibrate_with_true_draws`], also handing `each` every test item's difficulty rank (by test
/// item; the test items carry all `K` candidates' draws), gathered in the first pass over them.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_with_true_draws_ranked(
    true_draws: &TrueDraws,
    test: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming<'_>,
    report: Report<'_>,
    each: &mut EachRanked<'_>,
) -> Result<()> {
    let mut ranks = Vec::new();
    with_true_draws(true_draws, test, labels, methods, opts, splits, run, report, Some(&mut ranks), each)
}

#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
fn with_true_draws(
    true_draws: &TrueDraws,
    test: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming<'_>,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
    each: &mut EachRanked<'_>,
) -> Result<()> {
    let (n_test, m, k) = test.shape();
    check(true_draws, (m, k), labels, n_test, methods, opts, splits)?;
    let pooled = |x: &Method| *x == Method::CpR;
    let fixed: Vec<Method> = methods.iter().copied().filter(|x| !pooled(x)).collect();
    let per_class = opts.coverage == Coverage::PerClass;
    if !fixed.is_empty() {
        let rows = fixed_rows_ranked(test, labels, &fixed, opts, splits, run, report, ranks.as_deref_mut())?;
        let got: &[u32] = ranks.as_deref().map_or(&[], |r| r);
        for (method, scores) in fixed.iter().zip(rows) {
            let (rows, cal) = (ScoreRows::new(scores, k), true_draws.scores(*method, opts)?);
            for (r, split) in splits.iter().enumerate() {
                watch::checkpoint()?;
                watch::advance(split.test.len());
                let classes = per_class.then_some(true_draws.classes.as_deref()).flatten();
                each(
                    *method,
                    r,
                    Calibrated::of_units_with(&rows, k, labels, split, classes, |j| cal[j]),
                    got,
                )?;
            }
        }
    }
    if methods.iter().any(pooled) {
        let classes = true_draws.classes.as_deref();
        let units = Units { draws: true_draws.draws.scores(), key_offset: true_draws.n, classes };
        let each = &mut |r, c, got: &[u32]| each(Method::CpR, r, c, got);
        pooled_with_units(test, units, labels, opts, splits, run, report, ranks, each)?;
    }
    Ok(())
}

fn check(
    true_draws: &TrueDraws,
    (m, k): (usize, usize),
    labels: &[usize],
    n_test: usize,
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
) -> Result<()> {
    if true_draws.m != m {
        return Err(Error::shape(format!("the pool has M = {} draws, the test items M = {m}", true_draws.m)));
    }
    if labels.len() != n_test {
        return Err(Error::length("labels", labels.len(), format!("{n_test} test items")));
    }
    check_methods(methods, opts)?;
    if opts.coverage == Coverage::PerClass {
        let classes = true_draws.classes.as_deref().ok_or_else(no_classes)?;
        if let Some(j) = classes.iter().position(|&c| c >= k) {
            return Err(Error::invalid(format!(
                "calibration label of unit {j} is {} but K = {k}",
                classes[j]
            )));
        }
    }
    let bad = |s: &Split| s.cal.iter().any(|&j| j >= true_draws.n) || s.test.iter().any(|&t| t >= n_test);
    if splits.iter().any(bad) {
        return Err(Error::invalid("a split names a unit or test item out of range"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
