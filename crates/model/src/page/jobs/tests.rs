use std::sync::Arc;

use super::*;
use crate::page::{Loaded, StreamedHandle};
use crate::tests::assert_same_analysis;
use crate::url::DataRef;
use crate::{Source, StreamedFile};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::conformal::RvalueKind;
use rvalue_core::io::{write_npy_f32, BlockLayout, Dataset};
use rvalue_core::toy::{self, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A page without a GPU.
struct Cpu;

impl JobDevice for Cpu {
    fn progress(&self) -> Option<f64> {
        None
    }
}

/// A page whose clock moves `tick` ms at each reading, with a GPU that takes every call
/// (`gpu`), recording the partial analyses it shows.
struct Page {
    clock: std::cell::Cell<f64>,
    tick: f64,
    gpu: bool,
    shown: Vec<(String, bool)>,
}

impl Page {
    fn new(tick: f64, gpu: bool) -> Page {
        Page { clock: 0.0.into(), tick, gpu, shown: Vec::new() }
    }
}

impl SlicePage<Cpu> for Page {
    fn now(&self) -> f64 {
        self.clock.set(self.clock.get() + self.tick);
        self.clock.get()
    }

    fn offload(&mut self, _: &mut AnalysisJob, _: &mut Cpu) -> bool {
        self.gpu
    }

    fn show_partial(&mut self, _: Analysis, what: String, first: bool) {
        self.shown.push((what, first));
    }

    fn showing(&self) -> &str {
        "the last"
    }
}

#[derive(Clone)]
struct Handle(Arc<StreamedFile>);

impl StreamedHandle for Handle {
    fn info(&self) -> &Arc<StreamedFile> {
        &self.0
    }
}

fn toy(repeats: usize) -> Controls {
    Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 30, n_test: 20, repeats, ..ToyParams::default() },
        ..Controls::default()
    }
}

fn scores(kind: RvalueKind) -> Controls {
    let mut c = Controls { mode: Mode::Scores, ..Controls::default() };
    c.score.kind = kind;
    c
}

/// A source holding a toy file, with true-label draws beside it when `draws`.
fn held(draws: bool) -> DataSource<Handle> {
    let p = ToyParams { k: 3, m: 4, n_cal: 10, n_test: 7, ..ToyParams::default() };
    let (t, y) = toy::simulate(&p, 0).unwrap();
    let d = Dataset { scores: t, labels: Some(y), single_draw: false };
    let draws = draws.then(|| Arc::new(TrueDraws::new(5, 4, vec![0.5; 20]).unwrap()));
    let l = Loaded::checked("a.npy".into(), Ok(d), (None, draws), &scores(RvalueKind::Pooled)).unwrap();
    let mut s = DataSource::new(DataRef::None, 0, false);
    s.put_in(l, DataRef::Upload);
    s
}

/// Pooled CP_r on a streamed file: a long job.
fn streamed_pooled() -> AnalysisJob {
    let (n, m, k) = (6, 2, 3);
    let bytes = write_npy_f32(&[n, m, k], &vec![0.5; n * m * k]);
    let layout = BlockLayout::of_npy_head("big.npy", &bytes[..128], bytes.len() as u64).unwrap();
    let f = Arc::new(StreamedFile::new("big.npy".into(), layout, vec![0, 1, 2, 0, 1, 2]).unwrap());
    AnalysisJob::new(Source::Streamed(f), &scores(RvalueKind::Pooled)).unwrap()
}

#[test]
fn a_start_waits_for_a_file_or_for_a_panel_that_needs_one() {
    assert_eq!(waits(&toy(2), false, false), Some((String::new(), State::Idle)));
    let c = scores(RvalueKind::Parametric);
    assert_eq!(waits(&c, false, true), Some((status::NO_FILE.to_string(), State::Note)));
    assert_eq!(waits(&c, true, true), None);
    assert_eq!(waits(&toy(2), false, true), None);
}

#[test]
fn a_plan_names_its_data_or_says_why_not() {
    let none = DataSource::<Handle>::new(DataRef::None, 0, false);
    assert!(matches!(plan(&toy(2), &none), Plan::Run(_, w) if w == "toy, 2 repeats"));
    match plan(&scores(RvalueKind::Parametric), &none) {
        Plan::Failed(m) => assert!(m.ends_with(PREVIOUS_SETTINGS), "{m}"),
        _ => panic!("score mode without a file"),
    }
    let c = scores(RvalueKind::Parametric);
    let what = format!("a.npy, {} splits", c.splits);
    assert!(matches!(plan(&c, &held(false)), Plan::Run(_, w) if w == what));
    assert!(matches!(plan(&c, &held(true)), Plan::Note(n) if n.starts_with("Parametric CP_r needs")));
    let pooled = plan(&scores(RvalueKind::Pooled), &held(true));
    assert!(matches!(pooled, Plan::Run(_, w) if w.contains("of the pool's 5 true-label draws")));
}

