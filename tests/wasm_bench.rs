//! The native benchmark's workloads (`rvalue_bench::Suite`) timed as wasm in headless Chromium.
//! Only built with `--cfg rvalue_bench` (`make bench-wasm`): a release build that prints its
//! figures, not a test of anything.
#![cfg(all(target_arch = "wasm32", rvalue_bench))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_bench::Suite;
use rvalue_core::conformal::{item_scores_only, needed_candidates, Method, Prior, ScoreOptions, Split};
use rvalue_core::rvalue::TieOrder;
use rvalue_core::tensor::Summaries;
use rvalue_core::toy::{simulate, ToyParams};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Fastest and median of `runs` timings in ms.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    std::hint::black_box(f());
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = now();
            std::hint::black_box(f());
            now() - t
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms[0], ms[ms.len() / 2])
}

#[wasm_bindgen_test]
fn wasm_benchmarks() {
    let s = Suite::new();
    let lines = [
        ("draw orders (once per data set)", time(5, || s.draw_orders())),
        ("pooled CP_r, one split (1000 test items)", time(5, || s.data.pooled_split(TieOrder::Exchangeable))),
        ("per-item nonparametric r-values (incl. draw orders)", time(5, || s.nonparametric())),
        ("per-item parametric exact r-values (model rule)", time(3, || s.parametric_exact())),
        ("α sweep, 100 values, pooled CP_r, one split", time(5, || s.sweep_pooled())),
        ("α sweep, 100 values, CP_avg, one split", time(5, || s.sweep_avg())),
        ("parametric grid r-values, 100,000 units", time(3, || s.grid_100k())),
    ];
    for (name, (min, median)) in lines {
        console_log!("wasm-bench {name:56} {min:9.2} ms (median {median:9.2})");
    }
}

/// One toy repeat at the defaults (1000 items × 30 draws × 10 candidates): the simulator and the
/// per-item summaries, the part of a repeat before its r-values.
#[wasm_bindgen_test]
fn wasm_toy_benchmark() {
    let p = ToyParams::default();
    let (min, median) = time(30, || simulate(&p, 0).map(|(t, _)| Summaries::of(&t)));
    let name = "toy repeat at the defaults: simulate + summaries";
    console_log!("wasm-bench {name:56} {min:9.2} ms (median {median:9.2})");
}

/// CP_r's parametric exact r-values (model rule, prior pooled over items) of one toy repeat at
/// the defaults, as the explorer's job computes them: every candidate of the test items, the
/// true label's alone of the calibration items. Repeat 1 of seed 1 has a pooled τ² > 0 (0.034);
/// at τ² = 0 every r-value is cheap, so such repeats are the ones that cost.
#[wasm_bindgen_test]
fn wasm_toy_rvalues_benchmark() {
    let p = ToyParams::default();
    let Ok((t, labels)) = simulate(&p, 1) else { panic!("the toy at its defaults simulates") };
    let summaries = Summaries::of(&t);
    let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect());
    let only = needed_candidates(&labels, &[split]);
    let opts = ScoreOptions { prior: Prior::Pooled, ..ScoreOptions::default() };
    let (min, median) = time(30, || item_scores_only(&t, &summaries, None, Method::CpR, &opts, &only));
    let name = "toy repeat 1, CP_r parametric scores, pooled prior";
    console_log!("wasm-bench {name:56} {min:9.2} ms (median {median:9.2})");
}

/// The explorer's whole toy analysis at the page's defaults (50 repeats, the page's score
/// options), stepped to the end on one thread: what the page computes after a seed change,
/// without its frames, painting or workers.
#[wasm_bindgen_test]
fn wasm_toy_job_benchmark() {
    use rvalue_model::{AnalysisJob, Controls, Progress, Source};
    let c = Controls::default();
    let run = || {
        let Ok(mut job) = AnalysisJob::new(Source::Toy(c.toy_params()), &c) else { return 0 };
        let mut steps = 0;
        while let Ok(Progress::Working(_)) = job.step() {
            steps += 1;
        }
        steps
    };
    let (min, median) = time(3, run);
    let name = "toy defaults, the explorer's whole job (50 repeats)";
    console_log!("wasm-bench {name:56} {min:9.2} ms (median {median:9.2})");
}
