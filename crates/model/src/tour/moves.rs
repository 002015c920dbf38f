//! Moving through the tour: what a key does, where a move goes, which of the card's buttons
//! are off, and how the page marks each panel while a step is shown.

use super::{step, Step, STEPS};
use crate::panel::Panel;

/// A move in the tour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    Next,
    Back,
    Leave,
}

/// Where the key's target sits on the page.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KeyTarget {
    /// A form control or editable text: a focused slider takes its arrows and PageUp/PageDown.
    pub in_field: bool,
    /// A button outside the card: its arrows are its own (the inspector's Next).
    pub on_button: bool,
}

/// The move of `key` pressed on `target`, with no modifier key (a modified key moves
/// nothing). Escape leaves from anywhere. A clicker's PageDown still steps from a button just
/// clicked, which has no use for it.
pub fn key_move(key: &str, modified: bool, target: KeyTarget) -> Option<Move> {
    if modified {
        return None;
    }
    match key {
        "Escape" => Some(Move::Leave),
        _ if target.in_field => None,
        "PageDown" => Some(Move::Next),
        "PageUp" => Some(Move::Back),
        _ if target.on_button => None,
        "ArrowRight" => Some(Move::Next),
        "ArrowLeft" => Some(Move::Back),
        _ => None,
    }
}

/// Where `m` goes from step `n`: another step (`Some(Some(k))`), out of the tour
/// (`Some(None)`), or nowhere at either end.
pub fn after(n: usize, m: Move) -> Option<Option<usize>> {
    match m {
        Move::Next if n < STEPS.len() => Some(Some(n + 1)),
        Move::Back if n > 1 => Some(Some(n - 1)),
        Move::Leave => Some(None),
        _ => None,
    }
}

/// Whether the card's Back and Next are off at step `n`.
pub fn ends(n: usize) -> (bool, bool) {
    (n == 1, n == STEPS.len())
}

/// The card's count at step `n`.
pub fn count(n: usize) -> String {
    format!("Step {n} of {}", STEPS.len())
}

/// How `p` is marked while step `number` (if any) is shown: whether it is one of the step's
/// panels (the others are dimmed), and whether it is the step's key panel.
pub fn marks(number: Option<usize>, p: Panel) -> (bool, bool) {
    let s: Option<&Step> = number.and_then(step);
    (s.is_some_and(|s| s.panels.contains(&p)), s.is_some_and(|s| s.key_panel() == p))
}

/// Whether the reader has now newly done what the step proposes: the state says `done`,
/// the step was not `tried` before, and the state it opened with (`on_arrival`) did not have
/// it done already (a link can).
pub fn newly_tried(tried: bool, done: bool, on_arrival: bool) -> bool {
    !tried && done && !on_arrival
}

#[cfg(test)]
mod tests;
