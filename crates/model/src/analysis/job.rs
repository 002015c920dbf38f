//! [`AnalysisJob`]: an analysis built in bounded steps, parts of which can be handed out to
//! other threads; its state machine is here, its steps in [`steps`], and its state in owned
//! parts: the inputs ([`inputs`]), the data sets' queue ([`part_queue`]), pooled CP_r's splits
//! ([`split_queue`]), the data set at work ([`part_work`]), the results recorded so far
//! ([`recorded`]), a streamed file's pass ([`pass`]) and the baselines ([`baseline`]).

mod baseline;
mod claims;
mod estimate;
mod inputs;
mod offloaded;
mod one_shot;
mod part_queue;
mod part_work;
mod pass;
mod recorded;
mod split_groups;
mod split_queue;
mod steps;
mod threads;

pub(in crate::analysis) use claims::Claim;

use super::{internal, Analysis, Progress, Source, CP_R};
use crate::Controls;
use baseline::BaselineWork;
use claims::Claims;
use inputs::Inputs;
use part_queue::PartQueue;
use part_work::PartWork;
use recorded::Recorded;
use rvalue_core::conformal::{Method, RvalueKind};
use rvalue_core::{Error, Result};
use split_queue::SplitQueue;

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

/// Builds an [`Analysis`] in bounded steps. Dropping it cancels the work.
#[derive(Debug)]
pub struct AnalysisJob {
    inputs: Inputs,
    phase: Phase,
    parts: PartQueue,
    /// A score file's pooled CP_r, per split (empty otherwise).
    splits: SplitQueue,
    work: PartWork,
    recorded: Recorded,
    /// A streamed file's pass, while it runs.
    pass: Option<pass::Pass>,
    /// Whether the job reads the file's shares (its rows were not kept).
    read_file: bool,
    /// The baselines that are on, and their results.
    baseline: BaselineWork,
}

impl AnalysisJob {
    /// Checks the settings and the data; no heavy work happens here.
    pub fn new(source: Source, controls: &Controls) -> Result<Self> {
        let (inputs, parts_total) = Inputs::new(source, controls)?;
        let splits = SplitQueue::new(split_claims(inputs.source(), inputs.controls()));
        let methods = inputs.controls().methods();
        let baselines = check_baselines(inputs.source(), &methods)?;
        Ok(AnalysisJob {
            parts: PartQueue::new(parts_total),
            splits,
            work: PartWork::default(),
            phase: Phase::Load,
            recorded: Recorded::new(methods.len()),
            pass: None,
            read_file: false,
            baseline: BaselineWork::new(baselines),
            inputs,
        })
    }

