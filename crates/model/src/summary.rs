//! Panel 8: what an uploaded score file holds.

use rvalue_core::eb::type1_quantile;
use rvalue_core::io::Dataset;
use rvalue_core::tensor::{Summaries, VarianceKind};
use rvalue_core::{Error, Result};

/// The distribution of per-candidate variances `s` of one group of candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct VarianceDistribution {
    pub count: usize,
    pub mean: f64,
    /// Type-1 quantiles at 0, 0.1, 0.25, 0.5, 0.75, 0.9 and 1.
    pub quantiles: [f64; 7],
    /// Counts over [`DataSummary::bin_edges`].
    pub histogram: Vec<u64>,
}

/// The probabilities of [`VarianceDistribution::quantiles`].
pub const QUANTILE_PROBS: [f64; 7] = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0];

/// Summary of a data set (panel 8).
#[derive(Debug, Clone, PartialEq)]
pub struct DataSummary {
    pub n: usize,
    pub m: usize,
    pub k: usize,
    /// Read as `M = 1` from an `[N, K]` array: only CP and CP_avg are meaningful.
    pub single_draw: bool,
    /// Fraction of items whose best mean score (ties to the lower index) is the label.
    pub accuracy: Option<f64>,
    /// Shared histogram edges: `bins + 1` values, log-spaced from the smallest positive `s` to
    /// the largest (linear on `[0, max s]` when fewer than two distinct positive values).
    pub bin_edges: Vec<f64>,
    /// All candidates.
    pub all: VarianceDistribution,
    /// True candidates (needs labels).
    pub true_candidates: Option<VarianceDistribution>,
    /// False candidates (needs labels and K ≥ 2).
    pub false_candidates: Option<VarianceDistribution>,
}

fn distribution(mut s: Vec<f64>, edges: &[f64]) -> Option<VarianceDistribution> {
    if s.is_empty() {
        return None;
    }
    let count = s.len();
    let mean = s.iter().sum::<f64>() / count as f64;
    let bins = edges.len() - 1;
    let mut histogram = vec![0u64; bins];
    for &x in &s {
        // Bin b holds edges[b] ≤ x < edges[b + 1]; the ends take everything beyond them.
        let b = edges.partition_point(|&e| e <= x).saturating_sub(1);
        histogram[b.min(bins - 1)] += 1;
    }
    let quantiles = QUANTILE_PROBS.map(|p| type1_quantile(&mut s, p));
    Some(VarianceDistribution { count, mean, quantiles, histogram })
}

/// `bins + 1` log-spaced edges from the smallest positive variance to the largest (variances of
/// model scores spread over decades: linear bins put nearly all candidates in the first one).
/// Zero variances fall in the first bin; all zero gives the edges of `[0, 1]`. `log` and `exp` from
/// `libm`: the same edges natively and in wasm.
fn log_edges(s: &[f64], bins: usize) -> Vec<f64> {
    let max = s.iter().copied().fold(0.0, f64::max);
    let min_pos = s.iter().copied().filter(|&x| x > 0.0).fold(f64::INFINITY, f64::min);
    if !(max > 0.0) || !(min_pos < max) {
        let hi = if max > 0.0 { max } else { 1.0 };
        return rvalue_core::conformal::alpha_grid(0.0, hi, bins + 1);
    }
    let (a, b) = (libm::log(min_pos), libm::log(max));
    let mut edges: Vec<f64> = (0..=bins).map(|j| libm::exp(a + (b - a) * j as f64 / bins as f64)).collect();
    // Exactly the data's ends, whatever exp(ln x) rounds to.
    edges[0] = min_pos;
    edges[bins] = max;
    edges
}

impl DataSummary {
    /// Summarises a data set with `bins` histogram bins (at least 1) of the variance choice.
    pub fn of(data: &Dataset, variance: VarianceKind, bins: usize) -> Result<Self> {
        let t = &data.scores;
        if let Some(y) = &data.labels {
            rvalue_core::conformal::check_data(t, y)?;
        }
        if bins == 0 {
            return Err(Error::invalid("the variance histogram needs at least one bin"));
        }
        let sm = Summaries::of(t);
        let (n, k) = (t.n(), t.k());
        let s_all: Vec<f64> = (0..n * k).map(|u| sm.s(u / k, u % k, variance)).collect();
        let bin_edges = log_edges(&s_all, bins);
        let labels = data.labels.as_deref();
        let pick = |want_true: bool| -> Vec<f64> {
            let y = labels.unwrap_or(&[]);
            (0..n * k).filter(|&u| (y[u / k] == u % k) == want_true).map(|u| s_all[u]).collect()
        };
        let accuracy = labels.map(|y| {
            let hits = (0..n)
                .filter(|&i| {
                    let row = sm.mean_row(i);
                    (0..k).fold(0, |b, c| if row[c] > row[b] { c } else { b }) == y[i]
                })
                .count();
            hits as f64 / n as f64
        });
        Ok(DataSummary {
            n,
            m: t.m(),
            k,
            single_draw: data.single_draw || t.m() == 1,
            accuracy,
            true_candidates: labels.and_then(|_| distribution(pick(true), &bin_edges)),
            false_candidates: labels.and_then(|_| distribution(pick(false), &bin_edges)),
            all: distribution(s_all, &bin_edges)
                .ok_or_else(|| Error::invalid("the data set has no candidates to summarise"))?,
            bin_edges,
        })
    }
}
