//! The nonparametric r-value of one item from its draws (docs/method.md §3).
//!
//! Each draw ranks the item's K candidates; `count[k][j]` is how many draws put candidate `k`
//! in the top `j`, an estimate of `V_{j/K}(k)·M`. The nested greedy turns counts into r-values.

use crate::tensor::{ScoreTensor, Scores};
use crate::{Error, Result};

mod buckets;
mod lanes;
#[cfg(target_arch = "x86_64")]
mod network;
mod radix;
pub(crate) use radix::{desc_key16, sort_keyed16};

/// Sorts candidate indices by score, descending, ties to the lower index (docs/method.md §3's rank).
pub fn sort_desc(scores: &[f64], out: &mut [u16]) {
    sort_desc_with(scores, out, &mut SortScratch::default());
}

/// Reusable buffers for [`sort_desc_with`].
#[derive(Debug, Default)]
pub struct SortScratch {
    wide: Vec<u128>,
    packed: Vec<u64>,
    spare: Vec<u64>,
    packed16: Vec<u32>,
    spare16: Vec<u32>,
    narrow: Vec<f32>,
    #[cfg(target_arch = "x86_64")]
    network: network::Buffers,
}

/// A `u64` whose unsigned order is the descending order of finite scores (`−0` ties `+0`).
#[inline]
pub(crate) fn desc_key(x: f64) -> u64 {
    let x = if x == 0.0 { 0.0 } else { x };
    let b = x.to_bits();
    let ascending = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    !ascending
}

/// [`sort_desc`] with reusable buffers. Single-precision scores (all that came from float32 or
/// float16 files, as model outputs do) take a radix sort of 32-bit keys (`radix`): a few
/// counting passes instead of comparisons, just as exact. Otherwise one integer
/// sort of `(key, index)` packed in a `u128`, several times faster than comparing floats through
/// a closure; when every score's low 16 bits are zero the index fits in those bits of a `u64`
/// instead, half the bytes to sort: keys then differ in their high bits or not at all.
pub fn sort_desc_with(scores: &[f64], out: &mut [u16], scratch: &mut SortScratch) {
    if radix::single_precision(scores) {
        let mut narrow = std::mem::take(&mut scratch.narrow);
        narrow.clear();
        narrow.extend(scores.iter().map(|&x| x as f32));
        sort_desc_f32(&narrow, out, scratch);
        scratch.narrow = narrow;
        return;
    }
    if scores.len() <= 1 << 16 && scores.iter().all(|x| x.to_bits() & 0xffff == 0) {
        let packed = &mut scratch.packed;
        packed.clear();
        packed.extend(scores.iter().enumerate().map(|(i, &x)| (desc_key(x) & !0xffff) | i as u64));
        packed.sort_unstable();
        for (o, &key) in out.iter_mut().zip(packed.iter()) {
            *o = key as u16;
        }
        return;
    }
    let keys = &mut scratch.wide;
    keys.clear();
    keys.extend(scores.iter().enumerate().map(|(i, &x)| (desc_key(x) as u128) << 32 | i as u128));
    keys.sort_unstable();
    for (o, &key) in out.iter_mut().zip(keys.iter()) {
        *o = key as u16;
    }
}

/// [`sort_desc_with`] of scores in their stored type: float32 and float16 scores go to the radix
/// sort as they are, without a round trip through f64 and the check that it was exact, float16
/// ones on their 16-bit keys.
pub(crate) fn sort_stored_desc(
    scores: Scores<'_>,
    out: &mut [u16],
    scratch: &mut SortScratch,
    buf: &mut Vec<f64>,
) {
    match scores {
        Scores::F32(s) if s.len() <= 1 << 16 => sort_desc_f32(s, out, scratch),
        Scores::F16(s) if s.len() <= 1 << 16 => {
            radix::sort_desc16(s, out, &mut scratch.packed16, &mut scratch.spare16)
        }
        other => sort_desc_with(other.widened(buf), out, scratch),
    }
}

/// The order of [`sort_desc`] for at most 2^16 `f32` scores: by the AVX-512 network
/// (`network`) where the CPU has it and K is at most 4096, else by the radix sort.
fn sort_desc_f32(scores: &[f32], out: &mut [u16], scratch: &mut SortScratch) {
    #[cfg(target_arch = "x86_64")]
    if network::usable(scores.len()) {
        // SAFETY: `usable` checked the CPU's features and the length.
        unsafe { network::sort_desc32(scores, out, &mut scratch.network) };
        return;
    }
    radix::sort_desc32(scores.iter().copied(), out, &mut scratch.packed, &mut scratch.spare);
}

