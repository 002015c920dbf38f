//! [`AnalysisJob`]: an analysis built in bounded steps, parts of which can be handed out to
//! other threads; its state machine is here, its steps in [`steps`].

mod baseline;
mod pass;
mod steps;

pub(in crate::analysis) use baseline::{BaselineWork, FIRST_BASELINE};

use std::collections::BTreeMap;

use super::{
    internal, pool_split_list, test_items, Analysis, Calibrations, LabelInfo, Part, Progress, Source,
    SweepCurves, CP_R, DEFAULT_STEP_BUDGET, MAX_STORED_BYTES,
};
use crate::{Controls, Mode};
use rvalue_core::conformal::true_draws::check_methods;
use rvalue_core::conformal::{self, Calibrated, Method, PooledBuilder, RvalueKind, ScoreOptions};
use rvalue_core::eb::Hyper;
use rvalue_core::probability::ScoresAre;
use rvalue_core::{Error, Result};

/// Where the job is: what its next step does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::analysis) enum Phase {
    Load,
    /// A streamed file's shares are being read and scored ([`pass`]).
    Pass,
    Scores {
        method: usize,
        next: usize,
    },
    Calibrate {
        next: usize,
        method: usize,
    },
    /// Baseline `method` (among those on) on split `next` of data set `part`, once the
    /// paper's methods are recorded.
    Baseline {
        part: usize,
        method: usize,
        next: usize,
    },
    /// Every part is computed or handed out; some handed out are not back yet.
    Waiting,
    Done,
}

/// Who computes a part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::analysis) enum Claim {
    Free,
    /// The job itself (the part it is at, or one it finished).
    Job,
    /// Handed out to another thread ([`AnalysisJob::hand_out`]).
    Out,
}

/// Builds an [`Analysis`] in bounded steps. Dropping it cancels the work.
#[derive(Debug)]
pub struct AnalysisJob {
    pub(in crate::analysis) source: Source,
    pub(in crate::analysis) controls: Controls,
    pub(in crate::analysis) opts: ScoreOptions,
    pub(in crate::analysis) parts_total: usize,
    /// The part the job is computing (parts may finish out of order when some are handed out).
    pub(in crate::analysis) part_index: usize,
    /// Parts recorded into `calibrated` and the sweeps, which take them in part order.
    pub(in crate::analysis) recorded: usize,
    pub(in crate::analysis) claims: Vec<Claim>,
    /// Finished parts not yet recorded: their calibrations, per split in `Method::PAPER` order.
    pub(in crate::analysis) finished: BTreeMap<usize, Vec<Calibrated>>,
    /// The current part's calibrations so far.
    pub(in crate::analysis) current: Vec<Calibrated>,
    /// Computing one part for another thread ([`AnalysisJob::part_alone`]): stop after it.
    pub(in crate::analysis) alone: bool,
    pub(in crate::analysis) part: Option<Part>,
    pub(in crate::analysis) first_part: Option<Part>,
    pub(in crate::analysis) phase: Phase,
    pub(in crate::analysis) budget: usize,
    pub(in crate::analysis) calibrated: [Vec<Calibrated>; 3],
    pub(in crate::analysis) label_info: [Vec<LabelInfo>; 3],
    /// `[never_empty = false, true]`.
    pub(in crate::analysis) sweeps: [SweepCurves; 2],
    pub(in crate::analysis) single_draw: bool,
    /// The pooled prior of the current part (parametric CP_r with `Prior::Pooled`).
    pub(in crate::analysis) part_hyper: Option<Hyper>,
    /// Pooled CP_r of the split being calibrated.
    pub(in crate::analysis) pooled: Option<PooledBuilder>,
    /// A pool's calibration units' CP and CP_avg scores, once computed.
    pub(in crate::analysis) unit_scores: [Option<Vec<f64>>; 3],
    /// Every toy repeat's r-values in full (tests: the reference for the bounded ones).
    pub(in crate::analysis) full_rows: bool,
    /// A score file's pooled CP_r, per split: who calibrates it (splits can be handed out like
    /// toy repeats); empty otherwise.
    pub(in crate::analysis) split_claims: Vec<Claim>,
    /// Splits of the current part whose CP and CP_avg are done.
    pub(in crate::analysis) split_next: usize,
    /// Pooled CP_r of splits done before their turn to be recorded (one each; the map's type
    /// is `finished`'s, which keeps the page's wasm from holding a second copy of its code).
    pub(in crate::analysis) by_split: BTreeMap<usize, Vec<Calibrated>>,
    /// A streamed file's pass, while it runs.
    pub(in crate::analysis) pass: Option<pass::Pass>,
    /// Whether the job reads the file's shares (its rows were not kept).
    pub(in crate::analysis) read_file: bool,
    /// The baselines that are on, and their results.
    pub(in crate::analysis) baseline: BaselineWork,
}

