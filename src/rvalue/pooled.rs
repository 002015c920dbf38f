//! The pooled-calibration nonparametric r-value (SPEC §4), the authors' released method.
//!
//! For a test item the units are the `n` calibration items' true-label draw vectors followed by
//! the test item's `K` candidates (`U = n + K`); every draw ranks all `U` units and the nested
//! greedy of §3 runs over them. The calibration units are the same for every test item, so their
//! per-draw order is sorted once per split; a test item then only merges its `K` candidates into
//! it and runs the greedy with a bucket queue, `O(M·U)` per item instead of `O(U²)`.

use super::nonparametric::{nested_greedy, sort_desc, DrawOrder};
use crate::conformal::k_star;
use crate::tensor::ScoreTensor;
use crate::{Error, Result};
use std::cmp::Ordering;

/// The outcome of the greedy for one test item: enough to form its set at any α.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PooledItem {
    /// Number of units `U = n + K`.
    pub units: u32,
    /// 1-based selection step of each candidate; its r-value is `step/U`.
    pub cand_step: Vec<u32>,
    /// Selection steps of the calibration units in selection order (increasing).
    pub cal_steps: Vec<u32>,
}

impl PooledItem {
    /// The candidates' r-values `step/U`.
    pub fn rvalues(&self) -> Vec<f64> {
        let u = self.units as f64;
        self.cand_step.iter().map(|&s| s as f64 / u).collect()
    }

    /// The boundary as a step: that of the `k*`-th calibration unit chosen, or `U` if `k* > n`.
    pub fn boundary_step(&self, alpha: f64) -> u32 {
        let k = k_star(self.cal_steps.len(), alpha);
        if k > self.cal_steps.len() || k == 0 {
            self.units
        } else {
            self.cal_steps[k - 1]
        }
    }

    /// The boundary `b` on the r-value scale.
    pub fn boundary(&self, alpha: f64) -> f64 {
        self.boundary_step(alpha) as f64 / self.units as f64
    }

    /// The prediction set `{k : r_k ≤ b}` in candidate order.
    pub fn set(&self, alpha: f64) -> Vec<usize> {
        let b = self.boundary_step(alpha);
        (0..self.cand_step.len()).filter(|&c| self.cand_step[c] <= b).collect()
    }
}

/// A calibration set prepared for pooled r-values: per draw, the calibration units sorted by
/// their true-label score (descending, ties to the lower unit index).
#[derive(Debug, Clone)]
pub struct PooledSplit {
    n: usize,
    m: usize,
    k: usize,
    /// `[draw][rank]` scores, descending.
    cal_scores: Vec<f64>,
    /// `[draw][rank]` calibration unit indices.
    cal_units: Vec<u32>,
}

fn check_items(t: &ScoreTensor, labels: &[usize], cal_items: &[usize]) -> Result<()> {
    if labels.len() != t.n() {
        return Err(Error::shape(format!("{} labels for {} items", labels.len(), t.n())));
    }
    if cal_items.is_empty() {
        return Err(Error::invalid("pooled r-values need at least one calibration item"));
    }
    if let Some(&i) = cal_items.iter().find(|&&i| i >= t.n() || labels[i] >= t.k()) {
        return Err(Error::invalid(format!("calibration item {i} or its label is out of range")));
    }
    Ok(())
}

impl PooledSplit {
    /// Prepares the calibration items `cal_items` (unit `j` is `cal_items[j]`).
    pub fn new(t: &ScoreTensor, labels: &[usize], cal_items: &[usize]) -> Result<Self> {
        check_items(t, labels, cal_items)?;
        let (n, m, k) = (cal_items.len(), t.m(), t.k());
        if n + k > u32::MAX as usize {
            return Err(Error::invalid("too many units"));
        }
        let mut cal_scores = Vec::with_capacity(n * m);
        let mut cal_units = Vec::with_capacity(n * m);
        let mut idx: Vec<u32> = Vec::with_capacity(n);
        for d in 0..m {
            let score = |j: u32| t.get(cal_items[j as usize], d, labels[cal_items[j as usize]]);
            idx.clear();
            idx.extend(0..n as u32);
            idx.sort_unstable_by(|&a, &b| {
                score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal).then(a.cmp(&b))
            });
            cal_scores.extend(idx.iter().map(|&j| score(j)));
            cal_units.extend_from_slice(&idx);
        }
        Ok(PooledSplit { n, m, k, cal_scores, cal_units })
    }

    pub fn n_cal(&self) -> usize {
        self.n
    }

    /// Runs the greedy for one test item. `order` (from [`DrawOrder::of`]) saves re-sorting.
    pub fn item(
        &self,
        t: &ScoreTensor,
        item: usize,
        order: Option<&DrawOrder>,
        work: &mut Workspace,
    ) -> PooledItem {
        let (n, m, k) = (self.n, self.m, self.k);
        let u = n + k;
        work.reset(u, m);
        // Merge each draw's candidates into the calibration order: `merged[pos·M + draw]`.
        let mut own = vec![0u16; if order.is_some() { 0 } else { k }];
        for d in 0..m {
            let scores = t.draw(item, d);
            let ord: &[u16] = match order {
                Some(o) => o.get(item, d),
                None => {
                    sort_desc(scores, &mut own);
                    &own
                }
            };
            let cal_s = &self.cal_scores[d * n..(d + 1) * n];
            let cal_u = &self.cal_units[d * n..(d + 1) * n];
            let mut ci = 0;
            let mut pos = 0;
            for &c in ord {
                // Calibration units have lower indices, so they win ties.
                let ge = ci + cal_s[ci..].partition_point(|&s| s >= scores[c as usize]);
                for &cu in &cal_u[ci..ge] {
                    work.merged[pos * m + d] = cu;
                    pos += 1;
                }
                ci = ge;
                work.merged[pos * m + d] = (n + c as usize) as u32;
                pos += 1;
            }
            for &cu in &cal_u[ci..] {
                work.merged[pos * m + d] = cu;
                pos += 1;
            }
        }
        let mut cand_step = vec![0u32; k];
        let mut cal_steps = Vec::with_capacity(n);
        for j in 0..u {
            for d in 0..m {
                let x = work.merged[j * m + d];
                work.bump(x as usize);
            }
            let x = work.pop_best();
            if x < n {
                cal_steps.push(j as u32 + 1);
            } else {
                cand_step[x - n] = j as u32 + 1;
            }
        }
        PooledItem { units: u as u32, cand_step, cal_steps }
    }
}

