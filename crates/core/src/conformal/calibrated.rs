//! [`Calibrated`]: one method's scores on one split, kept so that any α is answered without
//! recomputing a score: the test items' rows (sorted once) and what the threshold needs. Its
//! thresholds, rows and prediction sets are here; its metrics and α sweeps in
//! [`super::metrics`] and [`sweep`](mod@super::sweep), its pooled constructors in [`super::pooled`].

use super::per_class::PerClass;
use super::steps::StepSets;
use super::{conformal_quantile, k_star, Coverage, Split};
use std::sync::Arc;

/// Split-independent scores `[N][K]`, each row ascending with each candidate's place in it,
/// made once per data set and shared by the [`Calibrated`] of all its splits: a hundred splits of
/// a large file would otherwise hold a hundred copies of the test rows. The scores themselves are
/// not kept apart: candidate `c`'s is `sorted[rank[c]]` of its row, which holds a file of 10^7
/// candidates in 100 MB rather than 160 MB.
#[derive(Debug)]
pub struct ScoreRows {
    k: usize,
    pub(super) sorted: Vec<f64>,
    rank: Ranks,
}

/// Each candidate's position in its row's order (score, then candidate index), narrow when K
/// allows.
#[derive(Debug)]
enum Ranks {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl ScoreRows {
    /// Sorts each row of `scores` (`[N][K]`) in place, remembering where each candidate went.
    pub fn new(scores: Vec<f64>, k: usize) -> Arc<Self> {
        ScoreRows::on_threads(scores, k, 1)
    }

    /// [`ScoreRows::new`] with the rows sorted on `threads` threads, a contiguous run of rows
    /// each: the same rows, as each is sorted on its own. After a streamed pass this sorting
    /// is all that runs, so one core would otherwise sit idle.
    pub fn on_threads(mut scores: Vec<f64>, k: usize, threads: usize) -> Arc<Self> {
        let k = k.max(1);
        let rows_each = (scores.len() / k).div_ceil(threads.max(1)).max(1) * k;
        let rank = if k <= usize::from(u16::MAX) + 1 {
            let mut r = vec![0u16; scores.len()];
            in_runs(&mut scores, &mut r, rows_each, threads, |part, ranks| {
                sort_rows(part, ranks, k, |at| at as u16)
            });
            Ranks::Narrow(r)
        } else {
            let mut r = vec![0u32; scores.len()];
            in_runs(&mut scores, &mut r, rows_each, threads, |part, ranks| {
                sort_rows(part, ranks, k, |at| at as u32)
            });
            Ranks::Wide(r)
        };
        Arc::new(ScoreRows { k, sorted: scores, rank })
    }

    /// Rows already in order (each ascending by score, then candidate), with `place[u]` each
    /// candidate's position in its row.
    pub(super) fn from_sorted(sorted: Vec<f64>, place: &[u32], k: usize) -> Arc<Self> {
        let rank = if k <= usize::from(u16::MAX) + 1 {
            Ranks::Narrow(place.iter().map(|&p| p as u16).collect())
        } else {
            Ranks::Wide(place.to_vec())
        };
        Arc::new(ScoreRows { k: k.max(1), sorted, rank })
    }

    /// Row `i`'s score of candidate `c`.
    #[inline]
    pub fn score(&self, i: usize, c: usize) -> f64 {
        self.sorted[i * self.k + self.rank(i, c)]
    }

    /// Candidate `c`'s place in row `i`'s order (score by `f64::total_cmp`, then candidate).
    #[inline]
    pub fn rank(&self, i: usize, c: usize) -> usize {
        let u = i * self.k + c;
        match &self.rank {
            Ranks::Narrow(r) => usize::from(r[u]),
            Ranks::Wide(r) => r[u] as usize,
        }
    }

    /// Row `i`'s scores, by candidate.
    pub fn row(&self, i: usize) -> Vec<f64> {
        (0..self.k).map(|c| self.score(i, c)).collect()
    }

    /// Row `i`, ascending.
    pub(super) fn sorted_row(&self, i: usize) -> &[f64] {
        &self.sorted[i * self.k..(i + 1) * self.k]
    }

