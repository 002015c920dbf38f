//! rvalue-gpu: batched Monte Carlo ranking on the GPU (docs/method.md §7), with the CPU as the
//! fallback that gives the same answers bit for bit. Built on `rvalue-core`.
//!
//! - [`keys`]: scores as integer sort keys (one u32 when every score is an f32, else two), so
//!   the kernels rank exactly as the CPU does without comparing floats.
//! - [`cpu`]: the kernels' CPU twins, and the pooled greedy that stays on the CPU.
//! - `draws.wgsl`: the WGSL twin of the core's normal generator (`toy::draws`: Philox4x32-10 +
//!   an integer inverse CDF), identical in Rust and WGSL.
//! - `context` (feature `gpu`): wgpu device, the kernels `rank.wgsl` / `draws.wgsl`, batching
//!   within the adapter's limits, readback, errors as values.
//!
//! The functions below are what the CLI and the page call ([`open`] / `Gpu::new`, then
//! `nonparametric_rvalues`, `pooled_calibrated`, `toy_repeat` and their `_async` forms): the
//! same results as `conformal::item_scores` / `Calibrated::pooled` for the rank-based r-values.

pub mod block_ranker;
pub mod cpu;
pub mod keys;

#[cfg(feature = "gpu")]
mod context;
#[cfg(feature = "gpu")]
pub use context::{
    block_on, probe_adapter, Adapter, Caps, Gpu, Options, DRAWS_WGSL, GROUP_BYTES, MAX_LOOP, RANK_WGSL,
    WORKGROUP,
};

use keys::Keys;
use rvalue_core::conformal::Split;
use rvalue_core::rvalue::pooled::{PooledItem, PooledSplit, Workspace};
use rvalue_core::rvalue::TieOrder;
use rvalue_core::tensor::ScoreTensor;
#[cfg(feature = "gpu")]
use rvalue_core::toy::{self, ToyParams};
use rvalue_core::{Error, Result};

rvalue_core::options! {
    /// Where rank-based r-values are computed (`--device`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Device("device") {
        Cpu = "cpu",
        /// A GPU adapter, any kind; an error if there is none.
        Gpu = "gpu",
        /// A hardware GPU if there is one, else the CPU. Software adapters (lavapipe,
        /// SwiftShader) are passed over: they emulate a GPU on the CPU and are slower than the
        /// CPU path.
        Auto = "auto",
    }
}

/// Environment variable: `RVALUE_GPU=off` makes every adapter request fail, as on a machine
/// without a GPU (for trying the fallback by hand and for the CLI's tests).
pub const ENV_OFF: &str = "RVALUE_GPU";

/// Opens the GPU `device` asks for: `Ok(None)` means the CPU path. `Gpu` fails without an
/// adapter; `Auto` falls back quietly and says why in the second value.
#[cfg(not(target_arch = "wasm32"))]
pub fn open(device: Device) -> Result<(Option<Gpu>, Option<String>)> {
    if device == Device::Cpu {
        return Ok((None, None));
    }
    if device == Device::Auto && !may_have_hardware_gpu() {
        return Ok((None, Some("no GPU device node; using the CPU".into())));
    }
    let opened = open_gpu(device == Device::Auto);
    match (device, opened) {
        (Device::Gpu, Ok(g)) => Ok((Some(g), None)),
        (Device::Gpu, Err(e)) => Err(e),
        (_, Ok(g)) if g.is_software() => {
            Ok((None, Some(format!("{} is a software adapter; using the CPU", g.adapter_name()))))
        }
        (_, Ok(g)) => Ok((Some(g), None)),
        (_, Err(e)) => Ok((None, Some(e.to_string()))),
    }
}

#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
fn open_gpu(hardware_only: bool) -> Result<Gpu> {
    let off = std::env::var(ENV_OFF).is_ok_and(|v| v == "off");
    Gpu::with_options(Options { no_adapter: off, hardware_only, ..Options::default() })
}

/// Whether the system shows a GPU device node. Listing Vulkan adapters loads every installed
/// driver, lavapipe's LLVM among them, which takes a tenth of a second or more; on Linux a
/// hardware GPU is reached through a DRM render node (Mesa's and most other drivers), NVIDIA's
/// own nodes or WSL's `/dev/dxg`, so where there is none `auto` need not ask Vulkan. Elsewhere
/// it always asks.
#[cfg(not(target_arch = "wasm32"))]
fn may_have_hardware_gpu() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("renderD")))
    });
    render_node
        || ["/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg"].iter().any(|p| std::path::Path::new(p).exists())
}

