//! [`Calibrated`] as bytes, so that a split calibrated in another thread (the page's Web
//! Workers) crosses over as one transferable buffer and comes back with the same bits; and a
//! block's rows ([`BlockRows`], a share of a streamed file's items) likewise.
//!
//! A block's rows: a tag, the item count `n` and flags as `u32` (bit 0: CP_r's rows come, bit 1:
//! class probabilities come), then CP's, CP_avg's, CP_r's (if any), the means and the
//! variances, `n · K` `f64` each; then, if they come, the class probabilities (`n · K` `f64`),
//! their reading's place in `ScoresAre::ALL` and the rows seen ([`Detector::to_byte`]), a
//! byte each.
//!
//! Little-endian: `k`, the test count, the test items and their labels as `u32`, then a tag
//! byte and the store. A global threshold: the test rows' scores and the calibration scores
//! as `f64` (the sorted rows are made again on reading). Pooled: `n` and `U` as `u32`, the
//! candidates' steps as `u32` and the calibration step sets as `u64` words. Per-class thresholds
//! set the tag's high bit and follow the store: `K + 1` class offsets as `u32`, then the
//! scores by class as `f64` (global) or each test item's steps by class as `u32` (pooled).
//! Reading checks every length, index and step set, so a truncated or foreign buffer is an
//! error, never a panic.

use super::calibrated::Store;
use super::per_class::{Groups, PerClass};
use super::steps::StepSets;
use super::streamed::{BlockProbabilities, BlockRows};
use super::{Calibrated, ScoreRows};
use crate::probability::{Detector, ScoresAre};
use crate::tensor::Summaries;
use crate::{Error, Result};

const GLOBAL: u8 = 0;
const PER_ITEM: u8 = 1;
/// Set in the tag when per-class thresholds follow the store.
const BY_CLASS: u8 = 0x80;

impl Calibrated {
    /// Appends this calibration's bytes to `out` ([`Calibrated::read_bytes`] reads them back).
    pub fn write_bytes(&self, out: &mut Vec<u8>) {
        put_u32(out, self.k);
        put_u32(out, self.test.len());
        self.test.iter().for_each(|&i| put_u32(out, i));
        self.labels.iter().for_each(|&y| put_u32(out, y));
        let flag = if self.classes.is_some() { BY_CLASS } else { 0 };
        match &self.store {
            Store::Global { cal, .. } => {
                out.push(GLOBAL | flag);
                (0..self.test.len()).for_each(|t| put_f64s(out, &self.row(t)));
                put_u32(out, cal.len());
                put_f64s(out, cal);
            }
            Store::PerItem { steps, n, cal } => {
                out.push(PER_ITEM | flag);
                put_u32(out, *n);
                put_u32(out, cal.units as usize);
                steps.iter().for_each(|&s| put_u32(out, s as usize));
                cal.words().iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
            }
        }
        if let Some(p) = &self.classes {
            write_classes(p, out);
        }
    }

