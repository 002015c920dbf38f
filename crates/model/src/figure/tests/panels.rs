//! The panels' figures, tables, inspector and statistics from a small toy analysis, natively:
//! what each holds, its ranges, its escaping and its sentences.

use std::sync::Arc;

use crate::classes::{ClassView, Layout};
use crate::curves::SIGMA2_AXIS_LO;
use crate::figure::classes::{classes, strata_head, strata_table};
use crate::figure::inspector::*;
use crate::figure::panels::*;
use crate::figure::stats::{data_stats, streamed_stats};
use crate::figure::tables::*;
use crate::figure::threshold::*;
use crate::figure::*;
use crate::tests::small_controls;
use crate::{
    panel_betas, sigma2_grid, threshold_curves, toy_design, Analysis, AnalysisJob, Controls, DataSummary,
    InclusionInputs, Source, SweepCurves,
};
use rvalue_core::io::Dataset;
use rvalue_core::tensor::VarianceKind;
use rvalue_core::toy;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn toy_analysis(c: &Controls) -> Analysis {
    AnalysisJob::new(Source::Toy(c.toy_params()), c).unwrap().run().unwrap()
}

fn toy_summary(c: &Controls) -> DataSummary {
    let (scores, labels) = toy::simulate(&c.toy_params(), 0).unwrap();
    let data = Arc::new(Dataset { scores, labels: Some(labels), single_draw: false });
    DataSummary::of(&data, VarianceKind::PerDraw, 20).unwrap()
}

#[test]
fn panel_one_draws_both_densities_from_zero_up() {
    let p = small_controls().toy_params();
    let d = crate::score_densities(&p, &crate::default_score_xs(&p, 100)).unwrap();
    let f = scores(&d);
    assert_eq!(f.x, (d.xs[0], d.xs[d.xs.len() - 1]));
    let top = d.p.iter().chain(&d.q).flatten().fold(0.0f64, |a, &b| a.max(b));
    assert!(f.y.0 == 0.0 && f.y.1 > top, "{:?} for {top}", f.y);
    assert_eq!(f.lines.len(), 2);
    assert!(!f.lines[0].dashed && f.lines[1].dashed && f.lines[0].colour == BLUE);
}

#[test]
fn panels_three_and_four_hold_every_curve_and_dash_the_baselines() {
    let methods = [Method::Cp, Method::CpR, Method::Aps];
    let sweep = SweepCurves {
        alphas: vec![0.1, 0.2, 0.3],
        target: vec![0.9, 0.8, 0.7],
        coverage: vec![vec![0.95, 0.85, 0.75], vec![0.9, 0.6, 0.7], vec![1.0, f64::NAN, 0.8]],
        size: vec![vec![5.0, 4.0, 3.0], vec![1.0, 0.5, 0.2], vec![9.5, 8.0, 7.0]],
        never_empty: false,
    };
    let cov = against_alpha(&sweep, &methods, true);
    assert_eq!((cov.x, cov.y.1), ((0.1, 0.3), 1.0));
    assert!(cov.y.0 < 0.6 && cov.y.0 >= 0.0, "{:?}", cov.y);
    // 1 − α first (grey, dashed), then a line per method in its colour; APS dashed.
    assert_eq!(cov.lines.len(), 4);
    assert!(cov.lines[0].colour == GREY && cov.lines[0].dashed);
    assert_eq!(cov.lines[3].colour, method_colour(Method::Aps));
    assert!(!cov.lines[1].dashed && !cov.lines[2].dashed && cov.lines[3].dashed);
    assert_eq!(cov.lines[3].points[1], (0.2, None));
    let size = against_alpha(&sweep, &methods, false);
    assert!(size.y.0 == 0.0 && size.y.1 > 9.5 && size.lines.len() == 3);
    assert_eq!(size.y_desc, "mean set size");
}

#[test]
fn the_alpha_marker_and_readout_show_each_method_at_alpha() {
    let c = small_controls();
    let a = toy_analysis(&c);
    let v = a.at_alpha(0.1, false).unwrap();
    let m = alpha_marker(Some(&v), 0.1, true);
    assert_eq!((m.x, m.colour, m.dots.len()), (0.1, INK, v.rows.len()));
    for (dot, r) in m.dots.iter().zip(&v.rows) {
        assert_eq!(*dot, (r.coverage_mean, method_colour(r.method)));
    }
    assert_eq!(alpha_marker(Some(&v), 0.1, false).dots[2].0, v.rows[2].size_mean);
    assert!(alpha_marker(None, 0.2, true).dots.is_empty());
    let text = readout(&v, true);
    let want = format!("α = 0.1: CP {}, CP_avg", crate::scales::fixed(v.rows[0].coverage_mean, 3));
    assert!(text.starts_with(&want), "{text}");
    assert!(readout(&v, false).contains(&format!("CP_r {}", crate::scales::fixed(v.rows[2].size_mean, 2))));
}

