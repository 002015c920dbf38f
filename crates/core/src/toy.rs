//! The toy setting of the paper's §2.2 (docs/method.md §6): closed forms and a seeded simulator.
//!
//! Every random number is addressable by (seed, item, draw, candidate): the draws come from the
//! integer generator of [`draws`] (Philox4x32-10 and an integer inverse CDF), which
//! the GPU kernel reproduces bit for bit (docs/method.md §7), so a GPU can regenerate the same data without
//! shipping it.

pub mod draws;

use crate::eb::Hyper;
use crate::normal;
use crate::tensor::ScoreTensor;
use crate::{Error, Result};

/// Largest simulated tensor (elements): 2^28 f64 is 2 GiB, already too much for a browser tab.
pub const MAX_ELEMENTS: usize = 1 << 28;

/// The percentage the paper prints for `P(q > p)` in the toy setting; see [`NOTE_ON_PAPER`].
pub const PAPER_PRINTED_PERCENT: f64 = 48.47;

/// Why the explorer shows 48.74 % where the paper prints 48.47 %.
pub const NOTE_ON_PAPER: &str = "The paper prints P(q > p) = 48.47 %. The closed form \
Φ((μq − μp)/√(σp² + σq²)) = Φ(−1/√1001) gives 48.74 %: the printed value transposes the \
last two digits. The explorer shows the computed value.";

/// Parameters of the simulated conformal experiment (docs/method.md §6); `Default` gives the paper's.
#[derive(Debug, Clone, PartialEq)]
pub struct ToyParams {
    /// Candidates per item (candidate 0 is the true one).
    pub k: usize,
    /// Draws per item and candidate.
    pub m: usize,
    /// Calibration items per repeat.
    pub n_cal: usize,
    /// Test items per repeat.
    pub n_test: usize,
    /// Number of independent repeats of the experiment.
    pub repeats: usize,
    /// Mean of the true candidate's draws.
    pub mu_p: f64,
    /// Variance of the true candidate's draws (and of the low-variance false candidates).
    pub sigma2_p: f64,
    /// Mean of the false candidates' draws.
    pub mu_q: f64,
    /// Variance of the high-variance false candidates' draws (the σ² slider).
    pub sigma2: f64,
    /// Fraction h of the K−1 false candidates that are high-variance.
    pub high_var_fraction: f64,
    /// Seed of the Philox key.
    pub seed: u64,
}

impl Default for ToyParams {
    fn default() -> Self {
        ToyParams {
            k: 10,
            m: 30,
            n_cal: 500,
            n_test: 500,
            repeats: 50,
            mu_p: 1.0,
            sigma2_p: 1.0,
            mu_q: 0.0,
            sigma2: 1000.0,
            high_var_fraction: 1.0,
            seed: 1,
        }
    }
}

impl ToyParams {
    /// Items per repeat, `n_cal + n_test` (saturating: `validate` refuses the overflow).
    pub fn n(&self) -> usize {
        self.n_cal.saturating_add(self.n_test)
    }

    /// Number of high-variance false candidates, `round(h·(K−1))`.
    pub fn n_high_variance(&self) -> usize {
        let false_cands = self.k.saturating_sub(1);
        // Clamped so that an unvalidated h cannot claim more candidates than exist.
        let h = if self.high_var_fraction.is_finite() { self.high_var_fraction.clamp(0.0, 1.0) } else { 0.0 };
        ((h * false_cands as f64).round() as usize).min(false_cands)
    }

