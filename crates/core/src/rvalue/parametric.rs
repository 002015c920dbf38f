//! The parametric r-value under the Normal–Normal model (docs/method.md §2).
//!
//! On the standardised scale unit `i` has posterior `N(m_i, v_i)` and
//! `V_β(i) = 1 − Φ(L_i(q_β))` with the line `L_i(q) = (q − m_i)/√v_i`. Both λ rules compare
//! lines: the model rule selects `L_i(q) ≤ z_β`, the empirical rule selects the units whose line is
//! at or below the `⌊Uβ⌋ + 1`-th lowest. Working with lines instead of tail probabilities keeps
//! the comparisons exact where `V_β` underflows or rounds to 1.

use super::brent::zeroin;
use crate::eb::{self, Hyper};
use crate::normal;
use crate::Result;

mod grid;
mod table;

use grid::grid;
pub use grid::{grid_size, log_grid};

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

// ---------------------------------------------------------------------------------------------
// Exact, model rule.

/// `q` range tabulated before polishing: `β` from about 3e-7 to where it rounds to 1. Units
/// selected already at the top are found by Brent above it.
const Q_HI: f64 = 5.0;
const Q_LO: f64 = -8.5;
/// Node spacing of the `z(q)` table. Quintic Hermite interpolation (values, first and second
/// derivatives, all from one pass over the units) is accurate to ~1e-7 at this spacing, so a
/// unit's seed lands close enough for one Halley step.
const TABLE_STEP: f64 = 0.5;
/// How far Brent's fallback widens a bracket per step.
const Q_STEP: f64 = 0.25;
/// Far enough that `β = 1 − Φ(q)` is below the smallest normal double.
const Q_FAR: f64 = 37.5;

/// The per-unit constants of the model rule's sums: `a_j = √(1 + s'_j)`, `b_j = √s'_j`.
struct Coefs {
    a: Vec<f64>,
    b: Vec<f64>,
    /// The largest `b_j`: `F` can change on a scale of `1/b_max` in `z`.
    b_max: f64,
    /// [`normal::FAR_TAIL`] where every `a_j`, `b_j` is below 1e100, else `∞`: a unit whose
    /// `|A_j|` is beyond it (and below [`normal::FAR_TAIL_MAX`]) adds `±0` to every sum but `F`
    /// (the products of `φ = 0` with `a_j`, `b_j` and `A_j` stay finite), so the sums skip it.
    far: f64,
}

impl Coefs {
    fn new(ss: &[f64]) -> Self {
        let b: Vec<f64> = ss.iter().map(|s| s.sqrt()).collect();
        let b_max = b.iter().fold(0.0f64, |m, &x| m.max(x));
        let a: Vec<f64> = ss.iter().map(|s| (1.0 + s).sqrt()).collect();
        let tame = a.iter().chain(&b).all(|&v| v < 1e100);
        Coefs { a, b, b_max, far: if tame { normal::FAR_TAIL } else { f64::INFINITY } }
    }

    /// A first `z` at `q`: where the noisiest unit alone has `A = q` (the exact root when every
    /// unit has the same noise), so that `F ≥ β/U` is far from underflow however noisy it is.
    fn start(&self, q: f64) -> f64 {
        let Some((j, &b)) = self.b.iter().enumerate().max_by(|x, y| x.1.total_cmp(y.1)) else {
            return 0.0;
        };
        if b > 0.0 {
            q * (self.a[j] - 1.0) / b
        } else {
            0.0
        }
    }
}

/// The model rule's selected fraction `F(q, z) = (1/U) Σ 1 − Φ(A_j)`, `A_j = q a_j − z b_j`, its
/// first and second partial derivatives, and the third ones with at least one `z`, all from one
/// tail evaluation per unit (higher derivatives only need `φ(A_j)` times a polynomial in `A_j`).
#[derive(Debug, Clone, Copy, Default)]
struct ModelSums {
    f: f64,
    fq: f64,
    fz: f64,
    fqq: f64,
    fqz: f64,
    fzz: f64,
    fqqz: f64,
    fqzz: f64,
    fzzz: f64,
}