/// Switches off Mesa's device-selection layer for this process unless the user set its switch.
/// That implicit Vulkan layer puts the GPU driving the display first; to find it, it connects
/// to the Wayland and X11 displays whenever an instance enables their surface extensions, as
/// wgpu's always does, and without a display libwayland prints `error: XDG_RUNTIME_DIR is
/// invalid or not set in the environment.` on stderr, once per adapter list. Ranking draws
/// needs no display, and `auto` picks its adapter by type, so the layer has nothing to do here.
/// It changes the environment: call it before any other thread starts.
#[cfg(not(target_arch = "wasm32"))]
pub fn quiet_device_select() {
    const SWITCH: &str = "NODEVICE_SELECT";
    if cfg!(feature = "gpu") && std::env::var_os(SWITCH).is_none() {
        std::env::set_var(SWITCH, "1");
    }
}

/// Without the `gpu` feature there is no GPU type; this one cannot be built.
#[cfg(not(feature = "gpu"))]
#[derive(Debug)]
pub enum Gpu {}

#[cfg(not(feature = "gpu"))]
impl Gpu {
    pub fn adapter_name(&self) -> &str {
        match *self {}
    }
    pub fn is_software(&self) -> bool {
        match *self {}
    }
}

#[cfg(all(not(target_arch = "wasm32"), not(feature = "gpu")))]
fn open_gpu(_: bool) -> Result<Gpu> {
    Err(Error::gpu("this build has no GPU support (cargo feature `gpu`)"))
}

/// Without the `gpu` feature no `Gpu` exists, so these are never called.
#[cfg(not(feature = "gpu"))]
pub fn nonparametric_rvalues(gpu: &Gpu, _: &ScoreTensor, _: &Keys) -> Result<Vec<f64>> {
    match *gpu {}
}

#[cfg(not(feature = "gpu"))]
pub fn pooled_items(
    gpu: &Gpu,
    _: &ScoreTensor,
    _: &Keys,
    _: &[usize],
    _: &Split,
    _: TieOrder,
) -> Result<Vec<PooledItem>> {
    match *gpu {}
}

#[cfg(not(feature = "gpu"))]
pub fn pooled_calibrated(
    gpu: &Gpu,
    _: &ScoreTensor,
    _: &Keys,
    _: &[usize],
    _: &Split,
    _: TieOrder,
) -> Result<rvalue_core::conformal::Calibrated> {
    match *gpu {}
}

/// Items per host-side chunk of rank counts: at most 16 M counts (64 MB) held at once.
#[cfg(feature = "gpu")]
fn count_chunk(k: usize) -> usize {
    ((1usize << 24) / (k * k).max(1)).max(1)
}

/// Nonparametric r-values `[N][K]` of every item (docs/method.md §3), the counts from the GPU: equal to
/// `conformal::item_scores` for CP_r with nonparametric r-values.
#[cfg(feature = "gpu")]
pub async fn nonparametric_rvalues_async(gpu: &Gpu, t: &ScoreTensor, keys: &Keys) -> Result<Vec<f64>> {
    let (n, m, k) = (t.n(), t.m(), t.k());
    let mut out = Vec::with_capacity(n * k);
    let chunk = count_chunk(k);
    for first in (0..n).step_by(chunk) {
        let counts = gpu.rank_counts_of(keys, first..(first + chunk).min(n), m, k).await?;
        for item in counts.chunks_exact(k * k) {
            out.extend(rvalue_core::rvalue::nonparametric::nonparametric_from_counts(item, k));
        }
    }
    Ok(out)
}

/// Pooled r-values (docs/method.md §4) of the split's test items, ties broken by `ties`, positions from
/// the GPU and the greedy on the CPU: equal to `rvalue::pooled::pooled_item_oracle` item by item.
#[cfg(feature = "gpu")]
pub async fn pooled_items_async(
    gpu: &Gpu,
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
) -> Result<Vec<PooledItem>> {
    pooled_items_chunked_async(gpu, t, keys, labels, split, ties, usize::MAX, |_| {}).await
}

/// [`pooled_items_async`] `chunk` test items per GPU call, reporting the items done after
/// each: in the browser every call's readback is awaited, so the page paints between chunks
/// instead of waiting for the greedy of a whole split.
#[cfg(feature = "gpu")]
#[allow(clippy::too_many_arguments)]
pub async fn pooled_items_chunked_async(
    gpu: &Gpu,
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
    chunk: usize,
    mut done: impl FnMut(usize),
) -> Result<Vec<PooledItem>> {
    let (ps, cal) = pooled_inputs(t, keys, labels, split, ties)?;
    let mut out = Vec::with_capacity(split.test.len());
    for items in split.test.chunks(chunk.max(1)) {
        let test: Vec<u32> = items.iter().map(|&i| i as u32).collect();
        let orders = cpu::tie_orders(&ps, t, &test);
        let pos = gpu.pooled_positions(keys, &cal, &test, &orders).await?;
        out.extend(greedy_all(&pos, &ps, t, items)?);
        done(out.len());
    }
    Ok(out)
}

