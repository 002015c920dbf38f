//! One data set being analysed (a toy repeat, or the file with all its splits): its items,
//! splits and split-independent scores, made a chunk at a time.

use std::sync::Arc;

use super::{internal, item_cost, PartTensor, StreamedFile};
use rvalue_core::conformal::{
    self, item_scores, pooled_hyper, Method, Need, Prior, RvalueKind, ScoreOptions, ScoreRows, Split,
};
use rvalue_core::eb::Hyper;
use rvalue_core::rvalue::nonparametric::nonparametric_from_order;
use rvalue_core::rvalue::{DrawOrder, HyperChoice};
use rvalue_core::tensor::{ScoreTensor, Summaries};
use rvalue_core::Result;

/// One data set being analysed: a toy repeat, or the file with all its splits.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    tensor: PartTensor,
    labels: Vec<usize>,
    summaries: Arc<Summaries>,
    order: Option<DrawOrder>,
    splits: Vec<Split>,
    /// Split-independent item scores `[N][K]` per method (`None`: pooled CP_r, or not yet made).
    /// Parametric CP_r leaves NaN where [`Part::only`] says no split reads the entry.
    scores: [Option<Vec<f64>>; 3],
    /// Per item, the one candidate the splits read, if it is a test item in none of them
    /// (`conformal::needed_candidates`): a toy repeat's calibration items.
    only: Vec<Option<usize>>,
    /// A toy repeat's highest threshold for α in the slider's range, once its calibration
    /// items' parametric r-values are in (see [`Part::score_chunk`]).
    bound: Option<f64>,
    /// `scores` with sorted rows, shared by the calibrations of a part with several splits.
    rows: [Option<Arc<ScoreRows>>; 3],
    /// Pooled CP_r on a streamed file: the first split's calibration units' true-label draws
    /// `[n_cal][M]` (the inspector's; the items themselves are not held).
    units: Option<Arc<Vec<f64>>>,
}

impl Part {
    /// A data set whose items are held, split as `splits` say, with its items' draw orders
    /// when `need_order`.
    pub(in crate::analysis) fn held(
        tensor: PartTensor,
        labels: Vec<usize>,
        splits: Vec<Split>,
        need_order: bool,
    ) -> Result<Self> {
        let t = tensor.get()?;
        let order = if need_order { Some(DrawOrder::of(t)?) } else { None };
        let summaries = Arc::new(Summaries::of(t));
        let only = conformal::needed_candidates(&labels, &splits);
        Ok(Part {
            tensor,
            labels,
            summaries,
            order,
            splits,
            scores: [None, None, None],
            only,
            bound: None,
            rows: [None, None, None],
            units: None,
        })
    }

    /// A streamed file's data set, from the rows made of it.
    pub(in crate::analysis) fn streamed(
        file: &Arc<StreamedFile>,
        splits: Vec<Split>,
        summaries: Arc<Summaries>,
        rows: [Option<Arc<ScoreRows>>; 3],
    ) -> Self {
        Part {
            tensor: PartTensor::Streamed(file.clone()),
            labels: file.labels.clone(),
            summaries,
            order: None,
            splits,
            scores: [None, None, None],
            // Every candidate's score: the rows are kept for other splits.
            only: vec![None; file.layout.shape().0],
            bound: None,
            rows,
            units: None,
        }
    }

    /// The tensor; an error for a streamed file, whose items are not held.
    pub(crate) fn tensor(&self) -> rvalue_core::Result<&ScoreTensor> {
        self.tensor.get()
    }

    /// Where the items are: simulated, a held file, or a streamed one.
    pub(in crate::analysis) fn data(&self) -> &PartTensor {
        &self.tensor
    }

    pub(crate) fn labels(&self) -> &[usize] {
        &self.labels
    }

    pub(crate) fn summaries(&self) -> &Arc<Summaries> {
        &self.summaries
    }

    pub(in crate::analysis) fn order(&self) -> Option<&DrawOrder> {
        self.order.as_ref()
    }

    pub(in crate::analysis) fn splits(&self) -> &[Split] {
        &self.splits
    }

    /// Items `N`, draws `M`, candidates `K`.
    pub(crate) fn shape(&self) -> (usize, usize, usize) {
        self.tensor.shape()
    }

    /// Method `mi`'s sorted rows, when its calibrations share them.
    pub(in crate::analysis) fn rows(&self, mi: usize) -> Option<&Arc<ScoreRows>> {
        self.rows.get(mi)?.as_ref()
    }

    /// Every method's sorted rows (`None` where not made).
    pub(in crate::analysis) fn all_rows(&self) -> &[Option<Arc<ScoreRows>>; 3] {
        &self.rows
    }

    /// Method `mi`'s item scores, while they are not moved into sorted rows.
    pub(in crate::analysis) fn scores(&self, mi: usize) -> Option<&[f64]> {
        self.scores.get(mi)?.as_deref()
    }

    /// Sets method `mi`'s item scores `[N][K]` (made elsewhere).
    pub(in crate::analysis) fn set_scores(&mut self, mi: usize, scores: Option<Vec<f64>>) {
        self.scores[mi] = scores;
    }

