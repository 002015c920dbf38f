//! Links read back: round trips, warnings and escapes.

use crate::url::escape::{decode, encode};
use crate::url::*;
use rvalue_core::toy::ToyParams;
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
fn the_baselines_on_are_kept() {
    let mut s = UrlState::default();
    s.controls.baselines = [true, false, true];
    s.controls.score.baseline.raps_lambda = 0.2;
    assert_eq!(s.to_query(), "aps=1&saps=1&raps-lambda=0.2");
    let r = read(&s.to_query());
    assert_eq!((&r.state, r.warnings.len()), (&s, 0));
    assert_eq!(r.state.controls.methods().len(), 5);
    let r = read("raps=yes&saps-lambda=-1");
    assert_eq!((r.state, r.warnings.len()), (UrlState::default(), 2));
    let mut s = UrlState::with_controls(Controls::default().for_mode(Mode::Scores));
    s.controls.score.scores_are = rvalue_core::probability::ScoresAre::Logits;
    assert_eq!(s.to_query(), "mode=scores&scores-are=logits");
    assert_eq!(read(&s.to_query()).state, s);
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
    let r = read("stream=0");
    assert_eq!((r.stream_switch.as_deref(), r.warnings.len()), (Some("0"), 0));
    assert!(!r.state.to_query().contains("stream"));
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
fn long_text_is_cut_in_warnings() {
    let r = read(&format!("{}=1", "x".repeat(10_000)));
    assert!(r.warnings[0].len() < 100);
}

/// Round trips of random states and reading random strings, natively (proptest).
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use crate::controls::table::CONTROLS;
    use crate::samples::SAMPLES;
    use crate::url::escape::encode;
    use crate::url::*;
    use crate::{CutFrom, ALPHA_RANGE, BETA_RANGE, SIGMA2_RANGE};
    use proptest::prelude::*;
    use rvalue_core::conformal::{Baseline, Prior, RvalueKind, ScoreOptions};
    use rvalue_core::options::Choice;
    use rvalue_core::probability::ScoresAre;
    use rvalue_core::rvalue::{Algorithm, LambdaRule, TieOrder};
    use rvalue_core::tensor::VarianceKind;
    use rvalue_core::toy::ToyParams;

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
                coverage: rvalue_core::conformal::Coverage::Marginal,
                ..ScoreOptions::default()
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
            (any::<bool>(), any::<bool>(), any::<bool>()),
            (1usize..10_000, 1e-9..1.0f64, any::<u64>()),
            (any::<[bool; 3]>(), one_of::<ScoresAre>(), (0.0..10.0f64, 0.0..50.0f64, 0.0..10.0f64)),
        )
            .prop_map(
                |(
                    mode,
                    toy,
                    (alpha, beta, sigma2),
                    score,
                    (never_empty, whole_curve, beta_cut),
                    (splits, cal_fraction, seed),
                    (baselines, scores_are, (raps_lambda, raps_kreg, saps_lambda)),
                )| {
                    let baseline = Baseline { raps_lambda, raps_kreg, saps_lambda, randomized: true };
                    let score = ScoreOptions { scores_are, baseline, ..score };
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
                        baselines,
                        whole_curve,
                        cut: if beta_cut { CutFrom::Beta } else { CutFrom::Calibrated },
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
        fn any_known_key_with_any_value_is_safe(k in 0usize..CONTROLS.len() + 5, v in "\\PC{0,12}") {
            let keys: Vec<&str> = CONTROLS.iter().map(|c| c.key)
                .chain(["sample", "data", "item", "embed", "text"]).collect();
            let r = UrlState::from_query(&format!("{}={}", keys[k], encode(&v)));
            prop_assert!(r.state.controls.validate().is_ok());
            prop_assert!(r.state.controls.toy_params().validate().is_ok());
        }
    }
}

#[test]
fn a_links_sigma2_is_noted_and_the_toy_keeps_its_own() {
    assert!(read("mode=scores&sample=digits_wbb.npz&sigma2=30").sigma2_given);
    assert!(!read("mode=scores&sample=digits_wbb.npz").sigma2_given);
    // σ² on a file is a marker; the toy's σ², a parameter, comes back with the toy.
    let toy = Controls { sigma2: 40.0, ..Controls::default() };
    let mut scores = toy.for_mode(Mode::Scores);
    assert_eq!(scores.sigma2, 40.0);
    scores.sigma2 = 0.03;
    let back = scores.for_mode(Mode::Toy);
    assert_eq!((back.sigma2, back.toy_params().sigma2), (40.0, 40.0));
    // A link in score mode reads back the same.
    let state =
        UrlState { data: DataRef::Sample("digits_wbb.npz".into()), ..UrlState::with_controls(scores) };
    assert_eq!(read(&state.to_query()).state.controls.sigma2, 0.03);
}

