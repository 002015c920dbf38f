//! The wgpu side: adapter, device, pipelines, batching within the adapter's limits, readback.
//!
//! Every operation runs inside error scopes and reports failures as `Error::Gpu`, so the caller
//! can fall back to the CPU: no adapter, a shader that fails to compile, a lost device, an
//! allocation that fails. Natively the futures here complete at once (wgpu-core's are ready,
//! and readback waits in `Device::poll`), so [`block_on`] needs no executor; in the browser the
//! same `async` functions are awaited through `wasm-bindgen-futures`.

use super::cpu::{CalDraws, PooledCal, PooledShape};
use super::keys::Keys;
use rvalue_core::toy::draws;
use rvalue_core::{Error, Result};
use std::borrow::Cow;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// The WGSL sources (`rank.wgsl`, `draws.wgsl` beside this file), compiled into the binary
/// without their comments (`build.rs`).
pub const RANK_WGSL: &str = include_str!(concat!(env!("OUT_DIR"), "/rank.wgsl"));
pub const DRAWS_WGSL: &str = include_str!(concat!(env!("OUT_DIR"), "/draws.wgsl"));

/// Invocations per workgroup in every kernel (`@workgroup_size(64)` in the WGSL). WebGPU
/// guarantees 256, so any adapter takes it; 64 fills a wavefront or two warps.
pub const WORKGROUP: u32 = 64;

/// The most iterations any loop of a kernel runs in one invocation. llvmpipe (lavapipe)
/// silently stops a loop after 65535 iterations (found here: counts came back short for
/// M·K ≥ 65536), so the host slices work to stay below that on every device; it bounds K too.
pub const MAX_LOOP: usize = 32768;

/// The limits the batching obeys, from the adapter (or made smaller by a test).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Largest storage binding (and buffer) in bytes.
    pub max_binding: u64,
    /// Largest workgroup count per dispatch dimension.
    pub max_groups: u32,
}

/// How to open the GPU; `Default` is what the program uses. The other settings exist for tests
/// of the batching and the fallback.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Use at most these limits (each the smaller of this and the adapter's).
    pub caps: Option<Caps>,
    /// Replace the ranking shader's source (a test compiles a broken one).
    pub rank_source: Option<String>,
    /// Behave as if no adapter were present.
    pub no_adapter: bool,
    /// Take only a hardware adapter, the best by type (discrete first): software ones
    /// (lavapipe) are refused from the adapters' list, before a device is opened or a kernel
    /// compiled, which is most of what trying them costs.
    pub hardware_only: bool,
}

/// Runs a future that is ready or becomes ready without waking (native wgpu's futures are
/// ready at once). Refuses rather than spin if it is not.
pub fn block_on<T>(fut: impl Future<Output = T>) -> Result<T> {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..2 {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return Ok(v);
        }
    }
    Err(gpu_err("a GPU operation did not complete synchronously"))
}

fn gpu_err(msg: impl Into<String>) -> Error {
    Error::gpu(msg)
}

/// An open GPU with the three kernels compiled.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    caps: Caps,
    rank: wgpu::ComputePipeline,
    prefix: wgpu::ComputePipeline,
    pooled: wgpu::ComputePipeline,
    draws: wgpu::ComputePipeline,
    table: wgpu::Buffer,
    /// Set by the device-lost callback; checked before and after each operation.
    lost: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.info.name).field("caps", &self.caps).finish()
    }
}

/// The instance's backends: Vulkan natively (`WGPU_BACKEND` may narrow it), the browser's
/// WebGPU in wasm; they are the only ones compiled in.
fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends();
    wgpu::Instance::new(desc)
}

fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all())
}

