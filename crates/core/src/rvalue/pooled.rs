//! The pooled-calibration nonparametric r-value (docs/method.md §4), the authors' released method.
//!
//! For a test item the units are the `n` calibration items' true-label draw vectors followed by
//! the test item's `K` candidates (`U = n + K`); every draw ranks all `U` units and the nested
//! greedy of §3 runs over them. The calibration units are the same for every test item, so their
//! per-draw order is sorted once per split; a test item then only merges its `K` candidates into
//! it and runs the greedy on counts with a blocked maximum: `O(M·U)` count updates and cheap
//! picks per item instead of the `O(U²)` of counting every rank.

use super::nonparametric::{desc_key, DrawOrder};
use super::ties::{by_rank, Ties};
use crate::quantile::k_star;
use crate::tensor::ScoreTensor;
use crate::{Error, Result};
use codes::DrawEntry;
use greedy::WILD;
use picks::BLOCK;
use table::PAD;

/// The outcome of the greedy for one test item: enough to form its set at any α.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PooledItem {
    /// Number of units `U = n + K`.
    pub units: u32,
    /// 1-based selection step of each candidate; its r-value is `step/U`.
    pub cand_step: Vec<u32>,
    /// Selection steps of the calibration units in selection order (increasing).
    pub cal_steps: Vec<u32>,
    /// The calibration unit (its index among the split's calibration items) chosen at each of
    /// `cal_steps`: per-class calibration groups the steps by the units' classes.
    pub cal_units: Vec<u32>,
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

/// Counts are `i16`, so that the greedy's maxima and compares take eight lanes at a time.
pub const MAX_DRAWS: usize = i16::MAX as usize;

/// A split's table size above which its entry tables take one bucket per score instead of two.
const LARGE_TABLES: usize = 512 << 20;

/// A calibration set prepared for pooled r-values: per draw, the calibration units sorted by
/// their true-label score (descending, ties to the lower unit index), and the tie order that
/// places each test item's candidates among them ([`Ties`]).
///
/// Inside the greedy, calibration unit `j` has id `j` and the candidate of rank `r` in the ties'
/// candidate order has id `cb + r`, `cb` = `n` rounded up to whole blocks: the candidates' counts
/// then fill blocks of their own, so a pick can ask whether any candidate ties the best count
/// from the block maxima alone.
#[derive(Debug, Clone)]
pub struct PooledSplit {
    n: usize,
    m: usize,
    k: usize,
    /// The first candidate id.
    cb: usize,
    ties: Ties,
    /// `[draw][rank]` scores, descending, each draw's followed by [`PAD`] times `−∞`.
    cal_scores: Vec<f64>,
    /// `[draw][rank]` calibration unit indices, then `WILD` spare entries.
    cal_units: Vec<u32>,
    /// `cal_units` as `u16` where every unit and candidate id fits, for the greedy
    /// ([`greedy::UnitId`]).
    narrow: Option<Vec<u16>>,
    /// Per draw, where candidates' scores enter its calibration order.
    entry: Vec<DrawEntry>,
    /// Per unit, its ranks in the draws' orders, for the frontier greedy (splits of at least
    /// [`FRONTIER_DRAWS`] draws).
    #[cfg(not(target_arch = "wasm32"))]
    lists: Option<lists::UnitLists>,
}

/// Draws from which a split keeps its units' lists and runs the frontier greedy
/// ([`frontier`]): with fewer, counting every draw costs little and the lists' memory is
/// not worth it.
const FRONTIER_DRAWS: usize = 64;

/// Whether a split of `n` units of `m` draws keeps its units' lists (their ranks are `u16`).
/// The page (wasm) counts every draw: the frontier's code would pass its size budget, and its
/// gain rests on prefetches wasm does not have; the picks are the same either way.
fn keeps_lists(n: usize, m: usize) -> bool {
    cfg!(not(target_arch = "wasm32")) && m >= FRONTIER_DRAWS && n <= 1 << 16
}