impl ModelSums {
    /// The derivatives at `z + d` to first order in `d` (`f` itself is not moved).
    fn moved(&self, d: f64) -> ModelSums {
        ModelSums {
            fq: self.fq + self.fqz * d,
            fz: self.fz + self.fzz * d,
            fqq: self.fqq + self.fqqz * d,
            fqz: self.fqz + self.fqzz * d,
            fzz: self.fzz + self.fzzz * d,
            ..*self
        }
    }
}

/// Whether unit `j`'s terms are all `±0` but its tail, which is `[x < 0]` (see [`Coefs::far`]).
/// A sum that starts at `+0` and only adds is never `−0`, so adding `±0` leaves it as it is.
#[inline(always)]
fn far_tail(x: f64, c: &Coefs) -> bool {
    let ax = x.abs();
    ax > c.far && ax < normal::FAR_TAIL_MAX
}

fn model_sums(q: f64, z: f64, c: &Coefs) -> ModelSums {
    let mut s = ModelSums::default();
    for (&aj, &bj) in c.a.iter().zip(&c.b) {
        let x = q * aj - z * bj;
        if far_tail(x, c) {
            if x < 0.0 {
                s.f += 1.0;
            }
            continue;
        }
        let (sf, p) = normal::sf_pdf_fast(x);
        let xp = x * p;
        // ∂/∂z (A φ(A)) = −b φ(A)(1 − A²).
        let w = bj * p * (1.0 - x * x);
        s.f += sf;
        s.fq -= aj * p;
        s.fz += bj * p;
        s.fqq += aj * aj * xp;
        s.fqz -= aj * bj * xp;
        s.fzz += bj * bj * xp;
        s.fqqz -= aj * aj * w;
        s.fqzz += aj * bj * w;
        s.fzzz -= bj * bj * w;
    }
    let n = c.a.len() as f64;
    ModelSums {
        f: s.f / n,
        fq: s.fq / n,
        fz: s.fz / n,
        fqq: s.fqq / n,
        fqz: s.fqz / n,
        fzz: s.fzz / n,
        fqqz: s.fqqz / n,
        fqzz: s.fqzz / n,
        fzzz: s.fzzz / n,
    }
}

/// A node of [`ZTable`]'s fixed `q` grid with what its solve needs of `q` alone, computed once:
/// a table is built per item, and these cost an `erfc`, an `exp` and a `log` per node.
struct Node {
    q: f64,
    beta: f64,
    ln_beta: f64,
    phi: f64,
}

fn nodes() -> &'static [Node] {
    static NODES: std::sync::OnceLock<Vec<Node>> = std::sync::OnceLock::new();
    NODES.get_or_init(|| {
        (0..ZTable::len())
            .map(|k| {
                let q = Q_HI - TABLE_STEP * k as f64;
                let beta = normal::sf(q);
                Node { q, beta, ln_beta: libm::log(beta), phi: normal::pdf(q) }
            })
            .collect()
    })
}

/// `z(q)` of the model rule tabulated on a `q` grid with its first two derivatives, for quintic
/// Hermite interpolation: cheap first guesses of where each unit's line crosses it.
struct ZTable {
    z: Vec<f64>,
    dz: Vec<f64>,
    d2z: Vec<f64>,
}

impl ZTable {
    fn new() -> Self {
        // Room for every node at once: growing the Vecs node by node cost more than the nodes'
        // bookkeeping (a table is built per item).
        let n = Self::len();
        ZTable { z: Vec::with_capacity(n), dz: Vec::with_capacity(n), d2z: Vec::with_capacity(n) }
    }

    /// The `q` of node `j` (the grid is fixed: [`nodes`]).
    fn q(j: usize) -> f64 {
        nodes()[j].q
    }

    /// Number of grid points down to `Q_LO`.
    fn len() -> usize {
        ((Q_HI - Q_LO) / TABLE_STEP).round() as usize + 1
    }

