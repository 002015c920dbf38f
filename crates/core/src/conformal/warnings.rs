//! Data and settings that are accepted but limit what the results mean (docs/method.md §8).
//! Each face says them in these words: the CLI on stderr, Python by `warnings.warn`, the page as
//! a note in its data summary. Deciding them here, once, is what keeps the faces from drifting.

use std::fmt;

use super::{Method, RvalueKind};

/// Below this many candidates, an item's nonparametric r-values are too few to let sets follow α.
pub const COARSE_NONPARAMETRIC_K: usize = 10;
/// Below this many draws, most of the pooled greedy's counts tie.
pub const COARSE_POOLED_M: usize = 10;

/// What the checks look at: the data's shape and labels, the run's settings.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub m: usize,
    pub k: usize,
    /// Every item's label, or none when the face has none (e.g. new items to predict).
    pub labels: &'a [usize],
    /// The smallest calibration size among the run's splits, where known.
    pub n_cal: Option<usize>,
    pub alpha: f64,
    pub methods: &'a [Method],
    pub kind: RvalueKind,
}

/// One warning; its `Display` is the sentence every face shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// `M = 1` with CP_r asked for.
    SingleDraw,
    /// `K = 1`.
    OneCandidate,
    /// Labels use fewer than half the candidates: often a tensor stacked `[N, K, M]`.
    FewLabels { used: usize, m: usize, k: usize },
    /// `α < 1/(n_cal + 1)`: `k* > n_cal`, so `q̂ = +∞`.
    AlphaBelowResolution { alpha: f64, n_cal: usize },
    /// Rank-based r-values too coarse for sets to move with α.
    CoarseRanks { kind: RvalueKind, m: usize, k: usize },
}

/// Every warning that applies, in a fixed order.
pub fn check(f: &Facts) -> Vec<Warning> {
    let cp_r = f.methods.contains(&Method::CpR);
    let mut out = Vec::new();
    if f.m == 1 && cp_r {
        out.push(Warning::SingleDraw);
    }
    if f.k == 1 {
        out.push(Warning::OneCandidate);
    }
    if let Some(used) = few_labels(f.labels, f.k) {
        out.push(Warning::FewLabels { used, m: f.m, k: f.k });
    }
    if let Some(n_cal) = f.n_cal.filter(|&n| f.alpha < 1.0 / (n as f64 + 1.0)) {
        out.push(Warning::AlphaBelowResolution { alpha: f.alpha, n_cal });
    }
    let coarse = match f.kind {
        RvalueKind::Nonparametric => f.k > 1 && f.k < COARSE_NONPARAMETRIC_K,
        RvalueKind::Pooled => f.m > 1 && f.m < COARSE_POOLED_M,
        RvalueKind::Parametric => false,
    };
    if cp_r && coarse {
        out.push(Warning::CoarseRanks { kind: f.kind, m: f.m, k: f.k });
    }
    out
}

