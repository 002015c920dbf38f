//! The CPU twin's two steps over many words at once: Philox blocks in vector lanes, then the
//! integer inverse CDF per word. AVX2 on x86_64 (detected at run time), simd128 on wasm32 when
//! the build enables it, the scalar functions of [`super`] otherwise.
//!
//! Philox and the table interpolation are integer arithmetic lane by lane, so every lane computes
//! the scalar function's bits. The one floating-point step, fixed point to f32, is exact: the
//! fixed-point value is below 2²⁴ (an f32 holds it exactly) and its scale 2⁻²¹ is a power of two
//! whose products stay normal, so the rounding mode cannot matter. The tests compare each path
//! with the scalar functions ([`philox4x32_10`], [`normal_from_bits`]), which stay the oracle and
//! the fallback.

use super::{normal_from_bits, TABLE_LEN};
use crate::rng::philox4x32_10;

/// Blocks per step of a vector path: the slices a [`Kernel`] takes are whole multiples of it.
pub const LANES: usize = 8;

/// The path that computes a batch, chosen once per call of `for_each_row`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel(Path);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Scalar,
    /// Only made by [`Kernel::detect`] and [`Kernel::available`], after the CPU said it has AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
}

impl Kernel {
    /// The fastest path this machine runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernel(Path::Avx2);
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return Kernel(Path::Simd128);
        #[allow(unreachable_code)]
        Kernel(Path::Scalar)
    }

    /// Every path this machine runs, the scalar one first (for the tests).
    #[cfg(test)]
    pub fn available() -> Vec<Kernel> {
        let mut all = vec![Kernel(Path::Scalar)];
        if Kernel::detect() != Kernel(Path::Scalar) {
            all.push(Kernel::detect());
        }
        all
    }

    /// Block `j` of `layout`, Philox4x32-10 of the counter `[item, d0 + rows_of[j], block_of[j], 1]`
    /// under `key`, into `out[at[j]..at[j] + 4]`, in the order of `j` (so that a later block
    /// overwrites an earlier one's overhang). Panics if `out` is shorter than the layout's
    /// [`Layout::words`].
    pub fn blocks(self, key: [u32; 2], item: u32, d0: u32, layout: &Layout, out: &mut [u32]) {
        let out = &mut out[..layout.words];
        match self.0 {
            Path::Scalar => blocks_scalar(key, item, d0, layout, out),
            // SAFETY: `Path::Avx2` exists only where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => unsafe { avx2::blocks(key, item, d0, layout, out) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Path::Simd128 => simd128::blocks(key, item, d0, layout, out),
        }
    }

    /// `out[j]` = [`normal_from_bits`]`(words[j])`. Both have the same length, a multiple of
    /// [`LANES`].
    pub fn normals(self, words: &[u32], table: &[u32; TABLE_LEN], out: &mut [f32]) {
        debug_assert!(words.len() == out.len() && words.len().is_multiple_of(LANES));
        match self.0 {
            Path::Scalar => normals_scalar(words, table, out),
            // SAFETY: `Path::Avx2` exists only where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => unsafe { avx2::normals(words, table, out) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Path::Simd128 => simd128::normals(words, table, out),
        }
    }
}

fn blocks_scalar(key: [u32; 2], item: u32, d0: u32, layout: &Layout, out: &mut [u32]) {
    for ((&r, &b), &at) in layout.rows_of.iter().zip(&layout.block_of).zip(&layout.at) {
        out[at..at + 4].copy_from_slice(&philox4x32_10([item, d0.wrapping_add(r), b, 1], key));
    }
}

fn normals_scalar(words: &[u32], table: &[u32; TABLE_LEN], out: &mut [f32]) {
    for (o, &x) in out.iter_mut().zip(words) {
        *o = normal_from_bits(x, table);
    }
}

