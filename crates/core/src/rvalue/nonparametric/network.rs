//! The candidate order of one draw of `f32` scores by an AVX-512 sorting network, for up to
//! [`MAX_LEN`] candidates: the order of `radix::sort_desc32` (descending, ties to the lower
//! index), several times faster at K = 1000.
//!
//! Each candidate becomes one `u32` word: the top `32 − b` bits of its descending key above its
//! `b`-bit index (`2^b ≥ K`), sixteen words a vector. A bitonic network sorts the words with
//! vector minima and maxima: each vector sorted in its lanes, then runs of vectors merged in
//! registers up to sixteen vectors (256 words), and beyond that through the buffer. Words whose
//! keys share their top bits then sit next to each other in index order; a scan of neighbours
//! finds them (a few a draw for model scores) and orders each such run on the whole keys.

use std::arch::x86_64::*;

/// The most candidates the network sorts: 12 index bits leave 20 bits of key in a word.
pub(super) const MAX_LEN: usize = 4096;

/// Words per vector.
const LANES: usize = 16;

/// Vectors merged in registers before the merges go through memory.
const GROUP: usize = 16;

/// One vector's words, aligned so that every load and store is a whole cache line.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block([u32; LANES]);

/// Reusable buffers: the words being sorted and each candidate's whole key.
#[derive(Debug, Default)]
pub(crate) struct Buffers {
    words: Vec<Block>,
    keys: Vec<u32>,
}

/// Whether `n` scores take the network on this CPU (AVX-512 F, detected at run time).
#[inline]
pub(super) fn usable(n: usize) -> bool {
    n <= MAX_LEN && is_x86_feature_detected!("avx512f")
}

/// Candidate indices of `scores` (at most [`MAX_LEN`], finite) by score, descending, ties to the
/// lower index, into `out` (as long as `scores`).
///
/// # Safety
/// The CPU must have AVX-512 F ([`usable`]).
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn sort_desc32(scores: &[f32], out: &mut [u16], buf: &mut Buffers) {
    let n = scores.len();
    assert!(n <= MAX_LEN && out.len() == n);
    if n == 0 {
        return;
    }
    let bits = usize::BITS - (n - 1).leading_zeros();
    let vectors = n.div_ceil(LANES).next_power_of_two();
    // One vector past the words for the neighbour scan's shifted loads.
    buf.words.resize(vectors + 1, Block([u32::MAX; LANES]));
    buf.keys.resize(n.next_multiple_of(LANES), 0);
    let words = buf.words.as_mut_ptr().cast::<__m512i>();
    // SAFETY: `buf.words` holds `vectors + 1` aligned vectors and `buf.keys` whole vectors of
    // keys for the `n` scores; the CPU has the features (the caller's promise).
    unsafe {
        load_words(scores, bits, words, vectors + 1, buf.keys.as_mut_ptr());
        sort_words(words, vectors);
        let mut ties = [0u16; MAX_LEN / LANES];
        if write_out(words, n, bits, out, &mut ties) {
            order_ties(&ties[..n.div_ceil(LANES)], &buf.keys[..n], out);
        }
    }
}