/// Every draw's candidate order, computed once per tensor and shared by the nonparametric and
/// pooled r-values (sorting is most of their cost, and it does not depend on the split).
#[derive(Debug, Clone)]
pub struct DrawOrder {
    m: usize,
    k: usize,
    order: Vec<u16>,
}

/// The largest K the u16 candidate orders can hold.
pub const MAX_CANDIDATES: usize = u16::MAX as usize + 1;

impl DrawOrder {
    pub fn of(t: &ScoreTensor) -> Result<Self> {
        DrawOrder::of_items(t, 0..t.n())
    }

    /// The orders of `items` only, item `items.start` first (as item 0): a caller that needs
    /// each item's orders once keeps a block in memory instead of the whole tensor's, which at
    /// two bytes a score is half the size of an f32 tensor.
    pub fn of_items(t: &ScoreTensor, items: std::ops::Range<usize>) -> Result<Self> {
        let (m, k) = (t.m(), t.k());
        check_candidates(k)?;
        let mut order = vec![0u16; items.len() * m * k];
        let (mut scratch, mut buf) = (SortScratch::default(), Vec::new());
        for (row, out) in order.chunks_exact_mut(k).enumerate() {
            sort_stored_desc(t.draw_scores(items.start + row / m, row % m), out, &mut scratch, &mut buf);
        }
        Ok(DrawOrder { m, k, order })
    }

    /// Every draw's candidates of `item`, best first, draw after draw (`M·K`).
    #[inline]
    pub(crate) fn item(&self, item: usize) -> &[u16] {
        let size = self.m * self.k;
        &self.order[item * size..(item + 1) * size]
    }

    /// Candidates of `item` in draw `draw`, best first.
    #[inline]
    pub fn get(&self, item: usize, draw: usize) -> &[u16] {
        let start = (item * self.m + draw) * self.k;
        &self.order[start..start + self.k]
    }

    pub fn k(&self) -> usize {
        self.k
    }
    pub fn m(&self) -> usize {
        self.m
    }
}

/// Refuses more candidates than the u16 orders can hold.
fn check_candidates(k: usize) -> Result<()> {
    if k > MAX_CANDIDATES {
        return Err(Error::invalid(format!("K = {k} candidates; ranking supports at most {MAX_CANDIDATES}")));
    }
    Ok(())
}

/// `count[c·K + (j − 1)] = #{draws : rank(c) ≤ j}` from each draw's candidate order.
pub fn rank_counts<'a>(orders: impl IntoIterator<Item = &'a [u16]>, k: usize) -> Vec<u32> {
    let mut count = vec![0u32; k * k];
    for order in orders {
        for (rank, &c) in order.iter().enumerate() {
            count[c as usize * k + rank] += 1;
        }
    }
    for row in count.chunks_exact_mut(k) {
        for j in 1..k {
            row[j] += row[j - 1];
        }
    }
    count
}

/// The nested greedy: for `j = 1..U` pick, among units not yet chosen, the one with the largest
/// `count[·][j]` (ties to the lower index). Returns each unit's 1-based step; its r is `step/U`.
pub fn nested_greedy(count: &[u32], units: usize) -> Vec<u32> {
    greedy(units, |c, j| count[c * units + j])
}

/// The greedy over any count layout. The units not yet chosen are kept in a list in index
/// order (removal keeps the order), so a step scans only them and ties go to the lower index.
fn greedy(units: usize, at: impl Fn(usize, usize) -> u32) -> Vec<u32> {
    let mut step = vec![0u32; units];
    let mut open: Vec<u32> = (0..units as u32).collect();
    for j in 0..units {
        let (mut best, mut best_v) = (0usize, 0u32);
        for (p, &c) in open.iter().enumerate() {
            let v = at(c as usize, j);
            if p == 0 || v > best_v {
                best = p;
                best_v = v;
            }
        }
        if let Some(c) = open.get(best).copied() {
            step[c as usize] = j as u32 + 1;
            open.remove(best);
        }
    }
    step
}

/// Nonparametric r-values (`step/K`) of one item's candidates from its `M × K` scores.
pub fn nonparametric(item_scores: &[f64], m: usize, k: usize) -> Vec<f64> {
    let mut order = vec![0u16; m * k];
    for (d, out) in order.chunks_exact_mut(k).enumerate() {
        sort_desc(&item_scores[d * k..(d + 1) * k], out);
    }
    nonparametric_from_counts(&rank_counts(order.chunks_exact(k), k), k)
}

/// Nonparametric r-values (`step/K`) of one item from its cumulative counts `[K][K]`
/// ([`rank_counts`], or the GPU's).
pub fn nonparametric_from_counts(count: &[u32], k: usize) -> Vec<f64> {
    steps_to_r(&nested_greedy(count, k))
}