#[test]
fn a_long_job_waits_for_start_and_needs_workers() {
    let mut jobs = Jobs::<Cpu>::default();
    let toy_job = AnalysisJob::new(Source::Toy(toy(2).toy_params()), &toy(2)).unwrap();
    assert!(jobs.admit(toy_job, "toy", 0).is_some(), "a short job runs at once");
    assert!(jobs.admit(streamed_pooled(), "big", 0).is_none());
    assert_eq!(jobs.state(), State::Note);
    assert!(jobs.status().contains("needs worker threads") && !jobs.is_awaiting(), "{}", jobs.status());
    assert!(jobs.admit(streamed_pooled(), "big", 2).is_none());
    assert_eq!(jobs.state(), State::Confirm);
    let (job, what) = jobs.take_awaiting().expect("kept for Start");
    assert_eq!(what, "big");
    jobs.run(job, what, Cpu, 0.0, 0);
    assert_eq!(jobs.state(), State::Running);
    assert!(jobs.starved(0).is_some_and(|w| w.contains("big.npy")));
    assert!(jobs.starved(1).is_none());
    assert!(jobs.drop_running(), "its workers may be busy");
    assert_eq!(jobs.state(), State::Confirm);
}

#[test]
fn slices_run_the_job_to_the_whole_analysis() {
    let c = toy(3);
    let mut jobs = Jobs::<Cpu>::default();
    for n in 1..=2 {
        let job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
        jobs.run(job, "toy".into(), Cpu, 0.0, 0);
        assert_eq!(jobs.running().map(Run::serial), Some(n), "jobs are numbered");
        assert!(jobs.running_serial(n).is_some() && jobs.running_serial(n + 1).is_none());
    }
    let mut page = Page::new(1.0, false);
    let mut slices = 0;
    let done = loop {
        slices += 1;
        match jobs.slice(page.now(), false, &mut page) {
            Slice::Paused => assert!(jobs.status().ends_with("Showing the last."), "{}", jobs.status()),
            Slice::Done(run) => break run.finish(|_| "", 0.0),
            Slice::Failed(e) => panic!("{e}"),
        }
    };
    assert!(slices > 1 && !jobs.is_running());
    assert_eq!(page.shown.first(), Some(&("toy, 1 of 3 repeats so far".to_string(), true)));
    let whole = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap().run().unwrap();
    assert_same_analysis(&done.analysis.unwrap(), &whole, "sliced");
}

#[test]
fn a_slice_ends_at_its_budget_at_an_alpha_move_or_on_the_gpu() {
    let c = toy(2);
    let started = |jobs: &mut Jobs<Cpu>| {
        let job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
        jobs.run(job, "toy".into(), Cpu, 0.0, 0);
    };
    let mut jobs = Jobs::default();
    started(&mut jobs);
    let mut gpu = Page::new(1.0, true);
    assert!(matches!(jobs.slice(0.0, false, &mut gpu), Slice::Paused));
    assert!(jobs.status().contains("on the GPU"), "{}", jobs.status());
    assert_eq!(jobs.running().unwrap().job().fraction_done(), 0.0, "not stepped here");
    // A step per slice: the budget spent, or an α move waiting to be drawn.
    for (tick, alpha) in [(FRAME_BUDGET_MS, false), (0.0, true)] {
        started(&mut jobs);
        let mut page = Page::new(tick, false);
        let before = jobs.running().unwrap().job().fraction_done();
        assert!(matches!(jobs.slice(0.0, alpha, &mut page), Slice::Paused));
        let after = jobs.running().unwrap().job().fraction_done();
        assert!(after > before && after < 0.5, "{before} → {after}");
    }
}

#[test]
fn the_progress_shows_the_job_or_the_analysis_on_show() {
    let mut jobs = Jobs::<Cpu>::default();
    let idle = ProgressView { value: 0.0, idle: true, awaiting: false, status: "", state: State::Idle };
    assert_eq!(jobs.view(false), idle);
    assert_eq!(jobs.view(true).value, 1.0);
    jobs.admit(streamed_pooled(), "big", 1);
    let view = jobs.view(true);
    assert!(!view.idle && view.awaiting && view.state == State::Confirm, "{view:?}");
    let (job, what) = jobs.take_awaiting().unwrap();
    jobs.run(job, what, Cpu, 0.0, 1);
    let view = jobs.view(true);
    assert_eq!((view.value, view.idle, view.awaiting, view.state), (0.0, false, false, State::Running));
}

