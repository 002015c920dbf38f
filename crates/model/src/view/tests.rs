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
    let r = alpha_edits(Some(&v), 0.1, true, [ids::PLOT_SIZE_ALPHA]);
    let [coverage, size, reduction] = ALPHA_READOUTS.map(|id| r.text_of(id).unwrap());
    assert!(reduction.contains("repeats"));
    let files = alpha_edits(Some(&v), 0.1, false, []);
    assert!(files.text_of(ids::REDUCTION).unwrap().contains("splits"));
    assert_ne!(coverage, size, "coverage, then size");
    assert_eq!(r.attr_of(ids::PLOT_SIZE_ALPHA, "data-alpha"), Some("0.1"));
    assert_eq!(r.attr_of(ids::PLOT_COVERAGE_ALPHA, "data-alpha"), None, "an overlay not drawn");
    assert_eq!(files.attr_of(ids::PLOT_SIZE_ALPHA, "data-alpha"), None);
    let moved = alpha_edits(None, 0.25, false, [ids::PLOT_COVERAGE_ALPHA]);
    assert_eq!(moved.attr_of(ids::PLOT_COVERAGE_ALPHA, "data-alpha"), Some("0.25"));
    assert_eq!(moved.text_of(ids::COVERAGE_READOUT), None, "no view: readouts left");
}

#[test]
fn with_nothing_on_show_the_alpha_texts_read_a_dash() {
    for shows in [false, true] {
        let e = alpha_cleared(shows);
        for id in ALPHA_READOUTS.into_iter().chain([ids::CLASSES_READOUT]) {
            assert_eq!(e.text_of(id), Some("–"), "{id}");
        }
        assert_eq!(
            (e.hidden_of(ids::CLASSES_NOTE), e.hidden_of(ids::WORST_HEADING)),
            (Some(true), Some(true))
        );
        assert_eq!(e.html_of(ids::INSPECTOR), shows.then_some(""));
        assert_eq!(e.text_of(ids::ITEM_INFO), shows.then_some(""));
    }
}

#[test]
fn panel_texts_become_the_pages_writes_in_order() {
    let v = theorem3_view(&controls(), None, false);
    let e = v.edits();
    assert_eq!(e.0.len(), v.texts.len());
    assert_eq!(e.text_of(ids::THEOREM3_NOTE), v.text(ids::THEOREM3_NOTE));
    assert_eq!(e.text_of(ids::THEOREM3_READOUT), Some("–"));
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
    let e = cv.edits();
    assert_eq!(e.hidden_of(ids::CLASSES_NOTE), Some(cv.note.is_none()));
    assert_eq!(e.text_of(ids::CLASSES_NOTE), Some(cv.note.unwrap_or("")));
    assert_eq!(e.text_of(ids::CLASSES_READOUT), Some(cv.readout.as_str()));
    assert_eq!(e.hidden_of(ids::WORST_HEADING), Some(cv.worst.is_empty()));
}

#[test]
fn worst_classes_are_buttons_whose_lines_are_text() {
    let html = worst_html(&[(3, "<b>cat</b> 40%".into()), (0, "dog".into())]);
    assert_eq!(html.matches("<li><button type=\"button\"").count(), 2);
    assert!(html.contains("data-class=\"3\"") && html.contains("data-class=\"0\""));
    assert!(html.contains("&lt;b&gt;cat&lt;/b&gt; 40%") && !html.contains("<b>"), "{html}");
    assert!(html.find("cat").unwrap() < html.find("dog").unwrap(), "in order");
    assert_eq!(worst_html(&[]), "");
}

#[test]
fn kind_notes_hide_what_they_do_not_say() {
    use rvalue_core::conformal::{RvalueKind, ScoreOptions};
    let c = controls();
    let e = kind_edits(&c);
    let n = crate::kind_notes(&c);
    assert_eq!(e.text_of(ids::THRESHOLD_KIND), Some(n.threshold.as_str()));
    assert_eq!(
        (e.hidden_of(ids::THRESHOLD_KIND), e.hidden_of(ids::THEOREM3_KIND)),
        (Some(false), Some(true))
    );
    assert_eq!(e.hidden_of(ids::FORMULA_POOLED), Some(true));
    let pooled = Controls { score: ScoreOptions { kind: RvalueKind::Pooled, ..c.score }, ..c };
    let e = kind_edits(&pooled);
    assert_eq!(
        (e.hidden_of(ids::THEOREM3_KIND), e.hidden_of(ids::FORMULA_POOLED)),
        (Some(false), Some(false))
    );
    assert_eq!(e.hidden_of(ids::FORMULA_NONPARAMETRIC), Some(true));
    assert_eq!(e.text_of(ids::FORMULAS_KIND), Some(crate::kind_notes(&pooled).formulas.as_str()));
}

