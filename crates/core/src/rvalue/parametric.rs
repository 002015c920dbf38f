//! The parametric r-value under the Normal–Normal model (docs/method.md §2).
//!
//! On the standardised scale unit `i` has posterior `N(m_i, v_i)` and
//! `V_β(i) = 1 − Φ(L_i(q_β))` with the line `L_i(q) = (q − m_i)/√v_i`. Both λ rules compare
//! lines: the model rule selects `L_i(q) ≤ z_β`, the empirical rule selects the units whose line is
//! at or below the `⌊Uβ⌋ + 1`-th lowest. Working with lines instead of tail probabilities keeps
//! the comparisons exact where `V_β` underflows or rounds to 1.

use crate::eb::{self, Hyper};
use crate::normal;
use crate::Result;
mod empirical;
mod grid;
mod halley;
mod model;
mod sums;
mod table;

use empirical::{empirical_quantiles, exact_empirical, exact_empirical_unit};
use grid::grid;
pub use grid::{grid_size, log_grid};
use model::exact_model;

crate::options! {
    /// How the infimum over β is found.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum Algorithm("algorithm") {
        /// The infimum to within `1e-9` in β, with no grid.
        #[default]
        Exact = "exact",
        /// The rvalues 0.7.1 grid algorithm (R-compatible).
        Grid = "grid",
    }

    /// How `λ_β` is chosen.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum LambdaRule("rule") {
        /// The paper's derivation: `z_β` solves the marginal selection constraint.
        #[default]
        Model = "model",
        /// Henderson & Newton: the `(1 − β)` type-1 quantile of `{V_β(i)}`.
        Empirical = "empirical",
    }
}

/// Where the hyperparameters come from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum HyperChoice {
    /// `μ = mean(x)`, `τ²` by marginal maximum likelihood.
    #[default]
    Estimate,
    /// Given by the user.
    Fixed(Hyper),
}

/// Parametric r-values of a set of units, with their posteriors on the original scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Parametric {
    pub hyper: Hyper,
    pub post_mean: Vec<f64>,
    pub post_sd: Vec<f64>,
    pub rvalue: Vec<f64>,
}

/// The standardised posteriors of a set of units.
struct Units {
    /// Posterior means `m_i`.
    m: Vec<f64>,
    /// Posterior sds `√v_i`.
    sd: Vec<f64>,
    /// Standardised noise variances `s'_i`.
    ss: Vec<f64>,
    /// `τ² = 0`: the r-value is its limit as `τ² → 0⁺`, a function of `w_i = (x_i − μ)/s_i`.
    limit: Option<Limit>,
}

/// The `τ² → 0⁺` limit. There `V_β(i) = β + φ(q_β) τ w_i + O(τ²)`: every unit ties at first
/// order, and the next order ranks by `w_i = (x_i − μ)/s_i`. Under the model rule
/// `z_β = q_β − τ e(β) + O(τ²)` with `(1/U) Σ_j 1 − Φ(e √s_j) = β`, so unit `i` is selected iff
/// `w_i ≥ e(β)`, giving the closed form `r_i = E(w_i) = (1/U) Σ_j 1 − Φ(w_i √s_j)`.
struct Limit {
    w: Vec<f64>,
    s: Vec<f64>,
    /// `√max_j s_j`, for [`Limit::exceeds`].
    sd_max: f64,
}

impl Limit {
    /// Whether `E(w) > bound` follows from one term: every term is at least `1 − Φ(w √s_max)`
    /// for `w ≥ 0` and at least ½ for `w ≤ 0`. The margin covers the rounding of the terms
    /// and of their mean.
    fn exceeds(&self, w: f64, bound: f64) -> bool {
        let low = if w <= 0.0 { 0.5 } else { normal::sf(w * self.sd_max) };
        low * (1.0 - 1e-12) > bound
    }

