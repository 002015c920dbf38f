//! The GPU's normal generator and its CPU twin, bit for bit equal (docs/method.md §7).
//!
//! The toy simulator (`crate::toy`) draws its normals here. Box–Muller in f64 (`ln`, `cos`,
//! `sqrt`) cannot be reproduced in WGSL: it has no f64 and its transcendental functions are not
//! correctly rounded. This generator uses integer operations only, so the shader and this file
//! compute the same bits on any device:
//!
//! 1. Philox4x32-10 keyed by the seed, counter `[item, draw, candidate / 4, 1]`: candidate `c`
//!    takes word `c mod 4` of its block, so one block serves four neighbouring candidates (the
//!    CPU computes it once; a GPU invocation recomputes it, which costs nothing there). Word 3 of
//!    the counter is 1, which keeps these numbers apart from the samples' Box–Muller stream
//!    (word 3 = 0). In WGSL the 32×32→64 multiply is done on 16-bit halves (`draws.wgsl`,
//!    `mulhilo`).
//! 2. An integer inverse CDF of that word `x`: bit 31 is the sign; the other 31 bits give
//!    the odd integer `t = 2·(x mod 2³¹) + 1` and the upper-tail probability `q = t / 2³³` in
//!    (0, ½). `q` falls in octave `e` (`2^(−2−e) ≤ q < 2^(−1−e)`, `e` = the leading zeros of `t`,
//!    0..31); the octave is cut into 64 equal segments, and the table ([`table`]) holds
//!    `Φ⁻¹(1 − q)` in fixed point (units of 2⁻²¹) at the 65 segment ends of each octave. `z` is
//!    interpolated linearly with a 16-bit fraction in u32 arithmetic (the products stay below
//!    2³²: a segment spans at most 25,700 units).
//! 3. The fixed-point `z < 2²⁴` becomes an f32 by assembling its bits (no float operation, so
//!    no rounding mode or flush-to-zero can differ): `|z| = z_fixed · 2⁻²¹` exactly.
//!
//! The table is computed once from `crate::normal::upper_quantile` (libm, the same bits natively
//! and in wasm) and uploaded to the GPU as a buffer, so both sides interpolate the same integers.
//! The result is a normal with |z| ≤ 6.23 (q ≥ 2⁻³³), resolution 2⁻²¹, and an interpolation
//! error far below what a Kolmogorov–Smirnov test of 10⁶ draws can see (tested).

use crate::rng::{key_of, philox4x32_10};
use std::sync::OnceLock;

mod lanes;

/// Segments per octave of the upper-tail probability.
pub const SEGMENTS: usize = 64;
/// Octaves of `q = t / 2³³`, `t` odd in `1..2³²`.
pub const OCTAVES: usize = 32;
/// Fixed-point scale of the table: `z = z_fixed · 2^−FRAC_BITS`.
pub const FRAC_BITS: u32 = 21;

/// Entries of [`table`].
pub const TABLE_LEN: usize = OCTAVES * (SEGMENTS + 1);

/// `Φ⁻¹(1 − q)` in units of 2⁻²¹ at `q = 2^(−2−e)·(1 + i/64)`, `i = 0..=64`, for octave `e`:
/// `OCTAVES × (SEGMENTS + 1)` entries, octave-major. A fixed-size array, so that indexing it
/// with an octave below 32 and a segment below 64 needs no bounds check.
pub fn table() -> &'static [u32; TABLE_LEN] {
    static TABLE: OnceLock<[u32; TABLE_LEN]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0; TABLE_LEN];
        for e in 0..OCTAVES {
            for i in 0..=SEGMENTS {
                let q = libm::ldexp(1.0 + i as f64 / SEGMENTS as f64, -2 - e as i32);
                let z = crate::normal::upper_quantile(q);
                t[e * (SEGMENTS + 1) + i] = libm::round(libm::ldexp(z, FRAC_BITS as i32)) as u32;
            }
        }
        t
    })
}