/// The adapter `opts` asks for: the first one, or the best hardware one.
async fn adapter(opts: &Options) -> Result<wgpu::Adapter> {
    let instance = instance();
    if !opts.hardware_only {
        return instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .map_err(|e| gpu_err(format!("no GPU adapter: {e}")));
    }
    let preference = |t: wgpu::DeviceType| match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu | wgpu::DeviceType::Other => 2,
        wgpu::DeviceType::Cpu => 3,
    };
    instance
        .enumerate_adapters(backends())
        .await
        .into_iter()
        .map(|a| (preference(a.get_info().device_type), a))
        .filter(|(p, _)| *p < 3)
        .min_by_key(|(p, _)| *p)
        .map(|(_, a)| a)
        .ok_or_else(|| gpu_err("no hardware GPU adapter (a software one is slower than the CPU path)"))
}

/// What the page or the CLI says about the adapter the GPU path would use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adapter {
    pub name: String,
    /// "vulkan", "webgpu", …
    pub backend: String,
    /// A software rasterizer (lavapipe, SwiftShader): correct, but slower than the CPU path.
    pub software: bool,
}

impl Adapter {
    fn of(info: &wgpu::AdapterInfo) -> Adapter {
        Adapter {
            name: if info.name.is_empty() { "unnamed adapter".into() } else { info.name.clone() },
            backend: info.backend.to_str().to_string(),
            software: info.device_type == wgpu::DeviceType::Cpu,
        }
    }
}

/// The first adapter, or `Error::Gpu` saying why there is none (in the browser: no WebGPU, or
/// no adapter behind it). Cheap: opens no device and compiles nothing; [`Gpu::open`] does.
pub async fn probe_adapter() -> Result<Adapter> {
    let adapter = instance()
        .request_adapter(&wgpu::RequestAdapterOptions::default())
        .await
        .map_err(|e| gpu_err(format!("no GPU adapter: {e}")))?;
    Ok(Adapter::of(&adapter.get_info()))
}

impl Gpu {
    /// Opens the first adapter and compiles the kernels (natively: blocking).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Gpu> {
        Gpu::with_options(Options::default())
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_options(opts: Options) -> Result<Gpu> {
        block_on(Gpu::open(opts))?
    }