    /// `E(w) = (1/U) Σ_j 1 − Φ(w √s_j)`, decreasing in `w`.
    fn e(&self, w: f64) -> f64 {
        self.s
            .iter()
            .map(|&sj| {
                let a = w * sj.sqrt();
                // A noise-free unit (s_j = 0) meets an infinite w: count it as a coin flip.
                if a.is_nan() {
                    0.5
                } else {
                    normal::sf(a)
                }
            })
            .sum::<f64>()
            / self.s.len() as f64
    }
}

impl Units {
    fn new(x: &[f64], s: &[f64], h: Hyper) -> Self {
        if h.tau2 == 0.0 {
            let w = x
                .iter()
                .zip(s)
                .map(|(&xi, &si)| {
                    let w = (xi - h.mu) / si;
                    if w.is_nan() {
                        0.0
                    } else {
                        w
                    }
                })
                .collect();
            let n = x.len();
            return Units {
                m: vec![0.0; n],
                sd: vec![0.0; n],
                ss: vec![f64::INFINITY; n],
                limit: Some(Limit {
                    w,
                    s: s.to_vec(),
                    sd_max: s.iter().fold(0.0f64, |m, &v| m.max(v)).sqrt(),
                }),
            };
        }
        let tau = h.tau2.sqrt();
        let ss: Vec<f64> = s.iter().map(|v| v / h.tau2).collect();
        let (m, sd) = x
            .iter()
            .zip(&ss)
            .map(|(&xi, &si)| {
                let (m, v) = eb::posterior((xi - h.mu) / tau, si);
                (m, v.sqrt())
            })
            .unzip();
        Units { m, sd, ss, limit: None }
    }

    /// `L_i(q) = (q − m_i)/√v_i`, the argument of `V_β`'s tail; `∓∞` for a noise-free unit.
    /// In the `τ² → 0` limit only the order of lines matters, and it is that of `−w_i`.
    #[inline]
    fn line(&self, i: usize, q: f64) -> f64 {
        if let Some(l) = &self.limit {
            return -l.w[i];
        }
        let sd = self.sd[i];
        if sd > 0.0 {
            (q - self.m[i]) / sd
        } else if self.m[i] >= q {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }
    }
}

/// Parametric r-values of units with estimates `x` and noise variances `s` (docs/method.md §2).
///
/// With `τ² = 0` the prior has no spread and every posterior is the point mass at `μ`
/// (posterior means `μ`, sds `0`); the r-value is then defined as its limit as `τ² → 0⁺`
/// (see [`Limit`]): units are ranked by `w_i = (x_i − μ)/s_i`, a signal-to-noise ratio in which
/// an unstable candidate stays penalised.
pub fn parametric(
    x: &[f64],
    s: &[f64],
    hyper: HyperChoice,
    algorithm: Algorithm,
    rule: LambdaRule,
) -> Result<Parametric> {
    eb::check_units(x, s)?;
    let (hyper, units) = standardised(x, s, hyper)?;
    let tau = hyper.tau2.sqrt();
    let rvalue = rvalues(&units, algorithm, rule);
    Ok(Parametric {
        hyper,
        // τ = 0 leaves m_i = sd_i = 0: the posterior is the point mass at μ.
        post_mean: units.m.iter().map(|m| hyper.mu + tau * m).collect(),
        post_sd: units.sd.iter().map(|sd| tau * sd).collect(),
        rvalue,
    })
}

/// The hyperparameters `hyper` stands for and the units standardised by them (after
/// [`eb::check_units`]).
fn standardised(x: &[f64], s: &[f64], hyper: HyperChoice) -> Result<(Hyper, Units)> {
    let hyper = match hyper {
        HyperChoice::Estimate => eb::estimate(x, s)?,
        HyperChoice::Fixed(h) => Hyper::fixed(h.mu, h.tau2)?,
    };
    Ok((hyper, Units::new(x, s, hyper)))
}

