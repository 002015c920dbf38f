//! The conformal quantile's rank (docs/method.md §5), shared by `conformal` (thresholds) and
//! `rvalue::pooled` (the pooled r-value's boundary), so neither depends on the other.

/// `k* = ⌈(n + 1)(1 − α)⌉`, the rank of the calibration quantile. A relative fuzz of 1e-12
/// keeps products such as `100 · 0.95` from rounding up past an integer.
pub fn k_star(n: usize, alpha: f64) -> usize {
    let x = (n as f64 + 1.0) * (1.0 - alpha);
    (x - 1e-12 * x.abs().max(1.0)).ceil().max(0.0) as usize
}

/// `q̂` at α: the `k*`-th smallest of the calibration scores `cal` (ascending); `+∞` when
/// `k* > n` (the full set), `−∞` when `k* = 0`.
pub fn conformal_quantile(cal: &[f64], alpha: f64) -> f64 {
    match k_star(cal.len(), alpha) {
        0 => f64::NEG_INFINITY,
        ks => cal.get(ks - 1).copied().unwrap_or(f64::INFINITY),
    }
}