    /// Rows `N`.
    pub fn n(&self) -> usize {
        self.sorted.len() / self.k
    }
}

/// Calls `sort(scores, ranks)` on runs of `each` scores and the matching ranks, on threads of
/// their own when there are several (wasm has one thread).
fn in_runs<R: Send>(
    scores: &mut [f64],
    ranks: &mut [R],
    each: usize,
    threads: usize,
    sort: impl Fn(&mut [f64], &mut [R]) + Sync,
) {
    if threads <= 1 || cfg!(target_arch = "wasm32") {
        return sort(scores, ranks);
    }
    std::thread::scope(|s| {
        for (part, r) in scores.chunks_mut(each).zip(ranks.chunks_mut(each)) {
            let sort = &sort;
            s.spawn(move || sort(part, r));
        }
    });
}

/// Sorts each row of `scores` (`K` wide) in place and writes each candidate's place in
/// `ranks`. `f64::total_cmp`'s order, sorted as integers: the same order (the key is the one
/// `total_cmp` compares), and scores with equal keys are equal to the bit. Ties keep the
/// candidates' order, so a rank is the place in (score, candidate) order.
fn sort_rows<R>(scores: &mut [f64], ranks: &mut [R], k: usize, rank: impl Fn(usize) -> R) {
    let key = |b: u64| (b ^ ((((b as i64) >> 63) as u64) >> 1)) as i64;
    let mut pairs: Vec<(i64, u32)> = Vec::with_capacity(k);
    for (row, rr) in scores.chunks_exact_mut(k).zip(ranks.chunks_exact_mut(k)) {
        pairs.clear();
        pairs.extend(row.iter().enumerate().map(|(c, x)| (key(x.to_bits()), c as u32)));
        pairs.sort_unstable();
        for (at, &(kx, c)) in pairs.iter().enumerate() {
            // The key is its own inverse.
            row[at] = f64::from_bits(key(kx as u64) as u64);
            rr[c as usize] = rank(at);
        }
    }
}

/// A split's scores and what its threshold needs.
#[derive(Clone)]
pub(super) enum Store {
    /// One threshold for all test items, a quantile of the calibration scores `cal`
    /// (ascending). Test item `t`'s row is row `test[t]` of `rows` when `by_item`, else row `t`.
    Global { rows: Arc<ScoreRows>, by_item: bool, cal: Vec<f64> },
    /// Pooled CP_r: each test item's candidates' greedy steps `[test][K]` (r-value `step/U`)
    /// and the steps of its `n` calibration units, its own threshold.
    PerItem { steps: Vec<u32>, n: usize, cal: StepSets },
}

/// What a split's threshold is at one α: a score for all test items, the rank `k*` of each
/// item's own calibration step, or per class (a threshold per candidate, made from α).
#[derive(Clone, Copy)]
pub(super) enum Cut {
    Score(f64),
    Rank(usize),
    PerClass(f64),
}

/// One method's scores on one split, ready to answer any α.
#[derive(Clone)]
pub struct Calibrated {
    pub k: usize,
    /// Test items, ascending.
    pub test: Vec<usize>,
    /// Each test item's true label.
    pub(super) labels: Vec<usize>,
    pub(super) store: Store,
    /// Per-class thresholds' calibration units by class; `None`: one marginal threshold.
    pub(super) classes: Option<PerClass>,
}

/// The values, not how they are stored: two calibrations print alike when they answer alike.
impl std::fmt::Debug for Calibrated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rows: Vec<std::borrow::Cow<'_, [f64]>> = (0..self.test.len()).map(|t| self.row(t)).collect();
        let mut d = f.debug_struct("Calibrated");
        d.field("k", &self.k).field("test", &self.test).field("labels", &self.labels).field("rows", &rows);
        match &self.store {
            Store::Global { cal, .. } => d.field("cal", cal),
            Store::PerItem { n, cal, .. } => d.field("n", n).field("cal_steps", cal),
        };
        if let Some(p) = &self.classes {
            d.field("classes", p);
        }
        d.finish()
    }
}

/// A test item's prediction set, ordered by the method's score (ties to the lower candidate).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemSet {
    pub item: usize,
    /// `(candidate, score)` in set order; the index is the position.
    pub members: Vec<(usize, f64)>,
}

impl ItemSet {
    /// Whether `candidate` is in the set (for the true label: whether the set covers it).
    pub fn contains(&self, candidate: usize) -> bool {
        self.members.iter().any(|&(c, _)| c == candidate)
    }
}
impl Calibrated {
    /// From split-independent scores `[N][K]`, keeping the test items' rows.
    pub fn fixed(scores: &[f64], k: usize, labels: &[usize], split: &Split) -> Self {
        Self::fixed_with(scores, k, labels, split, Coverage::Marginal)
    }

