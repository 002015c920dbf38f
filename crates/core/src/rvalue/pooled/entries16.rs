//! Entry points of candidates stored as float16 against a split whose every draw has a float16
//! value table ([`super::codes`]): the authors' ImageNet layout, where both the true draws and
//! the test items are float16 files. Per draw the candidates are sorted once, by their 16-bit
//! keys taken in the ties' candidate order, so that equal scores come out by rank without a
//! second pass, and each key gives its table slot directly: no score is widened to f64 and no
//! ordinal is found by rounding one.

use super::codes::{CodeTable, DrawEntry};
use super::greedy::Workspace;
use super::table::prefetch_next_row;
use super::PooledSplit;
use crate::rvalue::nonparametric::{desc_key16, sort_keyed16};
use crate::tensor::{ScoreTensor, Scores};

impl PooledSplit {
    /// [`PooledSplit::entry_points`]' work after the candidate orders, for float16 candidates
    /// against value tables in every draw; false, having done nothing, where that does not hold.
    /// The same entries and orders, bit for bit.
    pub(super) fn entry_points_f16(&self, t: &ScoreTensor, items: &[usize], work: &mut Workspace) -> bool {
        let tables: Option<Vec<&CodeTable>> = self
            .entry
            .iter()
            .map(|e| match e {
                DrawEntry::Codes(c) => Some(c),
                DrawEntry::Table(_) => None,
            })
            .collect();
        let (Some(tables), Some(&first)) = (tables, items.first()) else {
            return false;
        };
        if !matches!(t.draw_scores(first, 0), Scores::F16(_)) {
            return false;
        }
        for (d, codes) in tables.into_iter().enumerate() {
            for (b, &item) in items.iter().enumerate() {
                // Every item of a tensor is stored alike.
                let Scores::F16(bits) = t.draw_scores(item, d) else { return false };
                prefetch_next_row(t, items, b, d, self.m);
                self.draw_entries_f16(d, codes, bits, b, work);
            }
        }
        true
    }

    /// Item `b`'s candidates (`bits`, float16) in draw `d`, whose calibration scores `codes`
    /// counts: into `work.ord` their ranks best first (equal scores by rank) and into
    /// `work.entries` where each enters the calibration order, a tied candidate after the tied
    /// units whose index is below its place (docs/method.md §4).
    fn draw_entries_f16(&self, d: usize, codes: &CodeTable, bits: &[u16], b: usize, work: &mut Workspace) {
        let (n, m, k) = (self.n, self.m, self.k);
        let at = (b * m + d) * k;
        let words = &mut work.words16;
        words.clear();
        let by_rank = &work.by_rank[b * k..(b + 1) * k];
        words.extend(
            by_rank
                .iter()
                .enumerate()
                .map(|(r, &c)| u32::from(desc_key16(bits[c as usize])) << 16 | r as u32),
        );
        sort_keyed16(words, &mut work.spare16);
        let (ord, entries) = (&mut work.ord[at..at + k], &mut work.entries[at..at + k]);
        let starts = &mut work.starts[..k];
        if self.ties.is_index() {
            // A candidate follows every unit it ties: its count at or above.
            for ((&w, o), e) in words.iter().zip(ord.iter_mut()).zip(entries.iter_mut()) {
                *o = w as u16;
                *e = codes.ge_of_key((w >> 16) as u16, n);
            }
            return;
        }
        let mut any = false;
        for (((&w, o), e), start) in
            words.iter().zip(ord.iter_mut()).zip(entries.iter_mut()).zip(starts.iter_mut())
        {
            *o = w as u16;
            let (ge, gt) = codes.ge_gt_of_key((w >> 16) as u16, n);
            // The run of tied calibration units, `gt..ge`; empty where the candidate ties none.
            (*e, *start) = (ge, gt);
            any |= gt < ge;
        }
        if any {
            let places = &work.place[b * k..(b + 1) * k];
            // Tests take the `u32` ids here too, with `wide_ids`.
            match self.narrow.as_ref().filter(|_| !work.wide_ids) {
                Some(units) => place_in_runs(&units[d * n..], places, ord, entries, starts),
                None => place_in_runs(&self.cal_units[d * n..], places, ord, entries, starts),
            }
        }
    }
}

/// Moves each candidate from the end of its run of tied calibration units (`starts[i]..entries[i]`
/// in `units`, the draw's order from its first rank on, ids ascending within a run; empty where
/// it ties none) to its place in the run: after the units whose index is below its place. Runs
/// are a few units (float16 logits at 40,000 units: about six): each is counted in one window of
/// [`WINDOW`] ids, whatever its length, so that neither a tie nor a run's length is a branch the
/// data decide. `units` (`u16` or `u32` ids) holds at least `WINDOW` ids past any run (the
/// order's spare entries).
fn place_in_runs<T: RunIds>(units: &[T], places: &[u32], ord: &[u16], entries: &mut [u32], starts: &[u32]) {
    for ((e, &r), &first) in entries.iter_mut().zip(ord).zip(starts) {
        let (first, len) = (first as usize, (*e - first) as usize);
        // Compared in the ids' own width (twice the lanes for `u16`). A place is at most `n`,
        // which fits wherever the ids do; one that did not would be above every id, leaving the
        // candidate at the run's end, where it is.
        let Ok(g) = T::try_from(places[r as usize]) else { continue };
        let below = match units[first..].first_chunk::<WINDOW>().filter(|_| len <= WINDOW) {
            Some(window) => T::below_in_window(window, len, g),
            None => units[first..first + len].partition_point(|&j| j < g),
        };
        *e = (first + below) as u32;
    }
}

/// Unit ids of a draw's order, as [`place_in_runs`] counts them.
trait RunIds: Copy + PartialOrd + TryFrom<u32> {
    /// How many of the first `len` ids of `window` are below `g`.
    #[inline(always)]
    fn below_in_window(window: &[Self; WINDOW], len: usize, g: Self) -> usize {
        window.iter().enumerate().map(|(i, &j)| usize::from((j < g) & (i < len))).sum()
    }
}

impl RunIds for u32 {}

impl RunIds for u16 {
    /// Two 128-bit compares and a mask on x86_64, where the portable sum compiles to some sixty
    /// instructions of widening and packing (it was a tenth of a pooled test item's time).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn below_in_window(window: &[u16; WINDOW], len: usize, g: u16) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the loads read the 16 ids of `window`, unaligned.
        let mask = unsafe {
            // Unsigned order from signed compares: both sides with the top bit flipped.
            let flip = _mm_set1_epi16(i16::MIN);
            let g = _mm_xor_si128(_mm_set1_epi16(g as i16), flip);
            let lo = _mm_loadu_si128(window.as_ptr().cast());
            let hi = _mm_loadu_si128(window.as_ptr().add(8).cast());
            let lo = _mm_cmplt_epi16(_mm_xor_si128(lo, flip), g);
            let hi = _mm_cmplt_epi16(_mm_xor_si128(hi, flip), g);
            _mm_movemask_epi8(_mm_packs_epi16(lo, hi)) as u32
        };
        // A run's ids ascend, so those below `g` are its first few: the mask's trailing ones
        // (one `tzcnt` where a count of ones is a dozen operations without `popcnt`).
        ((!mask).trailing_zeros() as usize).min(len)
    }
}

/// Ids a run is counted in at once: runs up to this long take no loop of their own. The split's
/// orders hold [`WILD`](super::greedy::WILD) spare ids, enough for a window from any rank.
const WINDOW: usize = 16;
const _: () = assert!(WINDOW <= super::greedy::WILD);