    /// Tabulates down to point `j` (points are computed only as far as some unit needs them).
    fn ensure(&mut self, j: usize, ss: &[f64], c: &Coefs) {
        while self.z.len() <= j {
            let k = self.z.len();
            let Some(&Node { q: qk, beta, ln_beta, phi }) = nodes().get(k) else {
                return;
            };
            let guess = match k {
                0 => c.start(qk),
                // Taylor from the previous node (q decreases by one step).
                _ => {
                    let h = TABLE_STEP;
                    self.z[k - 1] - h * self.dz[k - 1] + 0.5 * h * h * self.d2z[k - 1]
                }
            };
            // The first node starts far off (no previous node to extrapolate from): solve it
            // tightly, so that its sums, moved along a last step of ~1e-6, are exact too.
            let tol = if k == 0 { 1e-6 } else { 1e-3 };
            let (zk, sums) = match solve_node(qk, beta, ln_beta, guess, c, tol) {
                Some(found) => found,
                None => {
                    let prev = if k == 0 { 0.0 } else { self.z[k - 1] };
                    let z = eb::z_model_from(beta, qk, ss, prev).unwrap_or(f64::NAN);
                    (z, model_sums(qk, z, c))
                }
            };
            // Implicit derivatives of F(q, z(q)) = 1 − Φ(q), once and twice.
            let dz = (-phi - sums.fq) / sums.fz;
            let d2z = (qk * phi - sums.fqq - 2.0 * sums.fqz * dz - sums.fzz * dz * dz) / sums.fz;
            self.z.push(zk);
            self.dz.push(dz);
            self.d2z.push(d2z);
        }
    }

    /// Quintic Hermite value of `z` at `x` in the cell `[q[j], q[j − 1]]`.
    fn interpolate(&self, j: usize, x: f64) -> f64 {
        let (x0, x1) = (Self::q(j), Self::q(j - 1));
        let h = x1 - x0;
        let t = (x - x0) / h;
        let (t2, t3) = (t * t, t * t * t);
        let (t4, t5) = (t3 * t, t3 * t2);
        let h00 = 1.0 - 10.0 * t3 + 15.0 * t4 - 6.0 * t5;
        let h10 = t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5;
        let h20 = 0.5 * (t2 - 3.0 * t3 + 3.0 * t4 - t5);
        let h21 = 0.5 * (t3 - 2.0 * t4 + t5);
        let h11 = -4.0 * t3 + 7.0 * t4 - 3.0 * t5;
        let h01 = 10.0 * t3 - 15.0 * t4 + 6.0 * t5;
        h00 * self.z[j]
            + h * (h10 * self.dz[j] + h11 * self.dz[j - 1])
            + h * h * (h20 * self.d2z[j] + h21 * self.d2z[j - 1])
            + h01 * self.z[j - 1]
    }
}

/// `z` with `F(q, z) = β` by Halley's method on `ln F − ln β` (nearly linear in the tails, where
/// Newton on `F` itself crawls), safeguarded by a bracket (`F` increases in `z`; with very
/// unequal noise it rises in steep steps) that bisection narrows where Halley leaves it. Returns
/// the root and the sums at the last point evaluated; `None` if it does not settle (the caller
/// falls back to the bracketing solver with accurate tails).
fn solve_node(q: f64, beta: f64, ln_beta: f64, mut z: f64, c: &Coefs, tol: f64) -> Option<(f64, ModelSums)> {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut width = 1.0;
    for _ in 0..64 {
        let s = model_sums(q, z, c);
        if !(s.f.is_finite() && s.fz.is_finite()) {
            return None;
        }
        if s.f < beta {
            lo = z;
        } else {
            hi = z;
        }
        // d/dz ln F = F_z/F, d²/dz² ln F = F_zz/F − (F_z/F)².
        let g1 = s.fz / s.f;
        let g2 = s.fzz / s.f - g1 * g1;
        let step = halley_step(libm::log(s.f) - ln_beta, g1, g2);
        let next = z - step;
        if next > lo && next < hi {
            z = next;
            // Halley converges cubically: the error after a step d is about C·d³, with C of the
            // order of the squared inverse scale on which ln F bends: (ln F)''/(ln F)', or up to
            // b_max where a noisy unit's steep step sits near an inflection. A step below 1e-3
            // on the larger of those scales leaves ~1e-11, plenty for a table that only seeds.
            // The sums are those before the step, moved along it to first order for z' and z''.
            if step.abs() * (1.0 + (g2 / g1).abs() + c.b_max) <= tol {
                return Some((z, s.moved(-step)));
            }
        } else if lo.is_finite() && hi.is_finite() {
            z = 0.5 * (lo + hi);
            if hi - lo <= 1e-12 * (1.0 + z.abs()) {
                return Some((z, s));
            }
        } else {
            // Not bracketed yet: step outwards, twice as far each time.
            z = if lo.is_finite() { lo + width } else { hi - width };
            width *= 2.0;
        }
    }
    None
}

