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
use rvalue_model::device::{Adapter, DeviceState, GpuStep, GpuSwitch};
use rvalue_model::OffloadRequest;

/// The GPU as the page holds it (nothing without the `gpu` feature).
#[cfg(feature = "gpu")]
type Handle = Rc<Gpu>;
#[cfg(not(feature = "gpu"))]
type Handle = ();
/// The sort keys of a part, shared by its splits.
#[cfg(feature = "gpu")]
type PartKeys = Rc<Keys>;
#[cfg(not(feature = "gpu"))]
type PartKeys = ();

/// The page's compute device and the last GPU failure of a job ([`rvalue_model::device`]).
pub type Device = rvalue_model::device::Device<Handle>;
/// A running job's use of the GPU.
pub type JobGpu = rvalue_model::device::JobGpu<PartKeys>;
/// The GPU opened, or why not: [`open`]'s result, for [`Device::opened`].
pub type Opened = DeviceState<Handle>;

/// Whether `job` waits for the GPU: a call under way, or one started now for the job's next
/// step. `false` leaves the step to the CPU. `answered(serial, part, answer)` is called with
/// the GPU's answer for the job numbered `serial`, when it comes.
pub fn offload(
    device: &Device,
    job: &mut JobGpu,
    request: impl FnOnce() -> Option<OffloadRequest>,
    answered: impl FnOnce(u64, usize, Result<Answer>) + 'static,
) -> bool {
    match job.step(device) {
        GpuStep::Wait => return true,
        GpuStep::Cpu => return false,
        GpuStep::Ask => {}
    }
    #[cfg(feature = "gpu")]
    if let Some(g) = device.gpu() {
        let Some(req) = request() else { return false };
        // A streamed file's items are not held: its work stays with the CPU.
        let Ok(t) = req.tensor.get() else { return false };
        let keys = job.keys_for(req.part, || Rc::new(Keys::of_tensor(t)));
        let (gpu, serial, done) = (g.clone(), job.serial(), job.call());
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
pub enum Answer {
    Rvalues(Vec<f64>),
    /// Pooled split number `index` of the part.
    Pooled {
        index: usize,
        calibrated: Calibrated,
    },
}

#[cfg(not(feature = "gpu"))]
pub enum Answer {}

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
pub fn open(switch: Option<String>, ready: impl FnOnce(Opened) + 'static) {
    #[cfg(feature = "gpu")]
    wasm_bindgen_futures::spawn_local(async move {
        let switch = GpuSwitch::of(switch.as_deref());
        let opts = gpu::Options {
            no_adapter: switch.no_adapter,
            // A kernel that cannot compile: opening fails as on a driver that rejects it.
            rank_source: switch.bad_shader.then(|| gpu::RANK_WGSL.replace("fn rank_in(", "fn rank_in((")),
            ..gpu::Options::default()
        };
        let state = match Gpu::open(opts).await {
            Ok(g) => {
                if switch.lost {
                    g.destroy_device();
                }
                let name = match g.adapter_name() {
                    "" => browser_adapter_name().await.unwrap_or_else(|| "unnamed adapter".into()),
                    n => n.to_string(),
                };
                let a = g.adapter();
                let adapter = Adapter { name, backend: a.backend.to_string(), software: a.software };
                DeviceState::Gpu(Rc::new(g), adapter)
            }
            Err(e) => DeviceState::Cpu(rvalue_model::message::reason(&e)),
        };
        ready(state);
    });
    // Later, as with the GPU: the caller may hold the app that `ready` updates.
    #[cfg(not(feature = "gpu"))]
    wasm_bindgen_futures::spawn_local(async move {
        ready(DeviceState::Cpu("this build has no GPU support (cargo feature `gpu`)".into()));
    });
}