/// The descending keys of `scores` (as `desc_key32`), into `keys` by candidate, and the words
/// `key's top bits | index` into the `total` vectors at `words`, padded with `u32::MAX` (no
/// finite score's word: it sorts last).
///
/// # Safety
/// `words` must hold `total ≥ ⌈n/16⌉` aligned vectors, `keys` `⌈n/16⌉·16` `u32`s.
#[target_feature(enable = "avx512f")]
unsafe fn load_words(scores: &[f32], bits: u32, words: *mut __m512i, total: usize, keys: *mut u32) {
    let n = scores.len();
    let high = _mm512_set1_epi32((u32::MAX << bits) as i32);
    let magnitude = _mm512_set1_epi32(i32::MAX);
    let mut index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let step = _mm512_set1_epi32(LANES as i32);
    let pad = _mm512_set1_epi32(-1);
    for v in 0..total {
        let start = v * LANES;
        let word = if start < n {
            let live: __mmask16 = if n - start >= LANES { 0xffff } else { (1 << (n - start)) - 1 };
            // SAFETY: the mask reads only scores below `n` (masked lanes do not fault).
            let x = unsafe { _mm512_maskz_loadu_ps(live, scores.as_ptr().add(start)) };
            // −0 ties +0: both become +0's bits.
            let zero = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(x, _mm512_setzero_ps());
            let b = _mm512_maskz_mov_epi32(!zero, _mm512_castps_si512(x));
            // Negative scores keep their bits, the others flip all but the sign.
            let sign = _mm512_srai_epi32::<31>(b);
            let key = _mm512_xor_si512(b, _mm512_andnot_si512(sign, magnitude));
            // SAFETY: `keys` holds whole vectors for every `start < n`.
            unsafe { _mm512_storeu_si512(keys.add(start).cast(), key) };
            let word = _mm512_or_si512(_mm512_and_si512(key, high), index);
            _mm512_mask_mov_epi32(pad, live, word)
        } else {
            pad
        };
        // SAFETY: `v < total`, the vectors the caller gave.
        unsafe { _mm512_store_si512(words.add(v).cast(), word) };
        index = _mm512_add_epi32(index, step);
    }
}

/// Sorts the words of `vectors` (a power of two) aligned vectors at `words`, ascending.
///
/// # Safety
/// `words` must hold `vectors` aligned vectors.
#[target_feature(enable = "avx512f")]
unsafe fn sort_words(words: *mut __m512i, vectors: usize) {
    // SAFETY: every group and merge stays within the `vectors` vectors.
    unsafe {
        match vectors {
            1 => sort_group::<1>(words),
            2 => sort_group::<2>(words),
            4 => sort_group::<4>(words),
            8 => sort_group::<8>(words),
            _ => {
                for g in (0..vectors).step_by(GROUP) {
                    sort_group::<GROUP>(words.add(g));
                }
                let mut run = GROUP;
                while run < vectors {
                    for start in (0..vectors).step_by(2 * run) {
                        merge_in_memory(words.add(start), run);
                    }
                    run *= 2;
                }
            }
        }
    }
}

/// Sorts the `G` vectors at `p` (a power of two, at most [`GROUP`]) in registers: each vector in
/// its lanes, then runs of 1, 2, 4 and 8 vectors merged in pairs, the last merge's lanes sorted
/// on the way out (for `G = 1` a sorted vector, which that leaves as it is).
///
/// # Safety
/// `p` must hold `G` aligned vectors.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn sort_group<const G: usize>(p: *mut __m512i) {
    let mut v = [_mm512_setzero_si512(); G];
    for i in 0..G {
        // SAFETY: `i < G`, the vectors the caller gave.
        v[i] = sort_lanes(unsafe { _mm512_load_si512(p.add(i).cast()) });
    }
    merge_level::<G, 1>(&mut v);
    merge_level::<G, 2>(&mut v);
    merge_level::<G, 4>(&mut v);
    merge_level::<G, 8>(&mut v);
    for i in 0..G {
        // SAFETY: as the loads.
        unsafe { _mm512_store_si512(p.add(i).cast(), clean_lanes(v[i])) };
    }
}

/// Merges each pair of sorted runs of `RUN` vectors in `v` (none where `v` is shorter than two
/// runs): the upper run reversed makes the pair bitonic, which half-cleaners sort, all but the
/// lanes where this is the group's last merge. Constant sizes and distances throughout, so that
/// the loops unroll and `v` stays in registers.
#[inline]
#[target_feature(enable = "avx512f")]
fn merge_level<const G: usize, const RUN: usize>(v: &mut [__m512i; G]) {
    for block in 0..G / (2 * RUN) {
        let b = block * 2 * RUN;
        let mut upper = [_mm512_setzero_si512(); RUN];
        for i in 0..RUN {
            upper[i] = reverse(v[b + 2 * RUN - 1 - i]);
        }
        for i in 0..RUN {
            v[b + RUN + i] = upper[i];
        }
        for d in [8, 4, 2, 1] {
            if d <= RUN {
                half_clean(&mut v[b..b + 2 * RUN], d);
            }
        }
        if 2 * RUN < G {
            for i in 0..2 * RUN {
                v[b + i] = clean_lanes(v[b + i]);
            }
        }
    }
}

