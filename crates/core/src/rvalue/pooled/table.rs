//! Where a test item's candidates enter each draw's calibration order: the per-draw
//! [`EntryTable`] (buckets, then nodes on the scores' integer keys) and the batch of items whose
//! entry points it finds together.

use super::greedy::Workspace;
use super::PooledSplit;
use crate::rvalue::nonparametric::{desc_key, sort_desc, DrawOrder};
use crate::rvalue::ties::order_equal_scores;
use crate::tensor::ScoreTensor;

/// Where a score enters one draw's descending calibration scores: the number of them `≥` it.
///
/// The first level is a table over equal-width score buckets, two per calibration score (one
/// where the tables would be large, see [`PooledSplit::buckets_per_score`]): where scores spread
/// evenly (logits, log-probabilities) nearly every bucket holds at most a couple of them, and a candidate's bucket gives its entry point after a compare or two. Softmax
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
pub(super) struct EntryTable {
    top: f64,
    /// Buckets per unit of score; 0 when all scores are equal (one bucket).
    scale: f64,
    /// The last bucket's index, as a float for the range test.
    last: f64,
    /// The buckets' slots, then every node's, each level's followed by its end: a leaf's start
    /// (the number of calibration scores before it), or [`CHILD`] plus its node's index.
    pub(super) slots: Vec<u32>,
    pub(super) nodes: Vec<Node>,
}

/// A key range split into `last + 1` slots of `2^shift` keys from `lo`: slot `b` holds the keys
/// `k` with `⌊(k − lo)/2^shift⌋ = b`, the last slot also those beyond, slot 0 those below `lo`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub(super) lo: u64,
    pub(super) shift: u32,
    pub(super) last: u32,
    pub(super) first_slot: u32,
}

/// The flag of a slot that refers to a node rather than holding a leaf's start.
pub(super) const CHILD: u32 = 1 << 31;

impl EntryTable {
    /// The table of `cal_s`, one draw's calibration scores, descending (at least one), with
    /// `per_score` buckets per score (1 or 2, see [`PooledSplit::buckets_per_score`]).
    pub(super) fn new(cal_s: &[f64], per_score: usize) -> Self {
        let (top, bottom) = (cal_s[0], cal_s[cal_s.len() - 1]);
        let buckets = per_score.max(1) * cal_s.len();
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
    pub(super) fn entries(&self, cal_s: &[f64], scores: impl Iterator<Item = f64>, entries: &mut [u32]) {
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
pub(super) const PAD: usize = 3;

/// Asks for `s` to be fetched into the cache, ahead of its use.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn prefetch(s: crate::tensor::Scores<'_>) {
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
impl PooledSplit {
    /// For each of `items` and each draw, its candidates best first as ranks in the ties'
    /// candidate order (`work.ord`) and where each enters the draw's calibration order
    /// (`work.entries`), `[item][draw][K]`.
    pub(super) fn entry_points(
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
}
