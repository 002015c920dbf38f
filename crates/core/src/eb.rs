//! Normal–Normal empirical Bayes (docs/method.md §2): hyperparameters, posteriors, `V_β`, `λ_β`, the
//! threshold `t_β` and Proposition 1.
//!
//! Everything past [`Hyper`] works on the standardised scale `x' = (x − μ)/τ`, `s' = s/τ²`,
//! where the prior is `N(0, 1)` and `θ_β = q_β = Φ⁻¹(1 − β)`.

use crate::normal;
use crate::tensor::VarianceKind;
use crate::{Error, Result};
use std::sync::OnceLock;

/// Prior hyperparameters: `θ_i ~ N(μ, τ²)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hyper {
    pub mu: f64,
    pub tau2: f64,
}

impl Hyper {
    /// Checks user-given hyperparameters.
    pub fn fixed(mu: f64, tau2: f64) -> Result<Self> {
        if !mu.is_finite() || !tau2.is_finite() || tau2 < 0.0 {
            return Err(Error::invalid(format!(
                "hyperparameters must be finite with τ² ≥ 0 (got μ = {mu}, τ² = {tau2})"
            )));
        }
        Ok(Hyper { mu, tau2 })
    }
}

/// Checks that `x` (estimates) and `s` (noise variances) are a usable set of units.
pub fn check_units(x: &[f64], s: &[f64]) -> Result<()> {
    if x.is_empty() {
        return Err(Error::invalid("no units"));
    }
    if x.len() != s.len() {
        return Err(Error::shape(format!("{} estimates but {} variances", x.len(), s.len())));
    }
    if let Some(i) = x.iter().position(|v| !v.is_finite()) {
        return Err(Error::invalid(format!("estimate {i} is {} (must be finite)", x[i])));
    }
    if let Some(i) = s.iter().position(|v| !v.is_finite() || *v < 0.0) {
        return Err(Error::invalid(format!("variance {i} is {} (must be finite and ≥ 0)", s[i])));
    }
    Ok(())
}

/// How a unit's noise variance `s_i` comes from the variance `v_i` it is given: the two
/// [`VarianceKind`]s as types, so that each loop is compiled for its own and `s_i = v_i` costs
/// nothing.
trait Noise: Copy {
    fn s(self, v: f64) -> f64;
}

/// `s_i = v_i` ([`VarianceKind::PerDraw`], and units given with their noise variances).
#[derive(Debug, Clone, Copy)]
struct Unscaled;

impl Noise for Unscaled {
    #[inline(always)]
    fn s(self, v: f64) -> f64 {
        v
    }
}

/// `s_i = v_i / M`: the variance of a mean of `M` draws ([`VarianceKind::OfMean`]).
#[derive(Debug, Clone, Copy)]
struct PerMean(f64);

impl Noise for PerMean {
    #[inline(always)]
    fn s(self, v: f64) -> f64 {
        v / self.0
    }
}

/// The likelihood's units, `d_i = x_i − μ` and `s_i`, computed where they are read (the same
/// operations, so the same bits as stored copies): a prior pooled over a file's 10⁷ candidates
/// then needs no copy of their means or variances.
#[derive(Clone, Copy)]
struct Units<'a, N> {
    x: &'a [f64],
    mu: f64,
    v: &'a [f64],
    noise: N,
}

impl<'a> Units<'a, Unscaled> {
    /// Units whose `d` and `s` are given as they are.
    fn plain(d: &'a [f64], s: &'a [f64]) -> Self {
        Units { x: d, mu: 0.0, v: s, noise: Unscaled }
    }
}

impl<N: Noise> Units<'_, N> {
    /// `(d_i, s_i)` in unit order.
    #[inline(always)]
    fn iter(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let (mu, noise) = (self.mu, self.noise);
        self.x.iter().zip(self.v).map(move |(&x, &v)| (x - mu, noise.s(v)))
    }

    fn len(&self) -> usize {
        self.x.len()
    }
}

/// Marginal negative log-likelihood (without constants) of `τ²`, with `d = x − μ`:
/// `½ Σ [ln(τ² + s_i) + d_i²/(τ² + s_i)]`.
pub fn neg_log_lik(tau2: f64, d: &[f64], s: &[f64]) -> f64 {
    nll(tau2, Units::plain(d, s))
}

