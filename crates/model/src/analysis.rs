//! The analysis behind panels 3, 4, 6 and 7: calibrated scores of every method on every split
//! (score files) or repeat (toy), built in bounded steps by [`AnalysisJob`].

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Controls, Mode};
use rvalue_core::conformal::pool::{check_methods, pool_splits, TruePool};
use rvalue_core::conformal::{
    self, alpha_grid, check_alpha, item_scores, pooled_hyper, Calibrated, Method, Need, PooledBuilder, Prior,
    RvalueKind, ScoreOptions, ScoreRows, Split, SplitMetrics, Summary,
};
use rvalue_core::eb::Hyper;
use rvalue_core::io::Dataset;
use rvalue_core::rvalue::nonparametric::nonparametric_from_order;
use rvalue_core::rvalue::{DrawOrder, HyperChoice, PooledSplit, Workspace};
use rvalue_core::tensor::{ScoreTensor, Summaries, VarianceKind};
use rvalue_core::toy::{self, ToyParams};
use rvalue_core::{Error, Result};

mod offload;
mod parts;
pub use offload::{Offload, OffloadRequest};
pub use parts::{compute_part, HandOut, HeldData};

/// CP_r's place in `Method::ALL`.
const CP_R: usize = 2;

/// Number of α values of the coverage and size curves (panels 3 and 4).
pub const SWEEP_POINTS: usize = 100;

/// Default work per step, in candidate-units (items × K, weighted by the r-value's cost): about
/// 25 ms of parametric r-values natively on this project's test machine, 50 ms as wasm.
pub const DEFAULT_STEP_BUDGET: usize = 8_000;

/// Pooled CP_r's draw-unit updates per candidate-unit of budget (measured: one parametric
/// r-value costs about as much as 400 updates of the pooled greedy).
const POOLED_UNITS_PER_BUDGET: usize = 400;

/// Test items of a pooled split per step within `budget` (at least one).
fn pooled_items_per_step(budget: usize, t: &ScoreTensor, split: &Split) -> usize {
    (budget.saturating_mul(POOLED_UNITS_PER_BUDGET) / PooledBuilder::item_cost(t, split).max(1)).max(1)
}

/// Largest memory the stored calibrated scores may take (wasm32 has 4 GiB in all).
const MAX_STORED_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// The data an analysis runs on.
#[derive(Debug, Clone)]
pub enum Source {
    /// Simulate `repeats` toy data sets; repeat `r` calibrates on its first `n_cal` items.
    Toy(ToyParams),
    /// A score file with labels, split `Controls::splits` times at random.
    Data(Arc<Dataset>),
    /// A score file with labels (the test items) and a pool of calibration units given as
    /// their true label's draws alone (`conformal::pool`): CP, CP_avg and pooled CP_r,
    /// calibrated on `Controls::splits` random draws of the pool ([`Controls::pool_sizes`]).
    Pool(Arc<Dataset>, Arc<TruePool>),
}

impl Source {
    /// The source the controls select: the toy (with the σ² slider) or `data`.
    pub fn from_controls(controls: &Controls, data: Option<Arc<Dataset>>) -> Result<Self> {
        match controls.mode {
            Mode::Toy => Ok(Source::Toy(controls.toy_params())),
            Mode::Scores => data.map(Source::Data).ok_or_else(|| Error::invalid("no score file is loaded")),
        }
    }

    /// A score file's source calibrated on `pool` instead, when there is one.
    pub fn with_pool(self, pool: Option<Arc<TruePool>>) -> Self {
        match (self, pool) {
            (Source::Data(d), Some(p)) => Source::Pool(d, p),
            (s, _) => s,
        }
    }
}

/// The splits of a pool source: `Controls::splits` seeded draws of the sizes the controls give.
fn pool_split_list(controls: &Controls, pool: &TruePool, n_test: usize) -> Result<Vec<Split>> {
    let sizes = controls.pool_sizes(pool.n(), n_test);
    pool_splits(pool.n(), n_test, Some(sizes), controls.splits, controls.seed)
}

/// The tensor of one part: simulated or the shared file. Cheap to clone, so that work handed
/// out of the job ([`AnalysisJob::offload`]) can hold it while the job goes on.
#[derive(Debug, Clone)]
pub enum PartTensor {
    Owned(Arc<ScoreTensor>),
    Shared(Arc<Dataset>),
}

impl PartTensor {
    pub fn get(&self) -> &ScoreTensor {
        match self {
            PartTensor::Owned(t) => t,
            PartTensor::Shared(d) => &d.scores,
        }
    }
}

/// One data set being analysed: a toy repeat, or the file with all its splits.
#[derive(Debug, Clone)]
pub(super) struct Part {
    tensor: PartTensor,
    pub(super) labels: Vec<usize>,
    pub(super) summaries: Summaries,
    order: Option<DrawOrder>,
    splits: Vec<Split>,
    /// Split-independent item scores `[N][K]` per method (`None`: pooled CP_r, or not yet made).
    /// Parametric CP_r leaves NaN where [`Part::only`] says no split reads the entry.
    scores: [Option<Vec<f64>>; 3],
    /// Per item, the one candidate the splits read, if it is a test item in none of them
    /// (`conformal::needed_candidates`): a toy repeat's calibration items.
    only: Vec<Option<usize>>,
    /// A toy repeat's highest threshold for α in the slider's range, once its calibration
    /// items' parametric r-values are in (see [`AnalysisJob::scores`]).
    bound: Option<f64>,
    /// `scores` with sorted rows, shared by the calibrations of a part with several splits.
    rows: [Option<Arc<ScoreRows>>; 3],
}

impl Part {
    pub(super) fn tensor(&self) -> &ScoreTensor {
        self.tensor.get()
    }
}

/// α-independent facts of each test item of one split, for metrics in `O(log K)` per item.
#[derive(Debug, Clone)]
struct LabelInfo {
    /// The true label's score.
    score: Vec<f64>,
    /// Its 0-based position in the method's order (score, then candidate index).
    pos: Vec<u32>,
}

