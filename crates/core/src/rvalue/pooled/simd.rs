//! Eight `i16` lanes at a time, for the greedy's picks: `eq_mask8(c, v)` has bit `i` set iff
//! `c[i] == v`; `max8` is the lane-wise maximum, `hmax8` the largest lane. SSE2 on x86_64,
//! simd128 on wasm when enabled, plain loops elsewhere; all give the same answers.

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the unaligned load reads exactly the 16 bytes of `c`.
    unsafe {
        let lanes = _mm_loadu_si128(c.as_ptr().cast());
        let eq = _mm_cmpeq_epi16(lanes, _mm_set1_epi16(v));
        // Saturating pack keeps 0 and -1 per lane as one byte each: one mask bit per lane.
        (_mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xff) as u32
    }
}

/// `c` with the lanes equal to `v` moved `2^15` down (wrapping): below zero when `v ≥ 0`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the load and the store touch exactly 16 bytes each.
    unsafe {
        let lanes = _mm_loadu_si128(c.as_ptr().cast());
        let eq = _mm_cmpeq_epi16(lanes, _mm_set1_epi16(v));
        let k = _mm_add_epi16(lanes, _mm_and_si128(eq, _mm_set1_epi16(i16::MIN)));
        let mut out = [0i16; 8];
        _mm_storeu_si128(out.as_mut_ptr().cast(), k);
        out
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
    use std::arch::wasm32::*;
    // SAFETY: the load and the store touch exactly 16 bytes each.
    unsafe {
        let lanes = v128_load(c.as_ptr().cast());
        let eq = i16x8_eq(lanes, i16x8_splat(v));
        let k = i16x8_add(lanes, v128_and(eq, i16x8_splat(i16::MIN)));
        let mut out = [0i16; 8];
        v128_store(out.as_mut_ptr().cast(), k);
        out
    }
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
#[inline(always)]
pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
    std::array::from_fn(|i| if c[i] == v { c[i].wrapping_add(i16::MIN) } else { c[i] })
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; loads and the store touch exactly 16 bytes each.
    unsafe {
        let m = _mm_max_epi16(_mm_loadu_si128(a.as_ptr().cast()), _mm_loadu_si128(b.as_ptr().cast()));
        let mut out = [0i16; 8];
        _mm_storeu_si128(out.as_mut_ptr().cast(), m);
        out
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn hmax8(a: &[i16; 8]) -> i16 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the load reads exactly the 16 bytes of `a`.
    unsafe {
        let mut m = _mm_loadu_si128(a.as_ptr().cast());
        m = _mm_max_epi16(m, _mm_srli_si128::<8>(m));
        m = _mm_max_epi16(m, _mm_srli_si128::<4>(m));
        m = _mm_max_epi16(m, _mm_srli_si128::<2>(m));
        _mm_cvtsi128_si32(m) as i16
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub fn hmax8(a: &[i16; 8]) -> i16 {
    use std::arch::wasm32::*;
    // SAFETY: the load reads exactly the 16 bytes of `a`.
    let mut m = unsafe { v128_load(a.as_ptr().cast()) };
    m = i16x8_max(m, i16x8_shuffle::<4, 5, 6, 7, 0, 1, 2, 3>(m, m));
    m = i16x8_max(m, i16x8_shuffle::<2, 3, 0, 1, 2, 3, 0, 1>(m, m));
    m = i16x8_max(m, i16x8_shuffle::<1, 0, 1, 0, 1, 0, 1, 0>(m, m));
    i16x8_extract_lane::<0>(m)
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
#[inline(always)]
pub fn hmax8(a: &[i16; 8]) -> i16 {
    a.iter().copied().fold(i16::MIN, i16::max)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
    use std::arch::wasm32::*;
    // SAFETY: loads and the store touch exactly 16 bytes each.
    unsafe {
        let m = i16x8_max(v128_load(a.as_ptr().cast()), v128_load(b.as_ptr().cast()));
        let mut out = [0i16; 8];
        v128_store(out.as_mut_ptr().cast(), m);
        out
    }
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
#[inline(always)]
pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
    std::array::from_fn(|i| a[i].max(b[i]))
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
    use std::arch::wasm32::*;
    // SAFETY: the load reads exactly the 16 bytes of `c` (wasm loads need no alignment).
    let lanes = unsafe { v128_load(c.as_ptr().cast()) };
    i16x8_bitmask(i16x8_eq(lanes, i16x8_splat(v))) as u32
}

#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
#[inline(always)]
pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
    c.iter().enumerate().fold(0, |m, (i, &x)| m | (u32::from(x == v) << i))
}