    /// Checks every parameter, so that `simulate` can index without further checks.
    pub fn validate(&self) -> Result<()> {
        if self.k < 2 {
            return Err(Error::invalid(format!(
                "the toy needs K ≥ 2 candidates (one true, at least one false), got K={}",
                self.k
            )));
        }
        if self.m < 1 {
            return Err(Error::invalid("the toy needs M ≥ 1 draws"));
        }
        if self.n_cal < 1 || self.n_test < 1 {
            return Err(Error::invalid(format!(
                "the toy needs at least one calibration and one test item (got n_cal={}, n_test={})",
                self.n_cal, self.n_test
            )));
        }
        if self.repeats < 1 {
            return Err(Error::invalid("the toy needs at least one repeat"));
        }
        for (name, v) in [("μp", self.mu_p), ("μq", self.mu_q)] {
            if !v.is_finite() {
                return Err(Error::invalid(format!("{name} must be finite, got {v}")));
            }
        }
        for (name, v) in [("σp²", self.sigma2_p), ("σ²", self.sigma2)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(Error::invalid(format!("{name} must be a finite variance ≥ 0, got {v}")));
            }
        }
        let h = self.high_var_fraction;
        if !(0.0..=1.0).contains(&h) {
            return Err(Error::invalid(format!("the high-variance fraction h must be in [0, 1], got {h}")));
        }
        let elements = self
            .n_cal
            .checked_add(self.n_test)
            .and_then(|n| n.checked_mul(self.m))
            .and_then(|x| x.checked_mul(self.k));
        match elements {
            Some(e) if e <= MAX_ELEMENTS => {}
            _ => {
                return Err(Error::invalid(format!(
                    "N×M×K = ({}+{})×{}×{} scores per repeat is too large (at most 2^28 = {})",
                    self.n_cal, self.n_test, self.m, self.k, MAX_ELEMENTS
                )))
            }
        }
        // The Philox counter holds repeat·N + item in one u32 word; beyond it numbers would repeat.
        let items_total = (self.n() as u64).checked_mul(self.repeats as u64);
        if items_total.is_none_or(|t| t > 1u64 << 32) {
            return Err(Error::invalid(format!(
                "repeats × N = {} × {} exceeds 2^32 addressable items",
                self.repeats,
                self.n()
            )));
        }
        Ok(())
    }
}

/// Whether false candidate `cand` has the high variance σ² (the first `round(h·(K−1))` of 1..K).
pub fn is_high_variance(p: &ToyParams, cand: usize) -> bool {
    cand >= 1 && cand <= p.n_high_variance()
}

/// One repeat's data set: scores `N × M × K` with `N = n_cal + n_test`, and labels (all 0).
///
/// Items `0..n_cal` are that repeat's calibration items and `n_cal..N` its test items. Candidate 0
/// is the true one, draws `N(μp, σp²)`; false candidates draw `N(μq, σ²)` if
/// [`is_high_variance`], else `N(μq, σp²)`: score = mean + sd · z with `z` the f32 normal of
/// [`draws::normal`]. Item `i` of repeat `r` uses item index `r·N + i`, so repeats are
/// independent and any score can be regenerated on its own.
/// `repeat` must be below `p.repeats`, which keeps every index inside the u32 counter word.
pub fn simulate(p: &ToyParams, repeat: usize) -> Result<(ScoreTensor, Vec<usize>)> {
    let first = first_item(p, repeat)?;
    let (n, m, k) = (p.n(), p.m, p.k);
    let mut data = Vec::with_capacity(n * m * k);
    let mut laws = Laws::of(p);
    // validate() (in first_item) bounds N·M·K by 2^28, so these casts cannot truncate.
    draws::for_each_batch(p.seed, first, n as u32, m as u32, k as u32, |z| laws.extend(&mut data, z));
    // Finite: validate() keeps μ finite and σ² finite, so |σ z| < 2^512 · 40 and μ + σ z rounds
    // to a finite number even beside f64::MAX (tested with extreme parameters).
    let scores = ScoreTensor::from_finite(n, m, k, data)?;
    Ok((scores, vec![0; n]))
}

/// One repeat's data set from its standard normals `[N][M][K]` as [`draws::normals`] gives
/// them (for instance from the GPU): exactly [`simulate`]'s scores when the normals are equal.
pub fn from_normals(p: &ToyParams, normals: &[f32]) -> Result<(ScoreTensor, Vec<usize>)> {
    p.validate()?;
    let (n, m, k) = (p.n(), p.m, p.k);
    if normals.len() != n * m * k {
        return Err(Error::length(
            "normals",
            normals.len(),
            format!("a repeat of {n} items × {m} draws × {k} candidates"),
        ));
    }
    let laws = Laws::of(p);
    let data = normals.iter().enumerate().map(|(j, &z)| laws.score(j % k, z)).collect();
    let scores = ScoreTensor::new(n, m, k, data)?;
    Ok((scores, vec![0; n]))
}

/// The item index (Philox counter word 0) of repeat `repeat`'s first item, `repeat·N`, once
/// `p` is valid and the repeat is one of its repeats.
pub fn first_item(p: &ToyParams, repeat: usize) -> Result<u32> {
    p.validate()?;
    if repeat >= p.repeats {
        return Err(Error::invalid(format!(
            "repeat {repeat} is out of range (the experiment has {} repeats)",
            p.repeats
        )));
    }
    // validate() bounds repeats·N by 2^32, so this cannot truncate.
    Ok((repeat * p.n()) as u32)
}

