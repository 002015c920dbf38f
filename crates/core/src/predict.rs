//! Prediction sets for new, unlabelled items (docs/method.md §5): calibrate on labelled items,
//! then give each new item its set at any α.
//!
//! A prediction is the split whose calibration items are the labelled ones and whose test items
//! are the new ones, over the two tensors joined (labelled first), calibrated as a prediction's
//! split ([`Split::for_prediction`]): a new item's tie order (split 0 of `seed`) is keyed by its
//! scores rather than its place, and a pooled prior is fit on the labelled items alone, so an
//! item's set is the same alone, in any batch, at any place and repeated. Otherwise its sets are
//! those of `rvalue sets` on the joined file with that split. The new items' labels are never
//! read: they are stood in by candidate 0, which only the coverage metrics would look at.

pub mod from_blocks;
pub mod saved;

#[cfg(test)]
mod batches;

use crate::blocks::ScoreBlocks;
use crate::conformal::streamed::{Report, Streaming};
use crate::conformal::true_draws::{calibrate_with_true_draws, true_draws_splits, TrueDraws};
use crate::conformal::{self, Calibrated, ItemSet, Method, Prepared, ScoreOptions, Split};
use crate::tensor::{ScoreTensor, Scores};
use crate::{float16, Error, Result};

/// One method's calibrated sets for new items, ready to answer any α.
#[derive(Debug, Clone)]
pub struct Prediction {
    calibrated: Calibrated,
    /// Labelled items before the new ones in the joined tensor.
    n_cal: usize,
}

/// Calibrates `method` on the labelled items `cal` (labels `cal_labels`) and scores the new
/// items `test`, on `threads` threads (the result is the same for any count).
///
/// `seed` keys the pooled r-values' exchangeable tie order, as `--seed` does for `rvalue sets`.
pub fn predict(
    cal: &ScoreTensor,
    cal_labels: &[usize],
    test: &ScoreTensor,
    method: Method,
    opts: &ScoreOptions,
    seed: u64,
    threads: usize,
) -> Result<Prediction> {
    let (joined, labels, split) = joined_split(cal, cal_labels, test, seed)?;
    let need_order = conformal::needs_draw_orders(&[method], opts);
    let prep = Prepared::new(&joined, &labels, need_order)?;
    let mut out = None;
    prep.calibrate_each_threads(method, opts, std::slice::from_ref(&split), threads, |_, c| out = Some(c))?;
    let calibrated = out.ok_or_else(|| Error::invalid("no split was calibrated"))?;
    Ok(Prediction { calibrated, n_cal: cal.n() })
}

/// [`predict`] calibrated on true-label draws alone ([`TrueDraws`]): the new items `test`, read a
/// block at a time, get the sets of the joined tensor `[true draws; test]`'s split, keyed as split 0
/// of `seed` (CP, CP_avg and pooled CP_r; the others are refused).
pub fn predict_with_true_draws(
    true_draws: &TrueDraws,
    test: &dyn ScoreBlocks,
    method: Method,
    opts: &ScoreOptions,
    seed: u64,
    run: &Streaming<'_>,
    report: Report<'_>,
) -> Result<Prediction> {
    let n_test = test.shape().0;
    let splits: Vec<Split> = true_draws_splits(true_draws.n(), n_test, None, 1, seed)?
        .into_iter()
        .map(Split::for_prediction)
        .collect();
    // The new items' labels are never read: sets do not depend on them.
    let labels = vec![0; n_test];
    let mut got = None;
    let mut take = |_, _, c| {
        got = Some(c);
        Ok(())
    };
    calibrate_with_true_draws(true_draws, test, &labels, &[method], opts, &splits, run, report, &mut take)?;
    let calibrated = got.ok_or_else(|| Error::invalid("the new items were not scored"))?;
    Ok(Prediction::from_calibrated(calibrated, 0))
}

/// The joined tensor (labelled items first), its labels (candidate 0 standing in for the new
/// items') and the split: labelled items calibrate, new ones are tested, keyed as split 0 of
/// `seed`. Callers with their own ranker (the CLI's GPU path) calibrate this split themselves.
pub fn joined_split(
    cal: &ScoreTensor,
    cal_labels: &[usize],
    test: &ScoreTensor,
    seed: u64,
) -> Result<(ScoreTensor, Vec<usize>, Split)> {
    if cal_labels.len() != cal.n() {
        return Err(Error::length(
            "calibration labels",
            cal_labels.len(),
            format!("{} (one per labelled item)", cal.n()),
        ));
    }
    let joined = joined(cal, test)?;
    let mut labels = cal_labels.to_vec();
    labels.resize(joined.n(), 0);
    let split =
        Split::new((0..cal.n()).collect(), (cal.n()..joined.n()).collect()).keyed(seed, 0).for_prediction();
    Ok((joined, labels, split))
}

