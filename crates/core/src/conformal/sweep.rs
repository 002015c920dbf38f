//! Coverage and mean set size over a grid of α values, from a [`Calibrated`]'s sorted scores:
//! the page's curves, without a set built per α.

use super::calibrated::Store;
use super::Calibrated;

impl Calibrated {
    /// Coverage and mean set size at each α, from the sorted scores: `O(log K)` per item and α,
    /// or with a global threshold and few candidates `O(log A)` per test score.
    pub fn sweep(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        match &self.store {
            Store::Global { .. } if self.classes.is_none() && self.global_sweep_pays(alphas.len()) => {
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

    /// [`Calibrated::sweep`] item by item (any threshold). Items outside, α inside: an item's
    /// row stays in cache over all α, where one α at a time over a file's 10^7 scores re-read
    /// every row from memory for each α (seconds a split). The counts are integers, so the
    /// order does not change them.
    pub(super) fn sweep_per_item(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        let nt = self.test.len();
        let cuts: Vec<_> = alphas.iter().map(|&alpha| self.cut(alpha)).collect();
        let (mut covered, mut size) = (vec![0usize; cuts.len()], vec![0usize; cuts.len()]);
        for t in 0..nt {
            let best_is_true = never_empty && self.best(t) == self.labels[t];
            for (j, &cut) in cuts.iter().enumerate() {
                let (count, holds) = self.held(t, cut);
                if count == 0 && never_empty {
                    size[j] += 1;
                    covered[j] += usize::from(best_is_true);
                } else {
                    size[j] += count;
                    covered[j] += usize::from(holds);
                }
            }
        }
        let share = |c: usize| c as f64 / nt as f64;
        covered.into_iter().zip(size).map(|(c, s)| (share(c), share(s))).collect()
    }

    /// [`Calibrated::sweep`] with one threshold `q` for all test items. Then every count is a
    /// count of values at or below `q`: the set sizes add up to the test scores `≤ q`, coverage
    /// counts the true labels' scores `≤ q`, and never-empty adds, per item whose best score
    /// exceeds `q`, a set of one that covers when the best candidate is the true one. The counts
    /// are the per-item loop's, so the fractions are the same bits.
    pub(super) fn sweep_global(&self, alphas: &[f64], never_empty: bool) -> Vec<(f64, f64)> {
        let nt = self.test.len();
        let qs: Vec<f64> = alphas.iter().map(|&alpha| self.threshold(0, alpha)).collect();
        // A count: the sorted rows hold the same values.
        let size = counts_at_most((0..nt).flat_map(|t| self.global_sorted_row(t).iter().copied()), &qs);
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
}

/// How many of `values` are at most each threshold: `counts[a] = #{v : v ≤ qs[a]}` (a NaN is
/// at most nothing, and nothing is at most a NaN). Each value is placed among the thresholds,
/// sorted once, by a binary search: for the α sweep's hundred thresholds that is cheaper than
/// sorting the values, which the page's toy did for every method of every repeat.
pub(super) fn counts_at_most(values: impl Iterator<Item = f64>, qs: &[f64]) -> Vec<usize> {
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