#[test]
fn panel_five_draws_its_curves_in_front_and_marks_sigma2() {
    let c = small_controls();
    let grid = sigma2_grid(50);
    let one =
        crate::inclusion_curves(&InclusionInputs::toy(&c.toy_params(), 0.1, 0.1).unwrap(), &grid).unwrap();
    let f = theorem3(&one, 0.0);
    assert_eq!((f.x, f.x_axis, f.y), ((SIGMA2_AXIS_LO, grid[49]), Axis::Log, (0.0, 1.02)));
    assert!(f.lines.iter().all(|l| l.front));
    // M > 1 draws: CP, CP_r with one draw (faint), CP_r.
    assert_eq!(f.lines.len(), if one.inputs.draws > 1 { 3 } else { 2 });
    assert_eq!(f.vlines, vec![(SIGMA2_AXIS_LO, GREEN)]);
    assert_eq!(theorem3(&one, 50.0).vlines[0].0, 50.0);
}

#[test]
fn panel_eight_shares_sum_to_one_per_group_on_a_log_axis() {
    let s = toy_summary(&small_controls());
    let f = variances(&s);
    assert_eq!(f.x_axis, Axis::Log);
    assert!(f.x_desc.ends_with("(log scale)"));
    assert_eq!(f.lines.len(), 2);
    for l in &f.lines {
        let total: f64 = l.points.iter().filter_map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(l.points.iter().filter_map(|p| p.1).all(|y| y <= f.y.1));
    }
    assert_eq!(f.y.0, 0.0);
    assert_eq!(f.lines[0].label.as_deref(), Some("true candidates"));
}

#[test]
fn panel_two_at_the_defaults_frames_the_dip_and_marks_what_leaves() {
    let c = Controls::default();
    let (h, s) = toy_design(&c.toy_params()).unwrap();
    let t = threshold_curves(Some(h), &s, &panel_betas(c.beta), &sigma2_grid(200), c.sigma2).unwrap();
    let main = &t.series[0];
    let (low, back) = (main.s_star.unwrap(), main.s0.unwrap());
    let zoomed = threshold(&t, &[], (c.sigma2, false), None);
    let (y0, y1) = zoomed.y;
    // The dip's lowest point and t*(0) inside the frame, the dip a good part of its height.
    assert!(y0 < low.t && back.t < y1, "{:?} for {} and {}", zoomed.y, low.t, back.t);
    assert!(back.t - low.t > 0.1 * (y1 - y0), "{:?}", zoomed.y);
    // The curve and the marked σ² = 1000 leave it, each with an arrow, and the note says so.
    assert_eq!(zoomed.exits.len(), 2);
    let note = threshold_cut(&zoomed, &t).unwrap();
    assert!(note.starts_with("Zoomed on the dip: the curve rises out of the frame at σ² ≈ "), "{note}");
    assert!(note.contains("at the marked σ² = 1000 it is"), "{note}");
    // The whole view holds the curve up to σ² = 5000: nothing leaves, and the dip is flat.
    let whole = threshold(&t, &[], (c.sigma2, true), None);
    assert!(whole.y.1 > main.t.last().unwrap().unwrap());
    assert!(whole.exits.is_empty() && threshold_cut(&whole, &t).is_none());
    assert!(back.t - low.t < 0.01 * (whole.y.1 - whole.y.0));
    assert_eq!(threshold_y(&t, &[], true), whole.y);
}

#[test]
fn panel_two_shows_the_candidates_and_the_other_betas() {
    let c = small_controls();
    let a = toy_analysis(&c);
    let (h, s) = toy_design(&c.toy_params()).unwrap();
    let t = threshold_curves(Some(h), &s, &panel_betas(c.beta), &sigma2_grid(100), c.sigma2).unwrap();
    let points = a.data_points();
    let fitted = crate::fitted_threshold(&a, c.beta, &t.sigma2);
    let f = threshold(&t, &points, (c.sigma2, true), fitted.as_ref());
    let (truth, other) =
        (points.iter().filter(|p| p.is_true).count(), points.iter().filter(|p| !p.is_true).count());
    assert_eq!(f.dots[0].points.len(), other);
    assert_eq!(f.dots[1].points.len(), truth);
    // One legend entry for the three faint curves, naming their β.
    let faint: Vec<_> = f.lines.iter().filter(|l| l.colour == GREY).collect();
    assert_eq!(faint.len(), 3);
    assert_eq!(faint[0].label.as_deref(), Some("t* at β = 0.01, 0.05, 0.2"));
    assert!(faint[1].label.is_none() && faint[2].label.is_none());
    assert_eq!(f.lines.iter().any(|l| l.colour == SKY && l.dashed), fitted.is_some());
    assert_eq!(f.vlines, vec![(c.sigma2, GREEN)]);
    assert_eq!((f.legend, f.x_axis, f.x.0), (Legend::UpperLeft, Axis::Log, SIGMA2_AXIS_LO));
}

