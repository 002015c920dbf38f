//! The page's state as a URL query string, both ways, so that a link opens exactly the view it
//! was copied from and an iframe can ask for one panel (`?embed=threshold`).
//!
//! Only settings that differ from their defaults are written, so links stay short. Numbers are
//! written with Rust's shortest round-trip formatting, so every value (slider positions or not)
//! reads back as the same `f64`. Reading never fails: a parameter that is unknown, malformed or
//! out of range is replaced by its default and reported in [`Restored::warnings`], for the page
//! to show. Uploaded files never enter a link (they stay in the page): the link records only
//! that one was loaded, and the page asks for the same file.

mod escape;
pub mod hosted;
mod read;
pub mod report;
pub mod rewrite;
#[cfg(test)]
mod tests;
mod view;

pub use view::{Slider, Theme, View};

use crate::controls::table::{self, CONTROLS};
use crate::panel::Panel;
use crate::{Controls, Mode};
use escape::{encode, pairs};
use read::Reader;

/// The link key of the guided tour's step.
const TOUR: &str = "tour";

/// Where a score file came from: a bundled sample or a hosted file can be reloaded from a link.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DataRef {
    #[default]
    None,
    /// One of [`SAMPLES`](crate::samples::SAMPLES).
    Sample(String),
    /// A file from the user's machine: never in a link, only the fact that there was one.
    Upload,
    /// A file hosted on the page's own site (`src=`), with the address of its labels for an
    /// `.npy` (`labels=`) and the name the page shows for it (`name=`): public, so a link
    /// keeps all three.
    Hosted { src: String, labels: Option<String>, name: Option<String> },
    /// The data a saved report holds ([`report`]): in the page's own file, so not in a link.
    Report,
}

/// Everything a link restores.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UrlState {
    /// `controls.toy.sigma2` is not written: the σ² slider (`controls.sigma2`) overrides it.
    pub controls: Controls,
    /// The inspector's test item.
    pub item: usize,
    /// The score file (written in score mode only: in toy mode no file is on show).
    pub data: DataRef,
    /// One panel alone, for an iframe.
    pub embed: Option<Panel>,
    pub large_text: bool,
    /// The guided tour's step, counted from 1 (`tour=N`): the link's settings are read against
    /// that step's state ([`UrlState::base_controls`]).
    pub tour: Option<usize>,
    /// The tour's step alone, for an iframe (`embed=tour`).
    pub tour_alone: bool,
    /// Theme, background, and an embedded panel's chrome and sliders.
    pub view: View,
}

/// A query string read back, with what was wrong in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    pub state: UrlState,
    /// One sentence per parameter that was ignored or replaced by its default.
    pub warnings: Vec<String>,
    /// The page's GPU test switch `gpu=off|bad-shader|lost` (README), read by
    /// `rvalue_web::device`: not part of a view, so never written back into a link.
    pub gpu_switch: Option<String>,
    /// The page's worker count switch `workers=N` (README), read by `rvalue_web::pool`; like
    /// `gpu`, never written back.
    pub workers_switch: Option<String>,
    /// The page's switch `stream=MB` (README): score files of at least this many megabytes are
    /// read a block at a time (`0`: every `.npy`), read by `rvalue_web::streamed`; never written
    /// back.
    pub stream_switch: Option<String>,
    /// Whether the link sets σ²: on the score file it names, σ² then stays as given instead of
    /// starting at the data's median variance.
    pub sigma2_given: bool,
}

impl UrlState {
    pub fn with_controls(controls: Controls) -> UrlState {
        UrlState { controls, ..UrlState::default() }
    }

    /// What the link's settings are written against: the tour step's state in a tour (so that
    /// `tour=N` alone opens step `N` as the tour set it up), else the defaults.
    pub fn base_controls(tour: Option<usize>) -> Controls {
        match tour.and_then(crate::tour::step) {
            Some(step) => UrlState::from_query(step.query).state.controls,
            None => Controls::default(),
        }
    }

    /// The query string (without `?`) holding every setting that differs from its default (in
    /// a tour: from the step's state); empty for the default view. The controls come in the
    /// order of [`CONTROLS`].
    pub fn to_query(&self) -> String {
        let c = &self.controls;
        // The mode's default is the toy's (or the step's); the other controls' are those of the
        // mode.
        let base = UrlState::base_controls(self.tour);
        let (toy, mode) = (base.clone(), base.for_mode(c.mode));
        let mut out: Vec<String> = CONTROLS
            .iter()
            .filter_map(|ctl| {
                let default = if ctl.key == table::MODE { &toy } else { &mode };
                let text = ctl.text(c);
                (text != ctl.text(default)).then(|| format!("{}={}", ctl.key, encode(&text)))
            })
            .collect();
        if c.mode == Mode::Scores {
            match &self.data {
                DataRef::None | DataRef::Report => {}
                DataRef::Sample(name) => out.push(format!("sample={}", encode(name))),
                DataRef::Upload => out.push("data=upload".to_string()),
                DataRef::Hosted { src, labels, name } => {
                    out.push(format!("src={}", encode(src)));
                    out.extend(labels.iter().map(|l| format!("labels={}", encode(l))));
                    out.extend(name.iter().map(|n| format!("name={}", encode(n))));
                }
            }
        }
        if self.item != 0 {
            out.push(format!("item={}", self.item));
        }
        if let Some(n) = self.tour {
            out.push(format!("tour={n}"));
        }
        if self.tour_alone {
            out.push("embed=tour".to_string());
        } else if let Some(p) = self.embed {
            out.push(format!("embed={}", p.name()));
        }
        if self.large_text {
            out.push("text=large".to_string());
        }
        out.extend(self.view.to_pairs());
        out.join("&")
    }

    /// Reads a query string (with or without the leading `?`). Never fails: what cannot be
    /// used is left at its default and explained in the warnings.
    pub fn from_query(query: &str) -> Restored {
        let pairs = pairs(query.strip_prefix('?').unwrap_or(query));
        let mut r = Reader { warnings: Vec::new(), labels: None, name: None };
        // The tour's step and the mode first: they choose the defaults.
        let tour = pairs.iter().rev().find(|(k, _)| k == TOUR).and_then(|(_, v)| r.tour_step(v));
        let base = UrlState::base_controls(tour);
        let mode = match pairs.iter().rev().find(|(k, _)| k == table::MODE) {
            Some((_, v)) => r.choice::<Mode>(table::MODE, v).unwrap_or(base.mode),
            None => base.mode,
        };
        let mut state = UrlState::with_controls(base.for_mode(mode));
        state.tour = tour;
        let mut seen: Vec<&str> = Vec::new();
        let (mut gpu_switch, mut workers_switch, mut stream_switch) = (None, None, None);
        for (key, value) in &pairs {
            match key.as_str() {
                "gpu" => gpu_switch = Some(value.clone()),
                "workers" => workers_switch = Some(value.clone()),
                "stream" => stream_switch = Some(value.clone()),
                _ => {
                    if seen.contains(&key.as_str()) {
                        r.warn(format!("'{key}' is given twice: the last value is used"));
                    } else {
                        seen.push(key);
                    }
                    r.apply(&mut state, key, value);
                }
            }
        }
        r.check(&mut state);
        let sigma2_given = seen.contains(&"sigma2");
        Restored { state, warnings: r.warnings, gpu_switch, workers_switch, stream_switch, sigma2_given }
    }
}