/// Scratch memory for [`PooledSplit::item`], reused across test items.
///
/// The greedy needs, at each step, the unchosen unit with the largest count (ties to the lower
/// index) while counts only grow by one: units sit in one bitset per count value, with a summary
/// word per 64 words, so a move is two bit flips and a pick is two `trailing_zeros`.
#[derive(Debug, Default)]
pub struct Workspace {
    merged: Vec<u32>,
    count: Vec<u32>,
    chosen: Vec<bool>,
    words: usize,
    sum_words: usize,
    buckets: Vec<u64>,
    summary: Vec<u64>,
    top: usize,
}

impl Workspace {
    fn reset(&mut self, u: usize, m: usize) {
        self.merged.resize(u * m, 0);
        self.count.clear();
        self.count.resize(u, 0);
        self.chosen.clear();
        self.chosen.resize(u, false);
        self.words = u.div_ceil(64);
        self.sum_words = self.words.div_ceil(64);
        self.buckets.clear();
        self.buckets.resize((m + 1) * self.words, 0);
        self.summary.clear();
        self.summary.resize((m + 1) * self.sum_words, 0);
        for x in 0..u {
            self.buckets[x / 64] |= 1 << (x % 64);
        }
        for w in 0..self.words {
            self.summary[w / 64] |= 1 << (w % 64);
        }
        self.top = 0;
    }

    #[inline]
    fn bump(&mut self, x: usize) {
        if self.chosen[x] {
            return;
        }
        let c = self.count[x] as usize;
        self.count[x] += 1;
        self.remove(c, x);
        let (w, bit) = (x / 64, 1u64 << (x % 64));
        let b = (c + 1) * self.words + w;
        if self.buckets[b] == 0 {
            self.summary[(c + 1) * self.sum_words + w / 64] |= 1 << (w % 64);
        }
        self.buckets[b] |= bit;
        self.top = self.top.max(c + 1);
    }

    #[inline]
    fn remove(&mut self, c: usize, x: usize) {
        let (w, bit) = (x / 64, 1u64 << (x % 64));
        let b = c * self.words + w;
        self.buckets[b] &= !bit;
        if self.buckets[b] == 0 {
            self.summary[c * self.sum_words + w / 64] &= !(1 << (w % 64));
        }
    }

    fn pop_best(&mut self) -> usize {
        loop {
            let sums = &self.summary[self.top * self.sum_words..(self.top + 1) * self.sum_words];
            if let Some((sw, &s)) = sums.iter().enumerate().find(|(_, &s)| s != 0) {
                let w = sw * 64 + s.trailing_zeros() as usize;
                let x = w * 64 + self.buckets[self.top * self.words + w].trailing_zeros() as usize;
                self.remove(self.top, x);
                self.chosen[x] = true;
                return x;
            }
            // Unreachable while units remain: the caller pops exactly U times.
            if self.top == 0 {
                return usize::MAX;
            }
            self.top -= 1;
        }
    }
}

/// The plain `O(U²)` pooled r-value for one test item: rank all units in every draw, count,
/// run the greedy. Kept as the test oracle and the benchmark baseline.
pub fn pooled_item_oracle(
    t: &ScoreTensor,
    labels: &[usize],
    cal_items: &[usize],
    item: usize,
) -> Result<PooledItem> {
    check_items(t, labels, cal_items)?;
    let (n, m, k) = (cal_items.len(), t.m(), t.k());
    let u = n + k;
    let mut count = vec![0u32; u * u];
    let mut idx: Vec<usize> = (0..u).collect();
    for d in 0..m {
        let score = |x: usize| {
            if x < n {
                t.get(cal_items[x], d, labels[cal_items[x]])
            } else {
                t.get(item, d, x - n)
            }
        };
        idx.sort_by(|&a, &b| score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal).then(a.cmp(&b)));
        for (rank, &x) in idx.iter().enumerate() {
            count[x * u + rank] += 1;
        }
    }
    for row in count.chunks_exact_mut(u) {
        for j in 1..u {
            row[j] += row[j - 1];
        }
    }
    let step = nested_greedy(&count, u);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| step[x]);
    Ok(PooledItem {
        units: u as u32,
        cand_step: step[n..].to_vec(),
        cal_steps: order.iter().map(|&x| step[x]).collect(),
    })
}

#[cfg(test)]
mod tests;
