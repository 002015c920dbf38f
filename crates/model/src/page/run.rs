//! The running job: the model's [`AnalysisJob`], its number for the workers, the page's handle
//! on its GPU calls (a type parameter: the GPU is the browser's), the partial analyses shown
//! and the progress written.

use super::status::{self, PROGRESS_EVERY_MS};
use crate::{Analysis, AnalysisJob, Progress};
use rvalue_core::Result;

/// What the model needs of a job's GPU calls.
pub trait JobDevice {
    /// The share of the GPU's call under way that is done, when one is under way.
    fn progress(&self) -> Option<f64>;
}

pub struct Run<G> {
    job: AnalysisJob,
    /// When it started (ms).
    started: f64,
    what: String,
    /// Toy repeats shown so far as a partial analysis, and when.
    shown_parts: usize,
    shown_at: f64,
    gpu: G,
    /// Numbers jobs for the workers: a repeat that comes back after its job was replaced is
    /// dropped.
    serial: u64,
    /// Repeats computed by workers.
    from_workers: usize,
    /// The time the page said the job would take, when it said one (seconds).
    estimate: Option<f64>,
    /// When the progress bar and status line were last written, and for which analysis on show.
    progress_written: Option<(f64, u64)>,
}

/// A finished job: its analysis, what it is of, how long it took (s) and where it ran.
pub struct Finished {
    pub analysis: Result<Analysis>,
    pub what: String,
    pub secs: f64,
    pub note: String,
}

impl<G: JobDevice> Run<G> {
    /// `job`, an analysis of `what` numbered `serial`, started at `now` (ms) with `workers`.
    pub fn new(job: AnalysisJob, what: String, gpu: G, serial: u64, now: f64, workers: usize) -> Self {
        let estimate = job.long_run(workers).map(|c| c.secs);
        Run {
            job,
            started: now,
            what,
            shown_parts: 0,
            shown_at: 0.0,
            gpu,
            serial,
            from_workers: 0,
            estimate,
            progress_written: None,
        }
    }

    pub fn job(&self) -> &AnalysisJob {
        &self.job
    }

    pub fn job_mut(&mut self) -> &mut AnalysisJob {
        &mut self.job
    }

    /// The job and its GPU calls, both to be changed by one call.
    pub fn job_and_gpu(&mut self) -> (&mut AnalysisJob, &mut G) {
        (&mut self.job, &mut self.gpu)
    }

    pub fn serial(&self) -> u64 {
        self.serial
    }

    pub fn what(&self) -> &str {
        &self.what
    }

    /// Counts a worker's reply that was one of this job's parts.
    pub fn from_worker(&mut self, counted: bool) {
        self.from_workers += usize::from(counted);
    }

    /// The share of the job done, the GPU's call under way counted.
    pub fn fraction_done(&self) -> f64 {
        match self.gpu.progress() {
            Some(done) => self.job.fraction_done_offloaded(done),
            None => self.job.fraction_done(),
        }
    }

    /// The status line while the GPU computes the job's ranks, at `now`.
    pub fn status_on_gpu(&self, now: f64, showing: &str) -> String {
        let done = self.job.fraction_done_offloaded(self.gpu.progress().unwrap_or(0.0));
        status::on_gpu(&self.job.describe(), done, now - self.started, showing)
    }

    /// The status line while the job steps on this thread, at `now`.
    pub fn status(&self, now: f64, showing: &str) -> String {
        let done = self.job.fraction_done();
        status::progress(&self.job.describe(), done, now - self.started, self.estimate, showing)
    }

    /// Steps the job.
    pub fn step(&mut self) -> Result<Progress> {
        self.job.step()
    }

    /// The toy repeats done so far as an analysis, when one is due at `now`
    /// ([`status::partial_due`]), with what it is of and whether it is the first.
    pub fn partial(&mut self, now: f64) -> Option<(Analysis, String, bool)> {
        let (done, total) = self.job.parts();
        let due =
            status::partial_due((done, total), now - self.started, self.shown_parts, now - self.shown_at);
        let p = due.then(|| self.job.partial()).flatten()?;
        let first = self.shown_parts == 0;
        (self.shown_parts, self.shown_at) = (done, now);
        Some((p, status::partial_what(done, total), first))
    }

    /// Whether the progress is to be written at `now` with the analysis `generation` on show:
    /// while a job runs its percentage changes every frame, and each write costs the frame a
    /// style, layout and paint pass on a page that is all canvases, so it is written a few
    /// times a second; a new analysis on show is written at once.
    pub fn progress_due(&mut self, now: f64, generation: u64) -> bool {
        if let Some((at, g)) = self.progress_written {
            if g == generation && now - at < PROGRESS_EVERY_MS {
                return false;
            }
        }
        self.progress_written = Some((now, generation));
        true
    }

    /// The job finished at `now`; `device_note` says where its ranks ran (of its GPU calls).
    pub fn finish(self, device_note: impl FnOnce(&G) -> &'static str, now: f64) -> Finished {
        let j = &self.job;
        let (data, streamed) = (j.data().is_some(), j.streamed().is_some());
        let note =
            status::where_run(device_note(&self.gpu), self.from_workers, data, streamed, j.streamed_pooled());
        Finished { analysis: self.job.finish(), what: self.what, secs: (now - self.started) / 1000.0, note }
    }
}

#[cfg(test)]
mod tests;
