//! Pooled CP_r on a streamed file. Each split needs its calibration units' true-label draws and
//! then every test item once (docs/method.md §4), so a thread that holds the file (the page's
//! workers) calibrates a group of splits in one pass with the core's streamed path
//! (`conformal::streamed::PooledPass`), a few blocks a step, each step's bytes read ahead:
//! every item's true-label draws are gathered in its first pass and kept, then each group costs
//! one pass.
//! The job hands the groups out like a held file's splits ([`AnalysisJob::hand_out`]), takes
//! them back as bytes and records them in split order, so the numbers are the held file's, bit
//! for bit. The group holding split 0 also brings that split's units' draws (`n_cal × M`):
//! the inspector re-runs one test item's greedy against them ([`Analysis::supply_item`]).
//!
//! [`Analysis::supply_item`]: super::Analysis::supply_item

use std::ops::Range;

use super::hand_out::split_request;
use super::{internal, StreamedFile};
use crate::Controls;
use rvalue_core::blocks::items_per_block;
use rvalue_core::conformal::streamed::{PooledPass, Streaming, Units};
use rvalue_core::conformal::{read_calibrations, write_calibrations, Calibrated, ScoreOptions, Split};
use rvalue_core::io::BlockLayout;
use rvalue_core::rvalue::PooledSplit;
use rvalue_core::tensor::Scores;
use rvalue_core::{Error, Result};

/// About how many bytes the pooled splits a thread calibrates in one pass hold together (its
/// wasm memory never shrinks, and the page's budget is shared by every worker).
pub const GROUP_BYTES: usize = 96 << 20;

/// About how many bytes of f64 scores a worker's block holds while a group's pass reads it.
const BLOCK_BYTES: usize = 16 << 20;

/// About how many bytes of the file a worker reads in a step, between which its event loop runs
/// (its other messages wait for a step to end).
pub const STEP_BYTES: usize = 8 << 20;

/// About the bytes one pooled split holds in a pass: its tables, and per test item the
/// candidates' steps and a bit per unit (the core's estimate for its groups).
fn split_bytes(n_cal: usize, n_test: usize, m: usize, k: usize) -> usize {
    PooledSplit::bytes_for(n_cal, m) + n_test * (k * 4 + (n_cal + k).div_ceil(8))
}

/// Splits per group: as many as the file's budget ([`GROUP_BYTES`]) holds, at least one.
pub(in crate::analysis) fn group_size(file: &StreamedFile, controls: &Controls) -> usize {
    let (n, m, k) = file.layout.shape();
    let n_cal = (n as f64 * controls.cal_fraction).round() as usize;
    (file.group_bytes() / split_bytes(n_cal, n - n_cal, m, k).max(1)).clamp(1, controls.splits.max(1))
}

/// A thread holding a streamed file: calibrates the groups of pooled splits handed to it, a
/// few blocks a step ([`StreamedSplits::step`]), whose bytes it reads ahead
/// ([`StreamedSplits::step_range`]): a read buffer a step would pile up uncollected.
pub struct StreamedSplits {
    labels: Vec<usize>,
    /// Every item's true-label draws `[N][M]`, gathered by the first group's pass.
    draws: Option<Vec<f64>>,
    /// The group being calibrated.
    group: Option<Group>,
}

/// A group of splits being calibrated: the draws' pass (first group only), then the test items'.
struct Group {
    first: usize,
    splits: Vec<Split>,
    opts: ScoreOptions,
    /// The next item to read.
    next: usize,
    /// `None` while the draws are gathered.
    pass: Option<PooledPass>,
    gathered: Vec<f64>,
}

impl StreamedSplits {
    /// For a file whose items have `labels`.
    pub fn new(labels: Vec<usize>) -> Self {
        StreamedSplits { labels, draws: None, group: None }
    }

    /// Starts the group of splits a request of [`AnalysisJob::hand_out`] names, of the file
    /// `layout` describes (replacing any group not finished).
    pub fn start(&mut self, layout: &BlockLayout, request: &str) -> Result<()> {
        self.group = None;
        let (first, count, controls) = read_splits_request(request)?;
        let n = layout.shape().0;
        if self.labels.len() != n || count == 0 || first + count > controls.splits {
            return Err(Error::invalid(
                "the splits asked for do not exist, or the labels are not the file's",
            ));
        }
        let splits =
            (first..first + count).map(|r| Split::random(n, controls.cal_fraction, controls.seed, r));
        let (splits, opts) = (splits.collect::<Result<Vec<_>>>()?, controls.score_options());
        self.group = Some(Group { first, splits, opts, next: 0, pass: None, gathered: Vec::new() });
        Ok(())
    }

