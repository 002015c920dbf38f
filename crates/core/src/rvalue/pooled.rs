//! The pooled-calibration nonparametric r-value (docs/method.md §4), the authors' released method.
//!
//! For a test item the units are the `n` calibration items' true-label draw vectors followed by
//! the test item's `K` candidates (`U = n + K`); every draw ranks all `U` units and the nested
//! greedy of §3 runs over them. The calibration units are the same for every test item, so their
//! per-draw order is sorted once per split; a test item then only merges its `K` candidates into
//! it and runs the greedy on counts with a blocked maximum: `O(M·U)` count updates and cheap
//! picks per item instead of the `O(U²)` of counting every rank.

use super::nonparametric::{desc_key, nested_greedy, sort_desc, DrawOrder};
use super::ties::{by_rank, order_equal_scores, Ties};
use crate::quantile::k_star;
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

/// Counts are `i16`, so that the greedy's maxima and compares take eight lanes at a time.
pub const MAX_DRAWS: usize = i16::MAX as usize;

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
    /// Per draw, where candidates' scores enter its calibration order.
    entry: Vec<EntryTable>,
}

/// Where a score enters one draw's descending calibration scores: the number of them `≥` it.
///
/// The first level is a table over equal-width score buckets, two per calibration score: where
/// scores spread evenly (logits, log-probabilities) nearly every bucket holds at most a couple
/// of them, and a candidate's bucket gives its entry point after a compare or two. Softmax
/// probabilities crowd instead (most near 0), and a crowded bucket would cost a long scan. So a
/// bucket holding more than [`PAD`] scores gets a [`Node`] that splits it further on each
/// score's order-preserving integer key ([`desc_key`]: ascending key, descending score), which
/// adapts to the scores themselves, whatever their scale: about two slots per key it holds, by
/// the top bits of the key's offset from its smallest key, recursively, and a run of equal
/// keys gets a two-slot node. Every leaf then holds at most [`PAD`] scores, compared at once.
///
/// Every level's slots are monotone in the score (the buckets are built with the lookup's own
/// [`EntryTable::bucket`]; a rounded subtraction, and a rounded product with a positive scale,
/// keep order) and a slot's start counts the scores in earlier slots, all above the one looked
/// up: a start never passes the entry point, and the next slot's start never falls short of
/// it. The answer is a count, so it is the same as any exact search's.
#[derive(Debug, Clone)]
struct EntryTable {
    top: f64,
    /// Buckets per unit of score; 0 when all scores are equal (one bucket).
    scale: f64,
    /// The last bucket's index, as a float for the range test.
    last: f64,
    /// The buckets' slots, then every node's, each level's followed by its end: a leaf's start
    /// (the number of calibration scores before it), or [`CHILD`] plus its node's index.
    slots: Vec<u32>,
    nodes: Vec<Node>,
}

/// A key range split into `last + 1` slots of `2^shift` keys from `lo`: slot `b` holds the keys
/// `k` with `⌊(k − lo)/2^shift⌋ = b`, the last slot also those beyond, slot 0 those below `lo`.
#[derive(Debug, Clone, Copy)]
struct Node {
    lo: u64,
    shift: u32,
    last: u32,
    first_slot: u32,
}

/// The flag of a slot that refers to a node rather than holding a leaf's start.
const CHILD: u32 = 1 << 31;

impl EntryTable {
    /// The table of `cal_s`, one draw's calibration scores, descending (at least one).
    fn new(cal_s: &[f64]) -> Self {
        let (top, bottom) = (cal_s[0], cal_s[cal_s.len() - 1]);
        let buckets = 2 * cal_s.len();
        let scale = buckets as f64 / (top - bottom);
        // Equal scores, or a range so wide or narrow that the scale is not finite: one bucket.
        let scale = if top > bottom && scale.is_finite() { scale } else { 0.0 };
        let mut table = EntryTable {
            top,
            scale,
            last: buckets as f64,
            slots: Vec::with_capacity(buckets + 2),
            nodes: Vec::new(),
        };
        let mut i = 0;
        for b in 0..=buckets {
            while i < cal_s.len() && table.bucket(cal_s[i]) < b {
                i += 1;
            }
            table.slots.push(i as u32);
        }
        table.slots.push(cal_s.len() as u32);
        let keys: Vec<u64> = cal_s.iter().map(|&s| desc_key(s)).collect();
        table.refine(&keys, 0, buckets);
        table
    }

    /// Gives each of the slots `first_slot..=last_slot` (one level's, followed by its end) that
    /// holds more than [`PAD`] keys a node of its own.
    fn refine(&mut self, keys: &[u64], first_slot: usize, last_slot: usize) {
        for b in first_slot..=last_slot {
            let (s, e) = (self.slots[b] as usize, self.slots[b + 1] as usize);
            if e - s > PAD {
                let child = self.add_node(keys, s, e);
                self.slots[b] = CHILD | child;
            }
        }
    }

    /// Adds the node over `keys[first..end]` (ascending) and its descendants; returns its index.
    fn add_node(&mut self, keys: &[u64], first: usize, end: usize) -> u32 {
        let (lo, hi) = (keys[first], keys[end - 1]);
        let at = self.nodes.len() as u32;
        let first_slot = self.slots.len() as u32;
        if lo == hi {
            // Equal keys: slot 0 takes the keys below theirs and starts before them, slot 1 their
            // own and those above and starts after them (a score equal to them enters after all
            // of them). Finite scores have positive keys, so `lo − 1` does not wrap.
            self.nodes.push(Node { lo: lo - 1, shift: 0, last: 1, first_slot });
            self.slots.extend([first as u32, end as u32, end as u32]);
            return at;
        }
        // About two slots per key, in a power-of-two width: `range >> shift < target`. Each
        // level narrows the range, down to slots of one key value each, so the recursion ends.
        let (range, target) = (hi - lo, 2 * (end - first) as u64);
        let shift = (0..63).find(|&s| range >> s < target).unwrap_or(63);
        let node = Node { lo, shift, last: (range >> shift) as u32, first_slot };
        self.nodes.push(node);
        let mut i = first;
        for b in 0..=node.last as usize {
            while i < end && node.slot(keys[i]) < b {
                i += 1;
            }
            self.slots.push(i as u32);
        }
        self.slots.push(end as u32);
        let base = first_slot as usize;
        self.refine(keys, base, base + node.last as usize);
        at
    }

