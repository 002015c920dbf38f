//! Calibration given as the true label's draws alone: a pool `[n][M]` of calibration units,
//! the layout the paper's ImageNet calibration images come in. CP reads one draw of the true
//! label, CP_avg their mean and pooled CP_r exactly these draws as its calibration units
//! (docs/method.md §4), so nothing else of a calibration item is needed; parametric and per-item
//! nonparametric CP_r need all `K` candidates and are refused.
//!
//! A split of a pool and a test set is a [`Split`] whose `cal` counts pool units and whose
//! `test` counts test items. Test item `t` is keyed (its pooled tie order) as item `n + t` of the
//! joined tensor `[pool; test items]`, as `predict` keys new items: so every set and metric is the
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
/// the width they were read in (a float16 pool takes two bytes a score) and widened where read.
#[derive(Debug, Clone)]
pub struct TruePool {
    n: usize,
    m: usize,
    /// Unit `j`'s draw `d` at item `j`, draw 0, candidate `d`: the `[n, M]` array as read.
    draws: ScoreTensor,
    /// Each unit's class, when known: per-class coverage needs them.
    classes: Option<Vec<usize>>,
}

impl TruePool {
    /// A pool of `n` units of `m` draws each, `draws[j·m + d]`; refuses empty pools and
    /// non-finite scores.
    pub fn new(n: usize, m: usize, draws: Vec<f64>) -> Result<Self> {
        // The checks and messages of a tensor `[n][M][1]`: one candidate, the true label.
        let checked = ScoreTensor::new(n, m, 1, draws)?;
        Self::of_single_draw(ScoreTensor::new(n, 1, m, checked.data().into_owned())?)
    }

    /// The pool of a tensor read from a file of shape `[n, M]` (read as `M = 1`, `K = M`).
    pub fn of_single_draw(t: ScoreTensor) -> Result<Self> {
        if t.m() != 1 {
            return Err(Error::shape(format!(
                "true-label draws must have shape [n_cal, M], got [{}, {}, {}]",
                t.n(),
                t.m(),
                t.k()
            )));
        }
        Ok(TruePool { n: t.n(), m: t.k(), draws: t, classes: None })
    }

    /// The pool with each unit's class (`n` of them), for per-class coverage; each is checked
    /// against the test items' `K` when calibrating.
    pub fn with_classes(self, classes: Vec<usize>) -> Result<Self> {
        if classes.len() != self.n {
            return Err(Error::length("calibration labels", classes.len(), format!("{} pool units", self.n)));
        }
        Ok(TruePool { classes: Some(classes), ..self })
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
    /// order), read from the pool in place.
    pub fn tables(&self, cal: &[usize], k: usize, ties: Ties) -> Result<PooledSplit> {
        PooledSplit::from_fn(cal.len(), self.m, k, ties, |j, d| self.draw(cal[j], d))
    }

    /// The pool read from a file (`name` in messages): its array must be 2-D, `[n_cal, M]`.
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
/// bit, without a copy of the pool.
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

/// The splits of a pool of `n_pool` units and `n_test` test items: all of both when `sizes` is
/// `None`, else `count` seeded random subsets of `(cal, test)` sizes, split `r` of `seed` drawing
/// both from its own permutation streams.
pub fn pool_splits(
    n_pool: usize,
    n_test: usize,
    sizes: Option<(usize, usize)>,
    count: usize,
    seed: u64,
) -> Result<Vec<Split>> {
    let Some((cal, test)) = sizes else {
        return Ok(vec![Split::new((0..n_pool).collect(), (0..n_test).collect()).keyed(seed, 0)]);
    };
    if cal == 0 || cal > n_pool || test == 0 || test > n_test {
        return Err(Error::invalid(format!(
            "a split of {cal} calibration units and {test} test items does not fit a pool of {n_pool} \
             and {n_test} test items (each at least 1)"
        )));
    }
    let draw = |n: usize, take: usize, stream: u64| {
        let mut v = Stream::new(seed, stream).permutation(n)[..take].to_vec();
        v.sort_unstable();
        v
    };
    Ok((0..count as u64)
        .map(|r| Split::new(draw(n_pool, cal, 2 * r), draw(n_test, test, 2 * r + 1)).keyed(seed, r))
        .collect())
}

/// The split of the joined tensor `[pool; test items]` that a pool split is, bit for bit.
pub fn joined_split(split: &Split, n_pool: usize) -> Split {
    Split { cal: split.cal.clone(), test: split.test.iter().map(|&t| n_pool + t).collect(), ..split.clone() }
}

/// Calls `each(method, index, calibrated)` for every method on every pool split: the test
/// items' scores streamed from `test` (labels `labels`, one per test item), the calibration
/// units' from `pool`. The calibrated splits' `test` counts test items.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_with_pool(
    pool: &TruePool,
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
    with_pool(pool, test, labels, methods, opts, splits, run, report, None, each)
}

/// [`calibrate_with_pool`], also handing `each` every test item's difficulty rank (by test
/// item; the test items carry all `K` candidates' draws), gathered in the first pass over them.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_with_pool_ranked(
    pool: &TruePool,
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
    with_pool(pool, test, labels, methods, opts, splits, run, report, Some(&mut ranks), each)
}

#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
fn with_pool(
    pool: &TruePool,
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
    check(pool, (m, k), labels, n_test, methods, opts, splits)?;
    let pooled = |x: &Method| *x == Method::CpR;
    let fixed: Vec<Method> = methods.iter().copied().filter(|x| !pooled(x)).collect();
    let per_class = opts.coverage == Coverage::PerClass;
    if !fixed.is_empty() {
        let rows = fixed_rows_ranked(test, labels, &fixed, opts, splits, run, report, ranks.as_deref_mut())?;
        let got: &[u32] = ranks.as_deref().map_or(&[], |r| r);
        for (method, scores) in fixed.iter().zip(rows) {
            let (rows, cal) = (ScoreRows::new(scores, k), pool.scores(*method, opts)?);
            for (r, split) in splits.iter().enumerate() {
                watch::checkpoint()?;
                watch::advance(split.test.len());
                let classes = per_class.then_some(pool.classes.as_deref()).flatten();
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
        let classes = pool.classes.as_deref();
        let units = Units { draws: pool.draws.scores(), key_offset: pool.n, classes };
        let each = &mut |r, c, got: &[u32]| each(Method::CpR, r, c, got);
        pooled_with_units(test, units, labels, opts, splits, run, report, ranks, each)?;
    }
    Ok(())
}

fn check(
    pool: &TruePool,
    (m, k): (usize, usize),
    labels: &[usize],
    n_test: usize,
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
) -> Result<()> {
    if pool.m != m {
        return Err(Error::shape(format!("the pool has M = {} draws, the test items M = {m}", pool.m)));
    }
    if labels.len() != n_test {
        return Err(Error::length("labels", labels.len(), format!("{n_test} test items")));
    }
    check_methods(methods, opts)?;
    if opts.coverage == Coverage::PerClass {
        let classes = pool.classes.as_deref().ok_or_else(no_classes)?;
        if let Some(j) = classes.iter().position(|&c| c >= k) {
            return Err(Error::invalid(format!(
                "calibration label of unit {j} is {} but K = {k}",
                classes[j]
            )));
        }
    }
    let bad = |s: &Split| s.cal.iter().any(|&j| j >= pool.n) || s.test.iter().any(|&t| t >= n_test);
    if splits.iter().any(bad) {
        return Err(Error::invalid("a split names a unit or test item out of range"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
