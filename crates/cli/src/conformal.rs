//! `rvalue conformal`: each method's coverage and set size over repeated splits, at one α or
//! several (one row per α and method, α first, every α from the same splits).

use std::path::Path;

use rvalue_core::conformal::{self, Method, ScoreOptions, Split, SplitPlan, Summary};
use rvalue_core::probability::ScoresAre;
use rvalue_core::tensor::ScoreTensor;

use crate::args::{ConformalArgs, FormatArg};
use crate::device::{for_each_split, Pass, Probe, Ranker};
use crate::inputs::{facts, methods_of, read_split, reading_of, warn_data};
use crate::output::{self, Progress};
use crate::{calibration_true, print_stdout, streamed, write_file, CliError, CliResult};

pub(crate) fn run_conformal(a: &ConformalArgs) -> CliResult<()> {
    let methods = methods_of(&a.score.methods.list)?;
    let opts = a.score.options();
    let alphas = &a.score.alpha.0;
    // The warnings' α: below 1/(n_cal + 1) the smallest is the first to fill every set.
    let lowest = alphas.iter().copied().fold(1.0, f64::min);
    let at = (lowest, a.score.method.never_empty, a.score.threads());
    let probe = Probe::start(a.score.device, &methods, &opts);
    if let Some(path) = &a.calibration_true.calibration_true {
        return run_on_true_draws(a, path, &methods, &opts, at, probe);
    }
    let (scores, labels) = streamed::open_scores(&a.data)?;
    let (n, m, k) = streamed::shape(&scores);
    let (opts, reading) = reading_of((&scores).into(), &methods, opts)?;
    let plan = match &a.split {
        Some(path) => SplitPlan::Fixed(read_split(path, n)?.keyed(a.seed, 0)),
        None => SplitPlan::Random { count: a.splits, cal_fraction: a.cal_fraction, seed: a.seed },
    };
    let splits = plan.splits(n)?;
    if let Some(dir) = &a.save_splits {
        save_splits(dir, &splits, n)?;
    }
    let n_cal = splits.iter().map(|s| s.cal.len()).min();
    warn_data(&facts((m, k), &labels, n_cal, (at.0, &methods, opts.kind)));
    let rows = match &scores {
        streamed::Scores::Streamed(file) => {
            let ranker = streamed::GpuBlocks::of(probe.open()?);
            let mut rows = Vec::new();
            for &alpha in alphas {
                let at = streamed::At { alpha, never_empty: at.1, threads: at.2, ranker: ranker.as_ref() };
                rows.extend(streamed::summaries(file, &labels, &methods, &opts, &splits, &at)?);
            }
            rows
        }
        streamed::Scores::Whole(data) => {
            let ranker = probe.finish(&data.scores)?;
            let at = (&alphas[..], at.1, at.2);
            whole_summaries(&data.scores, &labels, ranker, &methods, &opts, &splits, at)?
        }
    };
    print_rows(a.format, &rows, reading)
}

/// `conformal --calibration-true`: the test items of `--scores` against splits of the
/// true-label draws at `path`.
fn run_on_true_draws(
    a: &ConformalArgs,
    path: &Path,
    methods: &[Method],
    opts: &ScoreOptions,
    at: (f64, bool, usize),
    probe: Probe,
) -> CliResult<()> {
    let alphas = &a.score.alpha.0;
    let classes = calibration_true::Classes {
        path: a.calibration_true.calibration_labels.as_deref(),
        coverage: opts.coverage,
    };
    let (test, labels, true_draws, (m, k)) = calibration_true::open(classes, methods, &a.data, path)?;
    let n_cal = Some(a.cal_size.unwrap_or(true_draws.n()));
    // The test items' labels are left alone: true draws' may be placeholders.
    warn_data(&facts((m, k), &[], n_cal, (at.0, methods, opts.kind)));
    let sizes = a.cal_size.zip(a.test_size);
    let count = if sizes.is_some() { a.splits } else { 1 };
    let ranker = streamed::GpuBlocks::of(probe.open()?);
    let (plan, run) = ((sizes, count, a.seed), (at.2, ranker.as_ref()));
    let mut rows = Vec::new();
    for &alpha in alphas {
        rows.extend(calibration_true::summaries(
            &true_draws,
            &test,
            &labels,
            methods,
            opts,
            plan,
            (alpha, at.1),
            run,
        )?);
    }
    print_rows(a.format, &rows, None)
}

/// Each split's mask as `DIR/split_<r>.npy`, numbered with as many digits as the last needs, so
/// that the files sort in split order.
fn save_splits(dir: &Path, splits: &[Split], n: usize) -> CliResult<()> {
    std::fs::create_dir_all(dir).map_err(|e| CliError(format!("{}: cannot create: {e}", dir.display())))?;
    let width = splits.len().saturating_sub(1).to_string().len();
    for (r, s) in splits.iter().enumerate() {
        let path = dir.join(format!("split_{r:0width$}.npy"));
        write_file(&path, &rvalue_core::io::write_npy_bool(&[n], &s.mask(n)))?;
    }
    Ok(())
}

/// The rows as `--format` asks; a baseline's JSON row names the scores' `reading`.
pub(crate) fn print_rows(format: FormatArg, rows: &[Summary], reading: Option<ScoresAre>) -> CliResult<()> {
    for s in rows {
        let k = s.size_histogram.len().saturating_sub(1);
        output::warn_unbounded(s.method, s.unbounded_classes.unwrap_or(0), k, s.alpha, " in some split");
    }
    print_stdout(&match format {
        FormatArg::Csv => output::summary_csv(rows),
        FormatArg::Json => output::summary_json(rows, reading),
    })
}

/// `conformal`'s rows for a tensor held in memory, each method's splits on the GPU where it
/// ranks: each split is calibrated once and measured at every α (rows α first, then method).
pub(crate) fn whole_summaries(
    t: &ScoreTensor,
    labels: &[usize],
    mut ranker: Ranker,
    methods: &[Method],
    opts: &ScoreOptions,
    splits: &[Split],
    (alphas, never_empty, threads): (&[f64], bool, usize),
) -> CliResult<Vec<Summary>> {
    conformal::check_data(t, labels)?;
    let mut progress = Progress::new();
    // rows[a][j]: α `a`, method `j`.
    let mut rows = vec![Vec::with_capacity(methods.len()); alphas.len()];
    // Split-independent, so made once for every method and split.
    let ranks = conformal::difficulty_of(t, labels)?;
    for &method in methods {
        let mut measured = vec![(Vec::new(), Vec::new(), Vec::new()); alphas.len()];
        let prep = Pass::new(t, labels, method, opts, &ranker)?;
        for_each_split(&prep, &mut ranker, method, opts, splits, threads, &mut progress, |c| {
            for (&alpha, (metrics, sizes, tallies)) in alphas.iter().zip(measured.iter_mut()) {
                let (m, s, tl) = c.measure(alpha, never_empty, &ranks);
                metrics.push(m);
                sizes.push(s);
                tallies.push(tl);
            }
        })?;
        for ((&alpha, (metrics, sizes, tallies)), out) in alphas.iter().zip(&measured).zip(&mut rows) {
            out.push(conformal::summarize_with(method, alpha, metrics, sizes, t.k(), tallies));
        }
    }
    progress.clear();
    Ok(rows.into_iter().flatten().collect())
}