    /// `⌊(top − score)·scale⌋` within `0..=buckets`; nondecreasing as `score` falls.
    #[inline(always)]
    fn bucket(&self, score: f64) -> usize {
        let x = (self.top - score) * self.scale;
        if x >= 0.0 && x < self.last {
            // SAFETY: `x` is finite and in `[0, last)`, so it truncates to a valid i64 (an
            // `as` cast adds a dozen instructions of saturation).
            unsafe { x.to_int_unchecked::<i64>() as usize }
        } else if x >= self.last {
            self.last as usize
        } else {
            // Below zero, or NaN (an infinite difference times a zero scale): the first bucket,
            // as for every score when the scale is zero.
            0
        }
    }

    /// The start of the leaf that `score` falls in: its bucket's, or its key's below a
    /// crowded bucket.
    #[inline(always)]
    fn leaf(&self, score: f64) -> usize {
        let s = self.slots[self.bucket(score)];
        if s & CHILD == 0 {
            return s as usize;
        }
        let key = desc_key(score);
        let mut node = self.nodes[(s & !CHILD) as usize];
        loop {
            let s = self.slots[node.first_slot as usize + node.slot(key)];
            if s & CHILD == 0 {
                return s as usize;
            }
            node = self.nodes[(s & !CHILD) as usize];
        }
    }

    /// Where each of `scores` (descending) enters `cal_s` (this table's draw, descending, then
    /// [`PAD`] times `−∞`): `entries[i]` = the number of calibration scores `≥ scores[i]`.
    fn entries(&self, cal_s: &[f64], scores: impl Iterator<Item = f64>, entries: &mut [u32]) {
        let n = cal_s.len() - PAD;
        let bottom = cal_s[n - 1];
        for (e, score) in entries.iter_mut().zip(scores) {
            // At or below every calibration score: after all of them (they win ties).
            *e = if score > bottom {
                // At most `PAD` calibration scores of the leaf follow its start: those `≥ score`
                // come first (they descend), so their number is the steps a scan would take,
                // and no compare waits on the one before. Starting from the leaf alone, rather
                // than from the previous candidate's entry too, keeps the candidates independent.
                let i = self.leaf(score);
                let next = &cal_s[i..i + PAD];
                let mut i = i + next.iter().map(|&c| usize::from(c >= score)).sum::<usize>();
                // The leaf's end stops this after one compare; the padding (`−∞`, below every
                // finite score) would at `n`.
                while cal_s[i] >= score {
                    i += 1;
                }
                i as u32
            } else {
                n as u32
            };
        }
    }
}

impl Node {
    /// The slot of `key`: nondecreasing in `key`.
    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        (key.saturating_sub(self.lo) >> self.shift).min(u64::from(self.last)) as usize
    }
}

/// `−∞` entries after each draw's calibration scores: [`EntryTable::entries`] reads up to three
/// past the start it looks up (at most `n`) and then one more.
const PAD: usize = 3;

