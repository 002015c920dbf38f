//! Split conformal prediction (docs/method.md §5): splits, the three nonconformity scores, calibration,
//! prediction sets and their metrics over repeated splits.
//!
//! A method's scores for a split are kept as a [`Calibrated`]: candidate scores of the test
//! items (sorted once) and what the threshold needs. Any α, or a sweep over 100 of them, is then
//! answered without recomputing a single r-value.

use crate::eb::Hyper;
use crate::rng::Stream;
use crate::rvalue::nonparametric::nonparametric_from_order;
use crate::rvalue::{
    self, Algorithm, DrawOrder, HyperChoice, LambdaRule, PooledSplit, TieOrder, Ties, Workspace,
};
use crate::tensor::{ScoreTensor, Summaries, VarianceKind};
use crate::{watch, Error, Result};
use std::sync::Arc;
use steps::StepSets;

pub use crate::quantile::{conformal_quantile, k_star};

crate::options! {
    /// A conformal method (docs/method.md §5).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Method("method") {
        /// `−S[x][m0][k]`: one draw's score.
        Cp = "cp",
        /// `−X`: the mean over draws.
        CpAvg = "cp-avg",
        /// The r-value.
        CpR = "cp-r",
    }

    /// Which r-value CP_r uses.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum RvalueKind("r-value kind") {
        /// Normal–Normal r-value over each item's K candidates (docs/method.md §2).
        #[default]
        Parametric = "parametric",
        /// Rank counts over each item's draws (docs/method.md §3).
        Nonparametric = "nonparametric",
        /// Pooled with the calibration items' true labels (docs/method.md §4).
        Pooled = "pooled",
    }

    /// Where the parametric r-value's prior comes from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Prior("prior") {
        /// One prior per item, over its K candidates (the paper's setting).
        #[default]
        PerItem = "per-item",
        /// One prior estimated from all items' candidates.
        Pooled = "pooled",
    }
}

/// Whether scoring `methods` with `opts` ranks draws (CP_r with rank-based r-values), i.e.
/// whether [`Prepared::new`] should build the draw orders.
pub fn needs_draw_orders(methods: &[Method], opts: &ScoreOptions) -> bool {
    methods.contains(&Method::CpR) && opts.kind != RvalueKind::Parametric
}

/// Everything that shapes the scores (not α, not the split).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreOptions {
    pub kind: RvalueKind,
    pub variance: VarianceKind,
    pub prior: Prior,
    pub algorithm: Algorithm,
    pub lambda: LambdaRule,
    /// CP's draw `m0`.
    pub cp_draw: usize,
    /// How pooled r-values break ties between units (docs/method.md §4).
    pub ties: TieOrder,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions {
            kind: RvalueKind::Parametric,
            variance: VarianceKind::PerDraw,
            prior: Prior::PerItem,
            algorithm: Algorithm::Exact,
            lambda: LambdaRule::Model,
            cp_draw: 0,
            ties: TieOrder::Exchangeable,
        }
    }
}

/// A calibration/test split; both lists ascending. `seed` and `index` name it in its seeded
/// series (split `index` of `seed`), and key its pooled r-values' exchangeable tie order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub cal: Vec<usize>,
    pub test: Vec<usize>,
    pub seed: u64,
    pub index: u64,
}

impl Split {
    /// A split of these items, keyed as split 0 of seed 0.
    pub fn new(cal: Vec<usize>, test: Vec<usize>) -> Self {
        Split { cal, test, seed: 0, index: 0 }
    }

    /// The split keyed as split `index` of `seed` instead.
    pub fn keyed(self, seed: u64, index: u64) -> Self {
        Split { seed, index, ..self }
    }

    /// Its pooled r-values' tie order under `order`.
    pub fn ties(&self, order: TieOrder) -> Ties {
        Ties::new(order, self.seed, self.index)
    }

    /// Split number `index` of a seeded series: a random permutation, the first
    /// `round(n · cal_fraction)` items calibrate.
    pub fn random(n: usize, cal_fraction: f64, seed: u64, index: usize) -> Result<Self> {
        if !(cal_fraction > 0.0 && cal_fraction < 1.0) {
            return Err(Error::invalid(format!("calibration fraction {cal_fraction} is not in (0, 1)")));
        }
        let n_cal = (n as f64 * cal_fraction).round() as usize;
        if n_cal == 0 || n_cal >= n {
            return Err(Error::invalid(format!(
                "{n} items are too few for a split with calibration fraction {cal_fraction}: \
                 need at least one calibration and one test item"
            )));
        }
        let perm = Stream::new(seed, index as u64).permutation(n);
        let mut cal = perm[..n_cal].to_vec();
        let mut test = perm[n_cal..].to_vec();
        cal.sort_unstable();
        test.sort_unstable();
        Ok(Split { cal, test, seed, index: index as u64 })
    }

    /// The split of a boolean mask, `true` = calibration.
    pub fn from_mask(mask: &[bool]) -> Result<Self> {
        let cal: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        let test: Vec<usize> = (0..mask.len()).filter(|&i| !mask[i]).collect();
        if cal.is_empty() || test.is_empty() {
            return Err(Error::invalid(format!(
                "the split mask has {} calibration and {} test items; both must be at least one",
                cal.len(),
                test.len()
            )));
        }
        Ok(Split::new(cal, test))
    }
}

/// Checks a data set for conformal use.
pub fn check_data(t: &ScoreTensor, labels: &[usize]) -> Result<()> {
    if labels.len() != t.n() {
        return Err(Error::length("labels", labels.len(), format!("{} items", t.n())));
    }
    if let Some(i) = labels.iter().position(|&y| y >= t.k()) {
        return Err(Error::invalid(format!("label of item {i} is {} but K = {}", labels[i], t.k())));
    }
    Ok(())
}

/// Checks α.
pub fn check_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(Error::out_of_range("α", alpha, "(0, 1)"))
    }
}

