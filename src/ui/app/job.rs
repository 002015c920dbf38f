//! The analysis job: started for the controls, stepped for a frame's budget at a time (its
//! slow parts handed to the GPU or the workers), shown partially while it runs and whole when
//! done, cancelled on request; its progress bar, status line and the "Compute:" line.

use web_sys::HtmlProgressElement;

use super::compute::on_reply;
use super::replies::offloaded;
use super::running::Running;
use super::App;
use crate::ui::dom::{self, by_id, set_text};
use rvalue_core::conformal::RvalueKind;
use rvalue_model::ids;
use rvalue_model::message::{about, failure, sentence};
use rvalue_model::page::load::uses_workers;
use rvalue_model::page::restored_controls;
use rvalue_model::page::status::{self, State, PREVIOUS_SETTINGS};
use rvalue_model::{Analysis, AnalysisJob, Mode, Progress};

/// Work per animation frame: the page stays responsive between slices.
const FRAME_BUDGET_MS: f64 = 30.0;

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
        self.compute.take_awaiting();
        if self.framing.embed().is_some_and(|p| !p.needs_analysis(self.controls.mode)) {
            return self.compute.say(String::new(), State::Idle);
        }
        if self.controls.mode == Mode::Scores && !self.source.is_loaded() {
            return self.compute.say(status::NO_FILE.to_string(), State::Note);
        }
        self.open_gpu_for_ranks();
        let pool = self.source.pool(&self.controls);
        if let Some(note) = pool.as_ref().and_then(|_| status::needs_all_candidates(self.controls.score.kind))
        {
            return self.compute.say(note, State::Note);
        }
        let what = status::job_what(&self.controls, self.source.file(), pool.as_ref().map(|p| p.n()));
        let source = self.source.job_source(&self.controls).map(|s| s.with_true_draws(pool));
        match source.and_then(|s| AnalysisJob::new(s, &self.controls)) {
            Ok(job) => {
                if let Some(job) = self.gate_long(job, &what) {
                    self.run_job(job, what);
                }
            }
            Err(e) => {
                self.compute.set_state(State::Failed);
                self.show_error(Some(&failure(&e, PREVIOUS_SETTINGS)))
            }
        }
    }

    /// Runs `job`, an analysis of `what`: stepped from the next frame on.
    pub(super) fn run_job(&mut self, job: AnalysisJob, what: String) {
        // Toy repeats, a score file's pooled splits and a streamed file's shares can run in
        // workers (a pool's splits run in the page).
        let shared = uses_workers(&self.controls, job.streamed().is_some(), job.data().is_some());
        let workers = shared.then(|| on_reply(self.me.clone()));
        self.compute.run(job, what, dom::now_ms(), workers.as_ref());
        // At once, not at the next frame: a script that changes a control and then waits for
        // the state `ready` must not read the previous job's.
        dom::set_attr(&self.doc, ids::STATUS, "data-state", State::Running.name());
    }

    /// Stops the running job and puts back the settings of the results on show.
    pub(super) fn cancel(&mut self) {
        let declined = self.compute.take_awaiting().is_some();
        if !self.compute.is_running() && !declined {
            return;
        }
        self.compute.drop_running();
        if let Some((a, what)) = self.shown.take_previous() {
            self.show_analysis(a, what);
        }
        if let Some(a) = self.shown.get() {
            self.controls = restored_controls(&a.controls, &self.controls);
            self.write_controls();
            self.show_mode();
            self.drawn.all_dirty();
        }
        self.compute.say(status::cancelled(declined, self.shown.what()), State::Cancelled);
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
        self.drawn.all_dirty();
        self.show_reading(&a);
        self.shown.show(a, what)
    }

    /// Shows the toy repeats done so far, when due ([`status::partial_due`]).
    fn show_partial(&mut self, now: f64) {
        let Some((p, what, first)) = self.compute.running_mut().and_then(|r| r.partial(now)) else { return };
        let old = self.show_analysis(p, what);
        // The first partial result replaces a finished one: keep that for Cancel.
        if first {
            self.shown.keep_previous(old);
        }
    }

    /// Steps the job for up to one frame's budget.
    pub(super) fn advance(&mut self) {
        let t0 = dom::now_ms();
        let file = self.source.streamed();
        self.compute.feed(file.as_ref());
        let starved = self.compute.running().is_some_and(|r| r.job().streamed_pooled());
        if starved && self.compute.workers_alive() == 0 {
            let why = self.compute.running().map(|r| no_workers(r.job())).unwrap_or_default();
            return self.fail_running(&why);
        }
        if let Some(file) = file {
            self.read_own_share(file);
        }
        while self.compute.is_running() {
            let me = self.me.clone();
            let answered = move |serial, part, answer| {
                if let Some(app) = me.upgrade() {
                    offloaded(&app, serial, part, answer);
                }
            };
            if self.compute.offload(answered) {
                let line = self.compute.running().map(|r| r.status_on_gpu(dom::now_ms(), self.shown.what()));
                return self.compute.say_progress(line.unwrap_or_default());
            }
            let Some(run) = self.compute.running_mut() else { return };
            match run.step() {
                // Waiting: only workers' repeats are left, and their replies come between frames.
                Ok(p @ (Progress::Working(_) | Progress::Waiting(_))) => {
                    let now = dom::now_ms();
                    self.show_partial(now);
                    let working = matches!(p, Progress::Working(_));
                    if working && now - t0 < FRAME_BUDGET_MS && !self.drawn.pending().alpha {
                        continue;
                    }
                    let line = self.compute.running().map(|r| r.status(now, self.shown.what()));
                    return self.compute.say_progress(line.unwrap_or_default());
                }
                Ok(Progress::Done) => break,
                Err(e) => {
                    let why = about(run.what(), &e);
                    return self.fail_running(&why);
                }
            }
        }
        if let Some(run) = self.compute.take_running() {
            self.finish_job(run);
        }
    }

    /// Puts a finished job's analysis on show, saying how long it took and where it ran.
    fn finish_job(&mut self, run: Running) {
        let done = run.finish(self.compute.device(), dom::now_ms());
        match done.analysis {
            Ok(a) => {
                self.item = self.item.min(a.n_inspectable().saturating_sub(1));
                self.start_sigma2(&a);
                self.drawn.dirty().address = true;
                self.show_analysis(a, done.what);
                self.shown.drop_previous();
                let line = status::finished(self.shown.what(), done.secs, &done.note);
                self.compute.say(line, State::Ready);
            }
            Err(e) => {
                self.compute.set_state(State::Failed);
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
        self.compute.take_running();
        self.compute.say(status::showing(self.shown.what()), State::Failed);
        self.show_error(Some(&status::failed_running(e)));
    }

    pub(super) fn show_progress(&mut self) {
        let generation = self.shown.generation();
        let now = dom::now_ms();
        if let Some(run) = self.compute.running_mut() {
            if !run.progress_due(now, generation) {
                return;
            }
        }
        let d = &self.doc;
        // Unchanged values are not written again (a write invalidates style).
        if let Ok(p) = by_id::<HtmlProgressElement>(d, ids::PROGRESS) {
            let shown = if self.shown.get().is_some() { 1.0 } else { 0.0 };
            let v = self.compute.running().map_or(shown, Running::fraction_done);
            if p.value() != v {
                p.set_value(v);
            }
        }
        let awaiting = self.compute.is_awaiting();
        let idle = !self.compute.is_running() && !awaiting;
        if let Ok(b) = by_id::<web_sys::HtmlButtonElement>(d, ids::CANCEL) {
            if b.disabled() != idle {
                b.set_disabled(idle);
            }
        }
        if let Ok(b) = by_id::<web_sys::HtmlElement>(d, ids::START_LONG) {
            if b.hidden() == awaiting {
                b.set_hidden(!awaiting);
            }
        }
        set_text(d, ids::STATUS, self.compute.status());
        dom::set_attr(d, ids::STATUS, "data-state", self.compute.state().name());
        // How many analyses have been put on show, so that a script can wait for a newer one.
        dom::set_attr(d, ids::STATUS, "data-shown", &generation.to_string());
    }

    /// The "Compute:" line: the device in use, and why when it is the CPU.
    pub(super) fn show_device(&self) {
        let (device, why) = self.compute.device().describe();
        set_text(&self.doc, ids::DEVICE, &device);
        set_text(&self.doc, ids::THREADS, &status::threads(self.compute.workers_ready()));
        if let Some(e) = self.doc.get_element_by_id(ids::DEVICE) {
            let _ = e.set_attribute("title", &why);
        }
    }
}

/// Why `job` (pooled CP_r on a streamed file) cannot run in this page.
pub(super) fn no_workers(job: &AnalysisJob) -> String {
    status::no_workers(job.streamed().map_or("the file", |f| f.name.as_str()))
}