    /// [`Calibrated::fixed`] with thresholds of the given coverage (per class: by the
    /// calibration items' labels).
    pub fn fixed_with(scores: &[f64], k: usize, labels: &[usize], split: &Split, coverage: Coverage) -> Self {
        let mut rows = Vec::with_capacity(split.test.len() * k);
        for &i in &split.test {
            rows.extend_from_slice(&scores[i * k..(i + 1) * k]);
        }
        let classes = (coverage == Coverage::PerClass).then_some(labels);
        Self::global(&ScoreRows::new(rows, k), false, k, labels, split, classes, |t| {
            scores[split.cal[t] * k + labels[split.cal[t]]]
        })
    }

    /// From split-independent scores shared by every split of the data set: the same values as
    /// [`Calibrated::fixed`] on `rows`' scores, without a copy per split.
    pub fn shared(rows: &Arc<ScoreRows>, k: usize, labels: &[usize], split: &Split) -> Self {
        Self::shared_with(rows, k, labels, split, Coverage::Marginal)
    }

    /// [`Calibrated::shared`] with thresholds of the given coverage.
    pub fn shared_with(
        rows: &Arc<ScoreRows>,
        k: usize,
        labels: &[usize],
        split: &Split,
        coverage: Coverage,
    ) -> Self {
        let classes = (coverage == Coverage::PerClass).then_some(labels);
        Self::global(rows, true, k, labels, split, classes, |t| {
            rows.score(split.cal[t], labels[split.cal[t]])
        })
    }

    /// From test items' rows and calibration units' scores given apart (true-label draws,
    /// [`true_draws`](super::true_draws)): test item `t`'s row is row `split.test[t]` of `rows`,
    /// unit `j`'s score `cal(j)`. The same values as [`Calibrated::shared`] on the joined data.
    pub fn of_units(
        rows: &Arc<ScoreRows>,
        k: usize,
        labels: &[usize],
        split: &Split,
        cal: impl Fn(usize) -> f64,
    ) -> Self {
        Self::of_units_with(rows, k, labels, split, None, cal)
    }

    /// [`Calibrated::of_units`] with per-class thresholds when `unit_classes` (each unit's
    /// class, `< k`) is given.
    pub fn of_units_with(
        rows: &Arc<ScoreRows>,
        k: usize,
        labels: &[usize],
        split: &Split,
        unit_classes: Option<&[usize]>,
        cal: impl Fn(usize) -> f64,
    ) -> Self {
        Self::global(rows, true, k, labels, split, unit_classes, |t| cal(split.cal[t]))
    }

    /// One threshold, or per class when `unit_classes` (indexed like `split.cal`'s values)
    /// names each calibration unit's class.
    #[allow(clippy::too_many_arguments)] // the rows, the split, and how to read its units
    pub(super) fn global(
        rows: &Arc<ScoreRows>,
        by_item: bool,
        k: usize,
        labels: &[usize],
        split: &Split,
        unit_classes: Option<&[usize]>,
        cal_score: impl Fn(usize) -> f64,
    ) -> Self {
        let mut cal: Vec<f64> = (0..split.cal.len()).map(cal_score).collect();
        let classes = unit_classes.map(|u| {
            let of: Vec<usize> = split.cal.iter().map(|&j| u.get(j).copied().unwrap_or(0)).collect();
            PerClass::of_scores(k, &of, &cal)
        });
        cal.sort_unstable_by(f64::total_cmp);
        Calibrated {
            k,
            test: split.test.clone(),
            labels: split.test.iter().map(|&i| labels[i]).collect(),
            store: Store::Global { rows: rows.clone(), by_item, cal },
            classes,
        }
    }
    /// The threshold `q̂` for test item `t` (by position in `test`): the `k*`-th smallest
    /// calibration score, `+∞` if `k* > n`. Pooled boundaries are `1` then, as all r ≤ 1. Per
    /// class, that of the item's true label's class ([`Calibrated::thresholds`]: every class's).
    pub fn threshold(&self, t: usize, alpha: f64) -> f64 {
        self.threshold_at(t, self.cut(alpha))
    }

    /// [`Calibrated::threshold`] at a cut already made (once per α, not per item).
    pub(super) fn threshold_at(&self, t: usize, cut: Cut) -> f64 {
        match cut {
            Cut::Score(q) => q,
            Cut::PerClass(alpha) => self.class_threshold(t, self.labels[t], alpha),
            Cut::Rank(0) => f64::NEG_INFINITY,
            Cut::Rank(ks) => self.boundary(t, ks).map_or(f64::INFINITY, |(b, units)| b as f64 / units as f64),
        }
    }