/// Split-independent nonconformity scores `[N][K]` (lower = more conforming) of a method; `None`
/// for pooled CP_r, whose scores depend on the calibration items.
pub fn item_scores(
    t: &ScoreTensor,
    summaries: &Summaries,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
) -> Result<Option<Vec<f64>>> {
    scores_with(t, Some(summaries), order, method, opts, |_| None, 1)
}

/// [`item_scores`] where item `i` with `only[i] = Some(c)` needs candidate `c`'s score alone (a
/// calibration item that is a test item in no split: [`Calibrated::fixed`] reads only its true
/// label's score). Parametric CP_r then computes that one r-value (the same bits as in
/// [`item_scores`]) and leaves the item's other entries NaN: the rows keep their `[N][K]`
/// layout, and an entry nobody computed must not pass for a score. The other methods compute
/// every entry, as they cost little. `only` has one entry per item.
pub fn item_scores_only(
    t: &ScoreTensor,
    summaries: &Summaries,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    only: &[Option<usize>],
) -> Result<Option<Vec<f64>>> {
    check_only(t, only)?;
    scores_with(t, Some(summaries), order, method, opts, |i| only[i], 1)
}

fn check_only(t: &ScoreTensor, only: &[Option<usize>]) -> Result<()> {
    if only.len() != t.n() {
        return Err(Error::length("entries of needed candidates", only.len(), format!("{} items", t.n())));
    }
    if let Some(i) = only.iter().position(|c| c.is_some_and(|c| c >= t.k())) {
        return Err(Error::invalid(format!("item {i}'s needed candidate is beyond K = {}", t.k())));
    }
    Ok(())
}

/// Per item, the one candidate whose score `splits` read when the item is a test item in none
/// of them (calibration reads only the true label's), else `None`: every candidate.
pub fn needed_candidates(labels: &[usize], splits: &[Split]) -> Vec<Option<usize>> {
    let mut only: Vec<Option<usize>> = labels.iter().map(|&y| Some(y)).collect();
    for i in splits.iter().flat_map(|s| &s.test) {
        if let Some(o) = only.get_mut(*i) {
            *o = None;
        }
    }
    only
}

/// [`item_scores_only`]'s work; the rank-based and parametric r-values' items in `threads`
/// contiguous chunks, one thread each, joined in item order (the same scores for every count).
/// Summaries and draw orders not given are computed here if the method needs them.
fn scores_with(
    t: &ScoreTensor,
    summaries: Option<&Summaries>,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    only: impl Fn(usize) -> Option<usize> + Sync,
    threads: usize,
) -> Result<Option<Vec<f64>>> {
    let (n, k) = (t.n(), t.k());
    match method {
        Method::Cp => {
            if opts.cp_draw >= t.m() {
                return Err(Error::invalid(format!(
                    "CP's draw {} does not exist (M = {})",
                    opts.cp_draw,
                    t.m()
                )));
            }
            let mut out = Vec::with_capacity(n * k);
            let mut buf = Vec::new();
            for i in 0..n {
                out.extend(t.draw(i, opts.cp_draw, &mut buf).iter().map(|s| -s));
            }
            Ok(Some(out))
        }
        Method::CpAvg => match summaries {
            Some(s) => Ok(Some(s.mean.iter().map(|x| -x).collect())),
            None => Ok(Some(Summaries::of(t).mean.iter().map(|x| -x).collect())),
        },
        Method::CpR => match opts.kind {
            RvalueKind::Pooled => Ok(None),
            RvalueKind::Nonparametric => {
                // Without shared orders each thread sorts a block of items at a time: every
                // item's orders are read once here, so the whole tensor's need not be held.
                let rows = |items: std::ops::Range<usize>| -> Result<Vec<f64>> {
                    let mut out = Vec::with_capacity(items.len() * k);
                    match order {
                        Some(o) => out.extend(items.flat_map(|i| nonparametric_from_order(o, i))),
                        None => {
                            for start in items.clone().step_by(ORDER_BLOCK) {
                                let block = start..(start + ORDER_BLOCK).min(items.end);
                                let o = DrawOrder::of_items(t, block.clone())?;
                                out.extend((0..block.len()).flat_map(|j| nonparametric_from_order(&o, j)));
                            }
                        }
                    }
                    Ok(out)
                };
                in_chunks(n, threads, rows).map(Some)
            }
            RvalueKind::Parametric => match summaries {
                Some(s) => parametric_rows(s, opts, only, threads).map(Some),
                None => parametric_rows(&Summaries::of(t), opts, only, threads).map(Some),
            },
        },
    }
}

/// Parametric CP_r's rows `[N][K]` from the summaries alone, each item as much as `only` asks
/// ([`item_scores_only`]), the items in `threads` contiguous chunks joined in order.
fn parametric_rows(
    summaries: &Summaries,
    opts: &ScoreOptions,
    only: impl Fn(usize) -> Option<usize> + Sync,
    threads: usize,
) -> Result<Vec<f64>> {
    let hyper = match opts.prior {
        Prior::PerItem => HyperChoice::Estimate,
        Prior::Pooled => HyperChoice::Fixed(pooled_hyper(summaries, opts.variance)?),
    };
    let rows = |items: std::ops::Range<usize>| -> Result<Vec<f64>> {
        let mut out = Vec::with_capacity(items.len() * summaries.k);
        parametric_scores(summaries, opts, hyper, items, |i| only(i).into(), &mut out)?;
        Ok(out)
    };
    in_chunks(summaries.n, threads, rows)
}