impl LabelInfo {
    fn of(c: &Calibrated) -> Self {
        let (n, k) = (c.test.len(), c.k);
        let mut score = Vec::with_capacity(n);
        let mut pos = Vec::with_capacity(n);
        for t in 0..n {
            let row = c.row(t);
            let y = c.label(t);
            let s = row[y];
            score.push(s);
            pos.push((0..k).filter(|&c| row[c] < s || (row[c] == s && c < y)).count() as u32);
        }
        LabelInfo { score, pos }
    }
}

/// The threshold CP_r's calibration picks at the smallest α the explorer answers
/// ([`super::ALPHA_RANGE`]), the highest of all: from the true labels' scores of calibration
/// items `0..n_cal` in `scores` (`[N][K]`, rows of the calibration items at least).
fn highest_threshold(scores: &[f64], k: usize, labels: &[usize], n_cal: usize) -> f64 {
    let mut cal: Vec<f64> = (0..n_cal).map(|i| scores[i * k + labels[i]]).collect();
    cal.sort_unstable_by(f64::total_cmp);
    conformal::conformal_quantile(&cal, super::ALPHA_RANGE.0)
}

/// Result of one [`AnalysisJob::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Progress {
    /// More steps are needed; the fraction done so far, in `[0, 1)`.
    Working(f64),
    /// Nothing to do until a part handed out ([`AnalysisJob::hand_out`]) is supplied or handed
    /// back; the fraction done so far.
    Waiting(f64),
    /// Call [`AnalysisJob::finish`].
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Load,
    Scores {
        method: usize,
        next: usize,
    },
    Calibrate {
        next: usize,
        method: usize,
    },
    /// Every part is computed or handed out; some handed out are not back yet.
    Waiting,
    Done,
}

/// Who computes a part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claim {
    Free,
    /// The job itself (the part it is at, or one it finished).
    Job,
    /// Handed out to another thread ([`AnalysisJob::hand_out`]).
    Out,
}

/// Coverage and mean set size against α for each method (panels 3 and 4).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepCurves {
    /// [`SWEEP_POINTS`] values evenly spaced on the α slider's range.
    pub alphas: Vec<f64>,
    /// `1 − α`, the target line.
    pub target: Vec<f64>,
    /// `coverage[method][j]`, methods in [`Method::ALL`] order.
    pub coverage: [Vec<f64>; 3],
    /// `size[method][j]`.
    pub size: [Vec<f64>; 3],
    pub never_empty: bool,
}

impl SweepCurves {
    fn mean_over(&mut self, splits: usize) {
        let r = splits.max(1) as f64;
        for v in self.coverage.iter_mut().chain(self.size.iter_mut()).flatten() {
            *v /= r;
        }
    }

    fn zero(never_empty: bool) -> Self {
        let alphas = alpha_grid(super::ALPHA_RANGE.0, super::ALPHA_RANGE.1, SWEEP_POINTS);
        let zero = || vec![0.0; SWEEP_POINTS];
        SweepCurves {
            target: alphas.iter().map(|a| 1.0 - a).collect(),
            alphas,
            coverage: [zero(), zero(), zero()],
            size: [zero(), zero(), zero()],
            never_empty,
        }
    }
}

/// Builds an [`Analysis`] in bounded steps. Dropping it cancels the work.
#[derive(Debug)]
pub struct AnalysisJob {
    source: Source,
    controls: Controls,
    opts: ScoreOptions,
    parts_total: usize,
    /// The part the job is computing (parts may finish out of order when some are handed out).
    part_index: usize,
    /// Parts recorded into `calibrated` and the sweeps, which take them in part order.
    recorded: usize,
    claims: Vec<Claim>,
    /// Finished parts not yet recorded: their calibrations, per split in `Method::ALL` order.
    finished: BTreeMap<usize, Vec<Calibrated>>,
    /// The current part's calibrations so far.
    current: Vec<Calibrated>,
    /// Computing one part for another thread ([`AnalysisJob::part_alone`]): stop after it.
    alone: bool,
    part: Option<Part>,
    first_part: Option<Part>,
    phase: Phase,
    budget: usize,
    calibrated: [Vec<Calibrated>; 3],
    label_info: [Vec<LabelInfo>; 3],
    /// `[never_empty = false, true]`.
    sweeps: [SweepCurves; 2],
    single_draw: bool,
    /// The pooled prior of the current part (parametric CP_r with `Prior::Pooled`).
    part_hyper: Option<Hyper>,
    /// Pooled CP_r of the split being calibrated.
    pooled: Option<PooledBuilder>,
    /// A pool's calibration units' CP and CP_avg scores, once computed.
    unit_scores: [Option<Vec<f64>>; 3],
    /// Every toy repeat's r-values in full (tests: the reference for the bounded ones).
    full_rows: bool,
    /// A score file's pooled CP_r, per split: who calibrates it (splits can be handed out like
    /// toy repeats); empty otherwise.
    split_claims: Vec<Claim>,
    /// Splits of the current part whose CP and CP_avg are done.
    split_next: usize,
    /// Pooled CP_r of splits done before their turn to be recorded (one each; the map's type
    /// is `finished`'s, which keeps the page's wasm from holding a second copy of its code).
    by_split: BTreeMap<usize, Vec<Calibrated>>,
}

fn method_index(m: Method) -> usize {
    match m {
        Method::Cp => 0,
        Method::CpAvg => 1,
        Method::CpR => 2,
    }
}

