//! The tie order of pooled r-values (docs/method.md §4).
//!
//! A test item's pooled r-values rank its `K` candidates together with the `n` calibration
//! units, and two kinds of tie need an order: equal scores within a draw, and equal counts in
//! the nested greedy. The authors' code gives every tie to the lower unit index, and the
//! calibration units come first, so the test item's true label loses every tie and coverage
//! falls below `1 − α` when draws are few ([`TieOrder::Index`]).
//!
//! [`TieOrder::Exchangeable`] breaks every tie by one seeded order of the `U = n + K` units: the
//! calibration units in index order, interleaved uniformly at random with the candidates in a
//! uniformly random order (each of the `C(U, K) · K!` orders equally likely). Because the
//! calibration units are exchangeable among themselves, this gives the same law as a uniformly
//! random order of all `U` units, under which the true label and the calibration units play
//! symmetric parts: its rank among those `n + 1` units in the greedy's selection order is uniform
//! whenever its scores are exchangeable with theirs and independent of the item's other
//! candidates, which is the split-conformal argument's premise. Independent uniform places per
//! candidate, with candidates that share a place in a fixed order, are not exchangeable: with
//! `n = 2` calibration units and `K = 2` candidates they reach 9 of the 12 orders, and the 3
//! where the two candidates share a place in the other order get weight 0 (the test
//! `exchangeable_orders_are_uniform_and_keyed` asks for all 12, equally often).
//!
//! An order is stored as each candidate's rank among the candidates and its place `g_c ∈ 0..=n`,
//! the number of calibration units before it: candidate `c` precedes calibration unit `j` iff
//! `g_c ≤ j`, and places never decrease along the ranks. The index rule is the special case
//! `g_c = n`, rank = index, so one code path serves both.

use crate::rng::{key_of, philox4x32_10};
use crate::tensor::ScoreTensor;

crate::options! {
    /// Which rule breaks ties between units in pooled r-values.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum TieOrder("tie order") {
        /// A seeded random order in which the test item's candidates are exchangeable with the
        /// calibration units: keeps the conformal guarantee.
        #[default]
        Exchangeable = "exchangeable",
        /// The authors' rule: ties to the lower unit index, calibration units first.
        Index = "index",
    }
}

/// What names a test item in the key of its exchangeable order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TieKey {
    /// Its index in the data set: an evaluation split, whose file fixes the items.
    #[default]
    Position,
    /// A hash of its scores ([`content_hash`]): a prediction, whose set must not depend on the
    /// batch the item comes in nor on its place there (docs/method.md §4).
    Content,
}

/// The tie order of one split: the rule and, for the exchangeable one, the key its candidate
/// places derive from (the run's seed and the split's number; the item, by position or by
/// content, is added per item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ties {
    pub order: TieOrder,
    pub seed: u64,
    pub split: u64,
    pub key: TieKey,
}

/// Counter word that keeps the orders' Philox blocks apart from the split permutations' and the
/// toy's draws under the same seed ("ties" in ASCII).
const TAG: u32 = 0x7469_6573;
/// The same for orders keyed by content ("tiec"), apart from those keyed by position.
const TAG_CONTENT: u32 = 0x7469_6563;

impl Ties {
    /// The authors' rule (no key needed).
    pub const INDEX: Ties = Ties { order: TieOrder::Index, seed: 0, split: 0, key: TieKey::Position };

    pub fn new(order: TieOrder, seed: u64, split: u64) -> Self {
        Ties { order, seed, split, key: TieKey::Position }
    }

    /// The same order keyed by each item's content instead of its position.
    pub fn by_content(self) -> Self {
        Ties { key: TieKey::Content, ..self }
    }

    /// The key [`Ties::order`] takes for item `local` of `t`, which is item `global` of the whole
    /// data set: `global`, or the hash of the item's scores.
    pub fn item_key(&self, t: &ScoreTensor, local: usize, global: usize) -> u64 {
        match (self.order, self.key) {
            (TieOrder::Index, _) => 0,
            (_, TieKey::Position) => global as u64,
            (_, TieKey::Content) => content_hash(t, local),
        }
    }