#[test]
fn the_progress_edits_write_the_bar_buttons_and_status_line() {
    use crate::edits::Edit;
    let mut jobs = Jobs::<Cpu>::default();
    jobs.say("Showing toy.".into(), State::Ready);
    let e = jobs.view(true).edits(7);
    assert_eq!(e.attr_of(ids::PROGRESS, "value"), Some("1"));
    assert!(e.0.contains(&Edit::Disabled(ids::CANCEL.into(), true)), "idle: nothing to cancel");
    assert_eq!(e.hidden_of(ids::START_LONG), Some(true));
    assert_eq!(e.text_of(ids::STATUS), Some("Showing toy."));
    assert_eq!(e.attr_of(ids::STATUS, "data-state"), Some(State::Ready.name()));
    assert_eq!(e.attr_of(ids::STATUS, "data-shown"), Some("7"));
    jobs.admit(streamed_pooled(), "big", 1);
    let e = jobs.view(false).edits(7);
    assert_eq!(e.hidden_of(ids::START_LONG), Some(false), "a long job awaits Start");
    assert!(e.0.contains(&Edit::Disabled(ids::CANCEL.into(), false)));
    assert_eq!(e.attr_of(ids::STATUS, "data-state"), Some(State::Confirm.name()));
    let (job, what) = jobs.take_awaiting().unwrap();
    jobs.run(job, what, Cpu, 0.0, 1);
    assert_eq!(jobs.view(true).edits(8).attr_of(ids::PROGRESS, "value"), Some("0"));
}

/// The chain the page runs when the reader picks "Your scores" and then a sample: the score
/// defaults, the note asking for a file, the file's analysis, σ² moved to the file's median
/// variance, and a link naming the view and the sample.
#[test]
fn switching_to_scores_uses_the_default_r_value_and_a_loaded_file() {
    use crate::page::inputs::for_mode;
    use crate::url::UrlState;
    use rvalue_core::conformal::{Method, Prior};
    use rvalue_core::io::read_scores;
    let toy = Controls { splits: 3, ..toy(3) };
    let toy = Controls { toy: ToyParams { k: 5, m: 8, n_cal: 60, n_test: 40, ..toy.toy.clone() }, ..toy };
    let (mut c, _) = for_mode(&toy, Mode::Scores, false, false);
    assert_eq!((c.score.kind, c.score.prior), (RvalueKind::Parametric, Prior::Pooled));
    assert_eq!(waits(&c, false, true).map(|w| w.1), Some(State::Note));
    let sample = DataRef::Sample("small_long.csv".into());
    let mut source = DataSource::<Handle>::new(DataRef::None, 0, false);
    let data = read_scores("small_long.csv", include_bytes!("../../../../../assets/small_long.csv"));
    let loaded = Loaded::checked("small_long.csv".into(), data, (None, None), &c).unwrap();
    assert_eq!(source.put_in(loaded, sample.clone()), 0);
    let Plan::Run(job, what) = plan(&c, &source) else { panic!("a job on the file") };
    assert_eq!(what, "small_long.csv, 3 splits");
    let a = job.run().unwrap();
    assert!(source.take_sigma2_from_data());
    c.sigma2 = a.sigma2_start().expect("a file's median variance");
    let link = UrlState { controls: c.clone(), data: sample, ..UrlState::default() }.to_query();
    let sigma2 = c.sigma2;
    assert_eq!(
        link,
        format!(
            "mode=scores&sigma2={sigma2}&k=5&m=8&n-cal=60&n-test=40&repeats=3&splits=3&sample=small_long.csv"
        )
    );
    assert_eq!(a.calibrated(Method::CpR).len(), 3);
}

#[test]
fn cancel_drops_the_running_job_or_declines_the_long_one() {
    let mut jobs = Jobs::<Cpu>::default();
    assert_eq!(jobs.cancel(), None, "nothing to cancel");
    jobs.admit(streamed_pooled(), "big", 1);
    assert_eq!(jobs.cancel(), Some((true, false)), "declined");
    assert!(!jobs.is_awaiting());
    jobs.run(streamed_pooled(), "big".into(), Cpu, 0.0, 1);
    assert_eq!(jobs.cancel(), Some((false, true)), "its workers may be busy");
    let c = toy(2);
    jobs.run(AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap(), "toy".into(), Cpu, 0.0, 0);
    assert_eq!(jobs.cancel(), Some((false, false)));
    assert!(!jobs.is_running());
}
