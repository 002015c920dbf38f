//! Panel 9's numbers against sets built one by one with the core's `Calibrated::set`, and on
//! the bundled digits sample (where the digit 8 hides under marginal coverage).

use std::sync::Arc;

use crate::classes::*;
use crate::tests::{all_kinds, sources};
use crate::{Analysis, AnalysisJob, Controls, Mode, Source};
use rvalue_core::conformal::{Coverage, Method, RvalueKind, ScoreOptions, Tally};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Per class and per set-size stratum, `[covered, count]` from each test item's set, built
/// whole.
fn by_sets(a: &Analysis, m: Method, alpha: f64, ne: bool) -> (Vec<[u64; 2]>, Vec<[u64; 2]>) {
    let (mut classes, mut strata) = (vec![[0; 2]; a.k], vec![[0; 2]; SIZE_STRATA.len()]);
    for c in a.calibrated(m) {
        for i in 0..c.test.len() {
            let set = c.set(i, alpha, ne);
            let (y, n) = (c.label(i), set.members.len());
            let hit = u64::from(set.contains(y));
            classes[y] = [classes[y][0] + hit, classes[y][1] + 1];
            if let Some(s) = SIZE_STRATA.iter().position(|&(lo, hi)| n >= lo && n <= hi) {
                strata[s] = [strata[s][0] + hit, strata[s][1] + 1];
            }
        }
    }
    (classes, strata)
}

/// The tallies panel 9 reads (the summary row's) equal the sets built one by one, and the
/// view's coverages are their shares.
#[test]
fn tallies_equal_the_sets_built_one_by_one() {
    let per_class = all_kinds()
        .into_iter()
        .map(|c| Controls { score: ScoreOptions { coverage: Coverage::PerClass, ..c.score }, ..c });
    for c in all_kinds().into_iter().chain(per_class) {
        for (src, c) in sources(&c) {
            let a = AnalysisJob::new(src, &c).unwrap().run().unwrap();
            for ne in [false, true] {
                for alpha in [0.03, 0.1, 0.37] {
                    let v = a.at_alpha(alpha, ne).unwrap();
                    let cv = ClassView::new(&v, a.k, false);
                    for ((r, m), mc) in v.rows.iter().zip(Method::PAPER).zip(&cv.methods) {
                        let (classes, strata) = by_sets(&a, m, alpha, ne);
                        let fresh = rvalue_core::conformal::evaluate(a.calibrated(m), m, alpha, ne).unwrap();
                        assert_eq!(
                            (r.coverage_mean, r.size_mean, r.position_mean.unwrap_or(f64::NAN).to_bits()),
                            (fresh.coverage_mean, fresh.size_mean, fresh.position_mean.to_bits()),
                            "{:?} {:?} {m:?} α={alpha}",
                            c.score.kind,
                            c.score.coverage
                        );
                        let got: Vec<[u64; 2]> =
                            r.conditional.class_tallies.iter().map(|t| [t.covered, t.count]).collect();
                        assert_eq!(got, classes, "{:?} {m:?} α={alpha}", c.score.kind);
                        let got: Vec<[u64; 2]> =
                            r.conditional.size_strata.iter().map(|t| [t.covered, t.count]).collect();
                        assert_eq!(got, strata, "{:?} {m:?} α={alpha}", c.score.kind);
                        for (k, t) in classes.iter().enumerate() {
                            assert_eq!(mc.coverage[k], (t[1] > 0).then(|| t[0] as f64 / t[1] as f64));
                        }
                        let rows: Vec<u64> = cv.strata.iter().map(|s| s.count[mc_index(m)]).collect();
                        let want: Vec<u64> = strata.iter().map(|s| s[1]).filter(|&n| n > 0).collect();
                        assert!(rows.iter().sum::<u64>() == want.iter().sum::<u64>());
                    }
                }
            }
        }
    }
}

fn mc_index(m: Method) -> usize {
    Method::PAPER.iter().position(|&x| x == m).unwrap()
}

