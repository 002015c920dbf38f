//! The analysis job: started for the controls, stepped for a frame's budget at a time (its
//! slow parts handed to the GPU or the workers), shown partially while it runs and whole when
//! done, cancelled on request; its progress bar, status line and the "Compute:" line.

use std::rc::Rc;

use web_sys::HtmlProgressElement;

use super::long::no_workers;
use super::replies::{offloaded, worker_replied};
use super::{empty_alpha_views, App, Dirty, Held, Running};
use crate::ui::dom::{self, by_id, set_text};
use crate::ui::{device, workers};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::conformal::RvalueKind;
use rvalue_model::message::{about, capitalised, failure, sentence};
use rvalue_model::{Analysis, AnalysisJob, Controls, Mode, Progress, Source};

/// Work per animation frame: the page stays responsive between slices.
const FRAME_BUDGET_MS: f64 = 30.0;

/// How often a running toy analysis refreshes the panels with the repeats done so far.
const PARTIAL_EVERY_MS: f64 = 400.0;
/// How often a running job's progress bar and status line are written.
const PROGRESS_EVERY_MS: f64 = 100.0;

impl App {
    /// Opens an embed's GPU, left for later, once a job is to rank draws on it.
    fn open_gpu_for_ranks(&mut self) {
        if !matches!(self.controls.score.kind, RvalueKind::Nonparametric | RvalueKind::Pooled) {
            return;
        }
        if let (Some(app), Some(switch)) = (self.me.upgrade(), self.device.open_now()) {
            super::startup::open_device(&app, switch);
        }
    }

    /// Starts (or restarts) the analysis for the current controls; the shown one stays until
    /// it finishes. A job already running is dropped, which cancels it.
    pub(super) fn start_job(&mut self) {
        self.drop_running();
        self.awaiting = None;
        if self.embed.is_some_and(|p| !p.needs_analysis(self.controls.mode)) {
            self.status.clear();
            self.state = "idle";
            return;
        }
        if self.controls.mode == Mode::Scores && self.data.is_none() {
            self.status =
                "Load a score file: drop one on the page, choose one, or pick a sample.".to_string();
            self.state = "note";
            return;
        }
        self.open_gpu_for_ranks();
        let pool =
            self.data.as_ref().and_then(|l| l.pool.clone()).filter(|_| self.controls.mode == Mode::Scores);
        if let Some(note) = pool.as_ref().and_then(|_| needs_all_candidates(self.controls.score.kind)) {
            self.status = note;
            self.state = "note";
            return;
        }
        let what = self.job_what(pool.as_deref());
        let source = match self.data.as_ref().map(|l| &l.data).filter(|_| self.controls.mode == Mode::Scores)
        {
            Some(Held::Streamed(s)) => Ok(Source::Streamed(s.info.clone())),
            Some(Held::Whole(d)) => Source::from_controls(&self.controls, Some(d.clone())),
            None => Source::from_controls(&self.controls, None),
        };
        let source = source.map(|s| s.with_pool(pool.clone()));
        match source.and_then(|s| AnalysisJob::new(s, &self.controls)) {
            Ok(job) => {
                if let Some(job) = self.gate_long(job, &what) {
                    self.run_job(job, what);
                }
            }
            Err(e) => {
                self.state = "failed";
                self.show_error(Some(&failure(&e, "The results shown are for the previous settings.")))
            }
        }
    }

    /// Runs `job`, an analysis of `what`: stepped from the next frame on.
    pub(super) fn run_job(&mut self, job: AnalysisJob, what: String) {
        // Toy repeats, a score file's pooled splits and a streamed file's shares can run in
        // workers (a pool's splits run in the page).
        let shared = match self.controls.mode {
            Mode::Toy => self.controls.toy.repeats > 1,
            Mode::Scores => {
                job.streamed().is_some()
                    || self.controls.score.kind == RvalueKind::Pooled
                        && self.controls.splits > 1
                        && job.data().is_some()
            }
        };
        if shared {
            self.start_workers();
        }
        let job_estimate = job.long_run(self.pool.alive()).map(|c| c.secs);
        self.jobs += 1;
        self.running = Some(Running {
            job,
            started: dom::now_ms(),
            what,
            shown_parts: 0,
            shown_at: 0.0,
            progress_written: None,
            gpu: self.device.new_job(),
            serial: self.jobs,
            from_workers: 0,
            estimate: job_estimate,
        });
        // At once, not at the next frame: a script that changes a control and then waits for
        // the state `ready` must not read the previous job's.
        dom::set_attr(&self.doc, "status", "data-state", "running");
    }