impl AnalysisJob {
    /// Checks the settings and the data; no heavy work happens here.
    pub fn new(source: Source, controls: &Controls) -> Result<Self> {
        // The controls describe what is analysed: the source decides the mode (and the toy).
        let mut controls = controls.clone();
        match &source {
            Source::Toy(p) => {
                controls.mode = Mode::Toy;
                controls.toy = p.clone();
                controls.sigma2 = p.sigma2;
            }
            Source::Data(_) | Source::Pool(..) => controls.mode = Mode::Scores,
        }
        controls.validate()?;
        let (parts_total, k, test_per_split, splits, single_draw) = Self::shape_of(&source, &controls)?;
        let m = match &source {
            Source::Toy(p) => p.m,
            Source::Data(d) | Source::Pool(d, _) => d.scores.m(),
        };
        if controls.score.cp_draw >= m {
            return Err(Error::invalid(format!(
                "CP's draw {} does not exist (M = {m})",
                controls.score.cp_draw
            )));
        }
        let bytes = 3.0 * 16.0 * splits as f64 * test_per_split as f64 * k as f64;
        if bytes > MAX_STORED_BYTES {
            return Err(Error::invalid(format!(
                "{splits} splits × {test_per_split} test items × K = {k} need {:.1} GiB of stored scores; \
                 use fewer splits",
                bytes / MAX_STORED_BYTES
            )));
        }
        // A score file's pooled splits can be handed out; the first stays with the job.
        let split_claims = match &source {
            Source::Data(_) if controls.score.kind == RvalueKind::Pooled => {
                (0..controls.splits).map(|r| if r == 0 { Claim::Job } else { Claim::Free }).collect()
            }
            _ => Vec::new(),
        };
        Ok(AnalysisJob {
            opts: controls.score_options(),
            controls,
            parts_total,
            part_index: 0,
            recorded: 0,
            claims: (0..parts_total).map(|p| if p == 0 { Claim::Job } else { Claim::Free }).collect(),
            finished: BTreeMap::new(),
            current: Vec::new(),
            alone: false,
            part: None,
            first_part: None,
            phase: Phase::Load,
            budget: DEFAULT_STEP_BUDGET,
            calibrated: Default::default(),
            label_info: Default::default(),
            sweeps: [SweepCurves::zero(false), SweepCurves::zero(true)],
            single_draw,
            part_hyper: None,
            full_rows: false,
            pooled: None,
            unit_scores: [None, None, None],
            split_claims,
            split_next: 0,
            by_split: BTreeMap::new(),
            source,
        })
    }

    /// The source's data sets, K, test items per split, splits in all, and whether it has one
    /// draw; checks the data and the split sizes now rather than after the r-values.
    fn shape_of(source: &Source, controls: &Controls) -> Result<(usize, usize, usize, usize, bool)> {
        let d = match source {
            Source::Toy(p) => return Ok((p.repeats, p.k, p.n_test, p.repeats, p.m == 1)),
            Source::Data(d) | Source::Pool(d, _) => d,
        };
        let labels = d.labels.as_ref().ok_or_else(|| Error::invalid("the score file has no labels"))?;
        conformal::check_data(&d.scores, labels)?;
        let n = d.scores.n();
        let n_test = match source {
            Source::Pool(_, pool) => {
                if pool.m() != d.scores.m() {
                    return Err(Error::shape(format!(
                        "the pool has M = {} draws, the test items M = {}",
                        pool.m(),
                        d.scores.m()
                    )));
                }
                // A pool holds true-label draws only: CP_r must be the pooled kind.
                check_methods(&[Method::CpR], &controls.score)?;
                pool_split_list(controls, pool, n)?;
                n
            }
            _ => {
                Split::random(n, controls.cal_fraction, controls.seed, 0)?;
                n - (n as f64 * controls.cal_fraction).round() as usize
            }
        };
        Ok((1, d.scores.k(), n_test, controls.splits, d.single_draw || d.scores.m() == 1))
    }

