//! Closed-form curves of panels 1, 2 and 5, and the data's candidates as points for panel 2.
//! Cheap enough to recompute on every slider event.

use super::analysis::Analysis;
use super::{Controls, Mode};
use rvalue_core::conformal::check_alpha;
use rvalue_core::eb::{self, Hyper, ThresholdShape};
use rvalue_core::normal;
use rvalue_core::tensor::{Summaries, VarianceKind};
use rvalue_core::toy::{self, ToyParams};
use rvalue_core::{Error, Result};

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Panel 1: the single-draw densities of `p ~ N(μp, σp²)` and `q ~ N(μq, σ²)`, and `P(q > p)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreDensities {
    pub xs: Vec<f64>,
    /// The pdf of `p` at each x; `None` for a zero variance (a point mass).
    pub p: Vec<Option<f64>>,
    /// The pdf of `q`.
    pub q: Vec<Option<f64>>,
    /// `P(q > p) = Φ((μq − μp)/√(σp² + σ²))`; 0.48739… at the defaults.
    pub prob_q_exceeds_p: f64,
    /// What the paper prints (48.47 %) at its values (the defaults).
    pub paper_printed_percent: f64,
    /// The closed form at these parameters (`prob_note`).
    pub note: String,
}

fn normal_pdf(mu: f64, var: f64, x: f64) -> Option<f64> {
    if var > 0.0 {
        let sd = var.sqrt();
        finite(normal::pdf((x - mu) / sd) / sd)
    } else {
        None
    }
}

/// `count` points covering both densities (±4 sd around each mean), and both means: a curve
/// through its points then reaches each density's peak (σ² = 1000 spreads the points 2.6 apart,
/// and none of an even grid need fall on `μp`).
pub fn default_score_xs(params: &ToyParams, count: usize) -> Vec<f64> {
    let (sp, sq) = (params.sigma2_p.max(0.0).sqrt(), params.sigma2.max(0.0).sqrt());
    let mut lo = (params.mu_p - 4.0 * sp).min(params.mu_q - 4.0 * sq);
    let mut hi = (params.mu_p + 4.0 * sp).max(params.mu_q + 4.0 * sq);
    if !(hi > lo) || !lo.is_finite() || !hi.is_finite() {
        let c = if params.mu_p.is_finite() { params.mu_p } else { 0.0 };
        lo = c - 1.0;
        hi = c + 1.0;
    }
    let mut xs = rvalue_core::conformal::alpha_grid(lo, hi, count);
    xs.extend([params.mu_p, params.mu_q].into_iter().filter(|m| m.is_finite() && (lo..=hi).contains(m)));
    xs.sort_unstable_by(f64::total_cmp);
    xs.dedup();
    xs
}

/// Panel 1 at the given x values (σ² of `q` is `params.sigma2`).
pub fn score_densities(params: &ToyParams, xs: &[f64]) -> Result<ScoreDensities> {
    params.validate()?;
    if let Some(x) = xs.iter().find(|x| !x.is_finite()) {
        return Err(Error::invalid(format!("density abscissa {x} is not finite")));
    }
    Ok(ScoreDensities {
        xs: xs.to_vec(),
        p: xs.iter().map(|&x| normal_pdf(params.mu_p, params.sigma2_p, x)).collect(),
        q: xs.iter().map(|&x| normal_pdf(params.mu_q, params.sigma2, x)).collect(),
        prob_q_exceeds_p: toy::prob_q_exceeds_p(params.mu_p, params.sigma2_p, params.mu_q, params.sigma2),
        paper_printed_percent: toy::PAPER_PRINTED_PERCENT,
        note: prob_note(params),
    })
}

/// Panel 1's note: `P(q > p)` worked out from the current `μp`, `σp²`, `μq` and σ², as
/// `Φ((μq − μp)/√(σp² + σ²))` with the numbers put in. Only at the paper's values (the toy's
/// defaults) does it add the paper's misprint: elsewhere there is nothing printed to compare.
fn prob_note(params: &ToyParams) -> String {
    let (diff, var) = (params.mu_q - params.mu_p, params.sigma2_p + params.sigma2);
    let prob = toy::prob_q_exceeds_p(params.mu_p, params.sigma2_p, params.mu_q, params.sigma2);
    let percent = format!("{:.2} %", 100.0 * prob);
    let worked = if var > 0.0 {
        format!(
            "P(q > p) = Φ((μq − μp)/√(σp² + σ²)) = Φ({}/√{}) = {percent}.",
            plain_number(diff),
            plain_number(var)
        )
    } else {
        format!("With σp² + σ² = 0 both scores are fixed: P(q > p) = {percent}.")
    };
    let d = ToyParams::default();
    let paper =
        (params.mu_p, params.sigma2_p, params.mu_q, params.sigma2) == (d.mu_p, d.sigma2_p, d.mu_q, d.sigma2);
    if paper {
        format!(
            "{worked} The paper prints {} % here, the last two digits transposed; the explorer shows \
             the computed value.",
            toy::PAPER_PRINTED_PERCENT
        )
    } else {
        worked
    }
}

/// A typed parameter as a reader would write it: no float noise (0.1 + 0.2 shows as 0.3), at
/// most four decimals, and a true minus sign.
fn plain_number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    match s.strip_prefix('-') {
        Some("0") => "0".to_string(),
        Some(rest) => format!("−{rest}"),
        None => s.to_string(),
    }
}

/// A marked point `(σ², t)` of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    pub sigma2: f64,
    pub t: f64,
}

/// `t_β*(σ²)` for one β.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdSeries {
    pub beta: f64,
    /// `q_β = Φ⁻¹(1 − β)` (standardised).
    pub q: f64,
    /// The model rule's `z_β`; `None` when every variance is 0.
    pub z: Option<f64>,
    /// The threshold at each σ² of the grid (original scale when a prior is given).
    pub t: Vec<Option<f64>>,
    /// Proposition 1's minimum `s*` (when the curve dips: `0 < z < q`).
    pub s_star: Option<Marker>,
    /// Where the curve is back at `t(0)`: `s0`.
    pub s0: Option<Marker>,
    /// The σ² slider's value on this curve.
    pub slider: Option<Marker>,
}

/// Panel 2's curves.
#[derive(Debug, Clone, PartialEq)]
pub struct ThresholdCurves {
    /// The prior of the original scale; `None`: standardised (`μ = 0`, `τ² = 1`).
    pub hyper: Option<Hyper>,
    pub sigma2: Vec<f64>,
    pub series: Vec<ThresholdSeries>,
}

fn check_nonneg(name: &str, xs: &[f64]) -> Result<()> {
    match xs.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
        Some(x) => Err(Error::invalid(format!("{name} {x} is not a finite value ≥ 0"))),
        None => Ok(()),
    }
}

/// Threshold curves `t_β(σ²)` under the model rule for each β (panel 2).
///
/// `hyper = None` works on the standardised scale (`variances` are then `s'`); with a prior the
/// curve is `μ + τ t_β(σ²/τ²)`, the variances are original `s` and the markers `s*`, `s0` are
/// moved to the original σ² axis (`τ² s*`, `τ² s0`). `z_β` solves the model rule over the
/// empirical distribution of `variances` (standardised). A prior with `τ² = 0` has no curve: all
/// values are `None`.
pub fn threshold_curves(
    hyper: Option<Hyper>,
    variances: &[f64],
    betas: &[f64],
    sigma2_grid: &[f64],
    slider: f64,
) -> Result<ThresholdCurves> {
    check_nonneg("variance", variances)?;
    let tau2 = hyper.map_or(1.0, |h| h.tau2);
    let ss: Vec<f64> = variances.iter().map(|s| s / tau2).collect();
    let z_of = |beta: f64| if tau2 > 0.0 { eb::z_model(beta, &ss).filter(|z| z.is_finite()) } else { None };
    threshold_curves_with(hyper, z_of, betas, sigma2_grid, slider)
}