/// `rows(range)` over `0..n` cut into `threads` contiguous ranges, each on a thread of its own,
/// concatenated in order: the same as `rows(0..n)` whatever the count. One thread runs here.
fn in_chunks<T: Send>(
    n: usize,
    threads: usize,
    rows: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>> + Sync,
) -> Result<Vec<T>> {
    let size = n.div_ceil(threads.max(1)).max(1);
    let watch = watch::current();
    let rows = |range: std::ops::Range<usize>| match &watch {
        Some(w) => watched_rows(w, range, &rows),
        None => rows(range),
    };
    // wasm has one thread: the spawning code would only weigh on the page's download.
    if threads <= 1 || size >= n || cfg!(target_arch = "wasm32") {
        return rows(0..n);
    }
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|s| {
        let rows = &rows;
        let running: Vec<_> =
            (0..n).step_by(size).map(|a| s.spawn(move || rows(a..(a + size).min(n)))).collect();
        running.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(stopped()))).collect()
    });
    // The parts are freed as they are joined, the first grown in place, so that the rows are
    // not held twice (a large data set's scores are a good part of its memory).
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_else(|| Ok(Vec::new()))?;
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// Items between two checks of a watched run's stop flag in [`in_chunks`].
const WATCH_BLOCK: usize = 1024;

/// `rows(range)` a block of items at a time, stopping between blocks when `watch` asks: the same
/// rows, as each item's are its own.
fn watched_rows<T>(
    watch: &watch::Watch,
    range: std::ops::Range<usize>,
    rows: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for start in range.clone().step_by(WATCH_BLOCK) {
        watch::checkpoint_of(Some(watch))?;
        let block = start..(start + WATCH_BLOCK).min(range.end);
        let part = rows(block.clone())?;
        if out.is_empty() {
            // Room for the whole range at the first block's rate, so the rows grow only once.
            out.reserve_exact(part.len() / block.len() * range.len());
        }
        out.extend(part);
    }
    Ok(out)
}

/// A worker thread that ended without a result (it panicked).
fn stopped() -> Error {
    Error::invalid("a worker thread stopped without a result")
}

/// Which of an item's parametric r-values a caller reads ([`parametric_scores`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    /// Every candidate's.
    All,
    /// Candidate `c`'s alone (a calibration item's true label); the others are NaN.
    One(usize),
    /// Exactly those at most the bound; the others may be `+∞`, known to exceed it
    /// ([`rvalue::parametric_up_to`]). For a test item whose sets are only asked at thresholds up
    /// to the bound: its sets, coverage, the true label's position and the best candidate are
    /// then those of the exact row.
    UpTo(f64),
}

impl From<Option<usize>> for Need {
    fn from(only: Option<usize>) -> Need {
        only.map_or(Need::All, Need::One)
    }
}

/// Parametric CP_r's rows of items `items` appended to `out` (the explorer runs this a chunk of
/// items at a time), each as much as `need(i)` asks (see [`item_scores_only`] and [`Need`]).
pub fn parametric_scores(
    summaries: &Summaries,
    opts: &ScoreOptions,
    hyper: HyperChoice,
    items: std::ops::Range<usize>,
    need: impl Fn(usize) -> Need,
    out: &mut Vec<f64>,
) -> Result<()> {
    let k = summaries.k;
    // One buffer for every item's variances: an allocation per item showed in the profile.
    let mut s = Vec::with_capacity(k);
    for i in items {
        s.clear();
        s.extend((0..k).map(|c| summaries.s(i, c, opts.variance)));
        let x = summaries.mean_row(i);
        match need(i) {
            Need::All => {
                out.extend(rvalue::parametric(x, &s, hyper, opts.algorithm, opts.lambda)?.rvalue);
            }
            Need::One(c) => {
                let r = rvalue::parametric_unit(x, &s, hyper, opts.algorithm, opts.lambda, c)?;
                out.extend((0..k).map(|j| if j == c { r } else { f64::NAN }));
            }
            Need::UpTo(bound) => {
                out.extend(rvalue::parametric_up_to(x, &s, hyper, opts.algorithm, opts.lambda, bound)?);
            }
        }
    }
    Ok(())
}

/// The hyperparameters a pooled prior would use (for display).
pub fn pooled_hyper(summaries: &Summaries, variance: VarianceKind) -> Result<Hyper> {
    let s: Vec<f64> = (0..summaries.n)
        .flat_map(|i| (0..summaries.k).map(move |c| (i, c)))
        .map(|(i, c)| summaries.s(i, c, variance))
        .collect();
    crate::eb::estimate(&summaries.mean, &s)
}

/// Split-independent scores `[N][K]` and each row ascending, made once per data set and shared
/// by the [`Calibrated`] of all its splits: a hundred splits of a large file would otherwise hold
/// a hundred copies of the test rows.
#[derive(Debug)]
pub struct ScoreRows {
    scores: Vec<f64>,
    sorted: Vec<f64>,
}

impl ScoreRows {
    pub fn new(scores: Vec<f64>, k: usize) -> Arc<Self> {
        let mut sorted = scores.clone();
        for row in sorted.chunks_exact_mut(k.max(1)) {
            row.sort_unstable_by(f64::total_cmp);
        }
        Arc::new(ScoreRows { scores, sorted })
    }
}

/// A split's scores and what its threshold needs.
#[derive(Clone)]
enum Store {
    /// One threshold for all test items, a quantile of the calibration scores `cal`
    /// (ascending). Test item `t`'s row is row `test[t]` of `rows` when `by_item`, else row `t`.
    Global { rows: Arc<ScoreRows>, by_item: bool, cal: Vec<f64> },
    /// Pooled CP_r: each test item's candidates' greedy steps `[test][K]` (r-value `step/U`)
    /// and the steps of its `n` calibration units, its own threshold.
    PerItem { steps: Vec<u32>, n: usize, cal: StepSets },
}

/// What a split's threshold is at one α: a score for all test items, or the rank `k*` of each
/// item's own calibration step.
#[derive(Clone, Copy)]
enum Cut {
    Score(f64),
    Rank(usize),
}

/// One method's scores on one split, ready to answer any α.
#[derive(Clone)]
pub struct Calibrated {
    pub k: usize,
    /// Test items, ascending.
    pub test: Vec<usize>,
    /// Each test item's true label.
    labels: Vec<usize>,
    store: Store,
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
        d.finish()
    }
}

