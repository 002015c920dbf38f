//! The score tensor `S[n][m][k]` (SPEC §1) and its per-candidate summaries.

// User data flows through here: a failure is an `Error`, never a panic (clippy.toml lets tests unwrap).
#![deny(clippy::unwrap_used, clippy::expect_used)]

use crate::{Error, Result};

/// Scores of `n` items × `m` draws × `k` candidates, row-major (`k` fastest), higher is better.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreTensor {
    n: usize,
    m: usize,
    k: usize,
    data: Vec<f64>,
}

impl ScoreTensor {
    /// Builds a tensor, refusing empty dimensions, a wrong length and non-finite scores.
    pub fn new(n: usize, m: usize, k: usize, data: Vec<f64>) -> Result<Self> {
        if n == 0 || m == 0 || k == 0 {
            return Err(Error::shape(format!(
                "scores must have at least one item, draw and candidate (got N={n}, M={m}, K={k})"
            )));
        }
        let len =
            n.checked_mul(m).and_then(|x| x.checked_mul(k)).ok_or_else(|| Error::shape("N×M×K overflows"))?;
        if data.len() != len {
            return Err(Error::shape(format!(
                "expected N×M×K = {n}×{m}×{k} = {len} scores, got {}",
                data.len()
            )));
        }
        // Branch-free per chunk, so the compiler checks several scores per instruction (an early
        // exit per score cost 8 instructions each); the position is searched only on failure.
        let all_finite = data.chunks(64).all(|c| c.iter().fold(true, |ok, x| ok & x.is_finite()));
        let bad = if all_finite { None } else { data.iter().position(|x| !x.is_finite()) };
        if let Some(i) = bad {
            let (item, rest) = (i / (m * k), i % (m * k));
            return Err(Error::invalid(format!(
                "score [{item}][{}][{}] is {} (scores must be finite)",
                rest / k,
                rest % k,
                data[i]
            )));
        }
        Ok(ScoreTensor { n, m, k, data })
    }

    pub fn n(&self) -> usize {
        self.n
    }
    pub fn m(&self) -> usize {
        self.m
    }
    pub fn k(&self) -> usize {
        self.k
    }
    pub fn data(&self) -> &[f64] {
        &self.data
    }
    /// `S[item][draw][cand]`.
    #[inline]
    pub fn get(&self, item: usize, draw: usize, cand: usize) -> f64 {
        self.data[(item * self.m + draw) * self.k + cand]
    }
    /// The `K` scores of one draw of one item.
    #[inline]
    pub fn draw(&self, item: usize, draw: usize) -> &[f64] {
        let start = (item * self.m + draw) * self.k;
        &self.data[start..start + self.k]
    }
    /// All `M × K` scores of one item.
    #[inline]
    pub fn item(&self, item: usize) -> &[f64] {
        let start = item * self.m * self.k;
        &self.data[start..start + self.m * self.k]
    }
}

/// Which variance the r-value uses (SPEC §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VarianceKind {
    /// `s = v`: variability itself is the signal (the paper's choice).
    #[default]
    PerDraw,
    /// `s = v / M`: the squared standard error of the mean.
    OfMean,
}

impl VarianceKind {
    pub const ALL: [VarianceKind; 2] = [VarianceKind::PerDraw, VarianceKind::OfMean];

    /// The name used in links, the page and the JavaScript API.
    pub fn name(self) -> &'static str {
        match self {
            VarianceKind::PerDraw => "per-draw",
            VarianceKind::OfMean => "of-mean",
        }
    }

    /// The inverse of [`VarianceKind::name`].
    pub fn parse(s: &str) -> Result<Self> {
        crate::error::parse_name(s, &VarianceKind::ALL, VarianceKind::name, "variance")
    }
}

/// Per item and candidate: mean over draws `X` and sample variance `v` (divisor `M − 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct Summaries {
    pub n: usize,
    pub k: usize,
    pub m: usize,
    /// `X[n][k]`.
    pub mean: Vec<f64>,
    /// `v[n][k]`, `0` when `M = 1`.
    pub var: Vec<f64>,
}

impl Summaries {
    /// Welford's update per draw keeps the variance accurate when scores are large and close.
    pub fn of(t: &ScoreTensor) -> Self {
        let (n, m, k) = (t.n, t.m, t.k);
        let mut mean = vec![0.0; n * k];
        let mut var = vec![0.0; n * k];
        for i in 0..n {
            let mu = &mut mean[i * k..(i + 1) * k];
            let m2 = &mut var[i * k..(i + 1) * k];
            for d in 0..m {
                let row = t.draw(i, d);
                let w = 1.0 / (d + 1) as f64;
                for c in 0..k {
                    let delta = row[c] - mu[c];
                    mu[c] += delta * w;
                    m2[c] += delta * (row[c] - mu[c]);
                }
            }
            for v in m2.iter_mut() {
                *v = if m > 1 { (*v / (m - 1) as f64).max(0.0) } else { 0.0 };
            }
        }
        Summaries { n, k, m, mean, var }
    }

    /// The variance the r-value uses for item `i`, candidate `c`.
    #[inline]
    pub fn s(&self, i: usize, c: usize, kind: VarianceKind) -> f64 {
        let v = self.var[i * self.k + c];
        match kind {
            VarianceKind::PerDraw => v,
            VarianceKind::OfMean => v / self.m as f64,
        }
    }

    pub fn mean_row(&self, i: usize) -> &[f64] {
        &self.mean[i * self.k..(i + 1) * self.k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn summaries_mean_and_sample_variance() {
        // item 0: candidate 0 draws 1,2,3 (mean 2, var 1); candidate 1 draws 5,5,5.
        let t = ScoreTensor::new(1, 3, 2, vec![1.0, 5.0, 2.0, 5.0, 3.0, 5.0]).unwrap();
        let s = Summaries::of(&t);
        assert_eq!(s.mean, vec![2.0, 5.0]);
        assert!((s.var[0] - 1.0).abs() < 1e-15);
        assert_eq!(s.var[1], 0.0);
        assert!((s.s(0, 0, VarianceKind::OfMean) - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn single_draw_has_zero_variance() {
        let t = ScoreTensor::new(2, 1, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(Summaries::of(&t).var.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn refuses_non_finite_and_bad_length() {
        assert!(ScoreTensor::new(1, 1, 2, vec![1.0, f64::NAN]).is_err());
        assert!(ScoreTensor::new(1, 1, 2, vec![1.0]).is_err());
        assert!(ScoreTensor::new(0, 1, 2, vec![]).is_err());
    }
}