fn nll<N: Noise>(tau2: f64, u: Units<'_, N>) -> f64 {
    0.5 * u
        .iter()
        .map(|(di, si)| {
            let v = tau2 + si;
            libm::log(v) + di * di / v
        })
        .sum::<f64>()
}

/// Units whose terms [`nll_derivatives`] computes together before adding them up in order.
const CHUNK: usize = 64;

/// Gradient and Hessian of [`neg_log_lik`] in `τ²` (as the rvalues package's `nnnll.g`/`.hess`).
/// Each unit's terms are computed a chunk of units at a time (independent, so they vectorise:
/// four divisions a unit) and then added in unit order, which gives the bits of a plain running
/// sum.
fn nll_derivatives<N: Noise>(tau2: f64, u: Units<'_, N>) -> (f64, f64) {
    let (mut g, mut h) = (0.0, 0.0);
    let (mut tg, mut th) = ([0.0; CHUNK], [0.0; CHUNK]);
    for (xc, vc) in u.x.chunks(CHUNK).zip(u.v.chunks(CHUNK)) {
        for ((gt, ht), (&x, &v)) in tg.iter_mut().zip(&mut th).zip(xc.iter().zip(vc)) {
            let (di, si) = (x - u.mu, u.noise.s(v));
            let v = tau2 + si;
            let d2 = di * di;
            *gt = 1.0 / v - d2 / (v * v);
            *ht = -1.0 / (v * v) + 2.0 * d2 / (v * v * v);
        }
        for (&gt, &ht) in tg.iter().zip(&th).take(xc.len()) {
            g += gt;
            h += ht;
        }
    }
    (0.5 * g, 0.5 * h)
}

/// [`nll_derivatives`]' gradient at every point of `points` in one pass over the units, by the
/// same operations and with each point's terms added in unit order (so each is that gradient's
/// bits): the grid scan needs only their signs, and a pass with one accumulator per point
/// vectorises across the points, where one pass per point waited on its single running sum.
fn nll_gradients<const P: usize, N: Noise>(points: &[f64; P], u: Units<'_, N>) -> [f64; P] {
    let mut g = [0.0; P];
    for (di, si) in u.iter() {
        let d2 = di * di;
        for (gj, &t) in g.iter_mut().zip(points) {
            let v = t + si;
            *gj += 1.0 / v - d2 / (v * v);
        }
    }
    g.map(|gj| 0.5 * gj)
}

/// The gradient's terms at `t` are `a_i − b_i` with `a_i = 1/v` and `b_i = d_i²/v²`
/// (`v = t + s_i`), both non-increasing in `t` as computed. At `t`: the gradient (as
/// [`nll_derivatives`] computes it: each term `a_i − b_i` added in unit order) and the sums
/// `Σ a_i` and `Σ b_i`.
fn gradient_parts<N: Noise>(t: f64, u: Units<'_, N>) -> [f64; 3] {
    let (mut g, mut sa, mut sb) = (0.0, 0.0, 0.0);
    for (di, si) in u.iter() {
        let v = t + si;
        let d2 = di * di;
        let (a, b) = (1.0 / v, d2 / (v * v));
        g += a - b;
        sa += a;
        sb += b;
    }
    [0.5 * g, sa, sb]
}