/// [`threshold_curves`] with `z_β` given by `z_of` (for a data set whose `z_β`, a root over all
/// its candidates, is computed once per β: see [`Analysis::z_model`]).
pub fn threshold_curves_with(
    hyper: Option<Hyper>,
    z_of: impl Fn(f64) -> Option<f64>,
    betas: &[f64],
    sigma2_grid: &[f64],
    slider: f64,
) -> Result<ThresholdCurves> {
    check_nonneg("σ²", sigma2_grid)?;
    check_nonneg("σ² slider", &[slider])?;
    if let Some(b) = betas.iter().find(|b| !(**b > 0.0 && **b < 1.0)) {
        return Err(Error::out_of_range("β", *b, "(0, 1)"));
    }
    if let Some(h) = hyper {
        Hyper::fixed(h.mu, h.tau2)?;
    }
    let (mu, tau2) = hyper.map_or((0.0, 1.0), |h| (h.mu, h.tau2));
    let tau = tau2.sqrt();
    let series = betas
        .iter()
        .map(|&beta| {
            let q = normal::upper_quantile(beta);
            let z = if tau2 > 0.0 { z_of(beta) } else { None };
            let t_at = |s: f64| -> Option<f64> {
                let z = z?;
                finite(mu + tau * eb::threshold(q, z, s / tau2))
            };
            let marker = |s: f64| finite(s).and_then(|s| t_at(s).map(|t| Marker { sigma2: s, t }));
            let (s_star, s0) = match z.map(|z| eb::threshold_shape(q, z)) {
                Some(ThresholdShape::Dip { s_star, s0 }) => (marker(tau2 * s_star), marker(tau2 * s0)),
                _ => (None, None),
            };
            ThresholdSeries {
                beta,
                q,
                z,
                t: sigma2_grid.iter().map(|&s| t_at(s)).collect(),
                s_star,
                s0,
                slider: marker(slider),
            }
        })
        .collect();
    Ok(ThresholdCurves { hyper, sigma2: sigma2_grid.to_vec(), series })
}

