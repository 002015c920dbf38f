//! Calibration from score blocks ([`ScoreBlocks`]): a file of any size, a block of items at a
//! time, with the same results, bit for bit, as the in-memory path ([`Prepared`] and
//! [`calibrate_each_lean`]).
//!
//! Split-independent scores (CP, CP_avg, nonparametric and parametric CP_r) are reductions of
//! one item each, so one pass computes every such method's `[N][K]` rows together; the
//! parametric r-value's prior may pool all items, so its summaries are gathered in that pass
//! and its rows computed after it. Pooled CP_r needs, per split, the calibration items'
//! true-label draws and one test item at a time (docs/method.md §4): one pass gathers every
//! item's true-label draws (`N × M` values), then each further pass streams the test items of
//! as many splits as [`Streaming::pooled_bytes`] holds.
//!
//! [`Prepared`]: super::Prepared
//! [`calibrate_each_lean`]: super::calibrate_each_lean

mod block;
pub use block::{block_class_probabilities, block_rows, rvalues_per_item, BlockProbabilities, BlockRows};

use super::chunks::in_chunks;
use super::conditional::{difficulty_of_block, difficulty_ranks};
use super::pooled::{PooledScores, POOLED_BATCH};
use super::scores::{needed_candidates, parametric_rows, scores_with};
use super::{Calibrated, Coverage, Method, Ranked, RvalueKind, ScoreOptions, ScoreRows, Split};
use crate::blocks::{items_per_block, ScoreBlocks};
use crate::probability::{self, ScoresAre};
use crate::rvalue::{PooledItem, PooledSplit, Workspace};
use crate::tensor::{ScoreTensor, Scores, Summaries};
use crate::watch;
use crate::{Error, Result};

/// How a streamed run spends threads and memory, and what ranks draws besides the CPU.
#[derive(Clone, Copy)]
pub struct Streaming<'a> {
    /// Threads that work on each block (reading takes one more, natively).
    pub threads: usize,
    /// About how many bytes of scores, widened to f64, a block holds.
    pub block_bytes: usize,
    /// About how many bytes the pooled splits that share a pass may hold together.
    pub pooled_bytes: usize,
    /// A device that ranks a block's draws for nonparametric and pooled CP_r (a GPU), if any.
    pub ranker: Option<&'a dyn BlockRanker>,
}

impl Default for Streaming<'_> {
    fn default() -> Self {
        Streaming { threads: 1, block_bytes: 32 << 20, pooled_bytes: 512 << 20, ranker: None }
    }
}

/// A device that ranks draws a block of items at a time (the GPU: batched ranking is what it
/// is for). Its r-values must be the CPU's, bit for bit.
pub trait BlockRanker {
    /// Nonparametric r-values `[n][K]` of `block`'s items, or `None` to leave them to the CPU.
    fn nonparametric(&self, block: &ScoreTensor) -> Result<Option<Vec<f64>>>;

    /// Pooled CP_r's greedy results for `block`'s test items `items` (indices into the block,
    /// item `i` keyed as item `key + i`) against a split's calibration units `split`, what
    /// `split.items_at(block, items, key, ..)` gives, using up to `threads` threads; or `None`
    /// to leave them to the CPU.
    fn pooled(
        &self,
        split: &PooledSplit,
        block: &ScoreTensor,
        items: &[usize],
        key: usize,
        threads: usize,
    ) -> Result<Option<Vec<PooledItem>>>;
}

/// Where calibrations go with the items' difficulty ranks: `(method, split index, calibrated,
/// ranks)`.
pub type EachRanked<'a> = dyn FnMut(Method, usize, Calibrated, &[u32]) -> Result<()> + 'a;

/// A pooled split's calibration and the ranks: `(split index, calibrated, ranks)`.
pub(crate) type SplitRanked<'a> = dyn FnMut(usize, Calibrated, &[u32]) -> Result<()> + 'a;

/// Progress of a pass over the items: what it does, items done, items in all.
pub type Report<'a> = &'a mut dyn FnMut(&str, usize, usize);

