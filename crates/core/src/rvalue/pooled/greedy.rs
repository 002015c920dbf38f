//! The nested greedy for one test item over the merged rankings of its draws: calibration units
//! and candidates merged a chunk of steps at a time, counted and picked ([`super::picks`]).

use super::picks::{Blocked, Counts, Picks, TiePick, BLOCK, FLOOR_SLACK};
#[cfg(target_arch = "x86_64")]
use super::register_picks;
use super::{PooledItem, PooledSplit};
use crate::rvalue::nonparametric::SortScratch;

impl PooledSplit {
    /// The greedy for the `b`-th item of the last [`PooledSplit::entry_points`], with the block
    /// maxima in vector registers where the CPU has AVX-512 and the units fit (module `register_picks`).
    pub(super) fn greedy(&self, b: usize, work: &mut Workspace) -> PooledItem {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(lists) = self.lists.as_ref().filter(|_| !work.counting) {
            return self.greedy_frontier(b, work, lists);
        }
        #[cfg(target_arch = "x86_64")]
        if !work.plain_picks && register_picks::usable(self.cb + self.k) {
            // SAFETY: `usable` checked that the CPU has the features `greedy_wide` enables.
            return unsafe { self.greedy_wide(b, work) };
        }
        match self.narrow.as_deref().filter(|_| !work.wide_ids) {
            Some(units) => self.greedy_with(b, work, Blocked, units),
            None => self.greedy_with(b, work, Blocked, &self.cal_units),
        }
    }

    /// [`PooledSplit::greedy_with`] compiled for AVX-512, with [`register_picks::Picks`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2")]
    fn greedy_wide(&self, b: usize, work: &mut Workspace) -> PooledItem {
        match self.narrow.as_deref().filter(|_| !work.wide_ids) {
            Some(units) => self.greedy_with(b, work, register_picks::Picks::new(), units),
            None => self.greedy_with(b, work, register_picks::Picks::new(), &self.cal_units),
        }
    }

    /// [`CHUNK`] steps at a time: every draw's ranking of those positions (small enough to stay
    /// in L1), then the greedy's steps over them. `units` is the split's draws' unit order
    /// with ids of type `T` ([`UnitId`]).
    #[inline(always)]
    fn greedy_with<T: UnitId>(
        &self,
        b: usize,
        work: &mut Workspace,
        mut picks: impl Picks,
        units: &[T],
    ) -> PooledItem {
        let (n, m, k, cb) = (self.n, self.m, self.k, self.cb);
        let u = n + k;
        work.reset(n, cb, k, m);
        picks.reset(&work.counts);
        // Taken out for the steps, which borrow the rest of `work` mutably.
        let places = std::mem::take(&mut work.place);
        let mut rows = std::mem::take(T::rows(work));
        rows.resize(m * (CHUNK + WILD), T::default());
        // Under the index rule calibration units win every tie: no pick needs to look further.
        let first_block = if self.ties.is_index() { 0 } else { cb / BLOCK };
        let tie = TiePick { first_block, cb, places: &places[b * k..(b + 1) * k] };
        let mut cand_step = vec![0u32; k];
        let mut cal_steps = Vec::with_capacity(n);
        let mut cal_units = Vec::with_capacity(n);
        let stride = CHUNK + WILD;
        for j0 in (0..u).step_by(CHUNK) {
            let j1 = (j0 + CHUNK).min(u);
            for d in 0..m {
                self.fill_row(d, (b * m + d) * k, (j0, j1), work, (units, &mut rows), d * stride);
            }
            for j in j0..j1 {
                // Step j: every draw's unit at position j enters that draw's top j.
                picks.bump_column(&mut work.counts, &rows, j - j0, stride, m);
                let x = picks.pop_best(&mut work.counts, &tie);
                if x < n {
                    cal_steps.push(j as u32 + 1);
                    cal_units.push(x as u32);
                } else {
                    cand_step[work.by_rank[b * k + x - cb] as usize] = j as u32 + 1;
                }
            }
        }
        work.place = places;
        *T::rows(work) = rows;
        PooledItem { units: u as u32, cand_step, cal_steps, cal_units }
    }

