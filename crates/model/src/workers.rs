//! The page's Web Workers as slots: how many to start, which slot gets which piece of a job's
//! work, what a worker's reply does to its slot and to the job, and the messages as plain
//! values (the page turns them into JavaScript objects, `www/worker.js` reads them). A job
//! records its pieces in order whoever computed them, so this changes when, never what.

use crate::{AnalysisJob, HandOut, Work};

mod held_stream;
mod pool;

pub use held_stream::HeldStream;
pub use pool::{Pool, Port};

/// Workers at most: each holds a wasm instance of its own (and a score file's copy).
pub const MAX_WORKERS: usize = 7;

/// Pieces a worker holds at once: while the page's thread computes (up to a frame's 30 ms) a
/// finished piece's message waits, and the worker goes on with the next instead of idling.
pub const QUEUE: usize = 2;

/// Workers to start: the `workers` switch's count (at most [`MAX_WORKERS`]), or one per core
/// beyond the page's, of `cores` (`navigator.hardwareConcurrency`).
pub fn worker_count(switch: Option<&str>, cores: f64) -> usize {
    match switch.and_then(|s| s.parse::<usize>().ok()) {
        Some(n) => n.min(MAX_WORKERS),
        None => cores.max(1.0).min((MAX_WORKERS + 1) as f64) as usize - 1,
    }
}

/// A piece of work for a worker: `{serial, part, request, work}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The job's number.
    pub serial: u64,
    pub part: usize,
    pub request: String,
    /// Which function of the worker computes it.
    pub work: &'static str,
}

impl Task {
    pub fn new(serial: u64, h: &HandOut) -> Task {
        let work = match h.work {
            Work::Repeat => "repeat",
            Work::Split => "split",
            Work::Share => "share",
            Work::Splits => "splits",
        };
        Task { serial, part: h.part, request: h.request.clone(), work }
    }
}

/// What a worker said.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `{ready}`: its wasm started.
    Ready,
    /// `{failed}`: it did not start, and why.
    Failed(String),
    /// `{serial, part, bytes}` or `{serial, part, error}`: a piece computed, or why not.
    Part { serial: u64, part: usize, result: Result<Vec<u8>, String> },
}

/// A reply's fields as the worker's message holds them (absent ones `None`).
#[derive(Debug, Default)]
pub struct ReplyFields {
    pub ready: bool,
    pub failed: Option<String>,
    pub serial: Option<f64>,
    pub part: Option<f64>,
    pub bytes: Option<Vec<u8>>,
    pub error: Option<String>,
}

impl ReplyFields {
    /// The reply the fields make, if they make one.
    pub fn reply(self) -> Option<Reply> {
        if self.ready {
            return Some(Reply::Ready);
        }
        if let Some(f) = self.failed {
            return Some(Reply::Failed(f));
        }
        let (serial, part) = (self.serial? as u64, self.part? as usize);
        let result = match (self.bytes, self.error) {
            (Some(b), _) => Ok(b),
            (None, Some(e)) => Err(e),
            (None, None) => return None,
        };
        Some(Reply::Part { serial, part, result })
    }
}

/// Where a worker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// Instantiating the wasm module.
    Starting,
    Running,
    /// Stopped: it did not start, or a piece failed in it.
    Stopped,
}

/// What a reply did.
#[derive(Debug, Clone, PartialEq)]
pub enum Replied {
    /// The worker started.
    Ready,
    /// A piece of the running job was taken.
    Taken,
    /// A piece of a job since replaced: dropped.
    Dropped,
    /// The worker is stopped (its pieces back with the job): terminate it, and warn why.
    Stop(String),
}

/// One worker's state and the pieces posted to it and not answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    state: SlotState,
    /// `(job serial, part)`, oldest first.
    queued: Vec<(u64, usize)>,
}

/// The running job and its serial, as a slot's calls take it.
pub type JobRef<'a> = Option<(&'a mut AnalysisJob, u64)>;

impl Default for Slot {
    fn default() -> Self {
        Slot { state: SlotState::Starting, queued: Vec::new() }
    }
}

impl Slot {
    pub fn state(&self) -> SlotState {
        self.state
    }

    /// Still working through pieces (of a job perhaps since dropped).
    pub fn busy(&self) -> bool {
        self.state != SlotState::Stopped && !self.queued.is_empty()
    }

    /// The next piece of `job` (number `serial`) to post to this worker, while its queue has
    /// room and the job has any to hand out.
    pub fn next(&self, job: &mut AnalysisJob, serial: u64) -> Option<Task> {
        let room = self.state == SlotState::Running && self.queued.len() < QUEUE;
        room.then(|| job.hand_out()).flatten().map(|h| Task::new(serial, &h))
    }

    /// `task` was posted; `false`: it could not be, and the worker is stopped.
    pub fn posted(&mut self, task: &Task, posted: bool, job: &mut AnalysisJob) {
        if posted {
            self.queued.push((task.serial, task.part));
        } else {
            job.hand_back(task.part);
            self.stop(Some((job, task.serial)));
        }
    }

    /// Stops the slot; the pieces it still held for `job` go back to it.
    pub fn stop(&mut self, job: JobRef) {
        self.state = SlotState::Stopped;
        if let Some((job, serial)) = job {
            for (_, part) in self.queued.iter().filter(|(s, _)| *s == serial) {
                job.hand_back(*part);
            }
        }
        self.queued.clear();
    }

    /// Takes the worker's reply: a piece of the running job goes to `job`.
    pub fn replied(&mut self, reply: Reply, mut job: JobRef) -> Replied {
        let (serial, part, result) = match reply {
            Reply::Ready => {
                self.state = SlotState::Running;
                return Replied::Ready;
            }
            Reply::Failed(e) => {
                self.stop(job);
                return Replied::Stop(format!("a worker did not start: {e}"));
            }
            Reply::Part { serial, part, result } => (serial, part, result),
        };
        self.queued.retain(|&q| q != (serial, part));
        let current = job.as_ref().is_some_and(|(_, s)| *s == serial);
        let outcome = match (&mut job, result) {
            (Some((j, _)), Ok(bytes)) if current => j.supply_part(part, &bytes),
            (_, Ok(_)) => return Replied::Dropped,
            (_, Err(e)) => Err(rvalue_core::Error::invalid(e)),
        };
        let Err(e) = outcome else { return Replied::Taken };
        if let Some((j, _)) = job.as_mut().filter(|_| current) {
            j.hand_back(part);
        }
        self.stop(job);
        Replied::Stop(format!("a worker's repeat failed: {e}"))
    }
}

#[cfg(test)]
mod tests;