    pub(super) fn cut(&self, alpha: f64) -> Cut {
        if let Some(cut) = self.per_class_cut(alpha) {
            return cut;
        }
        match &self.store {
            Store::Global { cal, .. } => Cut::Score(conformal_quantile(cal, alpha)),
            Store::PerItem { n, .. } => Cut::Rank(k_star(*n, alpha)),
        }
    }

    /// Pooled test item `t`'s `ks`-th calibration step and `U`; `None` when `ks > n`.
    pub(super) fn boundary(&self, t: usize, ks: usize) -> Option<(u32, u32)> {
        match &self.store {
            Store::PerItem { cal, .. } => cal.select(t, ks).map(|b| (b, cal.units)),
            Store::Global { .. } => None,
        }
    }

    /// Test item `t`'s K scores (by position in `test`).
    pub fn row(&self, t: usize) -> std::borrow::Cow<'_, [f64]> {
        let k = self.k;
        match &self.store {
            Store::Global { rows, by_item, .. } => rows.row(if *by_item { self.test[t] } else { t }).into(),
            Store::PerItem { steps, cal, .. } => {
                let u = cal.units as f64;
                steps[t * k..(t + 1) * k].iter().map(|&s| s as f64 / u).collect::<Vec<f64>>().into()
            }
        }
    }

    /// Test item `t`'s score of candidate `c`, without making its row.
    pub(super) fn score(&self, t: usize, c: usize) -> f64 {
        match &self.store {
            Store::Global { rows, by_item, .. } => rows.score(if *by_item { self.test[t] } else { t }, c),
            Store::PerItem { steps, cal, .. } => steps[t * self.k + c] as f64 / cal.units as f64,
        }
    }

    /// Test item `t`'s row of a global threshold's scores, ascending (pooled CP_r: none).
    pub(super) fn global_sorted_row(&self, t: usize) -> &[f64] {
        match &self.store {
            Store::Global { rows, by_item, .. } => rows.sorted_row(if *by_item { self.test[t] } else { t }),
            Store::PerItem { .. } => &[],
        }
    }

    /// Test item `t`'s set size before never-empty and whether the set holds its true label,
    /// at `cut`: from the sorted row, or for pooled CP_r from the steps. Every step up to the
    /// boundary `b` chose one unit, `k*` of them calibration units, so `b − k*` candidates
    /// have r-values at most `b/U`.
    pub(super) fn held(&self, t: usize, cut: Cut) -> (usize, bool) {
        let (k, y) = (self.k, self.labels[t]);
        match (&self.store, cut) {
            (_, Cut::PerClass(alpha)) => {
                let (size, _, holds) = self.per_class_place(t, alpha);
                (size, holds)
            }
            (Store::PerItem { steps, .. }, Cut::Rank(ks)) => match (ks, self.boundary(t, ks)) {
                (0, _) => (0, false),
                (_, None) => (k, true),
                (_, Some((b, _))) => ((b as usize).saturating_sub(ks), steps[t * k + y] <= b),
            },
            (Store::Global { rows, by_item, .. }, Cut::Score(q)) => {
                let r = if *by_item { self.test[t] } else { t };
                (rows.sorted_row(r).partition_point(|&s| s <= q), rows.score(r, y) <= q)
            }
            // A cut is made by the same calibration's `cut`.
            _ => (0, false),
        }
    }

    /// Test item `t`'s true label.
    pub fn label(&self, t: usize) -> usize {
        self.labels[t]
    }

    /// Whether each test item has its own threshold (pooled CP_r) rather than one per split.
    pub fn per_item_threshold(&self) -> bool {
        matches!(self.store, Store::PerItem { .. })
    }

    /// The best candidate (lowest score, lowest index among ties).
    pub(super) fn best(&self, t: usize) -> usize {
        (0..self.k).fold(0, |b, c| if self.score(t, c) < self.score(t, b) { c } else { b })
    }

    /// Test item `t`'s set `{k : score ≤ q̂}` (≤: discrete r-values tie; per class `q̂_k`), in
    /// set order.
    pub fn set(&self, t: usize, alpha: f64, never_empty: bool) -> ItemSet {
        let q = self.thresholds(t, alpha);
        let row = self.row(t);
        let mut members: Vec<(usize, f64)> =
            (0..self.k).filter(|&c| row[c] <= q[c]).map(|c| (c, row[c])).collect();
        if members.is_empty() && never_empty {
            let b = self.best(t);
            members.push((b, row[b]));
        }
        members.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        ItemSet { item: self.test[t], members }
    }
}