/// One half-cleaner stage at vector distance `d` over `v`.
#[inline]
#[target_feature(enable = "avx512f")]
fn half_clean(v: &mut [__m512i], d: usize) {
    for i in 0..v.len() / 2 {
        let lo = i / d * 2 * d + i % d;
        let (x, y) = (v[lo], v[lo + d]);
        v[lo] = _mm512_min_epu32(x, y);
        v[lo + d] = _mm512_max_epu32(x, y);
    }
}

/// Merges the two sorted runs of `run` vectors at `p` (`run ≥` [`GROUP`]) into one: the second
/// reversed makes the whole bitonic, half-cleaners over the memory bring it down to groups of
/// [`GROUP`] vectors, which finish in registers.
///
/// # Safety
/// `p` must hold `2·run` aligned vectors.
#[target_feature(enable = "avx512f")]
unsafe fn merge_in_memory(p: *mut __m512i, run: usize) {
    // SAFETY: every index below stays under `2·run`.
    unsafe {
        for i in 0..run / 2 {
            let (a, b) = (p.add(run + i), p.add(2 * run - 1 - i));
            let (x, y) = (_mm512_load_si512(a.cast()), _mm512_load_si512(b.cast()));
            _mm512_store_si512(a.cast(), reverse(y));
            _mm512_store_si512(b.cast(), reverse(x));
        }
        let mut d = run;
        while d >= GROUP {
            for i in pairs(2 * run, d) {
                let (a, b) = (p.add(i), p.add(i + d));
                let (x, y) = (_mm512_load_si512(a.cast()), _mm512_load_si512(b.cast()));
                _mm512_store_si512(a.cast(), _mm512_min_epu32(x, y));
                _mm512_store_si512(b.cast(), _mm512_max_epu32(x, y));
            }
            d /= 2;
        }
        for g in (0..2 * run).step_by(GROUP) {
            let q = p.add(g);
            // The first stage on the way in and the lanes on the way out keep `v` out of memory.
            let mut v = [_mm512_setzero_si512(); GROUP];
            for i in 0..GROUP / 2 {
                let (x, y) =
                    (_mm512_load_si512(q.add(i).cast()), _mm512_load_si512(q.add(i + GROUP / 2).cast()));
                v[i] = _mm512_min_epu32(x, y);
                v[i + GROUP / 2] = _mm512_max_epu32(x, y);
            }
            for d in [4, 2, 1] {
                half_clean(&mut v, d);
            }
            for i in 0..GROUP {
                _mm512_store_si512(q.add(i).cast(), clean_lanes(v[i]));
            }
        }
    }
}

/// The lower vector of each pair `(i, i + d)` a half-cleaner at distance `d` compares among
/// `len` vectors: counted loops, which unroll where `clean`'s sizes are constants.
#[inline]
fn pairs(len: usize, d: usize) -> impl Iterator<Item = usize> {
    (0..len).step_by(2 * d).flat_map(move |base| base..base + d)
}

/// The lanes of a vector in reverse order.
#[inline]
#[target_feature(enable = "avx512f")]
fn reverse(x: __m512i) -> __m512i {
    let back = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    _mm512_permutexvar_epi32(back, x)
}

/// One compare-exchange stage within a vector: each lane against its partner `partner(x)`, the
/// lanes in `high` keeping the larger word.
#[inline]
#[target_feature(enable = "avx512f")]
fn exchange(x: __m512i, partner: __m512i, high: __mmask16) -> __m512i {
    let low = _mm512_min_epu32(x, partner);
    _mm512_mask_max_epu32(low, high, x, partner)
}

