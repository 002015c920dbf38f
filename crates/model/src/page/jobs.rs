//! Where the page's analyses stand: the running job ([`Run`]), a long one said and awaiting
//! the reader's Start, the jobs' numbers and what the status line says; how a job starts
//! ([`waits`], [`plan`], [`Jobs::admit`]) and what a frame's slice of it does ([`Jobs::slice`]).

use super::data_source::{DataSource, StreamedHandle};
use super::run::{JobDevice, Run};
use super::status::{self, State, PREVIOUS_SETTINGS};
use crate::edits::Edits;
use crate::ids;
use crate::message::{about, failure};
use crate::{Analysis, AnalysisJob, Controls, Mode, Progress};

/// Work per animation frame (ms): the page stays responsive between slices.
pub const FRAME_BUDGET_MS: f64 = 30.0;

pub struct Jobs<G> {
    running: Option<Run<G>>,
    /// A long analysis (pooled CP_r on a streamed file) said and waiting for the reader's Start
    /// or Cancel, with what it is of.
    awaiting: Option<(AnalysisJob, String)>,
    /// Jobs started so far.
    jobs: u64,
    /// The status line.
    status: String,
    /// Its state, unless a job runs.
    state: State,
}

/// What the page does for a frame's slice of the job.
pub trait SlicePage<G> {
    /// The time (ms).
    fn now(&self) -> f64;
    /// Whether the job waits for the GPU: the call it wants made now, or one under way.
    fn offload(&mut self, job: &mut AnalysisJob, gpu: &mut G) -> bool;
    /// Puts a partial analysis of `what` on show; `first`: the job's first.
    fn show_partial(&mut self, partial: Analysis, what: String, first: bool);
    /// What the analysis on show is of.
    fn showing(&self) -> &str;
}

/// What the progress bar, the Cancel and Start buttons and the status line show.
#[derive(Debug, PartialEq)]
pub struct ProgressView<'a> {
    /// The share done of the running job, else whether an analysis is on show.
    pub value: f64,
    /// Nothing runs or waits to be cancelled.
    pub idle: bool,
    /// A long job waits for the reader's Start.
    pub awaiting: bool,
    pub status: &'a str,
    pub state: State,
}

impl ProgressView<'_> {
    /// The progress bar's value, Cancel off when idle, Start shown while a long job awaits
    /// it, the status line with its `data-state` and, so that a script can wait for a newer
    /// analysis, `data-shown`: how many (`generation`) have been put on show.
    pub fn edits(&self, generation: u64) -> Edits {
        let mut e = Edits::new();
        e.attr(ids::PROGRESS, "value", self.value.to_string()).disabled(ids::CANCEL, self.idle);
        e.hidden(ids::START_LONG, !self.awaiting).text(ids::STATUS, self.status);
        e.attr(ids::STATUS, "data-state", self.state.name());
        e.attr(ids::STATUS, "data-shown", generation.to_string());
        e
    }
}

/// How a frame's slice of the job ended.
pub enum Slice<G> {
    /// Waiting for the GPU or the workers, or the frame's time is spent: the status line says so.
    Paused,
    Done(Box<Run<G>>),
    /// The job failed; why.
    Failed(String),
}

/// What a start of the analysis of `c` says without a job: nothing, in an embed whose panel
/// `needs_analysis` not; that a file is wanted, in score mode without one.
pub fn waits(c: &Controls, loaded: bool, needs_analysis: bool) -> Option<(String, State)> {
    if !needs_analysis {
        return Some((String::new(), State::Idle));
    }
    (c.mode == Mode::Scores && !loaded).then(|| (status::NO_FILE.to_string(), State::Note))
}

/// An analysis of `c` on `source`, or why there is none.
pub enum Plan {
    Run(Box<AnalysisJob>, String),
    /// A choice the data cannot take, said as a note.
    Note(String),
    Failed(String),
}

/// The job for `c` on `source`, with what it is of.
pub fn plan<F: StreamedHandle>(c: &Controls, source: &DataSource<F>) -> Plan {
    let draws = source.true_draws(c);
    if let Some(note) = draws.as_ref().and_then(|_| status::needs_all_candidates(c.score.kind)) {
        return Plan::Note(note);
    }
    let what = status::job_what(c, source.file(), draws.as_ref().map(|p| p.n()));
    let job = source.job_source(c).map(|s| s.with_true_draws(draws)).and_then(|s| AnalysisJob::new(s, c));
    match job {
        Ok(job) => Plan::Run(Box::new(job), what),
        Err(e) => Plan::Failed(failure(&e, PREVIOUS_SETTINGS)),
    }
}

/// Why `job` (pooled CP_r on a streamed file) cannot run in this page.
pub fn no_workers(job: &AnalysisJob) -> String {
    status::no_workers(job.streamed().map_or("the file", |f| f.name.as_str()))
}

impl<G: JobDevice> Default for Jobs<G> {
    fn default() -> Self {
        Jobs { running: None, awaiting: None, jobs: 0, status: String::new(), state: State::Idle }
    }
}

impl<G: JobDevice> Jobs<G> {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    pub fn running(&self) -> Option<&Run<G>> {
        self.running.as_ref()
    }

    pub fn running_mut(&mut self) -> Option<&mut Run<G>> {
        self.running.as_mut()
    }