/// Metrics of one split at one α.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitMetrics {
    pub coverage: f64,
    pub size: f64,
    /// Mean 0-based position of the true label in its set (over items whose set holds it);
    /// `NaN` when no set does.
    pub position: f64,
    pub empty_rate: f64,
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

/// Items whose draw orders nonparametric scoring sorts together when no orders are shared.
const ORDER_BLOCK: usize = 64;

/// Test items whose entry points [`PooledSplit::items`] finds together.
const POOLED_BATCH: usize = 16;

/// Test items per thread whose greedy results [`Calibrated::pooled_threads`] holds at once.
const POOLED_ROUND: usize = 16 * POOLED_BATCH;

/// Pooled CP_r on one split, built a chunk of test items at a time so that a page can spread
/// the greedy over several frames; [`Calibrated::pooled`] is one `step` over all items.
#[derive(Debug)]
pub struct PooledBuilder {
    ps: PooledSplit,
    work: Workspace,
    out: PooledScores,
    next: usize,
    /// Test item `i` is keyed (its tie order) as item `key_offset + i`: a pool's test items
    /// follow its units ([`pool`]).
    key_offset: usize,
}

/// Greedy results collected into a split's scores, test item by test item in `split.test`
/// order: each candidate's step and the calibration units' steps.
#[derive(Debug)]
struct PooledScores {
    k: usize,
    n: usize,
    steps: Vec<u32>,
    cal: StepSets,
}

impl PooledScores {
    fn new(k: usize, split: &Split) -> Self {
        let (n, items) = (split.cal.len(), split.test.len());
        // U = n + K (docs/method.md §4); the greedy's items say the same.
        let units = u32::try_from(n + k).unwrap_or(u32::MAX);
        PooledScores { k, n, steps: Vec::with_capacity(items * k), cal: StepSets::new(units, items) }
    }

    /// The next test item's result.
    fn record(&mut self, it: &rvalue::PooledItem) {
        self.steps.extend_from_slice(&it.cand_step);
        self.cal.push(&it.cal_steps);
    }

    fn finish(self, labels: &[usize], split: &Split) -> Calibrated {
        Calibrated {
            k: self.k,
            test: split.test.clone(),
            labels: split.test.iter().map(|&i| labels[i]).collect(),
            store: Store::PerItem { steps: self.steps, n: self.n, cal: self.cal },
        }
    }
}

impl PooledBuilder {
    pub fn new(t: &ScoreTensor, labels: &[usize], split: &Split, ties: TieOrder) -> Result<Self> {
        Ok(PooledBuilder {
            ps: PooledSplit::new(t, labels, &split.cal, split.ties(ties))?,
            work: Workspace::default(),
            out: PooledScores::new(t.k(), split),
            next: 0,
            key_offset: 0,
        })
    }

    /// Pooled CP_r on a split of a pool of true-label draws and test items of `k` candidates
    /// ([`pool`]): the split's `cal` names units of `pool`, its `test` test items, keyed after
    /// the pool's units as [`pool::calibrate_with_pool`] keys them.
    pub fn of_pool(pool: &pool::TruePool, k: usize, split: &Split, ties: TieOrder) -> Result<Self> {
        Ok(PooledBuilder {
            ps: PooledSplit::from_draws(&pool.units(&split.cal), pool.m(), k, split.ties(ties))?,
            work: Workspace::default(),
            out: PooledScores::new(k, split),
            next: 0,
            key_offset: pool.n(),
        })
    }

    /// Work of one test item in draw-unit updates, `M·(n + K)`, for sizing chunks.
    pub fn item_cost(t: &ScoreTensor, split: &Split) -> usize {
        t.m() * (split.cal.len() + t.k())
    }

    /// Runs the greedy for up to `items` more test items (`t`, `order` and `split` as in
    /// [`PooledBuilder::new`]); true when every test item is done.
    pub fn step(&mut self, t: &ScoreTensor, order: Option<&DrawOrder>, split: &Split, items: usize) -> bool {
        let end = self.next.saturating_add(items.max(1)).min(split.test.len());
        // Batches share each draw's calibration tables while their entry points are found.
        for batch in split.test[self.next..end].chunks(POOLED_BATCH) {
            for it in self.ps.items_at(t, batch, self.key_offset, order, &mut self.work) {
                self.out.record(&it);
            }
        }
        self.next = end;
        end == split.test.len()
    }

    /// Test items done so far.
    pub fn done(&self) -> usize {
        self.next
    }

    /// The calibrated split; call after `step` has returned true.
    pub fn finish(self, labels: &[usize], split: &Split) -> Calibrated {
        self.out.finish(labels, split)
    }
}

impl Calibrated {
    /// From split-independent scores `[N][K]`, keeping the test items' rows.
    pub fn fixed(scores: &[f64], k: usize, labels: &[usize], split: &Split) -> Self {
        let mut rows = Vec::with_capacity(split.test.len() * k);
        for &i in &split.test {
            rows.extend_from_slice(&scores[i * k..(i + 1) * k]);
        }
        Self::global(&ScoreRows::new(rows, k), false, k, labels, split, |t| {
            scores[split.cal[t] * k + labels[split.cal[t]]]
        })
    }

    /// From split-independent scores shared by every split of the data set: the same values as
    /// [`Calibrated::fixed`] on `rows`' scores, without a copy per split.
    pub fn shared(rows: &Arc<ScoreRows>, k: usize, labels: &[usize], split: &Split) -> Self {
        Self::global(rows, true, k, labels, split, |t| rows.scores[split.cal[t] * k + labels[split.cal[t]]])
    }

