//! The nested greedy straight from an item's draw orders, without the `K × K` count table.
//!
//! At step `j` the greedy picks, among units not yet chosen, the one that the most draws put in
//! their top `j`, ties to the lower index. Going from step `j − 1` to `j` raises exactly `M`
//! counts by one (each draw's candidate at rank `j`), so the counts are kept up to date as they
//! grow, and the open units are filed by count in bitsets: the pick is the lowest set bit of the
//! highest non-empty count. An item then costs `M·K` small updates instead of `K²` sums, and its
//! working memory is `(M + 1)·K` bits instead of `K²` counters (4 MB at K = 1000).

use super::DrawOrder;

/// Open units filed by their count: for each count `0..=M`, a bitset of units (`words` `u64`s),
/// and one more bitset, the sink, that chosen units are moved about in so that an update needs
/// no branch on whether its unit is still open (which a processor guesses wrong half the time).
/// Emptiness and the lowest member of a count are found by scanning its `K / 64` words (16 at
/// K = 1000) once a step, rather than keeping sizes up to date at every update.
struct Buckets {
    words: usize,
    bits: Vec<u64>,
    sink: usize,
}

impl Buckets {
    /// Every one of `k` units open with count 0, counts up to `m`.
    fn new(k: usize, m: usize) -> Self {
        let words = k.div_ceil(64);
        let mut b = Buckets { words, bits: vec![0; (m + 2) * words], sink: m + 1 };
        for c in 0..k {
            b.insert(0, c);
        }
        b
    }

    #[inline]
    fn insert(&mut self, count: usize, c: usize) {
        self.bits[count * self.words + c / 64] |= 1 << (c % 64);
    }

    #[inline]
    fn remove(&mut self, count: usize, c: usize) {
        self.bits[count * self.words + c / 64] &= !(1 << (c % 64));
    }

    /// The lowest unit filed under `count`, if any.
    fn lowest(&self, count: usize) -> Option<usize> {
        let row = &self.bits[count * self.words..(count + 1) * self.words];
        let (w, &bits) = row.iter().enumerate().find(|(_, &x)| x != 0)?;
        Some(w * 64 + bits.trailing_zeros() as usize)
    }
}

/// Each candidate's 1-based greedy step for `item` of `order`: what the count-table greedy
/// gives, step for step.
pub(super) fn steps(order: &DrawOrder, item: usize) -> Vec<u32> {
    let (m, k) = (order.m(), order.k());
    let rows: Vec<&[u16]> = (0..m).map(|d| order.get(item, d)).collect();
    // Each unit's bucket: its count while open, the sink once chosen.
    let mut at = vec![0usize; k];
    let mut step = vec![0u32; k];
    let mut buckets = Buckets::new(k, m);
    let sink = buckets.sink;
    let mut top = 0;
    for j in 0..k {
        for row in &rows {
            let c = row[j] as usize;
            let (from, open) = (at[c], at[c] != sink);
            let to = if open { from + 1 } else { from };
            buckets.remove(from, c);
            buckets.insert(to, c);
            at[c] = to;
            top = top.max(if open { to } else { 0 });
        }
        // Some unit is open while j < K, so a non-empty count exists at or below `top`.
        let mut pick = buckets.lowest(top);
        while pick.is_none() && top > 0 {
            top -= 1;
            pick = buckets.lowest(top);
        }
        if let Some(c) = pick {
            buckets.remove(top, c);
            buckets.insert(sink, c);
            at[c] = sink;
            step[c] = j as u32 + 1;
        }
    }
    step
}
