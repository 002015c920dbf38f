//! Where rank-based r-values are computed: the GPU opened beside the data's reading (`--device`),
//! its fallback to the CPU, and one method's pass over the splits on either.

use rvalue_core::conformal::{self, Calibrated, Coverage, Method, RvalueKind, ScoreOptions, Split};
use rvalue_core::rvalue::DrawOrder;
use rvalue_core::tensor::ScoreTensor;
use rvalue_gpu as gpu;

use crate::output::Progress;
use crate::{CliError, CliResult};

/// The GPU that ranks draws for CP_r's rank-based r-values, if `--device` and the machine
/// give one, with the tensor's sort keys. Results are the same as the CPU's (`gpu` module).
pub(crate) struct Ranker {
    pub(crate) gpu: Option<(gpu::Gpu, gpu::keys::Keys)>,
    /// `--device gpu`: a GPU failure is an error; with `auto` the CPU takes over.
    pub(crate) required: bool,
}

/// Opening the GPU, started on a thread of its own before the data are read: creating a Vulkan
/// instance and listing its adapters takes about a tenth of a second, as long as reading a
/// large score file, so the two overlap.
pub(crate) struct Probe {
    device: gpu::Device,
    opening: Option<std::thread::JoinHandle<rvalue_core::Result<Opened>>>,
}

/// What `gpu::open` gives: the GPU, or why the CPU ranks instead.
pub(crate) type Opened = (Option<gpu::Gpu>, Option<String>);

impl Probe {
    /// Starts opening the GPU if `--device` allows one and a method ranks draws.
    pub(crate) fn start(device: gpu::Device, methods: &[Method], opts: &ScoreOptions) -> Probe {
        if device == gpu::Device::Cpu || !conformal::needs_draw_orders(methods, opts) {
            return Probe { device, opening: None };
        }
        // Before the thread starts: it sets an environment variable.
        gpu::quiet_device_select();
        Probe { device, opening: Some(std::thread::spawn(move || gpu::open(device))) }
    }

    /// The ranker for `t`, once the GPU is open (or known to be absent).
    pub(crate) fn finish(self, t: &ScoreTensor) -> CliResult<Ranker> {
        let (g, required) = self.open()?;
        Ok(Ranker { gpu: g.map(|g| (g, gpu::keys::Keys::of_tensor(t))), required })
    }

    /// The GPU once open (or `None`: the CPU ranks), and whether `--device gpu` asked for it.
    pub(crate) fn open(self) -> CliResult<(Option<gpu::Gpu>, bool)> {
        let required = self.device == gpu::Device::Gpu;
        let Some(opening) = self.opening else { return Ok((None, required)) };
        let (g, _why_cpu) = match opening.join() {
            Ok(opened) => opened?,
            Err(_) if required => return Err(CliError("the GPU could not be opened".into())),
            Err(_) => (None, None),
        };
        Ok((g, required))
    }
}

impl Ranker {
    /// A GPU failure: an error under `--device gpu`, else a warning and the CPU from now on.
    fn failed(&mut self, e: rvalue_core::Error) -> CliResult<()> {
        if self.required {
            return Err(e.into());
        }
        eprintln!("rvalue: warning: {e}; using the CPU");
        self.gpu = None;
        Ok(())
    }

    /// Calibrated scores of `method` on every split, on the GPU when there is one and the
    /// method ranks draws; `None` when the CPU should do it.
    fn calibrate_each(
        &mut self,
        prep: &Pass<'_>,
        method: Method,
        opts: &ScoreOptions,
        splits: &[Split],
        each: &mut dyn FnMut(usize, Calibrated),
    ) -> CliResult<Option<usize>> {
        let Some((g, keys)) = &self.gpu else { return Ok(None) };
        if method != Method::CpR {
            return Ok(None);
        }
        let (t, labels) = (prep.t, prep.labels);
        match opts.kind {
            RvalueKind::Parametric => Ok(None),
            RvalueKind::Nonparametric => match gpu::nonparametric_rvalues(g, t, keys) {
                Ok(scores) => {
                    for (r, split) in splits.iter().enumerate() {
                        each(r, Calibrated::fixed_with(&scores, t.k(), labels, split, opts.coverage));
                    }
                    Ok(Some(splits.len()))
                }
                Err(e) => self.failed(e).map(|()| Some(0)),
            },
            RvalueKind::Pooled => {
                for (r, split) in splits.iter().enumerate() {
                    match pooled_on(g, keys, prep, split, opts) {
                        Ok(c) => each(r, c),
                        Err(e) => return self.failed(e).map(|()| Some(r)),
                    }
                }
                Ok(Some(splits.len()))
            }
        }
    }
}