/// Calls `each(method, index, calibrated)` for every method of `methods` on every split, the
/// methods' split-independent scores from one pass over `src`, pooled CP_r's splits a group per
/// pass after them. Each method sees its splits in order; values are those of the in-memory
/// path for the same tensor, options and thread count.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_streamed(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
    each: &mut dyn FnMut(Method, usize, Calibrated) -> Result<()>,
) -> Result<()> {
    calibrate_streamed_inner(src, labels, methods, opts, splits, run, report, None, &mut |m, r, c, _| {
        each(m, r, c)
    })
}

/// [`calibrate_streamed`], also handing `each` every item's difficulty rank
/// ([`difficulty_ranks`](super::difficulty_ranks)), gathered in the first pass over `src`
/// (before any split is handed out), for the conditional metrics.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub fn calibrate_streamed_ranked(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
    each: &mut EachRanked<'_>,
) -> Result<()> {
    let mut ranks = Vec::new();
    calibrate_streamed_inner(src, labels, methods, opts, splits, run, report, Some(&mut ranks), each)
}

#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
fn calibrate_streamed_inner(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
    each: &mut EachRanked<'_>,
) -> Result<()> {
    let (n, _, k) = src.shape();
    check_labels(labels, n, k)?;
    let resolved;
    let opts = if methods.iter().any(|m| m.is_baseline()) {
        opts.baseline.check()?;
        resolved = ScoreOptions { scores_are: reading(src, opts.scores_are, run, report)?, ..*opts };
        &resolved
    } else {
        opts
    };
    let pooled = |m: &Method| *m == Method::CpR && opts.kind == RvalueKind::Pooled;
    let fixed: Vec<Method> = methods.iter().copied().filter(|m| !pooled(m)).collect();
    if !fixed.is_empty() {
        fixed_each(src, labels, &fixed, opts, splits, run, report, ranks.as_deref_mut(), each)?;
    }
    if methods.iter().any(pooled) {
        let gather = ranks.as_deref_mut().filter(|r| r.is_empty());
        let truth = true_label_draws_ranked(src, labels, run, report, gather)?;
        let units = Units { draws: truth.scores(), key_offset: 0, classes: Some(labels) };
        let got: &[u32] = ranks.as_deref().map_or(&[], |r| r);
        let each = &mut |r, c, _: &[u32]| each(Method::CpR, r, c, got);
        pooled_with_units(src, units, labels, opts, splits, run, report, None, each)?;
    }
    Ok(())
}

/// Every split of each split-independent method of `fixed` (no pooled CP_r), from one pass over
/// `src`: the paper's methods split by split on rows shared by all splits, then the baselines
/// together.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
fn fixed_each(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    fixed: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
    each: &mut EachRanked<'_>,
) -> Result<()> {
    let k = src.shape().2;
    let rows = fixed_rows_ranked(src, labels, fixed, opts, splits, run, report, ranks.as_deref_mut())?;
    let got: &[u32] = ranks.as_deref().map_or(&[], |r| r);
    // The baselines share one sort of the probabilities, which only the first one's rows
    // hold, and are calibrated together, split by split, after the others.
    let mut shared: Option<Ranked> = None;
    for (method, scores) in fixed.iter().zip(rows) {
        if method.is_baseline() {
            if shared.is_none() {
                shared = Some(Ranked::of(&scores, k, run.threads)?);
            }
            continue;
        }
        let rows = ScoreRows::on_threads(scores, k, run.threads);
        for (r, split) in splits.iter().enumerate() {
            watch::checkpoint()?;
            watch::advance(split.test.len());
            each(*method, r, Calibrated::shared_with(&rows, k, labels, split, opts.coverage), got)?;
        }
    }
    if let Some(ranked) = &shared {
        let baselines: Vec<Method> = fixed.iter().copied().filter(|m| m.is_baseline()).collect();
        let how = (opts.coverage, run.threads);
        ranked
            .calibrate_many(&baselines, &opts.baseline, labels, how, splits, |m, r, c| each(m, r, c, got))?;
    }
    Ok(())
}

/// Per-class coverage asked of calibration units whose classes are unknown.
pub(crate) fn no_classes() -> Error {
    Error::invalid(
        "per-class coverage needs the class of every calibration item, and true-label draws carry \
         none: give the pool's classes (--calibration-labels)",
    )
}