    /// Sets the work per step (candidate-units, at least 1).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget.max(1);
        self
    }

    /// Tests: computes every toy repeat's r-values in full.
    #[cfg(test)]
    pub(super) fn with_full_rows(mut self) -> Self {
        self.full_rows = true;
        self
    }

    /// The fraction of the work done, in `[0, 1]`.
    pub fn fraction_done(&self) -> f64 {
        self.fraction_with(None)
    }

    /// [`AnalysisJob::fraction_done`], with the current step's own progress replaced by
    /// `step_done` (work done outside the job, [`AnalysisJob::offload`]).
    fn fraction_with(&self, step_done: Option<f64>) -> f64 {
        let parts = self.parts_total as f64;
        // Weights: the parts (load, scores, calibration) 90 %, the α sweep 10 %.
        // Weights within a part: loading 10 %, scores 60 %, calibration and its α sweep 30 %.
        let within = match (self.phase, &self.part) {
            (Phase::Load, _) => 0.0,
            (Phase::Scores { method, next }, Some(p)) => {
                let n = p.labels.len().max(1) as f64;
                0.1 + 0.6 * (method as f64 + step_done.unwrap_or(next as f64 / n)) / 3.0
            }
            (Phase::Calibrate { next, method }, Some(p)) => {
                let within_method = step_done.unwrap_or_else(|| {
                    self.pooled
                        .as_ref()
                        .map_or(0.0, |b| b.done() as f64 / p.splits[next].test.len().max(1) as f64)
                });
                0.7 + 0.3 * (next as f64 + (method as f64 + within_method) / 3.0)
                    / p.splits.len().max(1) as f64
            }
            (Phase::Waiting, Some(_)) => {
                0.7 + 0.3 * self.calibrated[CP_R].len() as f64 / self.split_claims.len().max(1) as f64
            }
            _ => 0.0,
        };
        let done = (self.recorded + self.finished.len()) as f64;
        let f = match self.phase {
            Phase::Done => 1.0,
            _ => (done + within) / parts,
        };
        f.clamp(0.0, 1.0)
    }

    /// What the next step does, for the progress bar ("repeat 3/50: r-values", …).
    pub fn describe(&self) -> String {
        let what = match self.phase {
            Phase::Load => match self.source {
                Source::Toy(_) => "simulating",
                Source::Data(_) | Source::Pool(..) => "summarising",
            },
            Phase::Scores { method, .. } => match Method::ALL[method] {
                Method::CpR => "r-values",
                _ => "scores",
            },
            Phase::Calibrate { .. } => "calibrating",
            Phase::Waiting => {
                let (what, done, all) = match self.source {
                    Source::Toy(_) => ("repeats", self.recorded, self.parts_total),
                    _ => ("splits", self.calibrated[CP_R].len(), self.split_claims.len()),
                };
                return format!("{what} {done}/{all}: waiting for other threads");
            }
            Phase::Done => return "done".to_string(),
        };
        match self.source {
            Source::Toy(_) => format!("repeat {}/{}: {what}", self.part_index + 1, self.parts_total),
            Source::Data(_) | Source::Pool(..) => what.to_string(),
        }
    }

    /// Does a bounded slice of work: loading or simulating one data set, one chunk of r-values,
    /// or the calibration of one method on one split (with its share of the α sweep). Errors end
    /// the job.
    pub fn step(&mut self) -> Result<Progress> {
        match self.phase {
            Phase::Load => self.load()?,
            Phase::Scores { method, next } => self.scores(method, next)?,
            Phase::Calibrate { next, method } => self.calibrate(next, method)?,
            Phase::Waiting | Phase::Done => {}
        }
        Ok(match self.phase {
            Phase::Done => Progress::Done,
            Phase::Waiting => Progress::Waiting(self.fraction_done()),
            _ => Progress::Working(self.fraction_done()),
        })
    }

    /// Runs every remaining step.
    pub fn run(mut self) -> Result<Analysis> {
        while self.step()? != Progress::Done {}
        self.finish()
    }

    fn load(&mut self) -> Result<()> {
        let need_order = self.opts.kind != RvalueKind::Parametric;
        let (tensor, labels, splits) = match &self.source {
            Source::Toy(p) => {
                let (t, y) = toy::simulate(p, self.part_index)?;
                // Repeat r's tie order is split r of the toy's seed: independent across repeats.
                let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect())
                    .keyed(p.seed, self.part_index as u64);
                (PartTensor::Owned(Arc::new(t)), y, vec![split])
            }
            Source::Data(d) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = self.controls.split_plan().splits(d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
            Source::Pool(d, pool) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = pool_split_list(&self.controls, pool, d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
        };
        let t = tensor.get();
        // A pool's pooled CP_r ranks its test items as the command line's streamed path does,
        // without draw orders (the same results, bit for bit).
        let need_order = need_order && !matches!(self.source, Source::Pool(..));
        let order = if need_order { Some(DrawOrder::of(t)?) } else { None };
        let summaries = Summaries::of(t);
        let only = conformal::needed_candidates(&labels, &splits);
        self.part = Some(Part {
            tensor,
            labels,
            summaries,
            order,
            splits,
            scores: [None, None, None],
            only,
            bound: None,
            rows: [None, None, None],
        });
        self.phase = Phase::Scores { method: 0, next: 0 };
        self.split_next = 0;
        Ok(())
    }

    /// Item scores: CP and CP_avg in one step each, CP_r's r-values in chunks of items.
    fn scores(&mut self, method: usize, next: usize) -> Result<()> {
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the scores phase"))?;
        let t = part.tensor.get();
        let (n, k) = (t.n(), t.k());
        let m = Method::ALL[method];
        let advance = |method: usize| {
            if method + 1 < 3 {
                Phase::Scores { method: method + 1, next: 0 }
            } else {
                Phase::Calibrate { next: 0, method: 0 }
            }
        };
        if m != Method::CpR || self.opts.kind == RvalueKind::Pooled {
            part.scores[method] = item_scores(t, &part.summaries, part.order.as_ref(), m, &self.opts)?;
            self.phase = advance(method);
            return Ok(());
        }
        // Relative costs per candidate, measured with the explorer bench (parametric exact with
        // the model rule ≈ 4 µs per candidate natively).
        let cost = match self.opts.kind {
            RvalueKind::Nonparametric => k * (1 + t.m() / 16),
            _ => 4 * k,
        }
        .max(1);
        let mut end = (next + (self.budget / cost).max(1)).min(n);
        let out = part.scores[method].get_or_insert_with(|| Vec::with_capacity(n * k));
        match self.opts.kind {
            RvalueKind::Nonparametric => {
                let order =
                    part.order.as_ref().ok_or_else(|| internal("no draw orders for a rank-based r-value"))?;
                for i in next..end {
                    out.extend(nonparametric_from_order(order, i));
                }
            }
            _ => {
                // As `conformal::item_scores`, one chunk of items at a time.
                let hyper = match self.opts.prior {
                    Prior::PerItem => HyperChoice::Estimate,
                    Prior::Pooled => HyperChoice::Fixed(match self.part_hyper {
                        Some(h) if next > 0 => h,
                        _ => *self.part_hyper.insert(pooled_hyper(&part.summaries, self.opts.variance)?),
                    }),
                };
                // A toy repeat other than the one on show: its test items, after its n_cal
                // calibration items, need exact r-values only up to the highest threshold an α
                // in the slider's range can pick, known once the calibration scores are in (a
                // chunk stops there).
                let n_cal = match &self.source {
                    Source::Toy(p) if self.part_index > 0 && !self.full_rows => Some(p.n_cal),
                    _ => None,
                };
                if let Some(c) = n_cal.filter(|&c| next < c) {
                    end = end.min(c);
                }
                let need = n_cal
                    .filter(|&c| next >= c)
                    .map(|c| *part.bound.get_or_insert_with(|| highest_threshold(out, k, &part.labels, c)));
                let only = &part.only;
                conformal::parametric_scores(
                    &part.summaries,
                    &self.opts,
                    hyper,
                    next..end,
                    |i| match (only[i], need) {
                        (None, Some(bound)) => Need::UpTo(bound),
                        (only, _) => only.into(),
                    },
                    out,
                )?;
            }
        }
        self.phase = if end < n { Phase::Scores { method, next: end } } else { advance(method) };
        Ok(())
    }

    /// Calibrates one method on one split and adds the split to that method's α sweep.
    fn calibrate(&mut self, next: usize, mi: usize) -> Result<()> {
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the calibration phase"))?;
        let t = part.tensor.get();
        let k = t.k();
        let split = &part.splits[next];
        let c = match &part.scores[mi] {
            Some(s) if matches!(self.source, Source::Pool(..)) => {
                let Source::Pool(_, pool) = &self.source else { return Err(internal("not a pool")) };
                let rows = part.rows[mi].get_or_insert_with(|| ScoreRows::new(s.clone(), k));
                let cal = match &mut self.unit_scores[mi] {
                    Some(c) => c,
                    slot => slot.insert(pool.scores(Method::ALL[mi], &self.opts)?),
                };
                Calibrated::of_units(rows, k, &part.labels, split, |j| cal[j])
            }
            Some(s) if part.splits.len() > 1 => {
                let rows = part.rows[mi].get_or_insert_with(|| ScoreRows::new(s.clone(), k));
                Calibrated::shared(rows, k, &part.labels, split)
            }
            Some(s) => Calibrated::fixed(s, k, &part.labels, split),
            None => {
                // Pooled CP_r: the greedy per test item is the heavy part; a chunk per step.
                let b = match (self.pooled.as_mut(), &self.source) {
                    (Some(b), _) => b,
                    (None, Source::Pool(_, pool)) => {
                        self.pooled.insert(PooledBuilder::of_pool(pool, k, split, self.opts.ties)?)
                    }
                    (None, _) => {
                        self.pooled.insert(PooledBuilder::new(t, &part.labels, split, self.opts.ties)?)
                    }
                };
                let items = pooled_items_per_step(self.budget, t, split);
                if !b.step(t, part.order.as_ref(), split, items) {
                    return Ok(());
                }
                let b = self.pooled.take().ok_or_else(|| internal("the pooled builder is gone"))?;
                b.finish(&part.labels, split)
            }
        };
        self.record(next, mi, c);
        Ok(())
    }

    /// Keeps method `mi`'s calibration of split `next` and moves on to the next method, split,
    /// part, or the end.
    fn record(&mut self, next: usize, mi: usize, c: Calibrated) {
        // The part next in order is recorded as it goes (a score file's hundred splits would
        // otherwise all be summed in its last step). A part started ahead of its turn is kept
        // whole, even when its turn comes meanwhile (the part before it supplied).
        let whole = self.alone || self.part_index != self.recorded || !self.current.is_empty();
        if mi == CP_R && !self.split_claims.is_empty() {
            self.by_split.insert(next, vec![c]);
            self.take_splits_in_order();
        } else if whole {
            self.current.push(c);
        } else {
            self.take_in(mi, c);
        }
        match self.next_in_part(next, mi) {
            Some(phase) => self.phase = phase,
            None if self.split_claims.contains(&Claim::Out) => self.phase = Phase::Waiting,
            None => self.end_part(whole),
        }
    }

    /// The calibration after method `mi` of split `next`: the next method, CP_r of a split
    /// handed back after the job passed it, or the next split; `None` at the part's end.
    fn next_in_part(&mut self, next: usize, mi: usize) -> Option<Phase> {
        if mi == 0 {
            return Some(Phase::Calibrate { next, method: 1 });
        }
        if mi == 1 {
            self.split_next = next + 1;
            if self.claim_split(next) {
                return Some(Phase::Calibrate { next, method: CP_R });
            }
        }
        if let Some(r) = (0..self.split_next).find(|&r| self.split_claims.get(r) == Some(&Claim::Free)) {
            self.split_claims[r] = Claim::Job;
            return Some(Phase::Calibrate { next: r, method: CP_R });
        }
        let splits = self.part.as_ref().map_or(0, |p| p.splits.len());
        (self.split_next < splits).then_some(Phase::Calibrate { next: self.split_next, method: 0 })
    }

    /// Whether the job calibrates CP_r on split `r` itself (no other thread has it).
    fn claim_split(&mut self, r: usize) -> bool {
        match self.split_claims.get_mut(r) {
            None => true,
            Some(c @ Claim::Free) => {
                *c = Claim::Job;
                true
            }
            Some(c) => {
                *c == Claim::Job && !self.by_split.contains_key(&r) && self.calibrated[CP_R].len() <= r
            }
        }
    }

    /// Records pooled CP_r's splits that are next in split order.
    fn take_splits_in_order(&mut self) {
        while let Some(c) = self.by_split.remove(&self.calibrated[CP_R].len()) {
            c.into_iter().for_each(|c| self.take_in(CP_R, c));
        }
    }

    /// The current part is calibrated: keeps it, and moves to the next part or the end.
    fn end_part(&mut self, whole: bool) {
        let done = self.part.take();
        if self.part_index == 0 {
            self.first_part = done;
        }
        if whole {
            self.finished.insert(self.part_index, std::mem::take(&mut self.current));
        } else {
            self.recorded += 1;
        }
        if self.alone {
            self.phase = Phase::Done;
            return;
        }
        self.flush();
        self.next_part();
    }

    /// Records the finished parts that are next in part order, so that every sum over parts
    /// adds them in the same order wherever they were computed.
    fn flush(&mut self) {
        while let Some(out) = self.finished.remove(&self.recorded) {
            for (j, c) in out.into_iter().enumerate() {
                self.take_in(j % 3, c);
            }
            self.recorded += 1;
        }
    }

    /// Adds method `mi`'s calibration of the next split in order to the results and sums.
    fn take_in(&mut self, mi: usize, c: Calibrated) {
        let info = LabelInfo::of(&c);
        Self::add_to_sweeps(&mut self.sweeps, mi, &c);
        self.calibrated[mi].push(c);
        self.label_info[mi].push(info);
    }

    /// Moves to the first part nobody computes yet; else waits for parts handed out; else ends.
    fn next_part(&mut self) {
        if let Some(p) = self.claims.iter().position(|&c| c == Claim::Free) {
            self.claims[p] = Claim::Job;
            self.part_index = p;
            self.phase = Phase::Load;
        } else if self.recorded < self.parts_total {
            self.phase = Phase::Waiting;
        } else {
            let splits = self.calibrated[0].len();
            for sw in self.sweeps.iter_mut() {
                sw.mean_over(splits);
            }
            self.phase = Phase::Done;
        }
    }

    /// Adds one split of one method to the coverage and size sums (both never-empty settings),
    /// in split order exactly as `conformal::sweep` sums them.
    fn add_to_sweeps(sweeps: &mut [SweepCurves; 2], mi: usize, c: &Calibrated) {
        for sw in sweeps.iter_mut() {
            let per = c.sweep(&sw.alphas, sw.never_empty);
            for (j, (cov, size)) in per.into_iter().enumerate() {
                sw.coverage[mi][j] += cov;
                sw.size[mi][j] += size;
            }
        }
    }

    /// Splits of CP recorded so far (for tests: a score file's are recorded one by one).
    #[cfg(test)]
    pub(crate) fn recorded_splits(&self) -> usize {
        self.calibrated[0].len()
    }

    /// Data sets (toy repeats) recorded so far (the first ones, in order), and in all.
    pub fn parts(&self) -> (usize, usize) {
        (self.recorded, self.parts_total)
    }

    /// The analysis of the toy repeats recorded so far, to show while the rest is computed
    /// (`None` before the first is recorded, and for score files, which are one data set); equal
    /// to the finished analysis of that many repeats.
    pub fn partial(&self) -> Option<Analysis> {
        let first = self.first_part.as_ref()?;
        // Between parts every method holds the same splits and the sums match them.
        let done = self.recorded;
        if done == 0
            || !matches!(self.source, Source::Toy(_))
            || self.calibrated.iter().any(|c| c.len() != done)
        {
            return None;
        }
        let take = |v: &[Vec<Calibrated>; 3]| -> [Vec<Calibrated>; 3] {
            std::array::from_fn(|mi| v[mi][..done].to_vec())
        };
        let calibrated = take(&self.calibrated);
        let label_info = std::array::from_fn(|mi| self.label_info[mi][..done].to_vec());
        let sweeps = self.sweeps.clone().map(|mut sw| {
            sw.mean_over(done);
            sw
        });
        let mut controls = self.controls.clone();
        controls.toy.repeats = done;
        Analysis::assemble(
            controls,
            &self.source,
            first.clone(),
            self.single_draw,
            calibrated,
            label_info,
            sweeps,
        )
        .ok()
    }

    /// The finished analysis; an error if steps remain.
    pub fn finish(self) -> Result<Analysis> {
        if self.phase != Phase::Done {
            return Err(Error::invalid("the analysis is not finished: call step() until it reports Done"));
        }
        let first = self.first_part.ok_or_else(|| internal("the first part was not kept"))?;
        Analysis::assemble(
            self.controls,
            &self.source,
            first,
            self.single_draw,
            self.calibrated,
            self.label_info,
            self.sweeps,
        )
    }
}

