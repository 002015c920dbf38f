use std::collections::HashMap;

use super::*;
use crate::edits::Edit;
use crate::scales::{beta_position, sigma2_position};
use rvalue_core::conformal::RvalueKind;
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// What an input holds.
#[derive(Debug, Clone, PartialEq)]
enum Write {
    Value(String),
    Checked(bool),
}

/// The inputs as the page holds them, by id.
type Form = HashMap<String, Write>;

/// The inputs after the page applies [`edits`].
fn shown(c: &Controls) -> Form {
    let mut form = Form::new();
    for e in edits(c).0 {
        let _ = match e {
            Edit::Value(id, v) => form.insert(id.into_owned(), Write::Value(v)),
            Edit::Checked(id, on) => form.insert(id.into_owned(), Write::Checked(on)),
            _ => None,
        };
    }
    form
}

/// Each slider's readout, checked to be its spoken value too.
fn readouts_of(c: &Controls) -> HashMap<&'static str, String> {
    let e = readouts(c);
    let sliders = CONTROLS.iter().filter(|c| matches!(c.input, Input::Slider { .. }));
    let texts = sliders.map(|s| (s.key, e.text_of(&format!("{}-value", s.key)).unwrap().to_string()));
    let out: HashMap<_, _> = texts.collect();
    assert!(out.iter().all(|(key, text)| e.attr_of(key, "aria-valuetext") == Some(text)));
    assert_eq!(edits(c).text_of("beta-value"), Some(out["beta"].as_str()), "the edits end with them");
    out
}

/// Reads `form` as the page reads its inputs.
fn read_back(c: &Controls, form: &Form) -> Result<Controls> {
    read(c, |control| {
        Ok(match (control.input, form.get(control.key)) {
            (Input::Slider { .. }, Some(Write::Value(v))) => Some(Read::Position(v.parse().unwrap())),
            (Input::Number | Input::Select, Some(Write::Value(v))) => Some(Read::Text(v.clone())),
            (Input::Checkbox, Some(Write::Checked(on))) => Some(Read::Checked(*on)),
            _ => None,
        })
    })
}

fn small() -> Controls {
    Controls {
        toy: ToyParams { k: 5, m: 8, n_cal: 60, n_test: 40, repeats: 3, ..ToyParams::default() },
        ..Controls::default()
    }
}

#[test]
fn the_form_reads_back_the_controls_it_shows() {
    let mut c = Controls { alpha: 0.05, beta: 0.13, sigma2: 10.0, never_empty: true, ..small() };
    c.score.kind = RvalueKind::Nonparametric;
    let form = shown(&c);
    assert_eq!(form.get("mode-toy"), Some(&Write::Checked(true)));
    assert_eq!(form.get("mode-scores"), Some(&Write::Checked(false)));
    assert_eq!(form.get("kind"), Some(&Write::Value("nonparametric".into())));
    assert_eq!(form.get("never-empty"), Some(&Write::Checked(true)));
    // β = 0.13 lies between two positions: left where it is, it stays.
    assert_eq!(read_back(&c, &form).unwrap(), c);
    assert!(!form.contains_key("algorithm") && !form.contains_key("mode"), "link-only, radio");
}

#[test]
fn sliders_map_positions_to_values_and_back() {
    let c = Controls { alpha: 0.05, beta: 0.2, sigma2: 10.0, ..small() };
    let shown_text = readouts_of(&c);
    assert_eq!((shown_text["alpha"].as_str(), shown_text["beta"].as_str()), ("0.05", "0.2"));
    assert_eq!(shown_text["sigma2"], "10");
    let mut form = shown(&c);
    assert_eq!(form.get("sigma2"), Some(&Write::Value(sigma2_position(10.0).to_string())));
    form.insert("sigma2".into(), Write::Value("0".into()));
    form.insert("beta".into(), Write::Value("0".into()));
    let new = read_back(&c, &form).unwrap();
    assert_eq!((new.sigma2, new.beta), (0.0, 0.001));
    assert_eq!(readouts_of(&new)["beta"], short(0.001));
    assert_eq!(beta_position(new.beta), 0);
}

#[test]
fn a_bad_toy_parameter_is_named_and_changes_nothing() {
    let c = small();
    let mut form = shown(&c);
    form.insert("n-cal".into(), Write::Value(" -3 ".into()));
    let e = change(&c, read_back(&c, &form), false).unwrap_err();
    assert!(e.contains("n_cal") && e.contains("'-3'") && e.ends_with(PREVIOUS_SETTINGS), "{e}");
    form.insert("n-cal".into(), Write::Value("61".into()));
    let ch = change(&c, read_back(&c, &form), false).unwrap();
    assert_eq!((ch.controls.toy.n_cal, ch.reanalyse), (61, true));
}

#[test]
fn score_options_recompute_and_alpha_redraws_only() {
    let c = small();
    let mut form = shown(&c);
    form.insert("kind".into(), Write::Value("nonparametric".into()));
    let ch = change(&c, read_back(&c, &form), true).unwrap();
    assert!(ch.reanalyse && ch.controls.score.kind == RvalueKind::Nonparametric);
    let alpha = Controls { alpha: 0.2, ..c.clone() };
    let ch = change(&c, Ok(alpha), true).unwrap();
    assert!(!ch.reanalyse && ch.dirty.alpha && !ch.sigma2_from_data);
    let mut variance = Controls { mode: Mode::Scores, ..c.clone() };
    let before = variance.clone();
    variance.score.variance = rvalue_core::tensor::VarianceKind::OfMean;
    assert!(change(&before, Ok(variance.clone()), true).unwrap().sigma2_from_data);
    assert!(!change(&before, Ok(variance), false).unwrap().sigma2_from_data, "no file loaded");
}

#[test]
fn a_streamed_file_keeps_score_mode_off_pooled_r_values() {
    let mut pooled = Controls { mode: Mode::Scores, ..small() };
    pooled.score.kind = RvalueKind::Pooled;
    let (c, again) = for_mode(&pooled, Mode::Scores, true, true);
    assert_eq!((c.mode, c.score.kind, again), (Mode::Scores, RvalueKind::Nonparametric, true));
    let (c, again) = for_mode(&pooled, Mode::Scores, true, false);
    assert_eq!((c.score.kind, again), (RvalueKind::Pooled, true), "a file held whole");
    let (c, again) = for_mode(&small(), Mode::Scores, false, false);
    assert_eq!((c.score.kind, again), (Controls::score_defaults(Mode::Scores).kind, false), "no file");
    let (c, again) = for_mode(&pooled, Mode::Toy, true, true);
    assert_eq!((c.mode, again), (Mode::Toy, false));
}

#[test]
fn page_keys_take_a_slider_by_its_big_steps() {
    let Some(Input::Slider { page, position, .. }) =
        crate::controls::table::control("sigma2").map(|c| c.input)
    else {
        panic!("σ² is a slider")
    };
    let at_10 = position(10.0).to_string();
    assert_eq!(page_key("PageUp", false, &at_10, page), Some(position(100.0)));
    assert_eq!(page_key("PageDown", false, &at_10, page), Some(position(1.0)));
    assert_eq!(page_key("PageUp", true, &at_10, page), None, "a modifier held");
    assert_eq!(page_key("ArrowUp", false, &at_10, page), None, "the browser's step");
    assert_eq!(page_key("PageUp", false, "x", page), None, "no position");
}