    /// Draw `d`'s ranking at positions `j0..j1` into `rows[base..]`, carrying on from where
    /// the previous chunk stopped (`work.cursor[d]`: calibration units and candidates placed):
    /// the calibration order with the candidates (`work.ord[at..at + K]`, best first, as ranks)
    /// at their entry points (`work.entries[at..]`), which already place them among equal scores.
    /// `units` are the split's draws' unit orders, as `T`.
    #[inline(always)]
    fn fill_row<T: UnitId>(
        &self,
        d: usize,
        at: usize,
        (j0, j1): (usize, usize),
        work: &mut Workspace,
        (units, rows): (&[T], &mut [T]),
        base: usize,
    ) {
        let (n, k) = (self.n, self.k);
        let (ord, entries) = (&work.ord[at..at + k], &work.entries[at..at + k]);
        let (mut ci, mut ki) = work.cursor[d];
        assert!(j1 - j0 <= CHUNK && base + CHUNK + WILD <= rows.len());
        assert!(d * n + n + WILD <= units.len());
        let (src, dst) = (units.as_ptr(), rows.as_mut_ptr());
        // One turn per candidate placed in this chunk: the calibration units before it (often
        // none), then the candidate. A turn per run or candidate, as before, branched on which
        // came next, a branch the data decide and the predictor often missed.
        let mut pos = j0;
        while ki < k {
            // Candidate `ki` stands after `entries[ki]` calibration units and `ki` candidates;
            // entries are nondecreasing and at most `n`, and the clamp keeps runs safe anyway.
            let next = (entries[ki] as usize).clamp(ci, n) + ki;
            if next >= j1 {
                break;
            }
            let run = next - pos;
            // SAFETY: `pos = ci + ki ≤ next`, so the run `ci..ci + run` stays within the draw's
            // `n` units; it is written at `pos − j0 + run < CHUNK`; the asserts leave `WILD`
            // spare entries after both.
            unsafe { wild_copy(dst.add(base + pos - j0), src.add(d * n + ci), run) };
            rows[base + next - j0] = T::of(self.cb + ord[ki] as usize);
            ci += run;
            ki += 1;
            pos = next + 1;
        }
        // Calibration units up to the chunk's end: `j1 − pos` of them remain before the next
        // candidate's entry point, or before `n` once all candidates are placed (`j1 ≤ n + k`).
        let run = j1 - pos;
        // SAFETY: as above, with `pos − j0 + run = j1 − j0 ≤ CHUNK`.
        unsafe { wild_copy(dst.add(base + pos - j0), src.add(d * n + ci), run) };
        ci += run;
        work.cursor[d] = (ci, ki);
        // With many draws the rows are too many streams for the hardware prefetcher: ask for
        // the units this draw's next chunk reads while the greedy works through this one.
        #[cfg(target_arch = "x86_64")]
        if self.m >= PREFETCH_DRAWS {
            prefetch_l2(&units[(d * n + ci).min(d * n + n)..(d * n + ci + CHUNK).min(d * n + n)]);
        }
    }
}

/// Draws from which [`PooledSplit::fill_row`] prefetches the next chunk's calibration units.
#[cfg(target_arch = "x86_64")]
const PREFETCH_DRAWS: usize = 64;

/// Asks for `s` to be fetched into the L2 cache.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_l2<T>(s: &[T]) {
    use std::arch::x86_64::*;
    for line in s.chunks(64 / std::mem::size_of::<T>()) {
        // SAFETY: SSE is part of x86_64; a prefetch reads nothing and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T1>(line.as_ptr().cast()) };
    }
}

/// Steps per chunk of the merged rankings: `M` rows of them (about 16 KB for `M = 31`) stay in
/// the L1 cache between being written and being read by the greedy.
pub(super) const CHUNK: usize = 128;

/// Spare entries at the end of `cal_units` and of the merged rows, for [`wild_copy`].
pub(super) const WILD: usize = 16;

/// Copies `len` entries from `src` to `dst` in fixed runs of [`WILD`], at least one, so that the
/// many short runs of a merge cost a few moves each, without a branch for most, rather than a
/// `memcpy` call. It reads and writes up to `WILD` entries past the run: rows are written front
/// to back, so what spills is overwritten next, or lands in the next row before that is written,
/// or in the spare tail.
///
/// # Safety
/// `src` and `dst` must be valid for `len` rounded up to a multiple of `WILD` entries, and at
/// least `WILD`.
#[inline(always)]
pub(super) unsafe fn wild_copy<T: Copy>(dst: *mut T, src: *const T, len: usize) {
    let mut k = 0;
    loop {
        // SAFETY: the caller's bound; runs of one row never overlap their source.
        unsafe { std::ptr::copy_nonoverlapping(src.add(k), dst.add(k), WILD) };
        k += WILD;
        if k >= len {
            break;
        }
    }
}

