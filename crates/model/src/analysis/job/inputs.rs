//! What a job runs on and how: its source, the controls as the job reads them, the core's
//! options, and the work per step; checked when the job is made, so that no heavy work starts
//! on data or settings that cannot finish.

use crate::analysis::{
    test_items, true_draws_splits, Source, StreamedFile, DEFAULT_STEP_BUDGET, MAX_STORED_BYTES,
};
use crate::{Controls, Mode};
use rvalue_core::conformal::true_draws::check_methods;
use rvalue_core::conformal::{self, Method, RvalueKind, ScoreOptions};
use rvalue_core::probability::ScoresAre;
use rvalue_core::{Error, Result};

/// A job's data and settings.
#[derive(Debug)]
pub(in crate::analysis) struct Inputs {
    source: Source,
    controls: Controls,
    opts: ScoreOptions,
    /// The data has one draw per item.
    single_draw: bool,
    /// Work per step, in candidate-units.
    budget: usize,
    /// Every toy repeat's r-values in full (tests: the reference for the bounded ones).
    full_rows: bool,
}

/// A source's data sets, K, test items per split, splits in all, and whether it has one draw.
type Shape = (usize, usize, usize, usize, bool);

impl Inputs {
    /// Checks the settings and the data; the inputs and the source's data sets in all.
    pub(in crate::analysis) fn new(source: Source, controls: &Controls) -> Result<(Self, usize)> {
        let controls = controls_for(&source, controls)?;
        let (parts, k, test_per_split, splits, single_draw) = shape_of(&source, &controls)?;
        let m = match &source {
            Source::Toy(p) => p.m,
            Source::Data(d) | Source::TrueDraws(d, _) => d.scores.m(),
            Source::Streamed(f) => f.layout.shape().1,
        };
        if controls.score.cp_draw >= m {
            return Err(Error::invalid(format!(
                "CP's draw {} does not exist (M = {m})",
                controls.score.cp_draw
            )));
        }
        check_stored_bytes(&source, &controls, splits, test_per_split, k)?;
        let opts = options_for(&source, &controls);
        let inputs =
            Inputs { source, controls, opts, single_draw, budget: DEFAULT_STEP_BUDGET, full_rows: false };
        Ok((inputs, parts))
    }

    pub(in crate::analysis) fn source(&self) -> &Source {
        &self.source
    }

    pub(in crate::analysis) fn controls(&self) -> &Controls {
        &self.controls
    }

    pub(in crate::analysis) fn opts(&self) -> &ScoreOptions {
        &self.opts
    }

    pub(in crate::analysis) fn single_draw(&self) -> bool {
        self.single_draw
    }

    pub(in crate::analysis) fn budget(&self) -> usize {
        self.budget
    }

    /// Sets the work per step (at least 1).
    pub(in crate::analysis) fn set_budget(&mut self, budget: usize) {
        self.budget = budget.max(1);
    }

    pub(in crate::analysis) fn full_rows(&self) -> bool {
        self.full_rows
    }

    /// Tests: every toy repeat's r-values in full.
    #[cfg(test)]
    pub(in crate::analysis) fn set_full_rows(&mut self) {
        self.full_rows = true;
    }

    /// Whether this is pooled CP_r on a streamed file.
    pub(in crate::analysis) fn streamed_pooled(&self) -> bool {
        matches!(self.source, Source::Streamed(_)) && self.opts.kind == RvalueKind::Pooled
    }

    /// The controls and the source, for the finished analysis.
    pub(in crate::analysis) fn into_parts(self) -> (Controls, Source) {
        (self.controls, self.source)
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
        Source::Data(_) | Source::TrueDraws(..) | Source::Streamed(_) => controls.mode = Mode::Scores,
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

/// The source's [`Shape`]; checks the data and the split sizes now rather than after the
/// r-values.
fn shape_of(source: &Source, controls: &Controls) -> Result<Shape> {
    let d = match source {
        Source::Toy(p) => return Ok((p.repeats, p.k, p.n_test, p.repeats, p.m == 1)),
        Source::Data(d) | Source::TrueDraws(d, _) => d,
        Source::Streamed(f) => return streamed_shape(f, controls),
    };
    let labels = d.labels.as_ref().ok_or_else(|| Error::invalid("the score file has no labels"))?;
    conformal::check_data(&d.scores, labels)?;
    let n = d.scores.n();
    let n_test = match source {
        Source::TrueDraws(_, true_draws) => {
            if true_draws.m() != d.scores.m() {
                return Err(Error::shape(format!(
                    "the pool has M = {} draws, the test items M = {}",
                    true_draws.m(),
                    d.scores.m()
                )));
            }
            // True-label draws alone: CP_r must be the pooled kind.
            check_methods(&[Method::CpR], &controls.score)?;
            true_draws_splits(controls, true_draws, n)?;
            n
        }
        _ => test_items(n, controls)?,
    };
    Ok((1, d.scores.k(), n_test, controls.splits, d.single_draw || d.scores.m() == 1))
}

/// [`shape_of`] for a streamed file.
fn streamed_shape(f: &StreamedFile, controls: &Controls) -> Result<Shape> {
    let (n, m, k) = f.layout.shape();
    Ok((1, k, test_items(n, controls)?, controls.splits, f.layout.single_draw() || m == 1))
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