    /// From test items' rows and calibration units' scores given apart (a pool of true-label
    /// draws, [`pool`]): test item `t`'s row is row `split.test[t]` of `rows`, unit `j`'s score
    /// `cal(j)`. The same values as [`Calibrated::shared`] on the joined data.
    pub fn of_units(
        rows: &Arc<ScoreRows>,
        k: usize,
        labels: &[usize],
        split: &Split,
        cal: impl Fn(usize) -> f64,
    ) -> Self {
        Self::global(rows, true, k, labels, split, |t| cal(split.cal[t]))
    }

    fn global(
        rows: &Arc<ScoreRows>,
        by_item: bool,
        k: usize,
        labels: &[usize],
        split: &Split,
        cal_score: impl Fn(usize) -> f64,
    ) -> Self {
        let mut cal: Vec<f64> = (0..split.cal.len()).map(cal_score).collect();
        cal.sort_unstable_by(f64::total_cmp);
        Calibrated {
            k,
            test: split.test.clone(),
            labels: split.test.iter().map(|&i| labels[i]).collect(),
            store: Store::Global { rows: rows.clone(), by_item, cal },
        }
    }

    /// Pooled CP_r: runs the greedy for every test item of the split, ties broken by `ties`.
    pub fn pooled(
        t: &ScoreTensor,
        labels: &[usize],
        order: Option<&DrawOrder>,
        split: &Split,
        ties: TieOrder,
    ) -> Result<Self> {
        let mut b = PooledBuilder::new(t, labels, split, ties)?;
        b.step(t, order, split, usize::MAX);
        Ok(b.finish(labels, split))
    }

    /// [`Calibrated::pooled`] with the test items in `threads` contiguous chunks, one thread
    /// each with its own workspace over the split's shared calibration tables, recorded in
    /// test order: the same result for every count. One thread runs here.
    pub fn pooled_threads(
        t: &ScoreTensor,
        labels: &[usize],
        order: Option<&DrawOrder>,
        split: &Split,
        ties: TieOrder,
        threads: usize,
    ) -> Result<Self> {
        if threads <= 1 {
            // A round at a time, so that a watched run can stop between rounds.
            let mut b = PooledBuilder::new(t, labels, split, ties)?;
            loop {
                watch::checkpoint()?;
                let before = b.done();
                let finished = b.step(t, order, split, POOLED_ROUND);
                watch::advance(b.done() - before);
                if finished {
                    return Ok(b.finish(labels, split));
                }
            }
        }
        let ps = PooledSplit::new(t, labels, &split.cal, split.ties(ties))?;
        let mut out = PooledScores::new(t.k(), split);
        // A round of test items at a time, recorded before the next: a greedy result holds all
        // `n` calibration steps, and a large split's all at once would double its memory.
        for round in split.test.chunks(threads * POOLED_ROUND) {
            watch::checkpoint()?;
            let items = |range: std::ops::Range<usize>| -> Result<Vec<rvalue::PooledItem>> {
                let mut work = Workspace::default();
                // Batches share each draw's calibration tables while their entry points are found.
                Ok(round[range].chunks(POOLED_BATCH).flat_map(|b| ps.items(t, b, order, &mut work)).collect())
            };
            for it in &in_chunks(round.len(), threads, items)? {
                out.record(it);
            }
            watch::advance(round.len());
        }
        Ok(out.finish(labels, split))
    }

    /// Pooled CP_r from greedy results computed elsewhere (the GPU path, `gpu::pooled_items`),
    /// one per test item in `split.test` order: the same value as [`Calibrated::pooled`].
    pub fn from_pooled_items(
        k: usize,
        labels: &[usize],
        split: &Split,
        items: &[rvalue::PooledItem],
    ) -> Self {
        let mut out = PooledScores::new(k, split);
        items.iter().take(split.test.len()).for_each(|it| out.record(it));
        out.finish(labels, split)
    }

    /// The threshold `q̂` for test item `t` (by position in `test`): the `k*`-th smallest
    /// calibration score, `+∞` if `k* > n`. Pooled boundaries are `1` then, as all r ≤ 1.
    pub fn threshold(&self, t: usize, alpha: f64) -> f64 {
        match self.cut(alpha) {
            Cut::Score(q) => q,
            Cut::Rank(0) => f64::NEG_INFINITY,
            Cut::Rank(ks) => self.boundary(t, ks).map_or(f64::INFINITY, |(b, units)| b as f64 / units as f64),
        }
    }

    fn cut(&self, alpha: f64) -> Cut {
        match &self.store {
            Store::Global { cal, .. } => Cut::Score(conformal_quantile(cal, alpha)),
            Store::PerItem { n, .. } => Cut::Rank(k_star(*n, alpha)),
        }
    }

    /// Pooled test item `t`'s `ks`-th calibration step and `U`; `None` when `ks > n`.
    fn boundary(&self, t: usize, ks: usize) -> Option<(u32, u32)> {
        match &self.store {
            Store::PerItem { cal, .. } => cal.select(t, ks).map(|b| (b, cal.units)),
            Store::Global { .. } => None,
        }
    }