/// Asks for `s` to be fetched into the cache, ahead of its use.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch(s: crate::tensor::Scores<'_>) {
    fn lines<T>(s: &[T]) {
        use std::arch::x86_64::*;
        for line in s.chunks(64 / std::mem::size_of::<T>()) {
            // SAFETY: SSE is part of x86_64; a prefetch reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast()) };
        }
    }
    match s {
        crate::tensor::Scores::F64(s) => lines(s),
        crate::tensor::Scores::F32(s) => lines(s),
        crate::tensor::Scores::F16(s) => lines(s),
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
        PooledSplit::build(cal_items.len(), t.m(), t.k(), ties, score)
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
        PooledSplit::build(draws.len() / m, m, k, ties, |j, d| draws[j * m + d])
    }

    /// The split of `n` units of `m` draws, unit `j`'s score in draw `d` being `score(j, d)`.
    fn build(n: usize, m: usize, k: usize, ties: Ties, score: impl Fn(usize, usize) -> f64) -> Result<Self> {
        if n.next_multiple_of(BLOCK) + k > u32::MAX as usize {
            return Err(Error::invalid("too many units"));
        }
        if m >= MAX_DRAWS {
            return Err(Error::invalid(format!(
                "pooled r-values support at most {} draws (M = {m})",
                MAX_DRAWS - 1
            )));
        }
        let mut cal_scores = Vec::with_capacity((n + PAD) * m);
        let mut cal_units = Vec::with_capacity(n * m);
        let mut idx: Vec<u32> = Vec::with_capacity(n);
        for d in 0..m {
            let score = |j: u32| score(j as usize, d);
            idx.clear();
            idx.extend(0..n as u32);
            idx.sort_unstable_by(|&a, &b| {
                score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal).then(a.cmp(&b))
            });
            cal_scores.extend(idx.iter().map(|&j| score(j)));
            cal_scores.extend([f64::NEG_INFINITY; PAD]);
            cal_units.extend_from_slice(&idx);
        }
        let entry = cal_scores.chunks_exact(n + PAD).map(|s| EntryTable::new(&s[..n])).collect();
        cal_units.resize(n * m + WILD, 0);
        Ok(PooledSplit { n, m, k, cb: n.next_multiple_of(BLOCK), ties, cal_scores, cal_units, entry })
    }

    /// The bytes a split of `n` units of `m` draws holds (sorted scores, unit indices and entry
    /// tables, about 28 bytes per unit and draw), for sizing how many splits run at once.
    pub fn bytes_for(n: usize, m: usize) -> usize {
        n.saturating_add(PAD).saturating_mul(m).saturating_mul(28)
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

    /// Test item `item`'s candidate ranks and places by rank ([`Ties::order`]) into `work`'s
    /// slot `b`.
    fn candidate_order(&self, item: usize, b: usize, work: &mut Workspace) {
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
    /// set (`first + item`), so the results are those of `items` on the whole tensor.
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

    /// [`PooledSplit::item`] for a test item whose candidates' positions among the `U` units of
    /// each draw (`[M][K]`, 0-based, candidates in index order) were found elsewhere: the GPU
    /// path. Sorted, the positions give the candidates' order, and a position less the number of
    /// candidates before it is the entry point. Positions that collide or fall outside `0..U`,
    /// which only a faulty device could produce, are an error rather than a wrong answer.
    pub fn item_from_positions(&self, item: usize, pos: &[u32], work: &mut Workspace) -> Result<PooledItem> {
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

    /// For each of `items` and each draw, its candidates best first as ranks in the ties'
    /// candidate order (`work.ord`) and where each enters the draw's calibration order
    /// (`work.entries`), `[item][draw][K]`.
    fn entry_points(
        &self,
        t: &ScoreTensor,
        items: &[usize],
        first: usize,
        order: Option<&DrawOrder>,
        work: &mut Workspace,
    ) {
        let (n, m, k) = (self.n, self.m, self.k);
        self.reserve(items.len(), work);
        for (b, &item) in items.iter().enumerate() {
            self.candidate_order(first + item, b, work);
        }
        let exchangeable = !self.ties.is_index();
        let mut buf = Vec::new();
        for d in 0..m {
            let cal_s = &self.cal_scores[d * (n + PAD)..(d + 1) * (n + PAD)];
            for (b, &item) in items.iter().enumerate() {
                let scores = t.draw(item, d, &mut buf);
                // The tensor is far larger than the caches and each item's scores in a draw are
                // read in their sorted order, which the hardware prefetcher does not follow: ask
                // for the next item's row (the next draw's first after the last) ahead of time.
                #[cfg(target_arch = "x86_64")]
                match items.get(b + 1) {
                    Some(&next) => prefetch(t.draw_scores(next, d)),
                    None if d + 1 < m => prefetch(t.draw_scores(items[0], d + 1)),
                    None => {}
                }
                let at = (b * m + d) * k;
                let ord = &mut work.ord[at..at + k];
                match order {
                    Some(o) => ord.copy_from_slice(o.get(item, d)),
                    None => sort_desc(scores, ord),
                }
                let entries = &mut work.entries[at..at + k];
                let rank = &work.rank[b * k..(b + 1) * k];
                if exchangeable {
                    // The scores in the candidates' order, gathered once for the three passes
                    // that read them (reordering equal runs leaves this sequence as it is).
                    let sorted = &mut work.sorted[..k];
                    sorted.iter_mut().zip(ord.iter()).for_each(|(x, &c)| *x = scores[c as usize]);
                    order_equal_scores(sorted, rank, ord);
                    self.entry[d].entries(cal_s, sorted.iter().copied(), entries);
                    self.place_among_equal(d, sorted, &work.place[b * k..(b + 1) * k], rank, ord, entries);
                } else {
                    self.entry[d].entries(cal_s, ord.iter().map(|&c| scores[c as usize]), entries);
                }
                ord.iter_mut().for_each(|c| *c = rank[*c as usize]);
            }
        }
    }

    /// Moves each candidate that ties calibration scores in draw `d` (its entry point `e` has
    /// `cal_s[e − 1]` equal to its score) to its place among them: after the tied calibration
    /// units whose index is below its place, before the rest. Those units are sorted by index,
    /// so two binary searches find it; scores that tie nothing cost one compare.
    fn place_among_equal(
        &self,
        d: usize,
        sorted: &[f64],
        places: &[u32],
        rank: &[u16],
        ord: &[u16],
        entries: &mut [u32],
    ) {
        let n = self.n;
        let cal_s = &self.cal_scores[d * (n + PAD)..d * (n + PAD) + n];
        let units = &self.cal_units[d * n..(d + 1) * n];
        // Ties with calibration scores are rare in continuous data: a branch-free pass first.
        let tied = |(&e, &s): (&u32, &f64)| e > 0 && cal_s[e as usize - 1] == s;
        if !entries.iter().zip(sorted).fold(false, |any, x| any | tied(x)) {
            return;
        }
        for ((e, &c), &s) in entries.iter_mut().zip(ord).zip(sorted) {
            let at = *e as usize;
            if at > 0 && cal_s[at - 1] == s {
                let first = cal_s[..at].partition_point(|&x| x > s);
                let g = places[rank[c as usize] as usize];
                *e = (first + units[first..at].partition_point(|&j| j < g)) as u32;
            }
        }
    }

    /// The greedy for the `b`-th item of the last [`PooledSplit::entry_points`], with the block
    /// maxima in vector registers where the CPU has AVX-512 and the units fit (module `wide`).
    fn greedy(&self, b: usize, work: &mut Workspace) -> PooledItem {
        #[cfg(target_arch = "x86_64")]
        if !work.plain_picks && wide::usable(self.cb + self.k) {
            // SAFETY: `usable` checked that the CPU has the features `greedy_wide` enables.
            return unsafe { self.greedy_wide(b, work) };
        }
        self.greedy_with(b, work, Blocked)
    }

    /// [`PooledSplit::greedy_with`] compiled for AVX-512, with [`wide::Picks`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2")]
    fn greedy_wide(&self, b: usize, work: &mut Workspace) -> PooledItem {
        self.greedy_with(b, work, wide::Picks::new())
    }

    /// [`CHUNK`] steps at a time: every draw's ranking of those positions (small enough to stay
    /// in L1), then the greedy's steps over them.
    #[inline(always)]
    fn greedy_with(&self, b: usize, work: &mut Workspace, mut picks: impl Picks) -> PooledItem {
        let (n, m, k, cb) = (self.n, self.m, self.k, self.cb);
        let u = n + k;
        work.reset(n, cb, k, m);
        picks.reset(&work.counts);
        // Taken out for the steps, which borrow the rest of `work` mutably.
        let places = std::mem::take(&mut work.place);
        // Under the index rule calibration units win every tie: no pick needs to look further.
        let first_block = if self.ties.is_index() { 0 } else { cb / BLOCK };
        let tie = TiePick { first_block, cb, places: &places[b * k..(b + 1) * k] };
        let mut cand_step = vec![0u32; k];
        let mut cal_steps = Vec::with_capacity(n);
        let stride = CHUNK + WILD;
        for j0 in (0..u).step_by(CHUNK) {
            let j1 = (j0 + CHUNK).min(u);
            for d in 0..m {
                self.fill_row(d, (b * m + d) * k, j0, j1, work, d * stride);
            }
            for j in j0..j1 {
                // Step j: every draw's unit at position j enters that draw's top j.
                picks.bump_column(&mut work.counts, &work.chunk, j - j0, stride, m);
                let x = picks.pop_best(&mut work.counts, &tie);
                if x < n {
                    cal_steps.push(j as u32 + 1);
                } else {
                    cand_step[work.by_rank[b * k + x - cb] as usize] = j as u32 + 1;
                }
            }
        }
        work.place = places;
        PooledItem { units: u as u32, cand_step, cal_steps }
    }

    /// Draw `d`'s ranking at positions `j0..j1` into `work.chunk[base..]`, carrying on from where
    /// the previous chunk stopped (`work.cursor[d]`: calibration units and candidates placed):
    /// the calibration order with the candidates (`work.ord[at..at + K]`, best first, as ranks)
    /// at their entry points (`work.entries[at..]`), which already place them among equal scores.
    #[inline(always)]
    fn fill_row(&self, d: usize, at: usize, j0: usize, j1: usize, work: &mut Workspace, base: usize) {
        let (n, k) = (self.n, self.k);
        let (ord, entries) = (&work.ord[at..at + k], &work.entries[at..at + k]);
        let (mut ci, mut ki) = work.cursor[d];
        assert!(j1 - j0 <= CHUNK && base + CHUNK + WILD <= work.chunk.len());
        assert!(d * n + n + WILD <= self.cal_units.len());
        let (src, dst) = (self.cal_units.as_ptr(), work.chunk.as_mut_ptr());
        // One turn per candidate placed in this chunk: the calibration units before it (often
        // none), then the candidate. A turn per run or candidate, as before, branched on which
        // came next, a branch the data decide and the predictor often missed.
        let mut pos = j0;
        while ki < k {
            // Candidate `ki` stands after `entries[ki]` calibration units and `ki` candidates;
            // entries are nondecreasing and at most `n`, and the clamp keeps runs safe anyway.
            let next = (entries[ki] as usize).clamp(ci, n) + ki;
            if next >= j1 {
                break;
            }
            let run = next - pos;
            // SAFETY: `pos = ci + ki ≤ next`, so the run `ci..ci + run` stays within the draw's
            // `n` units; it is written at `pos − j0 + run < CHUNK`; the asserts leave `WILD`
            // spare entries after both.
            unsafe { wild_copy(dst.add(base + pos - j0), src.add(d * n + ci), run) };
            work.chunk[base + next - j0] = (self.cb + ord[ki] as usize) as u32;
            ci += run;
            ki += 1;
            pos = next + 1;
        }
        // Calibration units up to the chunk's end: `j1 − pos` of them remain before the next
        // candidate's entry point, or before `n` once all candidates are placed (`j1 ≤ n + k`).
        let run = j1 - pos;
        // SAFETY: as above, with `pos − j0 + run = j1 − j0 ≤ CHUNK`.
        unsafe { wild_copy(dst.add(base + pos - j0), src.add(d * n + ci), run) };
        ci += run;
        work.cursor[d] = (ci, ki);
    }
}

/// Steps per chunk of the merged rankings: `M` rows of them (about 16 KB for `M = 31`) stay in
/// the L1 cache between being written and being read by the greedy.
const CHUNK: usize = 128;

/// Spare entries at the end of `cal_units` and of the merged rows, for [`wild_copy`].
const WILD: usize = 16;

/// Copies `len` entries from `src` to `dst` in fixed runs of [`WILD`], at least one, so that the
/// many short runs of a merge cost a few moves each, without a branch for most, rather than a
/// `memcpy` call. It reads and writes up to `WILD` entries past the run: rows are written front
/// to back, so what spills is overwritten next, or lands in the next row before that is written,
/// or in the spare tail.
///
/// # Safety
/// `src` and `dst` must be valid for `len` rounded up to a multiple of `WILD` entries, and at
/// least `WILD`.
#[inline(always)]
unsafe fn wild_copy(dst: *mut u32, src: *const u32, len: usize) {
    let mut k = 0;
    loop {
        // SAFETY: the caller's bound; runs of one row never overlap their source.
        unsafe { std::ptr::copy_nonoverlapping(src.add(k), dst.add(k), WILD) };
        k += WILD;
        if k >= len {
            break;
        }
    }
}

/// Scratch memory for [`PooledSplit::item`], reused across test items.
#[derive(Debug, Default)]
pub struct Workspace {
    /// `[item][draw][K]` the items' candidates, best first (as ranks once entry points are found).
    ord: Vec<u16>,
    /// `[item][K]` by rank, the candidates' places among the calibration units ([`Ties::order`]).
    place: Vec<u32>,
    /// `[item][K]` the candidates in the ties' order, and each candidate's rank in it.
    by_rank: Vec<u16>,
    rank: Vec<u16>,
    /// One draw's candidate scores in their order (exchangeable ties).
    sorted: Vec<f64>,
    /// `[item][draw][K]` where each of them enters the draw's calibration order.
    entries: Vec<u32>,
    /// Per draw, the calibration units and candidates placed in earlier chunks.
    cursor: Vec<(usize, usize)>,
    /// `[draw][CHUNK + WILD]` unit indices at the chunk's positions, then spare entries.
    chunk: Vec<u32>,
    counts: Counts,
    /// Tests switch off the wide picks (x86_64 only), to compare them with the portable ones.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    plain_picks: bool,
}

impl Workspace {
    fn reset(&mut self, n: usize, cb: usize, k: usize, m: usize) {
        self.cursor.clear();
        self.cursor.resize(m, (0, 0));
        self.chunk.resize(m * (CHUNK + WILD), 0);
        self.counts.reset(n, cb, k);
    }
}

/// The greedy's per-step work on [`Counts`]: the step's count increments, then the pick.
trait Picks {
    fn reset(&mut self, counts: &Counts);
    fn bump_column(&mut self, counts: &mut Counts, rows: &[u32], col: usize, stride: usize, m: usize);
    fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize;
}

/// What a pick needs to break a tie between a calibration unit and a candidate by the
/// exchangeable order: the candidates' first block (`0` under the index rule, which never
/// looks), their first id, and their places by rank.
struct TiePick<'a> {
    first_block: usize,
    cb: usize,
    places: &'a [u32],
}

impl TiePick<'_> {
    /// Whether the candidate with id `x` precedes calibration unit `j` in the tie order.
    #[inline]
    fn candidate_first(&self, x: usize, j: usize) -> bool {
        self.places[x - self.cb] as usize <= j
    }
}

