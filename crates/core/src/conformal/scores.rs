//! Split-independent nonconformity scores `[N][K]`: CP's one draw, CP_avg's mean, and the
//! rank-based and parametric r-values of CP_r (docs/method.md §5). Pooled CP_r has none: its
//! scores depend on the calibration items ([`super::pooled`]).

use super::chunks::{in_chunks, in_pieces};
use super::{Method, Prior, RvalueKind, ScoreOptions, Split};
use crate::eb::{self, Hyper};
use crate::rvalue::nonparametric::{nonparametric_from_order, nonparametric_items};
use crate::rvalue::{self, DrawOrder, HyperChoice};
use crate::tensor::{ScoreTensor, Summaries, VarianceKind};
use crate::{Error, Result};

/// Items a thread takes at a time for nonparametric CP_r without shared orders: a few
/// milliseconds of work each at M = 100, K = 1000, so that threads end a block together.
const NONPARAMETRIC_PIECE: usize = 2;

/// Split-independent nonconformity scores `[N][K]` (lower = more conforming) of a method; `None`
/// for pooled CP_r, whose scores depend on the calibration items.
pub fn item_scores(
    t: &ScoreTensor,
    summaries: &Summaries,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
) -> Result<Option<Vec<f64>>> {
    scores_with(t, Some(summaries), order, method, opts, |_| None, None, 1)
}

/// [`item_scores`] where item `i` with `only[i] = Some(c)` needs candidate `c`'s score alone (a
/// calibration item that is a test item in no split: [`Calibrated::fixed`](super::Calibrated::fixed) reads only its true
/// label's score). Parametric CP_r then computes that one r-value (the same bits as in
/// [`item_scores`]) and leaves the item's other entries NaN: the rows keep their `[N][K]`
/// layout, and an entry nobody computed must not pass for a score. The other methods compute
/// every entry, as they cost little. `only` has one entry per item.
pub fn item_scores_only(
    t: &ScoreTensor,
    summaries: &Summaries,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    only: &[Option<usize>],
) -> Result<Option<Vec<f64>>> {
    check_only(t, only)?;
    scores_with(t, Some(summaries), order, method, opts, |i| only[i], None, 1)
}

pub(super) fn check_only(t: &ScoreTensor, only: &[Option<usize>]) -> Result<()> {
    if only.len() != t.n() {
        return Err(Error::length("entries of needed candidates", only.len(), format!("{} items", t.n())));
    }
    if let Some(i) = only.iter().position(|c| c.is_some_and(|c| c >= t.k())) {
        return Err(Error::invalid(format!("item {i}'s needed candidate is beyond K = {}", t.k())));
    }
    Ok(())
}

/// Per item, the one candidate whose score `splits` read when the item is a test item in none
/// of them (calibration reads only the true label's), else `None`: every candidate.
pub fn needed_candidates(labels: &[usize], splits: &[Split]) -> Vec<Option<usize>> {
    let mut only: Vec<Option<usize>> = labels.iter().map(|&y| Some(y)).collect();
    for i in splits.iter().flat_map(|s| &s.test) {
        if let Some(o) = only.get_mut(*i) {
            *o = None;
        }
    }
    only
}

/// [`item_scores_only`]'s work; the rank-based and parametric r-values' items in `threads`
/// contiguous chunks, one thread each, joined in item order (the same scores for every count).
/// Summaries and draw orders not given are computed here if the method needs them. A pooled
/// prior is fit on the items `prior_on` (a prediction's calibration items), else on every item.
#[allow(clippy::too_many_arguments)] // the data, what is known of it, the method, the run
pub(super) fn scores_with(
    t: &ScoreTensor,
    summaries: Option<&Summaries>,
    order: Option<&DrawOrder>,
    method: Method,
    opts: &ScoreOptions,
    only: impl Fn(usize) -> Option<usize> + Sync,
    prior_on: Option<&[usize]>,
    threads: usize,
) -> Result<Option<Vec<f64>>> {
    let (n, k) = (t.n(), t.k());
    match method {
        Method::Aps | Method::Raps | Method::Saps => Err(Error::invalid(format!(
            "{}'s scores are made per split from class probabilities, not one row per item",
            method.label()
        ))),
        Method::Cp => {
            if opts.cp_draw >= t.m() {
                return Err(Error::invalid(format!(
                    "CP's draw {} does not exist (M = {})",
                    opts.cp_draw,
                    t.m()
                )));
            }
            let mut out = Vec::with_capacity(n * k);
            let mut buf = Vec::new();
            for i in 0..n {
                out.extend(t.draw(i, opts.cp_draw, &mut buf).iter().map(|s| -s));
            }
            Ok(Some(out))
        }
        Method::CpAvg => match summaries {
            Some(s) => Ok(Some(s.mean.iter().map(|x| -x).collect())),
            None => Ok(Some(Summaries::of(t).mean.iter().map(|x| -x).collect())),
        },
        Method::CpR => match opts.kind {
            RvalueKind::Pooled => Ok(None),
            RvalueKind::Nonparametric => {
                // Without shared orders each thread sorts an item's draws just before its
                // greedy: the whole tensor's orders need not be held, and one item's stay in cache.
                match order {
                    Some(o) => {
                        let rows = |items: std::ops::Range<usize>| -> Result<Vec<f64>> {
                            Ok(items.flat_map(|i| nonparametric_from_order(o, i)).collect())
                        };
                        in_chunks(n, threads, rows).map(Some)
                    }
                    None => in_pieces(n, threads, NONPARAMETRIC_PIECE, |items| nonparametric_items(t, items))
                        .map(Some),
                }
            }
            RvalueKind::Parametric => match summaries {
                Some(s) => parametric_rows(s, opts, only, prior_on, threads).map(Some),
                None => parametric_rows(&Summaries::of(t), opts, only, prior_on, threads).map(Some),
            },
        },
    }
}