/// The left end of the σ² axis of panels 2 and 5 (a log axis: σ² = 0 is drawn there).
pub const SIGMA2_AXIS_LO: f64 = 1e-3;

/// The σ² axis of panels 2 and 5: `count` points log-spaced from [`SIGMA2_AXIS_LO`] to the
/// slider's top ([`super::SIGMA2_RANGE`]), as the log axis draws them evenly.
pub fn sigma2_grid(count: usize) -> Vec<f64> {
    let (lo, hi) = (SIGMA2_AXIS_LO.log10(), super::SIGMA2_RANGE.1.log10());
    let steps = count.max(2) - 1;
    (0..count).map(|j| 10f64.powf(lo + (hi - lo) * j as f64 / steps as f64)).collect()
}

/// The β values of panel 2: the current β first, then 0.01, 0.05, 0.2 unless equal to it.
pub fn panel_betas(beta: f64) -> Vec<f64> {
    let mut out = vec![beta];
    out.extend([0.01, 0.05, 0.2].into_iter().filter(|&b| (b - beta).abs() > 1e-12));
    out
}

/// The prior and variances panel 2 draws with: in toy mode the toy design at the current
/// controls ([`toy_design`]; live while a re-simulation runs), for score files the analysis's
/// pooled estimate and its candidates' variances (`None` before an analysis exists or when no
/// prior can be estimated).
pub fn threshold_inputs(controls: &Controls, analysis: Option<&Analysis>) -> Result<(Hyper, Vec<f64>)> {
    match controls.mode {
        Mode::Toy => toy_design(&controls.toy_params()),
        Mode::Scores => {
            let a = analysis.ok_or_else(|| Error::invalid("no analysis of the score file yet"))?;
            let h = a.hyper().ok_or_else(|| Error::invalid("no prior could be estimated from the data"))?;
            Ok((h, a.variances()))
        }
    }
}

