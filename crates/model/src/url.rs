//! The page's state as a URL query string, both ways, so that a link opens exactly the view it
//! was copied from and an iframe can ask for one panel (`?embed=threshold`).
//!
//! Only settings that differ from their defaults are written, so links stay short. Numbers are
//! written with Rust's shortest round-trip formatting, so every value (slider positions or not)
//! reads back as the same `f64`. Reading never fails: a parameter that is unknown, malformed or
//! out of range is replaced by its default and reported in [`Restored::warnings`], for the page
//! to show. Uploaded files never enter a link (they stay in the page): the link records only
//! that one was loaded, and the page asks for the same file.

use std::fmt::Display;
use std::str::FromStr;

use super::{Controls, Mode, ALPHA_RANGE, BETA_RANGE, SIGMA2_RANGE};
use rvalue_core::options::{self, Choice};
use rvalue_core::toy::ToyParams;

/// The bundled samples a link may name: files under the app's `assets/`, and `toy` and `cifar`,
/// made in the page (the toy's first repeat, a CIFAR-100-shaped tensor). A closed list, so a link cannot make the page
/// fetch an arbitrary path.
pub const SAMPLES: [&str; 4] = ["digits_wbb.npz", "small_long.csv", SYNTHETIC_TOY, SYNTHETIC_CIFAR];
/// The CIFAR-100-shaped sample, generated in the page rather than fetched.
pub const SYNTHETIC_CIFAR: &str = "cifar";
/// The toy's first repeat at its defaults, simulated in the page.
pub const SYNTHETIC_TOY: &str = "toy";

rvalue_core::options! {
    /// One panel of the page, as named in `?embed=` (in the page's order).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Panel("panel") {
        Scores = "scores",
        Threshold = "threshold",
        Coverage = "coverage",
        Size = "size",
        Theorem3 = "theorem3",
        Summary = "summary",
        Inspector = "inspector",
        Data = "data",
    }
}

/// The sliders a panel's view depends on (what an embedded panel shows with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sliders {
    pub alpha: bool,
    pub beta: bool,
    pub sigma2: bool,
}

impl Panel {
    /// The panel's number on the page (1 to 8, the order of [`Panel::ALL`]).
    pub fn number(self) -> usize {
        Panel::ALL.iter().position(|&p| p == self).map_or(0, |i| i + 1)
    }

    /// The id of the panel's element in index.html.
    pub fn element_id(self) -> String {
        format!("panel-{}", self.name())
    }

    pub fn sliders(self) -> Sliders {
        let (alpha, beta, sigma2) = match self {
            Panel::Scores => (false, false, true),
            Panel::Threshold => (false, true, true),
            Panel::Coverage | Panel::Size | Panel::Summary | Panel::Inspector => (true, false, false),
            Panel::Theorem3 => (true, true, true),
            Panel::Data => (false, false, false),
        };
        Sliders { alpha, beta, sigma2 }
    }

    /// Whether the panel shows anything from an analysis in `mode`. Panels 1 and 5 of the toy
    /// are closed forms: an iframe showing only them need not simulate anything.
    pub fn needs_analysis(self, mode: Mode) -> bool {
        mode == Mode::Scores || !matches!(self, Panel::Scores | Panel::Theorem3)
    }

    /// Whether the page shows the panel in `mode` (panel 1 is the toy's, panel 8 a file's).
    pub fn shown_in(self, mode: Mode) -> bool {
        match self {
            Panel::Scores => mode == Mode::Toy,
            Panel::Data => mode == Mode::Scores,
            _ => true,
        }
    }
}

/// Where a score file came from. Only bundled samples can be reloaded from a link.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DataRef {
    #[default]
    None,
    /// One of [`SAMPLES`].
    Sample(String),
    /// A file from the user's machine: never in a link, only the fact that there was one.
    Upload,
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
}

/// A query string read back, with what was wrong in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    pub state: UrlState,
    /// One sentence per parameter that was ignored or replaced by its default.
    pub warnings: Vec<String>,
    /// The page's GPU test switch `gpu=off|bad-shader|lost` (README), read by `ui::device`: not
    /// part of a view, so never written back into a link.
    pub gpu_switch: Option<String>,
    /// The page's worker count switch `workers=N` (README), read by `ui::workers`; like
    /// `gpu`, never written back.
    pub workers_switch: Option<String>,
}