/// Halley's step `f/f' · 1/(1 − f f''/(2f'²))`, or Newton's where the correction is large.
#[inline]
fn halley_step(f: f64, f1: f64, f2: f64) -> f64 {
    let newton = f / f1;
    let denom = 1.0 - 0.5 * newton * f2 / f1;
    if (0.5..=2.0).contains(&denom) {
        newton / denom
    } else {
        newton
    }
}

/// Model rule: unit `i` is selected at `q` iff `L_i(q) ≤ z(q)`, i.e. iff
/// `g_i(q) = F(L_i(q); q) − β(q) ≤ 0` with `F` the model's selected fraction. The tabulated `z`
/// brackets the first selection and its interpolant gives a first guess; for few units, Halley
/// on `g_i` (with its exact first and second derivatives) polishes it, and Brent takes over if
/// Halley misbehaves. Each polish step is a pass over all units, quadratic in all: from
/// [`table::TABULATE_FROM`] units on, a finer, certified table gives the crossings instead (see
/// [`table`]).
///
/// Every unit, or unit `only` alone (the others NaN: not computed); `+∞` for the units that
/// `cut` shows to be above its bound.
fn exact_model(u: &Units, only: Option<usize>, cut: Option<Cut>) -> Vec<f64> {
    exact_model_by(u, only, cut, u.m.len() >= table::TABULATE_FROM)
}

/// [`exact_model`] from the certified table (`tabulate`) or by the per-unit polish.
fn exact_model_by(u: &Units, only: Option<usize>, cut: Option<Cut>, tabulate: bool) -> Vec<f64> {
    let skip = |i: usize| only.is_some_and(|o| o != i);
    if let Some(l) = &u.limit {
        return l
            .w
            .iter()
            .enumerate()
            .map(|(i, &w)| match cut {
                _ if skip(i) => f64::NAN,
                Some(c) if l.exceeds(w, c.bound) => f64::INFINITY,
                _ => l.e(w),
            })
            .collect();
    }
    let n = u.m.len();
    if u.ss.iter().all(|&s| s == 0.0) {
        // Every V_β is a step: selected iff m ≥ q_β, i.e. β ≥ 1 − Φ(m).
        return u.m.iter().map(|&m| normal::sf(m)).collect();
    }
    if tabulate {
        return table::exact_model(u, only, cut);
    }
    let c = Coefs::new(&u.ss);
    let mut table = ZTable::new();
    (0..n)
        .map(|i| {
            if skip(i) {
                return f64::NAN;
            }
            if u.sd[i] == 0.0 {
                return normal::sf(u.m[i]);
            }
            let mut first = None;
            for j in 0..ZTable::len() {
                table.ensure(j, &u.ss, &c);
                if u.line(i, ZTable::q(j)) <= table.z[j] {
                    first = Some(j);
                    break;
                }
                if cut.is_some_and(|cut| ZTable::q(j) < cut.q) && unselected(u, i, &c, &table, j) {
                    return f64::INFINITY;
                }
            }
            let q = match first {
                None => return 1.0,
                Some(0) => crossing_by_brent(u, i, &c, Q_HI, Q_FAR),
                Some(j) => {
                    let (lo, hi) = (ZTable::q(j), ZTable::q(j - 1));
                    let h = |x: f64| u.line(i, x) - table.interpolate(j, x);
                    let guess = zeroin(lo, hi, h(lo), h(hi), 1e-13, h);
                    halley_crossing(u, i, &c, guess, lo, hi)
                        .unwrap_or_else(|| crossing_by_brent(u, i, &c, lo, hi))
                }
            };
            if q.is_nan() {
                1.0
            } else {
                normal::sf(q)
            }
        })
        .collect()
}