/// How many candidates the labels use, when that is fewer than half of `k` although there are
/// items enough (at least `2k`) to expect more. A single label is left alone: that is a data set
/// built so (the paper's toy makes candidate 0 the true one), not a tensor read the wrong way.
fn few_labels(labels: &[usize], k: usize) -> Option<usize> {
    if k < 4 || labels.len() < 2 * k {
        return None;
    }
    let mut seen = vec![false; k];
    for &y in labels {
        if let Some(s) = seen.get_mut(y) {
            *s = true;
        }
    }
    let used = seen.iter().filter(|&&s| s).count();
    (used >= 2 && 2 * used < k).then_some(used)
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Warning::SingleDraw => write!(f, "M = 1: only CP and CP_avg are meaningful"),
            Warning::OneCandidate => {
                write!(f, "K = 1: one candidate, so every prediction set is that candidate or empty")
            }
            Warning::FewLabels { used, m, k } => write!(
                f,
                "the labels use {used} of the K = {k} candidates: is the tensor [N, M, K]? \
                 (it was read as M = {m} draws of K = {k} candidates)"
            ),
            Warning::AlphaBelowResolution { alpha, n_cal } => write!(
                f,
                "α = {alpha} is below 1/(n_cal + 1) = {:.3e} with {n_cal} calibration items: \
                 q̂ = +∞, so every prediction set is full",
                1.0 / (n_cal as f64 + 1.0)
            ),
            Warning::CoarseRanks { kind: RvalueKind::Nonparametric, k, .. } => write!(
                f,
                "nonparametric r-values rank each item's K = {k} candidates among themselves, so \
                 every CP_r set has the same size and only {} sizes are possible as α moves; \
                 pooled or parametric r-values are finer",
                k + 1
            ),
            Warning::CoarseRanks { m, .. } => write!(
                f,
                "pooled r-values count ranks over M = {m} draws: with fewer than \
                 {COARSE_POOLED_M} draws most counts tie, and the tie order decides much of each set"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn facts<'a>(labels: &'a [usize], methods: &'a [Method]) -> Facts<'a> {
        Facts { m: 30, k: 10, labels, n_cal: Some(450), alpha: 0.1, methods, kind: RvalueKind::Parametric }
    }

    #[test]
    fn ordinary_data_gets_no_warning() {
        let labels: Vec<usize> = (0..100).map(|i| i % 10).collect();
        assert_eq!(check(&facts(&labels, &Method::ALL)), []);
    }

    #[test]
    fn a_transposed_tensor_is_suspected_from_its_labels() {
        // [N, K = 6, M = 20] read as M = 6, K = 20: labels use 0..6 of 20.
        let labels: Vec<usize> = (0..120).map(|i| i % 6).collect();
        let f = Facts { m: 6, k: 20, ..facts(&labels, &Method::ALL) };
        let w = check(&f);
        assert_eq!(w, [Warning::FewLabels { used: 6, m: 6, k: 20 }]);
        assert!(w[0].to_string().contains("is the tensor [N, M, K]?"), "{}", w[0]);
        // Half the candidates or more, one label only (the toy's), or too few items: nothing.
        assert_eq!(check(&Facts { k: 20, ..facts(&[0; 100], &Method::ALL) }), []);
        let half: Vec<usize> = (0..120).map(|i| i % 10).collect();
        assert_eq!(check(&Facts { k: 20, ..facts(&half, &Method::ALL) }), []);
        assert_eq!(check(&Facts { k: 20, ..facts(&labels[..39], &Method::ALL) }), []);
    }

    #[test]
    fn alpha_below_one_over_n_cal_plus_one_fills_every_set() {
        let labels: Vec<usize> = (0..100).map(|i| i % 10).collect();
        let f = Facts { n_cal: Some(500), alpha: 0.001, ..facts(&labels, &Method::ALL) };
        let w = check(&f);
        assert_eq!(w, [Warning::AlphaBelowResolution { alpha: 0.001, n_cal: 500 }]);
        assert!(w[0].to_string().contains("every prediction set is full"), "{}", w[0]);
        // At exactly 1/(n + 1), k* = n: a finite q̂.
        assert_eq!(check(&Facts { n_cal: Some(999), ..f }), []);
        assert_eq!(check(&Facts { n_cal: None, ..f }), []);
    }

    #[test]
    fn coarse_rank_based_r_values_are_named_when_cp_r_runs() {
        let labels: Vec<usize> = (0..100).map(|i| i % 6).collect();
        let np = Facts { k: 6, kind: RvalueKind::Nonparametric, ..facts(&labels, &Method::ALL) };
        assert_eq!(check(&np), [Warning::CoarseRanks { kind: RvalueKind::Nonparametric, m: 30, k: 6 }]);
        assert!(check(&np)[0].to_string().contains("only 7 sizes"));
        assert_eq!(check(&Facts { methods: &[Method::Cp, Method::CpAvg], ..np }), []);
        assert_eq!(check(&Facts { k: 10, ..np }), []);
        let pooled = Facts { m: 5, kind: RvalueKind::Pooled, ..facts(&labels, &Method::ALL) };
        assert_eq!(check(&pooled), [Warning::CoarseRanks { kind: RvalueKind::Pooled, m: 5, k: 10 }]);
        assert_eq!(check(&Facts { m: 10, ..pooled }), []);
    }

    #[test]
    fn single_draw_and_single_candidate_keep_their_words() {
        let f = Facts { m: 1, k: 1, ..facts(&[], &Method::ALL) };
        let w: Vec<String> = check(&f).iter().map(|w| w.to_string()).collect();
        assert_eq!(w[0], "M = 1: only CP and CP_avg are meaningful");
        assert!(w[1].starts_with("K = 1: one candidate"));
        assert_eq!(check(&Facts { k: 10, ..Facts { methods: &[Method::Cp], ..f } }), []);
    }
}
