//! The data an analysis runs on ([`Source`]) and the tensor a part holds ([`PartTensor`]).

use std::sync::Arc;

use super::StreamedFile;
use crate::{Controls, Mode};
use rvalue_core::conformal::true_draws::{self, TrueDraws};
use rvalue_core::conformal::Split;
use rvalue_core::io::Dataset;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::toy::ToyParams;
use rvalue_core::{Error, Result};

/// The data an analysis runs on.
#[derive(Debug, Clone)]
pub enum Source {
    /// Simulate `repeats` toy data sets; repeat `r` calibrates on its first `n_cal` items.
    Toy(ToyParams),
    /// A score file with labels, split `Controls::splits` times at random.
    Data(Arc<Dataset>),
    /// A score file with labels (the test items) and calibration units given as
    /// their true label's draws alone (`conformal::true_draws`): CP, CP_avg and pooled CP_r,
    /// calibrated on `Controls::splits` random draws of the units ([`Controls::true_draws_sizes`]).
    TrueDraws(Arc<Dataset>, Arc<TrueDraws>),
    /// A score file too large to hold, read a block of items at a time by its reader (the
    /// page's workers): in the job's first phase its split-independent rows (and, with a
    /// baseline on, its class probabilities), then pooled CP_r's splits by those readers.
    Streamed(Arc<StreamedFile>),
}

impl Source {
    /// The source the controls select: the toy (with the σ² slider) or `data`.
    pub fn from_controls(controls: &Controls, data: Option<Arc<Dataset>>) -> Result<Self> {
        match controls.mode {
            Mode::Toy => Ok(Source::Toy(controls.toy_params())),
            Mode::Scores => data.map(Source::Data).ok_or_else(|| Error::invalid("no score file is loaded")),
        }
    }

    /// A score file's source calibrated on `true_draws` instead, when there are any.
    pub fn with_true_draws(self, true_draws: Option<Arc<TrueDraws>>) -> Self {
        match (self, true_draws) {
            (Source::Data(d), Some(p)) => Source::TrueDraws(d, p),
            (s, _) => s,
        }
    }
}

/// The splits of a true-draws source: `Controls::splits` seeded draws of the sizes the controls give.
pub(in crate::analysis) fn true_draws_splits(
    controls: &Controls,
    true_draws: &TrueDraws,
    n_test: usize,
) -> Result<Vec<Split>> {
    let sizes = controls.true_draws_sizes(true_draws.n(), n_test);
    true_draws::true_draws_splits(true_draws.n(), n_test, Some(sizes), controls.splits, controls.seed)
}

/// The tensor of one part: simulated or the shared file. Cheap to clone, so that work handed
/// out of the job ([`AnalysisJob::offload`](super::AnalysisJob::offload)) can hold it while the job goes on.
#[derive(Debug, Clone)]
pub enum PartTensor {
    Owned(Arc<ScoreTensor>),
    Shared(Arc<Dataset>),
    /// A file whose items are not held: only its rows are.
    Streamed(Arc<StreamedFile>),
}

impl PartTensor {
    /// The tensor; an error for a streamed file, whose items are not held.
    pub fn get(&self) -> Result<&ScoreTensor> {
        match self {
            PartTensor::Owned(t) => Ok(t),
            PartTensor::Shared(d) => Ok(&d.scores),
            PartTensor::Streamed(f) => Err(Error::invalid(format!(
                "{} is read a block at a time: its items are not held for this",
                f.name
            ))),
        }
    }

    /// Items `N`, draws `M`, candidates `K`.
    pub fn shape(&self) -> (usize, usize, usize) {
        match self {
            PartTensor::Owned(t) => (t.n(), t.m(), t.k()),
            PartTensor::Shared(d) => (d.scores.n(), d.scores.m(), d.scores.k()),
            PartTensor::Streamed(f) => f.layout.shape(),
        }
    }
}
