//! The candidate order of one draw of single-precision scores by a radix sort: scores read from
//! float32 or float16 files (what models write) are exactly single-precision numbers, so a
//! 32-bit key orders them as the 64-bit one does, and byte-wise counting passes over
//! `(key, index)` words sort a thousand candidates several times faster than a comparison sort.
//! Ties keep index order, because each pass is stable and the words start in index order.
//!
//! Only the key's top three bytes take a counting pass. Its lowest byte orders only keys that
//! agree in all the others, which among a draw's scores are few and, after the passes, already
//! next to each other: an insertion sort over the whole words (key, then index) finishes the
//! order in one look per word. Where it would move many words (scores packed into a narrow
//! range), the words are sorted by comparison instead; both give the one exact order.

/// A `u32` whose unsigned order is the descending order of finite `f32`s (`−0` ties `+0`): the
/// 32-bit twin of `desc_key`, equal to it in order and in ties on every `f32`.
#[inline]
fn desc_key32(x: f32) -> u32 {
    let x = if x == 0.0 { 0.0 } else { x };
    let b = x.to_bits();
    let ascending = if b >> 31 == 1 { !b } else { b | (1 << 31) };
    !ascending
}

/// Whether every score is a single-precision number, so that [`sort_desc32`] applies.
pub(super) fn single_precision(scores: &[f64]) -> bool {
    scores.len() <= 1 << 16 && scores.iter().all(|&x| f64::from(x as f32) == x)
}

/// Candidate indices by score, descending, ties to the lower index, for at most 2^16 scores
/// given as `f32`s (exactly: see [`single_precision`]). `words` and `spare` are reusable buffers.
pub(super) fn sort_desc32(
    scores: impl Iterator<Item = f32>,
    out: &mut [u16],
    words: &mut Vec<u64>,
    spare: &mut Vec<u64>,
) {
    // Each word is the key above the candidate's index: bits 24..48 are sorted on, a byte a pass.
    words.clear();
    words.extend(scores.enumerate().map(|(i, x)| u64::from(desc_key32(x)) << 16 | i as u64));
    let mut counts = [[0u32; 256]; PASSES];
    for &w in words.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[byte(w, pass)] += 1;
        }
    }
    // Every slot is written by a pass before it is read: zero the spare buffer only when its
    // length changes, not once a draw (a million draws zeroed 8 GB).
    if spare.len() != words.len() {
        spare.clear();
        spare.resize(words.len(), 0);
    }
    for (pass, count) in counts.iter().enumerate() {
        // A byte every key shares orders nothing: skip its pass (often the exponent's).
        if count.iter().any(|&c| c as usize == words.len()) {
            continue;
        }
        // SAFETY: `count` is the histogram of the words' byte `pass`, and each pass only
        // permutes the words.
        unsafe { scatter(words, spare, count, pass) };
        std::mem::swap(words, spare);
    }
    if !finish_by_insertion(words) {
        words.sort_unstable();
    }
    for (o, &w) in out.iter_mut().zip(words.iter()) {
        *o = w as u16;
    }
}

/// A `u16` whose unsigned order is the descending order of finite float16 values given as
/// their bits (`−0` ties `+0`): the order of [`desc_key32`] on their exact `f32` values.
#[inline]
pub(crate) fn desc_key16(h: u16) -> u16 {
    let h = if h == 0x8000 { 0 } else { h };
    let ascending = if h >> 15 == 1 { !h } else { h | (1 << 15) };
    !ascending
}

/// [`sort_desc32`] for at most 2^16 finite float16 scores given as their bits: their 16-bit keys
/// take two counting passes over `u32` words instead of three over `u64` ones.
pub(super) fn sort_desc16(scores: &[u16], out: &mut [u16], words: &mut Vec<u32>, spare: &mut Vec<u32>) {
    words.clear();
    words.extend(scores.iter().enumerate().map(|(i, &h)| u32::from(desc_key16(h)) << 16 | i as u32));
    sort_keyed16(words, spare);
    for (o, &w) in out.iter_mut().zip(words.iter()) {
        *o = w as u16;
    }
}

