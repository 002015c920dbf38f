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
mod tests {
    use super::super::STEPS;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_key_panel_is_the_one_each_step_is_about() {
        let keys: Vec<usize> = STEPS.iter().map(|s| s.key_panel().number()).collect();
        // Step 7 ("Same coverage, smaller sets") is about panel 6's table, not panels 3 and 4.
        assert_eq!(keys, [3, 7, 1, 4, 2, 5, 6, 6, 8, 9]);
        for s in &STEPS {
            assert!(s.panels.contains(&s.key_panel()), "{}", s.title);
        }
    }

    #[test]
    fn every_step_keeps_the_control_it_asks_for_and_it_is_on_the_page() {
        let page = include_str!("../../../../index.html");
        for s in &STEPS {
            let ids = s.stage_controls();
            assert!(!ids.is_empty(), "{}: {}", s.title, s.control);
            assert!(page.contains(&format!("id=\"{}\"", s.control)), "{}", s.control);
            for id in ids {
                let at = page.find(&format!("id=\"{id}\"")).unwrap_or(usize::MAX);
                let controls =
                    page.find("id=\"controls\"").unwrap_or(0)..page.find("id=\"panels\"").unwrap_or(0);
                assert!(controls.contains(&at), "{}: #{id} among the controls", s.title);
            }
        }
    }
}
