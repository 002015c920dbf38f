//! Conditional coverage (docs/method.md §5, conditional coverage): how coverage spreads over the
//! classes, the set sizes and the items' difficulty, per split, and summed over splits.
//!
//! A split's test items are tallied into [`SplitTallies`] (per class, per set-size stratum, per
//! difficulty stratum: covered and count), from which [`SplitTallies::metrics`] gives the
//! split's [`ConditionalMetrics`]. An item's set size and whether it is covered come from the
//! same per-item path as [`Calibrated::metrics`], so they hold for any threshold rule.
//! Difficulty is the true label's 1-based rank under the mean score over draws (CP_avg's order),
//! split-independent: computed once per data set ([`difficulty_ranks`], [`difficulty_of`]) and
//! passed in, `0` where unknown.

use super::{mean_sd, Calibrated, SplitMetrics};
use crate::blocks::ScoreBlocks;
use crate::tensor::{ScoreTensor, Summaries};
use crate::Result;

/// Set-size strata, inclusive bounds (Angelopoulos et al. 2021's SSCV).
pub const SIZE_STRATA: [(usize, usize); 5] = [(0, 1), (2, 3), (4, 10), (11, 100), (101, 1000)];

/// Difficulty strata: inclusive bounds on the true label's 1-based rank under the mean score.
pub const DIFFICULTY_STRATA: [(usize, usize); 6] = [(1, 1), (2, 3), (4, 6), (7, 10), (11, 100), (101, 1000)];

/// Covered test items among `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tally {
    pub covered: u64,
    pub count: u64,
}

impl Tally {
    /// `covered / count`; `NaN` when `count = 0`.
    pub fn coverage(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.covered as f64 / self.count as f64
        }
    }

    fn add(&mut self, covered: bool) {
        self.count += 1;
        self.covered += u64::from(covered);
    }
}

/// A stratum `lo..=hi` (of set size or difficulty rank) and its tally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stratum {
    pub lo: usize,
    pub hi: usize,
    pub covered: u64,
    pub count: u64,
}

impl Stratum {
    /// `covered / count`; `NaN` when the stratum is empty.
    pub fn coverage(&self) -> f64 {
        Tally { covered: self.covered, count: self.count }.coverage()
    }
}

fn strata(bounds: &[(usize, usize)]) -> Vec<Stratum> {
    bounds.iter().map(|&(lo, hi)| Stratum { lo, hi, covered: 0, count: 0 }).collect()
}

/// Adds an item to the stratum holding `v`, if any (a value beyond the last is in none).
fn add_to(strata: &mut [Stratum], v: usize, covered: bool) {
    if let Some(s) = strata.iter_mut().find(|s| s.lo <= v && v <= s.hi) {
        s.count += 1;
        s.covered += u64::from(covered);
    }
}

/// One split's (or, summed, several splits') test items tallied by class, set size and
/// difficulty.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SplitTallies {
    /// Per class `0..K`: covered and appearances among the test items.
    pub classes: Vec<Tally>,
    /// [`SIZE_STRATA`] in order, empty ones included.
    pub sizes: Vec<Stratum>,
    /// [`DIFFICULTY_STRATA`] in order, empty ones included; all empty when difficulty is unknown.
    pub difficulty: Vec<Stratum>,
}

/// One split's conditional metrics at one α (docs/method.md §5, conditional coverage).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConditionalMetrics {
    /// Mean over the classes present among the test items of each class's coverage.
    pub macro_coverage: f64,
    /// The smallest of those coverages.
    pub worst_class_coverage: f64,
    /// `100 ·` mean over those classes of `|coverage_k − (1 − α)|`.
    pub covgap: f64,
    /// How many of those classes have coverage below `1 − α`.
    pub violated_classes: usize,
    /// Largest `|coverage − (1 − α)|` over the non-empty set-size strata; `NaN` if none.
    pub sscv: f64,
    /// The same over the non-empty difficulty strata; `NaN` if none (difficulty unknown).
    pub dsv: f64,
}

impl SplitTallies {
    /// Empty tallies for `k` classes.
    pub fn new(k: usize) -> Self {
        SplitTallies {
            classes: vec![Tally::default(); k],
            sizes: strata(&SIZE_STRATA),
            difficulty: strata(&DIFFICULTY_STRATA),
        }
    }

    /// Adds a test item: its true label, set size, whether covered, difficulty rank (`0`:
    /// unknown). A label beyond `K` is not counted by class.
    #[inline]
    pub fn add(&mut self, label: usize, size: usize, covered: bool, rank: u32) {
        if let Some(c) = self.classes.get_mut(label) {
            c.add(covered);
        }
        add_to(&mut self.sizes, size, covered);
        add_to(&mut self.difficulty, rank as usize, covered);
    }

    /// Adds `other`'s counts (pooling splits); classes beyond this one's are added.
    pub fn merge(&mut self, other: &SplitTallies) {
        if self.classes.len() < other.classes.len() {
            self.classes.resize(other.classes.len(), Tally::default());
        }
        for (a, b) in self.classes.iter_mut().zip(&other.classes) {
            a.covered += b.covered;
            a.count += b.count;
        }
        for (mine, theirs) in [(&mut self.sizes, &other.sizes), (&mut self.difficulty, &other.difficulty)] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                a.covered += b.covered;
                a.count += b.count;
            }
        }
    }

    /// The metrics at α (the level the sets were made at). With no test item, every value is
    /// `NaN` and no class is violated.
    pub fn metrics(&self, alpha: f64) -> ConditionalMetrics {
        let target = 1.0 - alpha;
        let present: Vec<f64> = self.classes.iter().filter(|c| c.count > 0).map(Tally::coverage).collect();
        let n = present.len() as f64;
        let worst = present.iter().copied().reduce(f64::min).unwrap_or(f64::NAN);
        let gap_sum: f64 = present.iter().map(|c| (c - target).abs()).sum();
        ConditionalMetrics {
            macro_coverage: present.iter().sum::<f64>() / n,
            worst_class_coverage: worst,
            covgap: 100.0 * (gap_sum / n),
            violated_classes: present.iter().filter(|&&c| c < target).count(),
            sscv: violation(&self.sizes, target),
            dsv: violation(&self.difficulty, target),
        }
    }
}