/// One label per item of `n`, each a candidate of `k`.
pub fn check_labels(labels: &[usize], n: usize, k: usize) -> Result<()> {
    if labels.len() != n {
        return Err(Error::length("labels", labels.len(), format!("{n} items")));
    }
    if let Some(i) = labels.iter().position(|&y| y >= k) {
        return Err(Error::invalid(format!("label of item {i} is {} but K = {k}", labels[i])));
    }
    Ok(())
}

/// The split-independent rows `[N][K]` of each of `methods` (none pooled), in one pass.
pub(crate) fn fixed_rows(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
) -> Result<Vec<Vec<f64>>> {
    fixed_rows_ranked(src, labels, methods, opts, splits, run, report, None)
}

/// [`fixed_rows`], appending each item's difficulty rank to `ranks` when given (from the
/// block's summaries, made beside the scores).
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where ranks go
pub(crate) fn fixed_rows_ranked(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
) -> Result<Vec<Vec<f64>>> {
    let (n, m, k) = src.shape();
    let only = needed_candidates(labels, splits);
    let parametric = |method: &Method| *method == Method::CpR && opts.kind == RvalueKind::Parametric;
    let want_summaries = methods.iter().any(|x| parametric(x) || *x == Method::CpAvg);
    let mut rows: Vec<Vec<f64>> = methods.iter().map(|_| Vec::new()).collect();
    let mut gathered = Summaries { n: 0, k, m, mean: Vec::new(), var: Vec::new() };
    let items = items_per_block(m, k, run.block_bytes);
    src.for_each_block(items, &mut |first, block| {
        watch::checkpoint()?;
        // The summaries (a pass over the block) are made beside the other methods' work, which
        // does not need them: run one after the other, they left a core idle for a while.
        let rank = ranks.is_some();
        let block_labels = &labels[first..first + block.n()];
        let summarise = || summaries_and_ranks(block, block_labels, want_summaries, rank);
        let score = || block_scores(block, first, methods, opts, run, &only);
        let ((summaries, got_ranks), scored) = alongside(run.threads, summarise, score);
        if let (Some(out), Some(r)) = (ranks.as_deref_mut(), got_ranks) {
            out.extend(r);
        }
        for ((method, out), got) in methods.iter().zip(rows.iter_mut()).zip(scored?) {
            match (method, &summaries, got) {
                (Method::CpAvg, Some(s), _) => out.extend(s.mean.iter().map(|x| -x)),
                (_, _, Some(got)) => out.extend(got),
                _ => {}
            }
        }
        if let Some(s) = summaries.filter(|_| methods.iter().any(parametric)) {
            gathered.n += s.n;
            gathered.mean.extend(s.mean);
            gathered.var.extend(s.var);
        }
        report("scoring", first + block.n(), n);
        Ok(())
    })?;
    for (method, out) in methods.iter().zip(rows.iter_mut()) {
        if parametric(method) {
            *out = parametric_rows(&gathered, opts, |i| only[i], None, run.threads)?;
        }
    }
    Ok(rows)
}

/// A block's summaries when `want` and its items' difficulty ranks when `rank` (both from one
/// pass over the block).
fn summaries_and_ranks(
    block: &ScoreTensor,
    labels: &[usize],
    want: bool,
    rank: bool,
) -> (Option<Summaries>, Option<Vec<u32>>) {
    let s = (want || rank).then(|| Summaries::of(block));
    let r = s.as_ref().filter(|_| rank).map(|s| difficulty_ranks(&s.mean, block.k(), labels));
    (s.filter(|_| want), r)
}

/// The rows of a block's items (`first..`) of each method that needs no summaries (CP and
/// nonparametric CP_r; `None` for the others), on `run`'s ranker where it takes them.
fn block_scores(
    block: &ScoreTensor,
    first: usize,
    methods: &[Method],
    opts: &ScoreOptions,
    run: &Streaming,
    only: &[Option<usize>],
) -> Result<Vec<Option<Vec<f64>>>> {
    let parametric = |method: &Method| *method == Method::CpR && opts.kind == RvalueKind::Parametric;
    // The baselines share one probability per item and candidate: the first one's rows.
    let first_baseline = methods.iter().find(|m| m.is_baseline());
    let each = |method: &Method| -> Result<Option<Vec<f64>>> {
        if *method == Method::CpAvg || parametric(method) {
            return Ok(None);
        }
        if method.is_baseline() {
            if Some(method) != first_baseline {
                return Ok(Some(Vec::new()));
            }
            return block_probabilities(block, first, opts.scores_are, run.threads).map(Some);
        }
        // Here CP_r is nonparametric (pooled and parametric are not in this pass).
        let ranked = match (method, run.ranker) {
            (Method::CpR, Some(r)) => r.nonparametric(block)?,
            _ => None,
        };
        match ranked {
            Some(rows) => Ok(Some(rows)),
            None => scores_with(block, None, None, *method, opts, |i| only[first + i], None, run.threads)
                .map(|got| Some(got.unwrap_or_default())),
        }
    };
    methods.iter().map(each).collect()
}