/// Each candidate's draw mean and standard deviation, repeated draw after draw (candidate `c` at
/// every index `≡ c mod K`) as far as a batch of draws needs.
struct Laws {
    k: usize,
    mean: Vec<f64>,
    sd: Vec<f64>,
}

impl Laws {
    fn of(p: &ToyParams) -> Laws {
        let sigma_p = p.sigma2_p.sqrt();
        let sigma_hi = p.sigma2.sqrt();
        let (mean, sd) = (0..p.k)
            .map(|c| {
                if c == 0 {
                    (p.mu_p, sigma_p)
                } else if is_high_variance(p, c) {
                    (p.mu_q, sigma_hi)
                } else {
                    (p.mu_q, sigma_p)
                }
            })
            .unzip();
        Laws { k: p.k, mean, sd }
    }

    /// Candidate `c`'s score for the standard normal `z`.
    #[inline]
    fn score(&self, c: usize, z: f32) -> f64 {
        Laws::at(self.mean[c], self.sd[c], z)
    }

    /// Appends the scores of whole draws from their standard normals (`z` of a multiple of K).
    /// One loop over a batch of draws, not one per draw: for K = 10 the vector loop's set-up and
    /// the capacity check cost about as much as the draw itself.
    fn extend(&mut self, scores: &mut Vec<f64>, z: &[f32]) {
        while self.mean.len() < z.len() {
            self.mean.extend_from_within(..self.k);
            self.sd.extend_from_within(..self.k);
        }
        scores.extend(z.iter().zip(&self.mean).zip(&self.sd).map(|((&z, &mu), &sd)| Laws::at(mu, sd, z)));
    }

    /// The score of a candidate with mean `mu` and standard deviation `sd` for the normal `z`.
    #[inline]
    fn at(mu: f64, sd: f64, z: f32) -> f64 {
        mu + sd * f64::from(z)
    }
}

use normal::{cdf as phi, sf as phi_upper};

/// `P(q > p)` for independent `p ~ N(μp, σp²)`, `q ~ N(μq, σq²)`: `Φ((μq − μp)/√(σp² + σq²))`.
///
/// With `σp² + σq² = 0` both are constants, so the answer is 1 if `μq > μp` and 0 otherwise (a tie
/// is not "exceeds"). At the paper's defaults this is 0.48739… = 48.74 %; see [`NOTE_ON_PAPER`].
/// A negative total variance gives NaN.
pub fn prob_q_exceeds_p(mu_p: f64, sigma2_p: f64, mu_q: f64, sigma2_q: f64) -> f64 {
    let var = sigma2_p + sigma2_q;
    if var == 0.0 {
        return if mu_q > mu_p { 1.0 } else { 0.0 };
    }
    phi((mu_q - mu_p) / var.sqrt())
}

/// Theorem 3's standard-CP inclusion probability `1 − Φ((T − μ0)/σ)` of a false candidate.
///
/// The candidate has latent mean `mu0` and single-draw variance `sigma2`, and is included when its
/// one realised score exceeds `threshold`; the curve tends to 1/2 as σ² grows. With `σ² = 0` the
/// score is `μ0` itself: 1 if `μ0 ≥ T`, else 0. A negative variance gives NaN.
pub fn inclusion_probability_std(threshold: f64, mu0: f64, sigma2: f64) -> f64 {
    if sigma2 == 0.0 {
        return if mu0 >= threshold { 1.0 } else { 0.0 };
    }
    phi_upper((threshold - mu0) / sigma2.sqrt())
}