impl AnalysisJob {
    /// Checks the settings and the data; no heavy work happens here.
    pub fn new(source: Source, controls: &Controls) -> Result<Self> {
        let controls = controls_for(&source, controls)?;
        let (parts_total, k, test_per_split, splits, single_draw) = Self::shape_of(&source, &controls)?;
        let m = match &source {
            Source::Toy(p) => p.m,
            Source::Data(d) | Source::Pool(d, _) => d.scores.m(),
            Source::Streamed(f) => f.layout.shape().1,
        };
        if controls.score.cp_draw >= m {
            return Err(Error::invalid(format!(
                "CP's draw {} does not exist (M = {m})",
                controls.score.cp_draw
            )));
        }
        check_stored_bytes(&source, &controls, splits, test_per_split, k)?;
        let split_claims = split_claims(&source, &controls);
        let methods = controls.methods();
        let baselines = check_baselines(&source, &methods)?;
        Ok(AnalysisJob {
            opts: options_for(&source, &controls),
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
            sweeps: [SweepCurves::zero(false, methods.len()), SweepCurves::zero(true, methods.len())],
            single_draw,
            part_hyper: None,
            full_rows: false,
            pooled: None,
            unit_scores: [None, None, None],
            split_claims,
            split_next: 0,
            by_split: BTreeMap::new(),
            pass: None,
            read_file: false,
            baseline: BaselineWork::new(baselines),
            source,
        })
    }

    /// The source's data sets, K, test items per split, splits in all, and whether it has one
    /// draw; checks the data and the split sizes now rather than after the r-values.
    pub(in crate::analysis) fn shape_of(
        source: &Source,
        controls: &Controls,
    ) -> Result<(usize, usize, usize, usize, bool)> {
        let d = match source {
            Source::Toy(p) => return Ok((p.repeats, p.k, p.n_test, p.repeats, p.m == 1)),
            Source::Data(d) | Source::Pool(d, _) => d,
            Source::Streamed(f) => return Self::streamed_shape(f, controls),
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
            _ => test_items(n, controls)?,
        };
        Ok((1, d.scores.k(), n_test, controls.splits, d.single_draw || d.scores.m() == 1))
    }

    /// [`AnalysisJob::shape_of`] for a streamed file.
    fn streamed_shape(
        f: &super::StreamedFile,
        controls: &Controls,
    ) -> Result<(usize, usize, usize, usize, bool)> {
        let (n, m, k) = f.layout.shape();
        Ok((1, k, test_items(n, controls)?, controls.splits, f.layout.single_draw() || m == 1))
    }

    /// Sets the work per step (candidate-units, at least 1).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget.max(1);
        self
    }

    /// Tests: computes every toy repeat's r-values in full.
    #[cfg(test)]
    pub(crate) fn with_full_rows(mut self) -> Self {
        self.full_rows = true;
        self
    }

    /// The fraction of the work done, in `[0, 1]`.
    pub fn fraction_done(&self) -> f64 {
        self.fraction_with(None)
    }

    /// [`AnalysisJob::fraction_done`], with the current step's own progress replaced by
    /// `step_done` (work done outside the job, [`AnalysisJob::offload`]).
    pub(in crate::analysis) fn fraction_with(&self, step_done: Option<f64>) -> f64 {
        if let Some(f) = self.streamed_pooled_fraction() {
            return f.clamp(0.0, 1.0);
        }
        let parts = self.parts_total as f64;
        // Weights: the parts (load, scores, calibration) 90 %, the α sweep 10 %.
        // Weights within a part: loading 10 %, scores 60 %, calibration and its α sweep 30 %.
        let within = match (self.phase, &self.part) {
            (Phase::Load, _) => 0.0,
            (Phase::Pass, _) => 0.7 * self.pass.as_ref().map_or(0.0, |p| p.fraction()),
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
        self.with_baselines(f.clamp(0.0, 1.0))
    }

    /// What the next step does, for the progress bar ("repeat 3/50: r-values", …).
    pub fn describe(&self) -> String {
        let what = match self.phase {
            Phase::Load => match self.source {
                Source::Toy(_) => "simulating",
                Source::Data(_) | Source::Pool(..) | Source::Streamed(_) => "summarising",
            },
            Phase::Pass => {
                let (done, all) = self.pass.as_ref().map_or((0, 0), |p| p.bytes());
                return format!("reading the file: {} of {}", bytes_text(done), bytes_text(all));
            }
            Phase::Scores { method, .. } => match Method::PAPER[method] {
                Method::CpR => "r-values",
                _ => "scores",
            },
            Phase::Calibrate { .. } => "calibrating",
            Phase::Baseline { method, next, .. } => {
                let m = self.baseline.methods.get(method).map_or("", |m| m.label());
                return format!("baselines: {m}, split {}", next + 1);
            }
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
            Source::Data(_) | Source::Pool(..) | Source::Streamed(_) => what.to_string(),
        }
    }

    /// Does a bounded slice of work: loading or simulating one data set, one chunk of r-values,
    /// or the calibration of one method on one split (with its share of the α sweep). Errors end
    /// the job.
    pub fn step(&mut self) -> Result<Progress> {
        let busy = match self.phase {
            Phase::Load => self.load().map(|_| true)?,
            Phase::Pass => self.pass_step()?,
            Phase::Scores { method, next } => self.scores(method, next).map(|_| true)?,
            Phase::Calibrate { next, method } => self.calibrate(next, method).map(|_| true)?,
            Phase::Baseline { part, method, next } => self.baseline_step(part, method, next).map(|_| true)?,
            Phase::Waiting | Phase::Done => false,
        };
        Ok(match self.phase {
            Phase::Done => Progress::Done,
            Phase::Pass if !busy => Progress::Waiting(self.fraction_done()),
            Phase::Waiting => Progress::Waiting(self.fraction_done()),
            _ => Progress::Working(self.fraction_done()),
        })
    }

    /// Runs every remaining step.
    pub fn run(mut self) -> Result<Analysis> {
        while self.step()? != Progress::Done {}
        self.finish()
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
        // The baselines come after every repeat: a partial analysis shows the paper's three.
        let sweeps = self.sweeps.clone().map(|mut sw| {
            sw.truncate(FIRST_BASELINE);
            sw.mean_over(done);
            sw
        });
        let calibrations = Calibrations::of(calibrated, label_info, BaselineWork::default());
        let mut controls = self.controls.clone();
        controls.toy.repeats = done;
        Analysis::assemble(controls, &self.source, first.clone(), self.single_draw, calibrations, sweeps).ok()
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
            Calibrations::of(self.calibrated, self.label_info, self.baseline),
            self.sweeps,
        )
    }
}