/// Nonparametric r-values of one item from precomputed draw orders: the nested greedy on counts
/// kept up to date step by step, `M·K` updates instead of a `K × K` table.
pub fn nonparametric_from_order(order: &DrawOrder, item: usize) -> Vec<f64> {
    steps_to_r(&greedy_steps(order, item, &mut Vec::new()))
}

/// The greedy's steps for `item` of `order`: on `i16` counts with vector picks (`lanes`) where
/// the sizes allow, else on bucketed counts; `counts` is a reusable buffer.
fn greedy_steps(order: &DrawOrder, item: usize, counts: &mut Vec<i16>) -> Vec<u32> {
    if lanes::usable(order.m(), order.k()) {
        lanes::steps(order, item, counts)
    } else {
        buckets::steps(order, item)
    }
}

/// Nonparametric r-values `[items][K]` of `items` of `t`, each item's draws sorted just before
/// the greedy reads them: one item's orders (`M·K` u16s, 200 kB at M = 100, K = 1000) are still
/// in cache then, where a block of items' orders, sorted first, had gone out to memory and came
/// back a cache line at a time for each of the `M` draws.
pub fn nonparametric_items(t: &ScoreTensor, items: std::ops::Range<usize>) -> Result<Vec<f64>> {
    let (m, k) = (t.m(), t.k());
    check_candidates(k)?;
    let mut one = DrawOrder { m, k, order: vec![0u16; m * k] };
    let (mut scratch, mut buf, mut counts) = (SortScratch::default(), Vec::new(), Vec::new());
    let mut out = Vec::with_capacity(items.len() * k);
    for i in items {
        for (d, row) in one.order.chunks_exact_mut(k).enumerate() {
            sort_stored_desc(t.draw_scores(i, d), row, &mut scratch, &mut buf);
        }
        out.extend(steps_to_r(&greedy_steps(&one, 0, &mut counts)));
    }
    Ok(out)
}

/// [`nonparametric_from_order`] through the whole count table, built rank-major (`[j][c]`): the
/// greedy as the method states it, which the bucketed one must equal step for step.
#[cfg(test)]
fn nonparametric_from_table(order: &DrawOrder, item: usize) -> Vec<f64> {
    let k = order.k();
    let mut count = vec![0u32; k * k];
    for d in 0..order.m() {
        for (rank, &c) in order.get(item, d).iter().enumerate() {
            count[rank * k + c as usize] += 1;
        }
    }
    for j in 1..k {
        let (done, rest) = count.split_at_mut(j * k);
        for (x, &prev) in rest[..k].iter_mut().zip(&done[(j - 1) * k..]) {
            *x += prev;
        }
    }
    steps_to_r(&greedy(k, |c, j| count[j * k + c]))
}