/// A score file's view: coverages are the tallies' shares, the worst classes come lowest
/// first, the sorted curves ascend, the readout counts the classes under 1 − α.
#[test]
fn the_view_reads_the_tallies() {
    let (src, c) = sources(&crate::tests::small_controls()).remove(1);
    let a = AnalysisJob::new(src, &c).unwrap().run().unwrap();
    let v = a.at_alpha(0.2, false).unwrap();
    let cv = ClassView::new(&v, a.k, false);
    assert_eq!((cv.layout, cv.note, cv.k), (Layout::Bars, None, a.k));
    for m in &cv.methods {
        assert!(m.sorted.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(m.below, m.sorted.iter().filter(|&&x| x < 0.8).count());
    }
    let lowest = |w: &WorstClass| w.coverage.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(cv.worst.windows(2).all(|w| lowest(&w[0]) <= lowest(&w[1])));
    let everywhere = (0..a.k)
        .filter(|&k| cv.counts[k] > 0)
        .map(|k| cv.methods.iter().map(|m| m.coverage[k].unwrap()).fold(f64::INFINITY, f64::min));
    assert_eq!(lowest(&cv.worst[0]), everywhere.fold(f64::INFINITY, f64::min));
    let total: u64 = cv.counts.iter().sum();
    assert_eq!(total, a.calibrated(Method::Cp).iter().map(|c| c.test.len() as u64).sum::<u64>());
    assert!(cv.readout().starts_with("Classes covered below 1 − α = 0.8 (of 4 in the test items): CP "));
    let t = a.test_item_of_class(cv.worst[0].class, 0.2, false).unwrap();
    assert_eq!(a.calibrated(Method::CpR)[0].label(t), cv.worst[0].class);
    assert_eq!(a.test_item_of_class(a.k + 3, 0.2, false), None);
}

#[test]
fn many_classes_are_sorted_curves_and_the_toy_says_why_classes_mean_nothing() {
    let c = crate::tests::small_controls();
    let a = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap().run().unwrap();
    let cv = ClassView::new(&a.at_alpha(0.1, false).unwrap(), a.k, a.toy.is_some());
    assert_eq!(cv.note, Some(TOY_NOTE));
    assert_eq!(cv.counts.iter().filter(|&&n| n > 0).count(), 1, "the toy's true label is always 0");
    assert_eq!(cv.unbounded, None);
    // Per class, the toy's other candidates have no calibration item: every set holds them, and
    // the readout says how many classes.
    let pc = Controls { score: ScoreOptions { coverage: Coverage::PerClass, ..c.score }, ..c.clone() };
    let a = AnalysisJob::new(Source::Toy(pc.toy_params()), &pc).unwrap().run().unwrap();
    let v = a.at_alpha(0.1, false).unwrap();
    let cvp = ClassView::new(&v, a.k, true);
    assert_eq!(cvp.unbounded, Some(a.k - 1));
    assert!(
        cvp.readout().contains(&format!(" {} of {} classes have too few", a.k - 1, a.k)),
        "{}",
        cvp.readout()
    );
    let others = (a.k - 1) as f64;
    assert!(v.rows.iter().all(|r| r.size_mean >= others), "every set holds the other candidates");
    let mut v = a.at_alpha(0.1, false).unwrap();
    for r in &mut v.rows {
        r.conditional.class_tallies = (0..40).map(|k| Tally { covered: k % 7, count: 7 }).collect();
    }
    let cv = ClassView::new(&v, 40, false);
    assert_eq!(cv.layout, Layout::Sorted);
    assert_eq!(ClassView::sorted_x(4), vec![0.25, 0.5, 0.75, 1.0]);
    assert_eq!(cv.worst.len(), WORST_LISTED);
    // Coverage k % 7 / 7 over 40 classes: the lowest are the six classes 0, 7, …, 35 at 0,
    // listed by class; the sixth waits.
    let listed: Vec<usize> = cv.worst.iter().map(|w| w.class).collect();
    assert_eq!(listed, vec![0, 7, 14, 21, 28]);
}

#[test]
fn the_csv_holds_every_class_at_full_precision() {
    let (src, c) = sources(&crate::tests::small_controls()).remove(1);
    let a = AnalysisJob::new(src, &c).unwrap().run().unwrap();
    let cv = ClassView::new(&a.at_alpha(0.1, false).unwrap(), a.k, false);
    let names: Vec<String> = vec!["a,b".into(), "say \"hi\"".into(), "c".into(), "d".into()];
    let csv = classes_csv(&cv, Some(&names));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], CLASSES_HEADER);
    assert_eq!(lines.len(), 1 + a.k);
    assert!(lines[1].starts_with("0,\"a,b\","), "{}", lines[1]);
    assert!(lines[2].starts_with("1,\"say \"\"hi\"\"\","), "{}", lines[2]);
    let plain = classes_csv(&cv, None);
    for (k, line) in plain.lines().skip(1).enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(
            (cells[0], cells[1], cells[2].parse::<u64>().unwrap()),
            (k.to_string().as_str(), "", cv.counts[k])
        );
        for (m, cell) in cv.methods.iter().zip(&cells[4..]) {
            assert_eq!(cell.parse::<f64>().ok(), m.coverage[k], "read back bit for bit");
        }
    }
}

