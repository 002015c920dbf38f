use super::*;
use crate::tests::assert_same_analysis;
use crate::{Controls, Source};
use rvalue_core::toy::ToyParams;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A job's GPU calls as a page without a GPU has them, or with one call `done` so far.
struct Gpu(Option<f64>);

impl JobDevice for Gpu {
    fn progress(&self) -> Option<f64> {
        self.0
    }
}

fn toy(repeats: usize) -> Controls {
    Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 30, n_test: 20, repeats, ..ToyParams::default() },
        ..Controls::default()
    }
}

fn run(c: &Controls, gpu: Gpu) -> Run<Gpu> {
    let job = AnalysisJob::new(Source::Toy(c.toy_params()), c).unwrap();
    Run::new(job, "toy".into(), gpu, 7, 1000.0, 0)
}

/// Steps `r` until `parts` toy repeats are done.
fn step_to(r: &mut Run<Gpu>, parts: usize) {
    while r.job().parts().0 < parts {
        assert!(!matches!(r.step().unwrap(), Progress::Done));
    }
}

#[test]
fn partials_come_first_at_once_then_at_a_pace() {
    let mut r = run(&toy(4), Gpu(None));
    assert!(r.partial(1000.0).is_none(), "no repeat done");
    step_to(&mut r, 1);
    let (p, what, first) = r.partial(1010.0).expect("the first repeat at once");
    assert_eq!((what.as_str(), first, p.controls.toy.repeats), ("toy, 1 of 4 repeats so far", true, 1));
    assert!(r.partial(1020.0).is_none(), "nothing new");
    step_to(&mut r, 2);
    assert!(r.partial(1100.0).is_none(), "too soon after the first");
    let (_, what, first) = r.partial(1100.0 + status::PARTIAL_EVERY_MS * 10.0).expect("due");
    assert_eq!((what.as_str(), first), ("toy, 2 of 4 repeats so far", false));
}

#[test]
fn progress_is_written_a_few_times_a_second_or_for_a_new_analysis() {
    let mut r = run(&toy(2), Gpu(None));
    assert!(r.progress_due(0.0, 1));
    assert!(!r.progress_due(PROGRESS_EVERY_MS / 2.0, 1));
    assert!(r.progress_due(PROGRESS_EVERY_MS / 2.0, 2), "another analysis on show");
    assert!(r.progress_due(PROGRESS_EVERY_MS * 2.0, 2));
}

#[test]
fn the_gpu_call_under_way_counts_in_the_progress() {
    let (r, on_gpu) = (run(&toy(2), Gpu(None)), run(&toy(2), Gpu(Some(0.5))));
    assert_eq!(r.fraction_done(), r.job().fraction_done());
    let line = on_gpu.status_on_gpu(3000.0, "before");
    assert!(line.contains("on the GPU") && line.ends_with("Showing before."), "{line}");
    let line = r.status(3000.0, "before");
    assert!(line.starts_with(&r.job().describe()) && !line.contains("GPU"), "{line}");
}

#[test]
fn a_finished_run_is_the_whole_jobs_analysis_with_where_it_ran() {
    let c = toy(3);
    let mut r = run(&c, Gpu(None));
    while r.step().unwrap() != Progress::Done {}
    r.from_worker(true);
    r.from_worker(false);
    assert_eq!((r.serial(), r.what()), (7, "toy"));
    let done = r.finish(|_| " on the CPU", 3500.0);
    assert_eq!((done.what.as_str(), done.secs), ("toy", 2.5));
    assert_eq!(done.note, " on the CPU; 1 of the repeats in worker threads");
    let whole = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap().run().unwrap();
    assert_same_analysis(&done.analysis.unwrap(), &whole, "stepped by the page");
}