/// Pooled CP_r on one split through the GPU, `chunk` test items per GPU call (see
/// [`pooled_items_chunked_async`]): what `Calibrated::pooled` gives.
#[cfg(feature = "gpu")]
#[allow(clippy::too_many_arguments)]
pub async fn pooled_calibrated_async(
    gpu: &Gpu,
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
    chunk: usize,
    done: impl FnMut(usize),
) -> Result<rvalue_core::conformal::Calibrated> {
    let items = pooled_items_chunked_async(gpu, t, keys, labels, split, ties, chunk, done).await?;
    Ok(rvalue_core::conformal::Calibrated::from_pooled_items(t.k(), labels, split, &items))
}

/// One toy repeat (docs/method.md §6) with its normals drawn on the GPU: equal to `toy::simulate` bit for
/// bit (both sides run `toy::draws`' generator; the affine map to scores is the core's).
#[cfg(feature = "gpu")]
pub async fn toy_repeat_async(gpu: &Gpu, p: &ToyParams, repeat: usize) -> Result<(ScoreTensor, Vec<usize>)> {
    let first = toy::first_item(p, repeat)?;
    let z = gpu.normals(p.seed, first, p.n() as u32, p.m as u32, p.k as u32).await?;
    toy::from_normals(p, &z)
}

/// [`toy_repeat_async`], natively blocking.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
pub fn toy_repeat(gpu: &Gpu, p: &ToyParams, repeat: usize) -> Result<(ScoreTensor, Vec<usize>)> {
    block_on(toy_repeat_async(gpu, p, repeat))?
}

/// [`nonparametric_rvalues_async`], natively blocking.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
pub fn nonparametric_rvalues(gpu: &Gpu, t: &ScoreTensor, keys: &Keys) -> Result<Vec<f64>> {
    block_on(nonparametric_rvalues_async(gpu, t, keys))?
}

/// [`pooled_items_async`], natively blocking.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
pub fn pooled_items(
    gpu: &Gpu,
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
) -> Result<Vec<PooledItem>> {
    block_on(pooled_items_async(gpu, t, keys, labels, split, ties))?
}

/// The core's greedy on positions `[B][M][K]` of the test `items` from a kernel or its twin;
/// positions a device got wrong are a GPU error.
fn greedy_all(pos: &[u32], ps: &PooledSplit, t: &ScoreTensor, items: &[usize]) -> Result<Vec<PooledItem>> {
    let mut work = Workspace::default();
    pos.chunks_exact(t.m() * t.k())
        .zip(items)
        .map(|(p, &i)| {
            let item = ps.ties().item_key(t, i, i);
            ps.item_from_positions(item, p, &mut work).map_err(|e| Error::gpu(e.to_string()))
        })
        .collect()
}

/// The split prepared for the core's greedy and for the kernel (or its twin); the first checks
/// the inputs before `PooledCal` indexes them.
fn pooled_inputs(
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
) -> Result<(PooledSplit, cpu::PooledCal)> {
    let ps = PooledSplit::new(t, labels, &split.cal, split.ties(ties))?;
    Ok((ps, cpu::PooledCal::new(t, keys, labels, &split.cal)))
}

/// The CPU twin of [`pooled_items`] (the same positions from [`cpu::pooled_positions`]).
pub fn pooled_items_cpu(
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
) -> Result<Vec<PooledItem>> {
    let (ps, cal) = pooled_inputs(t, keys, labels, split, ties)?;
    let test: Vec<u32> = split.test.iter().map(|&i| i as u32).collect();
    let orders = cpu::tie_orders(&ps, t, &test);
    greedy_all(&cpu::pooled_positions(keys, &cal, &test, &orders), &ps, t, &split.test)
}

/// Pooled CP_r on one split through the GPU: what `Calibrated::pooled` gives.
#[cfg(all(not(target_arch = "wasm32"), feature = "gpu"))]
pub fn pooled_calibrated(
    gpu: &Gpu,
    t: &ScoreTensor,
    keys: &Keys,
    labels: &[usize],
    split: &Split,
    ties: TieOrder,
) -> Result<rvalue_core::conformal::Calibrated> {
    block_on(pooled_calibrated_async(gpu, t, keys, labels, split, ties, usize::MAX, |_| {}))?
}

#[cfg(all(test, not(target_arch = "wasm32"), feature = "gpu"))]
mod tests;

#[cfg(all(test, target_arch = "wasm32", feature = "gpu"))]
mod wasm_tests;

#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