    /// Opens the first adapter with its own limits and compiles the kernels.
    pub async fn open(opts: Options) -> Result<Gpu> {
        if opts.no_adapter {
            return Err(gpu_err("no GPU adapter (switched off)"));
        }
        let adapter = adapter(&opts).await?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        if limits.max_compute_invocations_per_workgroup < WORKGROUP
            || limits.max_compute_workgroup_size_x < WORKGROUP
        {
            return Err(gpu_err(format!("{}: workgroups of {WORKGROUP} are not supported", info.name)));
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("rvalue"),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| gpu_err(format!("{}: cannot open the device: {e}", info.name)))?;
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut l) = flag.lock() {
                *l = Some(format!("{reason:?}: {msg}"));
            }
        });
        // Errors outside a scope would panic by default; every call below is scoped anyway.
        device.on_uncaptured_error(Arc::new(|_| {}));
        let mut caps = Caps {
            max_binding: limits.max_storage_buffer_binding_size.min(limits.max_buffer_size),
            max_groups: limits.max_compute_workgroups_per_dimension,
        };
        if let Some(c) = opts.caps {
            caps.max_binding = caps.max_binding.min(c.max_binding);
            caps.max_groups = caps.max_groups.min(c.max_groups);
        }
        let rank_source = opts.rank_source.as_deref().unwrap_or(RANK_WGSL);
        let scope = Scope::push(&device);
        let rank_module = module(&device, "rank", rank_source);
        let draws_module = module(&device, "draws", DRAWS_WGSL);
        let rank = pipeline(&device, &rank_module, "rank_counts");
        let prefix = pipeline(&device, &rank_module, "prefix_sums");
        let pooled = pipeline(&device, &rank_module, "pooled_positions");
        let draws = pipeline(&device, &draws_module, "normals");
        let table = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("normal table"),
            size: (draws::table().len() * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&table, 0, &as_bytes(draws::table()));
        scope.pop(&info.name, "compiling the kernels").await?;
        Ok(Gpu { device, queue, info, caps, rank, prefix, pooled, draws, table, lost })
    }

    /// The adapter's name, as the page and the CLI show it.
    pub fn adapter_name(&self) -> &str {
        &self.info.name
    }

    /// The adapter's description.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The adapter as [`probe_adapter`] describes it.
    pub fn adapter(&self) -> Adapter {
        Adapter::of(&self.info)
    }

    /// Whether the adapter is a software rasterizer (lavapipe, SwiftShader).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Loses the device on purpose (tests of the fallback).
    pub fn destroy_device(&self) {
        self.device.destroy();
    }

    fn check_lost(&self) -> Result<()> {
        // Natively the lost callback runs when the device is polled.
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::Poll);
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(msg) => Err(gpu_err(format!("{}: device lost ({msg})", self.info.name))),
            None => Ok(()),
        }
    }

    /// Largest number of items per dispatch when each item needs `in_bytes` of input,
    /// `out_bytes` of output and `threads` invocations; an error if one item does not fit.
    fn items_per_dispatch(&self, in_bytes: u64, out_bytes: u64, threads: u64) -> Result<usize> {
        let by_binding = self.caps.max_binding / in_bytes.max(out_bytes).max(1);
        // Index arithmetic in the kernels is u32: keep every word index below 2³¹.
        let by_index = (1u64 << 33) / in_bytes.max(out_bytes).max(1);
        // A 2-D grid of at most max_groups² workgroups.
        let groups = self.caps.max_groups as u64;
        let by_groups = (groups * groups * WORKGROUP as u64) / threads.max(1);
        let per = by_binding.min(by_index).min(by_groups);
        if per == 0 {
            return Err(gpu_err(format!(
                "{}: one item needs {} bytes, more than a storage binding holds ({} bytes)",
                self.info.name,
                in_bytes.max(out_bytes),
                self.caps.max_binding
            )));
        }
        Ok(per as usize)
    }

    /// Workgroup grid `(x, y)` covering `threads` invocations.
    fn grid(&self, threads: u64) -> (u32, u32) {
        let groups = threads.div_ceil(WORKGROUP as u64).max(1);
        let x = groups.min(self.caps.max_groups as u64);
        (x as u32, groups.div_ceil(x) as u32)
    }

    /// Cumulative rank counts `[B][K][K]` of `keys` (`B = keys.len() / (m·k)` items): the
    /// kernel twin of [`super::cpu::rank_counts`].
    pub async fn rank_counts(&self, keys: &Keys, m: usize, k: usize) -> Result<Vec<u32>> {
        let items = keys.len().checked_div(m * k).unwrap_or(0);
        self.rank_counts_of(keys, 0..items, m, k).await
    }

    /// [`Gpu::rank_counts`] of the items `range` of `keys` only (a caller's chunk, read in
    /// place rather than copied out).
    pub async fn rank_counts_of(
        &self,
        keys: &Keys,
        range: std::ops::Range<usize>,
        m: usize,
        k: usize,
    ) -> Result<Vec<u32>> {
        check_rank_shape(keys, &range, m, k)?;
        let w = keys.words as usize;
        let items = range.len();
        let per = self.items_per_dispatch((m * k * w * 4) as u64, (k * k * 4) as u64, k as u64)?;
        // Draws per dispatch, so that no loop in an invocation runs more than MAX_LOOP times.
        let slice = (MAX_LOOP / k).max(1);
        let mut out = Vec::with_capacity(items * k * k);
        for first in (0..items).step_by(per) {
            let b = per.min(items - first);
            let at = range.start + first;
            let input = self.upload("keys", &keys.data[at * m * k * w..(at + b) * m * k * w]);
            let threads = (b * k) as u64;
            let mut steps: Vec<Step> = (0..m)
                .step_by(slice)
                .map(|d0| Step {
                    pipeline: &self.rank,
                    params: [
                        b as u32,
                        m as u32,
                        k as u32,
                        keys.words,
                        0,
                        d0 as u32,
                        (d0 + slice).min(m) as u32,
                        0,
                    ],
                    threads,
                    inputs: vec![(1, input.clone())],
                })
                .collect();
            steps.push(Step {
                pipeline: &self.prefix,
                params: [b as u32, m as u32, k as u32, 0, 0, 0, 0, 0],
                threads,
                inputs: vec![],
            });
            out.extend(self.run(&steps, (b * k * k * 4) as u64, "rank counts").await?);
        }
        Ok(out)
    }

    /// Positions `[B][M][K]` of the test `items`' candidates among each draw's `n + K` units,
    /// ties broken by the items' tie orders (`[B][2K]`, `cpu::tie_orders`): the kernel twin of
    /// [`super::cpu::pooled_positions`].
    pub async fn pooled_positions(
        &self,
        keys: &Keys,
        cal: &PooledCal,
        items: &[u32],
        ties: &[u32],
    ) -> Result<Vec<u32>> {
        let (n, w) = (cal.n, cal.keys.words as usize);
        if cal.keys.words != keys.words
            || cal.keys.data.len() != cal.m * n * w
            || cal.units.len() != cal.m * n
        {
            return Err(Error::shape("calibration keys that are not the items' kind or shape"));
        }
        let shape = PooledShape { n, m: cal.m, k: cal.k, words: keys.words };
        let of = |d: std::ops::Range<usize>| {
            (
                Cow::Borrowed(&cal.keys.data[d.start * n * w..d.end * n * w]),
                Cow::Borrowed(&cal.units[d.start * n..d.end * n]),
            )
        };
        self.pooled_positions_by_draws(keys, shape, items, ties, of).await
    }

    /// [`Gpu::pooled_positions`] with the calibration units' keys and units of draws `d0..d1`
    /// (`[d1 - d0][n]` each, as in [`PooledCal`]) from `cal_of`, asked for one group of draws at
    /// a time. A split's calibration order (`M·n` keys and as many units: 320 MB for 40,000
    /// units and 1,000 draws) may exceed a storage binding, so the draws go in groups whose
    /// keys fit one, and the caller need not hold them all at once as key words.
    pub async fn pooled_positions_by_draws<'a>(
        &self,
        keys: &Keys,
        shape: PooledShape,
        items: &[u32],
        ties: &[u32],
        cal_of: impl Fn(std::ops::Range<usize>) -> CalDraws<'a>,
    ) -> Result<Vec<u32>> {
        let PooledShape { m, k, .. } = shape;
        check_pooled_shape(keys, shape, items, ties)?;
        let group = self.draws_per_group(shape)?;
        let mut out = vec![0u32; items.len() * m * k];
        for d0 in (0..m).step_by(group) {
            let draws = d0..(d0 + group).min(m);
            self.pooled_group(keys, shape, items, ties, cal_of(draws.clone()), draws, &mut out).await?;
        }
        Ok(out)
    }

    /// Draws per group of [`Gpu::pooled_positions_by_draws`]: a group's calibration keys, and
    /// one test item's keys of the group, fit one storage binding, and at most [`GROUP_BYTES`]
    /// unless one draw needs more, so that the host's copies of a group stay small beside the
    /// split's own tables. An error if one draw does not fit a binding.
    pub fn draws_per_group(&self, shape: PooledShape) -> Result<usize> {
        let PooledShape { n, m, k, words } = shape;
        let per_draw = (n.max(k) * words as usize * 4).max(1) as u64;
        if per_draw > self.caps.max_binding || per_draw > 1 << 33 {
            return Err(gpu_err(format!(
                "{}: one draw of {n} calibration units' and {k} candidates' keys needs {per_draw} bytes, \
                 more than a storage binding holds ({} bytes)",
                self.info.name, self.caps.max_binding
            )));
        }
        let bytes = self.caps.max_binding.min(GROUP_BYTES.max(per_draw)).min(1 << 33);
        Ok(((bytes / per_draw) as usize).clamp(1, m.max(1)))
    }

    /// One group of draws `draws` of [`Gpu::pooled_positions_by_draws`]: its calibration
    /// keys and units `cal` uploaded once, the items in as many dispatches as the limits need,
    /// their positions written into `out` (`[B][M][K]`).
    #[allow(clippy::too_many_arguments)]
    async fn pooled_group(
        &self,
        keys: &Keys,
        shape: PooledShape,
        items: &[u32],
        ties: &[u32],
        cal: CalDraws<'_>,
        draws: std::ops::Range<usize>,
        out: &mut [u32],
    ) -> Result<()> {
        let PooledShape { n, m, k, words } = shape;
        let (g, w) = (draws.len(), words as usize);
        if cal.0.len() != g * n * w || cal.1.len() != g * n {
            return Err(gpu_err(format!("calibration keys of draws {draws:?} that are not {n} units each")));
        }
        let cal_buf = self.upload("calibration keys", &cal.0);
        let units_buf = self.upload("calibration units", &cal.1);
        drop(cal);
        let per = self.items_per_dispatch((g * k * w * 4) as u64, (g * k * 4) as u64, (g * k) as u64)?;
        let mut input = Vec::new();
        for (c, chunk) in items.chunks(per).enumerate() {
            input.clear();
            for &i in chunk {
                let at = i as usize * m + draws.start;
                input.extend_from_slice(&keys.data[at * k * w..(at + g) * k * w]);
            }
            let b = chunk.len();
            let step = Step {
                pipeline: &self.pooled,
                params: [b as u32, g as u32, k as u32, words, n as u32, 0, 0, 0],
                threads: (b * g * k) as u64,
                inputs: vec![
                    (1, self.upload("keys", &input)),
                    (3, cal_buf.clone()),
                    (4, units_buf.clone()),
                    (5, self.upload("tie orders", &ties[2 * c * per * k..2 * (c * per + b) * k])),
                ],
            };
            let got = self.run(&[step], (b * g * k * 4) as u64, "pooled positions").await?;
            for (j, rows) in got.chunks_exact(g * k).enumerate() {
                let at = ((c * per + j) * m + draws.start) * k;
                out[at..at + g * k].copy_from_slice(rows);
            }
        }
        Ok(())
    }

    /// Normals `[B][M][K]` for items `first..first + items`: the kernel twin of
    /// [`draws::normals`], bit for bit.
    pub async fn normals(&self, seed: u64, first: u32, items: u32, m: u32, k: u32) -> Result<Vec<f32>> {
        if first.checked_add(items).is_none() {
            return Err(Error::invalid(format!(
                "items {first}.. + {items} exceed the 2^32 Philox item counter"
            )));
        }
        let (mk, items_us) = (m as usize * k as usize, items as usize);
        let per = self.items_per_dispatch(0, (mk * 4) as u64, mk as u64)?;
        let mut out = Vec::with_capacity(items_us * mk);
        for start in (0..items_us).step_by(per) {
            let b = per.min(items_us - start);
            let step = Step {
                pipeline: &self.draws,
                params: [seed as u32, (seed >> 32) as u32, first + start as u32, b as u32, m, k, 0, 0],
                threads: (b * mk) as u64,
                inputs: vec![(1, self.table.clone())],
            };
            let bits = self.run(&[step], (b * mk * 4) as u64, "normals").await?;
            out.extend(bits.into_iter().map(f32::from_bits));
        }
        Ok(out)
    }

    /// A storage buffer holding `words` (wgpu refuses empty buffers: one zero word stands in).
    /// Created empty and filled through the queue: `create_buffer_init` maps at creation, and
    /// mapping panics on a lost device where a queue write reports an error.
    fn upload_as(&self, label: &str, usage: wgpu::BufferUsages, words: &[u32]) -> wgpu::Buffer {
        let pad = [0u32];
        let words = if words.is_empty() { &pad[..] } else { words };
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (words.len() * 4) as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // In pieces, so that the bytes' copy of a large buffer is never whole.
        for (i, piece) in words.chunks(UPLOAD_WORDS).enumerate() {
            self.queue.write_buffer(&buf, (i * UPLOAD_WORDS * 4) as u64, &as_bytes(piece));
        }
        buf
    }

    fn upload(&self, label: &str, words: &[u32]) -> wgpu::Buffer {
        self.upload_as(label, wgpu::BufferUsages::STORAGE, words)
    }

    /// Runs `steps` in order in one compute pass (each dispatch sees the previous one's writes)
    /// on one output buffer (binding 2) of `out_bytes`, and reads it back.
    async fn run(&self, steps: &[Step<'_>], out_bytes: u64, what: &str) -> Result<Vec<u32>> {
        self.check_lost()?;
        let d = &self.device;
        let scope = Scope::push(d);
        let size = out_bytes.max(4);
        let output = d.create_buffer(&wgpu::BufferDescriptor {
            label: Some(what),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = d.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let binds: Vec<wgpu::BindGroup> = steps
            .iter()
            .map(|step| {
                let params = self.upload_as("params", wgpu::BufferUsages::UNIFORM, &step.params);
                let mut entries = vec![
                    wgpu::BindGroupEntry { binding: 0, resource: params.as_entire_binding() },
                    wgpu::BindGroupEntry { binding: 2, resource: output.as_entire_binding() },
                ];
                for (binding, buf) in &step.inputs {
                    entries
                        .push(wgpu::BindGroupEntry { binding: *binding, resource: buf.as_entire_binding() });
                }
                d.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(what),
                    layout: &step.pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            })
            .collect();
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(what) });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(what),
                timestamp_writes: None,
            });
            for (step, bind) in steps.iter().zip(&binds) {
                pass.set_pipeline(step.pipeline);
                pass.set_bind_group(0, bind, &[]);
                let (x, y) = self.grid(step.threads);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        enc.copy_buffer_to_buffer(&output, 0, &readback, 0, size);
        self.queue.submit([enc.finish()]);
        scope.pop(&self.info.name, what).await?;
        let words = self.read(&readback, what).await?;
        self.check_lost()?;
        Ok(words[..(out_bytes / 4) as usize].to_vec())
    }

    /// Maps `buf` and copies it out as u32 words.
    async fn read(&self, buf: &wgpu::Buffer, what: &str) -> Result<Vec<u32>> {
        let done = Arc::new(Mutex::new(MapState::default()));
        let state = done.clone();
        buf.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            if let Ok(mut s) = state.lock() {
                s.result = Some(r.map_err(|e| e.to_string()));
                if let Some(w) = s.waker.take() {
                    w.wake();
                }
            }
        });
        // Natively the callback runs inside some thread's `poll`. With the device shared (tests
        // in parallel threads), another thread's poll may be the one running it, and this poll
        // can return just before it has: wait (bounded) until it has run, so that the future
        // below is ready and `block_on` needs no executor.
        #[cfg(not(target_arch = "wasm32"))]
        for _ in 0..100_000 {
            self.device
                .poll(wgpu::PollType::wait_indefinitely())
                .map_err(|e| gpu_err(format!("{}: {what}: {e}", self.info.name)))?;
            if done.lock().map_or(true, |s| s.result.is_some()) {
                break;
            }
            std::thread::yield_now();
        }
        MapFuture(done)
            .await
            .map_err(|e| gpu_err(format!("{}: {what}: reading back: {e}", self.info.name)))?;
        let view = buf
            .slice(..)
            .get_mapped_range()
            .map_err(|e| gpu_err(format!("{}: {what}: {e:?}", self.info.name)))?;
        let words = view.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        drop(view);
        buf.unmap();
        Ok(words)
    }
}