/// The grid's gradients where [`estimate`] reads only their signs: computed at few points, and
/// between two computed points `t_a < t_b` the gradient at every `t` is at least
/// `Σa(t_b) − Σb(t_a)` and at most `Σa(t_a) − Σb(t_b)` (the terms are monotone), so a bound
/// clear of zero by more than the rounding of any of these sums (`(2U + 4)·2⁻⁵³·Σ(a + b)(t_a)`,
/// with 10 % to spare) gives the sign each inner point's gradient would have as
/// [`nll_gradients`] computes it; those points get `±1`. Intervals not decided are halved.
/// Where sums could overflow or lose their relative accuracy (extreme noise or spread), or the
/// bounds are not finite, every point is computed.
fn grid_gradient_signs<N: Noise>(points: &[f64; GRID + 1], u: Units<'_, N>) -> [f64; GRID + 1] {
    let s_min = u.iter().fold(f64::INFINITY, |m, (_, s)| m.min(s));
    let s_max = u.iter().fold(0.0f64, |m, (_, s)| m.max(s));
    // v = t + s in [1e-140, 2e150]: v² neither overflows nor leaves the normal range.
    if !(points[GRID] <= 1e150 && s_max <= 1e150 && points[0] + s_min >= 1e-140) {
        return nll_gradients(points, u);
    }
    let slack = 1.1 * (2.0 * u.len() as f64 + 4.0) * (0.5 * f64::EPSILON);
    let mut grads = [0.0; GRID + 1];
    let mut parts = [[0.0; 3]; GRID + 1];
    let mut todo = vec![0, GRID];
    let mut open = vec![(0, GRID)];
    while !todo.is_empty() {
        for &j in &todo {
            parts[j] = gradient_parts(points[j], u);
            grads[j] = parts[j][0];
        }
        todo.clear();
        let mut next = Vec::new();
        for (ja, jb) in open.drain(..) {
            if jb - ja < 2 {
                continue;
            }
            let ([_, a_lo, b_lo], [_, a_hi, b_hi]) = (parts[ja], parts[jb]);
            let margin = slack * (a_lo + b_lo) + 1e-300;
            if !margin.is_finite() {
                return nll_gradients(points, u);
            }
            if a_hi - b_lo > margin {
                grads[ja + 1..jb].fill(1.0);
            } else if a_lo - b_hi < -margin {
                grads[ja + 1..jb].fill(-1.0);
            } else {
                let m = (ja + jb) / 2;
                todo.push(m);
                next.extend([(ja, m), (m, jb)]);
            }
        }
        open = next;
    }
    grads
}

/// Intervals of the log grid over `[0, max dᵢ²]` that [`estimate`] scans.
const GRID: usize = 64;

/// The grid's inner points as fractions of `max dᵢ²`, `10^(−12(G−j)/(G−1))` for `j = 1..G`
/// (entries 0 and G unused): computed once, because [`estimate`] runs once per item under a
/// per-item prior and `pow` would be a large share of it. The same `libm::pow` calls, so the same bits.
fn grid_fractions() -> &'static [f64; GRID + 1] {
    static FRACTIONS: OnceLock<[f64; GRID + 1]> = OnceLock::new();
    FRACTIONS.get_or_init(|| {
        let mut f = [0.0; GRID + 1];
        for (j, fj) in f.iter_mut().enumerate().take(GRID).skip(1) {
            *fj = libm::pow(10.0, -12.0 * (GRID - j) as f64 / (GRID - 1) as f64);
        }
        f
    })
}

/// Estimates `μ = mean(x)` and the `τ²` maximising the marginal likelihood over `τ² ≥ 0`, as the
/// rvalues R package does, but globally: the gradient's sign on a log grid over `[0, max dᵢ²]`
/// (it is positive beyond) brackets every local minimum, safeguarded Newton polishes each to
/// machine precision, and the likelihood picks among them.
pub fn estimate(x: &[f64], s: &[f64]) -> Result<Hyper> {
    estimate_noise(x, s, Unscaled)
}

/// [`estimate`] on the variances `v_i` of means of `m` draws, with the noise variances
/// `variance` says (`v_i` or `v_i / m`), computed where they are read: a prior over a file's
/// 10⁷ candidates needs no copy of them.
pub fn estimate_with(x: &[f64], v: &[f64], variance: VarianceKind, m: usize) -> Result<Hyper> {
    match variance {
        VarianceKind::PerDraw => estimate_noise(x, v, Unscaled),
        VarianceKind::OfMean => estimate_noise(x, v, PerMean(m as f64)),
    }
}

/// [`estimate`] with the noise variances `s_i = noise(v_i)`.
fn estimate_noise(x: &[f64], v: &[f64], noise: impl Noise) -> Result<Hyper> {
    check_units(x, v)?;
    let mu = x.iter().sum::<f64>() / x.len() as f64;
    let u = Units { x, mu, v, noise };
    let dmax = u.iter().fold(0.0f64, |a, (d, _)| a.max(d * d));
    if dmax == 0.0 {
        return Ok(Hyper { mu, tau2: 0.0 });
    }
    // τ² = 0 is only admissible when no unit is noise-free (else the likelihood is degenerate).
    let lo = if u.iter().any(|(_, s)| s == 0.0) { dmax * 1e-15 } else { 0.0 };
    let points = grid_points(dmax, lo);
    let grads = grid_gradient_signs(&points, u);
    let mut candidates = Vec::new();
    if grads[0] >= 0.0 {
        candidates.push(lo);
    }
    for j in 1..=GRID {
        if grads[j - 1] < 0.0 && grads[j] >= 0.0 {
            candidates.push(polish_minimum(points[j - 1], points[j], u));
        }
    }
    // A single candidate needs no likelihood (a logarithm per unit) to be picked.
    let tau2 = match candidates[..] {
        [only] => only,
        _ => candidates
            .into_iter()
            .map(|t| (nll(t, u), t))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map_or(dmax, |(_, t)| t),
    };
    Ok(Hyper { mu, tau2 })
}