/// Scratch memory for [`PooledSplit::item`], reused across test items.
#[derive(Debug, Default)]
pub struct Workspace {
    /// `[item][draw][K]` the items' candidates, best first (as ranks once entry points are found).
    pub(super) ord: Vec<u16>,
    /// `[item][K]` by rank, the candidates' places among the calibration units ([`Ties::order`](crate::rvalue::Ties::order)).
    pub(super) place: Vec<u32>,
    /// `[item][K]` the candidates in the ties' order, and each candidate's rank in it.
    pub(super) by_rank: Vec<u16>,
    pub(super) rank: Vec<u16>,
    /// One draw's candidate scores in their order (exchangeable ties).
    pub(super) sorted: Vec<f64>,
    /// `[item][draw][K]` where each of them enters the draw's calibration order.
    pub(super) entries: Vec<u32>,
    /// One draw's candidates' starts of the calibration runs they tie (exchangeable ties).
    pub(super) starts: Vec<u32>,
    /// The candidates' sorts' buffers.
    pub(super) sort: SortScratch,
    /// One draw's candidates as packed 16-bit keys and ranks, and the radix sort's spare buffer
    /// (float16 candidates, [`super::entries16`]).
    pub(super) words16: Vec<u32>,
    pub(super) spare16: Vec<u32>,
    /// Per draw, the calibration units and candidates placed in earlier chunks.
    pub(super) cursor: Vec<(usize, usize)>,
    /// `[draw][CHUNK + WILD]` unit indices at the chunk's positions, then spare entries, as
    /// `u16` where the split's ids fit, else as `u32`.
    pub(super) narrow_rows: Vec<u16>,
    pub(super) wide_rows: Vec<u32>,
    pub(super) counts: Counts,
    /// The frontier greedy's scratch (`super::frontier`, not in wasm).
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) frontier: super::frontier::FrontierWork,
    /// Tests count every draw where the split could run the frontier greedy, to compare the two.
    #[cfg(not(target_arch = "wasm32"))]
    pub(super) counting: bool,
    /// Tests switch off the register picks (x86_64 only), to compare them with the portable ones.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) plain_picks: bool,
    /// Tests take `u32` ids where `u16` would do, to compare the two.
    pub(super) wide_ids: bool,
    /// Tests find float16 candidates' entry points the general way, to compare the two.
    pub(super) general_entries: bool,
    /// Tests move the picks' floor with other slacks than [`FLOOR_SLACK`] (0: every fall of
    /// the best count finds the block maxima again).
    pub(super) floor_slack: Option<i16>,
}

impl Workspace {
    pub(super) fn reset(&mut self, n: usize, cb: usize, k: usize, m: usize) {
        self.cursor.clear();
        self.cursor.resize(m, (0, 0));
        self.counts.reset(n, cb, k);
        self.counts.slack = self.floor_slack.unwrap_or(FLOOR_SLACK);
    }
}

/// The type of unit ids in the greedy's merged rows: `u16` where a split's ids all fit
/// ([`PooledSplit`]'s `narrow` order), so that the merge reads and writes half the bytes of
/// `u32` (the rows and the split's orders are streamed through the caches once per test item).
pub(super) trait UnitId: Copy + Default {
    fn index(self) -> usize;
    /// `x` as an id; every id the greedy writes fits its split's type.
    fn of(x: usize) -> Self;
    /// The workspace's rows of this type.
    fn rows(work: &mut Workspace) -> &mut Vec<Self>;
}

impl UnitId for u16 {
    #[inline(always)]
    fn index(self) -> usize {
        usize::from(self)
    }
    #[inline(always)]
    fn of(x: usize) -> Self {
        x as u16
    }
    fn rows(work: &mut Workspace) -> &mut Vec<Self> {
        &mut work.narrow_rows
    }
}

impl UnitId for u32 {
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn of(x: usize) -> Self {
        x as u32
    }
    fn rows(work: &mut Workspace) -> &mut Vec<Self> {
        &mut work.wide_rows
    }
}
