//! Reading a link's parameters into a [`UrlState`]: each control through its row of the table,
//! then what single parameters cannot check (the toy's parameters together, the data and the
//! embedded panel against the mode).

use super::escape::shown;
use super::{DataRef, UrlState};
use crate::controls::table::{self, Problem};
use crate::panel::Panel;
use crate::samples::SAMPLES;
use crate::{Controls, Mode};
use rvalue_core::options::{self, Choice};
use rvalue_core::toy::ToyParams;
use std::str::FromStr;

pub(super) struct Reader {
    pub(super) warnings: Vec<String>,
    /// `labels=`, kept until the end: it belongs to `src=`, which may come after it.
    pub(super) labels: Option<String>,
    /// `name=`, kept until the end for the same reason.
    pub(super) name: Option<String>,
}

impl Reader {
    pub(super) fn warn(&mut self, w: String) {
        self.warnings.push(w);
    }

    fn problem(&mut self, key: &str, v: &str, p: Problem) {
        self.warn(format!("'{key}={}' {p}: the default is used", shown(v)));
    }

    pub(super) fn choice<T: Choice + FromStr>(&mut self, key: &str, v: &str) -> Option<T> {
        let found = v.parse().ok();
        if found.is_none() {
            self.problem(key, v, Problem::NotOneOf(options::names::<T>()));
        }
        found
    }

    fn flag(&mut self, key: &str, v: &str, on: &str, off: &str) -> Option<bool> {
        match v {
            _ if v == on => Some(true),
            _ if v == off => Some(false),
            _ => {
                self.warn(format!("'{key}={}' is neither {on} nor {off}: the default is used", shown(v)));
                None
            }
        }
    }

    /// Sets what `key=value` says, if it can be used.
    pub(super) fn apply(&mut self, s: &mut UrlState, key: &str, v: &str) {
        if key == table::MODE || key == super::TOUR {
            return; // read first: they choose the defaults
        }
        if let Some(control) = table::control(key) {
            if let Err(p) = control.set(&mut s.controls, v) {
                self.problem(key, v, p);
            }
            return;
        }
        if let Some(warnings) = s.view.read(key, v) {
            self.warnings.extend(warnings);
            return;
        }
        match key {
            "sample" => self.sample(s, v),
            "src" => match super::hosted::address(v) {
                Ok(src) => s.data = DataRef::Hosted { src, labels: None, name: None },
                Err(why) => self.warn(format!("'src={}' {why}: no file is loaded", shown(v))),
            },
            "labels" => match super::hosted::address(v) {
                Ok(l) => self.labels = Some(l),
                Err(why) => self.warn(format!("'labels={}' {why}: ignored", shown(v))),
            },
            "name" => match super::hosted::display_name(v) {
                Ok(n) => self.name = Some(n),
                Err(why) => self.warn(format!("'name={}' {why}: the file's own name is shown", shown(v))),
            },
            "data" => match v {
                "upload" => s.data = DataRef::Upload,
                _ => self.warn(format!("'data={}' is not 'upload': ignored", shown(v))),
            },
            "item" => match v.parse() {
                Ok(i) => s.item = i,
                Err(_) => self.problem(key, v, Problem::NotNumber),
            },
            "embed" => self.embed(s, v),
            "text" => {
                if let Some(large) = self.flag(key, v, "large", "normal") {
                    s.large_text = large;
                }
            }
            _ => self.warn(format!("unknown parameter '{}' ignored", shown(key))),
        }
    }

    fn sample(&mut self, s: &mut UrlState, v: &str) {
        if SAMPLES.contains(&v) {
            s.data = DataRef::Sample(v.to_string());
        } else {
            self.warn(format!(
                "'sample={}' is not one of the bundled samples ({}): no file is loaded",
                shown(v),
                SAMPLES.join(", ")
            ));
        }
    }

    /// The tour's step `tour=N`, if there is one.
    pub(super) fn tour_step(&mut self, v: &str) -> Option<usize> {
        let Ok(n) = v.parse::<usize>() else {
            self.problem(super::TOUR, v, Problem::NotNumber);
            return None;
        };
        if crate::tour::step(n).is_none() {
            let steps = crate::tour::STEPS.len();
            self.warn(format!("'tour={n}' is not a step of the tour (1 to {steps}): no tour is shown"));
            return None;
        }
        Some(n)
    }

    fn embed(&mut self, s: &mut UrlState, v: &str) {
        if v == super::TOUR {
            s.tour_alone = true;
            return;
        }
        match v.parse::<Panel>() {
            Ok(p) => s.embed = Some(p),
            Err(_) => {
                let names = options::names::<Panel>();
                self.warn(format!(
                    "'embed={}' is not a panel ({}): the whole page is shown",
                    shown(v),
                    names.join(", ")
                ));
            }
        }
    }

    /// Checks what single parameters cannot: the toy parameters together, the data against the
    /// mode, the embedded panel against the mode.
    pub(super) fn check(&mut self, s: &mut UrlState) {
        match (self.labels.take(), &mut s.data) {
            (Some(l), DataRef::Hosted { labels, .. }) => *labels = Some(l),
            (Some(_), _) => self.warn(
                "'labels=' names the labels of a hosted file, and no 'src=' names one: ignored".to_string(),
            ),
            (None, _) => {}
        }
        match (self.name.take(), &mut s.data) {
            (Some(n), DataRef::Hosted { name, .. }) => *name = Some(n),
            (Some(_), _) => self.warn(
                "'name=' names what a hosted file is shown as, and no 'src=' names one: ignored".to_string(),
            ),
            (None, _) => {}
        }
        if s.tour_alone {
            s.embed = None;
            s.tour.get_or_insert(1);
        }
        let view_warnings = s.view.check(s.embed.is_some());
        self.warnings.extend(view_warnings);
        if let Err(e) = s.controls.toy_params().validate() {
            self.warn(format!("the toy parameters are not usable ({e}): the defaults are used"));
            s.controls.toy = ToyParams::default();
        }
        if s.controls.mode == Mode::Toy && s.data != DataRef::None {
            self.warn("a score file is named but the mode is the toy setting: no file is loaded".to_string());
            s.data = DataRef::None;
        }
        if let Some(p) = s.embed.filter(|p| !p.shown_in(s.controls.mode)) {
            let needs = match s.controls.mode {
                Mode::Toy => "a score file (mode=scores and a sample, or a file loaded here)",
                Mode::Scores => "the toy setting (no mode=scores)",
            };
            self.warn(format!("the {} panel is only shown with {needs}", p.name()));
        }
        // Every field was checked on its own; this is the page's own test, kept as a guard.
        if let Err(e) = s.controls.validate() {
            self.warn(format!("the settings are not usable ({e}): the defaults are used"));
            s.controls = Controls::default().for_mode(s.controls.mode);
        }
    }
}
