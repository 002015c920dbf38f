//! Panel 5's words: the readout at the σ² marker (the inclusion probabilities there and, in the
//! toy, the false candidates they put in a set, which panel 6 measures), and what its curves
//! hold fixed.

use crate::curves::{CutFrom, CutRule, InclusionInputs};
use crate::scales::{fixed, short};
use rvalue_core::toy::ToyParams;

/// Panel 5 at the marked σ².
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theorem3Readout {
    pub sigma2: f64,
    /// A false candidate's chance to enter CP's set at σ², and CP_r's.
    pub cp: Option<f64>,
    pub cp_r: Option<f64>,
    /// In the toy, the expected number of false candidates in an item's CP set: the
    /// high-variance ones at σ², the others at σp². `None` for a score file.
    pub false_cp: Option<f64>,
    /// The same for CP_r's set.
    pub false_cp_r: Option<f64>,
}

/// The readout at `sigma2`; `toy` (the analysed toy's parameters, its σ² replaced by the marker's)
/// adds the false candidates per set.
pub fn theorem3_readout(inputs: &InclusionInputs, sigma2: f64, toy: Option<&ToyParams>) -> Theorem3Readout {
    let count = |p_of: &dyn Fn(f64) -> Option<f64>| {
        let p = toy?;
        let high = p.n_high_variance() as f64;
        let low = p.k.saturating_sub(1) as f64 - high;
        let at_high = if high > 0.0 { p_of(sigma2)? } else { 0.0 };
        let at_low = if low > 0.0 { p_of(p.sigma2_p)? } else { 0.0 };
        Some(high * at_high + low * at_low)
    };
    Theorem3Readout {
        sigma2,
        cp: inputs.cp_at(sigma2),
        cp_r: inputs.cp_r_at(sigma2),
        false_cp: count(&|s| inputs.cp_at(s)),
        false_cp_r: count(&|s| inputs.cp_r_at(s)),
    }
}

fn prob(p: Option<f64>) -> String {
    p.map_or("–".to_string(), |p| fixed(p, 3))
}

impl Theorem3Readout {
    /// "At σ² = 1000: CP 0.504, CP_r 0.000; about 4.5 false candidates per CP set, 0.00 per
    /// CP_r set."
    pub fn text(&self) -> String {
        let head = format!("At σ² = {}: CP {}, CP_r {}", short(self.sigma2), prob(self.cp), prob(self.cp_r));
        match (self.false_cp, self.false_cp_r) {
            (Some(a), Some(b)) => format!(
                "{head}; about {} false candidates per CP set, {} per CP_r set (panel 6's sizes less \
                 its coverage).",
                fixed(a, 2),
                fixed(b, 2)
            ),
            _ => format!("{head}."),
        }
    }
}

/// What the curves stand on and hold fixed. `analysed_sigma2`: the σ² the toy's analysis was
/// simulated at (`None` for a score file), `marked`: the slider's σ².
pub fn theorem3_held(
    inputs: &InclusionInputs,
    alpha: f64,
    analysed_sigma2: Option<f64>,
    marked: f64,
) -> String {
    let r = inputs.r_star.map_or("–".to_string(), |r| fixed(r, 4));
    let cut = match inputs.from {
        CutFrom::Calibrated => {
            format!("its calibrated threshold r̂ = {r} at α = {} (panel 7's)", short(alpha))
        }
        CutFrom::Beta => format!("β = {r}, the slider (no set uses it: panel 6's sets use r̂)"),
    };
    let h = inputs.hyper;
    let shape = match inputs.rule {
        Some(CutRule::Limit { e }) => {
            format!(
                " With τ̂² = 0 the threshold is the line μ̂ + {}·σ² (the r-value's τ² → 0 limit).",
                fixed(e, 3)
            )
        }
        _ => String::new(),
    };
    let mut out = format!(
        "CP_r at {cut}, with the prior the r-values use, fitted to the data (μ̂ = {}, τ̂² = {}); \
         its statistic is the mean of M = {} draws.{shape} Along the curve these and CP's cut stay \
         fixed: only one false candidate's σ² varies.",
        fixed(h.mu, 3),
        fixed(h.tau2, 4),
        inputs.draws
    );
    if let Some(at) = analysed_sigma2 {
        out.push_str(&format!(
            " A new σ² re-simulates the toy, which refits the prior and r̂: the curve is that of the \
             analysis at σ² = {}{}.",
            short(at),
            if at == marked { "" } else { " until the new one is done" }
        ));
    }
    out
}

#[cfg(test)]
mod tests;
