//! Where a test item's candidates enter each draw's calibration order: the per-draw
//! [`EntryTable`] (buckets, then nodes on the scores' integer keys) and the batch of items whose
//! entry points it finds together.

use super::codes::DrawEntry;
use super::greedy::Workspace;
use super::PooledSplit;
use crate::rvalue::nonparametric::{desc_key, sort_stored_desc, DrawOrder};
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
    ///
    /// Two passes: every score's leaf first, asking for the cache line of calibration scores it
    /// starts at, then the scans. A draw's scores (320 kB at 40,000 units) are read at scattered
    /// places, so most first reads miss the cache; found all at once, those misses overlap.
    pub(super) fn entries(
        &self,
        cal_s: &[f64],
        scores: impl Iterator<Item = f64> + Clone,
        entries: &mut [u32],
    ) {
        let n = cal_s.len() - PAD;
        let bottom = cal_s[n - 1];
        for (e, score) in entries.iter_mut().zip(scores.clone()) {
            // At or below every calibration score: after all of them (they win ties).
            let i = if score > bottom { self.leaf(score) } else { n };
            prefetch_line(&cal_s[i]);
            *e = i as u32;
        }
        for (e, score) in entries.iter_mut().zip(scores) {
            if score > bottom {
                // At most `PAD` calibration scores of the leaf follow its start: those `≥ score`
                // come first (they descend), so their number is the steps a scan would take,
                // and no compare waits on the one before. Starting from the leaf alone, rather
                // than from the previous candidate's entry too, keeps the candidates independent.
                let i = *e as usize;
                let next = &cal_s[i..i + PAD];
                let mut i = i + next.iter().map(|&c| usize::from(c >= score)).sum::<usize>();
                // The leaf's end stops this after one compare; the padding (`−∞`, below every
                // finite score) would at `n`.
                while cal_s[i] >= score {
                    i += 1;
                }
                *e = i as u32;
            }
        }
    }
}

/// Asks for the cache line holding `x`, ahead of its use (a hint: nothing on other targets).
#[inline(always)]
pub(super) fn prefetch_line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64; a prefetch reads nothing and cannot fault.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
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

