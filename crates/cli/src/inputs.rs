//! What the commands read and check before they compute: score files, labels, a split mask, the
//! list of methods, and the warnings on data that limits what results mean.

use std::path::Path;

use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::Streaming;
use rvalue_core::conformal::warnings::{self, Facts};
use rvalue_core::conformal::{self, Method, RvalueKind, ScoreOptions, Split};
use rvalue_core::io::{self, Dataset};
use rvalue_core::probability::{self, ScoresAre};
use rvalue_core::tensor::ScoreTensor;

use crate::{display, fail, read_file, CliError, CliResult};

/// A `.npy` is streamed into its tensor, never held as bytes beside it.
pub(crate) fn read_scores_file(path: &Path) -> CliResult<Dataset> {
    Ok(io::read_scores_file(path)?)
}

/// The labels of `data` (read from `scores`): from the file `given` by option `flag`, else the
/// ones `data` carried (taken out of it).
pub(crate) fn labels_of(
    data: &mut Dataset,
    scores: &Path,
    given: Option<&Path>,
    flag: &str,
) -> CliResult<Vec<usize>> {
    let (n, k) = (data.scores.n(), data.scores.k());
    labels_or(data.labels.take(), given, (n, k), || no_labels(scores, flag))
}

/// Labels of `n` items in `0..k`: from the file `given`, else those the scores `carried`, else
/// what `missing` says.
pub(crate) fn labels_or(
    carried: Option<Vec<usize>>,
    given: Option<&Path>,
    (n, k): (usize, usize),
    missing: impl FnOnce() -> CliResult<Vec<usize>>,
) -> CliResult<Vec<usize>> {
    match (given, carried) {
        (Some(path), _) => Ok(io::read_labels(&display(path), &read_file(path)?, n, k)?),
        (None, Some(l)) => Ok(l),
        (None, None) => missing(),
    }
}

/// The scores at `scores` carry no labels and option `flag` gave none.
pub(crate) fn no_labels<T>(scores: &Path, flag: &str) -> CliResult<T> {
    fail(format!(
        "{}: the scores carry no labels; give {flag} Y.npy (or an .npz with a 'labels' member, \
         or a long-form CSV with a 'label' column)",
        display(scores)
    ))
}

pub(crate) fn read_split(path: &Path, n: usize) -> CliResult<Split> {
    let mask = io::read_mask(&display(path), &read_file(path)?, n)?;
    Split::from_mask(&mask).map_err(|e| CliError(format!("{}: {e}", display(path))))
}

/// The methods in the given order (default the paper's three), refusing duplicates.
pub(crate) fn methods_of(given: &[Method]) -> CliResult<Vec<Method>> {
    if given.is_empty() {
        return Ok(Method::PAPER.to_vec());
    }
    for (i, m) in given.iter().enumerate() {
        if given[..i].contains(m) {
            return fail(format!("--method lists {} twice", m.name()));
        }
    }
    Ok(given.to_vec())
}

/// Notes on data that is accepted but limits what the results mean (the core's
/// `conformal::warnings`, in the words every face uses). Called once every input is read, so
/// that a refused file still gets a message of one line only.
pub(crate) fn warn_data(facts: &Facts) {
    for w in warnings::check(facts) {
        eprintln!("rvalue: warning: {w}");
    }
}

/// The facts the warnings read: the data's shape and labels, a split's calibration size.
pub(crate) fn facts<'a>(
    (m, k): (usize, usize),
    labels: &'a [usize],
    n_cal: Option<usize>,
    (alpha, methods, kind): (f64, &'a [Method], RvalueKind),
) -> Facts<'a> {
    Facts { m, k, labels, n_cal, alpha, methods, kind }
}

/// `opts` with the baselines' reading of the scores decided (`auto` on the data, an explicit
/// one checked where it can be), `auto`'s choice reported on stderr: `None` when no baseline
/// runs.
pub(crate) fn reading_of(
    scores: ReadFrom<'_>,
    methods: &[Method],
    opts: ScoreOptions,
) -> CliResult<(ScoreOptions, Option<ScoresAre>)> {
    if !methods.iter().any(|m| m.is_baseline()) {
        return Ok((opts, None));
    }
    opts.baseline.check()?;
    let asked = opts.scores_are;
    let got = match scores {
        ReadFrom::Whole(t) => probability::resolve(t, asked)?,
        ReadFrom::Blocks(src) => {
            conformal::streamed::reading(src, asked, &Streaming::default(), &mut |_, _, _| {})?
        }
    };
    // An explicit reading is the user's own (and a streamed file's is checked as it is read).
    if asked == ScoresAre::Auto {
        eprintln!("rvalue: APS, RAPS and SAPS read the scores as {got} (--scores-are auto)");
    }
    Ok((ScoreOptions { scores_are: got, ..opts }, Some(got)))
}

/// Scores the baselines' reading is decided on.
pub(crate) enum ReadFrom<'a> {
    Whole(&'a ScoreTensor),
    Blocks(&'a dyn ScoreBlocks),
}

impl<'a> From<&'a crate::streamed::Scores> for ReadFrom<'a> {
    fn from(s: &'a crate::streamed::Scores) -> Self {
        match s {
            crate::streamed::Scores::Whole(d) => ReadFrom::Whole(&d.scores),
            crate::streamed::Scores::Streamed(f) => ReadFrom::Blocks(f),
        }
    }
}