#[test]
fn a_curve_exits_where_it_first_rises_past_the_top_from_below() {
    let xs = [1.0, 2.0, 3.0, 4.0, 5.0];
    assert_eq!(exit_sigma2(&xs, &[Some(0.0), Some(0.5), Some(2.0), Some(3.0), Some(0.0)], 1.0), Some(3.0));
    // Starting above, or after a gap, is no exit.
    assert_eq!(exit_sigma2(&xs, &[Some(2.0), Some(3.0), None, Some(2.0), Some(2.0)], 1.0), None);
    assert_eq!(exit_sigma2(&xs, &[Some(0.0), None, Some(2.0), Some(0.0), Some(5.0)], 1.0), Some(5.0));
}

#[test]
fn many_candidates_give_their_central_scores_a_few_all() {
    let point = |score| crate::DataPoint { sigma2: 1.0, score, is_true: false };
    let few: Vec<_> = [3.0, f64::NAN, 1.0, 2.0].into_iter().map(point).collect();
    assert_eq!(central_scores(few.iter()), vec![1.0, 2.0, 3.0]);
    let many: Vec<_> = (0..200).map(|i| point(f64::from(i))).collect();
    assert_eq!(central_scores(many.iter()), vec![2.0, 197.0]);
}

fn class_view(k: usize) -> ClassView {
    let c = Controls { toy: toy::ToyParams { k, ..small_controls().toy }, ..small_controls() };
    let v = toy_analysis(&c).at_alpha(0.1, false).unwrap();
    ClassView::new(&v, k, false)
}

#[test]
fn panel_nine_draws_bars_for_few_classes_and_sorted_curves_for_many() {
    let v = class_view(4);
    assert_eq!(v.layout, Layout::Bars);
    let names = vec!["a<b".to_string(), "b".into(), "c".into(), "d".into()];
    let f = classes(&v, Some(&names));
    assert_eq!((f.x, f.y.1, f.legend), ((-0.5, 3.5), 1.0, Legend::LowerRight));
    assert!(f.y.0 >= 0.0 && f.y.0 <= 0.9);
    assert_eq!(f.bars.len(), v.methods.len());
    // Each method's bars sit side by side inside their class's slot, topped at its coverage.
    for (mi, b) in f.bars.iter().enumerate() {
        for &(l, r, top) in &b.bars {
            let class = (0.5 * (l + r)).round();
            assert!(l >= class - 0.4 - 1e-12 && r <= class + 0.4 + 1e-12);
            assert_eq!(Some(top), v.methods[mi].coverage[class as usize]);
        }
    }
    assert_eq!(f.x_names.len(), 4);
    assert_eq!(f.lines[0].points, vec![(-0.5, Some(v.target)), (3.5, Some(v.target))]);
    let mut many = v.clone();
    many.layout = Layout::Sorted;
    let s = classes(&many, None);
    assert_eq!((s.x, s.y.1, s.lines.len()), ((0.0, 1.0), 1.0, 1 + v.methods.len()));
    assert!(s.bars.is_empty());
}

#[test]
fn the_strata_table_has_a_coverage_and_a_count_per_method() {
    let v = class_view(4);
    let head = strata_head(&v);
    assert!(
        head.starts_with("<tr><th scope=\"col\">Set size</th><th scope=\"col\">CP coverage</th>"),
        "{head}"
    );
    assert!(head.contains("CP<sub>r</sub> items"));
    let rows = strata_table(&v);
    assert_eq!(rows.len(), v.strata.len());
    for (row, s) in rows.iter().zip(&v.strata) {
        assert_eq!(row.cells.len(), 2 * v.methods.len());
        assert_eq!(row.cells[1], s.count[0].to_string());
        assert_eq!(row.head, crate::figure::html::esc(&s.label));
    }
}

