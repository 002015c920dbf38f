//! Panel 5's inputs from an analysis: CP's threshold, and CP_r's at the calibrated `r̂` (or β)
//! with the prior the r-values use, so that the curve is the one behind panel 6's sets.

use super::{Analysis, CP_R};
use crate::curves::{spread_sample, CutFrom, CutRule, InclusionInputs};
use rvalue_core::conformal::{check_alpha, Method};
use rvalue_core::eb;
use rvalue_core::normal;
use rvalue_core::tensor::VarianceKind;
use rvalue_core::{Error, Result};

/// Panel 5's threshold rule averages over at most this many candidates' variances: `r̂` moves
/// with α, and the rule is solved again for each new `r̂`.
const CUT_CANDIDATES: usize = 2048;

/// `e` with `(1/U) Σ_j 1 − Φ(e √s_j) = β`: the τ² → 0 limit of the model rule, as the core's
/// parametric r-value defines it (a unit is selected at β when `(x − μ)/s ≥ e`). `None` when β is
/// out of the range the sum takes (noise-free units count one half whatever `e`).
pub fn limit_slope(beta: f64, s: &[f64]) -> Option<f64> {
    if s.is_empty() || !(beta > 0.0 && beta < 1.0) {
        return None;
    }
    let e_of = |e: f64| s.iter().map(|&sj| normal::sf(e * sj.sqrt())).sum::<f64>() / s.len() as f64;
    let (mut lo, mut hi) = (-1.0f64, 1.0f64);
    for _ in 0..80 {
        if e_of(lo) > beta && e_of(hi) < beta {
            break;
        }
        (lo, hi) = (2.0 * lo, 2.0 * hi);
    }
    if !(e_of(lo) > beta && e_of(hi) < beta) {
        return None;
    }
    // 48 halvings leave the bracket 2⁻⁴⁸ of its width: far below what a curve or count shows.
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if e_of(mid) > beta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi)).filter(|e| e.is_finite())
}

impl Analysis {
    /// CP_r's calibrated threshold `r̂` at α on the first split (or repeat): the one panel 7
    /// shows; `None` when it is not in `(0, 1)` (every or no candidate passes).
    pub fn r_hat(&self, alpha: f64) -> Option<f64> {
        let c = self.calibrated.get(CP_R)?.first()?;
        Some(c.threshold(0, alpha)).filter(|r| *r > 0.0 && *r < 1.0)
    }

    /// How CP_r's threshold at level `r` grows with the variance, under the pooled prior
    /// ([`Analysis::hyper`]) and the model rule over (a sample of) the first data set's
    /// variances. Remembered per `r`.
    pub fn cut_rule(&self, r: f64) -> Option<CutRule> {
        if let Some(&(_, rule)) = self.cut_memo.borrow().iter().find(|(b, _)| *b == r.to_bits()) {
            return rule;
        }
        let s = self.first.summaries();
        let all = s.n * s.k;
        let kind = self.controls.score.variance;
        let sample: Vec<f64> =
            spread_sample(all, CUT_CANDIDATES).map(|u| s.s(u / s.k, u % s.k, kind)).collect();
        let rule = self.hyper.and_then(|h| {
            if h.tau2 > 0.0 {
                let ss: Vec<f64> = sample.iter().map(|v| v / h.tau2).collect();
                eb::z_model(r, &ss).filter(|z| z.is_finite()).map(|z| CutRule::Model { z })
            } else {
                limit_slope(r, &sample).map(|e| CutRule::Limit { e })
            }
        });
        let mut memo = self.cut_memo.borrow_mut();
        // α visits at most a few hundred thresholds; keep the most recent ones.
        if memo.len() >= 256 {
            memo.remove(0);
        }
        memo.push((r.to_bits(), rule));
        rule
    }

    /// Theorem 3's inputs at α and β, CP_r's threshold at `from` (the calibrated `r̂` or β):
    ///
    /// - `T`: the toy's population threshold `μp + σp Φ⁻¹(α)` (CP covers exactly `1 − α`); for a
    ///   score file `−q̂_CP(α)` of the first split (CP's score is `−S`).
    /// - The pooled prior the r-values use, estimated on the first data set, and its threshold
    ///   rule at `r*` ([`Analysis::cut_rule`]).
    /// - `μ0`: the toy's `μq`; for a file the mean of the false candidates' mean scores.
    /// - CP_r's statistic is the mean of the data's M draws.
    pub fn inclusion_inputs(&self, alpha: f64, beta: f64, from: CutFrom) -> Result<InclusionInputs> {
        check_alpha(alpha)?;
        check_alpha(beta).map_err(|_| Error::out_of_range("β", beta, "(0, 1)"))?;
        let hyper =
            self.hyper().ok_or_else(|| Error::invalid("no prior could be estimated from the data"))?;
        let (t_std, mu0) = match &self.toy {
            Some(p) => (p.mu_p + p.sigma2_p.sqrt() * normal::quantile(alpha), p.mu_q),
            None => (-self.calibrated(Method::Cp)[0].threshold(0, alpha), self.false_mean()),
        };
        let r_star = match from {
            CutFrom::Calibrated => self.r_hat(alpha),
            CutFrom::Beta => Some(beta),
        };
        Ok(InclusionInputs {
            hyper,
            t_std: Some(t_std).filter(|t| t.is_finite()),
            r_star,
            from,
            rule: r_star.and_then(|r| self.cut_rule(r)),
            mu0,
            draws: self.m,
            of_mean: self.controls.score.variance == VarianceKind::OfMean,
        })
    }
}
