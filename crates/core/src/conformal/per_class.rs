//! Per-class (Mondrian) calibration (docs/method.md §5): a threshold per class `c`, the
//! `⌈(n_c + 1)(1 − α)⌉`-th smallest true-label score among the calibration items of class `c`
//! (`+∞` when that rank exceeds `n_c`), and candidate `c` enters a set when its score is at
//! most class `c`'s threshold. The calibration scores are kept grouped by class, each group
//! sorted once, so any α is an index per class, as the marginal threshold is.
//!
//! Pooled CP_r keeps each test item's own calibration steps (docs/method.md §4); per class,
//! each item's `n` steps are kept grouped by the class of the unit chosen at each step.

use super::calibrated::{Calibrated, Cut};
use super::{conformal_quantile, k_star, Coverage};

/// A split's calibration units grouped by class: class `c`'s are `offsets[c]..offsets[c + 1]`
/// of each group list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct PerClass {
    offsets: Vec<usize>,
    groups: Groups,
}

/// What the groups hold.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Groups {
    /// One threshold per class for all test items: the units' scores, each class ascending.
    Scores(Vec<f64>),
    /// Pooled CP_r: per test item its `n` calibration steps (`[test][n]`), each class
    /// ascending, and `U`.
    Steps { steps: Vec<u32>, units: u32 },
}

/// Where each class's units start, from each unit's class: `K + 1` offsets.
fn offsets_of(k: usize, classes: &[usize]) -> Vec<usize> {
    let mut offsets = vec![0usize; k + 1];
    for &c in classes {
        offsets[c.min(k - 1) + 1] += 1;
    }
    for c in 1..=k {
        offsets[c] += offsets[c - 1];
    }
    offsets
}

impl PerClass {
    /// From each calibration unit's class (`< k`) and score, in the split's unit order.
    pub(super) fn of_scores(k: usize, classes: &[usize], scores: &[f64]) -> Self {
        let k = k.max(1);
        let offsets = offsets_of(k, classes);
        let mut next = offsets.clone();
        let mut grouped = vec![0.0; classes.len()];
        for (&c, &s) in classes.iter().zip(scores) {
            let c = c.min(k - 1);
            grouped[next[c]] = s;
            next[c] += 1;
        }
        for c in 0..k {
            grouped[offsets[c]..offsets[c + 1]].sort_unstable_by(f64::total_cmp);
        }
        PerClass { offsets, groups: Groups::Scores(grouped) }
    }

    /// For pooled CP_r, before any test item: each unit's class, in the split's unit order.
    pub(super) fn of_steps(k: usize, classes: &[usize], units: u32, items: usize) -> Self {
        let offsets = offsets_of(k.max(1), classes);
        let steps = Vec::with_capacity(items * classes.len());
        PerClass { offsets, groups: Groups::Steps { steps, units } }
    }

    /// Adds the next test item's calibration steps, in selection order, with the unit chosen
    /// at each: in selection order, so each class's steps arrive ascending.
    pub(super) fn push_steps(&mut self, classes: &[usize], cal_steps: &[u32], cal_units: &[u32]) {
        let Groups::Steps { steps, .. } = &mut self.groups else { return };
        let n = self.offsets.last().copied().unwrap_or(0);
        let at = steps.len();
        steps.resize(at + n, 0);
        let mut next = self.offsets.clone();
        let last = next.len().saturating_sub(2);
        for (&s, &j) in cal_steps.iter().zip(cal_units) {
            let c = classes.get(j as usize).map_or(0, |&c| c.min(last));
            if next[c] < self.offsets[c + 1] {
                steps[at + next[c]] = s;
                next[c] += 1;
            }
        }
    }

    /// Class `c`'s calibration units `n_c`.
    fn count(&self, c: usize) -> usize {
        self.offsets.get(c + 1).map_or(0, |&e| e - self.offsets[c])
    }

    /// Each class's calibration units `n_c`.
    pub(super) fn counts(&self) -> Vec<usize> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// Class `c`'s threshold at α for test item `t`: a score, or pooled a boundary `b/U`;
    /// `+∞` when `k*_c > n_c`.
    pub(super) fn threshold(&self, t: usize, c: usize, alpha: f64) -> f64 {
        let (Some(&from), n_c) = (self.offsets.get(c), self.count(c)) else { return f64::INFINITY };
        match &self.groups {
            Groups::Scores(s) => conformal_quantile(&s[from..from + n_c], alpha),
            Groups::Steps { steps, units } => {
                let n = self.offsets.last().copied().unwrap_or(0);
                match k_star(n_c, alpha) {
                    0 => f64::NEG_INFINITY,
                    ks if ks > n_c => f64::INFINITY,
                    ks => {
                        steps.get(t * n + from + ks - 1).map_or(f64::INFINITY, |&b| b as f64 / *units as f64)
                    }
                }
            }
        }
    }

