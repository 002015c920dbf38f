//! The page's workers as a pool: started once, fed pieces of the running job, replaced when
//! busy with a job since dropped. `P` is the page's handle on a worker ([`Port`]); each slot
//! remembers which data set or streamed file its worker holds, so each is posted once.

use std::sync::{Arc, Weak};

use rvalue_core::io::Dataset;

use super::{worker_count, JobRef, Replied, Reply, Slot, SlotState};
use crate::{AnalysisJob, StreamedFile};

/// A worker as the pool drives it; each post says whether it was posted.
pub trait Port {
    /// Where a streamed file's bytes are, as a worker reads them.
    type File;
    /// Posts a data set to hold, for the splits after it.
    fn hold(&self, data: &Dataset) -> bool;
    /// Posts a streamed file's handle (not its bytes) and its labels, for the shares after it.
    fn hold_file(&self, file: &Self::File, info: &StreamedFile) -> bool;
    /// Posts a piece of work.
    fn post(&self, task: &super::Task) -> bool;
    /// Stops the worker; its answers are dropped with it.
    fn terminate(&self);
}

/// A worker and what the pool knows of it.
struct Worker<P> {
    port: P,
    slot: Slot,
    /// The data set posted to it last.
    held: Weak<Dataset>,
    /// The streamed file posted to it last.
    held_file: Weak<StreamedFile>,
}

impl<P: Port> Worker<P> {
    fn new(port: P) -> Self {
        Worker { port, slot: Slot::default(), held: Weak::new(), held_file: Weak::new() }
    }

    /// Posts `data` unless the worker holds it already; whether it holds it.
    fn hold(&mut self, data: &Arc<Dataset>) -> bool {
        let ok = std::ptr::eq(self.held.as_ptr(), Arc::as_ptr(data)) || self.port.hold(data);
        if ok {
            self.held = Arc::downgrade(data);
        }
        ok
    }

    /// Posts the streamed file unless the worker holds it already; whether it holds it.
    fn hold_file(&mut self, file: &P::File, info: &Arc<StreamedFile>) -> bool {
        let ok = std::ptr::eq(self.held_file.as_ptr(), Arc::as_ptr(info)) || self.port.hold_file(file, info);
        if ok {
            self.held_file = Arc::downgrade(info);
        }
        ok
    }
}

/// The page's workers, started with the first analysis that hands out work.
pub struct Pool<P> {
    workers: Vec<Worker<P>>,
    started: bool,
    /// The `workers` URL parameter.
    switch: Option<String>,
}

impl<P: Port> Pool<P> {
    /// A pool of the size `switch` (the `workers` URL parameter) or the machine's cores ask
    /// for, not started yet.
    pub fn new(switch: Option<String>) -> Self {
        Pool { workers: Vec::new(), started: false, switch }
    }

    /// Workers the pool starts on a machine of `cores` ([`worker_count`]).
    pub fn count(&self, cores: f64) -> usize {
        worker_count(self.switch.as_deref(), cores)
    }

    /// Starts the pool, once: `spawn(i)` starts each worker (`None`: it did not start).
    pub fn start(&mut self, cores: f64, spawn: impl FnMut(usize) -> Option<P>) {
        if !std::mem::replace(&mut self.started, true) {
            self.workers = (0..self.count(cores)).filter_map(spawn).map(Worker::new).collect();
        }
    }

    /// Workers started and not stopped.
    pub fn ready(&self) -> usize {
        self.workers.iter().filter(|w| w.slot.state() == SlotState::Running).count()
    }

    /// Workers running or starting, or (before the pool starts) that it will start.
    pub fn alive(&self, cores: f64) -> usize {
        match self.started {
            true => self.workers.iter().filter(|w| w.slot.state() != SlotState::Stopped).count(),
            false => self.count(cores),
        }
    }

    /// Stops the workers still busy with work of a job since dropped (a group of a streamed
    /// file's pooled splits takes minutes, and cannot be interrupted) and starts fresh ones
    /// (`spawn(i)`) in their place. How many were stopped, their answers dropped.
    pub fn recycle_busy(&mut self, mut spawn: impl FnMut(usize) -> Option<P>) -> usize {
        let mut stopped = 0;
        for (i, w) in self.workers.iter_mut().enumerate().filter(|(_, w)| w.slot.busy()) {
            w.port.terminate();
            w.slot.stop(None);
            stopped += 1;
            if let Some(port) = spawn(i) {
                *w = Worker::new(port);
            }
        }
        stopped
    }

    /// Tops up each running worker's queue with pieces of `job` (number `serial`), as long as
    /// it has any to hand out; a streamed file's shares are read by the workers from `file`,
    /// when it is the job's. How many shares were posted.
    pub fn feed(
        &mut self,
        job: &mut AnalysisJob,
        serial: u64,
        file: Option<(&P::File, &Arc<StreamedFile>)>,
    ) -> usize {
        let data = job.data().cloned();
        let file = file.filter(|(_, info)| job.streamed().is_some_and(|s| Arc::ptr_eq(s, info)));
        let mut shares = 0;
        for w in self.workers.iter_mut() {
            while let Some(task) = w.slot.next(job, serial) {
                let held = match (&data, file) {
                    (Some(d), _) => w.hold(d),
                    (None, Some((f, info))) => w.hold_file(f, info),
                    (None, None) => true,
                };
                let posted = held && w.port.post(&task);
                w.slot.posted(&task, posted, job);
                if !posted {
                    w.port.terminate();
                    break;
                }
                shares += usize::from(task.work == "share");
            }
        }
        shares
    }

    /// Takes worker `i`'s reply: a piece of the running job goes to `job`; a worker stopped is
    /// terminated.
    pub fn replied(&mut self, i: usize, reply: Reply, job: JobRef) -> Option<Replied> {
        let w = self.workers.get_mut(i)?;
        let replied = w.slot.replied(reply, job);
        if matches!(replied, Replied::Stop(_)) {
            w.port.terminate();
        }
        Some(replied)
    }
}

#[cfg(test)]
mod tests;
