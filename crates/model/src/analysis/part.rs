//! One data set being analysed (a toy repeat, or the file with all its splits) and the
//! α-independent facts of its test items.

use std::sync::Arc;

use super::PartTensor;
use rvalue_core::conformal::{self, Calibrated, ScoreRows, Split};
use rvalue_core::rvalue::DrawOrder;
use rvalue_core::tensor::{ScoreTensor, Summaries};

/// One data set being analysed: a toy repeat, or the file with all its splits.
#[derive(Debug, Clone)]
pub(crate) struct Part {
    pub(in crate::analysis) tensor: PartTensor,
    pub(crate) labels: Vec<usize>,
    pub(crate) summaries: Arc<Summaries>,
    pub(in crate::analysis) order: Option<DrawOrder>,
    pub(in crate::analysis) splits: Vec<Split>,
    /// Split-independent item scores `[N][K]` per method (`None`: pooled CP_r, or not yet made).
    /// Parametric CP_r leaves NaN where [`Part::only`] says no split reads the entry.
    pub(in crate::analysis) scores: [Option<Vec<f64>>; 3],
    /// Per item, the one candidate the splits read, if it is a test item in none of them
    /// (`conformal::needed_candidates`): a toy repeat's calibration items.
    pub(in crate::analysis) only: Vec<Option<usize>>,
    /// A toy repeat's highest threshold for α in the slider's range, once its calibration
    /// items' parametric r-values are in (see [`AnalysisJob::scores`]).
    pub(in crate::analysis) bound: Option<f64>,
    /// `scores` with sorted rows, shared by the calibrations of a part with several splits.
    pub(in crate::analysis) rows: [Option<Arc<ScoreRows>>; 3],
    /// Pooled CP_r on a streamed file: the first split's calibration units' true-label draws
    /// `[n_cal][M]` (the inspector's; the items themselves are not held).
    pub(in crate::analysis) units: Option<Arc<Vec<f64>>>,
}

impl Part {
    /// The tensor; an error for a streamed file, whose items are not held.
    pub(crate) fn tensor(&self) -> rvalue_core::Result<&ScoreTensor> {
        self.tensor.get()
    }

    /// Items `N`, draws `M`, candidates `K`.
    pub(crate) fn shape(&self) -> (usize, usize, usize) {
        self.tensor.shape()
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

/// α-independent facts of each test item of one split, for metrics in `O(log K)` per item.
#[derive(Debug, Clone)]
pub(in crate::analysis) struct LabelInfo {
    /// The true label's score.
    pub(in crate::analysis) score: Vec<f64>,
    /// Its 0-based position in the method's order (score, then candidate index).
    pub(in crate::analysis) pos: Vec<u32>,
}

impl LabelInfo {
    pub(in crate::analysis) fn of(c: &Calibrated) -> Self {
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
/// ([`crate::ALPHA_RANGE`]), the highest of all: from the true labels' scores of calibration
/// items `0..n_cal` in `scores` (`[N][K]`, rows of the calibration items at least).
pub(in crate::analysis) fn highest_threshold(
    scores: &[f64],
    k: usize,
    labels: &[usize],
    n_cal: usize,
) -> f64 {
    let mut cal: Vec<f64> = (0..n_cal).map(|i| scores[i * k + labels[i]]).collect();
    cal.sort_unstable_by(f64::total_cmp);
    conformal::conformal_quantile(&cal, crate::ALPHA_RANGE.0)
}