    /// Test item `t`'s K scores (by position in `test`).
    pub fn row(&self, t: usize) -> std::borrow::Cow<'_, [f64]> {
        let k = self.k;
        match &self.store {
            Store::Global { .. } => self.global_row(t).into(),
            Store::PerItem { steps, cal, .. } => {
                let u = cal.units as f64;
                steps[t * k..(t + 1) * k].iter().map(|&s| s as f64 / u).collect::<Vec<f64>>().into()
            }
        }
    }

    /// Test item `t`'s score of candidate `c`, without making its row.
    fn score(&self, t: usize, c: usize) -> f64 {
        match &self.store {
            Store::Global { .. } => self.global_row(t)[c],
            Store::PerItem { steps, cal, .. } => steps[t * self.k + c] as f64 / cal.units as f64,
        }
    }

    /// Test item `t`'s row of a global threshold's scores (pooled CP_r: none).
    fn global_row(&self, t: usize) -> &[f64] {
        match &self.store {
            Store::Global { rows, by_item, .. } => {
                let r = if *by_item { self.test[t] } else { t };
                &rows.scores[r * self.k..(r + 1) * self.k]
            }
            Store::PerItem { .. } => &[],
        }
    }

    /// Test item `t`'s set size before never-empty and whether the set holds its true label,
    /// at `cut`: from the sorted row, or for pooled CP_r from the steps. Every step up to the
    /// boundary `b` chose one unit, `k*` of them calibration units, so `b − k*` candidates
    /// have r-values at most `b/U`.
    fn held(&self, t: usize, cut: Cut) -> (usize, bool) {
        let (k, y) = (self.k, self.labels[t]);
        match (&self.store, cut) {
            (Store::PerItem { steps, .. }, Cut::Rank(ks)) => match (ks, self.boundary(t, ks)) {
                (0, _) => (0, false),
                (_, None) => (k, true),
                (_, Some((b, _))) => ((b as usize).saturating_sub(ks), steps[t * k + y] <= b),
            },
            (Store::Global { rows, by_item, .. }, Cut::Score(q)) => {
                let r = if *by_item { self.test[t] } else { t };
                let sorted = &rows.sorted[r * k..(r + 1) * k];
                (sorted.partition_point(|&s| s <= q), rows.scores[r * k + y] <= q)
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
    fn best(&self, t: usize) -> usize {
        (0..self.k).fold(0, |b, c| if self.score(t, c) < self.score(t, b) { c } else { b })
    }

    /// Test item `t`'s set `{k : score ≤ q̂}` (≤: discrete r-values tie), in set order.
    pub fn set(&self, t: usize, alpha: f64, never_empty: bool) -> ItemSet {
        let q = self.threshold(t, alpha);
        let row = self.row(t);
        let mut members: Vec<(usize, f64)> =
            (0..self.k).filter(|&c| row[c] <= q).map(|c| (c, row[c])).collect();
        if members.is_empty() && never_empty {
            let b = self.best(t);
            members.push((b, row[b]));
        }
        members.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        ItemSet { item: self.test[t], members }
    }

    /// Coverage, size, position and empty rate at α.
    pub fn metrics(&self, alpha: f64, never_empty: bool) -> SplitMetrics {
        let nt = self.test.len();
        let (mut covered, mut size, mut empty, mut pos_sum) = (0usize, 0usize, 0usize, 0usize);
        for t in 0..nt {
            let (count, position) = self.size_and_position(t, alpha, never_empty);
            size += count;
            empty += usize::from(count == 0);
            if let Some(p) = position {
                covered += 1;
                pos_sum += p;
            }
        }
        let nt = nt as f64;
        SplitMetrics {
            coverage: covered as f64 / nt,
            size: size as f64 / nt,
            position: if covered > 0 { pos_sum as f64 / covered as f64 } else { f64::NAN },
            empty_rate: empty as f64 / nt,
        }
    }

    /// Test item `t`'s set size and its true label's place in set order (`None` when outside):
    /// what [`Calibrated::set`] gives, without building or sorting the set. Metrics over many
    /// splits make this the hot loop (a sort per item and split cost more than the r-values
    /// did): with one threshold, two binary searches in the sorted row; pooled, one pass.
    fn size_and_position(&self, t: usize, alpha: f64, never_empty: bool) -> (usize, Option<usize>) {
        let (q, y) = (self.threshold(t, alpha), self.labels[t]);
        let (size, before, in_set) = match &self.store {
            Store::Global { rows, by_item, .. } => {
                let (k, r) = (self.k, if *by_item { self.test[t] } else { t });
                let (row, sorted) = (&rows.scores[r * k..(r + 1) * k], &rows.sorted[r * k..(r + 1) * k]);
                let sy = row[y];
                // Ahead of the label: lower scores, then equal ones at lower indices (rare).
                let lower = sorted.partition_point(|s| s.total_cmp(&sy).is_lt());
                let tied = sorted.get(lower + 1).is_some_and(|s| s.total_cmp(&sy).is_eq());
                let ties =
                    if tied { row[..y].iter().filter(|s| s.total_cmp(&sy).is_eq()).count() } else { 0 };
                (sorted.partition_point(|&s| s <= q), lower + ties, sy <= q)
            }
            Store::PerItem { .. } => {
                let row = self.row(t);
                let key_y = (row[y], y);
                let (mut size, mut before) = (0, 0);
                for (c, &s) in row.iter().enumerate() {
                    if s <= q {
                        size += 1;
                        before += usize::from(s.total_cmp(&key_y.0).then(c.cmp(&key_y.1)).is_lt());
                    }
                }
                (size, before, key_y.0 <= q)
            }
        };
        if size == 0 && never_empty {
            return (1, (self.best(t) == y).then_some(0));
        }
        (size, in_set.then_some(before))
    }

    /// Coverage and mean set size at each α, from the sorted scores: `O(log K)` per item and α,
    /// or with a global threshold and few candidates `O(log A)` per test score.
    pub fn sweep(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        match &self.store {
            Store::Global { .. } if self.global_sweep_pays(alphas.len()) => {
                self.sweep_global(alphas, never_empty)
            }
            _ => self.sweep_per_item(alphas, never_empty),
        }
    }

    /// Whether placing all `n·K` test scores among the A thresholds (`n·K·log A`) costs less than
    /// a binary search per item and α (`A·n·log K`): yes for the toy's ten candidates, no for a
    /// hundred classes (a tie keeps the per-item loop).
    fn global_sweep_pays(&self, alphas: usize) -> bool {
        self.k * (alphas.max(2).ilog2() as usize) < alphas * self.k.max(2).ilog2() as usize
    }

    /// [`Calibrated::sweep`] item by item (any threshold).
    fn sweep_per_item(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        let nt = self.test.len();
        let best: Vec<usize> = if never_empty { (0..nt).map(|t| self.best(t)).collect() } else { Vec::new() };
        alphas
            .iter()
            .map(|&alpha| {
                let cut = self.cut(alpha);
                let (mut covered, mut size) = (0usize, 0usize);
                for t in 0..nt {
                    let (count, holds) = self.held(t, cut);
                    if count == 0 && never_empty {
                        size += 1;
                        covered += usize::from(best[t] == self.labels[t]);
                    } else {
                        size += count;
                        covered += usize::from(holds);
                    }
                }
                (covered as f64 / nt as f64, size as f64 / nt as f64)
            })
            .collect()
    }

    /// [`Calibrated::sweep`] with one threshold `q` for all test items. Then every count is a
    /// count of values at or below `q`: the set sizes add up to the test scores `≤ q`, coverage
    /// counts the true labels' scores `≤ q`, and never-empty adds, per item whose best score
    /// exceeds `q`, a set of one that covers when the best candidate is the true one. The counts
    /// are the per-item loop's, so the fractions are the same bits.
    fn sweep_global(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        let nt = self.test.len();
        let qs: Vec<f64> = alphas.iter().map(|&alpha| self.threshold(0, alpha)).collect();
        let size = counts_at_most((0..nt).flat_map(|t| self.global_row(t).iter().copied()), &qs);
        let covered = counts_at_most((0..nt).map(|t| self.score(t, self.labels[t])), &qs);
        // Each row's lowest score, for all items and for those whose best is the true label.
        let (mut mins, mut mins_true) = (Vec::new(), Vec::new());
        if never_empty {
            for t in 0..nt {
                let b = self.best(t);
                mins.push(self.score(t, b));
                if b == self.labels[t] {
                    mins_true.push(self.score(t, b));
                }
            }
        }
        let (mins_at_most, mins_true_at_most) =
            (counts_at_most(mins.iter().copied(), &qs), counts_at_most(mins_true.iter().copied(), &qs));
        (0..qs.len())
            .map(|a| {
                let (mut covered, mut size) = (covered[a], size[a]);
                if never_empty {
                    size += mins.len() - mins_at_most[a];
                    covered += mins_true.len() - mins_true_at_most[a];
                }
                (covered as f64 / nt as f64, size as f64 / nt as f64)
            })
            .collect()
    }

    /// Set sizes of every test item at α (for histograms).
    pub fn sizes(&self, alpha: f64, never_empty: bool) -> Vec<usize> {
        let cut = self.cut(alpha);
        (0..self.test.len())
            .map(|t| match self.held(t, cut).0 {
                0 if never_empty => 1,
                c => c,
            })
            .collect()
    }
}

/// How many of `values` are at most each threshold: `counts[a] = #{v : v ≤ qs[a]}` (a NaN is
/// at most nothing, and nothing is at most a NaN). Each value is placed among the thresholds,
/// sorted once, by a binary search: for the α sweep's hundred thresholds that is cheaper than
/// sorting the values, which the page's toy did for every method of every repeat.
fn counts_at_most(values: impl Iterator<Item = f64>, qs: &[f64]) -> Vec<usize> {
    let mut sorted: Vec<f64> = qs.iter().copied().filter(|q| !q.is_nan()).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let (Some(&lowest), Some(&highest)) = (sorted.first(), sorted.last()) else {
        return vec![0; qs.len()];
    };
    // at_most[j]: the values above the j lowest thresholds and at most the others, then summed.
    let mut at_most = vec![0usize; sorted.len() + 1];
    for v in values.filter(|v| !v.is_nan()) {
        // Most scores lie beyond the thresholds' range (the toy's false candidates): no search.
        let j = if v <= lowest {
            0
        } else if v > highest {
            sorted.len()
        } else {
            sorted.partition_point(|&q| q < v)
        };
        at_most[j] += 1;
    }
    for j in 1..at_most.len() {
        at_most[j] += at_most[j - 1];
    }
    // A threshold's count is that of the first of its equals in `sorted`.
    qs.iter().map(|&q| if q.is_nan() { 0 } else { at_most[sorted.partition_point(|&s| s < q)] }).collect()
}

/// Summary of a method over repeated splits (one row of `rvalue conformal`).
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub method: Method,
    pub alpha: f64,
    pub coverage_mean: f64,
    pub coverage_sd: f64,
    pub size_mean: f64,
    pub size_sd: f64,
    /// Mean over splits of the per-split mean position (splits with no covered item skipped).
    pub position_mean: f64,
    pub empty_rate: f64,
    pub splits: usize,
    /// `histogram[s]` = number of test sets of size `s`, over all splits.
    pub size_histogram: Vec<u64>,
}

/// Mean and population sd (numpy's default).
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Aggregates per-split metrics and set sizes into a [`Summary`].
pub fn summarize(
    method: Method,
    alpha: f64,
    per_split: &[SplitMetrics],
    sizes: &[Vec<usize>],
    k: usize,
) -> Summary {
    let cov: Vec<f64> = per_split.iter().map(|m| m.coverage).collect();
    let size: Vec<f64> = per_split.iter().map(|m| m.size).collect();
    let pos: Vec<f64> = per_split.iter().map(|m| m.position).filter(|p| p.is_finite()).collect();
    let (coverage_mean, coverage_sd) = mean_sd(&cov);
    let (size_mean, size_sd) = mean_sd(&size);
    let mut size_histogram = vec![0u64; k + 1];
    for s in sizes.iter().flatten() {
        size_histogram[(*s).min(k)] += 1;
    }
    Summary {
        method,
        alpha,
        coverage_mean,
        coverage_sd,
        size_mean,
        size_sd,
        position_mean: if pos.is_empty() { f64::NAN } else { mean_sd(&pos).0 },
        empty_rate: per_split.iter().map(|m| m.empty_rate).sum::<f64>() / per_split.len() as f64,
        splits: per_split.len(),
        size_histogram,
    }
}

/// Which splits to run.
#[derive(Debug, Clone, PartialEq)]
pub enum SplitPlan {
    /// `count` seeded random splits.
    Random { count: usize, cal_fraction: f64, seed: u64 },
    /// Exactly this split.
    Fixed(Split),
}

impl SplitPlan {
    pub fn splits(&self, n: usize) -> Result<Vec<Split>> {
        match self {
            SplitPlan::Random { count, cal_fraction, seed } => {
                if *count == 0 {
                    return Err(Error::invalid("the number of splits must be at least 1"));
                }
                (0..*count).map(|r| Split::random(n, *cal_fraction, *seed, r)).collect()
            }
            SplitPlan::Fixed(s) => {
                if s.cal.iter().chain(&s.test).any(|&i| i >= n) {
                    return Err(Error::shape(format!("the split refers to items beyond N = {n}")));
                }
                Ok(vec![s.clone()])
            }
        }
    }
}

/// A data set prepared once for any number of methods, splits and α values.
pub struct Prepared<'a> {
    pub t: &'a ScoreTensor,
    pub labels: &'a [usize],
    pub summaries: Summaries,
    pub order: Option<DrawOrder>,
}

