//! Split conformal prediction (SPEC §5).

/// `k* = ⌈(n + 1)(1 − α)⌉`, the rank of the calibration quantile. A relative fuzz of 1e-12
/// keeps products such as `100 · 0.95` from rounding up past an integer.
pub fn k_star(n: usize, alpha: f64) -> usize {
    let x = (n as f64 + 1.0) * (1.0 - alpha);
    (x - 1e-12 * x.abs().max(1.0)).ceil().max(0.0) as usize
}
