//! Scores as integer sort keys: what the GPU ranks instead of floats.
//!
//! The core holds scores as f64; WGSL has no f64, and a GPU may flush f32 subnormals to zero
//! when it compares floats. So the kernels never compare floats: each score becomes an
//! unsigned key whose ascending order is the scores' descending order (`−0` and `+0` share a
//! key, as they compare equal), and the kernels compare keys as integers, which is exact on
//! every device. When every score is exactly an f32 (`x as f32 as f64 == x`, true of any model
//! output stored as f32) one u32 word per score is enough; otherwise each score takes two words
//! (the high and low halves of a u64 key), so the GPU ranks any finite f64 input exactly as
//! the CPU does and never has to refuse it. Either way the ranking equals
//! `rvalue::nonparametric::sort_desc` (descending, ties to the lower index).

use rvalue_core::float16;
use rvalue_core::tensor::{ScoreTensor, Scores};

/// Keys for a slice of finite scores, `words` (1 or 2) u32 words per score, high word first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    pub words: u32,
    pub data: Vec<u32>,
}

/// A u32 whose unsigned ascending order is the descending order of finite f32 values.
#[inline]
pub fn desc_key32(x: f32) -> u32 {
    let x = if x == 0.0 { 0.0 } else { x };
    let b = x.to_bits();
    let ascending = if b >> 31 == 1 { !b } else { b | (1 << 31) };
    !ascending
}

/// A u64 whose unsigned ascending order is the descending order of finite f64 values.
#[inline]
pub fn desc_key64(x: f64) -> u64 {
    let x = if x == 0.0 { 0.0 } else { x };
    let b = x.to_bits();
    let ascending = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    !ascending
}

/// Whether every score is exactly an f32, so that one key word per score keeps the order.
pub fn all_f32(scores: &[f64]) -> bool {
    scores.iter().all(|&x| (x as f32) as f64 == x)
}

impl Keys {
    /// Keys of `scores` with the narrowest exact width.
    pub fn of(scores: &[f64]) -> Keys {
        Keys::with_words(scores, if all_f32(scores) { 1 } else { 2 })
    }

    /// Keys of a tensor's scores: one word each when it stores f32 or f16, without widening
    /// them to f64.
    pub fn of_tensor(t: &ScoreTensor) -> Keys {
        match t.scores() {
            Scores::F32(s) => Keys { words: 1, data: s.iter().map(|&x| desc_key32(x)).collect() },
            // Every float16 value is exactly an f32.
            Scores::F16(s) => {
                Keys { words: 1, data: s.iter().map(|&h| desc_key32(float16::to_f32(h))).collect() }
            }
            Scores::F64(s) => Keys::of(s),
        }
    }

    /// Keys with a given width; `words = 1` requires [`all_f32`] (checked by the caller).
    pub fn with_words(scores: &[f64], words: u32) -> Keys {
        let data = if words == 1 {
            scores.iter().map(|&x| desc_key32(x as f32)).collect()
        } else {
            scores
                .iter()
                .flat_map(|&x| {
                    let k = desc_key64(x);
                    [(k >> 32) as u32, k as u32]
                })
                .collect()
        };
        Keys { words, data }
    }

    /// Keys of the items `items` of `t`, one after another (`M·K` scores each), `words` per
    /// score; one word requires those scores to be f32 (always true of f32 and f16 storage).
    pub fn of_items(t: &ScoreTensor, items: &[usize], words: u32) -> Keys {
        let (per, s) = (t.m() * t.k(), t.scores());
        let mut data = Vec::with_capacity(items.len() * per * words as usize);
        for &i in items {
            let scores = (i * per..(i + 1) * per).map(|x| s.at(x));
            if words == 1 {
                data.extend(scores.map(|x| desc_key32(x as f32)));
            } else {
                data.extend(scores.flat_map(|x| {
                    let k = desc_key64(x);
                    [(k >> 32) as u32, k as u32]
                }));
            }
        }
        Keys { words, data }
    }

    /// Whether the items `items` of `t` are all f32 scores, so that one key word keeps them.
    pub fn items_are_f32(t: &ScoreTensor, items: &[usize]) -> bool {
        let per = t.m() * t.k();
        match t.scores() {
            Scores::F32(_) | Scores::F16(_) => true,
            Scores::F64(s) => items.iter().all(|&i| all_f32(&s[i * per..(i + 1) * per])),
        }
    }

    /// Number of scores.
    pub fn len(&self) -> usize {
        self.data.len() / self.words as usize
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The key of score `i` as a u64 (one-word keys are widened, which keeps their order).
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        if self.words == 1 {
            self.data[i] as u64
        } else {
            (self.data[2 * i] as u64) << 32 | self.data[2 * i + 1] as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvalue_core::rvalue::nonparametric::sort_desc;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The order of keys (ties to the lower index) is `sort_desc`'s.
    fn key_order(keys: &Keys) -> Vec<u16> {
        let mut idx: Vec<u16> = (0..keys.len() as u16).collect();
        idx.sort_by_key(|&i| (keys.get(i as usize), i));
        idx
    }

    #[test]
    fn keys_order_scores_as_the_core_does() {
        let narrow: Vec<f64> =
            [0.5f32, -1.0, 3.4e38, -0.0, 0.0, -3.4e38, 0.5, 1e-30, -1e-30, 1e-45, -1e-45, 3.0]
                .iter()
                .map(|&x| x as f64)
                .collect();
        let wide =
            [0.5, -1.0, f64::MAX, -0.0, 0.0, -f64::MAX, 0.5, 1e-300, -1e-300, 5e-324, 0.1, 0.1 + 1e-17];
        for (scores, words) in [(&narrow[..], 1), (&wide[..], 2)] {
            let keys = Keys::of(scores);
            assert_eq!(keys.words, words);
            let mut want = vec![0u16; scores.len()];
            sort_desc(scores, &mut want);
            assert_eq!(key_order(&keys), want, "{scores:?}");
            // Two-word keys order f32 scores the same way as one-word keys.
            assert_eq!(key_order(&Keys::with_words(scores, 2)), want);
        }
        assert_eq!(desc_key32(0.0), desc_key32(-0.0));
    }

    /// A float16 tensor's keys, made from its bit patterns, are those of its widened scores:
    /// every finite float16, one word each.
    #[test]
    fn float16_keys_are_the_widened_scores_keys() {
        let bits: Vec<u16> = (0..=u16::MAX).filter(|&h| float16::is_finite(h)).collect();
        let t = ScoreTensor::from_f16_bits(1, 1, bits.len(), bits).unwrap();
        let keys = Keys::of_tensor(&t);
        assert_eq!(keys, Keys::of(&t.data()));
        assert_eq!(keys.words, 1);
    }
}
