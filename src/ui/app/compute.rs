//! Where analyses run: the model's [`Jobs`] (the running job, a long one awaiting the reader's
//! Start, the status line) beside the GPU and the workers, which they feed and answer.

use std::rc::Rc;

use rvalue_core::Result;
use rvalue_model::page::{Finished, Jobs, Run};
use rvalue_model::AnalysisJob;
use rvalue_web::device::{self, Device, JobGpu};
use rvalue_web::pool::{self as workers, Pool};
use rvalue_web::streamed::Streamed;

pub(super) type Running = Run<JobGpu>;

pub(super) struct Compute {
    jobs: Jobs<JobGpu>,
    /// Where CP_r's ranks are computed (GPU or CPU).
    device: Device,
    /// The Web Workers that compute toy repeats beside the page's thread.
    pool: Pool,
}

impl Compute {
    pub(super) fn new(workers_switch: Option<String>) -> Compute {
        Compute { jobs: Jobs::default(), device: Device::new(), pool: Pool::new(workers_switch) }
    }

    pub(super) fn is_running(&self) -> bool {
        self.jobs.is_running()
    }

    pub(super) fn jobs(&self) -> &Jobs<JobGpu> {
        &self.jobs
    }

    pub(super) fn jobs_mut(&mut self) -> &mut Jobs<JobGpu> {
        &mut self.jobs
    }

    /// The jobs, and the device their GPU calls go to.
    pub(super) fn jobs_and_device(&mut self) -> (&mut Jobs<JobGpu>, &Device) {
        (&mut self.jobs, &self.device)
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
        let gpu = self.device.new_job();
        self.jobs.run(job, what, gpu, now, self.pool.alive());
    }

    /// Drops the running job (which cancels it); workers still busy with a streamed file's
    /// pooled splits are replaced, since they cannot be interrupted.
    pub(super) fn drop_running(&mut self) {
        if self.jobs.drop_running() {
            self.pool.recycle_busy();
        }
    }

    /// Cancels the running job or the long one awaiting Start (see [`Jobs::cancel`]); whether
    /// there was one, and whether it was the one awaiting.
    pub(super) fn cancel(&mut self) -> Option<bool> {
        let (declined, busy) = self.jobs.cancel()?;
        if busy {
            self.pool.recycle_busy();
        }
        Some(declined)
    }

    /// Hands the workers what the running job has for them.
    pub(super) fn feed(&mut self, file: Option<&Streamed>) {
        if let Some(run) = self.jobs.running_mut() {
            let serial = run.serial();
            self.pool.feed(run.job_mut(), serial, file);
        }
    }

    /// The finished job `run` at `now`, saying where it ran.
    pub(super) fn finish(&self, run: Running, now: f64) -> Finished {
        run.finish(|gpu| self.device.note(gpu), now)
    }

    /// The GPU's answer for part `part` of job `serial`: whether it was the running job's,
    /// `None` when no job runs.
    #[cfg_attr(not(feature = "gpu"), allow(unused_variables))]
    pub(super) fn take_answer(
        &mut self,
        serial: u64,
        part: usize,
        answer: Result<device::Answer>,
    ) -> Option<bool> {
        let (job, gpu) = self.jobs.running_mut()?.job_and_gpu();
        #[cfg(feature = "gpu")]
        let supply = |ans: device::Answer| match ans {
            device::Answer::Rvalues(r) => job.supply_rvalues(part, r),
            device::Answer::Pooled { index, calibrated } => job.supply_pooled(part, index, calibrated),
        };
        #[cfg(not(feature = "gpu"))]
        let supply = |ans: device::Answer| -> Result<()> { match ans {} };
        Some(gpu.take(&mut self.device, serial, answer, supply))
    }

    /// Worker `i`'s reply; whether the number of ready workers changed.
    pub(super) fn worker_replied(
        &mut self,
        i: usize,
        reply: workers::Reply,
        file: Option<&Streamed>,
    ) -> bool {
        let ready = self.pool.ready();
        match self.jobs.running_mut() {
            Some(run) => {
                let serial = run.serial();
                let counted = self.pool.replied(i, reply, Some((run.job_mut(), serial)));
                run.from_worker(counted);
                self.pool.feed(run.job_mut(), serial, file);
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
}

/// Workers' replies to the app `me`.
pub(super) fn on_reply(me: std::rc::Weak<std::cell::RefCell<super::App>>) -> workers::OnReply {
    Rc::new(move |i, reply| {
        if let Some(app) = me.upgrade() {
            super::replies::worker_replied(&app, i, reply);
        }
    })
}
