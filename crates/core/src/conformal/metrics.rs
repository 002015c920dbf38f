//! Metrics of prediction sets: per split at one α (coverage, size, the true label's position,
//! empty sets), and their summary over repeated splits (one row of `rvalue conformal`).

use super::calibrated::{Cut, Store};
use super::conditional::{summarize_conditional, SplitTallies, Stratum, Tally};
use super::{Calibrated, Method};
use crate::{Error, Result};

/// Metrics of one split at one α.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SplitMetrics {
    pub coverage: f64,
    pub size: f64,
    /// Mean 0-based position of the true label in its set (over items whose set holds it);
    /// `NaN` when no set does.
    pub position: f64,
    pub empty_rate: f64,
    /// Per class: how many classes' thresholds are `+∞` (too few calibration items); `None`
    /// when marginal.
    pub unbounded_classes: Option<usize>,
}
impl Calibrated {
    /// Coverage, size, position and empty rate at α.
    pub fn metrics(&self, alpha: f64, never_empty: bool) -> SplitMetrics {
        self.metrics_noting(alpha, never_empty, &mut |_, _| {})
    }

    /// [`Calibrated::metrics`] and [`Calibrated::sizes`] together: with one threshold for the
    /// split, a test item's set size is the same search in its sorted row for both, so it is
    /// made once (after a streamed pass, these searches are most of what is left to do).
    pub fn metrics_and_sizes(&self, alpha: f64, never_empty: bool) -> (SplitMetrics, Vec<usize>) {
        if self.per_item_threshold() {
            return (self.metrics(alpha, never_empty), self.sizes(alpha, never_empty));
        }
        let mut sizes = Vec::with_capacity(self.test.len());
        let metrics = self.metrics_noting(alpha, never_empty, &mut |size, _| sizes.push(size));
        (metrics, sizes)
    }

    /// [`Calibrated::metrics`], telling `note` each test item's set size and whether it is
    /// covered, in test order.
    pub(super) fn metrics_noting(
        &self,
        alpha: f64,
        never_empty: bool,
        note: &mut dyn FnMut(usize, bool),
    ) -> SplitMetrics {
        let nt = self.test.len();
        let (mut covered, mut size, mut empty, mut pos_sum) = (0usize, 0usize, 0usize, 0usize);
        let cut = self.cut(alpha);
        let shared = self.shared_class_thresholds(alpha);
        for t in 0..nt {
            let (count, position) = match &shared {
                Some(qs) => self.never_empty_place(t, self.place_under(t, |c| qs[c]), never_empty),
                None => self.size_and_position(t, cut, never_empty),
            };
            note(count, position.is_some());
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
            unbounded_classes: self.classes.as_ref().map(|_| self.unbounded_classes(alpha)),
        }
    }

    /// Test item `t`'s set size and its true label's place in set order (`None` when outside):
    /// what [`Calibrated::set`] gives, without building or sorting the set. Metrics over many
    /// splits make this the hot loop (a sort per item and split cost more than the r-values
    /// did): with one threshold, a binary search in the sorted row; pooled or per class, one
    /// pass.
    fn size_and_position(&self, t: usize, cut: Cut, never_empty: bool) -> (usize, Option<usize>) {
        let y = self.labels[t];
        let (size, before, in_set) = match (&self.store, cut) {
            (_, Cut::PerClass(alpha)) => self.per_class_place(t, alpha),
            (Store::Global { rows, by_item, .. }, _) => {
                let q = self.threshold_at(t, cut);
                let r = if *by_item { self.test[t] } else { t };
                // Ahead of the label in set order: lower scores, then equal ones at lower
                // indices, which is its rank in the row.
                let sy = rows.score(r, y);
                (rows.sorted_row(r).partition_point(|&s| s <= q), rows.rank(r, y), sy <= q)
            }
            (Store::PerItem { .. }, _) => {
                let q = self.threshold_at(t, cut);
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
        self.never_empty_place(t, (size, before, in_set), never_empty)
    }

    /// A set's size and its label's place from `(size, before, in_set)`, never-empty applied.
    fn never_empty_place(
        &self,
        t: usize,
        (size, before, in_set): (usize, usize, bool),
        never_empty: bool,
    ) -> (usize, Option<usize>) {
        if size == 0 && never_empty {
            return (1, (self.best(t) == self.labels[t]).then_some(0));
        }
        (size, in_set.then_some(before))
    }
    /// Set sizes of every test item at α (for histograms).
    pub fn sizes(&self, alpha: f64, never_empty: bool) -> Vec<usize> {
        let cut = self.cut(alpha);
        let shared = self.shared_class_thresholds(alpha);
        (0..self.test.len())
            .map(|t| {
                match shared
                    .as_ref()
                    .map_or_else(|| self.held(t, cut).0, |qs| self.place_under(t, |c| qs[c]).0)
                {
                    0 if never_empty => 1,
                    c => c,
                }
            })
            .collect()
    }
}

/// Checks α.
pub fn check_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(Error::out_of_range("α", alpha, "(0, 1)"))
    }
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
    /// The conditional metrics over splits.
    pub conditional: Conditional,
    /// Per class: the most classes whose threshold was `+∞` in a split; `None` when marginal.
    pub unbounded_classes: Option<usize>,
}

