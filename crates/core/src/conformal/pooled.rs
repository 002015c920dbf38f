//! Pooled CP_r's calibration (docs/method.md §4): the greedy per test item over the split's
//! calibration units, whole, on threads, a chunk at a time ([`PooledBuilder`], for a page that
//! spreads it over frames), or from greedy results computed elsewhere.

use super::calibrated::Store;
use super::chunks::in_chunks;
use super::per_class::PerClass;
use super::steps::StepSets;
use super::{true_draws, Calibrated, Coverage, Split};
use crate::rvalue::{self, DrawOrder, PooledSplit, TieOrder, Workspace};
use crate::tensor::ScoreTensor;
use crate::{watch, Result};

/// Test items whose entry points [`PooledSplit::items`] finds together.
pub(super) const POOLED_BATCH: usize = 16;

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
    /// Test item `i` is keyed (its tie order) as item `key_offset + i`: true draws' test items
    /// follow their units ([`true_draws`]).
    key_offset: usize,
}

/// Greedy results collected into a split's scores, test item by test item in `split.test`
/// order: each candidate's step and the calibration units' steps.
#[derive(Debug)]
pub(super) struct PooledScores {
    k: usize,
    n: usize,
    steps: Vec<u32>,
    cal: StepSets,
    /// Per class: each calibration unit's class (in `split.cal` order) and the steps by class.
    classes: Option<(Vec<usize>, PerClass)>,
}

impl PooledScores {
    pub(super) fn new(k: usize, split: &Split) -> Self {
        let (n, items) = (split.cal.len(), split.test.len());
        // U = n + K (docs/method.md §4); the greedy's items say the same.
        let units = u32::try_from(n + k).unwrap_or(u32::MAX);
        PooledScores {
            k,
            n,
            steps: Vec::with_capacity(items * k),
            cal: StepSets::new(units, items),
            classes: None,
        }
    }

    /// Keeps per-class thresholds too, `unit_classes` naming the class of each unit that
    /// `split.cal` indexes; before the first test item.
    pub(super) fn by_class(&mut self, unit_classes: &[usize], split: &Split) {
        let of: Vec<usize> = split.cal.iter().map(|&j| unit_classes.get(j).copied().unwrap_or(0)).collect();
        let per = PerClass::of_steps(self.k, &of, self.cal.units, split.test.len());
        self.classes = Some((of, per));
    }

    /// The next test item's result.
    pub(super) fn record(&mut self, it: &rvalue::PooledItem) {
        self.steps.extend_from_slice(&it.cand_step);
        self.cal.push(&it.cal_steps);
        if let Some((of, per)) = &mut self.classes {
            per.push_steps(of, &it.cal_steps, &it.cal_units);
        }
    }

    pub(super) fn finish(self, labels: &[usize], split: &Split) -> Calibrated {
        Calibrated {
            k: self.k,
            test: split.test.clone(),
            labels: split.test.iter().map(|&i| labels[i]).collect(),
            store: Store::PerItem { steps: self.steps, n: self.n, cal: self.cal },
            classes: self.classes.map(|(_, per)| per),
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

    /// Pooled CP_r on a split of true-label draws and test items of `k` candidates
    /// ([`true_draws`]): the split's `cal` names units of `true_draws`, its `test` test items, keyed after
    /// the true draws' units as [`true_draws::calibrate_with_true_draws`] keys them.
    pub fn of_true_draws(
        true_draws: &true_draws::TrueDraws,
        k: usize,
        split: &Split,
        ties: TieOrder,
    ) -> Result<Self> {
        Ok(PooledBuilder {
            ps: true_draws.tables(&split.cal, k, split.ties(ties))?,
            work: Workspace::default(),
            out: PooledScores::new(k, split),
            next: 0,
            key_offset: true_draws.n(),
        })
    }

    /// Per-class thresholds (docs/method.md §5) as well, `unit_classes` naming the class of each
    /// unit that `split.cal` indexes (the labels, or true draws' classes); call before `step`.
    pub fn by_class(mut self, unit_classes: &[usize], split: &Split) -> Self {
        self.out.by_class(unit_classes, split);
        self
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
    /// Pooled CP_r: runs the greedy for every test item of the split, ties broken by `ties`.
    pub fn pooled(
        t: &ScoreTensor,
        labels: &[usize],
        order: Option<&DrawOrder>,
        split: &Split,
        ties: TieOrder,
    ) -> Result<Self> {
        Self::pooled_with(t, labels, order, split, ties, Coverage::Marginal)
    }

    /// [`Calibrated::pooled`] with thresholds of the given coverage.
    pub fn pooled_with(
        t: &ScoreTensor,
        labels: &[usize],
        order: Option<&DrawOrder>,
        split: &Split,
        ties: TieOrder,
        coverage: Coverage,
    ) -> Result<Self> {
        let mut b = builder(PooledBuilder::new(t, labels, split, ties)?, labels, split, coverage);
        b.step(t, order, split, usize::MAX);
        Ok(b.finish(labels, split))
    }

    /// [`Calibrated::pooled`] with the test items in `threads` contiguous chunks, one thread
    /// each with its own workspace over the split's shared calibration tables, recorded in
    /// test order: the same result for every count. One thread runs here.
    #[allow(clippy::too_many_arguments)] // the data, the split, and the run's settings
    pub fn pooled_threads(
        t: &ScoreTensor,
        labels: &[usize],
        order: Option<&DrawOrder>,
        split: &Split,
        ties: TieOrder,
        coverage: Coverage,
        threads: usize,
    ) -> Result<Self> {
        if threads <= 1 {
            // A round at a time, so that a watched run can stop between rounds.
            let mut b = builder(PooledBuilder::new(t, labels, split, ties)?, labels, split, coverage);
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
        if coverage == Coverage::PerClass {
            out.by_class(labels, split);
        }
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
        Self::from_pooled_items_with(k, labels, split, items, None)
    }

    /// [`Calibrated::from_pooled_items`] with per-class thresholds when `unit_classes` names
    /// the class of each unit that `split.cal` indexes.
    pub fn from_pooled_items_with(
        k: usize,
        labels: &[usize],
        split: &Split,
        items: &[rvalue::PooledItem],
        unit_classes: Option<&[usize]>,
    ) -> Self {
        let mut out = PooledScores::new(k, split);
        if let Some(u) = unit_classes {
            out.by_class(u, split);
        }
        items.iter().take(split.test.len()).for_each(|it| out.record(it));
        out.finish(labels, split)
    }
}

/// `b`, per class by `labels` when `coverage` asks.
fn builder(b: PooledBuilder, labels: &[usize], split: &Split, coverage: Coverage) -> PooledBuilder {
    match coverage {
        Coverage::PerClass => b.by_class(labels, split),
        Coverage::Marginal => b,
    }
}
