//! A data set checked and prepared once ([`Prepared`]), and the calibration of a method on each
//! of its splits: split-independent scores computed once and shared, pooled CP_r per split.

use super::chunks::in_chunks;
use super::scores::{check_only, needed_candidates, scores_with};
use super::{Calibrated, Method, Ranked, ScoreOptions, ScoreRows, Split};
use crate::probability;
use crate::rvalue::DrawOrder;
use crate::tensor::{ScoreTensor, Summaries};
use crate::{watch, Error, Result};

/// Checks a data set for conformal use.
pub fn check_data(t: &ScoreTensor, labels: &[usize]) -> Result<()> {
    if labels.len() != t.n() {
        return Err(Error::length("labels", labels.len(), format!("{} items", t.n())));
    }
    if let Some(i) = labels.iter().position(|&y| y >= t.k()) {
        return Err(Error::invalid(format!("label of item {i} is {} but K = {}", labels[i], t.k())));
    }
    Ok(())
}
/// A data set prepared once for any number of methods, splits and α values.
pub struct Prepared<'a> {
    pub t: &'a ScoreTensor,
    pub labels: &'a [usize],
    pub summaries: Summaries,
    pub order: Option<DrawOrder>,
}

impl<'a> Prepared<'a> {
    /// Validates and summarises; draw orders are computed only when a rank-based r-value needs them.
    pub fn new(t: &'a ScoreTensor, labels: &'a [usize], need_order: bool) -> Result<Self> {
        check_data(t, labels)?;
        let order = if need_order { Some(DrawOrder::of(t)?) } else { None };
        Ok(Prepared { t, labels, summaries: Summaries::of(t), order })
    }

    /// Calibrated scores of a method on each split.
    pub fn calibrate(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
    ) -> Result<Vec<Calibrated>> {
        let mut out = Vec::with_capacity(splits.len());
        self.calibrate_each(method, opts, splits, |_, c| out.push(c))?;
        Ok(out)
    }

    /// Calls `each(index, calibrated)` for every split in turn: split-independent scores are
    /// computed once, and only one split's pooled r-values are held at a time.
    pub fn calibrate_each(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        each: impl FnMut(usize, Calibrated),
    ) -> Result<()> {
        self.calibrate_each_threads(method, opts, splits, 1, each)
    }

    /// [`Prepared::calibrate_each`] on `threads` threads (natively; wasm has one): the
    /// split-independent scores a chunk of items per thread, pooled CP_r a chunk of each
    /// split's test items per thread. `each` sees the same splits in the same order, with the
    /// same values, for every count.
    pub fn calibrate_each_threads(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        threads: usize,
        each: impl FnMut(usize, Calibrated),
    ) -> Result<()> {
        let data = (self.t, self.labels, Some(&self.summaries), self.order.as_ref());
        calibrate_with(data, method, opts, splits, threads, each)
    }
}

/// [`Prepared::calibrate_each_threads`] for one method on data too large to hold every method's
/// inputs beside the tensor (the command line): summaries are computed only for CP_avg and the
/// parametric r-value, and freed before the splits are calibrated; `order` caches draw orders
/// (without it each is sorted where needed). The same results.
#[allow(clippy::too_many_arguments)] // the data, what is known of it, and the run's settings
pub fn calibrate_each_lean(
    t: &ScoreTensor,
    labels: &[usize],
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    each: impl FnMut(usize, Calibrated),
) -> Result<()> {
    check_data(t, labels)?;
    calibrate_with((t, labels, None, order), method, opts, splits, threads, each)
}

/// The calibration items of a prediction's split, on which alone a pooled prior is fit; `None`
/// for evaluation splits. A prediction is one split: with others its prior would differ by
/// split, which split-independent scores cannot be.
fn prediction_calibration(splits: &[Split]) -> Result<Option<&[usize]>> {
    match splits {
        [s] if s.is_prediction() => Ok(Some(&s.cal)),
        _ if splits.iter().any(Split::is_prediction) => {
            Err(Error::invalid("a prediction's split is calibrated alone, not with other splits"))
        }
        _ => Ok(None),
    }
}

/// A data set, its labels and what is known of it: summaries and draw orders.
type Known<'a> = (&'a ScoreTensor, &'a [usize], Option<&'a Summaries>, Option<&'a DrawOrder>);

fn calibrate_with(
    (t, labels, summaries, order): Known<'_>,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    mut each: impl FnMut(usize, Calibrated),
) -> Result<()> {
    if method.is_baseline() {
        let ranked = ranked_of(t, opts, threads)?;
        return ranked.calibrate_each(
            method,
            &opts.baseline,
            labels,
            (opts.coverage, threads),
            splits,
            |r, c| {
                each(r, c);
                Ok(())
            },
        );
    }
    let only = needed_candidates(labels, splits);
    check_only(t, &only)?;
    let prior_on = prediction_calibration(splits)?;
    let fixed = scores_with(t, summaries, order, method, opts, |i| only[i], prior_on, threads)?;
    let rows = fixed.map(|scores| ScoreRows::new(scores, t.k()));
    for (r, split) in splits.iter().enumerate() {
        watch::checkpoint()?;
        let c = match &rows {
            Some(rows) => {
                watch::advance(split.test.len());
                Calibrated::shared_with(rows, t.k(), labels, split, opts.coverage)
            }
            // Counts its test items a round at a time.
            None => Calibrated::pooled_threads(t, labels, order, split, opts.ties, opts.coverage, threads)?,
        };
        each(r, c);
    }
    Ok(())
}

/// The baselines' sorted class probabilities of `t`, the scores read as `opts` says (`auto`
/// decided on `t`), the items in `threads` chunks.
pub fn ranked_of(t: &ScoreTensor, opts: &ScoreOptions, threads: usize) -> Result<Ranked> {
    opts.baseline.check()?;
    let as_ = probability::resolve(t, opts.scores_are)?;
    let probs = in_chunks(t.n(), threads, |items| probability::mean_probabilities_of(t, as_, items))?;
    Ranked::of(&probs, t.k(), threads)
}