/// A block's class probabilities `[n][K]` under the reading `as_` (checked, an explicit one).
pub(crate) fn block_probabilities(
    block: &ScoreTensor,
    first: usize,
    as_: ScoresAre,
    threads: usize,
) -> Result<Vec<f64>> {
    probability::check(block, as_, first)?;
    in_chunks(block.n(), threads, |items| probability::mean_probabilities_of(block, as_, items))
}

/// About the bytes a block of the reading pass holds: small, as the first usually decides.
const READING_BLOCK_BYTES: usize = 4 << 20;

/// How the baselines read `src`'s scores: `asked`, or under `auto` what a pass over every
/// block decides ([`probability::Detector`]); an explicit reading is checked as the blocks
/// are scored.
pub fn reading(
    src: &dyn ScoreBlocks,
    asked: ScoresAre,
    run: &Streaming,
    report: Report<'_>,
) -> Result<ScoresAre> {
    if asked != ScoresAre::Auto {
        return Ok(asked);
    }
    let (n, m, k) = src.shape();
    let mut d = probability::Detector::default();
    // Logits are decided by the first row that is neither kind, usually the first block's:
    // the rest of the file is not read for nothing (an error is the sources' one way to stop).
    let mut stopped_early = false;
    let items = items_per_block(m, k, run.block_bytes.min(READING_BLOCK_BYTES));
    let read = src.for_each_block(items, &mut |first, block| {
        watch::checkpoint()?;
        d.see(block);
        report("reading the scores", first + block.n(), n);
        if d.decided() {
            stopped_early = true;
            return Err(Error::invalid("the reading is decided"));
        }
        Ok(())
    });
    match read {
        Err(_) if stopped_early => Ok(d.choice()),
        other => other.map(|()| d.choice()),
    }
}

/// `(side(), main())`: `side` on a thread of its own while `main` runs here, when there are
/// threads to spare (natively, `threads > 1`); else one after the other.
fn alongside<A: Send, B>(
    threads: usize,
    side: impl FnOnce() -> A + Send,
    main: impl FnOnce() -> B,
) -> (A, B) {
    if threads <= 1 || cfg!(target_arch = "wasm32") {
        return (side(), main());
    }
    std::thread::scope(|s| {
        let running = s.spawn(side);
        let b = main();
        match running.join() {
            Ok(a) => (a, b),
            // `side` panicked: the caller sees the panic, as if it had run here.
            Err(payload) => std::panic::resume_unwind(payload),
        }
    })
}