/// Sorts `words` (a 16-bit key above a 16-bit payload each) by key, equal keys keeping their
/// order: two stable counting passes over the key's bytes, each skipped where every word shares
/// that byte.
pub(crate) fn sort_keyed16(words: &mut Vec<u32>, spare: &mut Vec<u32>) {
    let byte16 = |w: u32, pass: usize| (w >> (16 + 8 * pass)) as usize & 0xff;
    let mut counts = [[0u32; 256]; 2];
    for &w in words.iter() {
        counts[0][byte16(w, 0)] += 1;
        counts[1][byte16(w, 1)] += 1;
    }
    if spare.len() != words.len() {
        spare.clear();
        spare.resize(words.len(), 0);
    }
    for (pass, count) in counts.iter().enumerate() {
        if count.iter().any(|&c| c as usize == words.len()) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (a, &c) in at.iter_mut().zip(count) {
            *a = sum;
            sum += c as usize;
        }
        for &w in words.iter() {
            let b = byte16(w, pass);
            spare[at[b]] = w;
            at[b] += 1;
        }
        std::mem::swap(words, spare);
    }
}

/// Counting passes, over the key's bytes 1, 2 and 3 (its lowest byte is left to the insertion).
const PASSES: usize = 3;

/// Sorts `words`, already in order but for words that differ only below their top three key
/// bytes, by insertion; gives up (`false`, `words` still a permutation of its words) once that
/// would move more words than it holds, which keeps the worst case linear.
fn finish_by_insertion(words: &mut [u64]) -> bool {
    let mut moved = 0;
    for i in 1..words.len() {
        let w = words[i];
        if words[i - 1] <= w {
            continue;
        }
        let mut j = i;
        while j > 0 && words[j - 1] > w {
            words[j] = words[j - 1];
            j -= 1;
        }
        words[j] = w;
        moved += i - j;
        if moved > words.len() {
            return false;
        }
    }
    true
}

/// The key byte of pass `pass`: byte `pass + 1` of the key (pass 0 sorts on the second lowest).
#[inline]
fn byte(w: u64, pass: usize) -> usize {
    (w >> (24 + 8 * pass)) as usize & 0xff
}