/// The scanned `τ²`: `lo`, then `max dᵢ²` times the grid's fractions (at least `lo`), then `max dᵢ²`.
fn grid_points(dmax: f64, lo: f64) -> [f64; GRID + 1] {
    let fractions = grid_fractions();
    let mut points = [0.0; GRID + 1];
    for (j, p) in points.iter_mut().enumerate() {
        *p = match j {
            0 => lo,
            GRID => dmax,
            j => (dmax * fractions[j]).max(lo),
        };
    }
    points
}

/// The minimum of the likelihood in `[a, b]`, where the gradient goes from negative to
/// non-negative: Newton on the gradient where it stays inside the bracket, bisection otherwise.
fn polish_minimum<N: Noise>(mut a: f64, mut b: f64, u: Units<'_, N>) -> f64 {
    let mut t = 0.5 * (a + b);
    for _ in 0..200 {
        let (g, h) = nll_derivatives(t, u);
        if g == 0.0 {
            return t;
        }
        if g > 0.0 {
            b = t;
        } else {
            a = t;
        }
        let newton = t - g / h;
        let next = if h > 0.0 && newton > a && newton < b { newton } else { 0.5 * (a + b) };
        if (next - t).abs() <= 1e-15 * t.abs().max(1e-300) || b - a <= 1e-15 * b {
            return next;
        }
        t = next;
    }
    t
}

/// The standardised posterior of unit `i`: `m = x'/(1 + s')`, `v = s'/(1 + s')` (paper Eq. post).
#[inline]
pub fn posterior(xs: f64, ss: f64) -> (f64, f64) {
    (xs / (1.0 + ss), ss / (1.0 + ss))
}

/// `V_β = P(θ ≥ θ_β | data) = 1 − Φ((q_β − m)/√v)`; with `v = 0` it is `1` if `m ≥ q_β` else `0`.
#[inline]
pub fn v_beta(q: f64, m: f64, v: f64) -> f64 {
    if v == 0.0 {
        if m >= q {
            1.0
        } else {
            0.0
        }
    } else {
        normal::sf((q - m) / v.sqrt())
    }
}

/// The threshold on the standardised scale: `t_β(s') = q(1 + s') − z √(s'(1 + s'))`.
#[inline]
pub fn threshold(q: f64, z: f64, ss: f64) -> f64 {
    q * (1.0 + ss) - z * (ss * (1.0 + ss)).sqrt()
}

/// The threshold on the original scale, `μ + τ t_β(s/τ²)` (paper Eq. threshold).
pub fn threshold_original(h: Hyper, q: f64, z: f64, s: f64) -> f64 {
    let tau = h.tau2.sqrt();
    h.mu + tau * threshold(q, z, s / h.tau2)
}

/// The model rule's selected fraction at `(q, z)`: `(1/U) Σ 1 − Φ(q √(1 + s'_i) − z √s'_i)`.
pub fn model_fraction(q: f64, z: f64, ss: &[f64]) -> f64 {
    ss.iter().map(|&s| normal::sf(q * (1.0 + s).sqrt() - z * s.sqrt())).sum::<f64>() / ss.len() as f64
}

/// `z_β` of the model rule: the root of `model_fraction(q_β, z) = β`, increasing in `z`.
/// `None` when every `s'_i = 0` (then the fraction is `β` for every `z`, and `t_β = q_β`).
pub fn z_model(beta: f64, ss: &[f64]) -> Option<f64> {
    z_model_from(beta, normal::upper_quantile(beta), ss, 0.0)
}

