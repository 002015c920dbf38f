//! The page's decisions that are not a panel's: what a change redraws ([`Dirty`]), what the
//! status line says of a job ([`status`]), the form's choices ([`form`]), what a load says
//! ([`load`]), the α tables' slots ([`alpha_slot`]), the analysis on show ([`Shown`]), how the page is
//! framed ([`Framing`]), what it shows as drawn ([`Drawn`]) and the inspector's moves ([`step_item`]).
//! The wasm page wires them to the DOM; each is a function of model state, tested natively.

use crate::{Controls, Mode};

mod data_source;
mod dirty;
mod drawn;
pub mod form;
mod framing;
pub mod inputs;
pub mod jobs;
pub mod load;
pub mod patch;
pub mod readouts;
mod run;
mod shown;
pub mod status;

pub use data_source::{DataSource, Loaded, Stats, StreamedHandle};
pub use dirty::Dirty;
pub use drawn::{ClassesCanvas, Drawn, Tables, Written};
pub use framing::Framing;
pub use jobs::{Jobs, Plan, ProgressView, Slice, SlicePage};
pub use run::{Finished, JobDevice, Run};
pub use shown::Shown;

/// The α table slot of `alpha` when it is a slider position (`scales::ALPHA_POSITIONS`): the
/// page keeps a table per slot, so that moving α is a lookup; `None` between positions.
pub fn alpha_slot(alpha: f64) -> Option<usize> {
    use crate::scales::{alpha_at, alpha_position, ALPHA_POSITIONS};
    let p = alpha_position(alpha);
    (alpha_at(p) == alpha).then(|| (p - ALPHA_POSITIONS.0) as usize)
}

/// The α slider's value at table slot `slot` (the inverse of [`alpha_slot`]).
pub fn slot_alpha(slot: usize) -> f64 {
    crate::scales::alpha_at(slot as u32 + crate::scales::ALPHA_POSITIONS.0)
}

/// How many α table slots there are (one per slider position).
pub fn alpha_slots() -> usize {
    let (lo, hi) = crate::scales::ALPHA_POSITIONS;
    (hi - lo + 1) as usize
}

/// The inspector's item after a move among `n` inspectable items (`n > 0`); `random` in
/// `[0, 1)` picks [`ItemMove::Random`]'s item.
pub fn step_item(item: usize, n: usize, to: ItemMove, random: f64) -> usize {
    match to {
        ItemMove::Prev => (item + n - 1) % n,
        ItemMove::Next => (item + 1) % n,
        ItemMove::Random => ((random * n as f64) as usize).min(n - 1),
        ItemMove::To(i) => i.min(n - 1),
    }
}

/// The inspector's item buttons (and its number input).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ItemMove {
    Prev,
    Next,
    Random,
    To(usize),
}

/// The controls after a cancel: those of the analysis on show (`shown`), with the reader's α
/// and β kept (they need no new analysis) and, on a score file, the σ² marker kept where it
/// is (the toy's σ² is a parameter of its analysis).
pub fn restored_controls(shown: &Controls, now: &Controls) -> Controls {
    let sigma2 = if shown.mode == Mode::Toy { shown.sigma2 } else { now.sigma2 };
    Controls { alpha: now.alpha, beta: now.beta, sigma2, ..shown.clone() }
}

/// The text size of the page's figures, in CSS pixels.
pub fn font_px(large_text: bool) -> f64 {
    if large_text {
        19.0
    } else {
        13.0
    }
}

#[cfg(test)]
mod tests;
