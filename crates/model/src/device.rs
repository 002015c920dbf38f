//! Where the page ranks draws for CP_r's nonparametric and pooled r-values, as a state
//! machine: the GPU once it is open, else the CPU; a job's GPU calls one at a time; a GPU
//! failure sends that job to the CPU and the page says so. Both paths give the same bits, so
//! switching changes no number. The page holds the GPU itself (`G`) and the keys it sorts by
//! (`K`); this decides what it says and when it calls.

use std::cell::Cell;
use std::rc::Rc;

use rvalue_core::{Error, Result};

/// What the page computes on; `G` is the page's GPU handle.
pub enum DeviceState<G> {
    /// An embed's GPU, not asked for until a job ranks draws (with the address' test switch):
    /// asking a browser that has no adapter logs "No available adapters." in the console of
    /// the page that embeds the panel, and most embeds never rank draws.
    Later(Option<String>),
    /// The GPU is being opened; jobs use the CPU meanwhile.
    Opening,
    /// The GPU, and its adapter as shown.
    Gpu(G, Adapter),
    /// Why there is no GPU.
    Cpu(String),
}

/// An adapter as the "Compute:" line names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adapter {
    pub name: String,
    /// The graphics backend (`WebGPU`, `Vulkan`…).
    pub backend: String,
    /// A software rasteriser rather than a GPU.
    pub software: bool,
}

/// The page's compute device and the last GPU failure of a job.
pub struct Device<G> {
    state: DeviceState<G>,
    failure: Option<String>,
    /// Counts jobs, so that a GPU result that arrives after its job was replaced is dropped.
    jobs: u64,
}

/// The address' GPU test switch (`gpu=off|bad-shader|lost`, README), read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuSwitch {
    /// `off`: the adapter is hidden.
    pub no_adapter: bool,
    /// `bad-shader`: a kernel that cannot compile (the GPU fails to open).
    pub bad_shader: bool,
    /// `lost`: the device is destroyed once opened (every GPU call fails).
    pub lost: bool,
}

impl GpuSwitch {
    pub fn of(switch: Option<&str>) -> GpuSwitch {
        GpuSwitch {
            no_adapter: switch == Some("off"),
            bad_shader: switch == Some("bad-shader"),
            lost: switch == Some("lost"),
        }
    }
}

impl<G> Device<G> {
    #[allow(clippy::new_without_default)] // opening the GPU is a start, not a default
    pub fn new() -> Self {
        Device { state: DeviceState::Opening, failure: None, jobs: 0 }
    }

    /// An embed's device: the CPU until [`Device::open_now`] says to open the GPU.
    pub fn later(switch: Option<String>) -> Self {
        Device { state: DeviceState::Later(switch), ..Device::new() }
    }

