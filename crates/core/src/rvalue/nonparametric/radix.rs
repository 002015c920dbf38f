//! The candidate order of one draw of single-precision scores by a radix sort: scores read from
//! float32 or float16 files (what models write) are exactly single-precision numbers, so a
//! 32-bit key orders them as the 64-bit one does, and four byte-wise counting passes over
//! `(key, index)` words sort a thousand candidates several times faster than a comparison sort.
//! Ties keep index order, because each pass is stable and the words start in index order.

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
    // Each word is the key above the candidate's index: bits 16..48 are sorted on, a byte a pass.
    words.clear();
    words.extend(scores.enumerate().map(|(i, x)| u64::from(desc_key32(x)) << 16 | i as u64));
    let mut counts = [[0u32; 256]; 4];
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
        scatter(words, spare, count, pass);
        std::mem::swap(words, spare);
    }
    for (o, &w) in out.iter_mut().zip(words.iter()) {
        *o = w as u16;
    }
}

/// Byte `pass` of a word's key (pass 0 is the lowest).
#[inline]
fn byte(w: u64, pass: usize) -> usize {
    (w >> (16 + 8 * pass)) as usize & 0xff
}

/// One stable counting pass: `from`'s words into `to` in the order of their byte `pass`.
fn scatter(from: &[u64], to: &mut [u64], count: &[u32; 256], pass: usize) {
    let mut at = [0usize; 256];
    let mut sum = 0;
    for (a, &c) in at.iter_mut().zip(count) {
        *a = sum;
        sum += c as usize;
    }
    for &w in from {
        let b = byte(w, pass);
        to[at[b]] = w;
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

    #[test]
    fn only_single_precision_scores_are_taken() {
        assert!(single_precision(&[0.5, -0.0, 1e30f32 as f64, f64::from(f32::MAX)]));
        assert!(!single_precision(&[0.1]));
        assert!(!single_precision(&[f64::MAX]));
    }
}