/// [`z_model`] with `q_β` given and a starting guess (callers sweeping β warm-start it).
pub fn z_model_from(beta: f64, q: f64, ss: &[f64], guess: f64) -> Option<f64> {
    if !(ss.iter().any(|&s| s > 0.0) && beta > 0.0 && beta < 1.0) {
        return None;
    }
    let f = |z: f64| model_fraction(q, z, ss) - beta;
    // Bracket outward from the guess; the fraction runs over (U₀β/U, (U₀β + U₁)/U) ∋ β.
    let (mut lo, mut hi) = (guess - 1.0, guess + 1.0);
    let mut step = 1.0;
    while f(lo) > 0.0 {
        hi = lo;
        step *= 2.0;
        lo -= step;
        if step > 1e6 {
            return Some(lo);
        }
    }
    step = 1.0;
    while f(hi) < 0.0 {
        lo = hi;
        step *= 2.0;
        hi += step;
        if step > 1e6 {
            return Some(hi);
        }
    }
    let mut z = guess.clamp(lo, hi);
    for _ in 0..200 {
        let fz = f(z);
        if fz == 0.0 {
            return Some(z);
        }
        if fz > 0.0 {
            hi = z;
        } else {
            lo = z;
        }
        let slope =
            ss.iter().map(|&s| s.sqrt() * normal::pdf(q * (1.0 + s).sqrt() - z * s.sqrt())).sum::<f64>()
                / ss.len() as f64;
        let newton = z - fz / slope;
        let next = if slope > 0.0 && newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
        if (next - z).abs() <= 1e-14 * (1.0 + z.abs()) || hi - lo <= 1e-14 * (1.0 + z.abs()) {
            return Some(next);
        }
        z = next;
    }
    // Newton inside the bracket can crawl without ever shrinking it: where a very noisy unit's
    // step sits beside the root (standardised variances of 10³ and more), the iterates bounced
    // between the step's sides for all 200 turns and the last one, far from the root, came back.
    // Bisection of the bracket always converges.
    Some(bisect(lo, hi, f))
}