/// The portable picks: block maxima in memory ([`Counts::block_max`]).
struct Blocked;

impl Picks for Blocked {
    fn reset(&mut self, _: &Counts) {}

    #[inline(always)]
    fn bump_column(&mut self, counts: &mut Counts, rows: &[u32], col: usize, stride: usize, m: usize) {
        counts.bump_column(rows, col, stride, m);
    }

    #[inline(always)]
    fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize {
        counts.pop_best(tie)
    }
}

/// Units per block of the greedy's max structure: eight 128-bit vectors of `i16`.
const BLOCK: usize = 64;

/// A chosen unit's count: so far below zero that `m < MAX_DRAWS` increments keep it negative,
/// so it never wins a maximum and an increment needs no test for it.
const CHOSEN: i16 = i16::MIN;

/// The greedy's counts with the query it needs at each step: the unchosen unit with the largest
/// count, the lowest index among ties, while counts grow by one. Counts live in a flat array
/// padded to whole blocks (padding holds `CHOSEN`) with a running maximum per block of 64 units:
/// an increment is a load, an add, a store and a max; a pick compares block maxima and one block
/// eight lanes at a time ([`first_equal`]).
#[derive(Debug, Default)]
struct Counts {
    count: Vec<i16>,
    block_max: Vec<i16>,
}