/// A method's conditional metrics ([`ConditionalMetrics`](super::ConditionalMetrics)) over
/// splits: means and population sds, splits where one is `NaN` left out (`NaN` if all are),
/// and the tallies summed over splits (docs/method.md §5).
#[derive(Debug, Clone, PartialEq)]
pub struct Conditional {
    pub macro_coverage_mean: f64,
    pub macro_coverage_sd: f64,
    pub worst_class_coverage_mean: f64,
    pub worst_class_coverage_sd: f64,
    /// In percent.
    pub covgap_mean: f64,
    pub covgap_sd: f64,
    pub violated_classes_mean: f64,
    pub violated_classes_sd: f64,
    pub sscv_mean: f64,
    pub sscv_sd: f64,
    pub dsv_mean: f64,
    pub dsv_sd: f64,
    /// Per class `0..K`, summed over splits: covered test items and the class's appearances
    /// among the test items (empty when the splits were not tallied).
    pub class_tallies: Vec<Tally>,
    /// Per set-size stratum ([`SIZE_STRATA`](super::SIZE_STRATA)), summed over splits.
    pub size_strata: Vec<Stratum>,
    /// Per difficulty stratum ([`DIFFICULTY_STRATA`](super::DIFFICULTY_STRATA)), summed over
    /// splits; all empty when difficulty is unknown.
    pub difficulty_strata: Vec<Stratum>,
}

/// The conditional metrics' column names, after `splits`, where every face writes them: the
/// CLI's CSV and JSON, the page's summary download (docs/method.md §5).
pub const CONDITIONAL_COLUMNS: [&str; 12] = [
    "macro_coverage_mean",
    "macro_coverage_sd",
    "worst_class_coverage_mean",
    "worst_class_coverage_sd",
    "covgap_mean",
    "covgap_sd",
    "violated_classes_mean",
    "violated_classes_sd",
    "sscv_mean",
    "sscv_sd",
    "dsv_mean",
    "dsv_sd",
];

impl Conditional {
    /// The means and sds, in [`CONDITIONAL_COLUMNS`]' order.
    pub fn numbers(&self) -> [f64; 12] {
        [
            self.macro_coverage_mean,
            self.macro_coverage_sd,
            self.worst_class_coverage_mean,
            self.worst_class_coverage_sd,
            self.covgap_mean,
            self.covgap_sd,
            self.violated_classes_mean,
            self.violated_classes_sd,
            self.sscv_mean,
            self.sscv_sd,
            self.dsv_mean,
            self.dsv_sd,
        ]
    }
}

/// Mean and population sd (numpy's default).
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Aggregates per-split metrics and set sizes into a [`Summary`], without conditional
/// metrics ([`summarize_with`] has them): those are `NaN` and the tallies empty.
pub fn summarize(
    method: Method,
    alpha: f64,
    per_split: &[SplitMetrics],
    sizes: &[Vec<usize>],
    k: usize,
) -> Summary {
    summarize_with(method, alpha, per_split, sizes, k, &[])
}

/// Aggregates per-split metrics, set sizes and conditional tallies (one per split, or none)
/// into a [`Summary`].
pub fn summarize_with(
    method: Method,
    alpha: f64,
    per_split: &[SplitMetrics],
    sizes: &[Vec<usize>],
    k: usize,
    tallies: &[SplitTallies],
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
    let c = summarize_conditional(alpha, tallies);
    let tallied = !tallies.is_empty();
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
        conditional: Conditional {
            macro_coverage_mean: c.macro_coverage.0,
            macro_coverage_sd: c.macro_coverage.1,
            worst_class_coverage_mean: c.worst_class_coverage.0,
            worst_class_coverage_sd: c.worst_class_coverage.1,
            covgap_mean: c.covgap.0,
            covgap_sd: c.covgap.1,
            violated_classes_mean: c.violated_classes.0,
            violated_classes_sd: c.violated_classes.1,
            sscv_mean: c.sscv.0,
            sscv_sd: c.sscv.1,
            dsv_mean: c.dsv.0,
            dsv_sd: c.dsv.1,
            class_tallies: c.pooled.classes,
            size_strata: if tallied { c.pooled.sizes } else { Vec::new() },
            difficulty_strata: if tallied { c.pooled.difficulty } else { Vec::new() },
        },
        unbounded_classes: per_split.iter().filter_map(|m| m.unbounded_classes).max(),
    }
}

/// Runs a method over splits at one α (the rows of `rvalue conformal`), difficulty unknown
/// ([`evaluate_with`]).
pub fn evaluate(calibrated: &[Calibrated], method: Method, alpha: f64, never_empty: bool) -> Result<Summary> {
    evaluate_with(calibrated, method, alpha, never_empty, &[])
}

/// [`evaluate`] with each data-set item's difficulty rank ([`difficulty_ranks`](super::difficulty_ranks)).
pub fn evaluate_with(
    calibrated: &[Calibrated],
    method: Method,
    alpha: f64,
    never_empty: bool,
    difficulty: &[u32],
) -> Result<Summary> {
    check_alpha(alpha)?;
    let k = calibrated.first().map(|c| c.k).unwrap_or(0);
    let (mut per_split, mut sizes, mut tallies) = (Vec::new(), Vec::new(), Vec::new());
    for c in calibrated {
        let (m, s, t) = c.measure(alpha, never_empty, difficulty);
        per_split.push(m);
        sizes.push(s);
        tallies.push(t);
    }
    Ok(summarize_with(method, alpha, &per_split, &sizes, k, &tallies))
}