    /// Reads one calibration from the front of `input` and advances it past it.
    pub fn read_bytes(input: &mut &[u8]) -> Result<Self> {
        let k = take_u32(input)?;
        let n = take_u32(input)?;
        let test = (0..n).map(|_| take_u32(input)).collect::<Result<Vec<_>>>()?;
        let labels = (0..n).map(|_| take_u32(input)).collect::<Result<Vec<_>>>()?;
        if labels.iter().any(|&y| y >= k) {
            return Err(malformed("a label is beyond K"));
        }
        let cells = n.checked_mul(k).ok_or_else(|| malformed("too many scores"))?;
        let tag = take(input, 1)?[0];
        let store = match tag & !BY_CLASS {
            GLOBAL => {
                let rows = ScoreRows::new(take_f64s(input, cells)?, k);
                let len = take_u32(input)?;
                Store::Global { rows, by_item: false, cal: take_f64s(input, len)? }
            }
            PER_ITEM => {
                let per = take_u32(input)?;
                let units = take_u32(input)? as u32;
                let steps = take(input, cells.checked_mul(4).ok_or_else(|| malformed("too many steps"))?)?
                    .chunks_exact(4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect();
                let words = n
                    .checked_mul((units as usize).div_ceil(64))
                    .ok_or_else(|| malformed("too many steps"))?;
                let bits = take(input, words.checked_mul(8).ok_or_else(|| malformed("too many steps"))?)?
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                    .collect();
                let cal = StepSets::from_words(units, per, bits)
                    .filter(|c| c.items() == n)
                    .ok_or_else(|| malformed("a calibration step set does not fit"))?;
                Store::PerItem { steps, n: per, cal }
            }
            _ => return Err(malformed("unknown threshold")),
        };
        let classes = if tag & BY_CLASS != 0 { Some(read_classes(input, k, n, &store)?) } else { None };
        Ok(Calibrated { k, test, labels, store, classes })
    }
}

fn write_classes(p: &PerClass, out: &mut Vec<u8>) {
    let (offsets, groups) = p.parts();
    offsets.iter().for_each(|&o| put_u32(out, o));
    match groups {
        Groups::Scores(s) => put_f64s(out, s),
        Groups::Steps { steps, .. } => steps.iter().for_each(|&s| put_u32(out, s as usize)),
    }
}

/// Per-class thresholds of a calibration of `k` candidates and `items` test items whose store
/// is `store`.
fn read_classes(input: &mut &[u8], k: usize, items: usize, store: &Store) -> Result<PerClass> {
    let offsets = (0..=k).map(|_| take_u32(input)).collect::<Result<Vec<_>>>()?;
    let n = offsets.last().copied().unwrap_or(0);
    let units = match store {
        Store::Global { cal, .. } => cal.len(),
        Store::PerItem { n, .. } => *n,
    };
    if n != units {
        return Err(malformed("per-class thresholds do not fit"));
    }
    let groups = match store {
        Store::Global { .. } => Groups::Scores(take_f64s(input, n)?),
        Store::PerItem { cal, .. } => {
            let len = n
                .checked_mul(items)
                .and_then(|x| x.checked_mul(4))
                .ok_or_else(|| malformed("too many steps"))?;
            let steps = take(input, len)?
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            Groups::Steps { steps, units: cal.units }
        }
    };
    PerClass::from_parts(offsets, groups, items).ok_or_else(|| malformed("per-class thresholds do not fit"))
}

/// `tag` and `calibrations` as one buffer (a toy repeat: its index and its three methods'
/// calibrations), for [`read_calibrations`].
pub fn write_calibrations(tag: usize, calibrations: &[Calibrated]) -> Vec<u8> {
    let mut out = Vec::new();
    put_u32(&mut out, tag);
    put_u32(&mut out, calibrations.len());
    calibrations.iter().for_each(|c| c.write_bytes(&mut out));
    out
}

/// The tag and calibrations of a [`write_calibrations`] buffer, which must hold nothing more.
pub fn read_calibrations(mut input: &[u8]) -> Result<(usize, Vec<Calibrated>)> {
    let tag = take_u32(&mut input)?;
    let count = take_u32(&mut input)?;
    let calibrations = (0..count).map(|_| Calibrated::read_bytes(&mut input)).collect::<Result<Vec<_>>>()?;
    if !input.is_empty() {
        return Err(malformed("bytes are left over"));
    }
    Ok((tag, calibrations))
}

/// `tag` and a block's rows as one buffer, for [`read_block_rows`].
pub fn write_block_rows(tag: usize, r: &BlockRows) -> Vec<u8> {
    let mut out = Vec::new();
    put_u32(&mut out, tag);
    put_u32(&mut out, r.summaries.n);
    put_u32(&mut out, usize::from(r.cp_r.is_some()) | usize::from(r.probabilities.is_some()) << 1);
    let cp_r = r.cp_r.as_deref().unwrap_or(&[]);
    for part in [&r.cp[..], &r.cp_avg, cp_r, &r.summaries.mean, &r.summaries.var] {
        put_f64s(&mut out, part);
    }
    if let Some(p) = &r.probabilities {
        put_f64s(&mut out, &p.probs);
        let reading = ScoresAre::ALL.iter().position(|&a| a == p.read_as).unwrap_or(0);
        out.extend([reading as u8, p.seen.to_byte()]);
    }
    out
}

/// The tag and rows of a [`write_block_rows`] buffer of a file of `m` draws and `k`
/// candidates, which must hold nothing more.
pub fn read_block_rows(mut input: &[u8], m: usize, k: usize) -> Result<(usize, BlockRows)> {
    let tag = take_u32(&mut input)?;
    let n = take_u32(&mut input)?;
    let flags = take_u32(&mut input)?;
    if flags > 3 {
        return Err(malformed("a block's flags are unknown"));
    }
    let len = n.checked_mul(k).ok_or_else(|| malformed("too many numbers"))?;
    let mut rows = || take_f64s(&mut input, len);
    let (cp, cp_avg) = (rows()?, rows()?);
    let cp_r = if flags & 1 != 0 { Some(rows()?) } else { None };
    let (mean, var) = (rows()?, rows()?);
    let probabilities = if flags & 2 != 0 {
        let probs = take_f64s(&mut input, len)?;
        let b = take(&mut input, 2)?;
        let read_as = ScoresAre::ALL.get(usize::from(b[0])).copied();
        let (read_as, seen) = read_as
            .zip(Detector::from_byte(b[1]))
            .ok_or_else(|| malformed("a block's reading is unknown"))?;
        Some(BlockProbabilities { probs, read_as, seen })
    } else {
        None
    };
    if !input.is_empty() {
        return Err(malformed("bytes are left over"));
    }
    let summaries = Summaries { n, k, m, mean, var };
    Ok((tag, BlockRows { cp, cp_avg, cp_r, summaries, probabilities }))
}

fn malformed(what: &str) -> Error {
    Error::invalid(format!("a result handed over from another thread is malformed: {what}"))
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    // Counts and indices of data that fits in wasm32's memory.
    out.extend_from_slice(&(v as u32).to_le_bytes());
}

fn put_f64s(out: &mut Vec<u8>, v: &[f64]) {
    out.reserve(8 * v.len());
    v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if input.len() < n {
        return Err(malformed("it ends early"));
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Ok(head)
}

fn take_u32(input: &mut &[u8]) -> Result<usize> {
    let b = take(input, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

fn take_f64s(input: &mut &[u8], n: usize) -> Result<Vec<f64>> {
    let bytes = take(input, n.checked_mul(8).ok_or_else(|| malformed("too many numbers"))?)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect())
}