    /// How many classes have `k*_c > n_c` at α (absent ones included): their threshold is
    /// `+∞`, so they enter every set.
    pub(super) fn unbounded(&self, alpha: f64) -> usize {
        (0..self.offsets.len() - 1).filter(|&c| k_star(self.count(c), alpha) > self.count(c)).count()
    }

    /// The groups as stored, for bytes: offsets, then scores or steps.
    pub(super) fn parts(&self) -> (&[usize], &Groups) {
        (&self.offsets, &self.groups)
    }

    /// Read back from [`PerClass::parts`]; `None` unless the offsets rise from 0 to the
    /// groups' length (per test item for steps) and each group is ascending.
    pub(super) fn from_parts(offsets: Vec<usize>, groups: Groups, items: usize) -> Option<Self> {
        let n = *offsets.last()?;
        let rising = offsets.first() == Some(&0) && offsets.windows(2).all(|w| w[0] <= w[1]);
        let fits = match &groups {
            Groups::Scores(s) => s.len() == n && ascending(&offsets, s, |a, b| a.total_cmp(b).is_le()),
            Groups::Steps { steps, units } => {
                steps.len() == n * items
                    && steps.iter().all(|&s| s >= 1 && s <= *units)
                    && steps.chunks(n.max(1)).all(|row| ascending(&offsets, row, |a, b| a < b))
            }
        };
        (rising && fits).then_some(PerClass { offsets, groups })
    }
}

/// Whether each group of `values` is in order by `le`.
fn ascending<T>(offsets: &[usize], values: &[T], le: impl Fn(&T, &T) -> bool) -> bool {
    offsets.windows(2).all(|w| values.get(w[0]..w[1]).is_some_and(|g| g.windows(2).all(|p| le(&p[0], &p[1]))))
}

impl Calibrated {
    /// Which coverage this calibration's thresholds guarantee.
    pub fn coverage(&self) -> Coverage {
        if self.classes.is_some() {
            Coverage::PerClass
        } else {
            Coverage::Marginal
        }
    }

    /// The threshold for candidate `class` of test item `t` at α: its class's threshold when
    /// per class, else the one threshold.
    pub fn class_threshold(&self, t: usize, class: usize, alpha: f64) -> f64 {
        match &self.classes {
            Some(p) => p.threshold(t, class, alpha),
            None => self.threshold(t, alpha),
        }
    }

    /// Each candidate's threshold for test item `t` at α (`K` values).
    pub fn thresholds(&self, t: usize, alpha: f64) -> Vec<f64> {
        match &self.classes {
            Some(p) => (0..self.k).map(|c| p.threshold(t, c, alpha)).collect(),
            None => vec![self.threshold(t, alpha); self.k],
        }
    }

    /// How many classes' thresholds are `+∞` at α because a class has too few calibration items
    /// (`⌈(n_c + 1)(1 − α)⌉ > n_c`, absent classes included); 0 when marginal.
    pub fn unbounded_classes(&self, alpha: f64) -> usize {
        self.classes.as_ref().map_or(0, |p| p.unbounded(alpha))
    }

    /// Each class's calibration items `n_c`, when per class.
    pub fn class_counts(&self) -> Option<Vec<usize>> {
        self.classes.as_ref().map(PerClass::counts)
    }

    /// Per class at α: test item `t`'s set size, the candidates ahead of its true label in set
    /// order, and whether the set holds the label, by a comparison per candidate (the set is
    /// not a prefix of the sorted row when each class has its own threshold).
    pub(super) fn per_class_place(&self, t: usize, alpha: f64) -> (usize, usize, bool) {
        match &self.classes {
            Some(p) => self.place_under(t, |c| p.threshold(t, c, alpha)),
            None => (0, 0, false),
        }
    }

    /// [`Calibrated::per_class_place`] under each class's threshold `q(class)`.
    pub(super) fn place_under(&self, t: usize, q: impl Fn(usize) -> f64) -> (usize, usize, bool) {
        let y = self.labels[t];
        let sy = self.score(t, y);
        let (mut size, mut before) = (0, 0);
        for c in 0..self.k {
            let s = self.score(t, c);
            if s <= q(c) {
                size += 1;
                before += usize::from(s.total_cmp(&sy).then(c.cmp(&y)).is_lt());
            }
        }
        (size, before, sy <= q(y))
    }

    /// Per class with one threshold per class for every test item (not pooled CP_r): the `K`
    /// thresholds at α, made once for a split's metrics rather than once per item.
    pub(super) fn shared_class_thresholds(&self, alpha: f64) -> Option<Vec<f64>> {
        match &self.classes {
            Some(p) if matches!(p.groups, Groups::Scores(_)) => {
                Some((0..self.k).map(|c| p.threshold(0, c, alpha)).collect())
            }
            _ => None,
        }
    }

    /// The cut at α when per class (`None` when marginal).
    pub(super) fn per_class_cut(&self, alpha: f64) -> Option<Cut> {
        self.classes.as_ref().map(|_| Cut::PerClass(alpha))
    }
}

#[cfg(test)]
mod tests;