/// The controls as the job sees them: the source, not the form, decides the mode (and a toy's
/// settings), and they are checked then.
fn controls_for(source: &Source, controls: &Controls) -> Result<Controls> {
    let mut controls = controls.clone();
    match source {
        Source::Toy(p) => {
            controls.mode = Mode::Toy;
            controls.toy = p.clone();
            controls.sigma2 = p.sigma2;
        }
        Source::Data(_) | Source::Pool(..) | Source::Streamed(_) => controls.mode = Mode::Scores,
    }
    controls.validate()?;
    Ok(controls)
}

/// The core's options for `source`: a toy's draws are logits (the simulation draws scores on
/// the real line), read so whatever the form's reading of score files says.
fn options_for(source: &Source, controls: &Controls) -> ScoreOptions {
    let opts = controls.score_options();
    match source {
        Source::Toy(_) => ScoreOptions { scores_are: ScoresAre::Logits, ..opts },
        _ => opts,
    }
}

/// The baselines among `methods`; refused on a pool, whose candidates' draws are not all held.
fn check_baselines(source: &Source, methods: &[Method]) -> Result<Vec<Method>> {
    let on: Vec<Method> = methods.iter().copied().filter(|m| m.is_baseline()).collect();
    match (source, on.first()) {
        (Source::Pool(..), Some(m)) => Err(Error::invalid(format!(
            "{} needs every class's probability of a calibration item, and a pool of true-label \
             draws gives its true label's only: turn the baselines off for this pool",
            m.label()
        ))),
        _ => Ok(on),
    }
}

/// Refuses a job whose stored scores would not fit in memory, before any is computed.
fn check_stored_bytes(
    source: &Source,
    controls: &Controls,
    splits: usize,
    test_per_split: usize,
    k: usize,
) -> Result<()> {
    // A toy repeat, or a file's one split, keeps its test rows (sorted too) per method; a
    // file's splits share the file's rows, and only pooled CP_r keeps steps per split.
    let shared_rows = !matches!(source, Source::Toy(_)) && splits > 1;
    let per_candidate = match (shared_rows, controls.score.kind == RvalueKind::Pooled) {
        (false, _) => 3.0 * 16.0,
        (true, true) => 4.0,
        (true, false) => 0.0,
    };
    let bytes = per_candidate * splits as f64 * test_per_split as f64 * k as f64;
    if bytes > MAX_STORED_BYTES {
        return Err(Error::invalid(format!(
            "{splits} splits × {test_per_split} test items × K = {k} need {:.1} GiB of stored scores; \
             use fewer splits",
            bytes / MAX_STORED_BYTES
        )));
    }
    Ok(())
}

/// Who calibrates a score file's pooled splits: they can be handed out, the first staying with
/// the job; a streamed file's are all calibrated by threads that read it. Empty otherwise.
fn split_claims(source: &Source, controls: &Controls) -> Vec<Claim> {
    match source {
        _ if controls.score.kind != RvalueKind::Pooled => Vec::new(),
        Source::Data(_) => {
            (0..controls.splits).map(|r| if r == 0 { Claim::Job } else { Claim::Free }).collect()
        }
        Source::Streamed(_) => vec![Claim::Free; controls.splits],
        Source::Toy(_) | Source::Pool(..) => Vec::new(),
    }
}

/// Bytes as a reader counts them: "812 MB", "4.0 GB".
fn bytes_text(b: u64) -> String {
    match b as f64 {
        x if x < 1e9 => format!("{:.0} MB", x / 1e6),
        x => format!("{:.1} GB", x / 1e9),
    }
}
