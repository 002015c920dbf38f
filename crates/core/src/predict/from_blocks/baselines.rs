//! APS, RAPS and SAPS kept as each calibration item's true-label score. A prediction keys every
//! item's `u` by its content (docs/method.md §4), so a calibration item's score is fixed once the
//! seed is: scored a block at a time, it is the score the items held whole give it.

use super::{check_labels, Counted, Prediction};
use crate::blocks::{items_per_block, ScoreBlocks};
use crate::conformal::streamed::{block_probabilities, Report, Streaming};
use crate::conformal::{Method, Ranked, ScoreOptions, Split};
use crate::probability::ScoresAre;
use crate::{watch, Error, Result};

/// Each labelled item's true-label score under the baseline `method`, as a prediction keyed by
/// `seed` scores it, in one pass over `src`; `opts.scores_are` decided (not `auto`).
pub fn baseline_true_scores(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    method: Method,
    opts: &ScoreOptions,
    seed: u64,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Vec<f64>> {
    let (n, m, k) = src.shape();
    check_labels(labels, n, k)?;
    let as_ = decided(method, opts)?;
    let split = Split::new(Vec::new(), Vec::new()).keyed(seed, 0).for_prediction();
    let mut out = Vec::with_capacity(n);
    src.for_each_block(items_per_block(m, k, run.block_bytes), &mut |first, block| {
        watch::checkpoint()?;
        let ranked = Ranked::of(&block_probabilities(block, first, as_, run.threads)?, k, run.threads)?;
        let y = &labels[first..first + block.n()];
        out.extend(y.iter().enumerate().map(|(i, &c)| ranked.score_of(method, &opts.baseline, &split, i, c)));
        report("scoring", first + block.n(), n);
        Ok(())
    })?;
    Ok(out)
}

/// The new items `test`'s sets (`n_test` items of `m` draws and `k` candidates) on the
/// prediction `split` from a baseline calibration on `cal` (the scores of
/// [`baseline_true_scores`] under the split's seed, and per class the units' classes): those of
/// [`predict`](super::super::predict) on the items held whole.
#[allow(clippy::too_many_arguments)] // the calibration, the data, the run's settings
pub(super) fn predict_on_true_scores(
    (cal_scores, classes): (&[f64], Option<&[usize]>),
    (n_test, m, k): (usize, usize, usize),
    test: &dyn ScoreBlocks,
    method: Method,
    opts: &ScoreOptions,
    split: &Split,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Prediction> {
    let as_ = decided(method, opts)?;
    let mut probs = Vec::with_capacity(n_test * k);
    Counted(test).for_each_block(items_per_block(m, k, run.block_bytes), &mut |first, block| {
        watch::checkpoint()?;
        probs.extend(block_probabilities(block, first, as_, run.threads)?);
        report("scoring", first + block.n(), n_test);
        Ok(())
    })?;
    let ranked = Ranked::of(&probs, k, run.threads)?;
    drop(probs);
    let p = &opts.baseline;
    let calibrated = ranked.calibrate_on_scores(method, p, split, classes, cal_scores, run.threads)?;
    Ok(Prediction::from_calibrated(calibrated, 0))
}

/// The reading a baseline's scores are made under: decided before the pass.
fn decided(method: Method, opts: &ScoreOptions) -> Result<ScoresAre> {
    if !method.is_baseline() {
        return Err(Error::invalid(format!("{method} is not one of APS, RAPS and SAPS")));
    }
    match opts.scores_are {
        ScoresAre::Auto => Err(Error::invalid("the scores' reading must be decided before they are scored")),
        as_ => Ok(as_),
    }
}