/// Largest `|coverage − target|` over the non-empty strata; `NaN` when all are empty.
fn violation(strata: &[Stratum], target: f64) -> f64 {
    strata
        .iter()
        .filter(|s| s.count > 0)
        .map(|s| (s.coverage() - target).abs())
        .reduce(f64::max)
        .unwrap_or(f64::NAN)
}

/// Each item's difficulty from its mean scores `means` (`[N][K]`): the 1-based rank of its true
/// label, higher mean first, ties to the lower candidate (CP_avg's set order). `0` for an item
/// whose label is beyond `K`.
pub fn difficulty_ranks(means: &[f64], k: usize, labels: &[usize]) -> Vec<u32> {
    let rank = |(row, &y): (&[f64], &usize)| match row.get(y) {
        Some(&my) => {
            let ahead = row.iter().enumerate().filter(|&(c, &x)| x > my || (x == my && c < y)).count();
            u32::try_from(ahead + 1).unwrap_or(u32::MAX)
        }
        None => 0,
    };
    means.chunks_exact(k.max(1)).zip(labels).map(rank).collect()
}

/// [`difficulty_ranks`] of a block's items (`labels` theirs), from the block's summaries.
pub fn difficulty_of_block(block: &ScoreTensor, labels: &[usize]) -> Vec<u32> {
    difficulty_ranks(&Summaries::of(block).mean, block.k(), labels)
}

/// [`difficulty_ranks`] of every item of `src`, a block of about 8 MB of scores at a time (so a
/// data set's means need not be held whole). The means are [`Summaries`]'s, bit for bit.
pub fn difficulty_of(src: &dyn ScoreBlocks, labels: &[usize]) -> Result<Vec<u32>> {
    let (n, m, k) = src.shape();
    crate::conformal::streamed::check_labels(labels, n, k)?;
    let items = ((8 << 20) / (8 * m * k).max(1)).max(1);
    let mut out = Vec::with_capacity(n);
    src.for_each_block(items, &mut |first, block| {
        out.extend(difficulty_of_block(block, &labels[first..first + block.n()]));
        Ok(())
    })?;
    Ok(out)
}

impl Calibrated {
    /// The split's [`SplitTallies`] at α; `difficulty[i]` is data-set item `i`'s rank
    /// (`test` indexes it; missing entries count as unknown).
    pub fn tallies(&self, alpha: f64, never_empty: bool, difficulty: &[u32]) -> SplitTallies {
        self.measure(alpha, never_empty, difficulty).2
    }

    /// [`Calibrated::metrics`], [`Calibrated::sizes`] and [`Calibrated::tallies`] from one pass
    /// over the test items where one threshold serves the split (pooled CP_r: sizes apart, as
    /// [`Calibrated::metrics_and_sizes`]).
    pub fn measure(
        &self,
        alpha: f64,
        never_empty: bool,
        difficulty: &[u32],
    ) -> (SplitMetrics, Vec<usize>, SplitTallies) {
        let mut tallies = SplitTallies::new(self.k);
        let per_item = self.per_item_threshold();
        let mut sizes = Vec::with_capacity(if per_item { 0 } else { self.test.len() });
        let mut t = 0;
        let metrics = self.metrics_noting(alpha, never_empty, &mut |size, covered| {
            let rank = difficulty.get(self.test[t]).copied().unwrap_or(0);
            tallies.add(self.labels[t], size, covered, rank);
            if !per_item {
                sizes.push(size);
            }
            t += 1;
        });
        if per_item {
            sizes = self.sizes(alpha, never_empty);
        }
        (metrics, sizes, tallies)
    }
}

/// Each conditional metric's mean and population sd over splits (as `coverage_mean` and
/// `coverage_sd`), splits where it is `NaN` left out (`NaN` if it is in all), and the splits'
/// tallies summed.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionalSummary {
    pub macro_coverage: (f64, f64),
    pub worst_class_coverage: (f64, f64),
    pub covgap: (f64, f64),
    pub violated_classes: (f64, f64),
    pub sscv: (f64, f64),
    pub dsv: (f64, f64),
    pub pooled: SplitTallies,
}

/// [`ConditionalSummary`] of splits' tallies at α (no splits: every value `NaN`).
pub fn summarize_conditional(alpha: f64, per_split: &[SplitTallies]) -> ConditionalSummary {
    let metrics: Vec<ConditionalMetrics> = per_split.iter().map(|t| t.metrics(alpha)).collect();
    let over = |f: fn(&ConditionalMetrics) -> f64| {
        let xs: Vec<f64> = metrics.iter().map(f).filter(|x| !x.is_nan()).collect();
        if xs.is_empty() {
            (f64::NAN, f64::NAN)
        } else {
            mean_sd(&xs)
        }
    };
    let mut pooled = SplitTallies::new(0);
    per_split.iter().for_each(|t| pooled.merge(t));
    ConditionalSummary {
        macro_coverage: over(|m| m.macro_coverage),
        worst_class_coverage: over(|m| m.worst_class_coverage),
        covgap: over(|m| m.covgap),
        violated_classes: over(|m| m.violated_classes as f64),
        sscv: over(|m| m.sscv),
        dsv: over(|m| m.dsv),
        pooled,
    }
}

#[cfg(test)]
mod tests;
