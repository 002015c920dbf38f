//! Where analyses run: the running job, a long one said and awaiting the reader's Start, the
//! GPU and the workers, and what the status line says.

use std::rc::Rc;

use super::running::Running;
use crate::ui::device::{self, Device};
use crate::ui::streamed::Streamed;
use crate::ui::workers::{self, Pool};
use rvalue_core::Result;
use rvalue_model::page::status::State;
use rvalue_model::AnalysisJob;

pub(super) struct Compute {
    running: Option<Running>,
    /// A long analysis (pooled CP_r on a streamed file) said and waiting for the reader's Start
    /// or Cancel, with what it is of.
    awaiting: Option<(AnalysisJob, String)>,
    /// Where CP_r's ranks are computed (GPU or CPU).
    device: Device,
    /// The Web Workers that compute toy repeats beside the page's thread.
    pool: Pool,
    /// Jobs started so far.
    jobs: u64,
    /// The status line.
    status: String,
    /// Its state, unless a job runs.
    state: State,
}

impl Compute {
    pub(super) fn new(workers_switch: Option<String>) -> Compute {
        Compute {
            running: None,
            awaiting: None,
            device: Device::new(),
            pool: Pool::new(workers_switch),
            jobs: 0,
            status: String::new(),
            state: State::Idle,
        }
    }

    pub(super) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    pub(super) fn running(&self) -> Option<&Running> {
        self.running.as_ref()
    }

    pub(super) fn running_mut(&mut self) -> Option<&mut Running> {
        self.running.as_mut()
    }

    /// The running job with this serial number, if it still runs.
    pub(super) fn running_serial(&mut self, serial: u64) -> Option<&mut Running> {
        self.running.as_mut().filter(|r| r.serial() == serial)
    }

    /// Runs `job`, an analysis of `what`, from `now`; `workers`: whether it hands parts to them.
    pub(super) fn run(
        &mut self,
        job: AnalysisJob,
        what: String,
        now: f64,
        workers: Option<&workers::OnReply>,
    ) {
        if let Some(on_reply) = workers {
            self.pool.start(on_reply);
        }
        self.jobs += 1;
        let gpu = self.device.new_job();
        self.running = Some(Running::new(job, what, gpu, self.jobs, now, self.pool.alive()));
    }

    /// Takes the running job off (to finish it, or drop it).
    pub(super) fn take_running(&mut self) -> Option<Running> {
        self.running.take()
    }

    /// Drops the running job (which cancels it); workers still busy with a streamed file's
    /// pooled splits are replaced, since they cannot be interrupted.
    pub(super) fn drop_running(&mut self) {
        if self.running.take().is_some_and(|r| r.job().streamed_pooled()) {
            self.pool.recycle_busy();
        }
    }

    /// Keeps `job`, of `what`, for the reader's Start.
    pub(super) fn await_start(&mut self, job: AnalysisJob, what: String) {
        self.awaiting = Some((job, what));
    }

    pub(super) fn take_awaiting(&mut self) -> Option<(AnalysisJob, String)> {
        self.awaiting.take()
    }

    pub(super) fn is_awaiting(&self) -> bool {
        self.awaiting.is_some()
    }

    /// Hands the workers what the running job has for them.
    pub(super) fn feed(&mut self, file: Option<&Streamed>) {
        if let Some(run) = self.running.as_mut() {
            run.feed(&mut self.pool, file);
        }
    }

    /// Whether the running job waits for the GPU (see [`device::offload`]).
    pub(super) fn offload(
        &mut self,
        answered: impl FnOnce(u64, usize, Result<device::Answer>) + 'static,
    ) -> bool {
        match self.running.as_mut() {
            Some(run) => run.offload(&self.device, answered),
            None => false,
        }
    }

    /// The GPU's answer for part `part` of job `serial`: whether it was the running job's,
    /// `None` when no job runs.
    pub(super) fn take_answer(
        &mut self,
        serial: u64,
        part: usize,
        answer: Result<device::Answer>,
    ) -> Option<bool> {
        let run = self.running.as_mut()?;
        Some(run.take_answer(&mut self.device, serial, part, answer))
    }

    /// Worker `i`'s reply; whether the number of ready workers changed.
    pub(super) fn worker_replied(
        &mut self,
        i: usize,
        reply: workers::Reply,
        file: Option<&Streamed>,
    ) -> bool {
        let ready = self.pool.ready();
        match self.running.as_mut() {
            Some(run) => {
                run.worker_replied(&mut self.pool, i, reply);
                run.feed(&mut self.pool, file);
            }
            None => {
                self.pool.replied(i, reply, None);
            }
        }
        self.pool.ready() != ready
    }

    /// Workers alive (started and not failed).
    pub(super) fn workers_alive(&self) -> usize {
        self.pool.alive()
    }

    /// Workers ready.
    pub(super) fn workers_ready(&self) -> usize {
        self.pool.ready()
    }

    pub(super) fn device(&self) -> &Device {
        &self.device
    }

    pub(super) fn device_mut(&mut self) -> &mut Device {
        &mut self.device
    }

    /// Sets the status line.
    pub(super) fn say(&mut self, status: String, state: State) {
        self.status = status;
        self.state = state;
    }

    /// Sets the status line's state, its text kept.
    pub(super) fn set_state(&mut self, state: State) {
        self.state = state;
    }

    /// Sets the status line's text, its state kept.
    pub(super) fn say_progress(&mut self, status: String) {
        self.status = status;
    }

    pub(super) fn status(&self) -> &str {
        &self.status
    }

    /// The status line's state: running while a job runs.
    pub(super) fn state(&self) -> State {
        if self.running.is_some() {
            State::Running
        } else {
            self.state
        }
    }
}

/// Workers' replies to the app `me`.
pub(super) fn on_reply(me: std::rc::Weak<std::cell::RefCell<super::App>>) -> workers::OnReply {
    Rc::new(move |i, reply| {
        if let Some(app) = me.upgrade() {
            super::replies::worker_replied(&app, i, reply);
        }
    })
}
