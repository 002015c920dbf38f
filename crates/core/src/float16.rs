//! IEEE 754 binary16 ("float16", numpy's `<f2`) scores, held as their bit patterns (`u16`):
//! stable Rust has no `f16` type, and the core only ever widens them. Every binary16 value is
//! exactly a binary32 value (11 significant bits in 24, exponents −24…15 within −149…127), so
//! the widening is exact and a float16 score reads as the float32 score of the same value.

/// The binary32 value of the binary16 bit pattern `h`, exactly. A NaN stays a NaN of the same
/// sign and payload, made quiet, as x86's `vcvtph2ps` and the `half` crate widen it.
#[inline]
pub fn to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from(h >> 10) & 0x1f;
    let man = u32::from(h & 0x03ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        // Subnormal: man · 2⁻²⁴ with the top set bit of `man` at position p (0…9) is
        // 1.f · 2^(p − 24), a normal binary32 with biased exponent p − 24 + 127.
        (0, _) => {
            let p = 31 - man.leading_zeros();
            sign | ((p + 103) << 23) | ((man << (23 - p)) & 0x007f_ffff)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000 | (man << 13),
        // Normal: rebias the exponent (15 → 127) and move the 10 fraction bits to the top of 23.
        _ => sign | ((exp + 112) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// [`to_f32`] widened on to f64 (also exact).
#[inline]
pub fn to_f64(h: u16) -> f64 {
    f64::from(to_f32(h))
}

/// `src` widened to binary32 into `dst` (cleared first): [`to_f32`] of each, eight at a time
/// with x86's `vcvtph2ps` where the CPU has it (the same values, NaNs too), which keeps a pass
/// over a whole item of float16 scores from being bound by the branches of the portable one.
pub fn widen_f32(src: &[u16], dst: &mut Vec<f32>) {
    dst.clear();
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has F16C (and AVX, which F16C implies).
        unsafe { widen_f16c(src, dst) };
        return;
    }
    dst.extend(src.iter().map(|&h| to_f32(h)));
}

/// [`widen_f32`] with F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "f16c,avx")]
fn widen_f16c(src: &[u16], dst: &mut Vec<f32>) {
    use std::arch::x86_64::*;
    let mut chunks = src.chunks_exact(8);
    dst.reserve(src.len());
    for c in chunks.by_ref() {
        // SAFETY: `c` holds eight u16, the 128 bits the load reads; the store writes eight f32
        // into a local array.
        let out = unsafe {
            let wide = _mm256_cvtph_ps(_mm_loadu_si128(c.as_ptr().cast()));
            let mut out = [0f32; 8];
            _mm256_storeu_ps(out.as_mut_ptr(), wide);
            out
        };
        dst.extend_from_slice(&out);
    }
    dst.extend(chunks.remainder().iter().map(|&h| to_f32(h)));
}

/// Whether the binary16 bit pattern `h` is a finite number (not ±∞, not NaN).
#[inline]
pub fn is_finite(h: u16) -> bool {
    h & 0x7c00 != 0x7c00
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Every one of the 65,536 bit patterns widens as the `half` crate widens it (its own
    /// conversion, hardware or table-free software, not this one), bit for bit, NaNs included.
    #[test]
    fn widening_matches_half_on_every_bit_pattern() {
        for h in 0..=u16::MAX {
            let want = half::f16::from_bits(h);
            let got = to_f32(h);
            assert_eq!(got.to_bits(), want.to_f32().to_bits(), "{h:#06x}");
            assert_eq!(to_f64(h).to_bits(), want.to_f64().to_bits(), "{h:#06x}");
            assert_eq!(is_finite(h), want.is_finite(), "{h:#06x}");
            // Exact: the value narrows back to the same pattern (NaNs aside, which stay NaN).
            if want.is_nan() {
                assert!(got.is_nan());
            } else {
                assert_eq!(half::f16::from_f32(got).to_bits(), h, "{h:#06x}");
            }
        }
    }

    /// The fast widening of a slice gives [`to_f32`]'s bits for every pattern, NaNs included,
    /// in slices of every length modulo its eight lanes.
    #[test]
    fn slices_widen_as_each_score_does() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let mut got = vec![1.0];
        for len in [all.len(), all.len() - 1, 13, 7, 0] {
            widen_f32(&all[all.len() - len..], &mut got);
            let want = all[all.len() - len..].iter().map(|&h| to_f32(h).to_bits());
            assert!(got.iter().map(|x| x.to_bits()).eq(want), "length {len}");
        }
    }

    #[test]
    fn landmarks() {
        assert_eq!(to_f32(0x3c00), 1.0);
        assert_eq!(to_f32(0xc000), -2.0);
        assert_eq!(to_f32(0x7bff), 65504.0);
        assert_eq!(to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(to_f32(0x0400), 2f32.powi(-14));
        assert_eq!(to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
        assert_eq!(to_f32(0x7c00), f32::INFINITY);
        assert_eq!(to_f32(0xfc00), f32::NEG_INFINITY);
        assert!(to_f32(0x7e00).is_nan() && !is_finite(0x7e00) && !is_finite(0xfc00) && is_finite(0x7bff));
    }
}
