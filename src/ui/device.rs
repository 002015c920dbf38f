//! Where the page ranks draws for CP_r's nonparametric and pooled r-values: on the GPU
//! (WebGPU) when the browser has an adapter, else on the CPU. The GPU is opened once at start;
//! a job's rank-based work (the core's `AnalysisJob::offload` hook) is then awaited on it one
//! part or split at a time while frames go on, and handed back to the job. A GPU failure sends
//! that job back to the CPU and says so. Both paths give the same bits (`gpu` module), so
//! switching changes no number on the page.
//!
//! The URL parameter `gpu` is a switch for tests and for trying the fallback by hand: `off`
//! hides the adapter, `bad-shader` compiles a broken kernel (the GPU fails to open), `lost`
//! destroys the device once opened (every job's GPU call fails, and the job uses the CPU).
// Without the `gpu` feature the state is always `Cpu`, and the answer machinery is idle.
#![cfg_attr(not(feature = "gpu"), allow(dead_code, unused_imports, unused_variables))]

use std::rc::Rc;

#[cfg(feature = "gpu")]
use rvalue_core::conformal::Calibrated;
use rvalue_core::Result;
#[cfg(feature = "gpu")]
use rvalue_gpu::{self as gpu, keys::Keys, Gpu};
use rvalue_model::OffloadRequest;

/// What the page computes on.
enum State {
    /// An embed's GPU, not asked for until a job ranks draws (with the address' test switch):
    /// asking a browser that has no adapter logs "No available adapters." in the console of
    /// the page that embeds the panel, and most embeds never rank draws.
    Later(Option<String>),
    /// The GPU is being opened; jobs use the CPU meanwhile.
    Opening,
    /// The GPU and its name as shown.
    #[cfg(feature = "gpu")]
    Gpu(Rc<Gpu>, String),
    /// Why there is no GPU.
    Cpu(String),
}

/// The GPU opened, or why not: [`open`]'s result, for [`Device::opened`].
pub(super) struct Opened(State);

/// The page's compute device and the last GPU failure of a job.
pub(super) struct Device {
    state: State,
    failure: Option<String>,
    /// Counts jobs, so that a GPU result that arrives after its job was replaced is dropped.
    jobs: u64,
}

/// A running job's use of the GPU.
#[derive(Default)]
pub(super) struct JobGpu {
    serial: u64,
    /// A GPU call is under way; the job waits for its answer.
    busy: bool,
    /// The GPU failed for this job: the CPU does the rest.
    cpu_only: bool,
    /// Some of this job's results came from the GPU.
    used: bool,
    /// The fraction of the current GPU call's work done (pooled splits report per chunk).
    done: Rc<std::cell::Cell<f64>>,
    /// The sort keys of the part being analysed (`(part, keys)`), shared by its splits.
    #[cfg(feature = "gpu")]
    keys: Option<(usize, Rc<Keys>)>,
}

impl Device {
    pub(super) fn new() -> Device {
        Device { state: State::Opening, failure: None, jobs: 0 }
    }

    /// An embed's device: the CPU until [`Device::open_now`] says to open the GPU.
    pub(super) fn later(switch: Option<String>) -> Device {
        Device { state: State::Later(switch), ..Device::new() }
    }

    /// The test switch to [`open`] the GPU with, once, when it was left for later.
    pub(super) fn open_now(&mut self) -> Option<Option<String>> {
        match std::mem::replace(&mut self.state, State::Opening) {
            State::Later(switch) => Some(switch),
            other => {
                self.state = other;
                None
            }
        }
    }

    /// The GPU [`open`] opened (or why it did not).
    pub(super) fn opened(&mut self, opened: Opened) {
        self.state = opened.0;
    }

    /// A fresh record for the job about to start.
    pub(super) fn new_job(&mut self) -> JobGpu {
        self.jobs += 1;
        JobGpu { serial: self.jobs, ..JobGpu::default() }
    }

