//! `conformal` and `sets` on a score file read a block of items at a time
//! (`rvalue_core::conformal::streamed`): a `.npy` or `.npz` of any size, in bounded memory, with
//! the same output as the in-memory path, the GPU (if any) ranking each block. Files the stream
//! does not take (CSV, Fortran order) are read whole instead (`open_scores`).

use std::io::Write;

use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::{
    calibrate_streamed, calibrate_streamed_ranked, BlockRanker, Streaming,
};
use rvalue_core::conformal::{self, Calibrated, Method, ScoreOptions, Split, SplitTallies};
use rvalue_core::io::{self, Dataset, Opened, ScoreFile, MAX_ELEMENTS as MAX_IN_MEMORY};
use rvalue_core::rvalue::{PooledItem, PooledSplit};
use rvalue_core::tensor::ScoreTensor;

use super::{display, fail, labels_of, labels_or, no_labels, CliError, CliResult, DataArgs, Progress};
use rvalue_gpu as gpu;

/// A score file opened for a command: streamed, or held whole.
pub(crate) enum Scores {
    Streamed(ScoreFile),
    Whole(Dataset),
}

impl From<Opened> for Scores {
    fn from(o: Opened) -> Scores {
        match o {
            Opened::Streamed(f) => Scores::Streamed(f),
            Opened::Whole(d) => Scores::Whole(d),
        }
    }
}

/// A streamed run's settings: α, `--never-empty`, threads, and the GPU if one ranks.
pub(crate) struct At<'a> {
    pub alpha: f64,
    pub never_empty: bool,
    pub threads: usize,
    pub ranker: Option<&'a GpuBlocks>,
}

impl At<'_> {
    fn streaming(&self) -> Streaming<'_> {
        streaming(self.threads, self.ranker)
    }
}

/// How the command line streams: 32 MiB blocks, half a GiB of pooled splits per pass, on
/// `threads` threads, the GPU (if any) ranking each block's draws for CP_r.
pub(crate) fn streaming(threads: usize, ranker: Option<&GpuBlocks>) -> Streaming<'_> {
    Streaming { threads, ranker: ranker.map(|r| r as &dyn BlockRanker), ..Streaming::default() }
}

/// The GPU ranking a streamed file's blocks for CP_r, nonparametric or pooled. After a failure
/// under `--device auto` the CPU takes over with a warning; under `--device gpu` it is an error.
pub(crate) struct GpuBlocks {
    gpu: gpu::Gpu,
    required: bool,
    failed: std::cell::Cell<bool>,
}

impl GpuBlocks {
    /// The ranker of an opened GPU (`Probe::open`), if there is one.
    pub(crate) fn of((g, required): (Option<gpu::Gpu>, bool)) -> Option<GpuBlocks> {
        g.map(|gpu| GpuBlocks { gpu, required, failed: std::cell::Cell::new(false) })
    }

    /// `work` on the GPU: its result, or `None` (the CPU's turn) once the GPU has failed under
    /// `auto`.
    fn attempt<T>(
        &self,
        work: impl FnOnce(&gpu::Gpu) -> rvalue_core::Result<T>,
    ) -> rvalue_core::Result<Option<T>> {
        if self.failed.get() {
            return Ok(None);
        }
        match work(&self.gpu) {
            Ok(got) => Ok(Some(got)),
            Err(e) if self.required => Err(e),
            Err(e) => {
                eprintln!("rvalue: warning: {e}; using the CPU");
                self.failed.set(true);
                Ok(None)
            }
        }
    }
}

impl BlockRanker for GpuBlocks {
    fn nonparametric(&self, block: &ScoreTensor) -> rvalue_core::Result<Option<Vec<f64>>> {
        self.attempt(|g| gpu::nonparametric_rvalues(g, block, &gpu::keys::Keys::of_tensor(block)))
    }

    fn pooled(
        &self,
        split: &PooledSplit,
        block: &ScoreTensor,
        items: &[usize],
        key: usize,
        threads: usize,
    ) -> rvalue_core::Result<Option<Vec<PooledItem>>> {
        self.attempt(|g| gpu::block_ranker::pooled_block_items(g, split, block, items, key, threads))
    }
}

