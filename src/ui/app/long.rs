//! An analysis that reads a large file many times (pooled CP_r on a file read a block at a
//! time) is said before it starts: how many reads of the file and about how long, with Start
//! and Cancel beside the status line; it runs only in workers, which read the file
//! synchronously (the page's thread cannot).

use super::job::no_workers;
use super::App;
use rvalue_model::page::status::{self, State, PREVIOUS_SETTINGS};
use rvalue_model::AnalysisJob;

impl App {
    /// `job` when it may run now; else `None`, the status saying why (no workers) or what it
    /// will cost (the job kept for [`App::start_long`]).
    pub(super) fn gate_long(&mut self, job: AnalysisJob, what: &str) -> Option<AnalysisJob> {
        if !job.streamed_pooled() {
            return Some(job);
        }
        let workers = self.compute.workers_alive();
        let Some(cost) = job.long_run(workers).filter(|_| workers > 0) else {
            self.compute.say(format!("{} {PREVIOUS_SETTINGS}", no_workers(&job)), State::Note);
            return None;
        };
        let name = job.streamed().map_or("the file", |f| f.name.as_str());
        self.compute.say(status::confirm_long(&cost.describe(name)), State::Confirm);
        self.compute.await_start(job, what.to_string());
        None
    }

    /// The reader chose Start: runs the analysis said.
    pub(super) fn start_long(&mut self) {
        if let Some((job, what)) = self.compute.take_awaiting() {
            self.run_job(job, what);
        }
    }
}
