//! The pooled-calibration nonparametric r-value (SPEC §4), the authors' released method.
//!
//! For a test item the units are the `n` calibration items' true-label draw vectors followed by
//! the test item's `K` candidates (`U = n + K`); every draw ranks all `U` units and the nested
//! greedy of §3 runs over them. The calibration units are the same for every test item, so their
//! per-draw order is sorted once per split; a test item then only merges its `K` candidates into
//! it and runs the greedy on counts with a blocked maximum: `O(M·U)` count updates and cheap
//! picks per item instead of the `O(U²)` of counting every rank.

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

/// Counts are `i16` (with one offset), so that the greedy's maxima vectorise everywhere.
pub const MAX_DRAWS: usize = i16::MAX as usize;

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
        if m >= MAX_DRAWS {
            return Err(Error::invalid(format!(
                "pooled r-values support at most {} draws (M = {m})",
                MAX_DRAWS - 1
            )));
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
            self.merge_draw(d, scores, ord, &mut work.merged[d * u..(d + 1) * u]);
        }
        let mut cand_step = vec![0u32; k];
        let mut cal_steps = Vec::with_capacity(n);
        for j in 0..u {
            // Step j: every draw's unit at position j enters that draw's top j.
            for d in 0..m {
                let x = work.merged[d * u + j] as usize;
                work.bump(x);
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

    /// Draw `d`'s ranking of all units: the calibration order with the item's candidates (best
    /// first in `ord`) merged in. Calibration units have the lower indices, so they win ties.
    fn merge_draw(&self, d: usize, scores: &[f64], ord: &[u16], out: &mut [u32]) {
        let n = self.n;
        let cal_s = &self.cal_scores[d * n..(d + 1) * n];
        let cal_u = &self.cal_units[d * n..(d + 1) * n];
        let (mut ci, mut pos) = (0, 0);
        for &c in ord {
            let score = scores[c as usize];
            let mut ge = ci;
            while ge < n && cal_s[ge] >= score {
                ge += 1;
            }
            out[pos..pos + ge - ci].copy_from_slice(&cal_u[ci..ge]);
            pos += ge - ci;
            out[pos] = (n + c as usize) as u32;
            pos += 1;
            ci = ge;
        }
        out[pos..].copy_from_slice(&cal_u[ci..]);
    }
}

/// Units per block of the greedy's max structure.
const BLOCK: usize = 64;

/// Scratch memory for [`PooledSplit::item`], reused across test items.
///
/// The greedy needs, at each step, the unchosen unit with the largest count (ties to the lower
/// index) while counts grow by one. Counts live in a flat array (`count + 1` for unchosen units,
/// `0` for chosen ones, so an increment needs no branch) with a running maximum per block of 64
/// units: an update is two stores, a pick scans the block maxima and one block.
#[derive(Debug, Default)]
pub struct Workspace {
    /// `[draw][position]` unit indices.
    merged: Vec<u32>,
    count: Vec<i16>,
    block_max: Vec<i16>,
}

impl Workspace {
    fn reset(&mut self, u: usize, m: usize) {
        self.merged.resize(u * m, 0);
        self.count.clear();
        self.count.resize(u, 1);
        self.block_max.clear();
        self.block_max.resize(u.div_ceil(BLOCK), 1);
    }

    #[inline]
    fn bump(&mut self, x: usize) {
        let c = self.count[x];
        let c = c + i16::from(c != 0);
        self.count[x] = c;
        let b = &mut self.block_max[x / BLOCK];
        *b = (*b).max(c);
    }

    /// Takes the unchosen unit with the largest count, lowest index among ties.
    fn pop_best(&mut self) -> usize {
        let best = self.block_max.iter().copied().max().unwrap_or(0);
        let block = self.block_max.iter().position(|&b| b == best).unwrap_or(0);
        let start = block * BLOCK;
        let end = (start + BLOCK).min(self.count.len());
        let x = start + self.count[start..end].iter().position(|&c| c == best).unwrap_or(0);
        self.count[x] = 0;
        self.block_max[block] = self.count[start..end].iter().copied().max().unwrap_or(0);
        x
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
pub(crate) mod tests;
