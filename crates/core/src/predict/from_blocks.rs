//! A calibration read from score blocks (a file of any size) that keeps only what
//! [`predict`](super::predict) needs of its items, so that predictions are, bit for bit, those of
//! the calibration held whole:
//!
//! - CP, CP_avg and pooled CP_r read nothing of a calibration item but its true label's draws
//!   (`[n_cal, M]`, a [`TrueDraws`](crate::conformal::true_draws::TrueDraws)).
//! - Nonparametric CP_r and parametric CP_r with a per-item prior score an item from its own
//!   `M × K` block: a calibration item is its true label's score (`n_cal` numbers).
//! - Parametric CP_r with a pooled prior fits the prior to every item of the prediction, the new
//!   ones too (docs/method.md §5): the calibration items' summaries (`n_cal × K` means and
//!   variances) and labels are kept, and the r-values are made at prediction.
//! - APS, RAPS and SAPS key a prediction's `u` by each item's content: a calibration item is its
//!   true label's score too ([`baselines`]).

mod baselines;

pub use baselines::baseline_true_scores;

use super::Prediction;
use crate::blocks::{items_per_block, ScoreBlocks};
use crate::conformal::parametric_rows;
pub use crate::conformal::streamed::{check_labels, true_label_draws};
use crate::conformal::streamed::{fixed_rows, no_classes, Report, Streaming};
use crate::conformal::true_draws::true_draws_splits;
use crate::conformal::{
    needed_candidates, Calibrated, Coverage, Method, Prior, RvalueKind, ScoreOptions, ScoreRows, Split,
};
use crate::tensor::{ScoreTensor, Summaries};
use crate::{watch, Error, Result};

/// What a calibration keeps of its items for `method` under `opts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keeps {
    /// Each item's true-label draws: CP, CP_avg, pooled CP_r.
    TrueDraws,
    /// Each item's score at its true label: nonparametric CP_r, parametric with a per-item prior.
    TrueScores,
    /// Each item's summaries and its label: parametric CP_r with a pooled prior.
    Summaries,
    /// Each item's class probabilities and its label: the baselines (APS, RAPS, SAPS).
    Probabilities,
}

impl Keeps {
    pub fn of(method: Method, opts: &ScoreOptions) -> Keeps {
        match (method, opts.kind, opts.prior) {
            (Method::Cp | Method::CpAvg, _, _) | (Method::CpR, RvalueKind::Pooled, _) => Keeps::TrueDraws,
            (Method::CpR, RvalueKind::Parametric, Prior::Pooled) => Keeps::Summaries,
            (Method::CpR, _, _) => Keeps::TrueScores,
            // Their `u` are keyed by the split, so the rows are made with the new items.
            (Method::Aps | Method::Raps | Method::Saps, _, _) => Keeps::Probabilities,
        }
    }
}

/// Every item's blocks of `src`, `run.block_bytes` at a time, each reported once seen.
fn each_block(
    src: &dyn ScoreBlocks,
    run: &Streaming<'_>,
    report: Report<'_>,
    what: &str,
    each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
) -> Result<()> {
    let (n, m, k) = src.shape();
    src.for_each_block(items_per_block(m, k, run.block_bytes), &mut |first, block| {
        watch::checkpoint()?;
        each(first, block)?;
        report(what, first + block.n(), n);
        Ok(())
    })
}

