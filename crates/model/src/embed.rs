//! Embed mode (`?embed=<panel>`, or `?embed=tour&tour=N`): what stays on the page, and what the
//! height message to the parent page says. The page marks the elements and posts the message.

use crate::panel::Panel;
use crate::tour::Step;

/// The `type` of the height message `{type, height, panel}`.
pub const HEIGHT_MESSAGE: &str = "rvalue-explorer:height";

/// The ids of the sliders `panel` needs (their wrappers stay on the page).
pub fn slider_ids(panel: Panel) -> impl Iterator<Item = &'static str> {
    let s = panel.sliders();
    [(s.alpha, "alpha"), (s.beta, "beta"), (s.sigma2, "sigma2")].into_iter().filter(|s| s.0).map(|s| s.1)
}

/// The ids of the controls a tour step shown alone keeps: the one it asks the reader to use,
/// then the sliders of its panels.
pub fn tour_controls(step: &Step) -> Vec<&'static str> {
    let mut ids = vec![step.control];
    ids.extend(step.panels.iter().flat_map(|&p| slider_ids(p)));
    ids
}

/// What the page marks for `?embed=`: `body.embed` with `data-embed` = `name`, and
/// `embed-keep` on the elements `keep`, on the wrappers of the sliders `sliders`, and on the
/// slider or fieldset of the controls `controls`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marks {
    pub name: &'static str,
    pub keep: Vec<String>,
    pub sliders: Vec<&'static str>,
    pub controls: Vec<&'static str>,
}

/// The marks for `panel` alone (its sliders kept), or else for a tour `step` alone (its card,
/// its panels, the control it asks the reader to use and its panels' sliders); `None` for the
/// whole page.
pub fn marks(panel: Option<Panel>, step: Option<&Step>) -> Option<Marks> {
    match (panel, step) {
        (Some(p), _) => Some(Marks {
            name: p.name(),
            keep: vec![p.element_id()],
            sliders: slider_ids(p).collect(),
            controls: vec![],
        }),
        (None, Some(s)) => {
            let keep =
                std::iter::once(crate::ids::TOUR.to_string()).chain(s.panels.iter().map(|p| p.element_id()));
            Some(Marks { name: "tour", keep: keep.collect(), sliders: vec![], controls: tour_controls(s) })
        }
        (None, None) => None,
    }
}

/// The `panel` the height message names, if the page posts heights: what `?embed=` shows
/// alone, a panel or the tour (nothing for the whole page).
pub fn posted_as(panel: Option<Panel>, tour_alone: bool) -> Option<&'static str> {
    match (panel, tour_alone) {
        (Some(p), _) => Some(p.name()),
        (None, true) => Some("tour"),
        (None, false) => None,
    }
}

/// The height message as JSON: `{type: HEIGHT_MESSAGE, height, panel}` for a body of `height`
/// CSS pixels (a whole number, from [`Heights::changed`]) showing `panel` (a name of
/// [`posted_as`]'s, which needs no escaping).
pub fn height_message(height: f64, panel: &str) -> String {
    format!("{{\"type\":\"{HEIGHT_MESSAGE}\",\"height\":{height},\"panel\":\"{panel}\"}}")
}

/// The content height last posted: a height is posted when it changes.
#[derive(Debug, Default)]
pub struct Heights {
    last: Option<f64>,
}

impl Heights {
    /// The height to post for a body of `height` CSS pixels (rounded up), if it changed.
    pub fn changed(&mut self, height: f64) -> Option<f64> {
        let h = height.ceil();
        (self.last.replace(h) != Some(h)).then_some(h)
    }
}

#[cfg(test)]
mod tests;
