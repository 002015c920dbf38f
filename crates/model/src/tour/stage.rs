//! The tour on a projector: what a step keeps in view beside its card, at 1280×720 with large
//! text too. The page shows the step's key panel whole next to the card and, of the controls,
//! those the step asks the reader to use; `www/style.css` lays them out, `ui::app::tour` marks
//! them from here.

use super::Step;
use crate::panel::Panel;

/// The elements of the controls (by id) that a step asking for `control` keeps in view. A
/// control is kept with its label and the fieldset or slider it sits in. Step 9's score file
/// fieldset is mostly the drop zone, and a file dropped anywhere on the page loads: its sample
/// buttons and the loaded file's name are what the step needs.
fn kept(control: &'static str) -> &'static [&'static str] {
    match control {
        "scores-params" => &["samples", "data-name"],
        "alpha" => &["alpha"],
        "beta" => &["beta"],
        "sigma2" => &["sigma2"],
        "cp-draw" => &["cp-draw"],
        "ties" => &["ties"],
        "coverage" => &["coverage"],
        _ => &[],
    }
}

impl Step {
    /// The panel the step's text is most about (the first of its panels; step 7's is panel 6):
    /// shown whole beside the card.
    pub fn key_panel(&self) -> Panel {
        self.panels.first().copied().unwrap_or(Panel::Summary)
    }

    /// The ids of the controls kept in view while the step is shown, in the page's order.
    pub fn stage_controls(&self) -> &'static [&'static str] {
        kept(self.control)
    }
}

#[cfg(test)]
mod tests;