/// One stable counting pass: `from`'s words into `to` in the order of their byte `pass`.
///
/// # Safety
/// `count` must be the histogram of byte `pass` of `from`'s words.
unsafe fn scatter(from: &[u64], to: &mut [u64], count: &[u32; 256], pass: usize) {
    let mut at = [0usize; 256];
    let mut sum = 0;
    for (a, &c) in at.iter_mut().zip(count) {
        *a = sum;
        sum += c as usize;
    }
    assert!(sum <= to.len());
    for &w in from {
        let b = byte(w, pass);
        debug_assert!(at[b] < to.len());
        // SAFETY: `count` is the histogram of `from`'s bytes (the caller's promise), so bucket
        // `b`'s slots end at most at `sum ≤ to.len()` (the assert): `at[b]` stays below it.
        // Unchecked, as a bounds check here was a good part of a pass.
        unsafe { *to.get_unchecked_mut(at[b]) = w };
        at[b] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_32_bit_key_orders_as_the_64_bit_one() {
        let xs = [0.5f32, -1.0, f32::MAX, -0.0, 0.0, f32::MIN, 1e-40, -1e-40, 3.0, f32::MIN_POSITIVE];
        for &a in &xs {
            for &b in &xs {
                let (ka, kb) = (super::super::desc_key(a.into()), super::super::desc_key(b.into()));
                assert_eq!(desc_key32(a).cmp(&desc_key32(b)), ka.cmp(&kb), "{a} {b}");
            }
        }
    }

    /// Candidate order by comparing scores (`−0` equal to `+0`), ties to the lower index.
    fn by_comparison(xs: &[f32]) -> Vec<u16> {
        let mut want: Vec<u16> = (0..xs.len() as u16).collect();
        want.sort_by(|&a, &b| xs[b as usize].partial_cmp(&xs[a as usize]).unwrap().then(a.cmp(&b)));
        want
    }

    #[test]
    fn the_passes_and_the_insertion_give_the_exact_order() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let ulps = |base: f32, steps: &mut dyn FnMut() -> u64, n: usize| -> Vec<f32> {
            (0..n).map(|_| f32::from_bits(base.to_bits() + (steps() % 300) as u32)).collect()
        };
        let mut draws: Vec<Vec<f32>> = vec![
            vec![1.0],
            vec![0.0, -0.0, 0.0, -0.0],
            // Keys that differ only in their lowest byte, in the order that moves every word.
            (0..1000).map(|i| f32::from_bits(1.0f32.to_bits() + i % 256)).collect(),
            (0..1000).map(|i| f32::from_bits(1.0f32.to_bits() + 255 - i % 256)).collect(),
            // Subnormals, zeros of both signs, and the extremes.
            (0..700).map(|i| f32::from_bits(i * 3 % 500) * if i % 3 == 0 { -1.0 } else { 1.0 }).collect(),
            vec![f32::MAX, f32::MIN, f32::MIN_POSITIVE, -f32::MIN_POSITIVE, 1e-45, -1e-45, 0.0, -0.0],
        ];
        for n in [2, 10, 1000, 5000] {
            // Any finite bit pattern; few distinct values (ties); values a few ulps apart.
            draws.push(
                (0..n)
                    .map(|_| f32::from_bits(next() as u32))
                    .map(|x| if x.is_finite() { x } else { 0.5 })
                    .collect(),
            );
            draws.push((0..n).map(|_| (next() % 5) as f32 - 2.0).collect());
            draws.push(ulps(-3.5, &mut next, n));
            draws.push((0..n).map(|_| (next() as f64 / u64::MAX as f64 * 4.0 - 2.0) as f32).collect());
        }
        let (mut words, mut spare) = (Vec::new(), Vec::new());
        for xs in &draws {
            let mut out = vec![0u16; xs.len()];
            sort_desc32(xs.iter().copied(), &mut out, &mut words, &mut spare);
            assert_eq!(out, by_comparison(xs), "{:?}", &xs[..xs.len().min(8)]);
        }
    }

    #[test]
    fn the_16_bit_key_orders_as_the_32_bit_one() {
        // Every finite float16 against a spread of others, zeros and subnormals among them.
        let finite: Vec<u16> = (0..=u16::MAX).filter(|&h| crate::float16::is_finite(h)).collect();
        let some: Vec<u16> =
            finite.iter().copied().step_by(251).chain([0, 0x8000, 1, 0x8001, 0x7bff, 0xfbff]).collect();
        for &a in &finite {
            for &b in &some {
                let (fa, fb) = (crate::float16::to_f32(a), crate::float16::to_f32(b));
                assert_eq!(
                    desc_key16(a).cmp(&desc_key16(b)),
                    desc_key32(fa).cmp(&desc_key32(fb)),
                    "{a:#x} {b:#x}"
                );
            }
        }
    }

    /// The float16 sort gives `sort_desc`'s order (ties to the lower index) on many ties, both
    /// zeros, subnormals and the whole finite range, at lengths around its passes' edge cases.
    #[test]
    fn the_float16_sort_is_sort_desc() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u16
        };
        let (mut words, mut spare) = (Vec::new(), Vec::new());
        for (len, spread) in [(0, 1), (1, 1), (7, 3), (300, 1), (1000, 5), (1000, 0), (1000, 40), (4096, 0)] {
            let base = next();
            let codes: Vec<u16> = (0..len)
                .map(|_| match spread {
                    // The whole range of bit patterns, kept finite.
                    0 => next() & 0xfbff,
                    s => {
                        [0x8000, 0, 1, 0x8001, base & 0x3fff, (base & 0x37ff) | 0xc000]
                            [usize::from(next()) % 6]
                            + next() % s
                    }
                })
                .collect();
            let mut got = vec![0u16; len];
            sort_desc16(&codes, &mut got, &mut words, &mut spare);
            let widened: Vec<f64> = codes.iter().map(|&h| crate::float16::to_f64(h)).collect();
            let mut want = vec![0u16; len];
            super::super::sort_desc(&widened, &mut want);
            assert_eq!(got, want, "{len} scores, spread {spread}");
        }
    }

    #[test]
    fn only_single_precision_scores_are_taken() {
        assert!(single_precision(&[0.5, -0.0, 1e30f32 as f64, f64::from(f32::MAX)]));
        assert!(!single_precision(&[0.1]));
        assert!(!single_precision(&[f64::MAX]));
    }
}