/// The f32 `sign · z_fixed · 2⁻²¹`, assembled from bits (`z_fixed < 2²⁴`).
#[inline]
pub fn fixed_to_f32(z_fixed: u32, sign: u32) -> f32 {
    let bits = if z_fixed == 0 {
        0
    } else {
        let lead = 31 - z_fixed.leading_zeros();
        let mantissa = (z_fixed << (23 - lead)) & 0x7f_ffff;
        let exponent = lead + 127 - FRAC_BITS;
        exponent << 23 | mantissa
    };
    f32::from_bits(sign << 31 | bits)
}

/// A standard normal from 32 random bits by the integer inverse CDF (step 2–3 above).
#[inline]
pub fn normal_from_bits(x: u32, table: &[u32; TABLE_LEN]) -> f32 {
    let sign = x >> 31;
    let t = (x << 1) | 1;
    // t is odd, so e ≤ 31; the mask says so to the compiler (and drops the bounds checks).
    let e = t.leading_zeros() & 31;
    let mant = t << e;
    let seg = ((mant >> 25) & 63) as usize;
    let frac = (mant >> 9) & 0xffff;
    let row = e as usize * (SEGMENTS + 1) + seg;
    let (z0, z1) = (table[row], table[row + 1]);
    // q grows along the segment, so z falls from z0 to z1.
    let z = z0 - (((z0 - z1) * frac) >> 16);
    fixed_to_f32(z, sign)
}

/// The normal at (seed, item, draw, candidate).
#[inline]
pub fn normal(seed: u64, item: u32, draw: u32, cand: u32) -> f32 {
    let w = philox4x32_10([item, draw, cand >> 2, 1], key_of(seed));
    normal_from_bits(w[(cand & 3) as usize], table())
}

/// Normals `[B][M][K]` for items `first..first + B` (the CPU twin of `Gpu::normals`).
pub fn normals(seed: u64, first: u32, items: u32, m: u32, k: u32) -> Vec<f32> {
    let mut out = Vec::with_capacity(items as usize * m as usize * k as usize);
    for_each_row(seed, first, items, m, k, |row| out.extend_from_slice(row));
    out
}

/// Calls `f` with each (item, draw)'s K normals of [`normals`], in the same order, without
/// storing them all.
pub fn for_each_row(seed: u64, first: u32, items: u32, m: u32, k: u32, mut f: impl FnMut(&[f32])) {
    for_each_batch(seed, first, items, m, k, |z| z.chunks_exact(k as usize).for_each(&mut f));
}

/// Calls `f` with the normals of [`normals`] in the same order, several of an item's draws at a
/// time (K normals each, a whole number of draws per call), without storing them all.
///
/// Each batch is computed in two steps over many blocks or words at once ([`lanes::Kernel`]: AVX2
/// or simd128 where there is one): every Philox block of the batch, each stored straight at its
/// draw's place, then every word's normal. A draw's partial last block is converted and
/// overwritten rather than skipped, which the vector steps make cheaper.
pub fn for_each_batch(seed: u64, first: u32, items: u32, m: u32, k: u32, mut f: impl FnMut(&[f32])) {
    let (table, key, kernel) = (table(), key_of(seed), lanes::Kernel::detect());
    let (m, k) = (m as usize, k as usize);
    let layout = lanes::Layout::new(batch_rows(m, k), k);
    let mut words = vec![0u32; layout.words];
    let mut z = vec![0.0f32; layout.normals];
    for i in first..first + items {
        for d0 in (0..m).step_by(layout.rows) {
            // d0 < M: validated sizes keep it in a u32.
            kernel.blocks(key, i, d0 as u32, &layout, &mut words);
            kernel.normals(&words[..layout.normals], table, &mut z);
            f(&z[..layout.rows.min(m - d0) * k]);
        }
    }
}

/// Blocks wanted per batch: enough to keep the vector lanes busy between calls of the caller's
/// function, few enough that a batch stays in the L1 cache (4 words and 4 normals per block).
const BATCH_BLOCKS: usize = 64;

