//! Pooled CP_r's calibration steps as bit sets. The greedy of docs/method.md §4 chooses one unit
//! per step, so a test item's `n` calibration units sit at `n` distinct steps of `1..=U` and one
//! bit per step holds them exactly: `U/8` bytes an item instead of `8n` for their r-values
//! `step/U` as f64 (a hundred pooled splits of a CIFAR-sized file held 800 MB that way). The
//! threshold at α, the `k*`-th smallest r-value, is the `k*`-th set bit over `U`.

/// Per test item, the set of steps at which calibration units were chosen.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StepSets {
    /// `U`, the number of units (and of steps).
    pub(super) units: u32,
    /// `u64` words per item.
    words: usize,
    /// Bit `s − 1` of an item's words is step `s`.
    bits: Vec<u64>,
}

impl StepSets {
    pub(super) fn new(units: u32, items: usize) -> Self {
        let words = (units as usize).div_ceil(64);
        StepSets { units, words, bits: Vec::with_capacity(items * words) }
    }

    /// Adds the next test item's calibration steps (each in `1..=U`; others are not steps).
    pub(super) fn push(&mut self, steps: &[u32]) {
        let at = self.bits.len();
        self.bits.resize(at + self.words, 0);
        for &s in steps.iter().filter(|&&s| s >= 1 && s <= self.units) {
            let b = s as usize - 1;
            self.bits[at + b / 64] |= 1 << (b % 64);
        }
    }

    /// Test item `t`'s words.
    pub(super) fn row(&self, t: usize) -> &[u64] {
        self.bits.get(t * self.words..(t + 1) * self.words).unwrap_or(&[])
    }

    pub(super) fn items(&self) -> usize {
        self.bits.len().checked_div(self.words).unwrap_or(0)
    }

    /// The `k`-th smallest of test item `t`'s steps (`k ≥ 1`); `None` when it has fewer.
    pub(super) fn select(&self, t: usize, k: usize) -> Option<u32> {
        let mut left = k.checked_sub(1)?;
        for (i, &w) in self.row(t).iter().enumerate() {
            let ones = w.count_ones() as usize;
            if left < ones {
                let mut w = w;
                for _ in 0..left {
                    w &= w - 1;
                }
                return Some(64 * i as u32 + w.trailing_zeros() + 1);
            }
            left -= ones;
        }
        None
    }

    /// The words of every item in order, and a set read back from them (bytes of another
    /// thread): `None` unless every item holds exactly `n` steps of `1..=units`.
    pub(super) fn words(&self) -> &[u64] {
        &self.bits
    }

    pub(super) fn from_words(units: u32, n: usize, bits: Vec<u64>) -> Option<Self> {
        let words = (units as usize).div_ceil(64);
        let spare = 64 * words - units as usize;
        let fits = |row: &[u64]| {
            let ones: usize = row.iter().map(|w| w.count_ones() as usize).sum();
            let high = row.last().map_or(0, |w| if spare == 0 { 0 } else { w >> (64 - spare) });
            ones == n && high == 0
        };
        let ok = words > 0 && bits.len().is_multiple_of(words) && bits.chunks_exact(words).all(fits);
        ok.then_some(StepSets { units, words, bits })
    }
}