    /// The text of the page's "Compute:" line, and its tooltip.
    pub(super) fn describe(&self) -> (String, String) {
        let (text, title) = match &self.state {
            State::Later(_) => ("CPU".to_string(), String::new()),
            State::Opening => ("CPU (looking for a GPU…)".to_string(), String::new()),
            #[cfg(feature = "gpu")]
            State::Gpu(g, name) => {
                let a = g.adapter();
                let kind = if a.software { ", software" } else { "" };
                (format!("GPU: {name} ({}{kind})", a.backend), String::new())
            }
            State::Cpu(why) if why.contains("no GPU adapter") || why.contains("no GPU support") => {
                ("CPU".to_string(), why.clone())
            }
            State::Cpu(why) => (format!("CPU (GPU failed: {why})"), why.clone()),
        };
        match &self.failure {
            Some(f) => (format!("{text}. GPU failed: {f}; using CPU"), f.clone()),
            None => (text, title),
        }
    }

    /// The note on a finished job's status line.
    pub(super) fn note(&self, job: &JobGpu) -> &'static str {
        match (job.used, job.cpu_only) {
            (_, true) => "; GPU failed, CP_r on the CPU",
            (true, false) => "; CP_r's ranks on the GPU",
            (false, false) => "",
        }
    }
}

/// Whether `job` waits for the GPU: a call under way, or one started now for the job's next
/// step. `false` leaves the step to the CPU. `answered(serial, part, answer)` is called with
/// the GPU's answer for the job numbered `serial`, when it comes.
pub(super) fn offload(
    device: &Device,
    job: &mut JobGpu,
    request: impl FnOnce() -> Option<OffloadRequest>,
    answered: impl FnOnce(u64, usize, Result<Answer>) + 'static,
) -> bool {
    if job.busy {
        return true;
    }
    #[cfg(feature = "gpu")]
    if let (State::Gpu(g, _), false) = (&device.state, job.cpu_only) {
        let Some(req) = request() else { return false };
        // A streamed file's items are not held: its work stays with the CPU.
        let Ok(t) = req.tensor.get() else { return false };
        let keys = match &job.keys {
            Some((part, k)) if *part == req.part => k.clone(),
            _ => {
                let k = Rc::new(Keys::of_tensor(t));
                job.keys = Some((req.part, k.clone()));
                k
            }
        };
        job.busy = true;
        job.done.set(0.0);
        let (gpu, serial, done) = (g.clone(), job.serial, job.done.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let answer = compute(&gpu, &req, &keys, &done).await;
            answered(serial, req.part, answer);
        });
        return true;
    }
    let _ = (device, request, answered);
    false
}

/// What the GPU computed for a request.
#[cfg(feature = "gpu")]
pub(super) enum Answer {
    Rvalues(Vec<f64>),
    /// Pooled split number `index` of the part.
    Pooled {
        index: usize,
        calibrated: Calibrated,
    },
}

#[cfg(not(feature = "gpu"))]
pub(super) enum Answer {}

#[cfg(feature = "gpu")]
async fn compute(
    gpu: &Gpu,
    req: &OffloadRequest,
    keys: &Keys,
    done: &std::cell::Cell<f64>,
) -> Result<Answer> {
    use rvalue_core::conformal::{Calibrated, Coverage};
    use rvalue_model::Offload;
    let t = req.tensor.get()?;
    match &req.what {
        Offload::Nonparametric => Ok(Answer::Rvalues(gpu::nonparametric_rvalues_async(gpu, t, keys).await?)),
        Offload::Pooled { index, split, ties, coverage, items_per_step } => {
            let n = split.test.len().max(1) as f64;
            let report = |items: usize| done.set(items as f64 / n);
            let (labels, chunk) = (&req.labels, *items_per_step);
            let items =
                gpu::pooled_items_chunked_async(gpu, t, keys, labels, split, *ties, chunk, report).await?;
            let by_class = (*coverage == Coverage::PerClass).then_some(&labels[..]);
            let calibrated = Calibrated::from_pooled_items_with(t.k(), labels, split, &items, by_class);
            Ok(Answer::Pooled { index: *index, calibrated })
        }
    }
}

impl JobGpu {
    /// The fraction of the GPU call under way done so far; `None` when there is none.
    pub(super) fn progress(&self) -> Option<f64> {
        self.busy.then(|| self.done.get())
    }