    /// Reads (`read`: byte ranges of the file) and calibrates about `bytes` more of the file
    /// ([`STEP_BYTES`]; a block holds at most that much); the group's result once its last
    /// block is in, for [`AnalysisJob::supply_part`].
    pub fn step(
        &mut self,
        layout: &BlockLayout,
        read: &dyn Fn(Range<u64>) -> Result<Vec<u8>>,
        bytes: usize,
    ) -> Result<Option<Vec<u8>>> {
        let (n, m, k) = layout.shape();
        let g = self.group.as_mut().ok_or_else(|| Error::invalid("no group of splits was started"))?;
        if let (None, Some(draws)) = (&g.pass, &self.draws) {
            // The draws were kept from an earlier group: the test items' pass at once.
            let units = Units { draws: Scores::F64(draws), key_offset: 0, classes: Some(&self.labels) };
            g.pass = Some(PooledPass::new(units, m, k, &g.splits, &g.opts)?);
        }
        let per_read = items_per_block(m, k, BLOCK_BYTES.min(bytes));
        let mut budget = bytes as i64;
        while budget > 0 && g.next < n {
            let items = g.next..(g.next + per_read).min(n);
            let range = layout.bytes_of(items.clone());
            budget -= (range.end - range.start) as i64;
            let block = layout.block(items.start, &read(range)?)?;
            match &mut g.pass {
                Some(pass) => pass.block(items.start, &block, &Streaming::default())?,
                None => (0..block.n()).for_each(|i| {
                    let y = self.labels[items.start + i];
                    g.gathered.extend((0..m).map(|d| block.get(i, d, y)));
                }),
            }
            g.next = items.end;
        }
        if g.next < n {
            return Ok(None);
        }
        if self.draws.is_none() {
            self.draws = Some(std::mem::take(&mut g.gathered));
        }
        let draws = self.draws.as_deref().ok_or_else(|| internal("the draws are gone"))?;
        if g.pass.is_none() {
            // The draws are in (or were kept): the test items' pass next.
            let units = Units { draws: Scores::F64(draws), key_offset: 0, classes: Some(&self.labels) };
            (g.pass, g.next) = (Some(PooledPass::new(units, m, k, &g.splits, &g.opts)?), 0);
            return Ok(None);
        }
        let g = self.group.take().ok_or_else(|| internal("the group is gone"))?;
        let calibrated = g.pass.map(|p| p.finish(&self.labels)).unwrap_or_default();
        // Split 0's units, for the inspector.
        let first_units: Vec<f64> = match g.first {
            0 => g.splits[0].cal.iter().flat_map(|&j| draws[j * m..(j + 1) * m].iter().copied()).collect(),
            _ => Vec::new(),
        };
        Ok(Some(write_reply(g.first, &calibrated, &first_units)))
    }

    /// The bytes of the file the next [`StreamedSplits::step`] of `bytes` reads (whole blocks
    /// from the group's next item on, until `bytes` are read), for a thread that reads them
    /// ahead, asynchronously, into one buffer.
    pub fn step_range(&self, layout: &BlockLayout, bytes: usize) -> Range<u64> {
        let Some(g) = &self.group else { return 0..0 };
        let (n, m, k) = layout.shape();
        let per_read = items_per_block(m, k, BLOCK_BYTES.min(bytes));
        let reads = bytes.div_ceil((per_read * layout.item_bytes()).max(1)).max(1);
        layout.bytes_of(g.next.min(n)..(g.next + reads * per_read).min(n))
    }
}

/// The request for splits `first..first + count`: `"<first>+<count>\n<settings>"`.
pub(in crate::analysis) fn splits_request(first: usize, count: usize, query: &str) -> String {
    format!("{first}+{count}\n{query}")
}

fn read_splits_request(request: &str) -> Result<(usize, usize, Controls)> {
    let bad = || Error::invalid("a group of splits' request must be '<first>+<count>\n<settings>'");
    let (head, controls) = split_request(request)?;
    let (first, count) = head.split_once('+').ok_or_else(bad)?;
    let number = |x: &str| x.parse::<usize>().map_err(|_| bad());
    Ok((number(first)?, number(count)?, controls))
}

/// A group's reply: the calibrations' length (u64, little-endian), the calibrations
/// (`write_calibrations`, tagged with the first split), then split 0's units' draws as f64.
fn write_reply(first: usize, calibrated: &[Calibrated], units: &[f64]) -> Vec<u8> {
    let cal = write_calibrations(first, calibrated);
    let mut out = Vec::with_capacity(8 + cal.len() + 8 * units.len());
    out.extend_from_slice(&(cal.len() as u64).to_le_bytes());
    out.extend_from_slice(&cal);
    units.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    out
}

pub(in crate::analysis) type Reply = (usize, Vec<Calibrated>, Vec<f64>);

pub(in crate::analysis) fn read_reply(bytes: &[u8]) -> Result<Reply> {
    let garbled = || Error::invalid("a group of pooled splits came back garbled");
    let (len, rest) = bytes.split_first_chunk::<8>().ok_or_else(garbled)?;
    let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| garbled())?;
    if len > rest.len() || !(rest.len() - len).is_multiple_of(8) {
        return Err(garbled());
    }
    let (first, calibrated) = read_calibrations(&rest[..len])?;
    let units = rest[len..].chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    Ok((first, calibrated, units.collect()))
}