/// Per draw, the `n` units' scores sorted descending (ties to the lower unit) followed by
/// [`PAD`] times `−∞`, and the units in that order: `[draw][rank]`.
fn sorted_draws(n: usize, m: usize, score: impl Fn(usize, usize) -> f64) -> (Vec<f64>, Vec<u32>) {
    // A few draws' scores gathered at once, unit by unit: true draws store each unit's draws
    // together, so this reads whole cache lines where one draw at a time read a score a line.
    const GATHER: usize = 8;
    let mut cal_scores = Vec::with_capacity((n + PAD) * m);
    let mut cal_units = Vec::with_capacity(n * m + WILD);
    let (mut columns, mut idx, mut words, mut wide) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for d0 in (0..m).step_by(GATHER) {
        let w = GATHER.min(m - d0);
        columns.clear();
        columns.resize(n * w, 0.0);
        for j in 0..n {
            for dd in 0..w {
                columns[dd * n + j] = score(j, d0 + dd);
            }
        }
        for column in columns.chunks_exact(n) {
            sort_column(column, &mut idx, &mut words, &mut wide);
            cal_scores.extend(idx.iter().map(|&j| column[j as usize]));
            cal_scores.extend([f64::NEG_INFINITY; PAD]);
            cal_units.extend_from_slice(&idx);
        }
    }
    (cal_scores, cal_units)
}

/// The units `0..n` of one draw (`column`, finite scores) in descending order of score, ties to
/// the lower unit, into `idx`: one integer sort of `(key, unit)` words ([`desc_key`]), several
/// times faster than comparing floats through a closure. Single-precision scores (every score
/// from a float16 or float32 file) leave their keys' low 29 bits all equal, room for the unit
/// in a `u64`; other scores take a `u128`.
pub(super) fn sort_column(column: &[f64], idx: &mut Vec<u32>, words: &mut Vec<u64>, wide: &mut Vec<u128>) {
    const UNIT_BITS: u32 = 29;
    idx.clear();
    if column.len() < 1 << UNIT_BITS && column.iter().all(|&x| f64::from(x as f32) == x) {
        words.clear();
        let key = |x: f64| desc_key(x) >> UNIT_BITS << UNIT_BITS;
        words.extend(column.iter().enumerate().map(|(j, &x)| key(x) | j as u64));
        words.sort_unstable();
        idx.extend(words.iter().map(|&w| (w & ((1 << UNIT_BITS) - 1)) as u32));
    } else {
        wide.clear();
        wide.extend(column.iter().enumerate().map(|(j, &x)| u128::from(desc_key(x)) << 64 | j as u128));
        wide.sort_unstable();
        idx.extend(wide.iter().map(|&w| w as u32));
    }
}