rvalue_core::options! {
    /// Which threshold panel 5's CP_r curve is drawn at.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum CutFrom("threshold") {
        /// CP_r's calibrated threshold `r̂` at α (the first split's, as panel 7 shows): the
        /// curve of the sets panel 6 measures.
        #[default]
        Calibrated = "calibrated",
        /// The β slider: panel 2's threshold curve at work, which no set uses.
        Beta = "beta",
    }
}

/// How CP_r's threshold on the original scale grows with a candidate's variance `s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CutRule {
    /// `τ² > 0`: `μ + τ t(q, z, s/τ²)` with the model rule's `z` (docs/method.md §2).
    Model { z: f64 },
    /// `τ² = 0`: the r-value's limit as `τ² → 0⁺` selects `(X − μ)/s ≥ e`, so the threshold is
    /// the line `μ + e s`.
    Limit { e: f64 },
}

/// The score a candidate of variance `s` must reach to enter CP_r's set at level `r` under the
/// prior `h`, whose shape at `r` is `rule` ([`crate::Analysis::cut_rule`]); `None` when `rule`
/// does not fit `h` (a model rule needs `τ² > 0`, the limit `τ² = 0`) or the value is not finite.
pub fn cut_threshold(h: Hyper, rule: CutRule, r: f64, s: f64) -> Option<f64> {
    let q = normal::upper_quantile(r);
    let t = match rule {
        CutRule::Model { z } if h.tau2 > 0.0 => eb::threshold_original(h, q, z, s),
        CutRule::Limit { e } if h.tau2 == 0.0 => h.mu + e * s,
        _ => return None,
    };
    finite(t)
}

/// The toy's panel 2 beside its true prior's curves: β's threshold under the prior fitted to
/// the data, which the r-values use (`None` without one, or without a rule at β).
pub fn fitted_threshold(analysis: &Analysis, beta: f64, sigma2_grid: &[f64]) -> Option<FittedThreshold> {
    let hyper = analysis.hyper()?;
    let rule = analysis.cut_rule(beta)?;
    let t: Vec<Option<f64>> = sigma2_grid.iter().map(|&s| cut_threshold(hyper, rule, beta, s)).collect();
    t.iter().any(Option::is_some).then_some(FittedThreshold { hyper, t })
}

/// β's threshold under the fitted prior, on panel 2's σ² grid.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedThreshold {
    pub hyper: Hyper,
    pub t: Vec<Option<f64>>,
}

/// Which prior panel 2 draws with, said after its values: a score file's is the one fitted to
/// the data, which the r-values use; the toy's is its true prior, and `fitted` (the analysis's,
/// when panel 2 draws β's threshold under it, dashed) is the one its r-values use, named so
/// that a reader does not take one for the other.
pub fn prior_source(mode: Mode, fitted: Option<Hyper>) -> String {
    let fit =
        |h: Hyper| format!("μ̂ = {}, τ̂² = {}", crate::scales::fixed(h.mu, 3), crate::scales::fixed(h.tau2, 4));
    match (mode, fitted) {
        (Mode::Scores, _) => "fitted to the data, as the r-values use it".to_string(),
        (Mode::Toy, Some(h)) => {
            format!("the toy's true prior; dashed: the fitted one the r-values use, {}", fit(h))
        }
        (Mode::Toy, None) => "the toy's true prior; the r-values use one fitted to the data".to_string(),
    }
}

/// Inputs of Theorem 3's inclusion curves (panel 5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InclusionInputs {
    /// The prior of CP_r's threshold.
    pub hyper: Hyper,
    /// CP's score threshold `T` on the original scale (a candidate is in CP's set when its
    /// score is at least `T`); `None` when every candidate is in (`q̂ = +∞`).
    pub t_std: Option<f64>,
    /// `r*`, the level of CP_r's threshold `t_{r*}`; `None` when not in `(0, 1)`.
    pub r_star: Option<f64>,
    /// Where `r*` comes from.
    pub from: CutFrom,
    /// The threshold's shape at `r*`; `None` when undefined.
    pub rule: Option<CutRule>,
    /// The false candidate's latent mean `μ0`.
    pub mu0: f64,
    /// CP_r's statistic is the mean of this many draws (variance σ²/M): 1 is the theorem's
    /// single draw.
    pub draws: usize,
    /// Whether the r-values' variance is that of the mean (`s = σ²/M`) rather than per draw.
    pub of_mean: bool,
}

