//! The analysis job on the page: started for the controls (the model's [`jobs::plan`]),
//! stepped a slice per frame ([`Jobs::slice`](rvalue_model::page::Jobs::slice)) with its slow
//! parts handed to the GPU or the workers, shown partially while it runs and whole when done,
//! cancelled on request; its progress bar, status line and the "Compute:" line.

use std::cell::RefCell;
use std::rc::Weak;

use web_sys::Document;

use super::compute::{on_reply, Running};
use super::replies::offloaded;
use super::App;
use crate::ui::dom;
use rvalue_core::conformal::RvalueKind;
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_model::page::form;
use rvalue_model::page::jobs::{self, Plan};
use rvalue_model::page::load::uses_workers;
use rvalue_model::page::status::{self, State};
use rvalue_model::page::{restored_controls, Drawn, Shown, Slice, SlicePage};
use rvalue_model::{Analysis, AnalysisJob, Mode};
use rvalue_plot::Frame;
use rvalue_web::device::{self, Device, JobGpu};

/// What a frame's slice of the job does on the page.
struct FramePage<'a> {
    doc: &'a Document,
    shown: &'a mut Shown,
    drawn: &'a mut Drawn<Frame>,
    device: &'a Device,
    me: &'a Weak<RefCell<App>>,
}

/// Puts `a` on show; returns what was shown before.
fn show(
    doc: &Document,
    shown: &mut Shown,
    drawn: &mut Drawn<Frame>,
    a: Analysis,
    what: String,
) -> Option<(Analysis, String)> {
    drawn.all_dirty();
    dom::apply(doc, &form::reading(&a));
    shown.show(a, what)
}

impl SlicePage<JobGpu> for FramePage<'_> {
    fn now(&self) -> f64 {
        dom::now_ms()
    }

    fn offload(&mut self, job: &mut AnalysisJob, gpu: &mut JobGpu) -> bool {
        let me = self.me.clone();
        let answered = move |serial, part, answer| {
            if let Some(app) = me.upgrade() {
                offloaded(&app, serial, part, answer);
            }
        };
        device::offload(self.device, gpu, || job.offload(), answered)
    }

    fn show_partial(&mut self, partial: Analysis, what: String, first: bool) {
        let old = show(self.doc, self.shown, self.drawn, partial, what);
        // The first partial result replaces a finished one: keep that for Cancel.
        if first {
            self.shown.keep_previous(old);
        }
    }

    fn showing(&self) -> &str {
        self.shown.what()
    }
}

impl App {
    /// Opens an embed's GPU, left for later, once a job is to rank draws on it.
    fn open_gpu_for_ranks(&mut self) {
        if !matches!(self.controls.score.kind, RvalueKind::Nonparametric | RvalueKind::Pooled) {
            return;
        }
        if let (Some(app), Some(switch)) = (self.me.upgrade(), self.compute.device_mut().open_now()) {
            super::startup::open_device(&app, switch);
        }
    }

    /// Starts (or restarts) the analysis for the current controls; the shown one stays until
    /// it finishes. A job already running is dropped, which cancels it.
    pub(super) fn start_job(&mut self) {
        self.compute.drop_running();
        self.compute.jobs_mut().take_awaiting();
        let needs_analysis = self.framing.embed().is_none_or(|p| p.needs_analysis(self.controls.mode));
        if let Some((line, state)) = jobs::waits(&self.controls, self.source.is_loaded(), needs_analysis) {
            return self.compute.jobs_mut().say(line, state);
        }
        self.open_gpu_for_ranks();
        match jobs::plan(&self.controls, &self.source) {
            Plan::Run(job, what) => {
                let workers = self.compute.workers_alive();
                if let Some(job) = self.compute.jobs_mut().admit(*job, &what, workers) {
                    self.run_job(job, what);
                }
            }
            Plan::Note(note) => self.compute.jobs_mut().say(note, State::Note),
            Plan::Failed(msg) => {
                self.compute.jobs_mut().set_state(State::Failed);
                self.show_error(Some(&msg))
            }
        }
    }

    /// Runs `job`, an analysis of `what`: stepped from the next frame on.
    fn run_job(&mut self, job: AnalysisJob, what: String) {
        // Toy repeats, a score file's pooled splits and a streamed file's shares can run in
        // workers (true draws' splits run in the page).
        let shared = uses_workers(&self.controls, job.streamed().is_some(), job.data().is_some());
        let workers = shared.then(|| on_reply(self.me.clone()));
        self.compute.run(job, what, dom::now_ms(), workers.as_ref());
        // At once, not at the next frame: a script that changes a control and then waits for
        // the state `ready` must not read the previous job's.
        dom::set_attr(&self.doc, ids::STATUS, "data-state", State::Running.name());
    }