fn check_items(t: &ScoreTensor, labels: &[usize], cal_items: &[usize]) -> Result<()> {
    if labels.len() != t.n() {
        return Err(Error::length("labels", labels.len(), format!("{} items", t.n())));
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
    /// Prepares the calibration items `cal_items` (unit `j` is `cal_items[j]`), with `ties`
    /// breaking ties between units.
    pub fn new(t: &ScoreTensor, labels: &[usize], cal_items: &[usize], ties: Ties) -> Result<Self> {
        check_items(t, labels, cal_items)?;
        let score = |j: usize, d: usize| t.get(cal_items[j], d, labels[cal_items[j]]);
        PooledSplit::from_fn(cal_items.len(), t.m(), t.k(), ties, score)
    }

    /// [`PooledSplit::new`] from the calibration units alone: `draws[j][d]`, unit `j`'s true-label
    /// score in draw `d` (`m` per unit), for test items of `k` candidates. The same split, bit for
    /// bit, as `new` on a tensor whose calibration items' true labels hold these scores.
    pub fn from_draws(draws: &[f64], m: usize, k: usize, ties: Ties) -> Result<Self> {
        if m == 0 || k == 0 || draws.is_empty() || !draws.len().is_multiple_of(m) {
            return Err(Error::invalid(format!(
                "pooled r-values need at least one calibration unit of M = {m} draws and K = {k} ≥ 1 \
                 candidates (got {} scores)",
                draws.len()
            )));
        }
        if let Some(i) = draws.iter().position(|x| !x.is_finite()) {
            return Err(Error::invalid(format!(
                "calibration score [{}][{}] is {} (scores must be finite)",
                i / m,
                i % m,
                draws[i]
            )));
        }
        PooledSplit::from_fn(draws.len() / m, m, k, ties, |j, d| draws[j * m + d])
    }

    /// The split of `n` units of `m` draws, unit `j`'s score in draw `d` being `score(j, d)`,
    /// finite (the caller's data was checked when it was read).
    pub fn from_fn(
        n: usize,
        m: usize,
        k: usize,
        ties: Ties,
        score: impl Fn(usize, usize) -> f64,
    ) -> Result<Self> {
        if n.next_multiple_of(BLOCK) + k > u32::MAX as usize {
            return Err(Error::invalid("too many units"));
        }
        if m >= MAX_DRAWS {
            return Err(Error::invalid(format!(
                "pooled r-values support at most {} draws (M = {m})",
                MAX_DRAWS - 1
            )));
        }
        let (cal_scores, mut cal_units) = sorted_draws(n, m, score);
        let per_score = PooledSplit::buckets_per_score(n, m);
        let entry = cal_scores.chunks_exact(n + PAD).map(|s| DrawEntry::new(&s[..n], per_score)).collect();
        cal_units.resize(n * m + WILD, 0);
        let cb = n.next_multiple_of(BLOCK);
        let narrow = (cb + k <= 1 << 16).then(|| cal_units.iter().map(|&j| j as u16).collect());
        #[cfg(not(target_arch = "wasm32"))]
        let lists = keeps_lists(n, m).then(|| lists::UnitLists::new(&cal_units, n, m, k));
        Ok(PooledSplit {
            n,
            m,
            k,
            cb,
            ties,
            cal_scores,
            cal_units,
            narrow,
            entry,
            #[cfg(not(target_arch = "wasm32"))]
            lists,
        })
    }

    /// The bytes a split of `n` units of `m` draws holds at most (sorted scores, unit indices in
    /// two widths and entry tables: about 30 bytes per unit and draw, 26 with one bucket per
    /// score; float16 true draws' value tables take less; the frontier greedy's unit lists 4
    /// more), for sizing how many splits run at once.
    pub fn bytes_for(n: usize, m: usize) -> usize {
        let lists = if keeps_lists(n, m) { 4 } else { 0 };
        let per_unit_draw = 22 + 4 * PooledSplit::buckets_per_score(n, m) + lists;
        n.saturating_add(PAD).saturating_mul(m).saturating_mul(per_unit_draw)
    }

    /// Entry buckets per calibration score: two, as the lookups were tuned with, unless a
    /// split's tables would pass [`LARGE_TABLES`]; there one bucket per score saves a seventh of
    /// the memory at no measurable cost in time (docs/performance.md, pooled r-values).
    pub(super) fn buckets_per_score(n: usize, m: usize) -> usize {
        if n.saturating_add(PAD).saturating_mul(m).saturating_mul(28) > LARGE_TABLES {
            1
        } else {
            2
        }
    }

    pub fn n_cal(&self) -> usize {
        self.n
    }

    /// Candidates per item.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The tie order this split's items are ranked with.
    pub fn ties(&self) -> Ties {
        self.ties
    }

    /// Draw `d`'s calibration scores in their sorted order (descending, ties to the lower unit)
    /// and the units in that order: what a device ranking test items against the units needs,
    /// without sorting them again.
    pub fn calibration_order(&self, d: usize) -> (&[f64], &[u32]) {
        let (n, at) = (self.n, d * (self.n + PAD));
        (&self.cal_scores[at..at + n], &self.cal_units[d * n..(d + 1) * n])
    }

    /// This split with its units' lists whatever its draws: tests run the frontier greedy on
    /// splits of few draws.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(super) fn with_unit_lists(mut self) -> Self {
        self.lists = Some(lists::UnitLists::new(&self.cal_units, self.n, self.m, self.k));
        self
    }

    /// Draws per unit.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The candidate ranks and places by rank ([`Ties::order`]) of the test item keyed `item`
    /// ([`Ties::item_key`]) into `work`'s slot `b`.
    fn candidate_order(&self, item: u64, b: usize, work: &mut Workspace) {
        let at = b * self.k..(b + 1) * self.k;
        self.ties.order(item, self.n, &mut work.place[at.clone()], &mut work.rank[at.clone()]);
        by_rank(&work.rank[at.clone()], &mut work.by_rank[at]);
    }

    /// Makes room in `work` for `items` items' candidate orders and draw rows.
    fn reserve(&self, items: usize, work: &mut Workspace) {
        let (m, k) = (self.m, self.k);
        work.ord.resize(items * m * k, 0);
        work.entries.resize(items * m * k, 0);
        work.place.resize(items * k, 0);
        work.by_rank.resize(items * k, 0);
        work.rank.resize(items * k, 0);
        work.sorted.resize(k, 0.0);
        work.starts.resize(k, 0);
    }

    /// Runs the greedy for one test item. `order` (from [`DrawOrder::of`]) saves re-sorting.
    pub fn item(
        &self,
        t: &ScoreTensor,
        item: usize,
        order: Option<&DrawOrder>,
        work: &mut Workspace,
    ) -> PooledItem {
        self.entry_points(t, std::slice::from_ref(&item), 0, order, work);
        self.greedy(0, work)
    }

    /// [`PooledSplit::item`] for each of `items`, with the same results. The candidates' entry
    /// points are found draw by draw across the batch, so that each draw's calibration scores
    /// and entry table are fetched into the cache once per batch instead of once per item.
    pub fn items(
        &self,
        t: &ScoreTensor,
        items: &[usize],
        order: Option<&DrawOrder>,
        work: &mut Workspace,
    ) -> Vec<PooledItem> {
        self.items_at(t, items, 0, order, work)
    }

    /// [`PooledSplit::items`] for a block of a larger data set: `t` holds its items from `first`
    /// on, `items` index `t`, and each item's tie order is keyed by its place in the whole data
    /// set (`first + item`) or its content, so the results are those of `items` on the whole
    /// tensor.
    pub fn items_at(
        &self,
        t: &ScoreTensor,
        items: &[usize],
        first: usize,
        order: Option<&DrawOrder>,
        work: &mut Workspace,
    ) -> Vec<PooledItem> {
        self.entry_points(t, items, first, order, work);
        (0..items.len()).map(|b| self.greedy(b, work)).collect()
    }

    /// [`PooledSplit::item`] for the test item keyed `item` ([`Ties::item_key`]) whose
    /// candidates' positions among the `U` units of
    /// each draw (`[M][K]`, 0-based, candidates in index order) were found elsewhere: the GPU
    /// path. Sorted, the positions give the candidates' order, and a position less the number of
    /// candidates before it is the entry point. Positions that collide or fall outside `0..U`,
    /// which only a faulty device could produce, are an error rather than a wrong answer.
    pub fn item_from_positions(&self, item: u64, pos: &[u32], work: &mut Workspace) -> Result<PooledItem> {
        let (n, m, k) = (self.n, self.m, self.k);
        if pos.len() != m * k {
            return Err(Error::length("positions", pos.len(), format!("{m} draws × {k} candidates")));
        }
        self.reserve(1, work);
        self.candidate_order(item, 0, work);
        for (d, p) in pos.chunks_exact(k).enumerate() {
            let ord = &mut work.ord[d * k..(d + 1) * k];
            ord.iter_mut().enumerate().for_each(|(c, o)| *o = c as u16);
            ord.sort_unstable_by_key(|&c| p[c as usize]);
            let sorted = ord.iter().map(|&c| p[c as usize] as usize);
            // Strictly increasing and below U, so every entry point is in `0..=n`, nondecreasing.
            if sorted.clone().zip(sorted.clone().skip(1)).any(|(a, b)| a >= b)
                || p.iter().any(|&x| x as usize >= n + k)
            {
                return Err(Error::invalid(format!("inconsistent unit positions in draw {d}")));
            }
            for (i, (e, at)) in work.entries[d * k..(d + 1) * k].iter_mut().zip(sorted).enumerate() {
                *e = (at - i) as u32;
            }
            ord.iter_mut().for_each(|c| *c = work.rank[*c as usize]);
        }
        Ok(self.greedy(0, work))
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod bounds;
mod codes;
mod entries16;
#[cfg(not(target_arch = "wasm32"))]
mod frontier;
mod greedy;
#[cfg(not(target_arch = "wasm32"))]
mod lists;
mod oracle;
mod picks;
#[cfg(target_arch = "x86_64")]
mod register_picks;
#[cfg(not(target_arch = "wasm32"))]
mod shifts;
mod simd;
mod table;

pub use greedy::Workspace;
pub use oracle::pooled_item_oracle;

#[cfg(test)]
mod bounds_tests;
#[cfg(test)]
mod frontier_tests;
#[cfg(test)]
pub(crate) mod tests;
