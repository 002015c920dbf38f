//! The picks with AVX-512 (x86_64, detected at run time), for up to 32 blocks (2048 units): the
//! block maxima live in a vector register instead of [`Counts::block_max`]. In memory, each
//! step's pick read them as whole vectors just after the step's increments had written single
//! lanes, which stalls until those stores reach the cache (a store cannot be forwarded into a
//! wider load); in a register an increment is a masked lane-wise maximum. Two registers take
//! alternate draws, so that the increments do not wait on each other.

use super::greedy::UnitId;
use super::picks::{Counts, TiePick, BLOCK, CHOSEN};
use std::arch::x86_64::*;

/// Blocks one register holds: 32 lanes of `i16`.
const BLOCKS: usize = 32;

/// Whether this CPU and `u` units can take these picks.
pub fn usable(u: usize) -> bool {
    u.div_ceil(BLOCK) <= BLOCKS
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
}

/// The largest of `v`'s 32 lanes. Flipping all but the sign bit turns signed order into
/// reversed unsigned order, whose minimum one instruction finds.
#[inline(always)]
fn hmax(v: __m512i) -> i16 {
    // SAFETY (this module's intrinsics): only reached through `Picks`, which only
    // `PooledSplit::greedy_wide` makes, after `usable` found the features it enables.
    unsafe {
        let m = _mm256_max_epi16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
        let m = _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
        let flip = _mm_set1_epi16(i16::MAX);
        (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, flip))) as i16) ^ i16::MAX
    }
}

/// Block maxima, lane `b` for block `b` (lanes past the last block hold `CHOSEN`), as the
/// lane-wise maximum of two registers.
pub struct Picks {
    even: __m512i,
    odd: __m512i,
}

impl Picks {
    #[inline(always)]
    pub fn new() -> Self {
        // SAFETY: as for `hmax`.
        unsafe { Picks { even: _mm512_set1_epi16(CHOSEN), odd: _mm512_set1_epi16(CHOSEN) } }
    }
}

impl super::picks::Picks for Picks {
    #[inline(always)]
    fn reset(&mut self, counts: &Counts) {
        let mut lanes = [CHOSEN; BLOCKS];
        for (l, &b) in lanes.iter_mut().zip(&counts.block_max) {
            *l = b;
        }
        // SAFETY: as for `hmax`; the load reads exactly the 64 bytes of `lanes`.
        self.even = unsafe { _mm512_loadu_epi16(lanes.as_ptr()) };
        self.odd = self.even;
    }

    /// [`Counts::bump_column`] with the block maxima in the two registers.
    #[inline(always)]
    fn bump_column<T: UnitId>(
        &mut self,
        counts: &mut Counts,
        rows: &[T],
        col: usize,
        stride: usize,
        m: usize,
    ) {
        assert!(col < stride && (m == 0 || (m - 1) * stride + col < rows.len()));
        assert!(counts.count.len() <= BLOCKS * BLOCK);
        let units = counts.count.len();
        let count = counts.count.as_mut_ptr();
        // SAFETY: as in `Counts::bump_column`, and a unit below `BLOCKS · BLOCK` (the second
        // assert) has a block below 32: the shift is in range. Intrinsics as for `hmax`.
        let bump = |p: usize, acc: &mut __m512i| unsafe {
            let x = rows.get_unchecked(p).index();
            debug_assert!(x < units);
            let c = (*count.add(x)).wrapping_add(1);
            *count.add(x) = c;
            *acc = _mm512_mask_max_epi16(*acc, 1u32 << (x / BLOCK), *acc, _mm512_set1_epi16(c));
        };
        let mut p = col;
        for _ in 0..m / 2 {
            bump(p, &mut self.even);
            bump(p + stride, &mut self.odd);
            p += 2 * stride;
        }
        if m % 2 == 1 {
            bump(p, &mut self.even);
        }
    }

    /// [`Counts::pop_best`] on the registers: the best block is the first lane equal to the
    /// maximum, and the best unit the first of the block's 64 counts (two registers) equal to it.
    #[inline(always)]
    fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize {
        // SAFETY: as for `hmax`. Every block's maximum is in its lane, so `best` (the largest
        // unchosen count, at least zero) is in the block and the block is one of `count`'s:
        // the loads read its 128 bytes. A tie's candidate block is a lane below 32 too.
        unsafe {
            let maxima = _mm512_max_epi16(self.even, self.odd);
            let best = hmax(maxima);
            let v = _mm512_set1_epi16(best);
            let at_best = _mm512_cmpeq_epi16_mask(maxima, v);
            let mut block = at_best.trailing_zeros() as usize;
            let mut found = block_mask(counts, block, v);
            let later = if block < tie.first_block { at_best >> tie.first_block } else { 0 };
            if later != 0 {
                let cblock = tie.first_block + later.trailing_zeros() as usize;
                let candidate = block_mask(counts, cblock, v);
                let x = cblock * BLOCK + candidate.0.trailing_zeros() as usize;
                if tie.candidate_first(x, block * BLOCK + found.0.trailing_zeros() as usize) {
                    (block, found) = (cblock, candidate);
                }
            }
            let start = block * BLOCK;
            let (mask, m_lo, m_hi, lo, hi) = found;
            // Another count equal to `best` keeps it the block's maximum; otherwise the
            // largest of the rest (negative if all the rest are chosen).
            let rest = if mask & mask.wrapping_sub(1) != 0 {
                best
            } else {
                let chosen = _mm512_set1_epi16(CHOSEN);
                hmax(_mm512_max_epi16(
                    _mm512_mask_blend_epi16(m_lo, lo, chosen),
                    _mm512_mask_blend_epi16(m_hi, hi, chosen),
                ))
            };
            let x = mask.trailing_zeros() as usize;
            debug_assert!(x < BLOCK);
            counts.count[start + x] = CHOSEN;
            self.even = _mm512_mask_mov_epi16(maxima, 1u32 << block, _mm512_set1_epi16(rest));
            self.odd = self.even;
            start + x
        }
    }
}

/// Which of block `block`'s 64 counts equal `v` (bit per unit, then per half), and its
/// two halves.
#[inline(always)]
fn block_mask(counts: &Counts, block: usize, v: __m512i) -> (u64, u32, u32, __m512i, __m512i) {
    let start = block * BLOCK;
    assert!(start + BLOCK <= counts.count.len());
    // SAFETY: as for `hmax`; the assert keeps the two loads inside `count`.
    unsafe {
        let p = counts.count.as_ptr().add(start);
        let (lo, hi) = (_mm512_loadu_epi16(p), _mm512_loadu_epi16(p.add(BLOCK / 2)));
        let (m_lo, m_hi) = (_mm512_cmpeq_epi16_mask(lo, v), _mm512_cmpeq_epi16_mask(hi, v));
        (u64::from(m_lo) | u64::from(m_hi) << 32, m_lo, m_hi, lo, hi)
    }
}