/// One row of the summary table (panel 6) at one α.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub method: Method,
    pub coverage_mean: f64,
    pub coverage_sd: f64,
    pub size_mean: f64,
    pub size_sd: f64,
    /// Mean 0-based position of the true label in its set; `None` when no set holds it.
    pub position_mean: Option<f64>,
    pub empty_rate: f64,
    pub splits: usize,
    /// `histogram[s]` = number of test sets of size `s`, over all splits.
    pub size_histogram: Vec<u64>,
}

/// Everything that depends on α (panels 3/4 markers, 6).
#[derive(Debug, Clone, PartialEq)]
pub struct AlphaView {
    pub alpha: f64,
    pub never_empty: bool,
    /// CP, CP_avg, CP_r.
    pub rows: Vec<SummaryRow>,
    /// `100 (size_CP − size_CPr) / size_CP` in %; `None` when CP's mean size is 0.
    pub reduction_vs_cp: Option<f64>,
    /// The same against CP_avg.
    pub reduction_vs_cp_avg: Option<f64>,
}

/// One candidate of an inspected item, in a method's order.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedCandidate {
    pub candidate: usize,
    /// The method's nonconformity score (CP: `−S[m0]`, CP_avg: `−X`, CP_r: the r-value).
    pub score: f64,
    pub in_set: bool,
    pub is_true: bool,
}