impl Counts {
    /// Zero counts for calibration units `0..n` and candidates `cb..cb + k` (`cb` = `n` in
    /// whole blocks); the ids between are never chosen.
    fn reset(&mut self, n: usize, cb: usize, k: usize) {
        let blocks = (cb + k).div_ceil(BLOCK);
        self.count.clear();
        self.count.resize(blocks * BLOCK, CHOSEN);
        self.count[..n].fill(0);
        self.count[cb..cb + k].fill(0);
        // Padded to whole vectors with blocks that hold no unit.
        self.block_max.clear();
        self.block_max.resize(blocks.next_multiple_of(LANES), CHOSEN);
        self.block_max[..blocks].fill(0);
    }

    /// Adds one to the count of each unit `rows[col + d·stride]`, `d < m`: the `M` units that
    /// enter the draws' tops at this step. This loop is the whole cost of the pooled r-value
    /// (`M·U` runs per test item), so it indexes unchecked: bounds checks would add a third.
    #[inline(always)]
    fn bump_column(&mut self, rows: &[u32], col: usize, stride: usize, m: usize) {
        assert!(col < stride && (m == 0 || (m - 1) * stride + col < rows.len()));
        let units = self.count.len();
        let count = self.count.as_mut_ptr();
        let block_max = self.block_max.as_mut_ptr();
        // SAFETY: the assert bounds every `d·stride + col` by `rows.len()`; `rows` holds unit
        // ids below `U` (written only by `fill_row`), `count` has at least `U` entries and
        // `block_max` one per `BLOCK` of them.
        let bump = |p: usize| unsafe {
            let x = *rows.get_unchecked(p) as usize;
            debug_assert!(x < units);
            let c = (*count.add(x)).wrapping_add(1);
            *count.add(x) = c;
            let b = block_max.add(x / BLOCK);
            *b = (*b).max(c);
        };
        // Four draws per turn: the loop's own bookkeeping was a quarter of the instructions.
        let mut p = col;
        for _ in 0..m / 4 {
            bump(p);
            bump(p + stride);
            bump(p + 2 * stride);
            bump(p + 3 * stride);
            p += 4 * stride;
        }
        for _ in 0..m % 4 {
            bump(p);
            p += stride;
        }
    }

    /// Takes the unchosen unit with the largest count, first in the tie order among ties. There
    /// is one: the greedy makes exactly `U` picks of `U` units.
    // `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
    #[allow(clippy::expect_used)]
    fn pop_best(&mut self, tie: &TiePick) -> usize {
        let best = max_of(&self.block_max);
        let mut block = first_equal(&self.block_max, best);
        if block < tie.first_block {
            block = self.tie_block(block, best, tie);
        }
        let start = block * BLOCK;
        let counts: &mut [i16; BLOCK] =
            (&mut self.count[start..start + BLOCK]).try_into().expect("whole blocks");
        // Found before the store below: reading the block back after it (a narrow store under
        // wide loads) waits for the store to reach the cache.
        let (x, rest) = pick_in_block(counts, best);
        counts[x] = CHOSEN;
        self.block_max[block] = rest;
        start + x
    }

