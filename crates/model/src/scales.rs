//! The sliders' scales and the page's number formats.
//!
//! A range input moves in integer positions; these functions map positions to the values the
//! core sees and back. Values are rounded to three significant digits so that a position always
//! gives the same short, exactly representable-as-typed number (the σ² default 1000 is a
//! position, not 999.99…), and `position(value(p)) == p` for every position.
//! Powers come from `libm`, like every transcendental function of the core, so that native and
//! wasm builds give the same values bit for bit.

/// The α slider: 0.005 to 0.5 in steps of 0.005 (positions 1 to 100).
pub const ALPHA_POSITIONS: (u32, u32) = (1, 100);
/// The β slider: positions 0 to 200 on a log scale from 0.001 to 0.999 (finer near 0), through
/// the round values of [`BETA_ROUND`].
pub const BETA_POSITIONS: (u32, u32) = (0, 200);
/// Round values β takes exactly, the default 0.1 among them: each replaces the log scale's value
/// at its nearest position, so that a reader who moved β can come back to them.
pub const BETA_ROUND: [f64; 6] = [0.01, 0.05, 0.1, 0.2, 0.25, 0.5];
/// The σ² slider: position 0 is σ² = 0; positions 1 to 189 run over 0.1 to 5000 at 40 per decade.
pub const SIGMA2_POSITIONS: (u32, u32) = (0, 189);

const SIGMA2_PER_DECADE: f64 = 40.0;

/// PageUp/PageDown's steps in positions, as a lecturer needs them: α by 0.05 (a tenth of its
/// range), β by a doubling (a tenth of its log range), σ² by a decade (1000, 100, 10, …).
pub const ALPHA_PAGE: u32 = 10;
pub const BETA_PAGE: u32 = 20;
pub const SIGMA2_PAGE: u32 = SIGMA2_PER_DECADE as u32;

/// Rounds to three significant digits through the decimal form, so the result is the double
/// nearest the short decimal (0.3, not 0.30000000000000004).
pub fn round3(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.2e}").parse().unwrap_or(x)
}

fn clamp(p: u32, (lo, hi): (u32, u32)) -> u32 {
    p.clamp(lo, hi)
}

pub fn alpha_at(p: u32) -> f64 {
    round3(0.005 * clamp(p, ALPHA_POSITIONS) as f64)
}

pub fn alpha_position(alpha: f64) -> u32 {
    nearest(alpha, ALPHA_POSITIONS, alpha_at)
}

pub fn beta_at(p: u32) -> f64 {
    let p = clamp(p, BETA_POSITIONS);
    let round = BETA_ROUND.iter().find(|&&r| nearest(r, BETA_POSITIONS, beta_on_log_scale) == p);
    round.copied().unwrap_or_else(|| beta_on_log_scale(p))
}

fn beta_on_log_scale(p: u32) -> f64 {
    let (lo, hi) = BETA_POSITIONS;
    let f = (clamp(p, BETA_POSITIONS) - lo) as f64 / (hi - lo) as f64;
    round3(0.001 * libm::pow(999.0, f))
}

pub fn beta_position(beta: f64) -> u32 {
    nearest(beta, BETA_POSITIONS, beta_at)
}

pub fn sigma2_at(p: u32) -> f64 {
    match clamp(p, SIGMA2_POSITIONS) {
        0 => 0.0,
        p => round3(libm::pow(10.0, -1.0 + (p - 1) as f64 / SIGMA2_PER_DECADE)).min(super::SIGMA2_RANGE.1),
    }
}

pub fn sigma2_position(sigma2: f64) -> u32 {
    nearest(sigma2, SIGMA2_POSITIONS, sigma2_at)
}

/// The position `page` positions up (or down) from `p`, kept within `(lo, hi)`.
fn paged(p: u32, up: bool, page: u32, (lo, hi): (u32, u32)) -> u32 {
    let p = clamp(p, (lo, hi));
    if up {
        p.saturating_add(page).min(hi)
    } else {
        p.saturating_sub(page).max(lo)
    }
}

/// PageUp (`up`) or PageDown from position `p` of the α slider.
pub fn alpha_paged(p: u32, up: bool) -> u32 {
    paged(p, up, ALPHA_PAGE, ALPHA_POSITIONS)
}

pub fn beta_paged(p: u32, up: bool) -> u32 {
    paged(p, up, BETA_PAGE, BETA_POSITIONS)
}

pub fn sigma2_paged(p: u32, up: bool) -> u32 {
    paged(p, up, SIGMA2_PAGE, SIGMA2_POSITIONS)
}

/// The position whose value is nearest `v` (the scales are increasing; ties to the lower).
fn nearest(v: f64, (lo, hi): (u32, u32), at: fn(u32) -> f64) -> u32 {
    if !v.is_finite() {
        return lo;
    }
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a) / 2;
        if at(mid) < v {
            a = mid + 1;
        } else {
            b = mid;
        }
    }
    if a > lo && (v - at(a - 1)).abs() <= (at(a) - v).abs() {
        a - 1
    } else {
        a
    }
}

/// A number for the page: `digits` decimals, or "–" when it is not finite.
pub fn fixed(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "–".to_string()
    }
}

/// A slider value as typed: up to three significant digits, no trailing zeros ("0.05", "1000").
pub fn short(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let s = format!("{}", round3(x));
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests;