    /// Hands the GPU's answer to the job (through `supply`) if it is for this job; a failure
    /// (of the GPU, or an answer the job refuses) sends the job to the CPU. Whether the answer
    /// was this job's.
    pub(super) fn take<T>(
        &mut self,
        device: &mut Device,
        serial: u64,
        answer: std::result::Result<T, rvalue_core::Error>,
        supply: impl FnOnce(T) -> rvalue_core::Result<()>,
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
                device.failure = Some(rvalue_model::message::reason(&e));
            }
        }
        true
    }
}

/// The adapter's vendor and architecture as the browser reports them (`GPUAdapterInfo`), for
/// browsers that leave its description empty, as Chromium does (wgpu names an adapter by the
/// description alone). Read through `js_sys`: web-sys' WebGPU bindings are unstable APIs.
#[cfg(feature = "gpu")]
async fn browser_adapter_name() -> Option<String> {
    use js_sys::{Function, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};
    let gpu =
        Reflect::get(&Reflect::get(&js_sys::global(), &"navigator".into()).ok()?, &"gpu".into()).ok()?;
    let request: Function = Reflect::get(&gpu, &"requestAdapter".into()).ok()?.dyn_into().ok()?;
    let promise: Promise = request.call0(&gpu).ok()?.dyn_into().ok()?;
    let adapter = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let info = Reflect::get(&adapter, &"info".into()).ok()?;
    let field =
        |k: &str| Reflect::get(&info, &JsValue::from_str(k)).ok()?.as_string().filter(|s| !s.is_empty());
    let parts: Vec<String> = ["vendor", "architecture", "device"].iter().filter_map(|k| field(k)).collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// Opens the GPU in the background and calls `ready` when it is open (or with why not).
/// `switch`: the page address' test switch (`?gpu=off|bad-shader|lost`, README), if any.
#[cfg_attr(not(feature = "gpu"), allow(unused_variables))]
pub(super) fn open(switch: Option<String>, ready: impl FnOnce(Opened) + 'static) {
    #[cfg(feature = "gpu")]
    wasm_bindgen_futures::spawn_local(async move {
        let opts = gpu::Options {
            no_adapter: switch.as_deref() == Some("off"),
            // A kernel that cannot compile: opening fails as on a driver that rejects it.
            rank_source: (switch.as_deref() == Some("bad-shader"))
                .then(|| gpu::RANK_WGSL.replace("fn rank_in(", "fn rank_in((")),
            ..gpu::Options::default()
        };
        let state = match Gpu::open(opts).await {
            Ok(g) => {
                if switch.as_deref() == Some("lost") {
                    g.destroy_device();
                }
                let name = match g.adapter_name() {
                    "" => browser_adapter_name().await.unwrap_or_else(|| "unnamed adapter".into()),
                    n => n.to_string(),
                };
                State::Gpu(Rc::new(g), name)
            }
            Err(e) => State::Cpu(rvalue_model::message::reason(&e)),
        };
        ready(Opened(state));
    });
    // Later, as with the GPU: the caller may hold the app that `ready` updates.
    #[cfg(not(feature = "gpu"))]
    wasm_bindgen_futures::spawn_local(async move {
        ready(Opened(State::Cpu("this build has no GPU support (cargo feature `gpu`)".into())));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A GPU answer that arrives after its job was replaced (cancel, or a new setting) must not
    /// reach the new job, even when the new job waits for an answer of the same shape.
    #[test]
    fn an_answer_for_a_replaced_job_is_dropped() {
        let mut device = Device::new();
        let old = device.new_job();
        let mut job = device.new_job();
        job.busy = true;
        let mut supplied = Vec::new();
        assert!(!job.take(&mut device, old.serial, Ok(1), |x| {
            supplied.push(x);
            Ok(())
        }));
        assert!(supplied.is_empty() && job.busy && !job.used && !job.cpu_only);
        assert!(job.take(&mut device, job.serial, Ok(2), |x| {
            supplied.push(x);
            Ok(())
        }));
        assert_eq!(supplied, [2]);
        assert!(!job.busy && job.used && device.failure.is_none());
        // An answer the job refuses sends it to the CPU and says why.
        job.busy = true;
        assert!(job.take(&mut device, job.serial, Ok(3), |_| Err(rvalue_core::Error::invalid("stale"))));
        assert!(job.cpu_only && device.failure.as_deref().is_some_and(|f| f.contains("stale")));
    }
}