/// Where the blocks of a batch of an item's consecutive draws go: block `j` is block
/// `block_of[j]` of draw `d0 + rows_of[j]`, and its four words are stored at `at[j]`, the
/// place of its first candidate in the batch's draws laid end to end (K normals each, no gaps).
/// A draw's partial last block overhangs into the next draw's start, which that draw's first
/// block then overwrites. The padding blocks that round the count up to [`LANES`] are stored
/// past the normals.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Draws per batch.
    pub rows: usize,
    rows_of: Vec<u32>,
    block_of: Vec<u32>,
    at: Vec<usize>,
    /// Words converted to normals: `rows · K` rounded up to [`LANES`].
    pub normals: usize,
    /// Words written: the normals and room for an overhang or a padding block.
    pub words: usize,
}

impl Layout {
    /// `rows ≥ 1` draws of `k ≥ 1` candidates.
    pub fn new(rows: usize, k: usize) -> Layout {
        let per_row = k.div_ceil(4);
        let real = rows * per_row;
        let normals = (rows * k).next_multiple_of(LANES);
        let len = real.next_multiple_of(LANES);
        let at = (0..len)
            .map(|j| if j < real { (j / per_row) * k + 4 * (j % per_row) } else { normals })
            .collect();
        // Block numbers stay below K/4 + 1 ≤ 2^30 and draw numbers below M: validated sizes keep
        // both in a u32.
        let (rows_of, block_of) = (0..len).map(|j| ((j / per_row) as u32, (j % per_row) as u32)).unzip();
        Layout { rows, rows_of, block_of, at, normals, words: normals + 4 }
    }
}

/// The ten rounds' keys: the key, then the Weyl sequence's bumps.
#[cfg_attr(
    not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))),
    allow(dead_code)
)]
fn round_keys(key: [u32; 2]) -> [[u32; 2]; 10] {
    use crate::rng::{W0, W1};
    std::array::from_fn(|r| {
        [key[0].wrapping_add(W0.wrapping_mul(r as u32)), key[1].wrapping_add(W1.wrapping_mul(r as u32))]
    })
}

