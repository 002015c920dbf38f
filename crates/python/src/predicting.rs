//! A calibration's prediction for new items, whatever it was calibrated on: labelled items
//! (`rvalue_core::predict`, the joined tensor's split) or true-label draws
//! (`rvalue_core::conformal::pool`, the new items streamed from any [`ScoreBlocks`]).

use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::pool::{calibrate_with_pool, pool_splits, TruePool};
use rvalue_core::conformal::streamed::Streaming;
use rvalue_core::conformal::{Method, ScoreOptions};
use rvalue_core::predict::{self, Prediction};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

use crate::saved::Basis;

/// Calibration units: labelled items, or true-label units.
pub fn units(basis: &Basis) -> usize {
    match basis {
        Basis::Items { cal, .. } => cal.n(),
        Basis::TrueDraws(t) => t.n(),
    }
}

/// Draws per unit (a true-label tensor is `[n_cal, 1, M]`).
pub fn draws(basis: &Basis) -> usize {
    match basis {
        Basis::Items { cal, .. } => cal.m(),
        Basis::TrueDraws(t) => t.k(),
    }
}

/// The new items' sets, calibrated on labelled items: split 0 of `seed`, on `threads` threads.
pub fn on_items(
    cal: &ScoreTensor,
    labels: &[usize],
    test: &ScoreTensor,
    method: Method,
    opts: &ScoreOptions,
    (seed, threads): (u64, usize),
) -> Result<Prediction> {
    predict::predict(cal, labels, test, method, opts, seed, threads)
}

/// The new items' sets, calibrated on true-label draws `[n_cal, 1, M]`, the new items read a
/// block at a time: what `rvalue predict --calibration-true` gives, bit for bit.
pub fn on_pool(
    draws: &ScoreTensor,
    test: &dyn ScoreBlocks,
    method: Method,
    opts: &ScoreOptions,
    (seed, threads): (u64, usize),
) -> Result<Prediction> {
    let pool = TruePool::of_single_draw(draws)?;
    let n_test = test.shape().0;
    let splits = pool_splits(pool.n(), n_test, None, 1, seed)?;
    // The new items' labels are never read: sets do not depend on them.
    let labels = vec![0; n_test];
    let run = Streaming { threads, ..Streaming::default() };
    let mut got = None;
    let mut report = |_: &str, _: usize, _: usize| {};
    let mut take = |_, _, c| {
        got = Some(c);
        Ok(())
    };
    calibrate_with_pool(&pool, test, &labels, &[method], opts, &splits, &run, &mut report, &mut take)?;
    let calibrated = got.ok_or_else(|| Error::invalid("the new items were not scored"))?;
    Ok(Prediction::from_calibrated(calibrated, 0))
}