/// Opens `--scores` and reads the labels: a `.npy` or `.npz` streamed (the GPU, if any, ranks
/// its blocks), other files held whole.
pub(crate) fn open_scores(d: &DataArgs) -> CliResult<(Scores, Vec<usize>)> {
    let (scores, labels) = match ScoreFile::open(&d.scores)? {
        Opened::Whole(mut data) => {
            let labels = labels_of(&mut data, &d.scores, d.labels.as_deref(), "--labels")?;
            (Scores::Whole(data), labels)
        }
        Opened::Streamed(mut file) => {
            let labels = streamed_labels(&mut file, d)?;
            (Scores::Streamed(file), labels)
        }
    };
    let n = match &scores {
        Scores::Streamed(f) => f.shape().0,
        Scores::Whole(data) => data.scores.n(),
    };
    if n < 2 {
        return fail(format!(
            "{}: {n} item; expected at least 2 items (a split needs one to calibrate and one to test)",
            display(&d.scores)
        ));
    }
    Ok((scores, labels))
}

fn streamed_labels(file: &mut ScoreFile, d: &DataArgs) -> CliResult<Vec<usize>> {
    let (n, m, k) = file.shape();
    labels_or(file.take_labels(), d.labels.as_deref(), (n, k), || {
        // A file small enough to hold is read whole first, so that a fault in its scores is
        // told before the missing labels (the order of the whole-file path).
        if n.saturating_mul(m).saturating_mul(k) <= MAX_IN_MEMORY {
            io::read_scores_file(&d.scores)?;
        }
        no_labels(&d.scores, "--labels")
    })
}

/// `conformal`'s rows for a streamed file: every method's metrics and set sizes on every split.
pub(crate) fn summaries(
    file: &ScoreFile,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    at: &At<'_>,
) -> CliResult<Vec<conformal::Summary>> {
    let mut tally = Tally::new(methods, at.alpha, at.never_empty, at.threads);
    let mut progress = Progress::new();
    let mut report =
        |what: &str, done: usize, total: usize| progress.count(&format!("{what}: items"), done, total);
    calibrate_streamed_ranked(
        file,
        labels,
        methods,
        opts,
        splits,
        &at.streaming(),
        &mut report,
        &mut |m, _, c, r| {
            tally.add(m, c, r);
            Ok(())
        },
    )?;
    Ok(tally.rows(file.shape().2))
}

/// Each method's metrics and set sizes, split by split, as calibrations arrive in any order of
/// methods (each method's splits in order): the rows of `conformal` without holding more than a
/// few splits. A split's metrics come after the pass that scores every item, on one core unless
/// shared out: `threads` splits are held and measured together, each on a thread of its own, so
/// a hundred splits of a large file take half the time on two cores, with the same numbers.
pub(crate) struct Tally<'a> {
    methods: &'a [Method],
    alpha: f64,
    never_empty: bool,
    threads: usize,
    waiting: Vec<(usize, Calibrated)>,
    got: Vec<Measured>,
    /// Each item's difficulty rank, handed over with the calibrations (the same every time).
    ranks: Vec<u32>,
}

/// A method's splits measured so far: metrics, set sizes and conditional tallies.
type Measured = (Vec<conformal::SplitMetrics>, Vec<Vec<usize>>, Vec<SplitTallies>);

impl<'a> Tally<'a> {
    pub(crate) fn new(methods: &'a [Method], alpha: f64, never_empty: bool, threads: usize) -> Self {
        let got = methods.iter().map(|_| Default::default()).collect();
        Tally {
            methods,
            alpha,
            never_empty,
            threads: threads.max(1),
            waiting: Vec::new(),
            got,
            ranks: Vec::new(),
        }
    }

    /// Takes split `c` of method `m`; `ranks` are the items' difficulty ranks.
    pub(crate) fn add(&mut self, m: Method, c: Calibrated, ranks: &[u32]) {
        if self.ranks.len() != ranks.len() {
            self.ranks = ranks.to_vec();
        }
        if let Some(i) = self.methods.iter().position(|x| *x == m) {
            self.waiting.push((i, c));
            if self.waiting.len() >= self.threads {
                self.measure();
            }
        }
    }

