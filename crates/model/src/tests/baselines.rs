//! The page's baselines (APS, RAPS, SAPS): the stepped job equals the core's calibration (the
//! command line's) on the same data and splits, and with the baselines off the analysis is the
//! paper's three methods' as before, bit for bit.

use crate::tests::{assert_same_analysis, same, small_controls, sources};
use crate::*;
use rvalue_core::conformal::{evaluate, sweep, Baseline, Coverage, Method, Prepared, ScoreOptions, Split};
use rvalue_core::probability::ScoresAre;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The small controls with every baseline on, in the variants the page offers.
fn with_baselines() -> Vec<Controls> {
    let base = Controls { baselines: [true; 3], ..small_controls() };
    let deterministic = Baseline { randomized: false, raps_kreg: 1.0, ..Baseline::default() };
    vec![
        base.clone(),
        Controls {
            score: ScoreOptions { baseline: deterministic, coverage: Coverage::PerClass, ..base.score },
            ..base.clone()
        },
    ]
}

/// Method `m`'s calibrations by the core (as the command line makes them) on `src`'s data sets
/// and splits, made here: a toy's repeats simulated, their draws read as logits.
fn core_calibrations(src: &Source, c: &Controls, m: Method) -> Vec<rvalue_core::conformal::Calibrated> {
    let mut out = Vec::new();
    match src {
        Source::Toy(p) => {
            let opts = ScoreOptions { scores_are: ScoresAre::Logits, ..c.score };
            for r in 0..p.repeats {
                let (t, y) = rvalue_core::toy::simulate(p, r).unwrap();
                let split =
                    Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect()).keyed(p.seed, r as u64);
                out.extend(Prepared::new(&t, &y, false).unwrap().calibrate(m, &opts, &[split]).unwrap());
            }
        }
        Source::Data(d) => {
            let y = d.labels.clone().unwrap();
            let splits = c.split_plan().splits(d.scores.n()).unwrap();
            out = Prepared::new(&d.scores, &y, false).unwrap().calibrate(m, &c.score, &splits).unwrap();
        }
        _ => unreachable!("toy or held data"),
    }
    out
}

#[test]
fn baselines_equal_the_cores_calibration() {
    for c in with_baselines() {
        for (src, c) in sources(&c) {
            let mut job = AnalysisJob::new(src.clone(), &c).unwrap().with_budget(7);
            let mut last = 0.0;
            while job.step().unwrap() != Progress::Done {
                let f = job.fraction_done();
                assert!((last..1.0).contains(&f) && !job.describe().is_empty(), "{f} after {last}");
                last = f;
            }
            assert!(last > 0.95, "{last}");
            let a = job.finish().unwrap();
            let want = [Method::Cp, Method::CpAvg, Method::CpR, Method::Aps, Method::Raps, Method::Saps];
            assert_eq!(a.methods(), &want[..]);
            assert_same_analysis(&Analysis::build(src.clone(), &c).unwrap(), &a, "baselines");
            for (mi, m) in Method::BASELINES.into_iter().enumerate() {
                let core = core_calibrations(&src, &c, m);
                assert!(!core.is_empty() && same(&a.calibrated(m), &&core[..]), "{m:?}");
                for ne in [false, true] {
                    let view = a.at_alpha(0.1, ne).unwrap();
                    let row = &view.rows[3 + mi];
                    let s = evaluate(&core, m, 0.1, ne).unwrap();
                    assert_eq!(
                        (row.method, row.coverage_mean, row.size_mean),
                        (m, s.coverage_mean, s.size_mean)
                    );
                    let sw = a.sweep(ne);
                    let fresh = sweep(&core, &sw.alphas, ne);
                    assert_eq!(fresh.iter().map(|x| x.1).collect::<Vec<_>>(), sw.size[3 + mi]);
                }
                let item = a.inspect(2, 0.2, false).unwrap();
                let set = core[0].set(2, 0.2, false);
                let col = &item.methods[3 + mi];
                assert_eq!(col.method, m);
                assert!(col.ranked.iter().all(|r| r.in_set == set.contains(r.candidate)), "{m:?}");
            }
            // The toy's are read as logits; the file made of its draws is no probabilities, so
            // `auto` reads logits too.
            assert_eq!(a.scores_read_as(), Some(ScoresAre::Logits));
        }
    }
}

#[test]
fn baselines_off_leave_the_papers_three_as_they_were() {
    for (src, c) in sources(&small_controls()) {
        let off = AnalysisJob::new(src.clone(), &c).unwrap().run().unwrap();
        assert_eq!(off.methods(), &Method::PAPER[..]);
        assert_eq!(off.scores_read_as(), None);
        let on = Controls { baselines: [false, true, false], ..c.clone() };
        let on = AnalysisJob::new(src.clone(), &on).unwrap().run().unwrap();
        assert_eq!(on.methods(), &[Method::Cp, Method::CpAvg, Method::CpR, Method::Raps][..]);
        assert!(off.calibrated(Method::Raps).is_empty() && off.summary(Method::Raps, 0.1, false).is_err());
        for m in Method::PAPER {
            assert!(same(&off.calibrated(m), &on.calibrated(m)), "{m:?}");
        }
        for ne in [false, true] {
            let (a, b) = (off.sweep(ne), on.sweep(ne));
            assert_eq!((&a.coverage[..], &a.size[..]), (&b.coverage[..3], &b.size[..3]));
            let (a, b) = (off.at_alpha(0.1, ne).unwrap(), on.at_alpha(0.1, ne).unwrap());
            assert!(same(&a.rows, &b.rows[..3].to_vec()) && same(&a.reduction_vs_cp, &b.reduction_vs_cp));
        }
        let (a, b) = (off.inspect(3, 0.2, false).unwrap(), on.inspect(3, 0.2, false).unwrap());
        assert!(same(&a.methods, &b.methods[..3].to_vec()));
    }
}

#[test]
fn a_toys_partial_analysis_shows_the_papers_three() {
    let c = Controls { baselines: [true; 3], ..small_controls() };
    let mut job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
    let mut seen = false;
    while job.step().unwrap() != Progress::Done {
        if let Some(p) = job.partial() {
            assert_eq!(p.methods(), &Method::PAPER[..]);
            assert_eq!(p.sweep(false).coverage.len(), 3);
            seen = true;
        }
    }
    assert!(seen);
    assert_eq!(job.finish().unwrap().methods().len(), 6);
}

#[test]
fn bad_baseline_parameters_are_one_clear_error() {
    let mut c = Controls { baselines: [false, true, false], ..small_controls() };
    c.score.baseline.raps_lambda = -1.0;
    let e = AnalysisJob::new(Source::Toy(c.toy_params()), &c).and_then(|j| j.run()).unwrap_err();
    assert!(e.to_string().contains("RAPS's λ"), "{e}");
}
