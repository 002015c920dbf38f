//! The standard normal distribution, accurate in both tails.
//!
//! Upper tails go through `erfc`, never `1 − Φ`: r-values are decided by the first grid points,
//! where `V_β` is a tail probability far below machine epsilon.
//!
//! All transcendental functions in the core come from the `libm` crate (FreeBSD's msun in
//! Rust), not the platform's C library, so native and wasm builds give the same bits.
//!
//! **statrs is the oracle, not the implementation.** `statrs::distribution::Normal` has the
//! same functions, but its `exp` and `ln` go through `num-traits`, which calls the platform's
//! maths library as soon as its `std` feature is on, and something in every build switches it on
//! (plotters in the page, proptest in the tests). Native and wasm builds would then differ in
//! the last bits, and `tests/agreement.rs` would fail. So the core keeps its own Φ, tail and
//! Φ⁻¹ on `libm`, and `tests/normal_oracle.rs` (native only: statrs is a native dev-dependency)
//! compares them with statrs over the whole double range: `|x| ≤ 38` for Φ and the tail, `p` from
//! 1e-300 to 1 − 1e-16 for Φ⁻¹, to the relative error bounds written there.

mod fast;

use libm::erfc;
use std::f64::consts::FRAC_1_SQRT_2;

const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// `Φ(x)`.
#[inline]
pub fn cdf(x: f64) -> f64 {
    0.5 * erfc(-x * FRAC_1_SQRT_2)
}

/// `1 − Φ(x)`, computed without cancellation.
#[inline]
pub fn sf(x: f64) -> f64 {
    0.5 * erfc(x * FRAC_1_SQRT_2)
}

/// `(1 − Φ(x), φ(x))` together with one exponential, to about 1e-14 relative: root finders only.
/// Always inlined, as the function it forwards to: with only a hint, the page's size-optimised
/// wasm (opt-level "s") kept it a call returning the pair through memory in the root finders'
/// per-unit loops.
#[inline(always)]
pub fn sf_pdf_fast(x: f64) -> (f64, f64) {
    fast::sf_pdf_fast(x)
}

/// Where [`sf_pdf_fast`] gives a density of exactly `+0` and a tail of exactly `0` (`1` for
/// negative `x`): `FAR_TAIL < |x| < FAR_TAIL_MAX`. The upper limit keeps `x²` finite, so a sum
/// of `φ(x)` times a polynomial in `x` gets `±0` from such an `x`, which leaves it unchanged:
/// root finders skip those terms and get the same bits.
pub const FAR_TAIL: f64 = 40.0;
/// See [`FAR_TAIL`].
pub const FAR_TAIL_MAX: f64 = 1e150;

/// The density `φ(x)`.
#[inline]
pub fn pdf(x: f64) -> f64 {
    FRAC_1_SQRT_2PI * fast::exp_nonpositive(-0.5 * x * x)
}

/// `Φ⁻¹(1 − β)`, the standardised `θ_β`; accurate for β near 0 (no `1 − β` rounding).
#[inline]
pub fn upper_quantile(beta: f64) -> f64 {
    if beta <= 0.0 {
        f64::INFINITY
    } else if beta >= 1.0 {
        f64::NEG_INFINITY
    } else {
        // Acklam's rational start (relative error ~1e-9), then two Halley steps on the accurate
        // tail: full double precision even for β = 1e-300, where `1 − β` would round to 1.
        let mut q = -acklam(beta);
        for _ in 0..2 {
            let e = sf(q) - beta;
            let u = e / pdf(q);
            q += u / (1.0 + 0.5 * q * u);
        }
        q
    }
}

/// Acklam's approximation of `Φ⁻¹(p)`, only a starting point for [`upper_quantile`].
fn acklam(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let tail = |r: f64| {
        (((((C[0] * r + C[1]) * r + C[2]) * r + C[3]) * r + C[4]) * r + C[5])
            / ((((D[0] * r + D[1]) * r + D[2]) * r + D[3]) * r + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * libm::log(p)).sqrt())
    } else if p <= 1.0 - 0.02425 {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * libm::log(1.0 - p)).sqrt())
    }
}

/// `Φ⁻¹(p)`.
#[inline]
pub fn quantile(p: f64) -> f64 {
    -upper_quantile(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn known_values() {
        assert!((cdf(0.0) - 0.5).abs() < 1e-16);
        assert!((cdf(1.959963984540054) - 0.975).abs() < 1e-15);
        // Reference values from scipy.stats.norm (Cephes ndtr / ndtri).
        assert!((sf(10.0) / 7.61985302416047e-24 - 1.0).abs() < 1e-13);
        assert!((cdf(-37.0) / 5.7255712225239266e-300 - 1.0).abs() < 1e-13);
        assert!((upper_quantile(0.025) - 1.959963984540054).abs() < 1e-14);
        assert!((upper_quantile(1e-300) / 37.0470962993612 - 1.0).abs() < 1e-13);
        assert!((quantile(0.975) - 1.959963984540054).abs() < 1e-14);
    }

    #[test]
    fn quantile_inverts_sf() {
        for &b in &[1e-300, 1e-12, 1e-6, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0 - 1e-9] {
            let q = upper_quantile(b);
            assert!((sf(q) / b - 1.0).abs() < 1e-12, "beta {b}");
        }
    }
}