/// Parametric CP_r's rows `[N][K]` from the summaries alone, each item as much as `only` asks
/// ([`item_scores_only`]), the items in `threads` contiguous chunks joined in order; a pooled
/// prior fit on the items `prior_on`, or on all.
pub(crate) fn parametric_rows(
    summaries: &Summaries,
    opts: &ScoreOptions,
    only: impl Fn(usize) -> Option<usize> + Sync,
    prior_on: Option<&[usize]>,
    threads: usize,
) -> Result<Vec<f64>> {
    let hyper = match (opts.prior, prior_on) {
        (Prior::PerItem, _) => HyperChoice::Estimate,
        (Prior::Pooled, None) => HyperChoice::Fixed(pooled_hyper(summaries, opts.variance)?),
        (Prior::Pooled, Some(items)) => HyperChoice::Fixed(pooled_hyper_on(summaries, items, opts.variance)?),
    };
    let rows = |items: std::ops::Range<usize>| -> Result<Vec<f64>> {
        let mut out = Vec::with_capacity(items.len() * summaries.k);
        parametric_scores(summaries, opts, hyper, items, |i| only(i).into(), &mut out)?;
        Ok(out)
    };
    in_chunks(summaries.n, threads, rows)
}

/// Which of an item's parametric r-values a caller reads ([`parametric_scores`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    /// Every candidate's.
    All,
    /// Candidate `c`'s alone (a calibration item's true label); the others are NaN.
    One(usize),
    /// Exactly those at most the bound; the others may be `+∞`, known to exceed it
    /// ([`rvalue::parametric_up_to`]). For a test item whose sets are only asked at thresholds up
    /// to the bound: its sets, coverage, the true label's position and the best candidate are
    /// then those of the exact row.
    UpTo(f64),
}

impl From<Option<usize>> for Need {
    fn from(only: Option<usize>) -> Need {
        only.map_or(Need::All, Need::One)
    }
}

/// Parametric CP_r's rows of items `items` appended to `out` (the explorer runs this a chunk of
/// items at a time), each as much as `need(i)` asks (see [`item_scores_only`] and [`Need`]).
pub fn parametric_scores(
    summaries: &Summaries,
    opts: &ScoreOptions,
    hyper: HyperChoice,
    items: std::ops::Range<usize>,
    need: impl Fn(usize) -> Need,
    out: &mut Vec<f64>,
) -> Result<()> {
    let k = summaries.k;
    // One buffer for every item's variances: an allocation per item showed in the profile.
    let mut s = Vec::with_capacity(k);
    for i in items {
        s.clear();
        s.extend((0..k).map(|c| summaries.s(i, c, opts.variance)));
        let x = summaries.mean_row(i);
        match need(i) {
            Need::All => {
                out.extend(rvalue::parametric(x, &s, hyper, opts.algorithm, opts.lambda)?.rvalue);
            }
            Need::One(c) => {
                let r = rvalue::parametric_unit(x, &s, hyper, opts.algorithm, opts.lambda, c)?;
                out.extend((0..k).map(|j| if j == c { r } else { f64::NAN }));
            }
            Need::UpTo(bound) => {
                out.extend(rvalue::parametric_up_to(x, &s, hyper, opts.algorithm, opts.lambda, bound)?);
            }
        }
    }
    Ok(())
}

/// [`pooled_hyper`] over every candidate of the items `items` alone.
pub fn pooled_hyper_on(summaries: &Summaries, items: &[usize], variance: VarianceKind) -> Result<Hyper> {
    let k = summaries.k;
    let rows =
        |v: &[f64]| -> Vec<f64> { items.iter().flat_map(|&i| v[i * k..(i + 1) * k].to_vec()).collect() };
    let (x, v) = (rows(&summaries.mean), rows(&summaries.var));
    eb::estimate_with(&x, &v, variance, summaries.m)
}

/// The hyperparameters of a prior pooled over every candidate of `summaries`. The noise
/// variances are computed where they are read (as [`Summaries::s`] computes them), so a file's
/// 10⁷ candidates need no copy of them.
pub fn pooled_hyper(summaries: &Summaries, variance: VarianceKind) -> Result<Hyper> {
    let (x, v) = (&summaries.mean, &summaries.var);
    eb::estimate_with(x, v, variance, summaries.m)
}