/// A hosted file and its labels survive a link whatever their order, escaped; `labels=`
/// without `src=`, and addresses of other schemes, are refused with a sentence each.
#[test]
fn a_hosted_file_and_its_labels_round_trip_and_bad_addresses_are_refused() {
    let r = read("labels=data/y%20labels.npy&mode=scores&src=data/a%26b.npy");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let want =
        DataRef::Hosted { src: "data/a&b.npy".into(), labels: Some("data/y labels.npy".into()), name: None };
    assert_eq!(r.state.data, want);
    let q = r.state.to_query();
    assert_eq!(q, "mode=scores&src=data%2Fa%26b.npy&labels=data%2Fy%20labels.npy");
    assert_eq!(read(&q).state, r.state);
    let r = read("mode=scores&labels=y.npy");
    assert_eq!(r.state.data, DataRef::None);
    assert!(r.warnings.iter().any(|w| w.contains("no 'src=' names one")), "{:?}", r.warnings);
    let r = read("mode=scores&src=javascript:alert(1)&labels=data:x");
    assert_eq!(r.state.data, DataRef::None);
    assert!(r.warnings.iter().any(|w| w.contains("'javascript:' address")), "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|w| w.starts_with("'labels=data:x'")), "{:?}", r.warnings);
    // In the toy setting no file is loaded, as for a sample.
    assert_eq!(read("src=a.npz").state.data, DataRef::None);
}

#[test]
fn theme_and_background_round_trip_and_default_to_light() {
    assert_eq!(read("").state.view, View::default());
    assert_eq!(View::default().theme, Theme::Light);
    for theme in Theme::ALL {
        let mut s = UrlState::default();
        s.view.theme = theme;
        s.view.transparent = true;
        let q = s.to_query();
        let r = read(&q);
        assert_eq!((r.state, r.warnings.len()), (s, 0), "{q}");
    }
    assert_eq!(read("theme=auto").state.view.theme, Theme::Auto);
    assert_eq!(
        read("theme=dark&background=transparent").state.to_query(),
        "theme=dark&background=transparent"
    );
    // The defaults are not written.
    assert_eq!(read("theme=light&background=page").state.to_query(), "");
}

#[test]
fn a_bad_theme_or_background_is_warned_of_and_left_at_its_default() {
    let r = read("theme=sepia&background=pink");
    assert_eq!(r.state.view, View::default());
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("'theme=sepia' is not one of light, dark or auto"), "{:?}", r.warnings);
    assert!(r.warnings[1].contains("'background=pink'"), "{:?}", r.warnings);
}

#[test]
fn a_figure_only_embed_reads_its_sliders_in_order_once() {
    let r = read("embed=theorem3&chrome=none&controls=sigma2,alpha,sigma2");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let v = &r.state.view;
    assert!(v.figure_only);
    assert_eq!(v.sliders, [Slider::Sigma2, Slider::Alpha]);
    assert_eq!(r.state.to_query(), "embed=theorem3&chrome=none&controls=sigma2,alpha");
    assert_eq!(read(&r.state.to_query()).state, r.state);
    // No `controls=`: no slider.
    assert!(read("embed=coverage&chrome=none").state.view.sliders.is_empty());
}

#[test]
fn unknown_sliders_are_left_out_with_a_warning() {
    let r = read("embed=coverage&chrome=none&controls=alpha,gamma,,beta");
    assert_eq!(r.state.view.sliders, [Slider::Alpha, Slider::Beta]);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("'gamma', not a slider (alpha, beta or sigma2)"), "{:?}", r.warnings);
}

#[test]
fn chrome_and_controls_need_an_embedded_panel() {
    let r = read("chrome=none&controls=alpha");
    assert_eq!(r.state.view, View::default());
    assert!(r.warnings.iter().any(|w| w.contains("embedded panel")), "{:?}", r.warnings);
    // A tour step alone is not a panel.
    let r = read("embed=tour&tour=2&chrome=none");
    assert!(!r.state.view.figure_only);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    // controls= without chrome=none: the embed shows its own sliders already.
    let r = read("embed=coverage&controls=alpha");
    assert!(r.state.view.sliders.is_empty());
    assert!(r.warnings[0].contains("chrome=none"), "{:?}", r.warnings);
    let r = read("embed=coverage&chrome=maybe");
    assert!(!r.state.view.figure_only);
    assert!(r.warnings[0].contains("'chrome=maybe'"), "{:?}", r.warnings);
}

/// `name=` belongs to `src=` in either order and survives a link escaped; without `src=`, or
/// holding what could pass for another name, it is refused with a sentence and the file keeps
/// its own name.
#[test]
fn a_hosted_file_name_round_trips_and_hostile_names_are_refused() {
    let r = read("name=%3Cb%3EMy%20run%26co%3C%2Fb%3E&mode=scores&src=data/a.npz");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let want =
        DataRef::Hosted { src: "data/a.npz".into(), labels: None, name: Some("<b>My run&co</b>".into()) };
    assert_eq!(r.state.data, want);
    let q = r.state.to_query();
    assert_eq!(q, "mode=scores&src=data%2Fa.npz&name=%3Cb%3EMy%20run%26co%3C%2Fb%3E");
    assert_eq!(read(&q).state, r.state);
    let r = read("mode=scores&name=x");
    assert_eq!(r.state.data, DataRef::None);
    assert!(r.warnings.iter().any(|w| w.contains("no 'src=' names one")), "{:?}", r.warnings);
    for (bad, why) in
        [("abc%E2%80%AEgpj", "U+202E"), ("a%0Ab", "control character"), (&"x".repeat(201)[..], "longer")]
    {
        let r = read(&format!("mode=scores&src=a.npz&name={bad}"));
        assert_eq!(r.state.data, DataRef::Hosted { src: "a.npz".into(), labels: None, name: None });
        assert!(r.warnings.iter().any(|w| w.starts_with("'name=") && w.contains(why)), "{:?}", r.warnings);
        // The sentence quotes the value with what could reorder or break it replaced.
        assert!(!r
            .warnings
            .iter()
            .any(|w| w.chars().any(|c| c.is_control() || rvalue_core::io::reorders_text(c))));
    }
}