/// Every item's true-label draws in one pass, `[n, 1, M]` (the layout a file `[n_cal, M]` is read
/// in, [`TrueDraws::of_single_draw`](crate::conformal::true_draws::TrueDraws::of_single_draw)), stored in
/// the blocks' type (exact as f64, as the draws are read).
pub fn true_label_draws(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<ScoreTensor> {
    true_label_draws_ranked(src, labels, run, report, None)
}

/// [`true_label_draws`], appending each item's difficulty rank to `ranks` when given.
fn true_label_draws_ranked(
    src: &dyn ScoreBlocks,
    labels: &[usize],
    run: &Streaming<'_>,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
) -> Result<ScoreTensor> {
    let (n, m, k) = src.shape();
    check_labels(labels, n, k)?;
    let (mut f16, mut f32, mut f64) = (Vec::new(), Vec::new(), Vec::new());
    src.for_each_block(items_per_block(m, k, run.block_bytes), &mut |first, block| {
        watch::checkpoint()?;
        for i in 0..block.n() {
            let at = |d: usize| (i * m + d) * k + labels[first + i];
            match block.scores() {
                Scores::F16(s) => f16.extend((0..m).map(|d| s[at(d)])),
                Scores::F32(s) => f32.extend((0..m).map(|d| s[at(d)])),
                Scores::F64(s) => f64.extend((0..m).map(|d| s[at(d)])),
            }
        }
        if let Some(r) = ranks.as_deref_mut() {
            r.extend(difficulty_of_block(block, &labels[first..first + block.n()]));
        }
        report("reading true-label draws", first + block.n(), n);
        Ok(())
    })?;
    // A source gives every block in one type; were it ever to mix them, f64 holds them all.
    match (f16.is_empty(), f32.is_empty(), f64.is_empty()) {
        (false, true, true) => ScoreTensor::from_f16_bits(n, 1, m, f16),
        (true, false, true) => ScoreTensor::from_f32(n, 1, m, f32),
        _ => {
            let mut all: Vec<f64> = f16.iter().map(|&h| crate::float16::to_f64(h)).collect();
            all.extend(f32.iter().map(|&x| f64::from(x)));
            all.extend(f64);
            ScoreTensor::new(n, 1, m, all)
        }
    }
}

/// Pooled CP_r's calibration units: `draws[j·M + d]`, unit `j`'s true-label score in draw `d`,
/// for the units a split's `cal` names; test item `t` is keyed as item `key_offset + t`.
/// Per-class coverage needs each unit's class, `classes[j]`.
#[derive(Debug, Clone, Copy)]
pub struct Units<'a> {
    pub draws: Scores<'a>,
    pub key_offset: usize,
    pub classes: Option<&'a [usize]>,
}

/// Test items per block of a pooled pass: at least half a batch ([`POOLED_BATCH`]) for each
/// thread, so that each draw's calibration tables are fetched into the cache once per eight test
/// items (at the authors' ImageNet shape the plain block of 32 MB holds four, two a thread; eight
/// take most of a full batch's gain at half its memory, docs/performance.md), up to a block of
/// half [`Streaming::pooled_bytes`].
fn pooled_block_items(m: usize, k: usize, run: &Streaming<'_>) -> usize {
    let plain = items_per_block(m, k, run.block_bytes);
    let batches = run.threads.max(1).saturating_mul(POOLED_BATCH / 2);
    plain.max(batches.min(items_per_block(m, k, run.pooled_bytes / 2)))
}

/// Pooled CP_r on every split from its units, a group of splits per pass over the test items
/// `src`, as many as `run.pooled_bytes` holds (at least one). With `ranks`, the first pass
/// appends each item's difficulty rank to it if it is empty, and `each` is handed them.
#[allow(clippy::too_many_arguments)] // the data, the run's settings, and where results go
pub(crate) fn pooled_with_units(
    src: &dyn ScoreBlocks,
    units: Units<'_>,
    labels: &[usize],
    opts: &ScoreOptions,
    splits: &[Split],
    run: &Streaming<'_>,
    report: Report<'_>,
    mut ranks: Option<&mut Vec<u32>>,
    each: &mut SplitRanked<'_>,
) -> Result<()> {
    let mut gather = ranks.as_deref().is_some_and(|r| r.is_empty());
    let (n, m, k) = src.shape();
    let per_class = opts.coverage == Coverage::PerClass;
    let largest = splits.iter().map(|s| SplitRun::bytes(s, m, k, per_class)).max().unwrap_or(1);
    let group = (run.pooled_bytes / largest.max(1)).clamp(1, splits.len().max(1));
    let items = pooled_block_items(m, k, run);
    for (g, chunk) in splits.chunks(group).enumerate() {
        let mut pass = PooledPass::new(units, m, k, chunk, opts)?;
        let what = format!("pooled splits {}–{} of {}", g * group + 1, g * group + chunk.len(), splits.len());
        src.for_each_block(items, &mut |first, block| {
            watch::checkpoint()?;
            pass.block(first, block, run)?;
            if let Some(r) = ranks.as_deref_mut().filter(|_| gather) {
                r.extend(difficulty_of_block(block, &labels[first..first + block.n()]));
            }
            report(&what, first + block.n(), n);
            Ok(())
        })?;
        gather = false;
        let got: &[u32] = ranks.as_deref().map_or(&[], |r| r);
        for (j, c) in pass.finish(labels).into_iter().enumerate() {
            each(g * group + j, c, got)?;
        }
    }
    Ok(())
}

