//! The greedy's counts and picks: per unit the draws that rank it ahead so far, in blocks with
//! their maxima, so that a step finds its best unit from the block maxima and one block.

use super::greedy::UnitId;
use super::simd;

/// The greedy's per-step work on [`Counts`]: the step's count increments, then the pick.
pub(super) trait Picks {
    fn reset(&mut self, counts: &Counts);
    fn bump_column<T: UnitId>(
        &mut self,
        counts: &mut Counts,
        rows: &[T],
        col: usize,
        stride: usize,
        m: usize,
    );
    fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize;
}

/// What a pick needs to break a tie between a calibration unit and a candidate by the
/// exchangeable order: the candidates' first block (`0` under the index rule, which never
/// looks), their first id, and their places by rank.
pub(super) struct TiePick<'a> {
    pub(super) first_block: usize,
    pub(super) cb: usize,
    pub(super) places: &'a [u32],
}

impl TiePick<'_> {
    /// Whether the candidate with id `x` precedes calibration unit `j` in the tie order.
    #[inline]
    pub(super) fn candidate_first(&self, x: usize, j: usize) -> bool {
        self.places[x - self.cb] as usize <= j
    }
}

/// The portable picks: block maxima in memory ([`Counts::block_max`]).
pub(super) struct Blocked;

impl Picks for Blocked {
    fn reset(&mut self, _: &Counts) {}

    #[inline(always)]
    fn bump_column<T: UnitId>(
        &mut self,
        counts: &mut Counts,
        rows: &[T],
        col: usize,
        stride: usize,
        m: usize,
    ) {
        counts.bump_column(rows, col, stride, m);
    }

    #[inline(always)]
    fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize {
        counts.pop_best(tie)
    }
}

/// Units per block of the greedy's max structure: eight 128-bit vectors of `i16`.
pub(super) const BLOCK: usize = 64;

/// A chosen unit's count: so far below zero that `m < MAX_DRAWS` increments keep it negative,
/// so it never wins a maximum and an increment needs no test for it.
pub(super) const CHOSEN: i16 = i16::MIN;

/// The greedy's counts with the query it needs at each step: the unchosen unit with the largest
/// count, the lowest index among ties, while counts grow by one. Counts live in a flat array
/// padded to whole blocks (padding holds `CHOSEN`) with a maximum per block of 64 units; a pick
/// compares block maxima and one block eight lanes at a time ([`first_equal`]).
///
/// Only counts that reach the *floor*, a few below the last pick's, raise their block's
/// maximum: an increment below it (most of them: half land on units already chosen, and most of
/// the rest on units far behind) is a load, an add, a store and a compare. So a block maximum at
/// or above the floor is exact, and one below it may lag its block. A pick whose best is at or
/// above the floor is therefore the true best; should the best fall below the floor, every block
/// maximum is found again from the counts and the floor drops below it.
#[derive(Debug, Default)]
pub(super) struct Counts {
    pub(super) count: Vec<i16>,
    pub(super) block_max: Vec<i16>,
    /// The frontier greedy's maxima of [`SUPER`] block maxima each, so that its picks scan a
    /// dozen of them instead of every block's (the counting greedy leaves them be).
    #[cfg(not(target_arch = "wasm32"))]
    sup: Vec<i16>,
    floor: i16,
    /// How far below a pick's count the floor follows it ([`FLOOR_SLACK`]; tests vary it).
    pub(super) slack: i16,
}

/// The floor's distance below the last pick's count. Closer, the frontier greedy keeps fewer
/// units awake, but the best count falls below the floor more often (on the authors' ImageNet
/// layout about 9 times a test item of 41,000 picks at 5, twice at 8, 18 times at 4). A fall
/// costs the frontier little, and distances of 3 to 6 measured alike there, 8 slower.
pub(super) const FLOOR_SLACK: i16 = 5;

impl Counts {
    /// Zero counts for calibration units `0..n` and candidates `cb..cb + k` (`cb` = `n` in
    /// whole blocks); the ids between are never chosen.
    pub(super) fn reset(&mut self, n: usize, cb: usize, k: usize) {
        let blocks = (cb + k).div_ceil(BLOCK);
        self.count.clear();
        self.count.resize(blocks * BLOCK, CHOSEN);
        self.count[..n].fill(0);
        self.count[cb..cb + k].fill(0);
        // Padded to whole vectors with blocks that hold no unit.
        self.block_max.clear();
        self.block_max.resize(blocks.next_multiple_of(LANES), CHOSEN);
        self.block_max[..blocks].fill(0);
        self.floor = 0;
    }

