//! `z` with `F(q, z) = β`: Halley's method on `ln F − ln β` inside a bracket, the one node
//! solver of both `z(q)` tables (the per-unit polish's seeds and the certified table's knots),
//! which differ only in when they stop ([`Stop`]).

use super::sums::{model_sums, Coefs, ModelSums};

/// When [`halley_root`] stops or gives up.
pub(super) struct Stop<F> {
    /// Evaluations of the sums before giving up.
    pub(super) iterations: usize,
    /// Whether `F = 0` gives up (`ln F` must exist) rather than stepping by bisection.
    pub(super) positive: bool,
    /// `settled(step, ln F', ln F'', z)`: whether the Halley step `step` from `z`, inside the
    /// bracket, ends the search at `z − step`.
    pub(super) settled: F,
    /// Bisection ends once the bracket is narrower than this, relative to `1 + |z|`.
    pub(super) bracket: f64,
    /// Whether a root bisection ends at gets its own sums (else those of the last point
    /// evaluated, close enough for a seed).
    pub(super) fresh: bool,
}

/// `z` with `F(q, z) = β` by Halley's method on `ln F − ln β` (nearly linear in the tails, where
/// Newton on `F` itself crawls), safeguarded by a bracket (`F` increases in `z`; with very
/// unequal noise it rises in steep steps) that bisection narrows where Halley leaves it, from the
/// guess `z`. Returns the root and the sums there (after a Halley step, those before it moved
/// along it to first order); `None` if it does not settle (the callers fall back to the
/// bracketing solver with accurate tails).
pub(super) fn halley_root(
    q: f64,
    beta: f64,
    ln_beta: f64,
    mut z: f64,
    c: &Coefs,
    stop: &Stop<impl Fn(f64, f64, f64, f64) -> bool>,
) -> Option<(f64, ModelSums)> {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut width = 1.0;
    for _ in 0..stop.iterations {
        let s = model_sums(q, z, c);
        if !(s.f.is_finite() && s.fz.is_finite() && (!stop.positive || s.f > 0.0)) {
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
            if (stop.settled)(step, g1, g2, z) {
                return Some((next, s.moved(-step)));
            }
            z = next;
        } else if lo.is_finite() && hi.is_finite() {
            z = 0.5 * (lo + hi);
            if hi - lo <= stop.bracket * (1.0 + z.abs()) {
                return Some((z, if stop.fresh { model_sums(q, z, c) } else { s }));
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
pub(super) fn halley_step(f: f64, f1: f64, f2: f64) -> f64 {
    let newton = f / f1;
    let denom = 1.0 - 0.5 * newton * f2 / f1;
    if (0.5..=2.0).contains(&denom) {
        newton / denom
    } else {
        newton
    }
}