#[test]
fn panel_six_tables_format_each_method_row() {
    let a = toy_analysis(&small_controls());
    let mut v = a.at_alpha(0.1, false).unwrap();
    let r = &v.rows[0];
    let cells = summary_cells(&v);
    assert_eq!(cells[0][0], format!("{:.3} ± {:.3}", r.coverage_mean, r.coverage_sd));
    assert_eq!(cells[0][3], format!("{:.1} %", 100.0 * r.empty_rate));
    v.rows[1].conditional.covgap_mean = f64::NAN;
    assert_eq!(conditional_cells(&v)[1][2], "–");
    let rows = summary_table(&v);
    assert_eq!(rows[2].head, "<span class=\"swatch m2\"></span>CP<sub>r</sub>");
    assert_eq!(rows[2].cells, Vec::from(cells[2].clone()));
    assert_eq!(conditional_table(&v)[0].cells.len(), CONDITIONAL_COLUMNS.len());
    assert_eq!(SUMMARY_COLUMNS.len(), 4);
}

#[test]
fn a_row_escapes_its_cells_and_labels_them_for_narrow_pages() {
    let row = TableRow { head: "<b>CP</b>".into(), cells: vec!["a<b".into(), "1 & 2".into()] };
    assert_eq!(
        row_html(&row, None),
        "<tr><th scope=\"row\"><b>CP</b></th><td>a&lt;b</td><td>1 &amp; 2</td></tr>"
    );
    let labelled = row_html(&row, Some(&["One"]));
    assert_eq!(
        labelled,
        "<tr><th scope=\"row\"><b>CP</b></th><td data-label=\"One\">a&lt;b</td><td>1 &amp; 2</td></tr>"
    );
}

#[test]
fn under_covers_flags_exactly_the_rows_three_standard_errors_short() {
    let a = toy_analysis(&small_controls());
    let v = a.at_alpha(0.1, false).unwrap();
    let mut r = v.rows[0].clone();
    r.splits = 4;
    r.coverage_sd = 0.04;
    r.size_histogram = vec![0, 10_000];
    // The spread over splits dominates: se = 0.04 / 2 = 0.02; the bound is 0.9 − 0.06.
    let se = 0.02f64.max((0.1f64 * 0.9 / 10_000.0).sqrt());
    r.coverage_mean = 0.9 - 3.0 * se + 1e-9;
    assert!(!under_covers(&r, 0.1));
    r.coverage_mean = 0.9 - 3.0 * se - 1e-9;
    assert!(under_covers(&r, 0.1));
    // No spread over splits: the binomial error of 100 sets, √(0.09 / 100) = 0.03.
    r.coverage_sd = 0.0;
    r.size_histogram = vec![40, 60];
    r.coverage_mean = 0.9 - 0.09 + 1e-9;
    assert!(!under_covers(&r, 0.1));
    r.coverage_mean = 0.9 - 0.09 - 1e-9;
    assert!(under_covers(&r, 0.1));
}

#[test]
fn the_reduction_note_compares_sizes_unless_a_method_under_covers() {
    let a = toy_analysis(&small_controls());
    let mut v = a.at_alpha(0.1, false).unwrap();
    v.rows.iter_mut().for_each(|r| r.coverage_mean = 0.9);
    v.reduction_vs_cp = Some(25.0);
    v.reduction_vs_cp_avg = Some(-3.06);
    assert_eq!(
        reduction_text(&v, true),
        "CP_r's sets are smaller by 25.0 % against CP and larger by 3.1 % against CP_avg (α = 0.1, 3 repeats)."
    );
    v.reduction_vs_cp = None;
    assert!(reduction_text(&v, false).contains("undefined (empty baseline sets) against CP"));
    let note = reduction_text(&v, false);
    assert!(note.ends_with("(α = 0.1, 3 splits)."), "{note}");
    v.rows[2].coverage_mean = 0.5;
    let note = reduction_text(&v, false);
    assert!(
        note.starts_with("CP_r covers 0.500, below 1 − α = 0.9 by more than three standard errors"),
        "{note}"
    );
    assert!(note.ends_with("set sizes are not compared."));
}

#[test]
fn the_inspector_lists_each_method_with_its_cut_and_the_true_label() {
    let a = toy_analysis(&small_controls());
    let item = a.inspect(0, 0.1, false).unwrap();
    let columns = inspector_columns(&item, false);
    assert_eq!(columns.len(), item.methods.len());
    for (c, m) in columns.iter().zip(&item.methods) {
        assert_eq!(c.rows.len() + c.hidden, m.ranked.len());
        assert_eq!(c.cut(), c.rows.iter().position(|r| !r.in_set));
        assert!(c.rows.iter().any(|r| r.is_true));
        assert!(c.same_rows(c));
    }
    assert_eq!(columns[2].what, "r-value");
    let single = inspector_columns(&item, true);
    assert_eq!(single[2].note, Some("One draw per candidate: no r-value."));
    assert!(single[2].rows.is_empty() && !single[0].rows.is_empty());
    assert_eq!(ranking_list(&single[2]), "<p class=\"muted\">One draw per candidate: no r-value.</p>");
    let html = inspector(&columns);
    assert_eq!(html.matches("<div class=\"ranking\">").count(), columns.len());
    assert!(html.contains("✓ true"));
}