    /// Moves method `mi`'s item scores into sorted rows, once, when several calibrations share
    /// them.
    pub(in crate::analysis) fn share_rows(&mut self, mi: usize) {
        if self.rows[mi].is_none() {
            let k = self.shape().2;
            self.rows[mi] = self.scores[mi].take().map(|s| ScoreRows::new(s, k));
        }
    }

    /// The first split's calibration units' true-label draws (pooled CP_r on a streamed file).
    pub(in crate::analysis) fn units(&self) -> Option<&Arc<Vec<f64>>> {
        self.units.as_ref()
    }

    pub(in crate::analysis) fn set_units(&mut self, units: Vec<f64>) {
        self.units = Some(Arc::new(units));
    }

    /// Item scores of the paper's method `mi` from item `next` on, as the core's
    /// `conformal::item_scores` makes them: CP and CP_avg whole, CP_r's r-values a chunk within
    /// `budget` (candidate-units). `hyper` holds the part's pooled prior once estimated;
    /// `n_cal`, a toy repeat's calibration items when its test items' r-values may stop at
    /// [`highest_threshold`]. The first item not done.
    pub(in crate::analysis) fn score_chunk(
        &mut self,
        mi: usize,
        next: usize,
        opts: &ScoreOptions,
        budget: usize,
        hyper: &mut Option<Hyper>,
        n_cal: Option<usize>,
    ) -> Result<usize> {
        let (n, draws, k) = self.shape();
        let m = Method::PAPER[mi];
        if m != Method::CpR || opts.kind == RvalueKind::Pooled {
            self.scores[mi] = item_scores(self.tensor.get()?, &self.summaries, self.order.as_ref(), m, opts)?;
            return Ok(n);
        }
        let mut end = (next + (budget / item_cost(opts.kind, draws, k)).max(1)).min(n);
        let out = self.scores[mi].get_or_insert_with(|| Vec::with_capacity(n * k));
        if opts.kind == RvalueKind::Nonparametric {
            let order =
                self.order.as_ref().ok_or_else(|| internal("no draw orders for a rank-based r-value"))?;
            for i in next..end {
                out.extend(nonparametric_from_order(order, i));
            }
            return Ok(end);
        }
        // As `conformal::item_scores`, one chunk of items at a time.
        let hyper = chunk_hyper(opts, hyper, &self.summaries, next)?;
        if let Some(c) = n_cal.filter(|&c| next < c) {
            end = end.min(c);
        }
        let labels = &self.labels;
        let up_to = n_cal
            .filter(|&c| next >= c)
            .map(|c| *self.bound.get_or_insert_with(|| highest_threshold(out, k, labels, c)));
        let only = &self.only;
        let need = |i: usize| match (only[i], up_to) {
            (None, Some(bound)) => Need::UpTo(bound),
            (only, _) => only.into(),
        };
        conformal::parametric_scores(&self.summaries, opts, hyper, next..end, need, out)?;
        Ok(end)
    }

    /// Item `item`'s split-independent scores of method `mi`, wherever they are kept (`None`:
    /// pooled CP_r, or not made yet).
    pub(in crate::analysis) fn item_row(&self, mi: usize, item: usize) -> Option<Vec<f64>> {
        let k = self.shape().2;
        match (self.scores.get(mi)?, self.rows.get(mi)?) {
            (Some(s), _) => s.get(item * k..(item + 1) * k).map(<[f64]>::to_vec),
            (None, Some(r)) => (item < r.n()).then(|| r.row(item)),
            (None, None) => None,
        }
    }

    /// Whether method `mi` has split-independent scores (pooled CP_r has none).
    pub(in crate::analysis) fn has_rows(&self, mi: usize) -> bool {
        self.scores.get(mi).is_some_and(Option::is_some) || self.rows.get(mi).is_some_and(Option::is_some)
    }
}

/// The prior for a chunk of CP_r's items: a pooled one is estimated on the part's first chunk
/// and kept, so every chunk of the part shares it.
fn chunk_hyper(
    opts: &ScoreOptions,
    part_hyper: &mut Option<Hyper>,
    summaries: &Summaries,
    next: usize,
) -> Result<HyperChoice> {
    Ok(match opts.prior {
        Prior::PerItem => HyperChoice::Estimate,
        Prior::Pooled => HyperChoice::Fixed(match *part_hyper {
            Some(h) if next > 0 => h,
            _ => *part_hyper.insert(pooled_hyper(summaries, opts.variance)?),
        }),
    })
}

/// The threshold CP_r's calibration picks at the smallest α the explorer answers
/// ([`crate::ALPHA_RANGE`]), the highest of all: from the true labels' scores of calibration
/// items `0..n_cal` in `scores` (`[N][K]`, rows of the calibration items at least).
fn highest_threshold(scores: &[f64], k: usize, labels: &[usize], n_cal: usize) -> f64 {
    let mut cal: Vec<f64> = (0..n_cal).map(|i| scores[i * k + labels[i]]).collect();
    cal.sort_unstable_by(f64::total_cmp);
    conformal::conformal_quantile(&cal, crate::ALPHA_RANGE.0)
}