/// Collects `key=value` pairs for the settings that differ from the defaults.
struct Writer(Vec<String>);

impl Writer {
    fn put<T: PartialEq + Display>(&mut self, key: &str, value: T, default: T) {
        if value != default {
            self.0.push(format!("{key}={value}"));
        }
    }
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
    /// a tour: from the step's state); empty for the default view.
    pub fn to_query(&self) -> String {
        let c = &self.controls;
        let base = UrlState::base_controls(self.tour);
        let d = base.for_mode(c.mode);
        let (t, dt) = (&c.toy, &d.toy);
        let mut w = Writer(Vec::new());
        w.put("mode", c.mode, base.mode);
        w.put("alpha", c.alpha, d.alpha);
        w.put("beta", c.beta, d.beta);
        w.put("sigma2", c.sigma2, d.sigma2);
        w.put("kind", c.score.kind, d.score.kind);
        w.put("prior", c.score.prior, d.score.prior);
        w.put("variance", c.score.variance, d.score.variance);
        w.put("algorithm", c.score.algorithm, d.score.algorithm);
        w.put("lambda", c.score.lambda, d.score.lambda);
        w.put("cp-draw", c.score.cp_draw, d.score.cp_draw);
        w.put("ties", c.score.ties, d.score.ties);
        w.put("never-empty", u8::from(c.never_empty), u8::from(d.never_empty));
        w.put("k", t.k, dt.k);
        w.put("m", t.m, dt.m);
        w.put("n-cal", t.n_cal, dt.n_cal);
        w.put("n-test", t.n_test, dt.n_test);
        w.put("repeats", t.repeats, dt.repeats);
        w.put("mu-p", t.mu_p, dt.mu_p);
        w.put("sigma2-p", t.sigma2_p, dt.sigma2_p);
        w.put("mu-q", t.mu_q, dt.mu_q);
        w.put("high-var", t.high_var_fraction, dt.high_var_fraction);
        w.put("toy-seed", t.seed, dt.seed);
        w.put("splits", c.splits, d.splits);
        w.put("cal-fraction", c.cal_fraction, d.cal_fraction);
        w.put("split-seed", c.seed, d.seed);
        if c.mode == Mode::Scores {
            match &self.data {
                DataRef::None => {}
                DataRef::Sample(name) => w.0.push(format!("sample={}", encode(name))),
                DataRef::Upload => w.0.push("data=upload".to_string()),
            }
        }
        w.put("item", self.item, 0);
        if let Some(n) = self.tour {
            w.0.push(format!("tour={n}"));
        }
        if self.tour_alone {
            w.0.push("embed=tour".to_string());
        } else if let Some(p) = self.embed {
            w.0.push(format!("embed={}", p.name()));
        }
        w.put("text", if self.large_text { "large" } else { "normal" }, "normal");
        w.0.join("&")
    }

    /// Reads a query string (with or without the leading `?`). Never fails: what cannot be
    /// used is left at its default and explained in the warnings.
    pub fn from_query(query: &str) -> Restored {
        let pairs = pairs(query.strip_prefix('?').unwrap_or(query));
        let mut r = Reader { warnings: Vec::new() };
        // The tour's step and the mode first: they choose the defaults.
        let tour = pairs.iter().rev().find(|(k, _)| k == "tour").and_then(|(_, v)| r.tour_step(v));
        let base = UrlState::base_controls(tour);
        let mode = match pairs.iter().rev().find(|(k, _)| k == "mode") {
            Some((_, v)) => r.choice::<Mode>("mode", v).unwrap_or(base.mode),
            None => base.mode,
        };
        let mut state = UrlState::with_controls(base.for_mode(mode));
        state.tour = tour;
        let mut seen: Vec<&str> = Vec::new();
        let (mut gpu_switch, mut workers_switch) = (None, None);
        for (key, value) in &pairs {
            if key == "gpu" {
                gpu_switch = Some(value.clone());
                continue;
            }
            if key == "workers" {
                workers_switch = Some(value.clone());
                continue;
            }
            if seen.contains(&key.as_str()) {
                r.warn(format!("'{key}' is given twice: the last value is used"));
            } else {
                seen.push(key);
            }
            r.apply(&mut state, key, value);
        }
        r.check(&mut state);
        Restored { state, warnings: r.warnings, gpu_switch, workers_switch }
    }
}