#[test]
fn the_inspector_hides_candidates_past_twenty_but_never_the_true_one() {
    let c = Controls {
        toy: toy::ToyParams { k: 30, n_cal: 20, n_test: 10, repeats: 1, ..small_controls().toy },
        ..small_controls()
    };
    let item = toy_analysis(&c).inspect(0, 0.1, false).unwrap();
    for (col, m) in inspector_columns(&item, false).iter().zip(&item.methods) {
        let true_rank = m.ranked.iter().position(|r| r.is_true).unwrap() + 1;
        assert_eq!(col.rows.len(), if true_rank > 20 { 21 } else { 20 });
        assert_eq!(col.hidden, 30 - col.rows.len());
        assert!(ranking_list(col).contains(&format!("… and {} more candidates", col.hidden)));
    }
}

#[test]
fn an_empty_set_is_labelled_in_the_inspector() {
    let row = |rank: usize, in_set| RankingRow {
        rank,
        candidate: rank,
        score: "0.1".to_string(),
        in_set,
        is_true: rank == 2,
    };
    let mut c = RankingColumn {
        title: String::new(),
        what: "r-value",
        threshold: "0.05".to_string(),
        note: None,
        rows: vec![row(1, false), row(2, false)],
        hidden: 0,
    };
    assert_eq!(c.cut(), Some(0));
    assert!(ranking_list(&c).starts_with(&format!("<ol>{EMPTY_CUT_HTML}")));
    assert_eq!((c.rows[0].class_attr(), c.rows[1].class_attr()), ("", " class=\"true\""));
    let before = c.clone();
    c.rows[0].in_set = true;
    let list = ranking_list(&c);
    assert!(!list.contains("empty set") && list.contains(CUT_HTML), "{list}");
    // The same rows cut elsewhere; a different score is not.
    assert!(c.same_rows(&before));
    c.rows[1].score = "0.2".into();
    assert!(!c.same_rows(&before));
    c.rows[1].in_set = true;
    assert_eq!(c.cut(), None);
}

#[test]
fn panel_eight_stats_escape_the_name_and_say_what_they_lack() {
    let s = toy_summary(&small_controls());
    let html = data_stats("<x>.npy", &s);
    assert!(html.contains("<dd id=\"stat-file\">&lt;x&gt;.npy</dd>"), "{html}");
    assert!(html.contains(&format!("<dd id=\"stat-k\">{}</dd>", s.k)));
    assert!(html.contains("stat-median-true") && html.contains("stat-median-false"));
    let mut unlabelled = s.clone();
    unlabelled.accuracy = None;
    unlabelled.single_draw = true;
    let html = data_stats("a", &unlabelled);
    assert!(html.contains("– (no labels)") && html.contains("only CP and CP_avg are meaningful"));
    let streamed = streamed_stats("a&b", (10, 3, 4));
    assert!(
        streamed.contains("<dd id=\"stat-file\">a&amp;b</dd>")
            && streamed.contains("<dd id=\"stat-m\">3</dd>")
    );
    assert!(streamed.contains("read a block at a time"));
}

#[test]
fn the_placeholders_are_sentences() {
    use crate::figure::placeholder::*;
    for s in [
        THRESHOLD_NO_FILE,
        THRESHOLD_WAITING,
        THRESHOLD_NO_PRIOR,
        THRESHOLD_FLAT_PRIOR,
        THRESHOLD_NO_VARIANCE,
        THEOREM3_NO_FILE,
        THEOREM3_WAITING,
        THEOREM3_TOY_WAITING,
    ] {
        assert!(s.ends_with('.') && s.chars().next().is_some_and(char::is_uppercase), "{s}");
        assert!(!s.contains("  ") && !s.to_lowercase().contains("error"), "{s}");
    }
}

#[test]
fn a_panel_waiting_for_scores_asks_for_a_file_until_one_is_loaded() {
    use crate::figure::placeholder::*;
    assert_eq!(waiting(false, false), THRESHOLD_NO_FILE);
    assert_eq!(waiting(true, false), THRESHOLD_WAITING);
    assert_eq!(waiting(false, true), THEOREM3_NO_FILE);
    assert_eq!(waiting(true, true), THEOREM3_WAITING);
}