    pub fn is_index(&self) -> bool {
        self.order == TieOrder::Index
    }

    /// The tie order among `n` calibration units of the test item keyed `item` ([`Ties::item_key`]):
    /// each candidate's rank among the candidates (`rank[c]`) and, by rank, the places
    /// (`places[r]`: calibration units before the candidate of rank `r`; nondecreasing in `r`).
    ///
    /// The exchangeable order draws the candidates' `K` positions among the `U` (Floyd's sampling
    /// of a `K`-subset) and then their order in those positions (Fisher–Yates), from a
    /// [`SplitMix`] stream keyed by the seed, the split and the item's key: integer arithmetic
    /// only, so the same numbers on every device, thread count and platform.
    pub fn order(&self, item: u64, n: usize, places: &mut [u32], rank: &mut [u16]) {
        let k = places.len();
        if self.is_index() {
            places.fill(n as u32);
            rank.iter_mut().enumerate().for_each(|(c, r)| *r = c as u16);
            return;
        }
        let tag = if self.key == TieKey::Content { TAG_CONTENT } else { TAG };
        let mut rng = SplitMix::keyed(self.seed, self.split, item, tag);
        let u = n + k;
        let mut taken = vec![0u64; u.div_ceil(64)];
        for top in n..u {
            let t = rng.below(top as u64 + 1) as usize;
            let at = if taken[t / 64] >> (t % 64) & 1 == 1 { top } else { t };
            taken[at / 64] |= 1 << (at % 64);
        }
        rank.iter_mut().enumerate().for_each(|(c, r)| *r = c as u16);
        for i in (1..k).rev() {
            rank.swap(i, rng.below(i as u64 + 1) as usize);
        }
        // The i-th candidate position `p` has `p − i` calibration units before it.
        let mut slot = 0;
        for (w, &word) in taken.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let p = w * 64 + bits.trailing_zeros() as usize;
                places[slot] = (p - slot) as u32;
                slot += 1;
                bits &= bits - 1;
            }
        }
    }
}

/// A hash of item `item`'s scores (every draw's, widened to f64, `−0` read as `0`), the key of
/// its order under [`TieKey::Content`]: the same item gets the same number whatever its batch,
/// its place there and its file's float type.
pub fn content_hash(t: &ScoreTensor, item: usize) -> u64 {
    let mut buf = Vec::new();
    let mut h = 0x6A09_E667_F3BC_C909_u64;
    for d in 0..t.m() {
        for &x in t.draw(item, d, &mut buf) {
            h = mix64(h ^ (x + 0.0).to_bits()).wrapping_add(GOLDEN);
        }
    }
    h
}

/// SplitMix64's increment (the golden ratio in 64 bits).
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finaliser: a bijection of `u64` that spreads every input bit.
pub(crate) fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64 (Steele, Lea and Flood, 2014) started from one Philox4x32-10 block of the key
/// (seed; split, item, `tag`): a test item needs about `2K` uniform integers, and a Philox
/// block per two of them cost as much as a tenth of the pooled greedy.
struct SplitMix(u64);

impl SplitMix {
    fn keyed(seed: u64, split: u64, item: u64, tag: u32) -> Self {
        let counter = [item as u32, (item >> 32) as u32, split as u32, (split >> 32) as u32 ^ tag];
        let w = philox4x32_10(counter, key_of(seed));
        SplitMix((w[0] as u64) << 32 | w[1] as u64)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix64(self.0)
    }

    /// Uniform in `0..n` without bias (Lemire's multiply-and-reject).
    fn below(&mut self, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = self.next() as u128 * n as u128;
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }
}

/// The candidates by rank: `by_rank[r]` is the candidate of rank `r`.
pub fn by_rank(rank: &[u16], by_rank: &mut [u16]) {
    for (c, &r) in rank.iter().enumerate() {
        by_rank[r as usize] = c as u16;
    }
}