/// Theorem 3's CP_r inclusion probability `1 − Φ((t_{r*}(σ²) − μ0)/σ)` of a false candidate.
///
/// `t_{r*}` is the threshold at `β = r*` (the calibration quantile of the r-values) on the
/// original scale, `μ + τ t_β(σ²/τ²)` with the given `z_β`; a candidate is included when its
/// score clears it. With `0 < z_β τ < q_β` the threshold grows like σ², faster than the
/// score's spread σ, so the curve tends to 0 where CP's tends to 1/2.
pub fn inclusion_probability_r(hyper: Hyper, r_star: f64, z: f64, mu0: f64, sigma2: f64) -> f64 {
    let t = crate::eb::threshold_original(hyper, normal::upper_quantile(r_star), z, sigma2);
    inclusion_probability_std(t, mu0, sigma2)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Φ by the Taylor series of erf, independent of libm; fine for the small |x| tested here.
    fn phi_series(x: f64) -> f64 {
        let t = x / std::f64::consts::SQRT_2;
        let (mut term, mut sum) = (t, 0.0);
        for n in 0..60 {
            sum += term / (2 * n + 1) as f64;
            term *= -t * t / (n + 1) as f64;
        }
        0.5 + sum / std::f64::consts::PI.sqrt()
    }

    fn mean_var(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var)
    }

    fn small() -> ToyParams {
        ToyParams { n_cal: 20, n_test: 30, m: 5, k: 4, repeats: 3, ..ToyParams::default() }
    }

    #[test]
    fn defaults_validate() {
        let p = ToyParams::default();
        assert!(p.validate().is_ok());
        assert_eq!((p.k, p.m, p.n_cal, p.n_test, p.repeats, p.seed), (10, 30, 500, 500, 50, 1));
        assert_eq!((p.mu_p, p.sigma2_p, p.mu_q, p.sigma2, p.high_var_fraction), (1.0, 1.0, 0.0, 1000.0, 1.0));
    }

    #[test]
    fn the_most_extreme_valid_parameters_simulate_finite_scores() {
        // simulate() skips the tensor's finiteness scan on this promise.
        let max = f64::MAX;
        for (mu_p, mu_q) in [(max, -max), (-max, max), (max, max)] {
            let p = ToyParams { mu_p, mu_q, sigma2_p: max, sigma2: max, ..small() };
            let (s, _) = simulate(&p, 2).unwrap();
            assert!(s.data().iter().all(|x| x.is_finite()), "μp {mu_p}, μq {mu_q}");
        }
    }

    #[test]
    fn validate_refuses_bad_params() {
        let d = ToyParams::default();
        let bad = [
            ToyParams { k: 1, ..d.clone() },
            ToyParams { m: 0, ..d.clone() },
            ToyParams { n_cal: 0, ..d.clone() },
            ToyParams { n_test: 0, ..d.clone() },
            ToyParams { repeats: 0, ..d.clone() },
            ToyParams { sigma2: -1.0, ..d.clone() },
            ToyParams { sigma2_p: f64::NAN, ..d.clone() },
            ToyParams { sigma2: f64::INFINITY, ..d.clone() },
            ToyParams { mu_p: f64::NAN, ..d.clone() },
            ToyParams { high_var_fraction: 1.5, ..d.clone() },
            ToyParams { high_var_fraction: f64::NAN, ..d.clone() },
            ToyParams { n_cal: 1 << 20, m: 1 << 10, ..d.clone() },
            ToyParams { n_cal: usize::MAX, ..d.clone() },
            ToyParams { repeats: 1 << 30, ..d.clone() },
        ];
        for p in bad {
            assert!(p.validate().is_err(), "{p:?} should be refused");
            assert!(simulate(&p, 0).is_err());
        }
        assert!(simulate(&small(), 3).is_err());
    }

    #[test]
    fn prob_q_exceeds_p_at_defaults_is_48_74_percent() {
        let got = prob_q_exceeds_p(1.0, 1.0, 0.0, 1000.0);
        let want = phi_series(-1.0 / 1001f64.sqrt());
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert!((got - 0.48739).abs() < 1e-5);
        assert_eq!((got * 10_000.0).round() / 100.0, 48.74);
        assert_ne!((got * 10_000.0).round() / 100.0, PAPER_PRINTED_PERCENT);
        assert_eq!(prob_q_exceeds_p(1.0, 0.0, 2.0, 0.0), 1.0);
        assert_eq!(prob_q_exceeds_p(1.0, 0.0, 1.0, 0.0), 0.0);
    }

    #[test]
    fn theorem_3_curves_part_ways_as_sigma2_grows() {
        let h = Hyper { mu: 0.0, tau2: 1.0 };
        let (r_star, mu0, t_std) = (0.1, 0.0, 1.5);
        let q = normal::upper_quantile(r_star);
        let z = 0.5 * q;
        let p_r = |s2: f64| inclusion_probability_r(h, r_star, z, mu0, s2);
        let p_std = |s2: f64| inclusion_probability_std(t_std, mu0, s2);
        // At σ² = 0 both thresholds are fixed points: t_β(0) = q_β.
        assert_eq!(p_r(0.0), if mu0 >= q { 1.0 } else { 0.0 });
        assert!((p_std(1e8) - 0.5).abs() < 1e-3);
        assert!(p_r(1e4) < 1e-12);
        // CP_r's curve falls from some σ² on while CP's keeps rising towards 1/2.
        assert!(p_r(50.0) < p_r(2.0) && p_std(50.0) > p_std(2.0));
    }

    #[test]
    fn inclusion_probability_std_limits() {
        assert_eq!(inclusion_probability_std(1.0, 0.0, 0.0), 0.0);
        assert_eq!(inclusion_probability_std(0.0, 0.0, 0.0), 1.0);
        assert!((inclusion_probability_std(0.0, 0.0, 4.0) - 0.5).abs() < 1e-15);
        assert!((inclusion_probability_std(2.0, 0.0, 1e12) - 0.5).abs() < 1e-5);
        // Deep upper tail: 1 − Φ(40) ≈ 3.7e−350 underflows, but 1 − Φ(20) ≈ 2.75e−89 must not be 0.
        let tail = inclusion_probability_std(20.0, 0.0, 1.0);
        assert!(tail > 2.7e-89 && tail < 2.8e-89, "{tail}");
        let x = inclusion_probability_std(1.0, 0.5, 0.25);
        let want = 1.0 - phi_series(1.0);
        assert!(((x - want) / want).abs() < 1e-14, "{x} vs {want}");
    }

    #[test]
    fn simulated_shape_labels_and_reproducibility() {
        let p = small();
        let (s, y) = simulate(&p, 0).unwrap();
        assert_eq!((s.n(), s.m(), s.k()), (50, 5, 4));
        assert_eq!(y, vec![0; 50]);
        let (s2, _) = simulate(&p, 0).unwrap();
        assert_eq!(s, s2);
        let (s3, _) = simulate(&p, 1).unwrap();
        assert_ne!(s.data(), s3.data());
        let (s4, _) = simulate(&ToyParams { seed: 2, ..p.clone() }, 0).unwrap();
        assert_ne!(s.data(), s4.data());
        // Addressability: a score is the documented function of (seed, repeat·N + item, draw, cand).
        let z = draws::normal(p.seed, (50 + 7) as u32, 3, 2);
        assert_eq!(s3.get(7, 3, 2), p.mu_q + p.sigma2.sqrt() * f64::from(z));
    }

    #[test]
    fn from_normals_is_simulate() {
        // K = 6 does not fill the second Philox block of each draw: the partial block is handled.
        let p = ToyParams { k: 6, ..small() };
        let z = draws::normals(p.seed, p.n() as u32, p.n() as u32, p.m as u32, p.k as u32);
        assert_eq!(from_normals(&p, &z).unwrap(), simulate(&p, 1).unwrap());
        assert!(matches!(from_normals(&p, &z[1..]), Err(Error::Length { .. })));
    }

    #[test]
    fn simulated_moments_match_parameters() {
        let p = ToyParams { n_cal: 1000, n_test: 1000, k: 3, repeats: 1, ..ToyParams::default() };
        let (s, _) = simulate(&p, 0).unwrap();
        let column = |c: usize| -> Vec<f64> {
            (0..s.n()).flat_map(|i| (0..s.m()).map(move |d| (i, d))).map(|(i, d)| s.get(i, d, c)).collect()
        };
        for (c, mu, var) in [(0, p.mu_p, p.sigma2_p), (1, p.mu_q, p.sigma2)] {
            let xs = column(c);
            let n = xs.len() as f64;
            let (m, v) = mean_var(&xs);
            assert!((m - mu).abs() < 5.0 * (var / n).sqrt(), "cand {c}: mean {m} vs {mu}");
            assert!((v - var).abs() < 5.0 * var * (2.0 / (n - 1.0)).sqrt(), "cand {c}: var {v} vs {var}");
        }
    }

    #[test]
    fn high_variance_fraction_selects_candidates() {
        let p = ToyParams { high_var_fraction: 0.0, ..small() };
        assert!((0..p.k).all(|c| !is_high_variance(&p, c)));
        let (s, _) = simulate(&p, 0).unwrap();
        // With h = 0 every false candidate is N(μq, σp²): nothing near the σ = 31.6 scale.
        assert!(s.data().iter().all(|x| x.abs() < 10.0));
        let p = ToyParams { high_var_fraction: 0.5, ..ToyParams::default() };
        // round(0.5 · 9) = 5 (half away from zero).
        let hi: Vec<usize> = (0..p.k).filter(|&c| is_high_variance(&p, c)).collect();
        assert_eq!(hi, vec![1, 2, 3, 4, 5]);
        let p = ToyParams::default();
        assert!(!is_high_variance(&p, 0));
        assert!((1..10).all(|c| is_high_variance(&p, c)));
    }
}