    /// The block to pick from when the first unit with count `best` is a calibration unit in
    /// `block`: the block of the first candidate with that count if the tie order puts it first.
    fn tie_block(&self, block: usize, best: i16, tie: &TiePick) -> usize {
        let Some(cblock) = (tie.first_block..self.block_max.len()).find(|&b| self.block_max[b] == best)
        else {
            return block;
        };
        let first = |b: usize| b * BLOCK + first_equal(&self.count[b * BLOCK..(b + 1) * BLOCK], best);
        if tie.candidate_first(first(cblock), first(block)) {
            cblock
        } else {
            block
        }
    }
}

/// The picks with AVX-512 (x86_64, detected at run time), for up to 32 blocks (2048 units): the
/// block maxima live in a vector register instead of [`Counts::block_max`]. In memory, each
/// step's pick read them as whole vectors just after the step's increments had written single
/// lanes, which stalls until those stores reach the cache (a store cannot be forwarded into a
/// wider load); in a register an increment is a masked lane-wise maximum. Two registers take
/// alternate draws, so that the increments do not wait on each other.
#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{Counts, TiePick, BLOCK, CHOSEN};
    use std::arch::x86_64::*;

    /// Blocks one register holds: 32 lanes of `i16`.
    const BLOCKS: usize = 32;

    /// Whether this CPU and `u` units can take these picks.
    pub fn usable(u: usize) -> bool {
        u.div_ceil(BLOCK) <= BLOCKS
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
    }

    /// The largest of `v`'s 32 lanes. Flipping all but the sign bit turns signed order into
    /// reversed unsigned order, whose minimum one instruction finds.
    #[inline(always)]
    fn hmax(v: __m512i) -> i16 {
        // SAFETY (this module's intrinsics): only reached through `Picks`, which only
        // `PooledSplit::greedy_wide` makes, after `usable` found the features it enables.
        unsafe {
            let m = _mm256_max_epi16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            let m = _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
            let flip = _mm_set1_epi16(i16::MAX);
            (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, flip))) as i16) ^ i16::MAX
        }
    }

    /// Block maxima, lane `b` for block `b` (lanes past the last block hold `CHOSEN`), as the
    /// lane-wise maximum of two registers.
    pub struct Picks {
        even: __m512i,
        odd: __m512i,
    }

    impl Picks {
        #[inline(always)]
        pub fn new() -> Self {
            // SAFETY: as for `hmax`.
            unsafe { Picks { even: _mm512_set1_epi16(CHOSEN), odd: _mm512_set1_epi16(CHOSEN) } }
        }
    }

    impl super::Picks for Picks {
        #[inline(always)]
        fn reset(&mut self, counts: &Counts) {
            let mut lanes = [CHOSEN; BLOCKS];
            for (l, &b) in lanes.iter_mut().zip(&counts.block_max) {
                *l = b;
            }
            // SAFETY: as for `hmax`; the load reads exactly the 64 bytes of `lanes`.
            self.even = unsafe { _mm512_loadu_epi16(lanes.as_ptr()) };
            self.odd = self.even;
        }

        /// [`Counts::bump_column`] with the block maxima in the two registers.
        #[inline(always)]
        fn bump_column(&mut self, counts: &mut Counts, rows: &[u32], col: usize, stride: usize, m: usize) {
            assert!(col < stride && (m == 0 || (m - 1) * stride + col < rows.len()));
            assert!(counts.count.len() <= BLOCKS * BLOCK);
            let units = counts.count.len();
            let count = counts.count.as_mut_ptr();
            // SAFETY: as in `Counts::bump_column`, and a unit below `BLOCKS · BLOCK` (the second
            // assert) has a block below 32: the shift is in range. Intrinsics as for `hmax`.
            let bump = |p: usize, acc: &mut __m512i| unsafe {
                let x = *rows.get_unchecked(p) as usize;
                debug_assert!(x < units);
                let c = (*count.add(x)).wrapping_add(1);
                *count.add(x) = c;
                *acc = _mm512_mask_max_epi16(*acc, 1u32 << (x / BLOCK), *acc, _mm512_set1_epi16(c));
            };
            let mut p = col;
            for _ in 0..m / 2 {
                bump(p, &mut self.even);
                bump(p + stride, &mut self.odd);
                p += 2 * stride;
            }
            if m % 2 == 1 {
                bump(p, &mut self.even);
            }
        }

        /// [`Counts::pop_best`] on the registers: the best block is the first lane equal to the
        /// maximum, and the best unit the first of the block's 64 counts (two registers) equal to it.
        #[inline(always)]
        fn pop_best(&mut self, counts: &mut Counts, tie: &TiePick) -> usize {
            // SAFETY: as for `hmax`. Every block's maximum is in its lane, so `best` (the largest
            // unchosen count, at least zero) is in the block and the block is one of `count`'s:
            // the loads read its 128 bytes. A tie's candidate block is a lane below 32 too.
            unsafe {
                let maxima = _mm512_max_epi16(self.even, self.odd);
                let best = hmax(maxima);
                let v = _mm512_set1_epi16(best);
                let at_best = _mm512_cmpeq_epi16_mask(maxima, v);
                let mut block = at_best.trailing_zeros() as usize;
                let mut found = block_mask(counts, block, v);
                let later = if block < tie.first_block { at_best >> tie.first_block } else { 0 };
                if later != 0 {
                    let cblock = tie.first_block + later.trailing_zeros() as usize;
                    let candidate = block_mask(counts, cblock, v);
                    let x = cblock * BLOCK + candidate.0.trailing_zeros() as usize;
                    if tie.candidate_first(x, block * BLOCK + found.0.trailing_zeros() as usize) {
                        (block, found) = (cblock, candidate);
                    }
                }
                let start = block * BLOCK;
                let (mask, m_lo, m_hi, lo, hi) = found;
                // Another count equal to `best` keeps it the block's maximum; otherwise the
                // largest of the rest (negative if all the rest are chosen).
                let rest = if mask & mask.wrapping_sub(1) != 0 {
                    best
                } else {
                    let chosen = _mm512_set1_epi16(CHOSEN);
                    hmax(_mm512_max_epi16(
                        _mm512_mask_blend_epi16(m_lo, lo, chosen),
                        _mm512_mask_blend_epi16(m_hi, hi, chosen),
                    ))
                };
                let x = mask.trailing_zeros() as usize;
                debug_assert!(x < BLOCK);
                counts.count[start + x] = CHOSEN;
                self.even = _mm512_mask_mov_epi16(maxima, 1u32 << block, _mm512_set1_epi16(rest));
                self.odd = self.even;
                start + x
            }
        }
    }

    /// Which of block `block`'s 64 counts equal `v` (bit per unit, then per half), and its
    /// two halves.
    #[inline(always)]
    fn block_mask(counts: &Counts, block: usize, v: __m512i) -> (u64, u32, u32, __m512i, __m512i) {
        let start = block * BLOCK;
        assert!(start + BLOCK <= counts.count.len());
        // SAFETY: as for `hmax`; the assert keeps the two loads inside `count`.
        unsafe {
            let p = counts.count.as_ptr().add(start);
            let (lo, hi) = (_mm512_loadu_epi16(p), _mm512_loadu_epi16(p.add(BLOCK / 2)));
            let (m_lo, m_hi) = (_mm512_cmpeq_epi16_mask(lo, v), _mm512_cmpeq_epi16_mask(hi, v));
            (u64::from(m_lo) | u64::from(m_hi) << 32, m_lo, m_hi, lo, hi)
        }
    }
}

