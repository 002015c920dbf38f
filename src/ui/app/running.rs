//! The running job: the model's [`AnalysisJob`], its GPU calls, its number for the workers,
//! the partial analyses shown and the progress written.

use crate::ui::device::{self, Device, JobGpu};
use crate::ui::streamed::Streamed;
use crate::ui::workers::{self, Pool};
use rvalue_core::Result;
use rvalue_model::page::status::{self, PROGRESS_EVERY_MS};
use rvalue_model::{Analysis, AnalysisJob, Progress};

pub(super) struct Running {
    job: AnalysisJob,
    /// When it started (ms).
    started: f64,
    what: String,
    /// Toy repeats shown so far as a partial analysis, and when.
    shown_parts: usize,
    shown_at: f64,
    gpu: JobGpu,
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
pub(super) struct Finished {
    pub analysis: Result<Analysis>,
    pub what: String,
    pub secs: f64,
    pub note: String,
}

impl Running {
    /// `job`, an analysis of `what` numbered `serial`, started at `now` (ms).
    pub(super) fn new(
        job: AnalysisJob,
        what: String,
        gpu: JobGpu,
        serial: u64,
        now: f64,
        workers: usize,
    ) -> Self {
        let estimate = job.long_run(workers).map(|c| c.secs);
        Running {
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

    pub(super) fn job(&self) -> &AnalysisJob {
        &self.job
    }

    pub(super) fn job_mut(&mut self) -> &mut AnalysisJob {
        &mut self.job
    }

    pub(super) fn serial(&self) -> u64 {
        self.serial
    }

    pub(super) fn what(&self) -> &str {
        &self.what
    }

    /// Hands the workers what the job has for them.
    pub(super) fn feed(&mut self, pool: &mut Pool, file: Option<&Streamed>) {
        pool.feed(&mut self.job, self.serial, file);
    }

    /// Worker `i`'s reply, counted when it was one of this job's parts.
    pub(super) fn worker_replied(&mut self, pool: &mut Pool, i: usize, reply: workers::Reply) {
        self.from_workers += usize::from(pool.replied(i, reply, Some((&mut self.job, self.serial))));
    }

    /// Whether the job waits for the GPU (see [`device::offload`]).
    pub(super) fn offload(
        &mut self,
        device: &Device,
        answered: impl FnOnce(u64, usize, Result<device::Answer>) + 'static,
    ) -> bool {
        let job = &mut self.job;
        device::offload(device, &mut self.gpu, || job.offload(), answered)
    }

    #[cfg_attr(not(feature = "gpu"), allow(unused_variables))]
    /// The GPU's answer for part `part` of job `serial`; whether it was this job's.
    pub(super) fn take_answer(
        &mut self,
        device: &mut Device,
        serial: u64,
        part: usize,
        answer: Result<device::Answer>,
    ) -> bool {
        let job = &mut self.job;
        #[cfg(feature = "gpu")]
        let supply = |ans: device::Answer| match ans {
            device::Answer::Rvalues(r) => job.supply_rvalues(part, r),
            device::Answer::Pooled { index, calibrated } => job.supply_pooled(part, index, calibrated),
        };
        #[cfg(not(feature = "gpu"))]
        let supply = |ans: device::Answer| -> Result<()> { match ans {} };
        self.gpu.take(device, serial, answer, supply)
    }

    /// The share of the job done, the GPU's call under way counted.
    pub(super) fn fraction_done(&self) -> f64 {
        match self.gpu.progress() {
            Some(done) => self.job.fraction_done_offloaded(done),
            None => self.job.fraction_done(),
        }
    }

    /// The status line while the GPU computes the job's ranks, at `now`.
    pub(super) fn status_on_gpu(&self, now: f64, showing: &str) -> String {
        let done = self.job.fraction_done_offloaded(self.gpu.progress().unwrap_or(0.0));
        status::on_gpu(&self.job.describe(), done, now - self.started, showing)
    }

    /// The status line while the job steps on this thread, at `now`.
    pub(super) fn status(&self, now: f64, showing: &str) -> String {
        let done = self.job.fraction_done();
        status::progress(&self.job.describe(), done, now - self.started, self.estimate, showing)
    }

    /// Steps the job.
    pub(super) fn step(&mut self) -> Result<Progress> {
        self.job.step()
    }

    /// The toy repeats done so far as an analysis, when one is due at `now`
    /// ([`status::partial_due`]), with what it is of and whether it is the first.
    pub(super) fn partial(&mut self, now: f64) -> Option<(Analysis, String, bool)> {
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
    pub(super) fn progress_due(&mut self, now: f64, generation: u64) -> bool {
        if let Some((at, g)) = self.progress_written {
            if g == generation && now - at < PROGRESS_EVERY_MS {
                return false;
            }
        }
        self.progress_written = Some((now, generation));
        true
    }

    /// The job finished at `now`, on `device`.
    pub(super) fn finish(self, device: &Device, now: f64) -> Finished {
        let j = &self.job;
        let (data, streamed) = (j.data().is_some(), j.streamed().is_some());
        let note =
            status::where_run(device.note(&self.gpu), self.from_workers, data, streamed, j.streamed_pooled());
        Finished { analysis: self.job.finish(), what: self.what, secs: (now - self.started) / 1000.0, note }
    }
}