/// Every unit's r-value by `algorithm` and `rule`.
fn rvalues(units: &Units, algorithm: Algorithm, rule: LambdaRule) -> Vec<f64> {
    match (algorithm, rule) {
        (Algorithm::Exact, LambdaRule::Model) => exact_model(units, None, None),
        (Algorithm::Exact, LambdaRule::Empirical) => exact_empirical(units),
        (Algorithm::Grid, rule) => grid(units, rule),
    }
}

/// The r-value of unit `unit` alone: [`parametric`]'s `rvalue[unit]`, bit for bit, without the
/// other units' r-values (for a calibration item, whose true label's is all a split reads). The
/// model rule's `z(q)` table depends only on the units and its fixed `q` grid, never on which
/// unit asked for a node first, so it is then built only as deep as this unit needs.
pub fn parametric_unit(
    x: &[f64],
    s: &[f64],
    hyper: HyperChoice,
    algorithm: Algorithm,
    rule: LambdaRule,
    unit: usize,
) -> Result<f64> {
    eb::check_units(x, s)?;
    if unit >= x.len() {
        return Err(crate::Error::invalid(format!("unit {unit} does not exist ({} units)", x.len())));
    }
    let (_, units) = standardised(x, s, hyper)?;
    Ok(match (algorithm, rule) {
        (Algorithm::Exact, LambdaRule::Model) => exact_model(&units, Some(unit), None)[unit],
        (Algorithm::Exact, LambdaRule::Empirical) => {
            exact_empirical_unit(&units, unit, &empirical_quantiles(units.m.len()))
        }
        (Algorithm::Grid, rule) => grid(&units, rule)[unit],
    })
}

/// [`parametric`]'s r-values that are at most `bound`, bit for bit, and `+∞` for units whose
/// r-value is shown to exceed `bound` without computing it: with the exact model rule the
/// `z(q)` table is built only as deep as `bound` needs, and a unit not yet selected there needs
/// no crossing; at `τ² = 0` one term bounds the closed form. When no r-value would be at most
/// `bound` every one is computed, so the smallest is always known. Other algorithms and rules,
/// and a `bound` outside `(0, ½)`, compute every r-value.
///
/// For the explorer's toy repeats: a test item's false candidates lie far above every threshold
/// the page can ask for, and only the repeat it shows needs their values.
pub fn parametric_up_to(
    x: &[f64],
    s: &[f64],
    hyper: HyperChoice,
    algorithm: Algorithm,
    rule: LambdaRule,
    bound: f64,
) -> Result<Vec<f64>> {
    eb::check_units(x, s)?;
    let (_, units) = standardised(x, s, hyper)?;
    if let (Algorithm::Exact, LambdaRule::Model, Some(cut)) = (algorithm, rule, Cut::of(bound)) {
        let r = exact_model(&units, None, Some(cut));
        if r.iter().any(|&v| v <= bound) {
            return Ok(r);
        }
    }
    Ok(rvalues(&units, algorithm, rule))
}

/// What shows an r-value above a bound `β_b` in `(0, ½)`: its unit is not selected at a table
/// node below `q`, a little under `q_{β_b} = Φ⁻¹(1 − β_b)`. The unit's crossing then lies below
/// that node, and its r-value `1 − Φ(crossing)` above `1 − Φ(q)`, which the margin in `q` keeps
/// clear of `β_b` whatever the rounding of `Φ⁻¹` and of the tail (at `q ≥ 0` the margin moves the
/// tail by at least `φ(q)·1e-6`, far more than an ulp of it).
#[derive(Debug, Clone, Copy)]
struct Cut {
    q: f64,
    bound: f64,
}

impl Cut {
    fn of(bound: f64) -> Option<Cut> {
        (bound > 0.0 && bound < 0.5).then(|| Cut { q: normal::upper_quantile(bound) - 1e-6, bound })
    }
}
#[cfg(test)]
mod tests;
