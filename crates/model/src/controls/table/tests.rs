use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const PAGE: &str = include_str!("../../../../../index.html");

/// The opening tag of the element with id `id` in index.html.
fn tag(id: &str) -> &'static str {
    let at = PAGE.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no element #{id} in index.html"));
    let start = PAGE[..at].rfind('<').unwrap();
    &PAGE[start..at + PAGE[at..].find('>').unwrap()]
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// A value of every setting other than its default (and within its range).
fn changed() -> Controls {
    use rvalue_core::conformal::ScoreOptions;
    use rvalue_core::toy::ToyParams;
    let toy = ToyParams::default();
    Controls {
        mode: Mode::Scores,
        toy: ToyParams {
            k: 3,
            m: 4,
            n_cal: 5,
            n_test: 6,
            repeats: 7,
            mu_p: 0.5,
            sigma2_p: 2.0,
            mu_q: -1.0,
            high_var_fraction: 0.25,
            seed: 9,
            ..toy
        },
        alpha: 0.2,
        beta: 0.3,
        sigma2: 7.0,
        score: ScoreOptions {
            kind: RvalueKind::Nonparametric,
            prior: Prior::PerItem,
            variance: VarianceKind::OfMean,
            algorithm: Algorithm::Grid,
            lambda: LambdaRule::Empirical,
            cp_draw: 2,
            ties: TieOrder::Index,
            coverage: Coverage::PerClass,
            scores_are: ScoresAre::Probabilities,
            baseline: rvalue_core::conformal::Baseline {
                raps_lambda: 0.5,
                raps_kreg: 2.0,
                saps_lambda: 0.3,
                randomized: false,
            },
        },
        never_empty: true,
        splits: 3,
        cal_fraction: 0.25,
        seed: 11,
        baselines: [true; 3],
        whole_curve: true,
        cut: crate::CutFrom::Beta,
    }
}

/// Each row reads and writes its own setting and no other: another value's text, set on
/// the defaults, moves exactly that setting there.
#[test]
fn each_row_sets_its_own_setting() {
    let (d, new) = (Controls::default(), changed());
    for (i, c) in CONTROLS.iter().enumerate() {
        assert!(CONTROLS[..i].iter().all(|o| o.key != c.key), "{} twice", c.key);
        assert!(std::ptr::eq(control(c.key).unwrap(), c));
        assert_ne!(c.text(&new), c.text(&d), "{}: the test's value is the default", c.key);
        let mut moved = d.clone();
        c.set(&mut moved, &c.text(&new)).unwrap();
        for o in CONTROLS.iter() {
            let want = if o.key == c.key { &new } else { &d };
            assert_eq!(o.text(&moved), o.text(want), "setting {} moved {}", c.key, o.key);
        }
        assert!(c.check(&new).is_ok(), "{}", c.key);
        let real = matches!(c.range, Range::Real { .. });
        assert_eq!(c.real(&new).is_some(), real, "{}", c.key);
    }
}

#[test]
fn a_value_outside_a_range_is_named_and_changes_nothing() {
    let mut c = Controls::default();
    let problem = |key: &str, text: &str, c: &mut Controls| control(key).unwrap().set(c, text).unwrap_err();
    assert_eq!(problem("alpha", "2", &mut c).to_string(), "is outside [0.005, 0.5]");
    assert_eq!(problem("cal-fraction", "1", &mut c).to_string(), "is outside (0, 1)");
    assert_eq!(problem("sigma2", "inf", &mut c).to_string(), "is outside [0, 5000]");
    assert_eq!(problem("k", "1", &mut c).to_string(), "must be at least 2");
    assert_eq!(problem("n-cal", "-3", &mut c).to_string(), "is not a valid number");
    assert_eq!(
        problem("kind", "magic", &mut c).to_string(),
        "is not one of parametric, nonparametric, pooled"
    );
    assert_eq!(problem("never-empty", "yes", &mut c).to_string(), "is neither 1 nor 0");
    assert_eq!(c, Controls::default());
    let e = Controls { alpha: 0.7, ..Controls::default() }.validate().unwrap_err();
    assert!(e.to_string().contains("α: '0.7' is outside [0.005, 0.5]"), "{e}");
}

#[test]
fn only_the_modes_controls_must_be_usable() {
    let bad_toy =
        Controls { toy: rvalue_core::toy::ToyParams { k: 1, ..Default::default() }, ..Controls::default() };
    assert!(bad_toy.validate().is_err());
    assert!(bad_toy.for_mode(Mode::Scores).validate().is_ok());
    let bad_split = Controls { splits: 0, ..Controls::default() };
    assert!(bad_split.validate().is_ok());
    assert!(bad_split.for_mode(Mode::Scores).validate().is_err());
}

/// The form in index.html is the table's: an element per control, of its kind, with its
/// lower bound, showing the default before the page's script runs.
#[test]
fn the_pages_form_is_the_table() {
    let d = Controls::default();
    for c in CONTROLS.iter() {
        let (key, text) = (c.key, c.text(&d));
        match c.input {
            Input::Slider { position, .. } => {
                let t = tag(key);
                assert_eq!(attr(t, "type"), Some("range"), "{key}");
                assert_eq!(
                    attr(t, "value"),
                    Some(position(text.parse().unwrap()).to_string().as_str()),
                    "{key}"
                );
            }
            Input::Number => {
                let t = tag(key);
                assert_eq!(attr(t, "type"), Some("number"), "{key}");
                assert_eq!(attr(t, "value"), Some(text.as_str()), "{key}");
                match c.range {
                    Range::AtLeast(min) => {
                        assert_eq!(attr(t, "min"), Some(min.to_string().as_str()), "{key}")
                    }
                    Range::Whole => assert_eq!(attr(t, "min"), Some("0"), "{key}"),
                    _ => {}
                }
            }
            Input::Select => {
                assert!(tag(key).starts_with("<select"), "{key}");
                let options = &PAGE[PAGE.find(tag(key)).unwrap()..];
                let options = &options[..options.find("</select>").unwrap()];
                let values: Vec<&str> =
                    options.split("<option value=\"").skip(1).map(|o| &o[..o.find('"').unwrap()]).collect();
                let (mut values, mut names) = (values, c.names());
                values.sort();
                names.sort();
                assert_eq!(values, names, "{key}: the page may order them its own way");
            }
            Input::Checkbox => assert_eq!(attr(tag(key), "type"), Some("checkbox"), "{key}"),
            Input::Radio => {
                for name in c.names() {
                    let t = tag(&format!("{key}-{name}"));
                    assert_eq!((attr(t, "type"), attr(t, "value")), (Some("radio"), Some(name)), "{key}");
                    assert_eq!(t.contains(" checked"), name == text, "{key}-{name}");
                }
            }
            Input::LinkOnly => assert!(!PAGE.contains(&format!("id=\"{key}\"")), "{key}"),
        }
        if matches!(c.input, Input::Slider { .. } | Input::Number | Input::Select) {
            assert!(PAGE.contains(&format!("<label for=\"{key}\"")), "{key} has no label");
        }
    }
}