    /// Starts the workers, once.
    fn start_workers(&mut self) {
        let me = self.me.clone();
        let on_reply: workers::OnReply = Rc::new(move |i, reply| {
            if let Some(app) = me.upgrade() {
                worker_replied(&app, i, reply);
            }
        });
        self.pool.start(&on_reply);
    }

    /// Drops the running job (which cancels it); workers still busy with a streamed file's
    /// pooled splits are replaced, since they cannot be interrupted.
    fn drop_running(&mut self) {
        if self.running.take().is_some_and(|r| r.job.streamed_pooled()) {
            self.pool.recycle_busy();
        }
    }

    /// What an analysis of the current controls is of, for the status line.
    fn job_what(&self, pool: Option<&TrueDraws>) -> String {
        let c = &self.controls;
        let Some(l) = self.data.as_ref().filter(|_| c.mode == Mode::Scores) else {
            return format!("toy, {} repeats", c.toy.repeats);
        };
        match pool {
            None => format!("{}, {} splits", l.name, c.splits),
            Some(p) => {
                let (cal, test) = c.pool_sizes(p.n(), l.data.n());
                format!(
                    "{}, {} splits, each calibrated on {cal} of the pool's {} true-label draws and \
                     tested on all {test} items",
                    l.name,
                    c.splits,
                    p.n()
                )
            }
        }
    }

    /// Stops the running job and puts back the settings of the results on show.
    pub(super) fn cancel(&mut self) {
        let declined = self.awaiting.take().is_some();
        if self.running.is_none() && !declined {
            return;
        }
        self.drop_running();
        if let Some((a, what)) = self.previous.take() {
            self.show_analysis(a, what);
        }
        if let Some(a) = &self.analysis {
            let (alpha, beta) = (self.controls.alpha, self.controls.beta);
            let sigma2 = if a.controls.mode == Mode::Toy { a.controls.sigma2 } else { self.controls.sigma2 };
            self.controls = Controls { alpha, beta, sigma2, ..a.controls.clone() };
            self.write_controls();
            self.show_mode();
            self.dirty = Dirty::ALL;
        }
        let what = if declined { "Not started" } else { "Cancelled" };
        self.status = format!("{what}. Showing {}.", self.analysis_what);
        self.state = "cancelled";
    }

    /// Takes the analysis on show off the page; panels that draw from an analysis are emptied
    /// when next rendered. (The page itself keeps the previous results when the reader picks
    /// "Your scores" before a file, as after a file it cannot read.)
    pub(super) fn forget_analysis(&mut self) {
        if self.analysis.take().is_none() {
            return;
        }
        self.generation += 1;
        self.previous = None;
        self.alpha_views = empty_alpha_views();
        self.analysis_what.clear();
        self.dirty = Dirty::ALL;
    }

    /// Puts `a` on show; returns what was shown before.
    fn show_analysis(&mut self, a: Analysis, what: String) -> Option<(Analysis, String)> {
        self.generation += 1;
        self.alpha_views = empty_alpha_views();
        self.dirty = Dirty::ALL;
        self.show_reading(&a);
        let old_what = std::mem::replace(&mut self.analysis_what, what);
        self.analysis.replace(a).map(|old| (old, old_what))
    }

    /// Shows the toy repeats done so far: the first at once, then at most every
    /// [`PARTIAL_EVERY_MS`], but not when the rest should take less than half that (at the
    /// pace so far): repainting every panel then only delays the finished analysis.
    fn show_partial(&mut self, now: f64) {
        let Some(run) = self.running.as_mut() else { return };
        let (done, total) = run.job.parts();
        let left_ms = (now - run.started) * (total - done) as f64 / done.max(1) as f64;
        let due = done > run.shown_parts
            && (run.shown_parts == 0
                || (now - run.shown_at > PARTIAL_EVERY_MS && left_ms > 0.5 * PARTIAL_EVERY_MS));
        let Some(p) = due.then(|| run.job.partial()).flatten() else { return };
        let first = run.shown_parts == 0;
        (run.shown_parts, run.shown_at) = (done, now);
        let old = self.show_analysis(p, format!("toy, {done} of {total} repeats so far"));
        // The first partial result replaces a finished one: keep that for Cancel.
        if first && self.previous.is_none() {
            self.previous = old;
        }
    }