/// Whether unit `i` is surely not selected at node `j`, the table having said so: by a clear
/// gap between its line and the tabulated `z` (nodes are solved to about 1e-11), else by the
/// sign of `g_i` itself. Leaving out a unit there relies on it: the exact search's Brent fallback
/// widens a bracket upwards in steps that land on this node and stops where `g_i > 0`.
fn unselected(u: &Units, i: usize, c: &Coefs, table: &ZTable, j: usize) -> bool {
    let q = ZTable::q(j);
    u.line(i, q) > table.z[j] + 1e-6 || g_derivatives(u, i, c, q).0 > 0.0
}

/// `g_i(q)`, `g_i'(q)` and `g_i''(q)` in one pass over the units. `A_j = q a_j − L_i(q) b_j`
/// is linear in `q` with slope `c_j = a_j − b_j/√v_i`, so the second derivative needs no further
/// tail evaluation.
fn g_derivatives(u: &Units, i: usize, c: &Coefs, q: f64) -> (f64, f64, f64) {
    let l = u.line(i, q);
    let dl = 1.0 / u.sd[i];
    let (mut f, mut df, mut d2f) = (0.0, 0.0, 0.0);
    for (&aj, &bj) in c.a.iter().zip(&c.b) {
        let x = q * aj - l * bj;
        let cj = aj - bj * dl;
        // `cj` finite too: `φ = 0` times it is then `±0`.
        if far_tail(x, c) && cj.is_finite() {
            if x < 0.0 {
                f += 1.0;
            }
            continue;
        }
        let (sf, p) = normal::sf_pdf_fast(x);
        f += sf;
        df -= p * cj;
        d2f += x * p * cj * cj;
    }
    let n = c.a.len() as f64;
    let phi = normal::pdf(q);
    (f / n - normal::sf(q), df / n + phi, d2f / n - q * phi)
}

/// Halley on `g_i` from `q`, kept inside `[lo, hi]`; `None` if it does not settle quickly.
fn halley_crossing(u: &Units, i: usize, c: &Coefs, mut q: f64, lo: f64, hi: f64) -> Option<f64> {
    for _ in 0..8 {
        let (g, dg, d2g) = g_derivatives(u, i, c, q);
        if g == 0.0 {
            return Some(q);
        }
        if !(dg.abs() > 0.0) {
            return None;
        }
        let step = halley_step(g, dg, d2g);
        let next = q - step;
        if !(next >= lo - 1e-9 && next <= hi + 1e-9) {
            return None;
        }
        q = next;
        // Cubic convergence: the error after a step d is about C·d³ with C ~ (g''/g')², so a
        // step below 1e-4 on the scale of g''/g' leaves ~1e-12 in q, well inside the 1e-9 promised
        // in β.
        if step.abs() * (1.0 + (d2g / dg).abs()) < 1e-4 {
            return Some(q);
        }
    }
    None
}

/// The robust fallback: Brent on `g_i` over `[lo, hi]`, widened until `g_i` changes sign.
fn crossing_by_brent(u: &Units, i: usize, c: &Coefs, mut lo: f64, mut hi: f64) -> f64 {
    let g = |q: f64| g_derivatives(u, i, c, q).0;
    let (mut glo, mut ghi) = (g(lo), g(hi));
    while glo > 0.0 && lo > Q_LO {
        hi = lo;
        ghi = glo;
        lo = (lo - Q_STEP).max(Q_LO);
        glo = g(lo);
    }
    if glo > 0.0 {
        return f64::NAN;
    }
    while ghi <= 0.0 && hi < Q_FAR {
        lo = hi;
        glo = ghi;
        hi = (hi + Q_STEP).min(Q_FAR);
        ghi = g(hi);
    }
    if ghi <= 0.0 {
        return f64::INFINITY;
    }
    zeroin(lo, hi, glo, ghi, 1e-12, g)
}