/// Reorders runs of equal scores in `ord` (candidates best first, equal scores in index order,
/// as [`super::nonparametric::sort_desc`] leaves them) by rank, the order in which the ties put
/// them. `sorted` holds the scores in `ord`'s order (and still does afterwards).
pub fn order_equal_scores(sorted: &[f64], rank: &[u16], ord: &mut [u16]) {
    // Most draws of continuous scores tie nothing: one branch-free pass says so.
    if !sorted.windows(2).fold(false, |any, w| any | (w[0] == w[1])) {
        return;
    }
    let mut i = 0;
    while i + 1 < ord.len() {
        let s = sorted[i];
        let mut j = i + 1;
        while j < ord.len() && sorted[j] == s {
            j += 1;
        }
        // Runs of equal scores are short: an insertion sort, which also keeps the page's wasm
        // free of one more instantiation of the library's sort.
        for a in i + 1..j {
            let mut b = a;
            while b > i && rank[ord[b - 1] as usize] > rank[ord[b] as usize] {
                ord.swap(b - 1, b);
                b -= 1;
            }
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn names_read_back() {
        assert!(TieOrder::ALL.iter().all(|&t| t.name().parse::<TieOrder>() == Ok(t)));
        let e = "random".parse::<TieOrder>().unwrap_err();
        assert!(
            matches!(&e, crate::Error::InvalidOption { option, expected, .. }
                if option == "tie order" && expected == "exchangeable or index"),
            "{e}"
        );
    }

    #[test]
    fn index_places_every_candidate_after_the_calibration_units() {
        let (mut p, mut r) = ([0u32; 5], [9u16; 5]);
        Ties::INDEX.order(3, 17, &mut p, &mut r);
        assert_eq!((p, r), ([17; 5], [0, 1, 2, 3, 4]));
    }

    /// Every interleaving of 2 calibration units with 2 candidates in either order (12 orders of
    /// the 4 units) is equally likely: all 12 occur, and a chi-square test. Independent places
    /// with a fixed order among candidates that share one fail the count (they reach 9 orders:
    /// the 3 with the shared place in the other order get weight 0). Different items, splits
    /// and seeds differ.
    #[test]
    fn exchangeable_orders_are_uniform_and_keyed() {
        let ties = Ties::new(TieOrder::Exchangeable, 5, 2);
        let mut counts = std::collections::BTreeMap::new();
        let items = 12_000;
        let (mut p, mut r) = ([0u32; 2], [0u16; 2]);
        for item in 0..items {
            ties.order(item as u64, 2, &mut p, &mut r);
            assert!(p.iter().all(|&g| g <= 2) && r[0] != r[1]);
            *counts.entry((p, r)).or_insert(0.0) += 1.0;
        }
        assert_eq!(counts.len(), 12, "{counts:?}");
        let expect = items as f64 / 12.0;
        let chi2: f64 = counts.values().map(|h| (h - expect) * (h - expect) / expect).sum();
        // 11 degrees of freedom: P(χ² > 31.3) = 0.001.
        assert!(chi2 < 31.3, "χ² = {chi2}, counts {counts:?}");
        let of = |t: Ties, item: u64| {
            let (mut p, mut r) = ([0u32; 16], [0u16; 16]);
            t.order(item, 1000, &mut p, &mut r);
            (p, r)
        };
        assert_eq!(of(ties, 3), of(ties, 3));
        assert_ne!(of(ties, 3), of(ties, 4));
        assert_ne!(of(ties, 3), of(Ties::new(TieOrder::Exchangeable, 5, 3), 3));
        assert_ne!(of(ties, 3), of(Ties::new(TieOrder::Exchangeable, 6, 2), 3));
        // Places never decrease along the ranks.
        let (p, _) = of(ties, 9);
        assert!(p.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn equal_scores_follow_rank() {
        let scores = [1.0, 2.0, 1.0, 1.0, 3.0, 2.0];
        let rank = [4, 0, 1, 3, 5, 2];
        let mut ord = [4u16, 1, 5, 0, 2, 3];
        let sorted = ord.map(|c| scores[c as usize]);
        order_equal_scores(&sorted, &rank, &mut ord);
        assert_eq!(ord, [4, 1, 5, 2, 3, 0]);
    }
}
