//! Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11).
//!
//! Counter-based so that any draw is addressable by a key — (seed, item, draw, candidate) for the
//! toy simulator, (seed, split) for the split permutations — with no hidden state to replay.
//! That is what lets a GPU kernel produce the same numbers as the CPU (docs/method.md §7).

// Multipliers and key increments (Weyl sequence); `gpu::draws` runs the same rounds in vectors.
pub(crate) const M0: u32 = 0xD251_1F53;
pub(crate) const M1: u32 = 0xCD9E_8D57;
pub(crate) const W0: u32 = 0x9E37_79B9;
pub(crate) const W1: u32 = 0xBB67_AE85;

#[inline]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// One Philox4x32 block with 10 rounds: four independent 32-bit words per (counter, key).
#[inline]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// Splits a 64-bit seed into a Philox key.
#[inline]
pub fn key_of(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// A uniform in the open interval (0, 1) from 32 random bits: never 0, so `ln` is finite.
#[inline]
pub fn open01(x: u32) -> f64 {
    (x as f64 + 0.5) * (1.0 / 4_294_967_296.0)
}

/// A sequential stream over one Philox key and a fixed stream id (counter words 2 and 3).
#[derive(Debug, Clone)]
pub struct Stream {
    key: [u32; 2],
    stream: [u32; 2],
    block: u64,
    buf: [u32; 4],
    used: usize,
}

impl Stream {
    pub fn new(seed: u64, stream: u64) -> Self {
        Stream {
            key: key_of(seed),
            stream: [stream as u32, (stream >> 32) as u32],
            block: 0,
            buf: [0; 4],
            used: 4,
        }
    }

    pub fn next_u32(&mut self) -> u32 {
        if self.used == 4 {
            let ctr = [self.block as u32, (self.block >> 32) as u32, self.stream[0], self.stream[1]];
            self.buf = philox4x32_10(ctr, self.key);
            self.block += 1;
            self.used = 0;
        }
        let x = self.buf[self.used];
        self.used += 1;
        x
    }

    pub fn next_u64(&mut self) -> u64 {
        (self.next_u32() as u64) << 32 | self.next_u32() as u64
    }

    /// Uniform integer in `0..n` without modulo bias (Lemire's multiply-and-reject).
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            let m = x as u128 * n as u128;
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform in (0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// Fisher–Yates shuffle of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn philox_known_answer_vectors() {
        // Known-answer tests from Random123's kat_vectors (philox4x32 10 rounds).
        assert_eq!(philox4x32_10([0; 4], [0; 2]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn permutation_is_a_permutation_and_seeded() {
        let a = Stream::new(7, 3).permutation(100);
        let b = Stream::new(7, 3).permutation(100);
        let c = Stream::new(7, 4).permutation(100);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut s = a.clone();
        s.sort();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
    }
}
