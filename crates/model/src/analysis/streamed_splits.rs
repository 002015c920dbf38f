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
use std::sync::Arc;

use super::hand_out::split_request;
use super::{internal, AnalysisJob, Claim, HandOut, Phase, Source, StreamedFile, Work, CP_R};
use crate::url::UrlState;
use crate::Controls;
use rvalue_core::blocks::items_per_block;
use rvalue_core::conformal::streamed::{PooledPass, Streaming, Units};
use rvalue_core::conformal::{
    read_calibrations, write_calibrations, Calibrated, RvalueKind, ScoreOptions, Split,
};
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
fn splits_request(first: usize, count: usize, query: &str) -> String {
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

type Reply = (usize, Vec<Calibrated>, Vec<f64>);

fn read_reply(bytes: &[u8]) -> Result<Reply> {
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

impl AnalysisJob {
    /// Whether this is pooled CP_r on a streamed file (its splits are calibrated by threads
    /// that read the file, never by the job).
    pub fn streamed_pooled(&self) -> bool {
        matches!(self.source, Source::Streamed(_)) && self.opts.kind == RvalueKind::Pooled
    }

    /// The next group of splits nobody calibrates, once the pass has made the part.
    pub(in crate::analysis) fn hand_out_splits(&mut self) -> Option<HandOut> {
        let Source::Streamed(file) = &self.source else { return None };
        if self.part.is_none() || !self.streamed_pooled() {
            return None;
        }
        let group = group_size(file, &self.controls);
        let first =
            (0..self.split_claims.len()).step_by(group).find(|&r| self.split_claims[r] == Claim::Free)?;
        let end = (first + group).min(self.split_claims.len());
        self.split_claims[first..end].iter_mut().for_each(|c| *c = Claim::Out);
        let query = UrlState::with_controls(self.controls.clone()).to_query();
        Some(HandOut { part: first, request: splits_request(first, end - first, &query), work: Work::Splits })
    }

    /// Takes the group of splits starting at `first`, as [`StreamedSplits::compute`] made it.
    pub(in crate::analysis) fn supply_splits(&mut self, first: usize, bytes: &[u8]) -> Result<()> {
        let (index, calibrated, units) = read_reply(bytes)?;
        let part = self.part.as_mut().ok_or_else(|| internal("a group of splits is back after its part"))?;
        let (_, m, k) = part.shape();
        let end = first + calibrated.len();
        let out = self.split_claims.get(first..end).is_some_and(|c| c.iter().all(|&c| c == Claim::Out));
        let fits = |(r, c): (usize, &Calibrated)| {
            c.k == k && c.test == part.splits[r].test && c.per_item_threshold()
        };
        let units_fit = units.len() == if first == 0 { part.splits[0].cal.len() * m } else { 0 };
        if index != first
            || calibrated.is_empty()
            || !out
            || !units_fit
            || !(first..).zip(&calibrated).all(fits)
        {
            return Err(Error::shape(format!("the result handed in for splits from {first} is not theirs")));
        }
        if first == 0 {
            part.units = Some(Arc::new(units));
        }
        self.record_splits(first, calibrated);
        Ok(())
    }

    /// Gives the group from `first` back (its thread failed): another thread takes it.
    pub(in crate::analysis) fn hand_back_splits(&mut self, first: usize) {
        let Source::Streamed(file) = &self.source else { return };
        let end = (first + group_size(file, &self.controls)).min(self.split_claims.len());
        for c in self.split_claims.get_mut(first..end).into_iter().flatten() {
            if *c == Claim::Out {
                *c = Claim::Free;
            }
        }
    }

    /// The fraction done of pooled CP_r on a streamed file, weighting each read of the file
    /// alike: the pass, then the groups of splits.
    pub(in crate::analysis) fn streamed_pooled_fraction(&self) -> Option<f64> {
        let Source::Streamed(file) = &self.source else { return None };
        if !self.streamed_pooled() {
            return None;
        }
        let splits = self.split_claims.len().max(1);
        // A pass weighs as a group's read, when the rows were not kept.
        let pass = if self.read_file { 1.0 } else { 0.0 };
        let pass_share = pass / (pass + splits.div_ceil(group_size(file, &self.controls)) as f64);
        Some(match (self.phase, &self.pass) {
            (Phase::Done, _) => 1.0,
            (Phase::Load, _) => 0.0,
            (_, Some(p)) => pass_share * p.fraction(),
            _ => pass_share + (1.0 - pass_share) * self.calibrated[CP_R].len() as f64 / splits as f64,
        })
    }
}