/// `2^−FRAC_BITS`: the fixed point's unit.
#[cfg_attr(
    not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))),
    allow(dead_code)
)]
const FIXED_SCALE: f32 = 1.0 / (1u32 << super::FRAC_BITS) as f32;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{round_keys, Layout, FIXED_SCALE, LANES, TABLE_LEN};
    use crate::rng::{M0, M1};
    use std::arch::x86_64::*;

    /// Eight Philox blocks, four per 64-bit-lane set, each counter word in the low half of its
    /// lane. The high halves collect garbage that no low half ever reads: `_mm256_mul_epu32`
    /// takes the low 32 bits of each lane, and the one shift right by 32 moves a product's
    /// (exact) upper word down. The two sets share each round, so that one's multiplies overlap
    /// the other's.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn philox(c: [[__m256i; 4]; 2], keys: &[[__m256i; 2]; 10]) -> [[__m256i; 4]; 2] {
        // Unrolled by hand: as a loop, each round renames the four words through register
        // copies.
        let c = round(round(round(round(round(c, &keys[0]), &keys[1]), &keys[2]), &keys[3]), &keys[4]);
        round(round(round(round(round(c, &keys[5]), &keys[6]), &keys[7]), &keys[8]), &keys[9])
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn round(c: [[__m256i; 4]; 2], k: &[__m256i; 2]) -> [[__m256i; 4]; 2] {
        let (m0, m1) = (_mm256_set1_epi64x(M0 as i64), _mm256_set1_epi64x(M1 as i64));
        c.map(|c| {
            let p0 = _mm256_mul_epu32(c[0], m0);
            let p1 = _mm256_mul_epu32(c[2], m1);
            [
                _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64::<32>(p1), c[1]), k[0]),
                p1,
                _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64::<32>(p0), c[3]), k[1]),
                p0,
            ]
        })
    }

    /// The four blocks' words in block order: 16 u32, block 0's four words first.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn interleave(c: [__m256i; 4]) -> [__m256i; 2] {
        // Words 0 and 1 of each block side by side in its 64-bit lane, then 2 and 3.
        let w01 = _mm256_blend_epi32::<0b1010_1010>(c[0], _mm256_slli_epi64::<32>(c[1]));
        let w23 = _mm256_blend_epi32::<0b1010_1010>(c[2], _mm256_slli_epi64::<32>(c[3]));
        // Blocks 0 and 2, then 1 and 3 (one per 128-bit half).
        let even = _mm256_unpacklo_epi64(w01, w23);
        let odd = _mm256_unpackhi_epi64(w01, w23);
        [_mm256_permute2x128_si256::<0x20>(even, odd), _mm256_permute2x128_si256::<0x31>(even, odd)]
    }

    /// Four counters' words `[item, d0 + rows[j], blocks[j], 1]` in 64-bit lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn counters(item: u32, d0: u32, rows: &[u32], blocks: &[u32]) -> [__m256i; 4] {
        debug_assert!(rows.len() >= 4 && blocks.len() >= 4);
        // SAFETY: each load reads the first 16 bytes of a slice at least that long.
        let (r, b) =
            unsafe { (_mm_loadu_si128(rows.as_ptr().cast()), _mm_loadu_si128(blocks.as_ptr().cast())) };
        [
            _mm256_set1_epi64x(item as i64),
            _mm256_cvtepu32_epi64(_mm_add_epi32(_mm_set1_epi32(d0 as i32), r)),
            _mm256_cvtepu32_epi64(b),
            _mm256_set1_epi64x(1),
        ]
    }

    #[target_feature(enable = "avx2")]
    pub fn blocks(key: [u32; 2], item: u32, d0: u32, layout: &Layout, out: &mut [u32]) {
        let keys = round_keys(key).map(|k| k.map(|w| _mm256_set1_epi64x(w as i64)));
        let chunks = layout.rows_of.chunks_exact(LANES).zip(layout.block_of.chunks_exact(LANES));
        for ((r, b), at) in chunks.zip(layout.at.chunks_exact(LANES)) {
            let c = [counters(item, d0, &r[..4], &b[..4]), counters(item, d0, &r[4..], &b[4..])];
            let [lo, hi] = philox(c, &keys);
            for (pair, at) in [interleave(lo), interleave(hi)].iter().flatten().zip(at.chunks_exact(2)) {
                let halves = [_mm256_castsi256_si128(*pair), _mm256_extracti128_si256::<1>(*pair)];
                for (half, &at) in halves.iter().zip(at) {
                    debug_assert!(at + 4 <= out.len());
                    // SAFETY: the layout places every block inside its `words`, which `out` has
                    // (`Kernel::blocks` cut it to that length, or panicked).
                    unsafe { _mm_storeu_si128(out.as_mut_ptr().add(at).cast(), *half) };
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub fn normals(words: &[u32], table: &[u32; TABLE_LEN], out: &mut [f32]) {
        for (w, o) in words.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
            // SAFETY: the load reads and the store writes exactly one 8-word chunk.
            unsafe {
                let z = normal8(_mm256_loadu_si256(w.as_ptr().cast()), table);
                _mm256_storeu_ps(o.as_mut_ptr(), z);
            }
        }
    }

    /// [`super::normal_from_bits`] of eight words.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn normal8(x: __m256i, table: &[u32; TABLE_LEN]) -> __m256 {
        let sign = _mm256_and_si256(x, _mm256_set1_epi32(i32::MIN));
        let t = _mm256_or_si256(_mm256_slli_epi32::<1>(x), _mm256_set1_epi32(1));
        // ⌊log₂ t⌋ from an exact f32's exponent: t ≥ 2⁸ through t >> 8 (below 2²⁴), the
        // smaller t itself. AVX2 has no lane-wise leading-zero count.
        let high = _mm256_srli_epi32::<8>(t);
        let small = _mm256_cmpeq_epi32(high, _mm256_setzero_si256());
        let exact = _mm256_blendv_epi8(high, t, small);
        let biased = _mm256_srli_epi32::<23>(_mm256_castps_si256(_mm256_cvtepi32_ps(exact)));
        let log2 = _mm256_add_epi32(
            _mm256_sub_epi32(biased, _mm256_set1_epi32(127)),
            _mm256_andnot_si256(small, _mm256_set1_epi32(8)),
        );
        let e = _mm256_sub_epi32(_mm256_set1_epi32(31), log2);
        let mant = _mm256_sllv_epi32(t, e);
        let seg = _mm256_and_si256(_mm256_srli_epi32::<25>(mant), _mm256_set1_epi32(63));
        let frac = _mm256_and_si256(_mm256_srli_epi32::<9>(mant), _mm256_set1_epi32(0xffff));
        // e · 65 + seg ≤ 31 · 65 + 63, so the row and the one after it lie inside the table.
        let row = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32::<6>(e), e), seg);
        let base: *const i32 = table.as_ptr().cast();
        // SAFETY: every gathered index is a row below TABLE_LEN − 1 (above), plus 0 or 1.
        let (z0, z1) = unsafe {
            (_mm256_i32gather_epi32::<4>(base, row), _mm256_i32gather_epi32::<4>(base.add(1), row))
        };
        // Below 2³²: the table test bounds (z0 − z1) · frac (see the scalar function).
        let drop = _mm256_srli_epi32::<16>(_mm256_mullo_epi32(_mm256_sub_epi32(z0, z1), frac));
        let z = _mm256_sub_epi32(z0, drop);
        let magnitude = _mm256_mul_ps(_mm256_cvtepi32_ps(z), _mm256_set1_ps(FIXED_SCALE));
        _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(magnitude), sign))
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::{round_keys, Layout, FIXED_SCALE, LANES, TABLE_LEN};
    use crate::rng::{M0, M1};
    use std::arch::wasm32::*;

    /// High and low words of the lane-wise products `a · m` (u32 × u32 → u64).
    #[inline(always)]
    fn mulhilo(a: v128, m: v128) -> (v128, v128) {
        let (p01, p23) = (u64x2_extmul_low_u32x4(a, m), u64x2_extmul_high_u32x4(a, m));
        (i32x4_shuffle::<1, 3, 5, 7>(p01, p23), i32x4_shuffle::<0, 2, 4, 6>(p01, p23))
    }

    /// Eight Philox blocks, one per 32-bit lane of each counter word's vector in two sets of
    /// four, which share each round so that one's multiplies overlap the other's. Unrolled by
    /// hand, as on x86_64.
    #[inline(always)]
    fn philox(c: [[v128; 4]; 2], keys: &[[v128; 2]; 10], m: &[v128; 2]) -> [[v128; 4]; 2] {
        let c = round(
            round(round(round(round(c, &keys[0], m), &keys[1], m), &keys[2], m), &keys[3], m),
            &keys[4],
            m,
        );
        round(round(round(round(round(c, &keys[5], m), &keys[6], m), &keys[7], m), &keys[8], m), &keys[9], m)
    }

    #[inline(always)]
    fn round(c: [[v128; 4]; 2], k: &[v128; 2], m: &[v128; 2]) -> [[v128; 4]; 2] {
        // Written out rather than `c.map(..)`: the page's size-optimised build keeps such a map
        // as a loop, out of which LLVM hoists the widened multipliers (see `blocks`).
        [round4(c[0], k, m), round4(c[1], k, m)]
    }

    #[inline(always)]
    fn round4(c: [v128; 4], k: &[v128; 2], m: &[v128; 2]) -> [v128; 4] {
        let (hi0, lo0) = mulhilo(c[0], m[0]);
        let (hi1, lo1) = mulhilo(c[2], m[1]);
        [v128_xor(v128_xor(hi1, c[1]), k[0]), lo1, v128_xor(v128_xor(hi0, c[3]), k[1]), lo0]
    }

    /// The transpose of four blocks' words: block 0's four words first.
    #[inline(always)]
    fn interleave(c: [v128; 4]) -> [v128; 4] {
        let a = i32x4_shuffle::<0, 4, 1, 5>(c[0], c[1]);
        let b = i32x4_shuffle::<2, 6, 3, 7>(c[0], c[1]);
        let d = i32x4_shuffle::<0, 4, 1, 5>(c[2], c[3]);
        let e = i32x4_shuffle::<2, 6, 3, 7>(c[2], c[3]);
        [
            i64x2_shuffle::<0, 2>(a, d),
            i64x2_shuffle::<1, 3>(a, d),
            i64x2_shuffle::<0, 2>(b, e),
            i64x2_shuffle::<1, 3>(b, e),
        ]
    }

    pub fn blocks(key: [u32; 2], item: u32, d0: u32, layout: &Layout, out: &mut [u32]) {
        let keys = round_keys(key).map(|k| k.map(|w| u32x4_splat(w)));
        let m = [u32x4_splat(M0), u32x4_splat(M1)];
        let chunks = layout.rows_of.chunks_exact(LANES).zip(layout.block_of.chunks_exact(LANES));
        for ((r, b), at) in chunks.zip(layout.at.chunks_exact(LANES)) {
            let c = [counters(item, d0, &r[..4], &b[..4]), counters(item, d0, &r[4..], &b[4..])];
            // The multipliers hidden from the optimiser in each step: known, or widened outside
            // the step, they make the products `i64x2.mul` of widened words (a dozen instructions
            // each in V8 on x86_64) instead of `i64x2.extmul_*_i32x4_u` (about three).
            let m = std::hint::black_box(m);
            for (v, &at) in philox(c, &keys, &m).map(interleave).iter().flatten().zip(at) {
                debug_assert!(at + 4 <= out.len());
                // SAFETY: the layout places every block inside its `words`, which `out` has
                // (`Kernel::blocks` cut it to that length, or panicked).
                unsafe { v128_store(out.as_mut_ptr().add(at).cast(), *v) };
            }
        }
    }

    /// Four counters `[item, d0 + rows[j], blocks[j], 1]`, one vector per word.
    #[inline(always)]
    fn counters(item: u32, d0: u32, rows: &[u32], blocks: &[u32]) -> [v128; 4] {
        let (r, b) = (&rows[..4], &blocks[..4]);
        let (r, b) = (u32x4(r[0], r[1], r[2], r[3]), u32x4(b[0], b[1], b[2], b[3]));
        [u32x4_splat(item), u32x4_add(u32x4_splat(d0), r), b, u32x4_splat(1)]
    }

    /// [`super::normal_from_bits`] per word, with the fixed point turned into an f32 by an exact
    /// conversion and scaling (fewer operations than assembling the bits). simd128 has neither
    /// gathers nor lane-wise shifts or leading-zero counts, so this part stays scalar: four lanes
    /// with `t << e` as `t · 2^e` and the table read a lane at a time cost more than they save.
    pub fn normals(words: &[u32], table: &[u32; TABLE_LEN], out: &mut [f32]) {
        for (o, &x) in out.iter_mut().zip(words) {
            let t = (x << 1) | 1;
            let e = t.leading_zeros() & 31;
            let mant = t << e;
            let row = e as usize * (super::super::SEGMENTS + 1) + ((mant >> 25) & 63) as usize;
            let frac = (mant >> 9) & 0xffff;
            let z0 = table[row];
            let z = z0 - (((z0 - table[row + 1]) * frac) >> 16);
            *o = f32::from_bits((z as f32 * FIXED_SCALE).to_bits() | (x & 1 << 31));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{key_of, Stream};
    use crate::toy::draws::{normal, normals, table};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Each kernel's batch against the definition: candidate `c` of draw `d0 + r` is word `c mod 4`
    /// of the block `[item, d0 + r, c / 4, 1]`.
    fn check_blocks(seed: u64, item: u32, d0: u32, rows: usize, k: usize) {
        let layout = Layout::new(rows, k);
        for kernel in Kernel::available() {
            let mut out = vec![0; layout.words];
            kernel.blocks(key_of(seed), item, d0, &layout, &mut out);
            for (j, &w) in out[..rows * k].iter().enumerate() {
                let (r, c) = ((j / k) as u32, (j % k) as u32);
                let want =
                    philox4x32_10([item, d0.wrapping_add(r), c / 4, 1], key_of(seed))[(c % 4) as usize];
                assert_eq!(w, want, "{kernel:?} seed {seed} item {item} d0 {d0} rows {rows} k {k}: word {j}");
            }
        }
    }

    /// Each kernel's normals against the scalar function, bit for bit.
    fn check_normals(words: &[u32]) {
        let mut words = words.to_vec();
        words.resize(words.len().next_multiple_of(LANES), 0);
        let want: Vec<u32> = words.iter().map(|&x| normal_from_bits(x, table()).to_bits()).collect();
        for kernel in Kernel::available() {
            let mut z = vec![0.0; words.len()];
            kernel.normals(&words, table(), &mut z);
            for ((&x, &got), &want) in words.iter().zip(&z).zip(&want) {
                assert_eq!(got.to_bits(), want, "{kernel:?}: word {x:#010x}");
            }
        }
    }

    #[test]
    fn blocks_equal_scalar_philox() {
        let mut s = Stream::new(11, 0);
        // K below, at and above a block, partial last blocks, one draw and many, a draw counter
        // that wraps.
        for (rows, k) in [(15, 10), (1, 1), (3, 4), (7, 5), (2, 6), (64, 1), (1, 1000), (5, 9)] {
            for _ in 0..4 {
                check_blocks(s.next_u64(), s.next_u32(), s.next_u32(), rows, k);
            }
        }
        check_blocks(0, u32::MAX, u32::MAX - 3, 9, 7);
    }

    #[test]
    fn normals_equal_the_scalar_inverse_cdf() {
        // Every octave's edges and the sign bit, then a sweep over all 2³² words in steps of an
        // odd stride (so every residue class of the low bits turns up), then random words.
        let mut words: Vec<u32> =
            (0..32).flat_map(|e| [1u32 << e, (1u32 << e) - 1, (1u32 << e) + 1]).collect();
        words.extend(words.clone().iter().map(|w| w | 1 << 31));
        words.extend([0, u32::MAX, u32::MAX >> 1, 1 << 31]);
        words.extend((0..1u64 << 32).step_by(40_009).map(|w| w as u32));
        let mut s = Stream::new(12, 0);
        words.extend((0..100_000).map(|_| s.next_u32()));
        check_normals(&words);
    }

    #[test]
    fn batches_are_the_addressed_normals() {
        // Shapes whose draws do and do not fill whole batches and blocks.
        for (items, m, k) in [(3, 30, 10), (2, 7, 5), (2, 100, 1), (1, 3, 1000), (4, 1, 4)] {
            let z = normals(9, 40, items, m, k);
            let mut j = 0;
            for i in 40..40 + items {
                for d in 0..m {
                    for c in 0..k {
                        assert_eq!(
                            z[j].to_bits(),
                            normal(9, i, d, c).to_bits(),
                            "shape {items}×{m}×{k}: [{i}][{d}][{c}]"
                        );
                        j += 1;
                    }
                }
            }
            assert_eq!(j, z.len());
        }
    }

    /// Random keys, counters and shapes (natively; proptest does not build for wasm).
    #[cfg(not(target_arch = "wasm32"))]
    mod random {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
            #[test]
            fn blocks(seed: u64, item: u32, d0: u32, rows in 1usize..40, k in 1usize..40) {
                check_blocks(seed, item, d0, rows, k);
            }

            #[test]
            fn normals(words in proptest::collection::vec(any::<u32>(), 1..200)) {
                check_normals(&words);
            }
        }
    }
}