/// The query's `key=value` pairs, percent-decoded (`+` is a space, as in forms).
fn pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-decoding; a malformed escape is kept as typed (it then fails to parse as a value).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|b| (*b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes all but the characters that need no escape in a query value.
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Long user text is cut in messages, so a crafted link cannot flood the page.
fn shown(v: &str) -> String {
    const MAX: usize = 40;
    if v.chars().count() > MAX {
        format!("{}…", v.chars().take(MAX).collect::<String>())
    } else {
        v.to_string()
    }
}

struct Reader {
    warnings: Vec<String>,
}

impl Reader {
    fn warn(&mut self, w: String) {
        self.warnings.push(w);
    }

    fn number<T: FromStr>(&mut self, key: &str, v: &str) -> Option<T> {
        let parsed = v.parse().ok();
        if parsed.is_none() {
            self.warn(format!("'{key}={}' is not a valid number: the default is used", shown(v)));
        }
        parsed
    }

    /// A finite number in `[lo, hi]` (or the open interval when `open`).
    fn real(&mut self, key: &str, v: &str, (lo, hi): (f64, f64), open: bool) -> Option<f64> {
        let x: f64 = self.number(key, v)?;
        let inside = if open { x > lo && x < hi } else { x >= lo && x <= hi };
        if x.is_finite() && inside {
            Some(x)
        } else {
            let (l, r) = if open { ('(', ')') } else { ('[', ']') };
            self.warn(format!("'{key}={}' is outside {l}{lo}, {hi}{r}: the default is used", shown(v)));
            None
        }
    }

    fn count(&mut self, key: &str, v: &str, min: usize) -> Option<usize> {
        let n: usize = self.number(key, v)?;
        if n < min {
            self.warn(format!("'{key}={n}' must be at least {min}: the default is used"));
            return None;
        }
        Some(n)
    }

    fn choice<T: Choice + FromStr>(&mut self, key: &str, v: &str) -> Option<T> {
        let found = v.parse().ok();
        if found.is_none() {
            self.warn(format!(
                "'{key}={}' is not one of {}: the default is used",
                shown(v),
                options::names::<T>().join(", ")
            ));
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

    /// The tour's step `tour=N`, if there is one.
    fn tour_step(&mut self, v: &str) -> Option<usize> {
        let n: usize = self.number("tour", v)?;
        let steps = crate::tour::STEPS.len();
        if crate::tour::step(n).is_none() {
            self.warn(format!("'tour={n}' is not a step of the tour (1 to {steps}): no tour is shown"));
            return None;
        }
        Some(n)
    }

    /// Sets what `key=value` says, if it can be used.
    fn apply(&mut self, s: &mut UrlState, key: &str, v: &str) {
        let c = &mut s.controls;
        let any = (f64::MIN, f64::MAX);
        macro_rules! set {
            ($field:expr, $value:expr) => {
                if let Some(x) = $value {
                    $field = x;
                }
            };
        }
        match key {
            "mode" | "tour" => {} // read first: they choose the defaults
            "alpha" => set!(c.alpha, self.real(key, v, ALPHA_RANGE, false)),
            "beta" => set!(c.beta, self.real(key, v, BETA_RANGE, false)),
            "sigma2" => set!(c.sigma2, self.real(key, v, SIGMA2_RANGE, false)),
            "kind" => set!(c.score.kind, self.choice(key, v)),
            "prior" => set!(c.score.prior, self.choice(key, v)),
            "variance" => set!(c.score.variance, self.choice(key, v)),
            "algorithm" => set!(c.score.algorithm, self.choice(key, v)),
            "lambda" => set!(c.score.lambda, self.choice(key, v)),
            "cp-draw" => set!(c.score.cp_draw, self.number(key, v)),
            "ties" => set!(c.score.ties, self.choice(key, v)),
            "never-empty" => set!(c.never_empty, self.flag(key, v, "1", "0")),
            "k" => set!(c.toy.k, self.count(key, v, 2)),
            "m" => set!(c.toy.m, self.count(key, v, 1)),
            "n-cal" => set!(c.toy.n_cal, self.count(key, v, 1)),
            "n-test" => set!(c.toy.n_test, self.count(key, v, 1)),
            "repeats" => set!(c.toy.repeats, self.count(key, v, 1)),
            "mu-p" => set!(c.toy.mu_p, self.real(key, v, any, false)),
            "sigma2-p" => set!(c.toy.sigma2_p, self.real(key, v, (0.0, f64::MAX), false)),
            "mu-q" => set!(c.toy.mu_q, self.real(key, v, any, false)),
            "high-var" => set!(c.toy.high_var_fraction, self.real(key, v, (0.0, 1.0), false)),
            "toy-seed" => set!(c.toy.seed, self.number(key, v)),
            "splits" => set!(c.splits, self.count(key, v, 1)),
            "cal-fraction" => set!(c.cal_fraction, self.real(key, v, (0.0, 1.0), true)),
            "split-seed" => set!(c.seed, self.number(key, v)),
            "sample" => {
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
            "data" => match v {
                "upload" => s.data = DataRef::Upload,
                _ => self.warn(format!("'data={}' is not 'upload': ignored", shown(v))),
            },
            "item" => set!(s.item, self.number(key, v)),
            "embed" if v == "tour" => s.tour_alone = true,
            "embed" => match v.parse::<Panel>() {
                Ok(p) => s.embed = Some(p),
                Err(_) => {
                    let names = options::names::<Panel>();
                    self.warn(format!(
                        "'embed={}' is not a panel ({}): the whole page is shown",
                        shown(v),
                        names.join(", ")
                    ));
                }
            },
            "text" => set!(s.large_text, self.flag(key, v, "large", "normal")),
            _ => self.warn(format!("unknown parameter '{}' ignored", shown(key))),
        }
    }

    /// Checks what single parameters cannot: the toy parameters together, the data against the
    /// mode, the embedded panel against the mode.
    fn check(&mut self, s: &mut UrlState) {
        if s.tour_alone {
            s.embed = None;
            s.tour.get_or_insert(1);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn read(q: &str) -> Restored {
        UrlState::from_query(q)
    }

    #[test]
    fn the_default_view_is_the_empty_query() {
        assert_eq!(UrlState::default().to_query(), "");
        let r = read("");
        assert_eq!(r.state, UrlState::default());
        assert!(r.warnings.is_empty());
        // Score mode's own default kind (pooled) is not written.
        let scores = UrlState::with_controls(Controls::default().for_mode(Mode::Scores));
        assert_eq!(scores.to_query(), "mode=scores");
        assert_eq!(read("?mode=scores").state, scores);
    }

    #[test]
    fn only_changed_settings_are_written() {
        let mut s = UrlState::default();
        s.controls.alpha = 0.05;
        s.controls.toy.repeats = 10;
        s.embed = Some(Panel::Coverage);
        assert_eq!(s.to_query(), "alpha=0.05&repeats=10&embed=coverage");
        let r = read(&s.to_query());
        assert_eq!((r.state, r.warnings.len()), (s, 0));
    }

    #[test]
    fn values_off_the_slider_positions_survive() {
        let mut s = UrlState::default();
        s.controls.beta = 0.1 + 1e-12;
        s.controls.sigma2 = 1234.5678901234;
        s.controls.toy.mu_p = -1.0 / 3.0;
        assert_eq!(read(&s.to_query()).state, s);
    }

    #[test]
    fn a_sample_is_kept_and_an_upload_only_noted() {
        let mut s = UrlState::with_controls(Controls::default().for_mode(Mode::Scores));
        s.data = DataRef::Sample("digits_wbb.npz".into());
        s.item = 7;
        assert_eq!(s.to_query(), "mode=scores&sample=digits_wbb.npz&item=7");
        assert_eq!(read(&s.to_query()).state, s);
        s.data = DataRef::Upload;
        assert_eq!(s.to_query(), "mode=scores&data=upload&item=7");
        // In toy mode no file is on show, so none is written.
        s.controls.mode = Mode::Toy;
        assert!(!s.to_query().contains("data"));
    }

    #[test]
    fn bad_parameters_become_defaults_with_warnings() {
        let r = read(
            "alpha=2&beta=abc&kind=magic&k=1&sample=../../secret&embed=everything&foo=1&never-empty=yes&gpu=off&workers=0",
        );
        assert_eq!(r.state, UrlState::default());
        assert_eq!(r.warnings.len(), 8, "{:?}", r.warnings);
        assert!(r.warnings.iter().any(|w| w.contains("unknown parameter 'foo'")));
        assert!(!r.warnings.iter().any(|w| w.contains("gpu")), "the GPU test switch is known");
        assert_eq!(r.gpu_switch.as_deref(), Some("off"));
        assert_eq!(r.workers_switch.as_deref(), Some("0"));
        assert!(!r.state.to_query().contains("workers"));
        assert!(!r.state.to_query().contains("gpu"), "the switch is not part of a view");
        assert!(r.warnings.iter().any(|w| w.contains("alpha=2") && w.contains("[0.005, 0.5]")));
        // Non-finite numbers are refused too.
        for q in ["alpha=NaN", "sigma2=inf", "mu-p=-inf", "cal-fraction=1", "splits=0", "item=-1"] {
            let r = read(q);
            assert_eq!((r.state, r.warnings.len()), (UrlState::default(), 1), "{q}");
        }
    }

    #[test]
    fn toy_parameters_are_checked_together() {
        // Each is fine alone; together they exceed the core's tensor limit.
        let r = read("k=1000&m=1000&n-cal=1000&repeats=3");
        assert_eq!(r.state.controls.toy, ToyParams::default());
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    }

    #[test]
    fn mismatches_with_the_mode_are_reported() {
        let r = read("sample=digits_wbb.npz");
        assert_eq!((r.state.data, r.warnings.len()), (DataRef::None, 1));
        let r = read("embed=data");
        assert_eq!((r.state.embed, r.warnings.len()), (Some(Panel::Data), 1));
        assert!(read("mode=scores&embed=data").warnings.is_empty());
    }

    #[test]
    fn escapes_and_repeats() {
        let r = read("?alpha=0%2E05&alpha=0.2&&text=large");
        assert_eq!(r.state.controls.alpha, 0.2);
        assert!(r.state.large_text);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert_eq!(decode("a+b%20c%zz%4"), "a b c%zz%4");
        assert_eq!(encode("a b/é"), "a%20b%2F%C3%A9");
    }

    #[test]
    fn every_panel_has_a_name_and_an_element() {
        for p in Panel::ALL {
            assert_eq!(p.name().parse::<Panel>(), Ok(p));
            assert_eq!(p.element_id(), format!("panel-{}", p.name()));
        }
        assert!(!Panel::Theorem3.needs_analysis(Mode::Toy) && Panel::Theorem3.needs_analysis(Mode::Scores));
        assert_eq!(Panel::Data.sliders(), Sliders::default());
    }

    /// Each panel's number is the one its heading in index.html shows ("5. A false …").
    #[test]
    fn panel_numbers_are_the_pages() {
        let page = include_str!("../../../index.html");
        for p in Panel::ALL {
            let at = page.find(&format!("id=\"{}\"", p.element_id())).expect("the panel is in the page");
            let heading = &page[at..][page[at..].find("<h2>").expect("a heading") + 4..];
            assert!(heading.starts_with(&format!("{}. ", p.number())), "{}: {}", p.name(), &heading[..20]);
        }
    }

    #[test]
    fn long_text_is_cut_in_warnings() {
        let r = read(&format!("{}=1", "x".repeat(10_000)));
        assert!(r.warnings[0].len() < 100);
    }
}

/// Round trips of random states and reading random strings, natively (proptest).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use rvalue_core::conformal::{Prior, RvalueKind, ScoreOptions};
    use rvalue_core::rvalue::{Algorithm, LambdaRule, TieOrder};
    use rvalue_core::tensor::VarianceKind;

    /// Any value of the option `T`.
    fn one_of<T: Choice + std::fmt::Debug>() -> impl Strategy<Value = T> {
        let all = T::all();
        (0..all.len()).prop_map(move |i| all[i])
    }

    fn score() -> impl Strategy<Value = ScoreOptions> {
        (
            one_of::<RvalueKind>(),
            one_of::<VarianceKind>(),
            one_of::<Prior>(),
            one_of::<Algorithm>(),
            one_of::<LambdaRule>(),
            0usize..5000,
            one_of::<TieOrder>(),
        )
            .prop_map(|(kind, variance, prior, algorithm, lambda, cp_draw, ties)| ScoreOptions {
                kind,
                variance,
                prior,
                algorithm,
                lambda,
                cp_draw,
                ties,
            })
    }

    fn toy() -> impl Strategy<Value = ToyParams> {
        (
            (2usize..40, 1usize..60, 1usize..900, 1usize..900, 1usize..200),
            (-1e6..1e6f64, 0.0..1e4f64, -1e6..1e6f64, 0.0..=1.0f64, any::<u64>()),
        )
            .prop_map(
                |((k, m, n_cal, n_test, repeats), (mu_p, sigma2_p, mu_q, high_var_fraction, seed))| {
                    ToyParams {
                        k,
                        m,
                        n_cal,
                        n_test,
                        repeats,
                        mu_p,
                        sigma2_p,
                        mu_q,
                        high_var_fraction,
                        seed,
                        ..ToyParams::default()
                    }
                },
            )
    }

    fn controls() -> impl Strategy<Value = Controls> {
        (
            one_of::<Mode>(),
            toy(),
            (ALPHA_RANGE.0..=ALPHA_RANGE.1, BETA_RANGE.0..=BETA_RANGE.1, SIGMA2_RANGE.0..=SIGMA2_RANGE.1),
            score(),
            any::<bool>(),
            (1usize..10_000, 1e-9..1.0f64, any::<u64>()),
        )
            .prop_map(
                |(mode, toy, (alpha, beta, sigma2), score, never_empty, (splits, cal_fraction, seed))| {
                    Controls {
                        mode,
                        toy,
                        alpha,
                        beta,
                        sigma2,
                        score,
                        never_empty,
                        splits,
                        cal_fraction,
                        seed,
                    }
                },
            )
    }

    fn state() -> impl Strategy<Value = UrlState> {
        (
            controls(),
            any::<usize>(),
            0usize..=SAMPLES.len() + 1,
            proptest::option::of(one_of::<Panel>()),
            any::<bool>(),
        )
            .prop_map(|(controls, item, data, embed, large_text)| {
                let mode = controls.mode;
                let data = match data {
                    _ if mode == Mode::Toy => DataRef::None,
                    0 => DataRef::None,
                    1 => DataRef::Upload,
                    i => DataRef::Sample(SAMPLES[i - 2].to_string()),
                };
                UrlState {
                    controls,
                    item,
                    data,
                    embed: embed.filter(|p| p.shown_in(mode)),
                    large_text,
                    ..UrlState::default()
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn every_control_survives_a_round_trip(s in state()) {
            let q = s.to_query();
            let r = UrlState::from_query(&q);
            prop_assert!(r.warnings.is_empty(), "{q}: {:?}", r.warnings);
            prop_assert_eq!(r.state, s);
        }

        #[test]
        fn any_query_reads_to_usable_settings(q in "[a-z0-9=&%.+-]{0,80}") {
            let r = UrlState::from_query(&q);
            prop_assert!(r.state.controls.validate().is_ok());
        }

        #[test]
        fn any_known_key_with_any_value_is_safe(k in 0usize..29, v in "\\PC{0,12}") {
            let keys = ["mode", "alpha", "beta", "sigma2", "kind", "prior", "variance", "algorithm", "lambda",
                "cp-draw", "ties", "never-empty", "k", "m", "n-cal", "n-test", "repeats", "mu-p", "sigma2-p", "mu-q",
                "high-var", "toy-seed", "splits", "cal-fraction", "split-seed", "sample", "data", "item", "embed"];
            let r = UrlState::from_query(&format!("{}={}", keys[k], encode(&v)));
            prop_assert!(r.state.controls.validate().is_ok());
            prop_assert!(r.state.controls.toy_params().validate().is_ok());
        }
    }
}