    /// The running job with this serial number, if it still runs.
    pub fn running_serial(&mut self, serial: u64) -> Option<&mut Run<G>> {
        self.running.as_mut().filter(|r| r.serial() == serial)
    }

    /// Runs `job`, an analysis of `what`, from `now` with `workers` alive; `gpu` its GPU calls.
    pub fn run(&mut self, job: AnalysisJob, what: String, gpu: G, now: f64, workers: usize) {
        self.jobs += 1;
        self.running = Some(Run::new(job, what, gpu, self.jobs, now, workers));
    }

    /// Takes the running job off (to finish it, or drop it).
    pub fn take_running(&mut self) -> Option<Run<G>> {
        self.running.take()
    }

    /// Drops the running job (which cancels it); whether workers may still be busy with it (a
    /// streamed file's pooled splits, which they cannot interrupt).
    pub fn drop_running(&mut self) -> bool {
        self.running.take().is_some_and(|r| r.job().streamed_pooled())
    }

    /// `job` when it may run now with `workers` alive; else `None`, the status saying why (no
    /// workers) or what it will cost, the job kept for the reader's Start
    /// ([`Jobs::take_awaiting`]): pooled CP_r on a streamed file reads the file many times, and
    /// runs only in workers, which read it synchronously (the page's thread cannot).
    pub fn admit(&mut self, job: AnalysisJob, what: &str, workers: usize) -> Option<AnalysisJob> {
        if !job.streamed_pooled() {
            return Some(job);
        }
        let Some(cost) = job.long_run(workers).filter(|_| workers > 0) else {
            self.say(format!("{} {PREVIOUS_SETTINGS}", no_workers(&job)), State::Note);
            return None;
        };
        let name = job.streamed().map_or("the file", |f| f.name.as_str());
        self.say(status::confirm_long(&cost.describe(name)), State::Confirm);
        self.awaiting = Some((job, what.to_string()));
        None
    }

    /// Cancels the running job, or the long one awaiting Start; `None` when there is neither,
    /// else `(declined, busy)`: whether it was the one awaiting, and whether workers may still
    /// be busy with the running one ([`Jobs::drop_running`]).
    pub fn cancel(&mut self) -> Option<(bool, bool)> {
        let declined = self.awaiting.take().is_some();
        if !self.is_running() && !declined {
            return None;
        }
        Some((declined, self.drop_running()))
    }

    pub fn take_awaiting(&mut self) -> Option<(AnalysisJob, String)> {
        self.awaiting.take()
    }

    pub fn is_awaiting(&self) -> bool {
        self.awaiting.is_some()
    }

    /// Why the running job cannot go on: pooled CP_r on a streamed file with no `workers` alive.
    pub fn starved(&self, workers: usize) -> Option<String> {
        let run = self.running.as_ref().filter(|r| r.job().streamed_pooled())?;
        (workers == 0).then(|| no_workers(run.job()))
    }

    /// Steps the running job for a frame begun at `t0` (ms) on `page`, until it waits (for the
    /// GPU or the workers), finishes or fails, or the frame's budget is spent; a partial
    /// analysis shown (`page` marks every panel dirty) or an α move drawn (`alpha_pending`)
    /// ends the slice too, to paint it.
    pub fn slice(&mut self, t0: f64, mut alpha_pending: bool, page: &mut impl SlicePage<G>) -> Slice<G> {
        while let Some(run) = self.running.as_mut() {
            let (job, gpu) = run.job_and_gpu();
            if page.offload(job, gpu) {
                self.status = run.status_on_gpu(page.now(), page.showing());
                return Slice::Paused;
            }
            match run.step() {
                // Waiting: only workers' repeats are left, and their replies come between frames.
                Ok(p @ (Progress::Working(_) | Progress::Waiting(_))) => {
                    let now = page.now();
                    if let Some((partial, what, first)) = run.partial(now) {
                        page.show_partial(partial, what, first);
                        alpha_pending = true;
                    }
                    let working = matches!(p, Progress::Working(_));
                    if working && now - t0 < FRAME_BUDGET_MS && !alpha_pending {
                        continue;
                    }
                    self.status = run.status(now, page.showing());
                    return Slice::Paused;
                }
                Ok(Progress::Done) => break,
                Err(e) => return Slice::Failed(about(run.what(), &e)),
            }
        }
        self.running.take().map_or(Slice::Paused, |r| Slice::Done(Box::new(r)))
    }

    /// What the progress shows, with an analysis on show or not (`shown`).
    pub fn view(&self, shown: bool) -> ProgressView<'_> {
        let value = self.running.as_ref().map_or(if shown { 1.0 } else { 0.0 }, Run::fraction_done);
        let awaiting = self.is_awaiting();
        let idle = !self.is_running() && !awaiting;
        ProgressView { value, idle, awaiting, status: &self.status, state: self.state() }
    }

    /// Sets the status line.
    pub fn say(&mut self, status: String, state: State) {
        self.status = status;
        self.state = state;
    }

    /// Sets the status line's state, its text kept.
    pub fn set_state(&mut self, state: State) {
        self.state = state;
    }

    pub fn status(&self) -> &str {
        &self.status
    }

    /// The status line's state: running while a job runs.
    pub fn state(&self) -> State {
        if self.running.is_some() {
            State::Running
        } else {
            self.state
        }
    }
}

#[cfg(test)]
mod tests;