/// Draws per batch: as many as fill [`BATCH_BLOCKS`] (at least one), evened out over the item so
/// that its last batch is not mostly padding (M = 30, K = 10: two batches of 15 draws).
fn batch_rows(m: usize, k: usize) -> usize {
    let m = m.max(1);
    let most = (BATCH_BLOCKS / k.div_ceil(4)).clamp(1, m);
    m.div_ceil(m.div_ceil(most))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_table_keeps_the_integer_arithmetic_exact() {
        let t = table();
        assert_eq!(t.len(), OCTAVES * (SEGMENTS + 1));
        assert!(t.iter().all(|&z| z < 1 << 24));
        for e in 0..OCTAVES {
            let row = &t[e * (SEGMENTS + 1)..(e + 1) * (SEGMENTS + 1)];
            // z falls along an octave, and a segment spans less than 2^16 units: the product
            // (z0 − z1)·frac with a 16-bit frac fits in u32.
            assert!(row.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] < 1 << 16), "octave {e}");
            assert!(row[0] < 1 << 24);
            if e > 0 {
                assert_eq!(row[SEGMENTS], t[(e - 1) * (SEGMENTS + 1)], "octaves meet");
            }
        }
        assert_eq!(t[SEGMENTS], 0, "q = 1/2 is z = 0");
    }

    #[test]
    fn fixed_point_to_f32_is_exact() {
        for z in [0u32, 1, 2, 3, 1000, 2_097_152, (1 << 24) - 1, 13_068_000] {
            let want = z as f64 / 2_097_152.0;
            assert_eq!(fixed_to_f32(z, 0) as f64, want);
            assert_eq!(fixed_to_f32(z, 1) as f64, -want);
        }
        assert_eq!(fixed_to_f32(0, 1).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn extreme_bits_give_the_tails() {
        let t = table();
        // t = 1: q = 2^-33, the largest |z|; t = 2^32 − 1: q just below 1/2, z ≈ 0.
        let big = normal_from_bits(0, t);
        assert!((big as f64 - crate::normal::upper_quantile(2f64.powi(-33))).abs() < 1e-5, "{big}");
        assert_eq!(normal_from_bits(1 << 31, t), -big);
        assert!(normal_from_bits(u32::MAX >> 1, t).abs() < 1e-6);
    }

    #[test]
    fn draws_are_standard_normal() {
        // 200,000 draws from a fixed seed: Kolmogorov–Smirnov distance to Φ and the first four
        // moments. The thresholds are the 0.1 % critical values for this sample size; the draws
        // are deterministic, so this either always passes or always fails.
        let n = 200_000u32;
        let mut z: Vec<f64> = normals(2024, 0, n / 100, 10, 10).into_iter().map(f64::from).collect();
        z.sort_by(f64::total_cmp);
        let nf = n as f64;
        let d = z
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = crate::normal::cdf(x);
                (f - i as f64 / nf).abs().max(((i + 1) as f64 / nf - f).abs())
            })
            .fold(0.0, f64::max);
        assert!(d * nf.sqrt() < 1.95, "KS distance {d}");
        let mean = z.iter().sum::<f64>() / nf;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / nf;
        let skew = z.iter().map(|x| (x - mean).powi(3)).sum::<f64>() / nf;
        let kurt = z.iter().map(|x| (x - mean).powi(4)).sum::<f64>() / nf;
        assert!(mean.abs() < 3.3 / nf.sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 3.3 * (2.0 / nf).sqrt(), "variance {var}");
        assert!(skew.abs() < 3.3 * (6.0 / nf).sqrt(), "skewness {skew}");
        assert!((kurt - 3.0).abs() < 3.3 * (24.0 / nf).sqrt(), "kurtosis {kurt}");
    }

    #[test]
    fn draws_are_addressed_by_their_key() {
        let block = normals(7, 100, 3, 4, 5);
        assert_eq!(block[(2 * 4 + 3) * 5 + 1].to_bits(), normal(7, 102, 3, 1).to_bits());
        assert_ne!(normal(7, 102, 3, 1), normal(8, 102, 3, 1));
        // Candidates 0..4 share a block, one word each; candidate 4 starts the next block.
        let w = philox4x32_10([102, 3, 0, 1], key_of(7));
        for c in 0..4 {
            assert_eq!(normal(7, 102, 3, c).to_bits(), normal_from_bits(w[c as usize], table()).to_bits());
        }
        let w = philox4x32_10([102, 3, 1, 1], key_of(7));
        assert_eq!(normal(7, 102, 3, 4).to_bits(), normal_from_bits(w[0], table()).to_bits());
    }
}