/// A root of the increasing `f` in `[lo, hi]` (`f(lo) ≤ 0 ≤ f(hi)`), by bisection to `1e-14`
/// relative.
fn bisect(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    while hi - lo > 1e-14 * (1.0 + lo.abs().max(hi.abs())) {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `λ_β = 1 − Φ(z_β)` for the model rule; `None` when `z_β` is undefined.
pub fn lambda_model(beta: f64, ss: &[f64]) -> Option<f64> {
    z_model(beta, ss).map(normal::sf)
}

/// R's type-1 quantile at probability `p`: the `max(1, ⌈U p⌉)`-th smallest value. Reorders `values`.
pub fn type1_quantile(values: &mut [f64], p: f64) -> f64 {
    let u = values.len();
    let k = type1_rank(u, p);
    let (_, kth, _) = values.select_nth_unstable_by(k - 1, |a, b| a.total_cmp(b));
    *kth
}

/// The 1-based rank `max(1, ⌈U p⌉)` of R's type-1 quantile (clamped to `U`).
#[inline]
pub fn type1_rank(u: usize, p: f64) -> usize {
    ((u as f64 * p).ceil() as usize).clamp(1, u)
}

/// `λ_β` by the empirical rule: the `(1 − β)` type-1 quantile of `{V_β(i)}`.
pub fn lambda_empirical(v_beta_values: &mut [f64], beta: f64) -> f64 {
    type1_quantile(v_beta_values, 1.0 - beta)
}

/// Proposition 1 (paper appendix), standardised, `θ = q_β`, `z = z_β`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ThresholdShape {
    /// `0 < z < θ`: `t_β` falls on `[0, s*]`, rises after, and is back at `t_β(0)` at `s0`.
    Dip { s_star: f64, s0: f64 },
    /// `z ≤ 0 < θ`: `t_β` rises everywhere.
    Rising,
    /// Outside the proposition's cases (`θ ≤ 0` or `z ≥ θ`).
    Other,
}

/// Classifies the threshold curve by Proposition 1 and gives `s*` and `s0` when it dips.
pub fn threshold_shape(theta: f64, z: f64) -> ThresholdShape {
    if z > 0.0 && z < theta {
        let r = theta * theta - z * z;
        ThresholdShape::Dip { s_star: (theta / r.sqrt() - 1.0) / 2.0, s0: z * z / r }
    } else if z <= 0.0 && theta > 0.0 {
        ThresholdShape::Rising
    } else {
        ThresholdShape::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const R_X: [f64; 12] = [
        0.0932413072,
        3.122807035,
        -2.734865978,
        3.693145699,
        -0.6682825501,
        -0.1387703824,
        -1.215327455,
        1.229268249,
        0.7279508849,
        0.9488411773,
        -0.5439484521,
        0.7350147419,
    ];
    const R_SE: [f64; 12] = [
        1.380980367,
        1.579644565,
        1.175761284,
        1.704021939,
        1.062246927,
        0.8759811706,
        0.7724286664,
        0.6847661966,
        1.193888634,
        1.032550503,
        1.427407055,
        0.32182882,
    ];

    #[test]
    fn hyperparameters_match_the_rvalues_package() {
        let s: Vec<f64> = R_SE.iter().map(|e| e * e).collect();
        let h = estimate(&R_X, &s).unwrap();
        assert!((h.mu - 0.437422856392).abs() < 1e-11, "mu {}", h.mu);
        assert!((h.tau2 - 0.656859149352).abs() < 1e-9, "tau2 {}", h.tau2);
        // The gradient vanishes at the estimate.
        let d: Vec<f64> = R_X.iter().map(|x| x - h.mu).collect();
        assert!(nll_derivatives(h.tau2, Units::plain(&d, &s)).0.abs() < 1e-12);
    }

    /// Units with noise over eight decades and a count that leaves a partial chunk.
    fn spread_units(n: usize) -> (Vec<f64>, Vec<f64>) {
        let d = (0..n).map(|i| 3.0 * libm::sin(i as f64 * 1.7) + 0.01 * i as f64).collect();
        let s = (0..n).map(|i| libm::pow(10.0, 4.0 * libm::sin(i as f64 * 0.37) - 1.0)).collect();
        (d, s)
    }

    /// The derivatives as one plain running sum per point, the way they were first written.
    fn plain_derivatives(tau2: f64, d: &[f64], s: &[f64]) -> (f64, f64) {
        let (mut g, mut h) = (0.0, 0.0);
        for (&di, &si) in d.iter().zip(s) {
            let v = tau2 + si;
            let d2 = di * di;
            g += 1.0 / v - d2 / (v * v);
            h += -1.0 / (v * v) + 2.0 * d2 / (v * v * v);
        }
        (0.5 * g, 0.5 * h)
    }

    #[test]
    fn chunked_and_gridded_sums_are_the_plain_sums_bit_for_bit() {
        for n in [1, 63, 64, 65, 1000, 10_001] {
            let (d, s) = spread_units(n);
            let mut points = [0.0; GRID + 1];
            for (j, p) in points.iter_mut().enumerate() {
                *p = if j == 0 { 0.0 } else { libm::pow(10.0, j as f64 / 8.0 - 5.0) };
            }
            let grads = nll_gradients(&points, Units::plain(&d, &s));
            for (&t, &g) in points.iter().zip(&grads) {
                let (pg, ph) = plain_derivatives(t, &d, &s);
                assert_eq!(g.to_bits(), pg.to_bits(), "n {n} τ² {t}: gradient");
                let (cg, ch) = nll_derivatives(t, Units::plain(&d, &s));
                assert_eq!((cg.to_bits(), ch.to_bits()), (pg.to_bits(), ph.to_bits()), "n {n} τ² {t}");
            }
        }
    }

    /// The grid's gradients as `estimate` scans them against all computed: the same signs, the
    /// same values where computed.
    pub(super) fn assert_grid_signs_exact(x: &[f64], s: &[f64]) {
        let mu = x.iter().sum::<f64>() / x.len() as f64;
        let d: Vec<f64> = x.iter().map(|v| v - mu).collect();
        let dmax = d.iter().fold(0.0f64, |a, v| a.max(v * v));
        let lo = if s.contains(&0.0) { dmax * 1e-15 } else { 0.0 };
        let points = grid_points(dmax, lo);
        let u = Units::plain(&d, s);
        let (fast, all) = (grid_gradient_signs(&points, u), nll_gradients(&points, u));
        for (j, (&f, &a)) in fast.iter().zip(&all).enumerate() {
            assert_eq!((f >= 0.0, f < 0.0), (a >= 0.0, a < 0.0), "point {j}: {f} vs {a}");
            assert!(f.to_bits() == a.to_bits() || f.abs() == 1.0, "point {j}: {f} vs {a}");
        }
    }

    #[test]
    fn grid_signs_from_bounds_are_the_computed_signs() {
        for n in [1, 2, 3, 5, 12, 100, 1000, 10_000] {
            let (d, s) = spread_units(n);
            assert_grid_signs_exact(&d, &s);
            // Equal noise near the spread of the estimates: τ² near 0, the gradient near 0.
            let s2: Vec<f64> = d.iter().map(|_| 4.4).collect();
            assert_grid_signs_exact(&d, &s2);
            let s3: Vec<f64> = s.iter().map(|v| v * 1e-6).collect();
            assert_grid_signs_exact(&d, &s3);
        }
        assert_grid_signs_exact(&R_X, &R_SE.map(|e| e * e));
        // Noise-free units (τ² from max dᵢ²·1e-15) and extreme scales (every point computed).
        assert_grid_signs_exact(&[0.1, 2.0, -1.0], &[0.0, 1.0, 2.0]);
        assert_grid_signs_exact(&[1e200, -1e200, 3.0], &[1.0, 1e-300, 2.0]);
    }

    #[test]
    fn tau2_is_zero_when_units_agree_more_than_their_noise() {
        let h = estimate(&[0.1, -0.1, 0.05], &[4.0, 4.0, 4.0]).unwrap();
        assert_eq!(h.tau2, 0.0);
        let h = estimate(&[1.0, 1.0], &[1.0, 2.0]).unwrap();
        assert_eq!(h, Hyper { mu: 1.0, tau2: 0.0 });
    }

    #[test]
    fn equal_noise_mle_is_closed_form() {
        // With equal s the MLE is max(0, mean(d²) − s).
        let x = [1.0, 3.0, -2.0, 0.5, 4.0];
        let h = estimate(&x, &[0.5; 5]).unwrap();
        let mu = x.iter().sum::<f64>() / 5.0;
        let md2 = x.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>() / 5.0;
        assert!((h.tau2 - (md2 - 0.5)).abs() < 1e-12 * md2);
    }

    #[test]
    fn posterior_formulas() {
        // Paper Eq. post on the original scale against the standardised form.
        let (mu, tau2, x, s) = (0.3, 2.0, 1.7, 0.8);
        let tau: f64 = f64::sqrt(tau2);
        let (m, v) = posterior((x - mu) / tau, s / tau2);
        let mean = (tau2 * x + s * mu) / (tau2 + s);
        let var = tau2 * s / (tau2 + s);
        assert!((mu + tau * m - mean).abs() < 1e-15);
        assert!((tau2 * v - var).abs() < 1e-15);
    }

    #[test]
    fn threshold_hand_values() {
        for &beta in &[0.01, 0.1, 0.3] {
            let q = normal::upper_quantile(beta);
            for &z in &[0.2, 0.9 * q] {
                assert_eq!(threshold(q, z, 0.0), q);
                match threshold_shape(q, z) {
                    ThresholdShape::Dip { s_star, s0 } => {
                        assert!((threshold(q, z, s0) - q).abs() < 1e-12 * q.abs().max(1.0));
                        // s* is the minimum: the curve is higher on both sides.
                        let t = threshold(q, z, s_star);
                        assert!(t < q && t < threshold(q, z, s_star * 0.99));
                        assert!(t < threshold(q, z, s_star * 1.01));
                    }
                    other => panic!("expected a dip, got {other:?}"),
                }
            }
            let q = normal::upper_quantile(beta);
            assert_eq!(threshold_shape(q, -0.5), ThresholdShape::Rising);
        }
    }

    #[test]
    fn threshold_is_where_v_meets_lambda() {
        // x ≥ t_β(s') ⇔ V_β ≥ λ_β = 1 − Φ(z).
        let (q, z, ss) = (1.2, 0.7, 0.9);
        let t = threshold(q, z, ss);
        let lambda = normal::sf(z);
        let (m, v) = posterior(t, ss);
        assert!((v_beta(q, m, v) - lambda).abs() < 1e-14);
        let (m2, v2) = posterior(t + 1e-6, ss);
        assert!(v_beta(q, m2, v2) > lambda);
    }

    #[test]
    fn z_model_solves_the_selection_constraint() {
        let ss = [0.1, 0.5, 2.0, 0.0, 7.0];
        for &beta in &[1e-9, 0.01, 0.2, 0.5, 0.9, 0.999] {
            let z = z_model(beta, &ss).unwrap();
            let q = normal::upper_quantile(beta);
            let f = model_fraction(q, z, &ss);
            assert!((f / beta - 1.0).abs() < 1e-10, "beta {beta}: {f}");
        }
        assert_eq!(z_model(0.1, &[0.0, 0.0]), None);
    }

    /// Noise over seven decades, two units so noisy that each moves the fraction by 1/5 within
    /// about 0.01 in `z`, right beside the root: Newton inside the bracket can bounce across those
    /// steps for all its turns and end at `z = 0.8994`, where the fraction is 0.554, not β = 0.191.
    #[test]
    fn z_model_converges_beside_a_very_noisy_units_step() {
        let tau2 = 1.796;
        let ss: Vec<f64> =
            [-2.93f64, 3.37, 0.31, 0.41, 4.24].iter().map(|e| libm::pow(10.0, *e) / tau2).collect();
        for q in [0.8741, 0.874, 0.87405, -0.8738] {
            let beta = normal::sf(q);
            let z = z_model_from(beta, q, &ss, 0.0).unwrap();
            let f = model_fraction(q, z, &ss);
            assert!((f / beta - 1.0).abs() < 1e-10, "q {q}: z {z}, fraction {f} against β {beta}");
        }
    }

    #[test]
    fn both_lambda_rules_on_hand_cases() {
        // Equal noise s' for every unit: the model constraint reads
        // 1 − Φ(q√(1+s') − z√s') = β, i.e. z = q(√(1+s') − 1)/√s'.
        for &(beta, s) in &[(0.05, 0.3f64), (0.2, 2.0), (0.7, 0.01)] {
            let q = normal::upper_quantile(beta);
            let z = q * ((1.0 + s).sqrt() - 1.0) / s.sqrt();
            let lambda = lambda_model(beta, &[s; 6]).unwrap();
            assert!((lambda / normal::sf(z) - 1.0).abs() < 1e-10, "β {beta} s' {s}: {lambda}");
        }
        assert_eq!(lambda_model(0.1, &[0.0; 3]), None);
        // Empirical: the ⌈U(1 − β)⌉-th smallest V; U = 5, β = 0.3 → the 4th smallest.
        let mut v = [0.9, 0.1, 0.5, 0.7, 0.3];
        assert_eq!(lambda_empirical(&mut v, 0.3), 0.7);
        // β below 1/U asks for the largest V.
        assert_eq!(lambda_empirical(&mut v, 0.1), 0.9);
    }

    #[test]
    fn type1_quantile_is_r_type_1() {
        // R: quantile(c(5, 1, 4, 2, 3), c(0, .2, .21, .5, .99, 1), type = 1) = 1 1 2 3 5 5
        let x = [5.0, 1.0, 4.0, 2.0, 3.0];
        for (p, want) in [(0.0, 1.0), (0.2, 1.0), (0.21, 2.0), (0.5, 3.0), (0.99, 5.0), (1.0, 5.0)] {
            assert_eq!(type1_quantile(&mut x.clone(), p), want, "p {p}");
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// `estimate` reads the grid's gradients' signs from bounds where they are clear: the
        /// signs of them all computed, whatever the spread of estimates and noise.
        #[test]
        fn grid_signs_from_bounds_are_the_computed_signs_for_any_units(
            units in proptest::collection::vec((-8.0f64..8.0, -4.0f64..4.0), 1..200),
            scale in -3.0f64..3.0,
        ) {
            let k = libm::pow(10.0, scale);
            let (x, s): (Vec<f64>, Vec<f64>) =
                units.iter().map(|&(x, e)| (k * x, k * k * libm::pow(10.0, e))).unzip();
            tests::assert_grid_signs_exact(&x, &s);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// With noise spread over up to ten decades, and any starting guess, the root found
        /// solves the constraint: the fraction is β to 1e-9 relative, or the root is pinned
        /// between two points 1e-12 apart where the fraction is below and above β.
        #[test]
        fn z_model_solves_the_constraint_with_very_unequal_noise(
            exps in proptest::collection::vec(-4.0f64..6.0, 2..12),
            q in -6.0f64..6.0,
            guess in -5.0f64..5.0,
        ) {
            let ss: Vec<f64> = exps.iter().map(|e| libm::pow(10.0, *e)).collect();
            let beta = normal::sf(q);
            let z = z_model_from(beta, q, &ss, guess).unwrap();
            let f = model_fraction(q, z, &ss);
            let eps = 1e-12 * (1.0 + z.abs());
            let pinned = model_fraction(q, z - eps, &ss) <= beta && model_fraction(q, z + eps, &ss) >= beta;
            prop_assert!((f / beta - 1.0).abs() < 1e-9 || pinned, "z {z}: fraction {f} against β {beta}");
        }
    }
}
