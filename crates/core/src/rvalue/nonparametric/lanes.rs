//! The nested greedy on `i16` counts picked by vector maxima, for the usual sizes (fewer than
//! `i16::MAX` draws, a few thousand candidates).
//!
//! A step raises the counts of the `M` candidates its draws rank at `j` (a load, an add and a
//! store each, in a `2K`-byte array that stays in L1) and then takes the open candidate with the
//! largest count, the lowest index among ties: the maximum of all counts, then the first count
//! equal to it, `K/32` vector operations each with AVX-512 (detected at run time). A chosen
//! candidate's count drops so far below zero that later increments keep it negative, so neither
//! the increments nor the pick test whether a candidate is open. The bucketed greedy
//! (`buckets`) moved each candidate between bitsets at every increment instead, and read twice
//! the memory per update.

use super::DrawOrder;

/// A chosen candidate's count: fewer than `i16::MAX` increments keep it negative.
const CHOSEN: i16 = i16::MIN;

/// Counts per vector of the pick (512 bits of `i16`); the counts are padded to whole vectors
/// with `CHOSEN`.
const LANES: usize = 32;

/// Candidates up to which a step's pick scans every count: beyond, the `K/32` vectors a step
/// would outweigh the `M` increments, and the buckets' pick is cheaper.
const MAX_CANDIDATES: usize = 4096;

/// Whether an item of `m` draws of `k` candidates takes this greedy.
pub(super) fn usable(m: usize, k: usize) -> bool {
    m < i16::MAX as usize && k <= MAX_CANDIDATES
}

/// Each candidate's 1-based greedy step for `item` of `order` ([`usable`] sizes): what the
/// count-table greedy gives, step for step. `counts` is a reusable buffer.
pub(super) fn steps(order: &DrawOrder, item: usize, counts: &mut Vec<i16>) -> Vec<u32> {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has the features `steps_avx512` enables.
        return unsafe { steps_avx512(order, item, counts) };
    }
    steps_with(order, item, counts, pick)
}

/// [`steps_with`] compiled for AVX-512, with its pick.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn steps_avx512(order: &DrawOrder, item: usize, counts: &mut Vec<i16>) -> Vec<u32> {
    // SAFETY: this function only runs where the features it enables are present.
    steps_with(order, item, counts, |c| unsafe { pick_avx512(c) })
}

/// [`steps`] with the portable pick, for tests to compare with the vector one.
#[cfg(test)]
pub(super) fn steps_portable(order: &DrawOrder, item: usize) -> Vec<u32> {
    steps_with(order, item, &mut Vec::new(), pick)
}

/// The greedy's steps with `pick` choosing among the padded counts.
#[inline(always)]
fn steps_with(
    order: &DrawOrder,
    item: usize,
    counts: &mut Vec<i16>,
    pick: impl Fn(&[i16]) -> usize,
) -> Vec<u32> {
    let (m, k) = (order.m(), order.k());
    let rows = order.item(item);
    counts.clear();
    counts.resize(k.next_multiple_of(LANES), CHOSEN);
    counts[..k].fill(0);
    let mut step = vec![0u32; k];
    for j in 0..k {
        bump(counts, rows, j, k, m);
        // Some candidate is open while j < K, so the pick is one of `0..k`.
        let c = pick(counts);
        counts[c] = CHOSEN;
        step[c] = j as u32 + 1;
    }
    step
}

/// Adds one to the count of each draw's candidate at rank `j`: `rows[d·k + j]`, `d < m`.
#[inline(always)]
fn bump(counts: &mut [i16], rows: &[u16], j: usize, k: usize, m: usize) {
    assert!(j < k && m * k <= rows.len());
    let count = counts.as_mut_ptr();
    // SAFETY: the assert keeps every `d·k + j` inside `rows`; a draw order holds candidate
    // indices below `k` (the sorts write a permutation of `0..k`), and `counts` has at least
    // `k` entries.
    let add = |p: usize| unsafe {
        let c = usize::from(*rows.get_unchecked(p));
        debug_assert!(c < k);
        *count.add(c) = (*count.add(c)).wrapping_add(1);
    };
    crate::rvalue::strided::each_draw(j, k, m, add);
}

/// The first of the largest counts (`counts` in whole vectors of [`LANES`]), portably.
fn pick(counts: &[i16]) -> usize {
    let mut acc = [CHOSEN; LANES];
    for chunk in counts.chunks_exact(LANES) {
        for (a, &c) in acc.iter_mut().zip(chunk) {
            *a = (*a).max(c);
        }
    }
    let best = acc.iter().copied().max().unwrap_or(CHOSEN);
    counts.iter().position(|&c| c == best).unwrap_or(0)
}

/// [`pick`] with AVX-512: 32 counts a vector.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn pick_avx512(counts: &[i16]) -> usize {
    use std::arch::x86_64::*;
    assert!(counts.len().is_multiple_of(LANES));
    let p = counts.as_ptr();
    let vectors = counts.len() / LANES;
    // SAFETY: every load reads one whole vector of `counts` (the assert).
    unsafe {
        let mut acc = _mm512_set1_epi16(CHOSEN);
        for v in 0..vectors {
            acc = _mm512_max_epi16(acc, _mm512_loadu_epi16(p.add(v * LANES)));
        }
        let best = _mm512_set1_epi16(hmax(acc));
        for v in 0..vectors {
            let mask = _mm512_cmpeq_epi16_mask(_mm512_loadu_epi16(p.add(v * LANES)), best);
            if mask != 0 {
                return v * LANES + mask.trailing_zeros() as usize;
            }
        }
    }
    0
}

/// The largest of a vector's 32 lanes. Flipping all but the sign bit turns signed order into
/// reversed unsigned order, whose minimum one instruction finds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn hmax(v: std::arch::x86_64::__m512i) -> i16 {
    use std::arch::x86_64::*;
    let m = _mm256_max_epi16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    let m = _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
    let flip = _mm_set1_epi16(i16::MAX);
    (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, flip))) as i16) ^ i16::MAX
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn both_picks_take_the_first_largest_count() {
        let mut counts = vec![CHOSEN; 4 * LANES];
        for (i, c) in counts.iter_mut().enumerate().take(100) {
            *c = (i * 37 % 11) as i16;
        }
        counts[3] = CHOSEN + 5;
        let want = counts.iter().position(|&c| c == 10).unwrap();
        assert_eq!(pick(&counts), want);
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            // SAFETY: the features were just detected.
            assert_eq!(unsafe { pick_avx512(&counts) }, want);
        }
    }
}
