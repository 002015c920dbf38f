//! Score blocks: a tensor's items a block at a time, in item order, from memory or from a file.
//!
//! Every split-independent score is a reduction of one item's `M × K` scores, and pooled CP_r
//! needs the calibration items' true-label draws plus one test item at a time
//! (docs/method.md §§2–4), so nothing in the method needs a whole tensor at once. A
//! [`ScoreBlocks`] hands out consecutive blocks of items; `conformal::streamed` reduces them.
//! A file ([`crate::io::ScoreFile`]) reads each block when it is asked for; a tensor in memory
//! copies it out, so both paths run the same code and give the same bits.

use crate::tensor::ScoreTensor;
use crate::Result;

/// A source of a score tensor's items, a block of consecutive items at a time.
pub trait ScoreBlocks: Sync {
    /// Items `N`, draws `M` and candidates `K`.
    fn shape(&self) -> (usize, usize, usize);

    /// Calls `each(first, block)` for consecutive blocks of at most `items` items (at least
    /// one), from item 0 to the last, in order; `block` holds items `first..first + len`.
    /// Stops at the first error, `each`'s or the source's.
    fn for_each_block(
        &self,
        items: usize,
        each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
    ) -> Result<()>;
}

impl ScoreBlocks for ScoreTensor {
    fn shape(&self) -> (usize, usize, usize) {
        (self.n(), self.m(), self.k())
    }

    fn for_each_block(
        &self,
        items: usize,
        each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
    ) -> Result<()> {
        let items = items.max(1);
        for first in (0..self.n()).step_by(items) {
            each(first, &self.items(first..(first + items).min(self.n())))?;
        }
        Ok(())
    }
}

/// Items per block so that a block's scores, widened to f64, take about `bytes` (at least one
/// item): what a pass holds per block in flight.
pub fn items_per_block(m: usize, k: usize, bytes: usize) -> usize {
    (bytes / m.saturating_mul(k).saturating_mul(8).max(1)).max(1)
}
