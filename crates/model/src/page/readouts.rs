//! The sentences the panels write beside their figures: panel 1's P(q > p), panel 2's note,
//! panel 5's threshold choices and note, panel 7's item line; and the page's own lines.

use rvalue_core::eb::Hyper;

use crate::edits::Edits;
use crate::ids;
use crate::scales::{fixed, short};
use crate::ThresholdSeries;

/// Panel 1's P(q > p), as a percentage.
pub fn pqp(p: f64) -> String {
    format!("{} %", fixed(100.0 * p, 2))
}

/// Panel 2's note: the prior `h` (`source`, [`crate::prior_source`]) and the curve of `s`'s β
/// with its minimum `s*` and `s0`.
pub fn threshold_note(h: Hyper, source: &str, s: &ThresholdSeries) -> String {
    format!(
        "Prior μ = {}, τ² = {} ({source}); β = {}: s* = {}, s0 = {}.",
        fixed(h.mu, 3),
        fixed(h.tau2, 4),
        short(s.beta),
        s.s_star.map_or("none (the curve only rises)".to_string(), |m| short(m.sigma2)),
        s.s0.map_or("none".to_string(), |m| short(m.sigma2)),
    )
}

/// Panel 5's threshold choices: the calibrated `r̂` (at α; none without one) and the slider's β.
pub fn theorem3_cuts(r_hat: Option<f64>, beta: f64) -> (String, String) {
    let rhat = r_hat.map_or("none".to_string(), |r| fixed(r, 4));
    (format!("calibrated r̂ = {rhat} (panel 6's sets)"), format!("β = {} (the slider)", short(beta)))
}

/// Panel 5's note: the settings it is drawn at and what its curves hold (`held`,
/// [`crate::theorem3_held`]).
pub fn theorem3_note(alpha: f64, beta: f64, sigma2: f64, held: &str) -> String {
    format!("α = {}, β = {}; σ² = {} marked. {held}", short(alpha), short(beta), short(sigma2))
}

/// Panel 7's line on the item among `n`: its data index, its true label once read (an item of
/// a streamed file is read first), α.
pub fn item_info(n: usize, item: usize, label: Option<usize>, alpha: f64) -> String {
    match label {
        Some(label) => format!("of {n}: data item {item}, true label #{label} (α = {})", short(alpha)),
        None => format!("of {n}: data item {item} (α = {})", short(alpha)),
    }
}

/// The page's `data-alpha-tables`, for benchmarks and tests: "filling" while a job runs or
/// tables were filled in this frame, "ready" once every α position is a lookup.
pub fn alpha_tables(filled_now: bool, running: bool) -> &'static str {
    if filled_now || running {
        "filling"
    } else {
        "ready"
    }
}

/// The banner of a panic (`msg`), shown: the page has stopped.
pub fn panicked(msg: &str) -> Edits {
    let mut e = Edits::new();
    let text = format!(
        "The explorer hit an internal error and stopped ({msg}). Reload the page to start again; \
         no data left this page."
    );
    e.text(ids::PANIC, text).hidden(ids::PANIC, false);
    e
}

#[cfg(test)]
mod tests;
