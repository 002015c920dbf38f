use super::*;
use crate::figure::inspector::inspector_columns;
use crate::figure::placeholder;
use crate::page::readouts::{item_info, pqp};
use crate::{default_score_xs, ids, score_densities, Analysis, Controls, Mode, Source};
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn controls() -> Controls {
    Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 20, n_test: 15, repeats: 2, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    }
}

fn analysis(c: &Controls) -> Analysis {
    Analysis::build(Source::from_controls(c, None).unwrap(), c).unwrap()
}

#[test]
fn panel_1_draws_the_toys_densities_only() {
    let c = controls();
    let v = scores_view(&c).unwrap();
    let p = c.toy_params();
    let s = score_densities(&p, &default_score_xs(&p, CURVE_POINTS)).unwrap();
    assert_eq!(v.text(ids::PQP), Some(pqp(s.prob_q_exceeds_p).as_str()));
    assert_eq!(v.text(ids::PQP_NOTE), Some(s.note.as_str()));
    assert!(v.figure.is_some());
    assert!(scores_view(&Controls { mode: Mode::Scores, ..c }).is_none());
}

#[test]
fn panel_2_says_why_a_file_has_no_curve_yet() {
    let c = Controls { mode: Mode::Scores, ..controls() };
    for loaded in [false, true] {
        let v = threshold_view(&c, None, loaded);
        assert!(v.figure.is_none());
        assert_eq!(v.text(ids::THRESHOLD_NOTE), Some(placeholder::waiting(loaded, false)));
    }
}

#[test]
fn panel_2_adds_the_fitted_prior_once_the_toy_is_analysed() {
    let c = controls();
    let alone = threshold_view(&c, None, false);
    let note = alone.text(ids::THRESHOLD_NOTE).unwrap();
    assert!(note.starts_with("Prior μ ="), "{note}");
    let a = analysis(&c);
    let with = threshold_view(&c, Some(&a), false);
    let (alone, with) = (alone.figure.unwrap(), with.figure.unwrap());
    assert!(with.lines.len() > alone.lines.len(), "the fitted prior's curve and the data");
    let whole = threshold_view(&Controls { whole_curve: true, ..c }, None, false);
    assert_ne!(whole.figure.unwrap().y, alone.y, "zoomed on the dip unless whole");
}

#[test]
fn panel_5_waits_for_an_analysis_then_writes_its_cuts_readout_and_note() {
    let c = controls();
    let v = theorem3_view(&c, None, false);
    assert!(v.figure.is_none());
    assert_eq!(
        v.texts,
        [(ids::THEOREM3_NOTE, placeholder::THEOREM3_TOY_WAITING.into()), (ids::THEOREM3_READOUT, "–".into())]
    );
    let s = Controls { mode: Mode::Scores, ..controls() };
    assert_eq!(
        theorem3_view(&s, None, true).text(ids::THEOREM3_NOTE),
        Some(placeholder::waiting(true, true))
    );
    let v = theorem3_view(&c, Some(&analysis(&c)), false);
    let order: Vec<&str> = v.texts.iter().map(|t| t.0).collect();
    assert_eq!(order, [ids::CUT_CALIBRATED, ids::CUT_BETA, ids::THEOREM3_READOUT, ids::THEOREM3_NOTE]);
    assert!(v.figure.is_some() && v.text(ids::THEOREM3_NOTE).unwrap().starts_with("α = 0.1"));
}

#[test]
fn alpha_readouts_name_repeats_for_the_toy() {
    let c = controls();
    let v = analysis(&c).at_alpha(0.1, false).unwrap();
    let r = alpha_readouts(&v, true);
    assert_eq!(r.each_ref().map(|t| t.0), ALPHA_READOUTS);
    assert!(r[2].1.contains("repeats") && alpha_readouts(&v, false)[2].1.contains("splits"));
    assert_ne!(r[0].1, r[1].1, "coverage, then size");
}

#[test]
fn panel_9_ignores_class_names_on_the_toy() {
    let c = controls();
    let a = analysis(&c);
    let v = a.at_alpha(0.2, false).unwrap();
    let names: Vec<String> = (0..4).map(|i| format!("name{i}")).collect();
    let cv = classes_view(&v, &a, Some(&names));
    assert_eq!(cv, classes_view(&v, &a, None), "a toy's classes have no names");
    assert_eq!(cv.worst.is_empty(), cv.note.is_some());
    assert!(cv.worst.iter().all(|(class, _)| *class < 4));
    assert!(!cv.strata.is_empty() && !cv.readout.is_empty());
}

#[test]
fn notes_say_nothing_without_an_analysis() {
    let none = data_notes(None, 0.1);
    assert!(none.empty && none.html.is_empty() && !none.split_mask);
    let a = analysis(&controls());
    assert!(!data_notes(Some(&a), 0.1).split_mask, "a toy repeat has no mask");
}

#[test]
fn the_inspector_shows_an_items_rankings_or_why_not() {
    let a = analysis(&controls());
    let n = a.n_inspectable();
    let v = inspector_view(&a, 2, 0.1, false);
    assert_eq!(v.max, (n - 1).to_string());
    let item = a.inspect(2, 0.1, false).unwrap();
    assert_eq!(v.info, Some(item_info(n, item.item, Some(item.label), 0.1)));
    assert_eq!(v.body, InspectorBody::Columns(inspector_columns(&item, a.single_draw)));
    let bad = inspector_view(&a, 2, 7.0, false);
    let InspectorBody::Error(html) = &bad.body else { panic!("α out of range") };
    assert!(bad.info.is_none() && html.starts_with("<p class=\"muted\">"), "{html}");
}