    /// The test switch to open the GPU with, once, when it was left for later.
    pub fn open_now(&mut self) -> Option<Option<String>> {
        match std::mem::replace(&mut self.state, DeviceState::Opening) {
            DeviceState::Later(switch) => Some(switch),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// The GPU opened (or why it did not).
    pub fn opened(&mut self, opened: DeviceState<G>) {
        self.state = opened;
    }

    /// The GPU, when it is open.
    pub fn gpu(&self) -> Option<&G> {
        match &self.state {
            DeviceState::Gpu(g, _) => Some(g),
            _ => None,
        }
    }

    /// A fresh record for the job about to start.
    pub fn new_job<K>(&mut self) -> JobGpu<K> {
        self.jobs += 1;
        JobGpu {
            serial: self.jobs,
            busy: false,
            cpu_only: false,
            used: false,
            done: Rc::default(),
            keys: None,
        }
    }

    /// The text of the page's "Compute:" line, and its tooltip.
    pub fn describe(&self) -> (String, String) {
        let (text, title) = match &self.state {
            DeviceState::Later(_) => ("CPU".to_string(), String::new()),
            DeviceState::Opening => ("CPU (looking for a GPU…)".to_string(), String::new()),
            DeviceState::Gpu(_, a) => {
                let kind = if a.software { ", software" } else { "" };
                (format!("GPU: {} ({}{kind})", a.name, a.backend), String::new())
            }
            DeviceState::Cpu(why) if why.contains("no GPU adapter") || why.contains("no GPU support") => {
                ("CPU".to_string(), why.clone())
            }
            DeviceState::Cpu(why) => (format!("CPU (GPU failed: {why})"), why.clone()),
        };
        match &self.failure {
            Some(f) => (format!("{text}. GPU failed: {f}; using CPU"), f.clone()),
            None => (text, title),
        }
    }

    /// The note on a finished job's status line.
    pub fn note<K>(&self, job: &JobGpu<K>) -> &'static str {
        match (job.used, job.cpu_only) {
            (_, true) => "; GPU failed, CP_r on the CPU",
            (true, false) => "; CP_r's ranks on the GPU",
            (false, false) => "",
        }
    }
}

/// A running job's use of the GPU; `K` the sort keys of a part, shared by its splits.
pub struct JobGpu<K> {
    serial: u64,
    /// A GPU call is under way; the job waits for its answer.
    busy: bool,
    /// The GPU failed for this job: the CPU does the rest.
    cpu_only: bool,
    /// Some of this job's results came from the GPU.
    used: bool,
    /// The fraction of the current GPU call's work done (pooled splits report per chunk).
    done: Rc<Cell<f64>>,
    /// The sort keys of the part being analysed (`(part, keys)`).
    keys: Option<(usize, K)>,
}

/// What a job's next step does about the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuStep {
    /// A GPU call is under way: wait for it.
    Wait,
    /// The GPU is open and this job may use it: ask the job for a request.
    Ask,
    /// The CPU does the step.
    Cpu,
}

impl<K: Clone> crate::page::JobDevice for JobGpu<K> {
    fn progress(&self) -> Option<f64> {
        JobGpu::progress(self)
    }
}

impl<K: Clone> JobGpu<K> {
    /// The job's number, as GPU answers carry it.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// What the next step does, on `device`.
    pub fn step<G>(&self, device: &Device<G>) -> GpuStep {
        match (self.busy, device.gpu().is_some() && !self.cpu_only) {
            (true, _) => GpuStep::Wait,
            (false, true) => GpuStep::Ask,
            (false, false) => GpuStep::Cpu,
        }
    }

    /// The keys of `part`: those kept when they are its, else `make()`'s, kept.
    pub fn keys_for(&mut self, part: usize, make: impl FnOnce() -> K) -> K {
        match &self.keys {
            Some((p, k)) if *p == part => k.clone(),
            _ => {
                let k = make();
                self.keys = Some((part, k.clone()));
                k
            }
        }
    }

    /// A GPU call starts: the job waits for it; its progress, shared with the call.
    pub fn call(&mut self) -> Rc<Cell<f64>> {
        self.busy = true;
        self.done.set(0.0);
        self.done.clone()
    }

    /// The fraction of the GPU call under way done so far; `None` when there is none.
    pub fn progress(&self) -> Option<f64> {
        self.busy.then(|| self.done.get())
    }

    /// Hands the GPU's answer to the job (through `supply`) if it is for this job; a failure
    /// (of the GPU, or an answer the job refuses) sends the job to the CPU. Whether the answer
    /// was this job's.
    pub fn take<G, T>(
        &mut self,
        device: &mut Device<G>,
        serial: u64,
        answer: std::result::Result<T, Error>,
        supply: impl FnOnce(T) -> Result<()>,
    ) -> bool {
        if serial != self.serial || !self.busy {
            return false;
        }
        self.busy = false;
        match answer.and_then(supply) {
            Ok(()) => {
                self.used = true;
                device.failure = None;
            }
            Err(e) => {
                self.cpu_only = true;
                device.failure = Some(crate::message::reason(&e));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