    /// Sets the work per step (candidate-units, at least 1).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.inputs.set_budget(budget);
        self
    }

    /// Tests: computes every toy repeat's r-values in full.
    #[cfg(test)]
    pub(crate) fn with_full_rows(mut self) -> Self {
        self.inputs.set_full_rows();
        self
    }

    /// The fraction of the work done, in `[0, 1]`.
    pub fn fraction_done(&self) -> f64 {
        self.fraction_with(None)
    }

    /// [`AnalysisJob::fraction_done`], with the current step's own progress replaced by
    /// `step_done` (work done outside the job, [`AnalysisJob::offload`]).
    fn fraction_with(&self, step_done: Option<f64>) -> f64 {
        if let Some(f) = self.streamed_pooled_fraction() {
            return f.clamp(0.0, 1.0);
        }
        let parts = self.parts.total() as f64;
        // Weights: the parts (load, scores, calibration) 90 %, the α sweep 10 %.
        // Weights within a part: loading 10 %, scores 60 %, calibration and its α sweep 30 %.
        let within = match (self.phase, self.work.part()) {
            (Phase::Load, _) => 0.0,
            (Phase::Pass, _) => 0.7 * self.pass.as_ref().map_or(0.0, |p| p.fraction()),
            (Phase::Scores { method, next }, Some(p)) => {
                let n = p.labels().len().max(1) as f64;
                0.1 + 0.6 * (method as f64 + step_done.unwrap_or(next as f64 / n)) / 3.0
            }
            (Phase::Calibrate { next, method }, Some(p)) => {
                let within_method = step_done.unwrap_or_else(|| {
                    self.work
                        .pooled_done()
                        .map_or(0.0, |done| done as f64 / p.splits()[next].test.len().max(1) as f64)
                });
                0.7 + 0.3 * (next as f64 + (method as f64 + within_method) / 3.0)
                    / p.splits().len().max(1) as f64
            }
            (Phase::Waiting, Some(_)) => {
                0.7 + 0.3 * self.recorded.splits(CP_R) as f64 / self.splits.len().max(1) as f64
            }
            _ => 0.0,
        };
        let done = self.parts.done() as f64;
        let f = match self.phase {
            Phase::Done => 1.0,
            _ => (done + within) / parts,
        };
        self.with_baselines(f.clamp(0.0, 1.0))
    }

    /// What the next step does, for the progress bar ("repeat 3/50: r-values", …).
    pub fn describe(&self) -> String {
        let what = match self.phase {
            Phase::Load => match self.inputs.source() {
                Source::Toy(_) => "simulating",
                Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_) => "summarising",
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
                let m = self.baseline.label(method);
                return format!("baselines: {m}, split {}", next + 1);
            }
            Phase::Waiting => {
                let (what, done, all) = match self.inputs.source() {
                    Source::Toy(_) => ("repeats", self.parts.recorded(), self.parts.total()),
                    _ => ("splits", self.recorded.splits(CP_R), self.splits.len()),
                };
                return format!("{what} {done}/{all}: waiting for other threads");
            }
            Phase::Done => return "done".to_string(),
        };
        match self.inputs.source() {
            Source::Toy(_) => format!("repeat {}/{}: {what}", self.parts.index() + 1, self.parts.total()),
            Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_) => what.to_string(),
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
        (self.parts.recorded(), self.parts.total())
    }

    /// The analysis of the toy repeats recorded so far, to show while the rest is computed
    /// (`None` before the first is recorded, and for score files, which are one data set); equal
    /// to the finished analysis of that many repeats.
    pub fn partial(&self) -> Option<Analysis> {
        let first = self.work.first()?;
        // Between parts every method holds the same splits and the sums match them.
        let done = self.parts.recorded();
        if done == 0 || !matches!(self.inputs.source(), Source::Toy(_)) {
            return None;
        }
        let (calibrated, label_info, sweeps) = self.recorded.first(done)?;
        let calibrations = BaselineWork::default().calibrations(calibrated, label_info);
        let mut controls = self.inputs.controls().clone();
        controls.toy.repeats = done;
        let (source, single_draw) = (self.inputs.source(), self.inputs.single_draw());
        Analysis::assemble(controls, source, first.clone(), single_draw, calibrations, sweeps).ok()
    }

    /// The finished analysis; an error if steps remain.
    pub fn finish(self) -> Result<Analysis> {
        if self.phase != Phase::Done {
            return Err(Error::invalid("the analysis is not finished: call step() until it reports Done"));
        }
        let first = self.work.into_first().ok_or_else(|| internal("the first part was not kept"))?;
        let single_draw = self.inputs.single_draw();
        let (controls, source) = self.inputs.into_parts();
        let (calibrated, label_info, sweeps) = self.recorded.into_parts();
        let calibrations = self.baseline.calibrations(calibrated, label_info);
        Analysis::assemble(controls, &source, first, single_draw, calibrations, sweeps)
    }

    /// Whether this is pooled CP_r on a streamed file (its splits are calibrated by threads
    /// that read the file, never by the job).
    pub fn streamed_pooled(&self) -> bool {
        self.inputs.streamed_pooled()
    }
}

/// The baselines among `methods`; refused on true-label draws, whose candidates' draws are not
/// all held.
fn check_baselines(source: &Source, methods: &[Method]) -> Result<Vec<Method>> {
    let on: Vec<Method> = methods.iter().copied().filter(|m| m.is_baseline()).collect();
    match (source, on.first()) {
        (Source::TrueDraws(..), Some(m)) => Err(Error::invalid(format!(
            "{} needs every class's probability of a calibration item, and a pool of true-label \
             draws gives its true label's only: turn the baselines off for this pool",
            m.label()
        ))),
        _ => Ok(on),
    }
}

/// Who calibrates a score file's pooled splits: they can be handed out, the first staying with
/// the job; a streamed file's are all calibrated by threads that read it. Empty otherwise.
fn split_claims(source: &Source, controls: &Controls) -> Claims {
    match source {
        _ if controls.score.kind != RvalueKind::Pooled => Claims::default(),
        Source::Data(_) => Claims::new(controls.splits, true),
        Source::Streamed(_) => Claims::new(controls.splits, false),
        Source::Toy(_) | Source::TrueDraws(..) => Claims::default(),
    }
}

/// Bytes as a reader counts them: "812 MB", "4.0 GB".
fn bytes_text(b: u64) -> String {
    match b as f64 {
        x if x < 1e9 => format!("{:.0} MB", x / 1e6),
        x => format!("{:.1} GB", x / 1e9),
    }
}