/// Every item's score under `method` at its true label, in one pass (`method` scores an item
/// from its own block: CP, CP_avg, nonparametric CP_r, parametric CP_r with a per-item prior).
pub fn true_label_scores(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    method: Method,
    opts: &ScoreOptions,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Vec<f64>> {
    let (n, _, k) = src.shape();
    check_labels(labels, n, k)?;
    let pooled = method == Method::CpR && opts.kind == RvalueKind::Pooled;
    if pooled || Keeps::of(method, opts) == Keeps::Summaries {
        return Err(Error::invalid(format!("{method} with these options does not score an item alone")));
    }
    if method.is_baseline() {
        return Err(Error::invalid(format!("{method}'s scores need a seed: see `baseline_true_scores`")));
    }
    // Every item calibrates: only its true label's score is made where that saves work.
    let all_cal = [Split::new((0..n).collect(), Vec::new())];
    let rows = fixed_rows(src, labels, &[method], opts, &all_cal, run, report)?;
    let rows = rows.into_iter().next().unwrap_or_default();
    Ok(labels.iter().enumerate().map(|(i, &y)| rows[i * k + y]).collect())
}

/// Every item's summaries (means and variances per candidate), in one pass.
pub fn summaries(src: &dyn ScoreBlocks, run: &Streaming<'_>, report: Report<'_>) -> Result<Summaries> {
    let (_, m, k) = src.shape();
    let mut all = Summaries { n: 0, k, m, mean: Vec::new(), var: Vec::new() };
    each_block(src, run, report, "summarising", &mut |_, block| {
        let s = Summaries::of(block);
        all.n += s.n;
        all.mean.extend(s.mean);
        all.var.extend(s.var);
        Ok(())
    })?;
    Ok(all)
}

/// The new items `test`'s sets from a calibration on `cal_scores` (each calibration item's true
/// label score under `method`, [`true_label_scores`] of items with `m` draws and `k`
/// candidates): those of [`predict`](super::predict) on the items, keyed as split 0 of `seed`.
/// Per-class coverage needs each calibration item's class, `cal_classes`. The baselines' new
/// items are scored from their probabilities ([`baselines`]).
#[allow(clippy::too_many_arguments)] // the calibration, the data, the run's settings
pub fn predict_with_true_scores(
    cal_scores: &[f64],
    cal_classes: Option<&[usize]>,
    (m, k): (usize, usize),
    test: &dyn ScoreBlocks,
    method: Method,
    opts: &ScoreOptions,
    seed: u64,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Prediction> {
    let n_test = check_test(test, m, k)?;
    let classes = match opts.coverage {
        Coverage::Marginal => None,
        Coverage::PerClass => Some(cal_classes.ok_or_else(no_classes)?),
    };
    if let Some(c) = classes {
        check_labels(c, cal_scores.len(), k)?;
    }
    let split = true_draws_splits(cal_scores.len(), n_test, None, 1, seed)?.remove(0).for_prediction();
    if method.is_baseline() {
        let cal = (cal_scores, classes);
        return baselines::predict_on_true_scores(
            cal,
            (n_test, m, k),
            test,
            method,
            opts,
            &split,
            run,
            report,
        );
    }
    // The new items' labels are never read: sets do not depend on them.
    let labels = vec![0; n_test];
    let counted = Counted(test);
    let rows = fixed_rows(&counted, &labels, &[method], opts, std::slice::from_ref(&split), run, report)?;
    let rows = ScoreRows::on_threads(rows.into_iter().next().unwrap_or_default(), k, run.threads);
    let calibrated = Calibrated::of_units_with(&rows, k, &labels, &split, classes, |j| cal_scores[j]);
    Ok(Prediction::from_calibrated(calibrated, 0))
}

/// The new items `test`'s sets from a calibration on the summaries `cal` of labelled items
/// ([`summaries`]) under parametric CP_r: the prior fitted to the calibration and new items
/// together, as [`predict`](super::predict) fits it on the items.
pub fn predict_with_summaries(
    cal: &Summaries,
    cal_labels: &[usize],
    test: &dyn ScoreBlocks,
    opts: &ScoreOptions,
    seed: u64,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Prediction> {
    check_labels(cal_labels, cal.n, cal.k)?;
    check_test(test, cal.m, cal.k)?;
    let new = summaries(&Counted(test), run, report)?;
    let n = cal.n + new.n;
    let joined = Summaries {
        n,
        k: cal.k,
        m: cal.m,
        mean: [&cal.mean[..], &new.mean[..]].concat(),
        var: [&cal.var[..], &new.var[..]].concat(),
    };
    drop(new);
    let mut labels = cal_labels.to_vec();
    labels.resize(n, 0);
    let split = Split::new((0..cal.n).collect(), (cal.n..n).collect()).keyed(seed, 0).for_prediction();
    let only = needed_candidates(&labels, std::slice::from_ref(&split));
    let rows = parametric_rows(&joined, opts, |i| only[i], Some(&split.cal), run.threads)?;
    let rows = ScoreRows::on_threads(rows, cal.k, run.threads);
    let calibrated = Calibrated::shared_with(&rows, cal.k, &labels, &split, opts.coverage);
    Ok(Prediction::from_calibrated(calibrated, cal.n))
}

/// The new items' count, once their draws and candidates are the calibration's.
fn check_test(test: &dyn ScoreBlocks, m: usize, k: usize) -> Result<usize> {
    let (n, tm, tk) = test.shape();
    if (tm, tk) != (m, k) {
        return Err(Error::shape(format!(
            "the new items have M = {tm} draws and K = {tk} candidates, the labelled ones M = {m} and K = {k}"
        )));
    }
    Ok(n)
}

/// A source whose blocks count as done ([`watch::advance`]) once read: progress for the passes
/// here, which count nothing themselves.
pub struct Counted<'a>(pub &'a dyn ScoreBlocks);

impl ScoreBlocks for Counted<'_> {
    fn shape(&self) -> (usize, usize, usize) {
        self.0.shape()
    }

    fn for_each_block(
        &self,
        items: usize,
        each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
    ) -> Result<()> {
        self.0.for_each_block(items, &mut |first, block| {
            each(first, block)?;
            watch::advance(block.n());
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests;
