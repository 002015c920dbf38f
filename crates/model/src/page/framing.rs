//! How the page is framed: the one panel an embed shows, the look a link asked for, large
//! text, and the guided tour's step with the reader's progress in it.

use crate::panel::Panel;
use crate::url::{DataRef, UrlState, View};
use crate::{AlphaView, Controls};

pub struct Framing {
    /// The one panel shown (`?embed=`).
    embed: Option<Panel>,
    /// The look the link asked for: theme, background, a figure-only embed and its sliders.
    view: View,
    large_text: bool,
    /// The guided tour's step on show, from 1 (`?tour=N`).
    tour: Option<usize>,
    /// The tour's step alone in a frame (`?embed=tour`).
    tour_alone: bool,
    /// Whether the reader has done what the step proposes.
    tried: bool,
    /// Whether the state the step opened with had it done already (a link can), once known: then
    /// no confirmation is due.
    done_on_arrival: Option<bool>,
    /// The per-class step: the marginal analysis' view at α, what per-class thresholds are
    /// compared with.
    baseline: Option<AlphaView>,
}

impl Framing {
    pub fn new(embed: Option<Panel>, view: View, large_text: bool, tour: (Option<usize>, bool)) -> Framing {
        Framing {
            embed,
            view,
            large_text,
            tour: tour.0,
            tour_alone: tour.1,
            tried: false,
            done_on_arrival: None,
            baseline: None,
        }
    }

    /// What a link to the page holds, with the controls, item and data given.
    pub fn url_state(&self, controls: Controls, item: usize, data: DataRef) -> UrlState {
        UrlState {
            controls,
            item,
            data,
            embed: self.embed,
            large_text: self.large_text,
            tour: self.tour,
            tour_alone: self.tour_alone,
            view: self.view.clone(),
        }
    }

    pub fn embed(&self) -> Option<Panel> {
        self.embed
    }

    /// Whether the page is embedded: a panel, or a tour step alone.
    pub fn embedded(&self) -> bool {
        self.embed.is_some() || self.tour_alone
    }

    pub fn view(&self) -> &View {
        &self.view
    }

    pub fn large_text(&self) -> bool {
        self.large_text
    }

    pub fn set_large_text(&mut self, on: bool) {
        self.large_text = on;
    }

    /// The tour's step on show.
    pub fn step(&self) -> Option<usize> {
        self.tour
    }

    pub fn tour_alone(&self) -> bool {
        self.tour_alone
    }

    /// Whether the tour's keys step it: a tour on show in the page (not alone in a frame).
    pub fn takes_keys(&self) -> bool {
        self.tour.is_some() && !self.tour_alone
    }

    /// Goes to step `n`, not yet tried.
    pub fn go_to(&mut self, n: usize) {
        self.tour = Some(n);
        self.tried = false;
        self.done_on_arrival = None;
    }

    pub fn leave(&mut self) {
        self.tour = None;
    }

    pub fn tried(&self) -> bool {
        self.tried
    }

    /// Whether the step is newly tried now that the state says `done`: not when the state the
    /// step opened with had it done already.
    pub fn try_now(&mut self, done: bool) -> bool {
        let on_arrival = *self.done_on_arrival.get_or_insert(done);
        let newly = crate::tour::newly_tried(self.tried, done, on_arrival);
        self.tried |= newly;
        newly
    }

    pub fn baseline(&self) -> Option<&AlphaView> {
        self.baseline.as_ref()
    }

    pub fn set_baseline(&mut self, v: AlphaView) {
        self.baseline = Some(v);
    }
}

#[cfg(test)]
mod tests;
