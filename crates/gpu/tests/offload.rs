//! The offload hook: results handed in give the analysis the job computes itself, bit for bit
//! (from the GPU path's CPU twins, and natively from a real adapter when there is one), and
//! results for another step are refused.

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rvalue_core::conformal::{Calibrated, Method, RvalueKind, ScoreOptions, Split};
use rvalue_core::io::Dataset;
use rvalue_core::rvalue::TieOrder;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::toy::{self, ToyParams};
use rvalue_gpu::{self as gpu, keys::Keys};
use rvalue_model::{Analysis, AnalysisJob, Controls, Mode, Offload, Source};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// Equal down to the last bit, as their debug output shows it.
fn same<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// Two analyses agree bit for bit: every method's calibrations, both α sweeps, the answers at
/// one α and an inspected item (as the core's explorer tests check them).
fn assert_same_analysis(a: &Analysis, b: &Analysis, what: &str) {
    for m in Method::PAPER {
        assert!(same(&a.calibrated(m), &b.calibrated(m)), "{what} {m:?}");
    }
    for ne in [false, true] {
        assert_eq!(a.sweep(ne), b.sweep(ne), "{what}");
        assert!(same(&a.at_alpha(0.1, ne).unwrap(), &b.at_alpha(0.1, ne).unwrap()), "{what}");
    }
    assert!(same(&a.inspect(3, 0.2, false).unwrap(), &b.inspect(3, 0.2, false).unwrap()), "{what}");
}

fn controls(kind: RvalueKind) -> Controls {
    let base = Controls {
        toy: ToyParams { k: 5, m: 7, n_cal: 20, n_test: 25, repeats: 2, ..ToyParams::default() },
        sigma2: 50.0,
        splits: 3,
        ..Controls::default()
    };
    Controls { score: ScoreOptions { kind, ..base.score }, ..base }
}

/// The toy as one score file (three random splits) and as toy repeats (one split each).
fn sources(c: &Controls) -> Vec<(Source, Controls)> {
    let (scores, labels) = toy::simulate(&c.toy_params(), 0).unwrap();
    let data = Arc::new(Dataset { scores, labels: Some(labels), single_draw: false });
    let file = Controls { mode: Mode::Scores, ..c.clone() };
    vec![(Source::Toy(c.toy_params()), c.clone()), (Source::Data(data), file)]
}

/// Nonparametric r-values from the GPU kernels' CPU twin (rank counts, then the greedy).
fn twin_rvalues(t: &ScoreTensor) -> Vec<f64> {
    let (n, m, k) = (t.n(), t.m(), t.k());
    let counts = gpu::cpu::rank_counts(&Keys::of_tensor(t), n, m, k);
    counts
        .chunks_exact(k * k)
        .flat_map(|c| rvalue_core::rvalue::nonparametric::nonparametric_from_counts(c, k))
        .collect()
}

fn twin_pooled(t: &ScoreTensor, labels: &[usize], split: &Split, ties: TieOrder) -> Calibrated {
    let items = gpu::pooled_items_cpu(t, &Keys::of_tensor(t), labels, split, ties).unwrap();
    Calibrated::from_pooled_items(t.k(), labels, split, &items)
}

/// Steps `job`, answering every offload request with `rvalues` / `pooled`; how many were
/// answered.
fn run_with(
    mut job: AnalysisJob,
    rvalues: impl Fn(&ScoreTensor) -> Vec<f64>,
    pooled: impl Fn(&ScoreTensor, &[usize], &Split, TieOrder) -> Calibrated,
) -> (Analysis, usize) {
    let mut answered = 0;
    loop {
        if let Some(req) = job.offload() {
            let before = job.fraction_done();
            assert_eq!(job.fraction_done_offloaded(0.0), before);
            let half = job.fraction_done_offloaded(0.5);
            let t = req.tensor.get().unwrap();
            match req.what {
                Offload::Nonparametric => job.supply_rvalues(req.part, rvalues(t)).unwrap(),
                Offload::Pooled { index, split, ties, items_per_step, coverage } => {
                    assert!(items_per_step >= 1);
                    // The twin calibrates marginally: the requests here ask for that.
                    assert_eq!(coverage, rvalue_core::conformal::Coverage::Marginal);
                    job.supply_pooled(req.part, index, pooled(t, &req.labels, &split, ties)).unwrap()
                }
            }
            answered += 1;
            // The bar moves while the work is done elsewhere, and on when it is handed in.
            assert!(before < half && half < job.fraction_done(), "{before} {half} {}", job.fraction_done());
        } else if job.step().unwrap() == rvalue_model::Progress::Done {
            return (job.finish().unwrap(), answered);
        }
    }
}

/// Requests per analysis: one per part for nonparametric r-values, one per split for pooled.
fn expected_requests(kind: RvalueKind, source: &Source, c: &Controls) -> usize {
    let parts = match source {
        Source::Toy(p) => p.repeats,
        Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_) => 1,
    };
    match (kind, source) {
        (RvalueKind::Nonparametric, _) => parts,
        (_, Source::Toy(_)) => parts,
        (_, Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_)) => c.splits,
    }
}