fn steps_to_r(steps: &[u32]) -> Vec<f64> {
    let u = steps.len() as f64;
    steps.iter().map(|&s| s as f64 / u).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn ranks_break_ties_to_the_lower_index() {
        let mut out = [0u16; 4];
        sort_desc(&[1.0, 3.0, 3.0, -0.0], &mut out);
        assert_eq!(out, [1, 2, 0, 3]);
        sort_desc(&[0.0, -0.0, 0.0, 0.0], &mut out);
        assert_eq!(out, [0, 1, 2, 3]);
    }

    #[test]
    fn keyed_sort_matches_a_comparison_sort() {
        let wide = [0.5, -1.0, f64::MAX, -0.0, 0.0, -f64::MAX, 0.5, 1e-300, -1e-300, 3.0, 0.1, 0.1 + 1e-17];
        // f32-valued scores take the packed path; include ties across signs and zeros.
        let narrow: Vec<f64> = [0.5f32, -1.0, 3.4e38, -0.0, 0.0, -3.4e38, 0.5, 1e-30, -1e-30, 3.0, 0.1, -0.5]
            .iter()
            .map(|&x| x as f64)
            .collect();
        for scores in [&wide[..], &narrow[..]] {
            let mut out = vec![0u16; scores.len()];
            sort_desc(scores, &mut out);
            let mut want: Vec<u16> = (0..scores.len() as u16).collect();
            want.sort_by(|&a, &b| {
                scores[b as usize].partial_cmp(&scores[a as usize]).unwrap().then(a.cmp(&b))
            });
            assert_eq!(out, want, "{scores:?}");
        }
    }

    /// Scores with many ties (a few distinct values, so counts tie often), in any width.
    fn tied_tensor(n: usize, m: usize, k: usize, levels: u64, seed: u64, single: bool) -> ScoreTensor {
        let mut s = seed | 1;
        let data = (0..n * m * k)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let x = (s % levels) as f64 - (levels / 2) as f64;
                if single {
                    x * 0.25
                } else {
                    x * 0.1
                }
            })
            .collect();
        ScoreTensor::new(n, m, k, data).unwrap()
    }

    #[test]
    fn the_greedies_equal_the_count_table() {
        let small =
            (0..40).map(|seed| (1 + seed as usize % 9, 1 + seed as usize * 7 % 23, 2 + seed % 4, seed));
        let large = [
            (7, 65, 3, 3),
            (40, 130, 5, 4),
            (5, 4100, 50, 5),
            (3, 4096, 7, 8),
            (200, 70, 1000, 6),
            (9, 1, 2, 7),
        ];
        for (m, k, levels, seed) in small.chain(large) {
            let t = tied_tensor(2, m, k, levels, seed, seed % 2 == 0);
            let order = DrawOrder::of(&t).unwrap();
            for item in 0..2 {
                let table = nonparametric_from_table(&order, item);
                assert_eq!(nonparametric_from_order(&order, item), table, "M={m} K={k}");
                // Both greedies, and the lanes' portable pick, whichever the sizes would take.
                assert_eq!(steps_to_r(&buckets::steps(&order, item)), table, "M={m} K={k}");
                assert_eq!(steps_to_r(&lanes::steps_portable(&order, item)), table, "M={m} K={k}");
            }
            // Sorted an item at a time: the same steps.
            let table: Vec<f64> = (0..2).flat_map(|item| nonparametric_from_table(&order, item)).collect();
            assert_eq!(nonparametric_items(&t, 0..2).unwrap(), table, "M={m} K={k}");
        }
    }

    #[test]
    fn the_radix_sort_equals_the_comparison_sort() {
        for (k, levels, seed) in
            [(1, 2, 1), (2, 2, 2), (300, 7, 3), (1000, 1 << 20, 4), (1000, 1 << 40, 6), (5000, 100, 5)]
        {
            let t = tied_tensor(1, 1, k, levels, seed, true);
            let scores = t.data().into_owned();
            let mut out = vec![0u16; k];
            sort_desc(&scores, &mut out);
            let mut want: Vec<u16> = (0..k as u16).collect();
            want.sort_by(|&a, &b| {
                scores[b as usize].partial_cmp(&scores[a as usize]).unwrap().then(a.cmp(&b))
            });
            assert_eq!(out, want, "K={k}");
        }
    }

    #[test]
    fn both_count_layouts_agree() {
        // Scores with ties, through the precomputed orders and through the direct path.
        let scores: Vec<f64> = (0..7 * 6).map(|i| ((i * 37) % 5) as f64).collect();
        let t = ScoreTensor::new(1, 7, 6, scores.clone()).unwrap();
        let order = DrawOrder::of(&t).unwrap();
        assert_eq!(nonparametric_from_order(&order, 0), nonparametric(&scores, 7, 6));
    }

    #[test]
    fn hand_worked_item() {
        // 3 draws × 3 candidates.
        // draw 0: c0 > c1 > c2; draw 1: c1 > c0 > c2; draw 2: c2 > c0 > c1.
        let s = [3.0, 2.0, 1.0, 2.0, 3.0, 1.0, 2.0, 1.0, 3.0];
        let mut order = [0u16; 9];
        for d in 0..3 {
            sort_desc(&s[d * 3..d * 3 + 3], &mut order[d * 3..d * 3 + 3]);
        }
        let count = rank_counts(order.chunks_exact(3), 3);
        // c0 top-1 in 1 draw, top-2 in 3; c1 top-1 in 1, top-2 in 2; c2 top-1 in 1, top-2 in 1.
        assert_eq!(count, vec![1, 3, 3, 1, 2, 3, 1, 1, 3]);
        // j=1: all tie at 1 → c0; j=2: c1 (2) beats c2 (1); j=3: c2.
        assert_eq!(nested_greedy(&count, 3), vec![1, 2, 3]);
        assert_eq!(nonparametric(&s, 3, 3), vec![1.0 / 3.0, 2.0 / 3.0, 1.0]);
    }

    #[test]
    fn unstable_candidate_is_penalised() {
        // c1 wins one draw in three by a lot but is last otherwise; c0 is always second or first.
        let s = [2.0, 1.0, 0.0, 2.0, 9.0, 0.0, 2.0, -5.0, 3.0];
        let r = nonparametric(&s, 3, 3);
        assert!(r[0] < r[1]);
    }
}