    /// Steps the job for up to one frame's budget.
    pub(super) fn advance(&mut self) {
        let t0 = dom::now_ms();
        let file = self.streamed_file();
        if let Some(run) = self.running.as_mut() {
            self.pool.feed(&mut run.job, run.serial, file.as_ref());
            if run.job.streamed_pooled() && self.pool.alive() == 0 {
                let why = no_workers(&run.job);
                return self.fail_running(&why);
            }
        }
        if let Some(file) = file {
            self.read_own_share(file);
        }
        loop {
            let Some(run) = self.running.as_mut() else { return };
            let me = self.me.clone();
            let answered = move |serial, part, answer| {
                if let Some(app) = me.upgrade() {
                    offloaded(&app, serial, part, answer);
                }
            };
            if device::offload(&self.device, &mut run.gpu, || run.job.offload(), answered) {
                let done = run.job.fraction_done_offloaded(run.gpu.progress().unwrap_or(0.0));
                self.status = format!(
                    "{} on the GPU – {:.0} %{}. Showing {}.",
                    run.job.describe(),
                    100.0 * done,
                    time_left(dom::now_ms() - run.started, done),
                    self.analysis_what
                );
                return;
            }
            match run.job.step() {
                // Waiting: only workers' repeats are left, and their replies come between frames.
                Ok(p @ (Progress::Working(_) | Progress::Waiting(_))) => {
                    let now = dom::now_ms();
                    self.show_partial(now);
                    let Some(run) = self.running.as_ref() else { return };
                    let working = matches!(p, Progress::Working(_));
                    if working && now - t0 < FRAME_BUDGET_MS && !self.dirty.alpha {
                        continue;
                    }
                    self.status = progress_status(run, now, &self.analysis_what);
                    return;
                }
                Ok(Progress::Done) => break,
                Err(e) => {
                    let what = run.what.clone();
                    return self.fail_running(&about(&what, &e));
                }
            }
        }
        if let Some(run) = self.running.take() {
            self.finish_job(run);
        }
    }

    /// Puts a finished job's analysis on show, saying how long it took and where it ran.
    fn finish_job(&mut self, run: Running) {
        let secs = (dom::now_ms() - run.started) / 1000.0;
        let note = match run.from_workers {
            0 => self.device.note(&run.gpu).to_string(),
            n => {
                let what = match (run.job.data(), run.job.streamed()) {
                    (Some(_), _) => "splits",
                    (_, Some(_)) if run.job.streamed_pooled() => "file's shares and groups of splits",
                    (_, Some(_)) => "file's shares",
                    _ => "repeats",
                };
                format!("{}; {n} of the {what} in worker threads", self.device.note(&run.gpu))
            }
        };
        match run.job.finish() {
            Ok(a) => {
                self.item = self.item.min(a.n_inspectable().saturating_sub(1));
                self.start_sigma2(&a);
                self.dirty.address = true;
                self.show_analysis(a, run.what);
                self.previous = None;
                self.status = format!("Showing {} (computed in {secs:.2} s{note}).", self.analysis_what);
                self.state = "ready";
            }
            Err(e) => {
                self.state = "failed";
                self.show_error(Some(&sentence(&e)));
            }
        }
    }

    /// On a newly loaded file's first analysis, moves the σ² marker to the data's median
    /// variance (unless the link set σ²); the slider and the address follow.
    fn start_sigma2(&mut self, a: &Analysis) {
        if !std::mem::take(&mut self.sigma2.from_data) {
            return;
        }
        if let Some(s) = a.sigma2_start().filter(|_| a.controls.mode == Mode::Scores) {
            self.controls.sigma2 = s;
            self.write_controls();
        }
    }

    /// Ends the running job with the message `e`; the results shown stay.
    pub(super) fn fail_running(&mut self, e: &str) {
        self.running = None;
        self.status = format!("Showing {}.", self.analysis_what);
        self.state = "failed";
        self.show_error(Some(&format!(
            "{} {}",
            capitalised(e),
            "The results shown are for the previous settings."
        )));
    }