/// Partners at lane distance 8, 4, 2 and 1.
#[inline]
#[target_feature(enable = "avx512f")]
fn across8(x: __m512i) -> __m512i {
    _mm512_shuffle_i32x4::<0b01_00_11_10>(x, x)
}
#[inline]
#[target_feature(enable = "avx512f")]
fn across4(x: __m512i) -> __m512i {
    _mm512_shuffle_i32x4::<0b10_11_00_01>(x, x)
}
#[inline]
#[target_feature(enable = "avx512f")]
fn across2(x: __m512i) -> __m512i {
    _mm512_shuffle_epi32::<_MM_PERM_BADC>(x)
}
#[inline]
#[target_feature(enable = "avx512f")]
fn across1(x: __m512i) -> __m512i {
    _mm512_shuffle_epi32::<_MM_PERM_CDAB>(x)
}

/// Sorts a bitonic vector's lanes ascending: half-cleaners at distances 8, 4, 2, 1.
#[inline]
#[target_feature(enable = "avx512f")]
fn clean_lanes(x: __m512i) -> __m512i {
    let x = exchange(x, across8(x), 0xff00);
    let x = exchange(x, across4(x), 0xf0f0);
    let x = exchange(x, across2(x), 0xcccc);
    exchange(x, across1(x), 0xaaaa)
}

/// Sorts a vector's lanes ascending: the bitonic network, blocks of 2, 4 and 8 lanes sorted in
/// alternating directions (a lane keeps the larger word where its bit at the exchange's distance
/// differs from its bit at the block's size), then the whole vector cleaned.
#[inline]
#[target_feature(enable = "avx512f")]
fn sort_lanes(x: __m512i) -> __m512i {
    let x = exchange(x, across1(x), 0x6666);
    let x = exchange(x, across2(x), 0x3c3c);
    let x = exchange(x, across1(x), 0x5a5a);
    let x = exchange(x, across4(x), 0x0ff0);
    let x = exchange(x, across2(x), 0x33cc);
    let x = exchange(x, across1(x), 0x55aa);
    clean_lanes(x)
}

/// The candidate indices of the first `n` sorted words into `out`, and into `ties`, for each
/// vector, the lanes whose word shares its key bits with the next word's (a tie for
/// [`order_ties`] to order); whether there is any.
///
/// # Safety
/// `words` must hold `⌈n/16⌉ + 1` aligned vectors, the first `n` words sorted.
#[target_feature(enable = "avx512f")]
unsafe fn write_out(words: *mut __m512i, n: usize, bits: u32, out: &mut [u16], ties: &mut [u16]) -> bool {
    let index = _mm512_set1_epi32(((1u32 << bits) - 1) as i32);
    let key = _mm512_set1_epi32((u32::MAX << bits) as i32);
    let mut any = 0;
    for ((v, chunk), tie) in out.chunks_mut(LANES).enumerate().zip(ties.iter_mut()) {
        let live: __mmask16 = if chunk.len() == LANES { 0xffff } else { (1 << chunk.len()) - 1 };
        // Pairs of neighbours both among the first `n` words.
        let pairs = ((1u32 << (n - 1 - v * LANES).min(LANES)) - 1) as __mmask16;
        // SAFETY: vector `v` and the 16 words one past its first lie within the `⌈n/16⌉ + 1`
        // vectors; the store writes `chunk`'s lanes only.
        unsafe {
            let x = _mm512_load_si512(words.add(v).cast());
            let next = _mm512_loadu_si512(words.cast::<u32>().add(v * LANES + 1).cast());
            *tie = _mm512_mask_testn_epi32_mask(pairs, _mm512_xor_si512(x, next), key);
            _mm512_mask_cvtepi32_storeu_epi16(chunk.as_mut_ptr().cast(), live, _mm512_and_si512(x, index));
        }
        any |= *tie;
    }
    any != 0
}