/// `i16` lanes per vector.
const LANES: usize = 8;

/// The largest element of `a`, whose length is a multiple of [`LANES`] (`CHOSEN` if empty).
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
fn max_of(a: &[i16]) -> i16 {
    let mut acc = [CHOSEN; LANES];
    for chunk in a.chunks_exact(LANES) {
        acc = simd::max8(&acc, chunk.try_into().expect("whole vectors"));
    }
    simd::hmax8(&acc)
}

/// The index of the first element of a block equal to `v`, the block's largest element, and the
/// block's largest element once that one is chosen: `v` again if another equals it, else the
/// largest of the rest, or some negative value if all the rest are chosen (never equal to a
/// pick's maximum, which is an unchosen count and so at least zero). One mask over all eight
/// vectors, so that no branch depends on where the element is.
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
fn pick_in_block(a: &[i16; BLOCK], v: i16) -> (usize, i16) {
    let mut mask = 0u64;
    let mut rest = [CHOSEN; LANES];
    for (i, chunk) in a.chunks_exact(LANES).enumerate() {
        let chunk = chunk.try_into().expect("whole vectors");
        mask |= u64::from(simd::eq_mask8(chunk, v)) << (i * LANES);
        rest = simd::max8(&rest, &simd::knock8(chunk, v));
    }
    let rest = if mask & mask.wrapping_sub(1) != 0 { v } else { simd::hmax8(&rest) };
    (mask.trailing_zeros() as usize, rest)
}

/// The index of the first element of `a` equal to `v`; `a`'s length is a multiple of
/// [`LANES`]. `a.len()` if there is none.
#[inline]
// `chunks_exact(LANES)` (and a `BLOCK` slice) have exactly the length converted to: infallible.
#[allow(clippy::expect_used)]
fn first_equal(a: &[i16], v: i16) -> usize {
    for (i, chunk) in a.chunks_exact(LANES).enumerate() {
        let mask = simd::eq_mask8(chunk.try_into().expect("whole vectors"), v);
        if mask != 0 {
            return i * LANES + mask.trailing_zeros() as usize;
        }
    }
    a.len()
}