impl<'a> Prepared<'a> {
    /// Validates and summarises; draw orders are computed only when a rank-based r-value needs them.
    pub fn new(t: &'a ScoreTensor, labels: &'a [usize], need_order: bool) -> Result<Self> {
        check_data(t, labels)?;
        let order = if need_order { Some(DrawOrder::of(t)?) } else { None };
        Ok(Prepared { t, labels, summaries: Summaries::of(t), order })
    }

    /// Calibrated scores of a method on each split.
    pub fn calibrate(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
    ) -> Result<Vec<Calibrated>> {
        let mut out = Vec::with_capacity(splits.len());
        self.calibrate_each(method, opts, splits, |_, c| out.push(c))?;
        Ok(out)
    }

    /// Calls `each(index, calibrated)` for every split in turn: split-independent scores are
    /// computed once, and only one split's pooled r-values are held at a time.
    pub fn calibrate_each(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        each: impl FnMut(usize, Calibrated),
    ) -> Result<()> {
        self.calibrate_each_threads(method, opts, splits, 1, each)
    }

    /// [`Prepared::calibrate_each`] on `threads` threads (natively; wasm has one): the
    /// split-independent scores a chunk of items per thread, pooled CP_r a chunk of each
    /// split's test items per thread. `each` sees the same splits in the same order, with the
    /// same values, for every count.
    pub fn calibrate_each_threads(
        &self,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        threads: usize,
        each: impl FnMut(usize, Calibrated),
    ) -> Result<()> {
        let data = (self.t, self.labels, Some(&self.summaries), self.order.as_ref());
        calibrate_with(data, method, opts, splits, threads, each)
    }
}