    /// Every block's maximum found again from its counts, for a best that fell below the floor.
    #[cold]
    pub(super) fn refresh(&mut self) {
        for (b, block) in self.count.chunks_exact(BLOCK).enumerate() {
            self.block_max[b] = max_of(block);
        }
    }

    /// The largest unchosen count, with the floor moved to follow it.
    #[inline]
    fn best(&mut self) -> i16 {
        let best = max_of(&self.block_max);
        if best >= self.floor {
            self.follow(best);
            return best;
        }
        self.refresh();
        let best = max_of(&self.block_max);
        self.floor = best.saturating_sub(self.slack);
        best
    }

    /// The floor raised to follow a pick's count `best`, at or above it.
    #[inline]
    fn follow(&mut self, best: i16) {
        self.floor = self.floor.max(best.saturating_sub(self.slack));
    }

    /// Adds one to the count of each unit `rows[col + d·stride]`, `d < m`: the `M` units that
    /// enter the draws' tops at this step. This loop is the whole cost of the pooled r-value
    /// (`M·U` runs per test item), so it indexes unchecked: bounds checks would add a third.
    #[inline(always)]
    pub(super) fn bump_column<T: UnitId>(&mut self, rows: &[T], col: usize, stride: usize, m: usize) {
        assert!(col < stride && (m == 0 || (m - 1) * stride + col < rows.len()));
        let units = self.count.len();
        let count = self.count.as_mut_ptr();
        let block_max = self.block_max.as_mut_ptr();
        let floor = self.floor;
        // SAFETY: the assert bounds every `d·stride + col` by `rows.len()`; `rows` holds unit
        // ids below `U` (written only by `fill_row`), `count` has at least `U` entries and
        // `block_max` one per `BLOCK` of them.
        let bump = |p: usize| unsafe {
            let x = rows.get_unchecked(p).index();
            debug_assert!(x < units);
            let c = (*count.add(x)).wrapping_add(1);
            *count.add(x) = c;
            if c >= floor {
                let b = block_max.add(x / BLOCK);
                *b = (*b).max(c);
            }
        };
        crate::rvalue::strided::each_draw(col, stride, m, bump);
    }

    /// Takes the unchosen unit with the largest count, first in the tie order among ties. There
    /// is one: the greedy makes exactly `U` picks of `U` units.
    pub(super) fn pop_best(&mut self, tie: &TiePick) -> usize {
        let best = self.best();
        let mut block = first_equal(&self.block_max, best);
        if block < tie.first_block {
            block = self.tie_block(block, best, tie);
        }
        self.take(block, best)
    }

    /// Takes the first unit of `block` whose count is `best`, the block's maximum.
    // A `BLOCK` slice has exactly the length converted to: infallible.
    #[allow(clippy::expect_used)]
    #[inline]
    fn take(&mut self, block: usize, best: i16) -> usize {
        let start = block * BLOCK;
        let counts: &mut [i16; BLOCK] =
            (&mut self.count[start..start + BLOCK]).try_into().expect("whole blocks");
        // Found before the store below: reading the block back after it (a narrow store under
        // wide loads) waits for the store to reach the cache.
        let (x, rest) = pick_in_block(counts, best);
        counts[x] = CHOSEN;
        self.block_max[block] = rest;
        start + x
    }

    /// The block to pick from when the first unit with count `best` is a calibration unit in
    /// `block`: the block of the first candidate with that count if the tie order puts it first.
    pub(super) fn tie_block(&self, block: usize, best: i16, tie: &TiePick) -> usize {
        let Some(cblock) = (tie.first_block..self.block_max.len()).find(|&b| self.block_max[b] == best)
        else {
            return block;
        };
        let first = |b: usize| b * BLOCK + first_equal(&self.count[b * BLOCK..(b + 1) * BLOCK], best);
        if tie.candidate_first(first(cblock), first(block)) {
            cblock
        } else {
            block
        }
    }
}

/// What the frontier greedy (native only, `super::frontier`) reads and moves of the counts.
#[cfg(not(target_arch = "wasm32"))]
impl Counts {
    /// The floor: block maxima at or above it are exact.
    pub(super) fn floor(&self) -> i16 {
        self.floor
    }

    /// Raises the floor to `floor` if below it: to a bound under the best count.
    #[inline]
    pub(super) fn raise_floor(&mut self, floor: i16) {
        self.floor = self.floor.max(floor);
    }

    /// Moves the floor; a lower floor needs [`Counts::refresh`] first.
    pub(super) fn set_floor(&mut self, floor: i16) {
        self.floor = floor;
    }