impl InclusionInputs {
    /// CP_r's score threshold for a false candidate of single-draw variance `sigma2`.
    pub fn cut_at(&self, sigma2: f64) -> Option<f64> {
        let s = if self.of_mean { sigma2 / self.draws.max(1) as f64 } else { sigma2 };
        cut_threshold(self.hyper, self.rule?, self.r_star?, s)
    }

    /// The chance that a false candidate of single-draw variance `sigma2` enters CP's set.
    pub fn cp_at(&self, sigma2: f64) -> Option<f64> {
        match self.t_std {
            Some(t) => finite(toy::inclusion_probability_std(t, self.mu0, sigma2)),
            None => Some(1.0),
        }
    }

    /// The chance that it enters CP_r's: its mean over [`Self::draws`] draws clears
    /// [`Self::cut_at`].
    pub fn cp_r_at(&self, sigma2: f64) -> Option<f64> {
        let t = self.cut_at(sigma2)?;
        finite(toy::inclusion_probability_std(t, self.mu0, sigma2 / self.draws.max(1) as f64))
    }
}

/// Theorem 3: a false candidate's inclusion probability against σ² (panel 5).
#[derive(Debug, Clone, PartialEq)]
pub struct InclusionCurves {
    pub sigma2: Vec<f64>,
    /// `1 − Φ((T − μ0)/σ)`, tends to 1/2.
    pub cp: Vec<Option<f64>>,
    /// `1 − Φ((t_{r*}(s) − μ0)/(σ/√M))`, tends to 0.
    pub cp_r: Vec<Option<f64>>,
    /// The same for a statistic of one draw (`M = 1`), the theorem's own setting: how it tends
    /// to 0 shows there, where M draws' mean has left the set already.
    pub cp_r_one_draw: Vec<Option<f64>>,
    pub inputs: InclusionInputs,
}

/// Theorem 3's curves for given inputs (the UI passes [`sigma2_grid`] and
/// [`Analysis::inclusion_inputs`]).
pub fn inclusion_curves(inputs: &InclusionInputs, sigma2_grid: &[f64]) -> Result<InclusionCurves> {
    check_nonneg("σ²", sigma2_grid)?;
    Hyper::fixed(inputs.hyper.mu, inputs.hyper.tau2)?;
    if !inputs.mu0.is_finite() {
        return Err(Error::invalid(format!("μ0 = {} is not finite", inputs.mu0)));
    }
    let one = InclusionInputs { draws: 1, ..*inputs };
    Ok(InclusionCurves {
        sigma2: sigma2_grid.to_vec(),
        cp: sigma2_grid.iter().map(|&s| inputs.cp_at(s)).collect(),
        cp_r: sigma2_grid.iter().map(|&s| inputs.cp_r_at(s)).collect(),
        cp_r_one_draw: sigma2_grid.iter().map(|&s| one.cp_r_at(s)).collect(),
        inputs: *inputs,
    })
}

/// The toy design as the theorem sees it: the prior of the latent candidate means and the K
/// candidates' single-draw variances.
///
/// Latent means are `μp` (one true candidate) and `μq` (K − 1 false ones), so the prior is their
/// mean `μ = (μp + (K−1)μq)/K` and variance `τ² = (K−1)(μp − μq)²/K²` (the oracle prior, not
/// an estimate); variances are `σp²` for the true and low-variance false candidates and σ² for
/// the `round(h(K−1))` high-variance ones. `τ² = 0` when `μp = μq`.
pub fn toy_design(params: &ToyParams) -> Result<(Hyper, Vec<f64>)> {
    params.validate()?;
    let k = params.k as f64;
    let mu = (params.mu_p + (k - 1.0) * params.mu_q) / k;
    let d = params.mu_p - params.mu_q;
    let tau2 = (k - 1.0) * d * d / (k * k);
    let hyper = Hyper::fixed(mu, tau2)?;
    let s =
        (0..params.k).map(|c| if toy::is_high_variance(params, c) { params.sigma2 } else { params.sigma2_p });
    Ok((hyper, s.collect()))
}