/// `a`'s items, then `b`'s, refusing different draw or candidate counts.
fn joined(a: &ScoreTensor, b: &ScoreTensor) -> Result<ScoreTensor> {
    if (a.m(), a.k()) != (b.m(), b.k()) {
        return Err(Error::shape(format!(
            "the new items have M = {} draws and K = {} candidates, the labelled ones M = {} and K = {}",
            b.m(),
            b.k(),
            a.m(),
            a.k()
        )));
    }
    let n = a.n() + b.n();
    // Stored in the wider of the two files' types, which holds both exactly.
    match (a.scores(), b.scores()) {
        (Scores::F32(x), Scores::F32(y)) => ScoreTensor::from_f32(n, a.m(), a.k(), [x, y].concat()),
        (Scores::F16(x), Scores::F16(y)) => ScoreTensor::from_f16_bits(n, a.m(), a.k(), [x, y].concat()),
        (x @ (Scores::F16(_) | Scores::F32(_)), y @ (Scores::F16(_) | Scores::F32(_))) => {
            let mut v = Vec::with_capacity(x.len() + y.len());
            for s in [x, y] {
                match s {
                    Scores::F32(s) => v.extend_from_slice(s),
                    Scores::F16(s) => v.extend(s.iter().map(|&h| float16::to_f32(h))),
                    Scores::F64(_) => {}
                }
            }
            ScoreTensor::from_f32(n, a.m(), a.k(), v)
        }
        _ => ScoreTensor::new(n, a.m(), a.k(), [&a.data()[..], &b.data()[..]].concat()),
    }
}

impl Prediction {
    /// From a calibrated split of [`joined_split`] with `n_cal` labelled items.
    pub fn from_calibrated(calibrated: Calibrated, n_cal: usize) -> Self {
        Prediction { calibrated, n_cal }
    }

    /// The number of new items.
    pub fn n_test(&self) -> usize {
        self.calibrated.test.len()
    }

    /// Candidates per item.
    pub fn k(&self) -> usize {
        self.calibrated.k
    }

    /// New item `j`'s set at α (`item` counts the new items from 0), in set order.
    pub fn set(&self, j: usize, alpha: f64, never_empty: bool) -> ItemSet {
        let mut set = self.calibrated.set(j, alpha, never_empty);
        set.item -= self.n_cal;
        set
    }

    /// Every new item's set as a mask `[n_test][K]`, row-major: `true` = in the set.
    pub fn mask(&self, alpha: f64, never_empty: bool) -> Vec<bool> {
        let k = self.k();
        let mut mask = vec![false; self.n_test() * k];
        for j in 0..self.n_test() {
            for &(c, _) in &self.set(j, alpha, never_empty).members {
                mask[j * k + c] = true;
            }
        }
        mask
    }

    /// New item `j`'s threshold `q̂` at α: its candidates with a score ≤ `q̂` form its set.
    /// The same for every item unless CP_r's r-values are pooled. Per class, candidate `c`'s is
    /// [`Prediction::class_threshold`].
    pub fn threshold(&self, j: usize, alpha: f64) -> f64 {
        self.calibrated.threshold(j, alpha)
    }

    /// New item `j`'s threshold for candidate `class` at α (per class, that class's).
    pub fn class_threshold(&self, j: usize, class: usize, alpha: f64) -> f64 {
        self.calibrated.class_threshold(j, class, alpha)
    }