/// Pooled CP_r on a group of splits in one pass over the test items, fed a block at a time in
/// item order: what [`pooled_with_units`] runs per group, for a caller that reads the blocks
/// itself (the page's workers, which must yield between reads).
pub struct PooledPass {
    runs: Vec<SplitRun>,
}

impl PooledPass {
    /// The splits' calibration tables, from their units.
    pub fn new(units: Units<'_>, m: usize, k: usize, splits: &[Split], opts: &ScoreOptions) -> Result<Self> {
        let runs = splits.iter().map(|s| SplitRun::new(units, m, k, s, opts)).collect::<Result<_>>()?;
        Ok(PooledPass { runs })
    }

    /// The greedy for every split's test items in `block` (items `first..`, blocks in item
    /// order) on `run`'s threads, or its ranker.
    pub fn block(&mut self, first: usize, block: &ScoreTensor, run: &Streaming<'_>) -> Result<()> {
        for r in self.runs.iter_mut() {
            watch::advance(r.block(first, block, run)?);
        }
        Ok(())
    }

    /// The splits calibrated, in order, once every block has been fed.
    pub fn finish(self, labels: &[usize]) -> Vec<Calibrated> {
        self.runs.into_iter().map(|r| r.out.finish(labels, &r.split)).collect()
    }
}

/// One pooled split in a pass: its calibration tables and the test items' results so far.
struct SplitRun {
    split: Split,
    ps: PooledSplit,
    out: PooledScores,
    key_offset: usize,
}

impl SplitRun {
    fn new(units: Units<'_>, m: usize, k: usize, split: &Split, opts: &ScoreOptions) -> Result<Self> {
        // Read in place: a copy of the units' draws would double the split's memory while its
        // tables are built.
        let draw = |j: usize, d: usize| units.draws.at(split.cal[j] * m + d);
        let ps = PooledSplit::from_fn(split.cal.len(), m, k, split.ties(opts.ties), draw)?;
        let mut out = PooledScores::new(k, split);
        if opts.coverage == Coverage::PerClass {
            out.by_class(units.classes.ok_or_else(no_classes)?, split);
        }
        Ok(SplitRun { split: split.clone(), ps, out, key_offset: units.key_offset })
    }

    /// About the bytes a split holds in a pass: its tables, and per test item the candidates'
    /// steps and a bit per unit (per class, a step per unit).
    fn bytes(split: &Split, m: usize, k: usize, per_class: bool) -> usize {
        let by_class = if per_class { split.cal.len() * 4 } else { 0 };
        let per_test = k * 4 + (split.cal.len() + k).div_ceil(8) + by_class;
        PooledSplit::bytes_for(split.cal.len(), m) + split.test.len() * per_test
    }

    /// The greedy for this split's test items in `block` (items `first..`), in test order, on
    /// the run's ranker if it takes them; how many there were.
    fn block(&mut self, first: usize, block: &ScoreTensor, run: &Streaming<'_>) -> Result<usize> {
        let test = &self.split.test;
        let lo = test.partition_point(|&i| i < first);
        let hi = test.partition_point(|&i| i < first + block.n());
        let local: Vec<usize> = test[lo..hi].iter().map(|&i| i - first).collect();
        let (ps, key, threads) = (&self.ps, self.key_offset + first, run.threads);
        if local.is_empty() {
            return Ok(0);
        }
        if let Some(ranker) = run.ranker {
            if let Some(items) = ranker.pooled(ps, block, &local, key, threads)? {
                if items.len() != local.len() {
                    return Err(Error::length("pooled items", items.len(), format!("{}", local.len())));
                }
                items.iter().for_each(|it| self.out.record(it));
                return Ok(local.len());
            }
        }
        let items = |range: std::ops::Range<usize>| -> Result<Vec<crate::rvalue::PooledItem>> {
            let mut work = Workspace::default();
            Ok(local[range]
                .chunks(POOLED_BATCH)
                .flat_map(|b| ps.items_at(block, b, key, None, &mut work))
                .collect())
        };
        for it in &in_chunks(local.len(), threads, items)? {
            self.out.record(it);
        }
        Ok(local.len())
    }
}

#[cfg(test)]
mod tests;