    /// The largest block maximum: the best count where that is at or above the floor. Found
    /// from the maxima of blocks, which [`Counts::refresh_tops`] sets and the frontier's own
    /// updates ([`Counts::set`], [`Counts::pop_top`]) keep.
    #[inline]
    pub(super) fn top(&self) -> i16 {
        max_of(&self.sup)
    }

    /// Every block's maximum, and every maximum of blocks, found again from the counts.
    #[cold]
    pub(super) fn refresh_tops(&mut self) {
        self.refresh();
        self.sup.clear();
        self.sup.extend(self.block_max.chunks(SUPER).map(max_of));
        self.sup.resize(self.sup.len().next_multiple_of(LANES), CHOSEN);
    }

    /// [`Counts::pop_best`] for the frontier greedy, whose best is at or above the floor: the
    /// best block found from the maxima of blocks, then among theirs. A step scanned all 641
    /// block maxima (at 41,000 units) twice and searched them again; now a dozen and a block's.
    pub(super) fn pop_top(&mut self, tie: &TiePick) -> usize {
        let best = self.top();
        debug_assert!(best >= self.floor);
        self.follow(best);
        let s = first_equal(&self.sup, best);
        let mut block = s * SUPER + first_equal(self.blocks_of(s), best);
        if block < tie.first_block {
            block = self.tie_block(block, best, tie);
        }
        let x = self.take(block, best);
        let s = block / SUPER;
        self.sup[s] = max_of(self.blocks_of(s));
        x
    }

    /// The block maxima of the `s`-th maximum of blocks.
    fn blocks_of(&self, s: usize) -> &[i16] {
        &self.block_max[s * SUPER..((s + 1) * SUPER).min(self.block_max.len())]
    }

    /// Unit `x`'s count set to `c`, raising its block's maximum where `c` reaches the floor.
    #[inline(always)]
    pub(super) fn set(&mut self, x: usize, c: i16) {
        self.count[x] = c;
        if c >= self.floor {
            let b = &mut self.block_max[x / BLOCK];
            *b = (*b).max(c);
            let s = &mut self.sup[x / (BLOCK * SUPER)];
            *s = (*s).max(c);
        }
    }

    /// Adds one to unit `x`'s count, as [`Counts::bump_column`] does for each of its units.
    #[inline(always)]
    pub(super) fn bump(&mut self, x: usize) {
        let c = self.count[x].wrapping_add(1);
        self.set(x, c);
    }
}

/// `i16` lanes per vector.
pub(super) const LANES: usize = 8;

/// Block maxima per maximum of blocks ([`Counts::pop_top`]).
#[cfg(not(target_arch = "wasm32"))]
const SUPER: usize = 64;

/// The largest element of `a`, whose length is a multiple of [`LANES`] (`CHOSEN` if empty).
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
pub(super) fn max_of(a: &[i16]) -> i16 {
    let mut acc = [CHOSEN; LANES];
    for chunk in a.chunks_exact(LANES) {
        acc = simd::max8(&acc, chunk.try_into().expect("whole vectors"));
    }
    simd::hmax8(&acc)
}

/// The index of the first element of a block equal to `v`, the block's largest element, and the
/// block's largest element once that one is chosen: `v` again if another equals it, else the
/// largest of the rest, or some negative value if all the rest are chosen (never equal to a
/// pick's maximum, which is an unchosen count and so at least zero). One mask over all eight
/// vectors, so that no branch depends on where the element is.
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
pub(super) fn pick_in_block(a: &[i16; BLOCK], v: i16) -> (usize, i16) {
    let mut mask = 0u64;
    let mut rest = [CHOSEN; LANES];
    for (i, chunk) in a.chunks_exact(LANES).enumerate() {
        let chunk = chunk.try_into().expect("whole vectors");
        mask |= u64::from(simd::eq_mask8(chunk, v)) << (i * LANES);
        rest = simd::max8(&rest, &simd::knock8(chunk, v));
    }
    let rest = if mask & mask.wrapping_sub(1) != 0 { v } else { simd::hmax8(&rest) };
    (mask.trailing_zeros() as usize, rest)
}

/// The index of the first element of `a` equal to `v`; `a`'s length is a multiple of
/// [`LANES`]. `a.len()` if there is none.
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
pub(super) fn first_equal(a: &[i16], v: i16) -> usize {
    for (i, chunk) in a.chunks_exact(LANES).enumerate() {
        let mask = simd::eq_mask8(chunk.try_into().expect("whole vectors"), v);
        if mask != 0 {
            return i * LANES + mask.trailing_zeros() as usize;
        }
    }
    a.len()
}