impl InclusionInputs {
    /// Closed forms for the toy with its oracle prior and one draw, as the theorem states it
    /// (the page draws [`Analysis::inclusion_inputs`] instead: the prior the r-values use):
    ///
    /// - `T = μp + σp Φ⁻¹(α)`: CP's population threshold, the α-quantile of the true
    ///   candidate's single draw, so that CP covers exactly `1 − α`.
    /// - `r* = β`, the β slider.
    /// - The prior and `z = z_{r*}` (model rule) from [`toy_design`] at the σ² slider.
    /// - `μ0 = μq`.
    pub fn toy(params: &ToyParams, alpha: f64, beta: f64) -> Result<Self> {
        check_alpha(alpha)?;
        check_alpha(beta).map_err(|_| Error::out_of_range("β", beta, "(0, 1)"))?;
        let (hyper, s) = toy_design(params)?;
        let t_std = finite(params.mu_p + params.sigma2_p.sqrt() * normal::quantile(alpha));
        let z = if hyper.tau2 > 0.0 {
            let ss: Vec<f64> = s.iter().map(|v| v / hyper.tau2).collect();
            eb::z_model(beta, &ss).filter(|z| z.is_finite())
        } else {
            None
        };
        Ok(InclusionInputs {
            hyper,
            t_std,
            r_star: Some(beta),
            from: CutFrom::Beta,
            rule: z.map(|z| CutRule::Model { z }),
            mu0: params.mu_q,
            draws: 1,
            of_mean: false,
        })
    }
}

impl Analysis {
    /// Panel 2's points for the first data set (see [`data_points`]).
    pub fn data_points(&self) -> Vec<DataPoint> {
        let part = self.first_part();
        data_points(part.summaries(), part.labels(), self.controls.score.variance)
    }
}

/// At most this many points go to panel 2.
pub const MAX_DATA_POINTS: usize = 2000;

/// One candidate as a point of panel 2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DataPoint {
    /// Its variance `s` (the variance choice).
    pub sigma2: f64,
    /// Its mean score `X`.
    pub score: f64,
    pub is_true: bool,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Every candidate as `(σ², X, is_true)`, or a deterministic subsample of
/// [`MAX_DATA_POINTS`]: unit `(j · step) mod (N·K)` for `j < 2000`, with `step` the first
/// number coprime to `N·K` from `N·K / φ` on, so the sample spreads over items and candidates
/// without aliasing with K.
pub fn data_points(summaries: &Summaries, labels: &[usize], variance: VarianceKind) -> Vec<DataPoint> {
    let k = summaries.k;
    let total = summaries.n * k;
    let point = |u: usize| {
        let (i, c) = (u / k, u % k);
        DataPoint {
            sigma2: summaries.s(i, c, variance),
            score: summaries.mean[u],
            is_true: labels.get(i) == Some(&c),
        }
    };
    spread_sample(total, MAX_DATA_POINTS).map(point).collect()
}

/// Every unit of `0..total`, or `count` of them spread without aliasing with K: unit
/// `(j · step) mod total` for `j < count`, with `step` the first number coprime to `total` from
/// `total / φ` on.
pub(crate) fn spread_sample(total: usize, count: usize) -> Box<dyn Iterator<Item = usize>> {
    if total <= count {
        return Box::new(0..total);
    }
    let t = total as u64;
    let mut step = ((total as f64) * 0.618_033_988_749_895).round() as u64;
    while gcd(step, t) != 1 {
        step += 1;
    }
    Box::new((0..count as u64).map(move |j| ((j as u128 * step as u128) % t as u128) as usize))
}