#[test]
fn panel_8_shows_a_files_statistics_in_the_scores_mode() {
    use crate::page::Stats;
    use rvalue_core::tensor::VarianceKind;
    let c = controls();
    let (scores, labels) = rvalue_core::toy::simulate(&c.toy_params(), 0).unwrap();
    let d = rvalue_core::io::Dataset { scores, labels: Some(labels), single_draw: false };
    let s = crate::DataSummary::of(&d, VarianceKind::PerDraw, 10).unwrap();
    let v = data_view("a&b.npz", &Stats::Summary(&s), Mode::Scores);
    assert_eq!(v.edits.hidden_of(ids::PANEL_DATA), Some(false));
    assert!(v.edits.html_of(ids::DATA_STATS).unwrap().contains("a&amp;b.npz"));
    assert!(v.figure.is_some() && !v.blank);
    let streamed = data_view("f", &Stats::Streamed((10, 3, 4)), Mode::Toy);
    assert_eq!(streamed.edits.hidden_of(ids::PANEL_DATA), Some(true));
    assert!(streamed.figure.is_none() && streamed.blank && streamed.edits.html_of(ids::DATA_STATS).is_some());
    let pending = data_view("f", &Stats::None, Mode::Scores);
    assert!(pending.figure.is_none() && !pending.blank && pending.edits.html_of(ids::DATA_STATS).is_none());
}

#[test]
fn notes_say_nothing_without_an_analysis() {
    let none = data_notes(None, 0.1);
    assert!(none.empty && none.html.is_empty() && !none.split_mask);
    let a = analysis(&controls());
    assert!(!data_notes(Some(&a), 0.1).split_mask, "a toy repeat has no mask");
    let e = DataNotes { html: "<p>w</p>".into(), empty: false, split_mask: true }.edits();
    assert_eq!(e.html_of(ids::DATA_NOTES), Some("<p>w</p>"));
    assert_eq!((e.hidden_of(ids::DATA_NOTES), e.hidden_of(ids::SPLIT_MASK)), (Some(false), Some(false)));
    let e = none.edits();
    assert_eq!((e.hidden_of(ids::DATA_NOTES), e.hidden_of(ids::SPLIT_MASK)), (Some(true), Some(true)));
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
    let e = v.edits(2);
    assert!(e.0.contains(&crate::edits::Edit::Value(ids::ITEM_INDEX.into(), "2".into())));
    assert_eq!(e.attr_of(ids::ITEM_INDEX, "max"), Some(v.max.as_str()));
    assert_eq!(e.text_of(ids::ITEM_INFO), v.info.as_deref());
    assert_eq!(e.html_of(ids::INSPECTOR), None, "rankings are patched in place");
    let e = bad.edits(2);
    assert_eq!((e.html_of(ids::INSPECTOR), e.text_of(ids::ITEM_INFO)), (Some(html.as_str()), None));
    let cleared = inspector_cleared();
    assert_eq!((cleared.html_of(ids::INSPECTOR), cleared.text_of(ids::ITEM_INFO)), (Some(""), Some("")));
}

#[test]
fn an_alpha_move_patches_the_inspectors_cuts_and_another_item_its_lists() {
    let a = analysis(&controls());
    let columns =
        |t: usize, alpha: f64| inspector_columns(&a.inspect(t, alpha, false).unwrap(), a.single_draw);
    let (before, after) = (columns(2, 0.1), columns(2, 0.4));
    let same = inspector_patch(&before, &before).unwrap();
    assert!(same.iter().all(|p| *p == ColumnPatch { threshold: false, list: ListPatch::Same }));
    let moved = inspector_patch(&before, &after).unwrap();
    assert_eq!(moved.len(), before.len());
    for ((p, old), new) in moved.iter().zip(&before).zip(&after) {
        assert_eq!(p.threshold, old.threshold != new.threshold);
        let cut = crate::page::patch::cut_move(old.cut(), new.cut());
        assert!(matches!(p.list, ListPatch::Same) || p.list == ListPatch::Cut(cut), "{p:?}");
    }
    assert!(moved.iter().any(|p| p.threshold), "α moves a threshold");
    let other = inspector_patch(&before, &columns(3, 0.1)).unwrap();
    assert!(other.iter().any(|p| p.list == ListPatch::Afresh), "another item's rows");
    assert_eq!(inspector_patch(&before, &before[1..]), None, "another number of columns");
    assert_eq!(inspector_patch(&[], &before), None);
}