    /// The reader chose Start: runs the long analysis said ([`Jobs::admit`]).
    ///
    /// [`Jobs::admit`]: rvalue_model::page::Jobs::admit
    pub(super) fn start_long(&mut self) {
        if let Some((job, what)) = self.compute.jobs_mut().take_awaiting() {
            self.run_job(job, what);
        }
    }

    /// Stops the running job and puts back the settings of the results on show.
    pub(super) fn cancel(&mut self) {
        let Some(declined) = self.compute.cancel() else { return };
        if let Some((a, what)) = self.shown.take_previous() {
            self.show_analysis(a, what);
        }
        if let Some(a) = self.shown.get() {
            self.controls = restored_controls(&a.controls, &self.controls);
            self.write_controls();
            self.show_mode();
            self.drawn.all_dirty();
        }
        self.compute.jobs_mut().say(status::cancelled(declined, self.shown.what()), State::Cancelled);
    }

    /// Takes the analysis on show off the page; panels that draw from an analysis are emptied
    /// when next rendered. (The page itself keeps the previous results when the reader picks
    /// "Your scores" before a file, as after a file it cannot read.)
    pub(super) fn forget_analysis(&mut self) {
        if self.shown.forget() {
            self.drawn.all_dirty();
        }
    }

    /// Puts `a` on show; returns what was shown before.
    fn show_analysis(&mut self, a: Analysis, what: String) -> Option<(Analysis, String)> {
        show(&self.doc, &mut self.shown, &mut self.drawn, a, what)
    }

    /// Steps the job for up to one frame's budget.
    pub(super) fn advance(&mut self) {
        let t0 = dom::now_ms();
        let file = self.source.streamed();
        self.compute.feed(file.as_ref());
        if let Some(why) = self.compute.jobs().starved(self.compute.workers_alive()) {
            return self.fail_running(&why);
        }
        if let Some(file) = file {
            self.read_own_share(file);
        }
        let alpha_pending = self.drawn.pending().alpha;
        let (jobs, device) = self.compute.jobs_and_device();
        let mut page = FramePage {
            doc: &self.doc,
            shown: &mut self.shown,
            drawn: &mut self.drawn,
            device,
            me: &self.me,
        };
        match jobs.slice(t0, alpha_pending, &mut page) {
            Slice::Paused => {}
            Slice::Done(run) => self.finish_job(*run),
            Slice::Failed(why) => self.fail_running(&why),
        }
    }

    /// Puts a finished job's analysis on show, saying how long it took and where it ran.
    fn finish_job(&mut self, run: Running) {
        let done = self.compute.finish(run, dom::now_ms());
        match done.analysis {
            Ok(a) => {
                self.item = self.item.min(a.n_inspectable().saturating_sub(1));
                self.start_sigma2(&a);
                self.drawn.dirty().address = true;
                self.show_analysis(a, done.what);
                self.shown.drop_previous();
                let line = status::finished(self.shown.what(), done.secs, &done.note);
                self.compute.jobs_mut().say(line, State::Ready);
            }
            Err(e) => {
                self.compute.jobs_mut().set_state(State::Failed);
                self.show_error(Some(&sentence(&e)));
            }
        }
    }

    /// On a newly loaded file's first analysis, moves the σ² marker to the data's median
    /// variance (unless the link set σ²); the slider and the address follow.
    fn start_sigma2(&mut self, a: &Analysis) {
        if !self.source.take_sigma2_from_data() {
            return;
        }
        if let Some(s) = a.sigma2_start().filter(|_| a.controls.mode == Mode::Scores) {
            self.controls.sigma2 = s;
            self.write_controls();
        }
    }

    /// Ends the running job with the message `e`; the results shown stay.
    pub(super) fn fail_running(&mut self, e: &str) {
        let jobs = self.compute.jobs_mut();
        jobs.take_running();
        jobs.say(status::showing(self.shown.what()), State::Failed);
        self.show_error(Some(&status::failed_running(e)));
    }

    pub(super) fn show_progress(&mut self) {
        let generation = self.shown.generation();
        if let Some(run) = self.compute.jobs_mut().running_mut() {
            if !run.progress_due(dom::now_ms(), generation) {
                return;
            }
        }
        let view = self.compute.jobs().view(self.shown.get().is_some());
        dom::apply(&self.doc, &view.edits(generation));
    }

    /// The "Compute:" line: the device in use, and why when it is the CPU.
    pub(super) fn show_device(&self) {
        let (device, why) = self.compute.device().describe();
        dom::apply(&self.doc, &status::compute_line(&device, &why, self.compute.workers_ready()));
    }
}
