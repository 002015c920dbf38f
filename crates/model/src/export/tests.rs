use super::*;
use crate::page::Shown;
use crate::panel::Panel;
use crate::{Controls, Source};
use rvalue_core::conformal::Method;
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn analysis() -> Analysis {
    let controls = Controls {
        toy: ToyParams { k: 5, m: 6, n_cal: 20, n_test: 15, repeats: 2, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    };
    Analysis::build(Source::from_controls(&controls, None).unwrap(), &controls).unwrap()
}

fn rows(csv: &str) -> Vec<Vec<&str>> {
    csv.lines().skip(1).map(|l| l.split(',').collect()).collect()
}

#[test]
fn summary_csv_reads_back_to_the_tables_numbers() {
    let a = analysis();
    for (alpha, never_empty) in [(0.1, false), (0.005, true)] {
        let view = a.at_alpha(alpha, never_empty).unwrap();
        let csv = summary_csv(&view);
        assert_eq!(csv.lines().next(), Some(summary_header().as_str()));
        assert!(csv.ends_with('\n'));
        let rows = rows(&csv);
        assert_eq!(rows.len(), 3);
        let n_fields = summary_header().split(',').count();
        for (row, r) in rows.iter().zip(&view.rows) {
            assert_eq!(row.len(), n_fields);
            assert_eq!(row[0], r.method.name());
            assert_eq!(row[1].parse::<f64>().unwrap(), alpha);
            assert_eq!(row[2].parse::<bool>().unwrap(), never_empty);
            let num = |i: usize| row[i].parse::<f64>().unwrap();
            // Bit for bit: the download keeps every digit the table rounds away.
            assert_eq!(num(3).to_bits(), r.coverage_mean.to_bits());
            assert_eq!(num(4).to_bits(), r.coverage_sd.to_bits());
            assert_eq!(num(5).to_bits(), r.size_mean.to_bits());
            assert_eq!(num(6).to_bits(), r.size_sd.to_bits());
            match r.position_mean {
                Some(p) => assert_eq!(num(7).to_bits(), p.to_bits()),
                None => assert_eq!(row[7], ""),
            }
            assert_eq!(num(8).to_bits(), r.empty_rate.to_bits());
            assert_eq!(row[9].parse::<usize>().unwrap(), r.splits);
            for (j, want) in r.conditional.numbers().into_iter().enumerate() {
                let got = num(10 + j);
                assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{j}");
            }
        }
    }
}

#[test]
fn sets_csv_holds_every_first_split_set_and_agrees_with_the_metrics() {
    let a = analysis();
    let alpha = 0.2;
    let csv = sets_csv(&a, alpha, false).unwrap();
    assert_eq!(csv.lines().next(), Some(SETS_HEADER));
    let rows = rows(&csv);
    let nt = a.n_inspectable();
    assert_eq!(nt, 15);
    let mut at = 0;
    for m in Method::PAPER {
        let c = &a.calibrated(m)[0];
        let (mut covered, mut size) = (0usize, 0usize);
        for t in 0..nt {
            let set = c.set(t, alpha, false);
            let mine: Vec<&Vec<&str>> =
                rows[at..].iter().take_while(|r| r[0] == m.name() && r[1] == c.test[t].to_string()).collect();
            at += mine.len();
            assert!(!mine.is_empty(), "every test item has a row, an empty set too");
            if set.members.is_empty() {
                assert_eq!(*mine[0], [m.name(), &c.test[t].to_string(), "", "", ""]);
                continue;
            }
            assert_eq!(mine.len(), set.members.len());
            for (pos, (row, &(k, score))) in mine.iter().zip(&set.members).enumerate() {
                assert_eq!(row.len(), 5);
                assert_eq!(row[2].parse::<usize>().unwrap(), k);
                // Bit for bit, as the command line writes it.
                assert_eq!(row[3].parse::<f64>().unwrap().to_bits(), score.to_bits());
                assert_eq!(row[4].parse::<usize>().unwrap(), pos);
            }
            covered += usize::from(set.contains(c.label(t)));
            size += set.members.len();
        }
        let metrics = c.metrics(alpha, false);
        assert_eq!(covered as f64 / nt as f64, metrics.coverage);
        assert_eq!(size as f64 / nt as f64, metrics.size);
    }
    assert_eq!(at, rows.len(), "methods in order, items ascending, nothing else");
    assert!(sets_csv(&a, 1.0, false).is_err());
}

#[test]
fn only_a_files_split_has_a_mask() {
    use rvalue_core::io::{read_mask, Dataset};
    assert!(split_mask_npy(&analysis()).is_err(), "a toy repeat");
    let (scores, labels) = rvalue_core::samples::logits(40, 5, 4, 3).unwrap();
    let data = std::sync::Arc::new(Dataset { scores, labels: Some(labels), single_draw: false });
    let controls = Controls {
        cal_fraction: 0.3,
        seed: 7,
        splits: 2,
        ..Controls::default().for_mode(crate::Mode::Scores)
    };
    let a = Analysis::build(Source::from_controls(&controls, Some(data)).unwrap(), &controls).unwrap();
    let mask = read_mask("mask.npy", &split_mask_npy(&a).unwrap(), 40).unwrap();
    let split = Split::from_mask(&mask).unwrap();
    assert_eq!(split.test, a.calibrated(Method::Cp)[0].test, "the mask splits off the inspector's items");
    assert_eq!(split.cal.len(), 12);
    assert_eq!(split.keyed(7, 0), Split::random(40, 0.3, 7, 0).unwrap());
}

#[test]
fn each_table_exports_the_analysis_on_show_at_alpha() {
    let mut shown = Shown::new();
    for t in [Table::Summary, Table::Sets, Table::Classes] {
        assert!(table_csv(t, &mut shown, (0.1, false), None).is_err(), "no analysis yet");
    }
    shown.show(analysis(), String::new());
    let a = analysis();
    let at = (0.2, true);
    let summary = table_csv(Table::Summary, &mut shown, at, None).unwrap();
    assert_eq!(summary, summary_csv(&a.at_alpha(0.2, true).unwrap()));
    assert_eq!(table_csv(Table::Sets, &mut shown, at, None).unwrap(), sets_csv(&a, 0.2, true).unwrap());
    let names: Vec<String> = (0..5).map(|i| format!("class {i}")).collect();
    let classes = table_csv(Table::Classes, &mut shown, at, Some(&names)).unwrap();
    assert_eq!(
        classes,
        table_csv(Table::Classes, &mut shown, at, None).unwrap(),
        "a toy's classes have no names"
    );
    assert!(!classes.contains("class 1") && classes.lines().count() > 5);
}

#[test]
fn export_buttons_are_markup_in_their_groups_order() {
    let groups = button_groups();
    let coverage = groups.iter().find(|g| g.panel == Panel::Coverage).unwrap();
    assert_eq!(
        coverage.html(),
        "<div class=\"export\" role=\"group\" aria-label=\"Export panel 3\">\
         <button type=\"button\" data-export=\"png\" aria-label=\"Download panel 3 as PNG\">PNG</button>\
         <button type=\"button\" data-export=\"svg\" aria-label=\"Download panel 3 as SVG\">SVG</button></div>"
    );
    for g in &groups {
        let html = g.html();
        assert_eq!(html.matches("<button ").count(), g.buttons.len());
        assert!(g.buttons.iter().all(|(f, _)| html.contains(&format!(">{f}</button>"))));
    }
    let coverage = FIGURES.iter().find(|f| f.panel == Panel::Coverage).unwrap();
    assert!(coverage.no_figure(false).to_string().ends_with("panel 3 has no figure yet"));
    assert!(coverage.no_figure(true).to_string().ends_with("panel 3 is hidden"));
}