/// Eight `i16` lanes at a time, for the greedy's picks: `eq_mask8(c, v)` has bit `i` set iff
/// `c[i] == v`; `max8` is the lane-wise maximum, `hmax8` the largest lane. SSE2 on x86_64,
/// simd128 on wasm when enabled, plain loops elsewhere; all give the same answers.
mod simd {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the unaligned load reads exactly the 16 bytes of `c`.
        unsafe {
            let lanes = _mm_loadu_si128(c.as_ptr().cast());
            let eq = _mm_cmpeq_epi16(lanes, _mm_set1_epi16(v));
            // Saturating pack keeps 0 and -1 per lane as one byte each: one mask bit per lane.
            (_mm_movemask_epi8(_mm_packs_epi16(eq, eq)) & 0xff) as u32
        }
    }

    /// `c` with the lanes equal to `v` moved `2^15` down (wrapping): below zero when `v ≥ 0`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the load and the store touch exactly 16 bytes each.
        unsafe {
            let lanes = _mm_loadu_si128(c.as_ptr().cast());
            let eq = _mm_cmpeq_epi16(lanes, _mm_set1_epi16(v));
            let k = _mm_add_epi16(lanes, _mm_and_si128(eq, _mm_set1_epi16(i16::MIN)));
            let mut out = [0i16; 8];
            _mm_storeu_si128(out.as_mut_ptr().cast(), k);
            out
        }
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
        use std::arch::wasm32::*;
        // SAFETY: the load and the store touch exactly 16 bytes each.
        unsafe {
            let lanes = v128_load(c.as_ptr().cast());
            let eq = i16x8_eq(lanes, i16x8_splat(v));
            let k = i16x8_add(lanes, v128_and(eq, i16x8_splat(i16::MIN)));
            let mut out = [0i16; 8];
            v128_store(out.as_mut_ptr().cast(), k);
            out
        }
    }

    #[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
    #[inline(always)]
    pub fn knock8(c: &[i16; 8], v: i16) -> [i16; 8] {
        std::array::from_fn(|i| if c[i] == v { c[i].wrapping_add(i16::MIN) } else { c[i] })
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; loads and the store touch exactly 16 bytes each.
        unsafe {
            let m = _mm_max_epi16(_mm_loadu_si128(a.as_ptr().cast()), _mm_loadu_si128(b.as_ptr().cast()));
            let mut out = [0i16; 8];
            _mm_storeu_si128(out.as_mut_ptr().cast(), m);
            out
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn hmax8(a: &[i16; 8]) -> i16 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the load reads exactly the 16 bytes of `a`.
        unsafe {
            let mut m = _mm_loadu_si128(a.as_ptr().cast());
            m = _mm_max_epi16(m, _mm_srli_si128::<8>(m));
            m = _mm_max_epi16(m, _mm_srli_si128::<4>(m));
            m = _mm_max_epi16(m, _mm_srli_si128::<2>(m));
            _mm_cvtsi128_si32(m) as i16
        }
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    pub fn hmax8(a: &[i16; 8]) -> i16 {
        use std::arch::wasm32::*;
        // SAFETY: the load reads exactly the 16 bytes of `a`.
        let mut m = unsafe { v128_load(a.as_ptr().cast()) };
        m = i16x8_max(m, i16x8_shuffle::<4, 5, 6, 7, 0, 1, 2, 3>(m, m));
        m = i16x8_max(m, i16x8_shuffle::<2, 3, 0, 1, 2, 3, 0, 1>(m, m));
        m = i16x8_max(m, i16x8_shuffle::<1, 0, 1, 0, 1, 0, 1, 0>(m, m));
        i16x8_extract_lane::<0>(m)
    }

    #[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
    #[inline(always)]
    pub fn hmax8(a: &[i16; 8]) -> i16 {
        a.iter().copied().fold(i16::MIN, i16::max)
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
        use std::arch::wasm32::*;
        // SAFETY: loads and the store touch exactly 16 bytes each.
        unsafe {
            let m = i16x8_max(v128_load(a.as_ptr().cast()), v128_load(b.as_ptr().cast()));
            let mut out = [0i16; 8];
            v128_store(out.as_mut_ptr().cast(), m);
            out
        }
    }

    #[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
    #[inline(always)]
    pub fn max8(a: &[i16; 8], b: &[i16; 8]) -> [i16; 8] {
        std::array::from_fn(|i| a[i].max(b[i]))
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
        use std::arch::wasm32::*;
        // SAFETY: the load reads exactly the 16 bytes of `c` (wasm loads need no alignment).
        let lanes = unsafe { v128_load(c.as_ptr().cast()) };
        i16x8_bitmask(i16x8_eq(lanes, i16x8_splat(v))) as u32
    }

    #[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
    #[inline(always)]
    pub fn eq_mask8(c: &[i16; 8], v: i16) -> u32 {
        c.iter().enumerate().fold(0, |m, (i, &x)| m | (u32::from(x == v) << i))
    }
}

/// The plain `O(U²)` pooled r-value for one test item: rank all units in every draw, count,
/// run the greedy, every tie broken by `ties`' order of the units. Kept as the test oracle and
/// the benchmark baseline.
pub fn pooled_item_oracle(
    t: &ScoreTensor,
    labels: &[usize],
    cal_items: &[usize],
    item: usize,
    ties: Ties,
) -> Result<PooledItem> {
    check_items(t, labels, cal_items)?;
    let (n, m, k) = (cal_items.len(), t.m(), t.k());
    let u = n + k;
    let (mut places, mut rank) = (vec![0u32; k], vec![0u16; k]);
    ties.order(item, n, &mut places, &mut rank);
    let at = tie_positions(&places, &rank, n);
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
        idx.sort_by(|&a, &b| {
            score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal).then(at[a].cmp(&at[b]))
        });
        for (rank, &x) in idx.iter().enumerate() {
            count[at[x] * u + rank] += 1;
        }
    }
    for row in count.chunks_exact_mut(u) {
        for j in 1..u {
            row[j] += row[j - 1];
        }
    }
    // The greedy breaks count ties by row: rows are in tie order.
    let by_position = nested_greedy(&count, u);
    let step: Vec<u32> = (0..u).map(|x| by_position[at[x]]).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| step[x]);
    Ok(PooledItem {
        units: u as u32,
        cand_step: step[n..].to_vec(),
        cal_steps: order.iter().map(|&x| step[x]).collect(),
    })
}

/// Each unit's position in the tie order (units: calibration `0..n`, then candidates): before
/// calibration unit `j` come the candidates whose place is at most `j`, in rank order
/// (`places` by rank, as [`Ties::order`] gives them).
fn tie_positions(places: &[u32], rank: &[u16], n: usize) -> Vec<usize> {
    let k = places.len();
    let mut cands: Vec<usize> = (0..k).collect();
    cands.sort_by_key(|&c| rank[c]);
    let places: Vec<u32> = (0..k).map(|c| places[rank[c] as usize]).collect();
    let mut at = vec![0; n + k];
    let mut next = cands.iter().peekable();
    let mut pos = 0;
    for j in 0..=n {
        while let Some(&&c) = next.peek() {
            if places[c] as usize > j {
                break;
            }
            at[n + c] = pos;
            pos += 1;
            next.next();
        }
        if j < n {
            at[j] = pos;
            pos += 1;
        }
    }
    at
}

#[cfg(test)]
pub(crate) mod tests;