    /// The waiting splits' metrics and sizes, each on a thread of its own, kept in arrival order.
    fn measure(&mut self) {
        let (alpha, never_empty) = (self.alpha, self.never_empty);
        let ranks = &self.ranks;
        let one = move |c: &Calibrated| c.measure(alpha, never_empty, ranks);
        let waiting = std::mem::take(&mut self.waiting);
        let measured: Vec<_> = std::thread::scope(|s| {
            let rest: Vec<_> = waiting.iter().skip(1).map(|(_, c)| s.spawn(move || one(c))).collect();
            let mut all: Vec<_> = waiting.first().map(|(_, c)| one(c)).into_iter().collect();
            for h in rest {
                // A panic there is one here, as if the split had been measured on this thread.
                all.push(h.join().unwrap_or_else(|payload| std::panic::resume_unwind(payload)));
            }
            all
        });
        for ((i, _), (metrics, sizes, tallies)) in waiting.iter().zip(measured) {
            self.got[*i].0.push(metrics);
            self.got[*i].1.push(sizes);
            self.got[*i].2.push(tallies);
        }
    }

    /// One row per method, in the methods' order.
    pub(crate) fn rows(mut self, k: usize) -> Vec<conformal::Summary> {
        self.measure();
        let each = self.methods.iter().zip(&self.got);
        each.map(|(m, (metrics, sizes, tallies))| {
            conformal::summarize_with(*m, self.alpha, metrics, sizes, k, tallies)
        })
        .collect()
    }
}

/// `sets`' rows for a streamed file, method by method in the order given, to `out`.
pub(crate) fn write_sets(
    file: &ScoreFile,
    labels: &[usize],
    methods: &[Method],
    opts: &ScoreOptions,
    split: &Split,
    at: &At<'_>,
    (out, path): (&mut dyn Write, &std::path::Path),
) -> CliResult<()> {
    let (alpha, never_empty) = (at.alpha, at.never_empty);
    let mut progress = Progress::new();
    let mut report =
        |what: &str, done: usize, total: usize| progress.count(&format!("{what}: items"), done, total);
    for &method in methods {
        let mut each = |m: Method, _: usize, c: Calibrated| -> rvalue_core::Result<()> {
            set_rows(m, &c, alpha, never_empty, out)
                .map_err(|e| rvalue_core::Error::Io { file: String::new(), message: e.to_string() })
        };
        let run = at.streaming();
        calibrate_streamed(
            file,
            labels,
            &[method],
            opts,
            std::slice::from_ref(split),
            &run,
            &mut report,
            &mut each,
        )
        .map_err(|e| match e {
            rvalue_core::Error::Io { file, message } if file.is_empty() => {
                CliError(format!("{}: cannot write: {message}", display(path)))
            }
            e => e.into(),
        })?;
    }
    Ok(())
}

/// One split's sets as CSV rows: method, item, candidate, score, position. An empty set is one
/// row with the last three fields empty, so that every test item appears in the output.
pub(crate) fn set_rows(
    m: Method,
    c: &Calibrated,
    alpha: f64,
    never_empty: bool,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    crate::output::warn_unbounded(m, c.unbounded_classes(alpha), c.k, alpha, "");
    for pos in 0..c.test.len() {
        let set = c.set(pos, alpha, never_empty);
        if set.members.is_empty() {
            writeln!(out, "{},{},,,", m.name(), set.item)?;
        }
        for (position, (cand, score)) in set.members.iter().enumerate() {
            writeln!(out, "{},{},{cand},{score},{position}", m.name(), set.item)?;
        }
    }
    Ok(())
}

/// The shape `(N, M, K)` of the scores, wherever they are.
pub(crate) fn shape(s: &Scores) -> (usize, usize, usize) {
    match s {
        Scores::Streamed(f) => f.shape(),
        Scores::Whole(d) => ScoreBlocks::shape(&d.scores as &ScoreTensor),
    }
}
