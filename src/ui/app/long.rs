//! An analysis that reads a large file many times (pooled CP_r on a file read a block at a
//! time) is said before it starts: how many reads of the file and about how long, with Start
//! and Cancel beside the status line; it runs only in workers, which read the file
//! synchronously (the page's thread cannot).

use super::App;
use rvalue_model::AnalysisJob;

impl App {
    /// `job` when it may run now; else `None`, the status saying why (no workers) or what it
    /// will cost (the job kept for [`App::start_long`]).
    pub(super) fn gate_long(&mut self, job: AnalysisJob, what: &str) -> Option<AnalysisJob> {
        if !job.streamed_pooled() {
            return Some(job);
        }
        let workers = self.pool.alive();
        let Some(cost) = job.long_run(workers).filter(|_| workers > 0) else {
            self.status = format!("{} The results shown are for the previous settings.", no_workers(&job));
            self.state = "note";
            return None;
        };
        let name = job.streamed().map_or("the file", |f| f.name.as_str());
        self.status = format!("{} Start it, or Cancel to keep the results shown.", cost.describe(name));
        self.state = "confirm";
        self.awaiting = Some((job, what.to_string()));
        None
    }

    /// The reader chose Start: runs the analysis said.
    pub(super) fn start_long(&mut self) {
        if let Some((job, what)) = self.awaiting.take() {
            self.run_job(job, what);
        }
    }
}

/// Why `job` (pooled CP_r on a streamed file) cannot run in this page.
pub(super) fn no_workers(job: &AnalysisJob) -> String {
    let name = job.streamed().map_or("the file", |f| f.name.as_str());
    format!(
        "Pooled CP_r on {name}, read a block at a time, needs worker threads to read it, and this \
         page has none: choose the nonparametric or parametric r-value, or run \
         `rvalue conformal --rvalue pooled` on the file."
    )
}