/// One dispatch: a pipeline, its parameters (binding 0), its invocation count, and its input
/// buffers by binding (the output is binding 2).
struct Step<'a> {
    pipeline: &'a wgpu::ComputePipeline,
    params: [u32; 8],
    threads: u64,
    inputs: Vec<(u32, wgpu::Buffer)>,
}

#[derive(Default)]
struct MapState {
    result: Option<std::result::Result<(), String>>,
    waker: Option<Waker>,
}

/// Resolves when the map callback has run.
struct MapFuture(Arc<Mutex<MapState>>);

impl Future for MapFuture {
    type Output = std::result::Result<(), String>;
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Ok(mut s) = self.0.lock() else {
            return Poll::Ready(Err("poisoned".into()));
        };
        match s.result.take() {
            Some(r) => Poll::Ready(r),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Validation, out-of-memory and internal error scopes around a group of calls.
struct Scope {
    guards: [wgpu::ErrorScopeGuard; 3],
}

impl Scope {
    fn push(d: &wgpu::Device) -> Scope {
        Scope {
            guards: [
                d.push_error_scope(wgpu::ErrorFilter::Validation),
                d.push_error_scope(wgpu::ErrorFilter::OutOfMemory),
                d.push_error_scope(wgpu::ErrorFilter::Internal),
            ],
        }
    }

    /// Pops the scopes (innermost first) and turns the first error into `Error::Gpu`.
    async fn pop(self, adapter: &str, what: &str) -> Result<()> {
        let [validation, oom, internal] = self.guards;
        let mut first = None;
        for guard in [internal, oom, validation] {
            if let Some(e) = guard.pop().await {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(gpu_err(format!("{adapter}: {what}: {e}"))),
            None => Ok(()),
        }
    }
}

fn module(d: &wgpu::Device, label: &str, source: &str) -> wgpu::ShaderModule {
    d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

fn pipeline(d: &wgpu::Device, module: &wgpu::ShaderModule, entry: &str) -> wgpu::ComputePipeline {
    d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// Little-endian bytes of u32 words, as WGSL reads them (a copy; no unsafe casts).
fn as_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// At most this many bytes of calibration keys a group of draws, unless one draw needs more.
pub const GROUP_BYTES: u64 = 64 << 20;

/// Words a queue write copies at once.
const UPLOAD_WORDS: usize = 1 << 22;

/// Refuses a pooled positions call whose items, keys or tie orders do not match `shape`, before
/// any buffer is made.
fn check_pooled_shape(keys: &Keys, shape: PooledShape, items: &[u32], ties: &[u32]) -> Result<()> {
    let PooledShape { m, k, words, .. } = shape;
    if k > MAX_LOOP {
        return Err(gpu_err(format!("K = {k} candidates; the GPU path ranks at most {MAX_LOOP}")));
    }
    let per_item = m * k * words as usize;
    if keys.words != words || (per_item > 0 && !keys.data.len().is_multiple_of(per_item)) {
        return Err(Error::shape(format!("keys that are not items of {m} draws × {k} candidates")));
    }
    let held = keys.data.len().checked_div(per_item).unwrap_or(0);
    if items.iter().any(|&i| i as usize >= held) || ties.len() != items.len() * 2 * k {
        return Err(Error::shape(format!("test items or tie orders beyond the {held} items given")));
    }
    Ok(())
}

/// Refuses a call [`Gpu::rank_counts_of`] cannot serve before any buffer is made: too many
/// candidates for the kernel's loops, keys that are not whole items, or items beyond them.
fn check_rank_shape(keys: &Keys, range: &std::ops::Range<usize>, m: usize, k: usize) -> Result<()> {
    if k > MAX_LOOP {
        return Err(gpu_err(format!("K = {k} candidates; the GPU path ranks at most {MAX_LOOP}")));
    }
    if m == 0 || k == 0 || !keys.len().is_multiple_of(m * k) {
        return Err(Error::shape(format!("{} keys are not items of {m} draws × {k} candidates", keys.len())));
    }
    if range.end > keys.len() / (m * k) {
        return Err(Error::shape(format!("items {range:?} of {} keys in items of {m} × {k}", keys.len())));
    }
    Ok(())
}
