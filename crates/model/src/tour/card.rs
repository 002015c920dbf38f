//! The tour's card as the page shows it at a step (or hidden): its texts, its buttons, the
//! panels it marks (the others dimmed) and the controls it keeps in view; and what the
//! per-class step's confirmation adds once per-class thresholds are on show.

use super::{count, ends, marks, step, PER_CLASS_STEP};
use crate::classes::per_class_outcome;
use crate::edits::Edits;
use crate::panel::Panel;
use crate::{ids, AlphaView, Analysis};
use rvalue_core::conformal::Coverage;

/// What the card shows, from [`card`].
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    /// The step on show, from 1; `None`: the card is hidden.
    pub step: Option<usize>,
    /// Whether the link that skips to the card's buttons is hidden.
    pub skip_hidden: bool,
    /// Each panel with its marks: one of the step's panels (the others dimmed), its key panel.
    pub marks: Vec<(Panel, bool, bool)>,
    /// The controls (ids) kept in view beside the card.
    pub keep: &'static [&'static str],
    /// Whether the card and its controls are scrolled into view (not when it is alone in a
    /// frame).
    pub reveal: bool,
    /// The card's texts, (element id, text), its count first; none when it is hidden.
    pub texts: Vec<(&'static str, String)>,
    /// Whether the reader did what the step proposes: its confirmation shown.
    pub tried: bool,
    /// Back and Next, each with whether it is off.
    pub buttons: [(&'static str, bool); 2],
}

/// The card at step `number` (if any, and if it is a step); `alone`: the step alone in a frame;
/// `tried`: the reader has done what it proposes.
pub fn card(number: Option<usize>, alone: bool, tried: bool) -> Card {
    let s = number.and_then(|n| step(n).map(|s| (n, s)));
    let marks =
        Panel::ALL.iter().map(|&p| (p, marks(s.map(|(n, _)| n), p))).map(|(p, (on, key))| (p, on, key));
    let (first, last) = s.map_or((false, false), |(n, _)| ends(n));
    Card {
        step: s.map(|(n, _)| n),
        skip_hidden: s.is_none() || alone,
        marks: marks.collect(),
        keep: s.map_or(&[], |(_, s)| s.stage_controls()),
        reveal: s.is_some() && !alone,
        texts: s.map_or(Vec::new(), |(n, s)| {
            let texts = [(ids::TOUR_TITLE, s.title), (ids::TOUR_TEXT, s.text), (ids::TOUR_TRY, s.try_this)];
            let texts =
                texts.into_iter().chain([(ids::TOUR_DONE, s.done)]).map(|(id, t)| (id, t.to_string()));
            [(ids::TOUR_COUNT, count(n))].into_iter().chain(texts).collect()
        }),
        tried,
        buttons: [(ids::TOUR_BACK, first), (ids::TOUR_NEXT, last)],
    }
}

impl Card {
    /// The card's writes into the document: the body's `touring` class, the card and its skip
    /// link shown or hidden, the Tour button pressed, each panel's `tour-focus` and `tour-key`
    /// marks and, at a step, its texts, confirmation, `data-step`, `data-tried` and the
    /// buttons' `disabled`. Scrolling, the kept controls and focus need the live document and
    /// stay in the page.
    pub fn edits(&self) -> Edits {
        let mut e = Edits::new();
        let on = self.step.is_some();
        e.body_class("touring", on).hidden(ids::TOUR, !on).hidden(ids::TOUR_SKIP, self.skip_hidden);
        e.flag(ids::TOUR_START, "aria-pressed", on);
        for &(p, on, key) in &self.marks {
            e.class(p.element_id(), "tour-focus", on).class(p.element_id(), "tour-key", key);
        }
        let Some(n) = self.step else { return e };
        for (id, text) in &self.texts {
            e.text(*id, text.clone());
        }
        e.hidden(ids::TOUR_DONE, !self.tried).attr(ids::TOUR, "data-step", n.to_string());
        e.flag(ids::TOUR, "data-tried", self.tried);
        for &(id, off) in &self.buttons {
            e.disabled(id, off);
        }
        e
    }
}

/// The confirmation shown once the reader has done what the step proposes.
pub fn tried() -> Edits {
    let mut e = Edits::new();
    e.hidden(ids::TOUR_DONE, false).flag(ids::TOUR, "data-tried", true);
    e
}

/// What the per-class step learns from the analysis on show at `v`'s α.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A marginal analysis: its view is the baseline per-class thresholds are compared with.
    Baseline,
    /// A per-class analysis against the baseline: the step's confirmation with what changed.
    Compared(String),
}

impl Outcome {
    /// The card's `data-outcome` (empty on the baseline, `1` once compared) and, compared, the
    /// confirmation with what changed.
    pub fn edits(&self) -> Edits {
        let mut e = Edits::new();
        match self {
            Outcome::Baseline => e.attr(ids::TOUR, "data-outcome", ""),
            Outcome::Compared(text) => {
                e.text(ids::TOUR_DONE, text.clone()).attr(ids::TOUR, "data-outcome", "1")
            }
        };
        e
    }
}

/// The per-class step's outcome at step `number` for the analysis `a` on show at `v`, given the
/// `baseline` (the marginal view, if kept) and the file's class `names`; `None` at another
/// step, or when there is nothing to compare yet.
pub fn per_class_step(
    number: Option<usize>,
    a: &Analysis,
    v: &AlphaView,
    baseline: Option<&AlphaView>,
    names: Option<&[String]>,
) -> Option<Outcome> {
    if number != Some(PER_CLASS_STEP) {
        return None;
    }
    if a.controls.score.coverage == Coverage::Marginal {
        return Some(Outcome::Baseline);
    }
    let b = baseline?;
    let now = if b.alpha == v.alpha && b.never_empty == v.never_empty {
        v.clone()
    } else {
        a.at_alpha(b.alpha, b.never_empty).ok()?
    };
    let text = per_class_outcome(b, &now, a.k, names)?;
    let done = step(PER_CLASS_STEP).map_or("", |s| s.done);
    Some(Outcome::Compared(format!("{done} {text}")))
}

#[cfg(test)]
mod tests;
