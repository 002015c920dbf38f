//! In a worker: a streamed file it reads shares and pooled splits of, known by its layout
//! (from its header) and its items' labels. The worker reads the bytes; this says which.

use std::ops::Range;

use rvalue_core::io::BlockLayout;
use rvalue_core::Result;

use crate::{ShareRequest, StreamedSplits, STEP_BYTES};

/// A streamed file's layout and its pooled splits (the true-label draws once gathered).
pub struct HeldStream {
    layout: BlockLayout,
    splits: StreamedSplits,
}

impl HeldStream {
    /// The file `name` of `size` bytes, from `head`, its first bytes, whose items have `labels`
    /// (as numbers, as the worker script passes them).
    pub fn open(name: &str, size: u64, head: &[u8], labels: Vec<f64>) -> Result<HeldStream> {
        let layout = BlockLayout::of_npy_head(name, head, size)?;
        let splits = StreamedSplits::new(labels.into_iter().map(|y| y as usize).collect());
        Ok(HeldStream { layout, splits })
    }

    /// Starts the group of pooled splits `request` names.
    pub fn start(&mut self, request: &str) -> Result<()> {
        self.splits.start(&self.layout, request)
    }

    /// The bytes the next [`HeldStream::step`] reads, to be read ahead.
    pub fn ahead(&self) -> Range<u64> {
        self.splits.step_range(&self.layout, STEP_BYTES)
    }

    /// Reads (`read`) and calibrates about [`STEP_BYTES`] more of the group; its bytes once done.
    pub fn step(&mut self, read: &dyn Fn(Range<u64>) -> Result<Vec<u8>>) -> Result<Option<Vec<u8>>> {
        self.splits.step(&self.layout, read, STEP_BYTES)
    }

    /// The share `request` names, and the bytes it reads.
    pub fn share(&self, request: &str) -> Result<(ShareRequest, Range<u64>)> {
        let share = ShareRequest::parse(&self.layout, request)?;
        let bytes = share.bytes(&self.layout);
        Ok((share, bytes))
    }

    /// The rows of `share`, from its bytes `raw`.
    pub fn score(&self, share: &ShareRequest, raw: &[u8]) -> Result<Vec<u8>> {
        share.score(&self.layout, raw)
    }
}

#[cfg(test)]
mod tests;