/// Orders each run of neighbours in `out` whose words share their key bits (`ties`, from
/// [`write_out`]) by the whole keys, then index, which each run already follows.
fn order_ties(ties: &[u16], keys: &[u32], out: &mut [u16]) {
    let key = |c: u16| keys[usize::from(c)];
    let mut order = |first: usize, last: usize| {
        // Pairs `first..=last` tie: words `first..=last + 1`.
        let run = &mut out[first..last + 2];
        if run.windows(2).any(|w| key(w[0]) > key(w[1])) {
            run.sort_unstable_by_key(|&c| (key(c), c));
        }
    };
    let mut open: Option<(usize, usize)> = None;
    for (v, &tie) in ties.iter().enumerate() {
        let mut lanes = tie;
        while lanes != 0 {
            let i = v * LANES + lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            open = match open {
                Some((first, last)) if last + 1 == i => Some((first, i)),
                Some((first, last)) => {
                    order(first, last);
                    Some((i, i))
                }
                None => Some((i, i)),
            };
        }
    }
    if let Some((first, last)) = open {
        order(first, last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The radix sort's order, which the network must give exactly.
    fn by_radix(xs: &[f32]) -> Vec<u16> {
        let mut out = vec![0u16; xs.len()];
        super::super::radix::sort_desc32(xs.iter().copied(), &mut out, &mut Vec::new(), &mut Vec::new());
        out
    }

    /// Draws of every kind at length `n`: any finite bits, few distinct values (long tied runs),
    /// both zeros and subnormals, values a few ulps apart (keys sharing their top bits, in
    /// random, rising and falling order), and model-like scores.
    fn draws(n: usize, next: &mut impl FnMut() -> u64) -> Vec<Vec<f32>> {
        let ulps = |base: f32, spread: u64, next: &mut dyn FnMut() -> u64| -> Vec<f32> {
            (0..n).map(|_| f32::from_bits(base.to_bits() + (next() % spread) as u32)).collect()
        };
        let any = |x: f32| if x.is_finite() { x } else { -0.0 };
        let tiny = [0.0f32, -0.0, 1e-45, -1e-45, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, 1e-40, -3e-39];
        vec![
            (0..n).map(|_| any(f32::from_bits(next() as u32))).collect(),
            (0..n).map(|_| (next() % 5) as f32 - 2.0).collect(),
            (0..n).map(|_| tiny[next() as usize % tiny.len()]).collect(),
            (0..n)
                .map(|_| {
                    f32::from_bits((next() % 5000) as u32) * if next().is_multiple_of(2) { -1.0 } else { 1.0 }
                })
                .collect(),
            ulps(-3.5, 300, next),
            ulps(1.0, 5000, next),
            ulps(1e-30, 9, next),
            (0..n).map(|i| f32::from_bits(1.0f32.to_bits() + i as u32 % 4096)).collect(),
            (0..n).map(|i| f32::from_bits(1.0f32.to_bits() + 4095 - i as u32 % 4096)).collect(),
            (0..n).map(|_| (next() as f64 / u64::MAX as f64 * 8.0 - 4.0) as f32).collect(),
            vec![0.25; n],
        ]
    }

    #[test]
    fn the_network_gives_the_radix_order() {
        if !usable(1) {
            eprintln!("no AVX-512 on this CPU: the network is not used, so not tested");
            return;
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut buf = Buffers::default();
        let lengths =
            (0..=70).chain([127, 128, 129, 255, 256, 257, 999, 1000, 1024, 1025, 2047, 3000, 4095, 4096]);
        for n in lengths {
            for xs in draws(n, &mut next) {
                let mut out = vec![0u16; n];
                // SAFETY: `usable` saw the features; `n ≤ MAX_LEN`.
                unsafe { sort_desc32(&xs, &mut out, &mut buf) };
                assert_eq!(out, by_radix(&xs), "n = {n}: {:?}", &xs[..n.min(6)]);
            }
        }
    }
}