    pub(super) fn show_progress(&mut self) {
        let generation = self.generation;
        if let Some(run) = self.running.as_mut() {
            // While a job runs its percentage changes every frame, and each write costs the
            // frame a style, layout and paint pass on a page that is all canvases: writing it
            // a few times a second frees that time for the job (and, on two cores, the
            // compositor's share for a worker). A new analysis on show is written at once.
            let now = dom::now_ms();
            if let Some((at, g)) = run.progress_written {
                if g == generation && now - at < PROGRESS_EVERY_MS {
                    return;
                }
            }
            run.progress_written = Some((now, generation));
        }
        let d = &self.doc;
        // Unchanged values are not written again (a write invalidates style).
        if let Ok(p) = by_id::<HtmlProgressElement>(d, "progress") {
            let v =
                self.running.as_ref().map_or(if self.analysis.is_some() { 1.0 } else { 0.0 }, |r| {
                    match r.gpu.progress() {
                        Some(done) => r.job.fraction_done_offloaded(done),
                        None => r.job.fraction_done(),
                    }
                });
            if p.value() != v {
                p.set_value(v);
            }
        }
        let idle = self.running.is_none() && self.awaiting.is_none();
        if let Ok(b) = by_id::<web_sys::HtmlButtonElement>(d, "cancel") {
            if b.disabled() != idle {
                b.set_disabled(idle);
            }
        }
        if let Ok(b) = by_id::<web_sys::HtmlElement>(d, "start-long") {
            if b.hidden() != self.awaiting.is_none() {
                b.set_hidden(self.awaiting.is_none());
            }
        }
        set_text(d, "status", &self.status);
        dom::set_attr(d, "status", "data-state", if self.running.is_some() { "running" } else { self.state });
        // How many analyses have been put on show, so that a script can wait for a newer one.
        dom::set_attr(d, "status", "data-shown", &self.generation.to_string());
    }

    /// The "Compute:" line: the device in use, and why when it is the CPU.
    pub(super) fn show_device(&self) {
        let (device, why) = self.device.describe();
        set_text(&self.doc, "device", &device);
        let threads = match self.pool.ready() {
            0 => String::new(),
            n => format!(" · repeats and pooled splits on {} threads", n + 1),
        };
        set_text(&self.doc, "threads", &threads);
        if let Some(e) = self.doc.get_element_by_id("device") {
            let _ = e.set_attribute("title", &why);
        }
    }
}

/// Why a pool of true-label draws cannot calibrate CP_r with r-values of `kind`, in a
/// sentence for the status line; `None` for pooled r-values, which it calibrates.
fn needs_all_candidates(kind: RvalueKind) -> Option<String> {
    let name = match kind {
        RvalueKind::Pooled => return None,
        RvalueKind::Parametric => "Parametric",
        RvalueKind::Nonparametric => "Nonparametric",
    };
    Some(format!(
        "{name} CP_r needs every candidate's draws of each calibration item, and the pool holds only \
         the true label's: choose the pooled r-value for CP_r. The results shown are unchanged."
    ))
}

/// ", about 40 s left by the estimate": what the estimate said, less the time spent.
fn estimate_left(secs: f64) -> String {
    let s = secs.max(1.0);
    match s {
        s if s < 60.0 => format!(", about {s:.0} s left by the estimate"),
        s if s < 3600.0 => format!(", about {:.0} min left by the estimate", s / 60.0),
        s => format!(", about {:.1} h left by the estimate", s / 3600.0),
    }
}

/// ", about 40 s left" once a job has run long enough (2 s and 5 %) for its pace so far to say
/// how long the rest takes; empty before.
fn time_left(elapsed_ms: f64, done: f64) -> String {
    if elapsed_ms < 2000.0 || !(0.05..1.0).contains(&done) {
        return String::new();
    }
    let secs = elapsed_ms / 1000.0 * (1.0 - done) / done;
    match secs {
        s if s < 60.0 => format!(", about {:.0} s left", s.max(1.0)),
        s if s < 3600.0 => format!(", about {:.0} min left", s / 60.0),
        s => format!(", about {:.1} h left", s / 3600.0),
    }
}

/// The status line of a job stepping on this thread: its share done and the time left, which
/// before its pace says is the estimate's for a long job.
fn progress_status(run: &Running, now: f64, showing: &str) -> String {
    let done = run.job.fraction_done();
    let left = match (time_left(now - run.started, done), run.estimate) {
        (l, Some(secs)) if l.is_empty() => estimate_left(secs - (now - run.started) / 1000.0),
        (l, _) => l,
    };
    format!("{} – {:.0} %{left}. Showing {}.", run.job.describe(), 100.0 * done, showing)
}

#[cfg(test)]
mod tests {
    use super::time_left;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_time_left_is_the_pace_so_far() {
        assert_eq!(time_left(1500.0, 0.5), "", "too early to say");
        assert_eq!(time_left(10_000.0, 0.01), "", "too little done to say");
        assert_eq!(time_left(10_000.0, 0.5), ", about 10 s left");
        assert_eq!(time_left(60_000.0, 0.25), ", about 3 min left");
        assert_eq!(time_left(3_600_000.0, 0.2), ", about 4.0 h left");
    }
}