/// [`Prepared::calibrate_each_threads`] for one method on data too large to hold every method's
/// inputs beside the tensor (the command line): summaries are computed only for CP_avg and the
/// parametric r-value, and freed before the splits are calibrated; `order` caches draw orders
/// (without it each is sorted where needed). The same results.
#[allow(clippy::too_many_arguments)] // the data, what is known of it, and the run's settings
pub fn calibrate_each_lean(
    t: &ScoreTensor,
    labels: &[usize],
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    each: impl FnMut(usize, Calibrated),
) -> Result<()> {
    check_data(t, labels)?;
    calibrate_with((t, labels, None, order), method, opts, splits, threads, each)
}

/// A data set, its labels and what is known of it: summaries and draw orders.
type Known<'a> = (&'a ScoreTensor, &'a [usize], Option<&'a Summaries>, Option<&'a DrawOrder>);

fn calibrate_with(
    (t, labels, summaries, order): Known<'_>,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    mut each: impl FnMut(usize, Calibrated),
) -> Result<()> {
    let only = needed_candidates(labels, splits);
    check_only(t, &only)?;
    let fixed = scores_with(t, summaries, order, method, opts, |i| only[i], threads)?;
    let rows = fixed.map(|scores| ScoreRows::new(scores, t.k()));
    for (r, split) in splits.iter().enumerate() {
        watch::checkpoint()?;
        let c = match &rows {
            Some(rows) => {
                watch::advance(split.test.len());
                Calibrated::shared(rows, t.k(), labels, split)
            }
            // Counts its test items a round at a time.
            None => Calibrated::pooled_threads(t, labels, order, split, opts.ties, threads)?,
        };
        each(r, c);
    }
    Ok(())
}

/// Runs a method over splits at one α (the rows of `rvalue conformal`).
pub fn evaluate(calibrated: &[Calibrated], method: Method, alpha: f64, never_empty: bool) -> Result<Summary> {
    check_alpha(alpha)?;
    let k = calibrated.first().map(|c| c.k).unwrap_or(0);
    let per_split: Vec<SplitMetrics> = calibrated.iter().map(|c| c.metrics(alpha, never_empty)).collect();
    let sizes: Vec<Vec<usize>> = calibrated.iter().map(|c| c.sizes(alpha, never_empty)).collect();
    Ok(summarize(method, alpha, &per_split, &sizes, k))
}

/// `count` α values evenly spaced on `[lo, hi]`.
pub fn alpha_grid(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    match count {
        0 => Vec::new(),
        1 => vec![lo],
        _ => (0..count).map(|i| lo + (hi - lo) * i as f64 / (count - 1) as f64).collect(),
    }
}

/// Mean coverage and set size over splits at each α.
pub fn sweep(calibrated: &[Calibrated], alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
    let mut acc = vec![(0.0, 0.0); alphas.len()];
    for c in calibrated {
        for (a, (cov, size)) in acc.iter_mut().zip(c.sweep(alphas, never_empty)) {
            a.0 += cov;
            a.1 += size;
        }
    }
    let r = calibrated.len().max(1) as f64;
    acc.iter().map(|&(c, s)| (c / r, s / r)).collect()
}

mod bytes;
pub mod pool;
mod steps;
pub mod streamed;
pub use bytes::{read_calibrations, write_calibrations};

#[cfg(test)]
mod tests;