    /// New item `j`'s K scores under the method (lower is more conforming).
    pub fn scores(&self, j: usize) -> std::borrow::Cow<'_, [f64]> {
        self.calibrated.row(j)
    }

    /// How many classes enter every set at α for too few calibration items (per class; 0 when
    /// marginal).
    pub fn unbounded_classes(&self, alpha: f64) -> usize {
        self.calibrated.unbounded_classes(alpha)
    }

    /// Whether each new item has its own threshold (pooled CP_r) rather than one for all.
    pub fn per_item_threshold(&self) -> bool {
        self.calibrated.per_item_threshold()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformal::RvalueKind;
    use crate::rvalue::TieOrder;
    use crate::toy::{simulate, ToyParams};

    /// 50 toy items with labels spread over the candidates (the toy's own are all 0).
    fn toy(seed: u64) -> (ScoreTensor, Vec<usize>) {
        let p = ToyParams { n_cal: 30, n_test: 20, m: 5, k: 6, seed, ..ToyParams::default() };
        let (t, _) = simulate(&p, 0).expect("toy parameters are valid");
        let labels = (0..t.n()).map(|i| (i * 7 + i / 3) % t.k()).collect();
        (t, labels)
    }

    /// The first `n` items of `t` as a tensor of their own.
    fn items(t: &ScoreTensor, range: std::ops::Range<usize>) -> ScoreTensor {
        let per = t.m() * t.k();
        let data = t.data()[range.start * per..range.end * per].to_vec();
        ScoreTensor::new(range.len(), t.m(), t.k(), data).expect("a slice of a valid tensor")
    }

    #[test]
    fn predictions_are_the_sets_of_the_joined_split() {
        let (t, labels) = toy(7);
        let n_cal = 30;
        let (cal, test) = (items(&t, 0..n_cal), items(&t, n_cal..t.n()));
        let opt_sets = [
            ScoreOptions::default(),
            ScoreOptions { kind: RvalueKind::Nonparametric, ..ScoreOptions::default() },
            ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() },
            ScoreOptions { kind: RvalueKind::Pooled, ties: TieOrder::Index, ..ScoreOptions::default() },
            ScoreOptions { prior: conformal::Prior::Pooled, ..ScoreOptions::default() },
        ];
        for opts in opt_sets {
            for method in Method::ALL {
                let split =
                    Split::new((0..n_cal).collect(), (n_cal..t.n()).collect()).keyed(3, 0).for_prediction();
                let prep =
                    Prepared::new(&t, &labels, conformal::needs_draw_orders(&[method], &opts)).unwrap();
                let want = prep.calibrate(method, &opts, std::slice::from_ref(&split)).unwrap().remove(0);
                let got = predict(&cal, &labels[..n_cal], &test, method, &opts, 3, 2).unwrap();
                assert_eq!(got.n_test(), t.n() - n_cal);
                for alpha in [0.05, 0.1, 0.3] {
                    for j in 0..got.n_test() {
                        let (w, g) = (want.set(j, alpha, false), got.set(j, alpha, false));
                        assert_eq!(g.item, j);
                        assert_eq!(w.item, j + n_cal);
                        assert_eq!(w.members, g.members, "{method} {opts:?} α={alpha} item {j}");
                        assert_eq!(want.threshold(j, alpha).to_bits(), got.threshold(j, alpha).to_bits());
                    }
                    let mask = got.mask(alpha, true);
                    for j in 0..got.n_test() {
                        let set = got.set(j, alpha, true);
                        for c in 0..got.k() {
                            assert_eq!(mask[j * got.k() + c], set.contains(c));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_new_items_labels_are_never_read() {
        let (t, labels) = toy(11);
        let (cal, test) = (items(&t, 0..30), items(&t, 30..t.n()));
        let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
        let a = predict(&cal, &labels[..30], &test, Method::CpR, &opts, 0, 1).unwrap();
        // Changing the true labels of the new items in the joined split changes nothing.
        let (joined, mut l, split) = joined_split(&cal, &labels[..30], &test, 0).unwrap();
        l[30..].iter_mut().enumerate().for_each(|(j, y)| *y = (j * 5 + 1) % 6);
        let prep = Prepared::new(&joined, &l, true).unwrap();
        let b = prep.calibrate(Method::CpR, &opts, &[split]).unwrap().remove(0);
        for j in 0..a.n_test() {
            assert_eq!(a.set(j, 0.1, false).members, b.set(j, 0.1, false).members);
        }
    }

    /// Joined items are stored in the wider of the two types (f16 with f16 stays f16, f16 with
    /// f32 is f32, anything with f64 is f64), and read the same whatever the mix.
    #[test]
    fn joined_items_keep_the_narrowest_exact_type() {
        let (t, _) = toy(5);
        let bits: Vec<u16> = t.data().iter().map(|&x| half::f16::from_f64(x).to_bits()).collect();
        let half = ScoreTensor::from_f16_bits(t.n(), t.m(), t.k(), bits).unwrap();
        let wide = |s: &ScoreTensor| s.data().into_owned();
        let single =
            ScoreTensor::from_f32(t.n(), t.m(), t.k(), wide(&half).iter().map(|&x| x as f32).collect());
        let double = ScoreTensor::new(t.n(), t.m(), t.k(), wide(&half)).unwrap();
        let single = single.unwrap();
        let kind = |s: &ScoreTensor| match s.scores() {
            Scores::F16(_) => 16,
            Scores::F32(_) => 32,
            Scores::F64(_) => 64,
        };
        let all = [&half, &single, &double];
        for a in all {
            for b in all {
                let j = joined(a, b).unwrap();
                assert_eq!(kind(&j), kind(a).max(kind(b)));
                assert_eq!(wide(&j), [wide(a), wide(b)].concat());
            }
        }
    }

    #[test]
    fn mismatched_inputs_are_errors() {
        let (t, labels) = toy(1);
        let cal = items(&t, 0..30);
        let wrong_k = ScoreTensor::new(2, t.m(), t.k() + 1, vec![0.0; 2 * t.m() * (t.k() + 1)]).unwrap();
        let opts = ScoreOptions::default();
        assert!(matches!(
            predict(&cal, &labels[..29], &cal, Method::Cp, &opts, 0, 1),
            Err(Error::Length { .. })
        ));
        let e = predict(&cal, &labels[..30], &wrong_k, Method::Cp, &opts, 0, 1).unwrap_err();
        assert!(matches!(e, Error::Shape(_)), "{e}");
    }
}