#[test]
fn results_handed_in_equal_what_the_job_computes() {
    for kind in [RvalueKind::Nonparametric, RvalueKind::Pooled] {
        for (source, c) in sources(&controls(kind)) {
            let what = format!("{kind:?} {:?}", c.mode);
            let own = AnalysisJob::new(source.clone(), &c).unwrap().run().unwrap();
            let job = AnalysisJob::new(source.clone(), &c).unwrap().with_budget(50);
            let (handed, answered) = run_with(job, twin_rvalues, twin_pooled);
            assert_eq!(answered, expected_requests(kind, &source, &c), "{what}");
            assert_same_analysis(&own, &handed, &what);
        }
    }
}

#[test]
fn parametric_r_values_ask_for_nothing() {
    for (source, c) in sources(&controls(RvalueKind::Parametric)) {
        let job = AnalysisJob::new(source, &c).unwrap();
        let (_, answered) = run_with(job, |_| unreachable!(), |_, _, _, _| unreachable!());
        assert_eq!(answered, 0);
    }
}

#[test]
fn results_for_another_step_are_refused_and_change_nothing() {
    let c = controls(RvalueKind::Pooled);
    let (source, c) = sources(&c).pop().unwrap();
    let mut job = AnalysisJob::new(source.clone(), &c).unwrap();
    // Before loading there is nothing to hand in.
    assert!(job.offload().is_none());
    assert!(job.supply_rvalues(0, vec![0.0; 5]).is_err());
    while job.offload().is_none() {
        job.step().unwrap();
    }
    let req = job.offload().unwrap();
    let Offload::Pooled { index, split, ties, .. } = req.what.clone() else { panic!("{:?}", req.what) };
    let t = req.tensor.get().unwrap();
    let good = twin_pooled(t, &req.labels, &split, ties);
    // Nonparametric r-values, another split, another part, another split's items: refused.
    assert!(job.supply_rvalues(req.part, twin_rvalues(t)).is_err());
    assert!(job.supply_pooled(req.part, index + 1, good.clone()).is_err());
    assert!(job.supply_pooled(req.part + 1, index, good.clone()).is_err());
    let other = Split { cal: split.test.clone(), test: split.cal.clone(), ..split.clone() };
    assert!(job.supply_pooled(req.part, index, twin_pooled(t, &req.labels, &other, ties)).is_err());
    assert_eq!(job.offload().map(|r| r.what), Some(req.what));
    // The right one is taken once; the job then asks for the next split.
    job.supply_pooled(req.part, index, good.clone()).unwrap();
    assert!(job.supply_pooled(req.part, index, good).is_err());
    let (handed, _) = run_with(job, twin_rvalues, twin_pooled);
    let own = AnalysisJob::new(source, &c).unwrap().run().unwrap();
    assert_same_analysis(&own, &handed, "after refusals");
}

#[test]
fn nonparametric_rvalues_of_the_wrong_shape_are_refused() {
    let c = controls(RvalueKind::Nonparametric);
    let (source, c) = sources(&c).pop().unwrap();
    let mut job = AnalysisJob::new(source, &c).unwrap();
    while job.offload().is_none() {
        job.step().unwrap();
    }
    let req = job.offload().unwrap();
    let mut r = twin_rvalues(req.tensor.get().unwrap());
    r.pop();
    assert!(job.supply_rvalues(req.part, r).is_err());
    assert!(job.offload().is_some(), "still waiting for the r-values");
}

/// The same through a real adapter (lavapipe natively), as the page does through WebGPU.
#[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
#[test]
fn gpu_results_handed_in_equal_what_the_job_computes() {
    let g = match gpu::Gpu::new() {
        Ok(g) => g,
        Err(_) if std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") => return,
        Err(e) => panic!("no GPU adapter ({e}); install mesa-vulkan-drivers or set RVALUE_SKIP_GPU_TESTS=1"),
    };
    let rvalues = |t: &ScoreTensor| gpu::nonparametric_rvalues(&g, t, &Keys::of_tensor(t)).unwrap();
    let pooled = |t: &ScoreTensor, labels: &[usize], split: &Split, ties: TieOrder| {
        gpu::pooled_calibrated(&g, t, &Keys::of_tensor(t), labels, split, ties).unwrap()
    };
    for kind in [RvalueKind::Nonparametric, RvalueKind::Pooled] {
        for (source, c) in sources(&controls(kind)) {
            let own = AnalysisJob::new(source.clone(), &c).unwrap().run().unwrap();
            let (handed, answered) = run_with(AnalysisJob::new(source.clone(), &c).unwrap(), rvalues, pooled);
            assert_eq!(answered, expected_requests(kind, &source, &c));
            assert_same_analysis(&own, &handed, &format!("GPU {kind:?} {:?}", c.mode));
        }
    }
}