// ---------------------------------------------------------------------------------------------
// Exact, empirical rule.

/// Empirical rule: at `β` unit `i` is selected iff fewer than `⌊Uβ⌋ + 1` units have a strictly
/// higher `V_β`, i.e. a strictly lower line. Which units are above `i` changes only where lines
/// cross, and `⌊Uβ⌋` only at `β = k/U`: a sweep over those points in increasing β finds the
/// infimum exactly, in `O(U log U)` per unit.
fn exact_empirical(u: &Units) -> Vec<f64> {
    let kq = empirical_quantiles(u.m.len());
    (0..u.m.len()).map(|i| exact_empirical_unit(u, i, &kq)).collect()
}

/// `q` at the points `β = k/U`, `k = 1, …, U − 1`, where the empirical rule's allowance steps up.
fn empirical_quantiles(n: usize) -> Vec<f64> {
    (1..n).map(|k| normal::upper_quantile(k as f64 / n as f64)).collect()
}

/// One event of the sweep: at `q` (descending), either unit `Some(j)` may change side or the
/// allowance `⌊Uβ⌋` steps up (`None`).
#[derive(Clone, Copy)]
struct Event {
    q: f64,
    unit: Option<usize>,
}

fn exact_empirical_unit(u: &Units, i: usize, kq: &[f64]) -> f64 {
    let n = u.m.len();
    let mut events: Vec<Event> = kq.iter().map(|&q| Event { q, unit: None }).collect();
    for j in (0..n).filter(|&j| j != i) {
        for q in crossings(u, i, j) {
            events.push(Event { q, unit: Some(j) });
        }
    }
    events.sort_by(|a, b| b.q.total_cmp(&a.q));
    let above = |j: usize, q: f64| u.line(j, q) < u.line(i, q);
    // Relations are constant between events: probe each interval at its midpoint.
    let probe = |a: usize| -> f64 {
        match (a.checked_sub(1).map(|p| events[p].q), events.get(a).map(|e| e.q)) {
            (None, Some(b)) => b + 1.0,
            (Some(a), None) => a - 1.0,
            (Some(a), Some(b)) => 0.5 * (a + b),
            (None, None) => 0.0,
        }
    };
    let q0 = probe(0);
    let mut count = (0..n).filter(|&j| j != i && above(j, q0)).count();
    let mut side: Vec<bool> = (0..n).map(|j| j != i && above(j, q0)).collect();
    let mut allowance = 0usize;
    if count <= allowance {
        return 0.0;
    }
    let mut a = 0;
    while a < events.len() {
        let q = events[a].q;
        let mut b = a;
        while b < events.len() && events[b].q == q {
            b += 1;
        }
        // Interval below this group of events is (events[b].q, q); probe its midpoint.
        let mid = probe(b);
        for e in &events[a..b] {
            match e.unit {
                None => allowance += 1,
                Some(j) => {
                    let now = above(j, mid);
                    if now != side[j] {
                        side[j] = now;
                        if now {
                            count += 1;
                        } else {
                            count -= 1;
                        }
                    }
                }
            }
        }
        if count <= allowance {
            return normal::sf(q);
        }
        a = b;
    }
    1.0
}

/// The `q` values where unit `j` may pass unit `i`'s line (at most two).
fn crossings(u: &Units, i: usize, j: usize) -> Vec<f64> {
    if u.limit.is_some() {
        return Vec::new();
    }
    let (si, sj) = (u.sd[i], u.sd[j]);
    match (si > 0.0, sj > 0.0) {
        (true, true) => {
            let (bi, bj) = (1.0 / si, 1.0 / sj);
            if bi == bj {
                Vec::new()
            } else {
                vec![(bi * u.m[i] - bj * u.m[j]) / (bi - bj)]
            }
        }
        (false, true) => vec![u.m[i]],
        (true, false) => vec![u.m[j]],
        (false, false) => vec![u.m[i], u.m[j]],
    }
    .into_iter()
    .filter(|q| q.is_finite())
    .collect()
}

#[cfg(test)]
mod tests;