/// Asks for the row of scores a batch reads after item `b`'s in draw `d` of `m`: the next item's
/// in the same draw, or the first item's in the next draw. The tensor is far larger than the
/// caches and each item's scores in a draw are read in their sorted order, which the hardware
/// prefetcher does not follow.
#[inline(always)]
pub(super) fn prefetch_next_row(t: &ScoreTensor, items: &[usize], b: usize, d: usize, m: usize) {
    #[cfg(target_arch = "x86_64")]
    match items.get(b + 1) {
        Some(&next) => prefetch(t.draw_scores(next, d)),
        None if d + 1 < m => prefetch(t.draw_scores(items[0], d + 1)),
        None => {}
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (t, items, b, d, m);
}

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
            self.candidate_order(self.ties.item_key(t, item, first + item), b, work);
        }
        if !work.general_entries && self.entry_points_f16(t, items, work) {
            return;
        }
        let exchangeable = !self.ties.is_index();
        let (mut buf, mut spare) = (Vec::new(), Vec::new());
        for d in 0..m {
            let cal_s = &self.cal_scores[d * (n + PAD)..(d + 1) * (n + PAD)];
            for (b, &item) in items.iter().enumerate() {
                let scores = t.draw(item, d, &mut buf);
                prefetch_next_row(t, items, b, d, m);
                let at = (b * m + d) * k;
                let ord = &mut work.ord[at..at + k];
                match order {
                    Some(o) => ord.copy_from_slice(o.get(item, d)),
                    // In the stored type: float16 scores sort on their 16-bit keys.
                    None => sort_stored_desc(t.draw_scores(item, d), ord, &mut work.sort, &mut spare),
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
                    let places = &work.place[b * k..(b + 1) * k];
                    self.place_among_equal(d, sorted, places, rank, ord, entries, &mut work.starts[..k]);
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
    /// so a search back from the entry point for the run's start ([`run_start`]) and a binary
    /// search in the run find it; scores that tie nothing cost one compare.
    #[allow(clippy::too_many_arguments)] // the draw, the candidates' four views, and scratch
    fn place_among_equal(
        &self,
        d: usize,
        sorted: &[f64],
        places: &[u32],
        rank: &[u16],
        ord: &[u16],
        entries: &mut [u32],
        starts: &mut [u32],
    ) {
        let n = self.n;
        let units = &self.cal_units[d * n..(d + 1) * n];
        if !self.tied_starts(d, sorted, entries, starts) {
            return;
        }
        for ((e, &c), &first) in entries.iter_mut().zip(ord).zip(starts.iter()) {
            if first != NOT_TIED {
                let (first, at) = (first as usize, *e as usize);
                let g = places[rank[c as usize] as usize];
                *e = (first + units[first..at].partition_point(|&j| j < g)) as u32;
            }
        }
    }
}

impl PooledSplit {
    /// Into `starts`, for each candidate (scores `sorted`, entry points `entries`) whose score
    /// ties calibration scores in draw `d`, where the run of them starts (the number of scores
    /// above it), else [`NOT_TIED`]; false if no candidate ties.
    fn tied_starts(&self, d: usize, sorted: &[f64], entries: &[u32], starts: &mut [u32]) -> bool {
        let n = self.n;
        if let DrawEntry::Codes(codes) = &self.entry[d] {
            // The float16 table counts the scores above as cheaply as those at or above: no
            // read of the draw's scores, whose lines a test item's candidates mostly miss.
            let units = &self.cal_units[d * n..(d + 1) * n];
            let mut any = false;
            for ((&e, &s), start) in entries.iter().zip(sorted).zip(starts.iter_mut()) {
                let above = codes.count_gt(s, n);
                *start = if above < e {
                    any = true;
                    prefetch_line(&units[above as usize]);
                    above
                } else {
                    NOT_TIED
                };
            }
            return any;
        }
        let cal_s = &self.cal_scores[d * (n + PAD)..d * (n + PAD) + n];
        let units = &self.cal_units[d * n..(d + 1) * n];
        // Ties with calibration scores are rare in continuous data: a branch-free pass first.
        let tied = |(&e, &s): (&u32, &f64)| e > 0 && cal_s[e as usize - 1] == s;
        if !entries.iter().zip(sorted).fold(false, |any, x| any | tied(x)) {
            return false;
        }
        // Every tied run's start first, asking for its units' cache line: the units of a draw
        // (160 kB at 40,000) are read at scattered places, so the reads overlap their misses.
        for ((&e, &s), start) in entries.iter().zip(sorted).zip(starts.iter_mut()) {
            let at = e as usize;
            *start = if at > 0 && cal_s[at - 1] == s {
                let first = run_start(cal_s, at, s);
                prefetch_line(&units[first]);
                first as u32
            } else {
                NOT_TIED
            };
        }
        true
    }
}

/// A candidate whose score ties no calibration score, in `place_among_equal`'s run starts.
pub(super) const NOT_TIED: u32 = u32::MAX;

/// The start of the run of scores equal to `s` that ends just before `at` in `cal_s`
/// (descending, `cal_s[at − 1] == s`): the number of scores above `s`. It gallops back from
/// `at` in doubling steps, then searches the last step's interval: runs are short next to the
/// whole prefix (rounded scores such as float16 tie often, tens of units a run among 40,000),
/// and a binary search over the prefix fetched a distant cache line at nearly every step.
#[inline]
pub(super) fn run_start(cal_s: &[f64], at: usize, s: f64) -> usize {
    // `cal_s[eq] == s` throughout: every score between it and `at` equals `s` too.
    let (mut eq, mut step) = (at - 1, 1);
    loop {
        if step > eq {
            return cal_s[..eq].partition_point(|&x| x > s);
        }
        let probe = eq - step;
        if cal_s[probe] > s {
            return probe + 1 + cal_s[probe + 1..eq].partition_point(|&x| x > s);
        }
        eq = probe;
        step *= 2;
    }
}