/// One method's view of an inspected item.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodRanking {
    pub method: Method,
    /// `q̂` at α for this item; `None` when it is ±∞ (every or no candidate passes).
    pub threshold: Option<f64>,
    /// All K candidates by score (ties to the lower candidate), the set's members first.
    pub ranked: Vec<RankedCandidate>,
}

/// The item inspector (panel 7): test item `t` of the first split (or repeat).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemView {
    /// Position among the first split's test items.
    pub test_index: usize,
    /// The item's index in the data set.
    pub item: usize,
    pub label: usize,
    /// CP, CP_avg, CP_r.
    pub methods: Vec<MethodRanking>,
}

/// A finished analysis: answers any α without recomputing a score.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The settings it was built with (α, β and σ² may have moved since).
    pub controls: Controls,
    /// The toy parameters (toy mode).
    pub toy: Option<ToyParams>,
    /// Shape of the (first) data set.
    pub n: usize,
    pub m: usize,
    pub k: usize,
    /// `M = 1`: only CP and CP_avg are meaningful (docs/method.md §8).
    pub single_draw: bool,
    /// Calibrated on a pool of true-label draws: units per split, units in the pool.
    pub pool: Option<(usize, usize)>,
    calibrated: [Vec<Calibrated>; 3],
    label_info: [Vec<LabelInfo>; 3],
    /// `[never_empty = false, never_empty = true]`.
    sweeps: [SweepCurves; 2],
    first: Part,
    hyper: Option<Hyper>,
    /// Pooled CP_r: the first split's calibration units, for the inspector's r-values.
    pooled_first: Option<PooledSplit>,
    /// Pooled CP_r: the first data set's item `i` is keyed as item `key_offset + i` (a pool's
    /// test items follow its units).
    key_offset: usize,
    /// `z_β` of the first data set by the model rule, per β (bits) asked so far: a root over all
    /// N·K candidates, too slow to repeat on every redraw of a large file.
    z_memo: std::cell::RefCell<Vec<(u64, Option<f64>)>>,
    /// Mean of the first data set's false candidates' mean scores (Theorem 3's μ0 for files).
    false_mean: f64,
    /// Pooled CP_r: the r-values of the test item inspected last (α moves re-inspect it).
    inspected: std::cell::RefCell<Option<(usize, Vec<f64>)>>,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl Analysis {
    /// Builds in one go with the core's `Prepared::calibrate` and `conformal::sweep` (the
    /// reference the stepped [`AnalysisJob`] is tested against); blocks, so not for the page.
    pub fn build(source: Source, controls: &Controls) -> Result<Self> {
        let mut job = AnalysisJob::new(source.clone(), controls)?;
        if matches!(source, Source::Pool(..)) {
            // `Prepared` calibrates on the file's own items: a pool's reference is the joined
            // tensor's split instead (`explorer::pool_tests`), and its stepped job is run here.
            return job.run();
        }
        let opts = job.opts;
        let need_order = opts.kind != RvalueKind::Parametric;
        let mut calibrated: [Vec<Calibrated>; 3] = Default::default();
        let mut label_info: [Vec<LabelInfo>; 3] = Default::default();
        let mut first = None;
        for r in 0..job.parts_total {
            job.part_index = r;
            job.load()?;
            let mut part = job.part.take().ok_or_else(|| internal("load() left no part"))?;
            let prepared = conformal::Prepared::new(part.tensor.get(), &part.labels, need_order)?;
            for (mi, &m) in Method::ALL.iter().enumerate() {
                let scores = item_scores(prepared.t, &prepared.summaries, prepared.order.as_ref(), m, &opts)?;
                for c in prepared.calibrate(m, &opts, &part.splits)? {
                    label_info[mi].push(LabelInfo::of(&c));
                    calibrated[mi].push(c);
                }
                part.scores[mi] = scores;
            }
            if r == 0 {
                first = Some(part);
            }
        }
        for sw in job.sweeps.iter_mut() {
            for mi in 0..3 {
                let curve = conformal::sweep(&calibrated[mi], &sw.alphas, sw.never_empty);
                sw.coverage[mi] = curve.iter().map(|c| c.0).collect();
                sw.size[mi] = curve.iter().map(|c| c.1).collect();
            }
        }
        job.calibrated = calibrated;
        job.label_info = label_info;
        job.first_part = first;
        job.phase = Phase::Done;
        job.finish()
    }

    /// An analysis of `first` (the first data set) and the calibrated splits; `sweeps` is
    /// `[never_empty = false, true]`.
    fn assemble(
        controls: Controls,
        source: &Source,
        first: Part,
        single_draw: bool,
        calibrated: [Vec<Calibrated>; 3],
        label_info: [Vec<LabelInfo>; 3],
        sweeps: [SweepCurves; 2],
    ) -> Result<Self> {
        let t = first.tensor.get();
        let (n, m, k) = (t.n(), t.m(), t.k());
        let hyper = pooled_hyper(&first.summaries, controls.score.variance).ok();
        let (labels, means) = (&first.labels, &first.summaries.mean);
        let (sum, count) = (0..n)
            .flat_map(|i| (0..k).filter(move |&c| c != labels[i]).map(move |c| i * k + c))
            .fold((0.0, 0usize), |(a, n), u| (a + means[u], n + 1));
        let false_mean = if count == 0 { 0.0 } else { sum / count as f64 };
        let ties = |split: &Split| split.ties(controls.score.ties);
        let (pooled_first, key_offset) = match source {
            _ if first.scores[2].is_some() => (None, 0),
            Source::Pool(_, pool) => {
                let split = &first.splits[0];
                (Some(PooledSplit::from_draws(&pool.units(&split.cal), m, k, ties(split))?), pool.n())
            }
            _ => {
                let split = &first.splits[0];
                (Some(PooledSplit::new(t, &first.labels, &split.cal, ties(split))?), 0)
            }
        };
        let pool = match source {
            Source::Pool(_, pool) => Some((controls.pool_sizes(pool.n(), n).0, pool.n())),
            _ => None,
        };
        Ok(Analysis {
            toy: match source {
                Source::Toy(_) => Some(controls.toy.clone()),
                Source::Data(_) | Source::Pool(..) => None,
            },
            controls,
            pool,
            key_offset,
            n,
            m,
            k,
            single_draw,
            calibrated,
            label_info,
            sweeps,
            first,
            hyper,
            pooled_first,
            z_memo: Default::default(),
            false_mean,
            inspected: Default::default(),
        })
    }

    /// Mean of the first data set's false candidates' mean scores (0 when there are none).
    pub fn false_mean(&self) -> f64 {
        self.false_mean
    }

    /// `z_β` by the model rule over the first data set's candidates with the pooled prior
    /// ([`Analysis::hyper`]); `None` without a prior with `τ² > 0` or a finite root. Remembered
    /// per β.
    pub fn z_model(&self, beta: f64) -> Option<f64> {
        if let Some(&(_, z)) = self.z_memo.borrow().iter().find(|(b, _)| *b == beta.to_bits()) {
            return z;
        }
        let z = self.hyper.filter(|h| h.tau2 > 0.0).and_then(|h| {
            let ss: Vec<f64> = self.variances().iter().map(|s| s / h.tau2).collect();
            rvalue_core::eb::z_model(beta, &ss).filter(|z| z.is_finite())
        });
        let mut memo = self.z_memo.borrow_mut();
        // The slider visits at most a few hundred β; keep the most recent ones.
        if memo.len() >= 256 {
            memo.remove(0);
        }
        memo.push((beta.to_bits(), z));
        z
    }

    /// The stored calibrated scores of a method, one per split (or repeat).
    pub fn calibrated(&self, method: Method) -> &[Calibrated] {
        &self.calibrated[method_index(method)]
    }

    /// Coverage and size against α (panels 3 and 4), computed once per analysis.
    pub fn sweep(&self, never_empty: bool) -> &SweepCurves {
        &self.sweeps[usize::from(never_empty)]
    }

    /// The core's [`Summary`] of a method at α in the slider's range ([`super::ALPHA_RANGE`]):
    /// equal to `conformal::evaluate` on [`Analysis::calibrated`], in `O(log K)` per test item
    /// (the true label's score and position are α-independent and stored). Smaller α are
    /// refused: the toy repeats after the first keep exact r-values only up to the range's
    /// highest threshold (`+∞` above it).
    pub fn summary(&self, method: Method, alpha: f64, never_empty: bool) -> Result<Summary> {
        let (lo, hi) = super::ALPHA_RANGE;
        if !(lo..=hi).contains(&alpha) {
            return Err(Error::invalid(format!("α = {alpha} is outside the explorer's range [{lo}, {hi}]")));
        }
        let mi = method_index(method);
        let cals = &self.calibrated[mi];
        let mut per_split = Vec::with_capacity(cals.len());
        let mut sizes = Vec::with_capacity(cals.len());
        for (c, info) in cals.iter().zip(&self.label_info[mi]) {
            let sz = c.sizes(alpha, never_empty);
            let per_item = c.per_item_threshold();
            let q0 = c.threshold(0, alpha);
            let (mut covered, mut pos_sum, mut empty, mut size) = (0usize, 0usize, 0usize, 0usize);
            for (t, &s) in sz.iter().enumerate() {
                size += s;
                empty += usize::from(s == 0);
                let q = if per_item { c.threshold(t, alpha) } else { q0 };
                let p = info.pos[t];
                if info.score[t] <= q || (never_empty && p == 0) {
                    covered += 1;
                    pos_sum += p as usize;
                }
            }
            let nt = sz.len() as f64;
            let metrics = SplitMetrics {
                coverage: covered as f64 / nt,
                size: size as f64 / nt,
                position: if covered > 0 { pos_sum as f64 / covered as f64 } else { f64::NAN },
                empty_rate: empty as f64 / nt,
            };
            per_split.push(metrics);
            sizes.push(sz);
        }
        Ok(conformal::summarize(method, alpha, &per_split, &sizes, self.k))
    }

    /// The summary table at α (panel 6).
    pub fn at_alpha(&self, alpha: f64, never_empty: bool) -> Result<AlphaView> {
        let mut rows = Vec::with_capacity(3);
        for m in Method::ALL {
            let s = self.summary(m, alpha, never_empty)?;
            rows.push(SummaryRow {
                method: m,
                coverage_mean: s.coverage_mean,
                coverage_sd: s.coverage_sd,
                size_mean: s.size_mean,
                size_sd: s.size_sd,
                position_mean: finite(s.position_mean),
                empty_rate: s.empty_rate,
                splits: s.splits,
                size_histogram: s.size_histogram,
            });
        }
        let reduction = |base: f64, r: f64| if base > 0.0 { finite(100.0 * (base - r) / base) } else { None };
        let size_r = rows[2].size_mean;
        Ok(AlphaView {
            alpha,
            never_empty,
            reduction_vs_cp: reduction(rows[0].size_mean, size_r),
            reduction_vs_cp_avg: reduction(rows[1].size_mean, size_r),
            rows,
        })
    }

    /// Number of test items of the first split (the inspector's range).
    pub fn n_inspectable(&self) -> usize {
        self.calibrated[0].first().map_or(0, |c| c.test.len())
    }

    /// The item inspector (panel 7) for test item `t` of the first split at α.
    pub fn inspect(&self, t: usize, alpha: f64, never_empty: bool) -> Result<ItemView> {
        check_alpha(alpha)?;
        let nt = self.n_inspectable();
        if t >= nt {
            return Err(Error::invalid(format!("test item {t} does not exist (the split has {nt})")));
        }
        let part = &self.first;
        let item = self.calibrated[0][0].test[t];
        let label = part.labels[item];
        let k = self.k;
        let mut methods = Vec::with_capacity(3);
        for (mi, &m) in Method::ALL.iter().enumerate() {
            let cal = &self.calibrated[mi][0];
            let scores: Vec<f64> = match &part.scores[mi] {
                Some(s) => s[item * k..(item + 1) * k].to_vec(),
                None => {
                    // Pooled CP_r: `Calibrated` keeps no r-values, so this item's greedy runs
                    // again, once per item (an α move re-inspects the same item).
                    let mut memo = self.inspected.borrow_mut();
                    match memo.as_ref() {
                        Some((i, r)) if *i == item => r.clone(),
                        _ => {
                            let ps = self
                                .pooled_first
                                .as_ref()
                                .ok_or_else(|| internal("no pooled split kept for CP_r"))?;
                            let mut work = Workspace::default();
                            let (t, order) = (part.tensor(), part.order.as_ref());
                            let got = ps.items_at(t, &[item], self.key_offset, order, &mut work);
                            let r = got.first().map(|it| it.rvalues()).unwrap_or_default();
                            *memo = Some((item, r.clone()));
                            r
                        }
                    }
                }
            };
            let set = cal.set(t, alpha, never_empty);
            let mut order: Vec<usize> = (0..k).collect();
            // Ties go to the lower index, so the order is total and an unstable sort exact.
            order.sort_unstable_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
            // Members first, each side in that order (a never-empty fallback is the best
            // candidate, already first).
            let (members, others): (Vec<usize>, Vec<usize>) =
                order.into_iter().partition(|&c| set.contains(c));
            let ranked = members
                .into_iter()
                .chain(others)
                .map(|c| RankedCandidate {
                    candidate: c,
                    score: scores[c],
                    in_set: set.contains(c),
                    is_true: c == label,
                })
                .collect();
            methods.push(MethodRanking { method: m, threshold: finite(cal.threshold(t, alpha)), ranked });
        }
        Ok(ItemView { test_index: t, item, label, methods })
    }

    /// Pooled prior of the first data set (for the threshold curves); `None` if it cannot be
    /// estimated.
    pub fn hyper(&self) -> Option<Hyper> {
        self.hyper
    }

    /// The first data set's per-candidate variances `s` (the controls' variance choice).
    pub fn variances(&self) -> Vec<f64> {
        self.variances_of(self.controls.score.variance)
    }

    pub(super) fn variances_of(&self, kind: VarianceKind) -> Vec<f64> {
        let s = &self.first.summaries;
        (0..s.n).flat_map(|i| (0..s.k).map(move |c| s.s(i, c, kind))).collect()
    }

    pub(super) fn first_part(&self) -> &Part {
        &self.first
    }
}

/// A broken invariant of the job's own bookkeeping: reported as an error, because a panic would
/// kill the page.
fn internal(what: &str) -> Error {
    Error::invalid(format!("internal error in the analysis: {what}"))
}