/// Pooled CP_r on one split on the GPU; per class, the greedy's results grouped by the labels.
fn pooled_on(
    g: &gpu::Gpu,
    keys: &gpu::keys::Keys,
    prep: &Pass<'_>,
    split: &Split,
    opts: &ScoreOptions,
) -> rvalue_core::Result<Calibrated> {
    let (t, labels) = (prep.t, prep.labels);
    match opts.coverage {
        Coverage::Marginal => gpu::pooled_calibrated(g, t, keys, labels, split, opts.ties),
        Coverage::PerClass => {
            let items = gpu::pooled_items(g, t, keys, labels, split, opts.ties)?;
            Ok(Calibrated::from_pooled_items_with(t.k(), labels, split, &items, Some(labels)))
        }
    }
}

/// One method's pass over the data: the scores and labels, and the draw orders if the CPU ranks
/// draws for it. Each method's pass builds what it needs and frees it, so that no two passes'
/// inputs are held beside a large tensor at once (summaries are made and freed inside the pass).
pub(crate) struct Pass<'a> {
    pub(crate) t: &'a ScoreTensor,
    pub(crate) labels: &'a [usize],
    pub(crate) order: Option<DrawOrder>,
}

/// The most memory the draw orders may take to be kept for a whole pass (two bytes per score).
/// Larger ones are not kept: each split then sorts its test items' draws again, a small part of
/// a pooled split's time, where a large tensor's orders take half the memory of its f32 scores.
pub(crate) const MAX_ORDER_BYTES: usize = 64 << 20;

impl<'a> Pass<'a> {
    pub(crate) fn new(
        t: &'a ScoreTensor,
        labels: &'a [usize],
        method: Method,
        opts: &ScoreOptions,
        ranker: &Ranker,
    ) -> CliResult<Self> {
        let ranks = conformal::needs_draw_orders(&[method], opts) && ranker.gpu.is_none();
        let bytes = t.n() * t.m() * t.k() * std::mem::size_of::<u16>();
        Ok(Pass {
            t,
            labels,
            order: if ranks && bytes <= MAX_ORDER_BYTES { Some(DrawOrder::of(t)?) } else { None },
        })
    }
}

/// Calls `each` with the calibrated scores of `method` on every split in turn, with progress.
#[allow(clippy::too_many_arguments)] // each is one of the run's settings
pub(crate) fn for_each_split(
    prep: &Pass<'_>,
    ranker: &mut Ranker,
    method: Method,
    opts: &ScoreOptions,
    splits: &[Split],
    threads: usize,
    progress: &mut Progress,
    mut each: impl FnMut(Calibrated),
) -> CliResult<()> {
    let label = format!("{}: splits", method.name());
    progress.show(&format!("{}: scoring…", method.name()));
    let mut report = |r: usize, c: Calibrated| {
        progress.count(&label, r + 1, splits.len());
        each(c);
    };
    // The GPU does what it can; the CPU does the splits it did not get to.
    let done = ranker.calibrate_each(prep, method, opts, splits, &mut report)?.unwrap_or(0);
    if done < splits.len() {
        let (t, labels, order) = (prep.t, prep.labels, prep.order.as_ref());
        let rest = &splits[done..];
        conformal::calibrate_each_lean(t, labels, order, method, opts, rest, threads, |r, c| {
            report(done + r, c)
        })?;
    }
    progress.count(&label, splits.len(), splits.len());
    Ok(())
}