/// The bundled digits at α = 0.1 over 20 splits, pooled CP_r: about 0.91 covered overall, yet
/// CP_avg and CP_r cover the digit 8 under 0.8, the worst class of the three methods, and CP
/// leaves the digit 3 under 0.82.
#[test]
fn on_the_digits_marginal_coverage_hides_the_digit_8() {
    let bytes = include_bytes!("../../../../assets/digits_wbb.npz");
    let d = rvalue_core::io::read_scores("digits_wbb.npz", bytes).unwrap();
    let c = Controls {
        mode: Mode::Scores,
        splits: 20,
        score: ScoreOptions { kind: RvalueKind::Pooled, ..Controls::score_defaults(Mode::Scores) },
        ..Controls::default()
    };
    let a = Analysis::build(Source::Data(Arc::new(d)), &c).unwrap();
    let v = a.at_alpha(0.1, false).unwrap();
    let cv = ClassView::new(&v, a.k, false);
    assert_eq!(cv.worst[0].class, 8);
    for (r, m) in v.rows.iter().zip(&cv.methods) {
        assert!(r.coverage_mean > 0.9, "{:?} {}", r.method, r.coverage_mean);
        assert!(m.coverage.iter().flatten().any(|&x| x < 0.82), "{:?}", m.method);
    }
    for m in &cv.methods[1..] {
        assert!(m.coverage[8].unwrap() < 0.8, "{:?}", m.method);
    }
    // A threshold per class lifts the digit 8 to about 1 − α, at a cost in set size; the tour's
    // sentence quotes both analyses.
    let pc = Controls { score: ScoreOptions { coverage: Coverage::PerClass, ..c.score }, ..c };
    let d = rvalue_core::io::read_scores("digits_wbb.npz", bytes).unwrap();
    let b = Analysis::build(Source::Data(Arc::new(d)), &pc).unwrap();
    let w = b.at_alpha(0.1, false).unwrap();
    let after = ClassView::new(&w, b.k, false).methods[2].coverage[8].unwrap();
    assert!(after > 0.85 && w.rows[2].size_mean > v.rows[2].size_mean, "{after}");
    let text = per_class_outcome(&v, &w, a.k, None).unwrap();
    let f = |x: f64| crate::scales::fixed(x, 3);
    let was = f(cv.methods[2].coverage[8].unwrap());
    assert!(text.starts_with(&format!("CP_r's weakest class (8) was covered {was} ")), "{text}");
    assert!(text.contains(&format!(" is covered {} with a threshold per class", f(after))), "{text}");
}
