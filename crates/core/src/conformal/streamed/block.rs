//! One block's rows for a reader that fetches its own blocks (the page's workers read a dropped
//! file with `File.slice`): every split-independent score of every candidate, with the block's
//! summaries, as the in-memory path computes them, bit for bit; and, for the baselines, its
//! items' class probabilities ([`block_class_probabilities`]).

use super::block_probabilities;
use crate::conformal::scores::{parametric_rows, scores_with};
use crate::conformal::{Method, Prior, RvalueKind, ScoreOptions};
use crate::probability::{Detector, ScoresAre};
use crate::tensor::{ScoreTensor, Summaries};
use crate::Result;

/// A block's split-independent rows `[n][K]` and its items' summaries.
#[derive(Debug, Clone)]
pub struct BlockRows {
    pub cp: Vec<f64>,
    pub cp_avg: Vec<f64>,
    /// CP_r's r-values; `None` when they need more than the block: pooled r-values, and
    /// parametric ones with a prior pooled over all items (made from the summaries later).
    pub cp_r: Option<Vec<f64>>,
    pub summaries: Summaries,
    /// The items' class probabilities, when a baseline needs them.
    pub probabilities: Option<BlockProbabilities>,
}

/// A block's class probabilities `[n][K]` (the mean over draws, as
/// [`calibrate_streamed`](super::calibrate_streamed) makes them), the reading they were made
/// under, and what the block's rows allow `auto` to read them as.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockProbabilities {
    pub probs: Vec<f64>,
    /// The reading asked for, or under `auto` the block's own choice.
    pub read_as: ScoresAre,
    /// Under `auto`, the block's rows seen (merged over blocks, the file's choice); otherwise
    /// nothing seen.
    pub seen: Detector,
}

/// The class probabilities of `block`'s items (`first..`) read as `asked`: an explicit reading
/// checked, or under `auto` the block's own choice ([`Detector`]). Under `auto`, logits and
/// log-probabilities give the same probabilities (a softmax either way), so a block's choice
/// differs from the file's in what it makes only where the block's rows are all probabilities
/// and another block's are not.
pub fn block_class_probabilities(
    block: &ScoreTensor,
    first: usize,
    asked: ScoresAre,
    threads: usize,
) -> Result<BlockProbabilities> {
    let mut seen = Detector::default();
    let read_as = match asked {
        ScoresAre::Auto => {
            seen.see(block);
            seen.choice()
        }
        explicit => explicit,
    };
    let probs = block_probabilities(block, first, read_as, threads)?;
    Ok(BlockProbabilities { probs, read_as, seen })
}

/// Whether CP_r's r-values of `opts` are a reduction of one item each ([`block_rows`] makes them).
pub fn rvalues_per_item(opts: &ScoreOptions) -> bool {
    match opts.kind {
        RvalueKind::Nonparametric => true,
        RvalueKind::Parametric => opts.prior == Prior::PerItem,
        RvalueKind::Pooled => false,
    }
}

/// [`BlockRows`] of `block`, on `threads` threads (the same bits for every count).
pub fn block_rows(block: &ScoreTensor, opts: &ScoreOptions, threads: usize) -> Result<BlockRows> {
    let summaries = Summaries::of(block);
    let cp = scores_with(block, Some(&summaries), None, Method::Cp, opts, |_| None, None, threads)?
        .unwrap_or_default();
    let cp_avg = summaries.mean.iter().map(|x| -x).collect();
    let cp_r = match opts.kind {
        _ if !rvalues_per_item(opts) => None,
        RvalueKind::Parametric => Some(parametric_rows(&summaries, opts, |_| None, None, threads)?),
        _ => scores_with(block, Some(&summaries), None, Method::CpR, opts, |_| None, None, threads)?,
    };
    Ok(BlockRows { cp, cp_avg, cp_r, summaries, probabilities: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformal::item_scores;
    use crate::rvalue::DrawOrder;
    use crate::toy::{self, ToyParams};

    /// Every kind and prior: a block's rows are the whole tensor's rows of its items.
    #[test]
    fn a_blocks_rows_are_the_whole_tensors() {
        let p = ToyParams { k: 6, m: 4, n_cal: 5, n_test: 4, ..Default::default() };
        let (t, _) = toy::simulate(&p, 0).unwrap();
        for kind in [RvalueKind::Nonparametric, RvalueKind::Parametric, RvalueKind::Pooled] {
            for prior in [Prior::PerItem, Prior::Pooled] {
                let opts = ScoreOptions { kind, prior, cp_draw: 1, ..ScoreOptions::default() };
                let s = Summaries::of(&t);
                let order = DrawOrder::of(&t).unwrap();
                let whole = |m| item_scores(&t, &s, Some(&order), m, &opts).unwrap().unwrap_or_default();
                let (k, first) = (t.k(), 3);
                let block = t.items(first..7);
                let got = block_rows(&block, &opts, 2).unwrap();
                let rows = |v: &[f64]| v[first * k..7 * k].to_vec();
                assert_eq!(got.cp, rows(&whole(Method::Cp)));
                assert_eq!(got.cp_avg, rows(&whole(Method::CpAvg)));
                match got.cp_r {
                    Some(r) => assert_eq!(r, rows(&whole(Method::CpR)), "{kind:?} {prior:?}"),
                    None => assert!(!rvalues_per_item(&opts)),
                }
                assert_eq!(got.summaries.mean, rows(&s.mean));
            }
        }
    }

    /// A block's class probabilities are the whole tensor's rows of its items, under `auto` the
    /// block's own choice, and a reading the rows do not fit is refused naming the item.
    #[test]
    fn a_blocks_probabilities_are_the_whole_tensors() {
        let p = ToyParams { k: 5, m: 3, n_cal: 6, n_test: 4, ..Default::default() };
        let (t, _) = toy::simulate(&p, 0).unwrap();
        let whole = crate::probability::mean_probabilities(&t, ScoresAre::Logits).unwrap();
        let got = block_class_probabilities(&t.items(3..8), 3, ScoresAre::Auto, 2).unwrap();
        assert_eq!(got.probs, whole[3 * 5..8 * 5].to_vec());
        assert_eq!(got.read_as, ScoresAre::Logits);
        assert_eq!(got.seen.choice(), ScoresAre::Logits);
        let e = block_class_probabilities(&t.items(3..8), 3, ScoresAre::Probabilities, 1).unwrap_err();
        assert!(e.to_string().contains("item 3"), "{e}");
        let probs = ScoreTensor::new(10, 1, 5, whole).unwrap();
        let got = block_class_probabilities(&probs.items(3..8), 3, ScoresAre::Auto, 1).unwrap();
        assert_eq!((got.read_as, got.probs), (ScoresAre::Probabilities, probs.items(3..8).data().to_vec()));
    }

    /// Rows cross threads as bytes with the same bits; a short or padded buffer is refused.
    #[test]
    fn a_blocks_rows_come_back_from_bytes_with_the_same_bits() {
        let p = ToyParams { k: 6, m: 4, n_cal: 5, n_test: 4, ..Default::default() };
        let (t, _) = toy::simulate(&p, 0).unwrap();
        let with = [None, Some(ScoresAre::Auto), Some(ScoresAre::Logits)];
        for (kind, asked) in [RvalueKind::Nonparametric, RvalueKind::Pooled]
            .into_iter()
            .zip(with)
            .chain([(RvalueKind::Pooled, Some(ScoresAre::Logits))])
        {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            let mut rows = block_rows(&t.items(2..6), &opts, 1).unwrap();
            rows.probabilities = asked.map(|a| block_class_probabilities(&t.items(2..6), 2, a, 1).unwrap());
            let bytes = crate::conformal::write_block_rows(7, &rows);
            let (tag, back) = crate::conformal::read_block_rows(&bytes, t.m(), t.k()).unwrap();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(tag, 7);
            assert_eq!((bits(&back.cp), bits(&back.cp_avg)), (bits(&rows.cp), bits(&rows.cp_avg)));
            assert_eq!(back.cp_r.as_deref().map(bits), rows.cp_r.as_deref().map(bits));
            assert_eq!(back.summaries, rows.summaries);
            let probs = |r: &BlockRows| r.probabilities.as_ref().map(|p| (bits(&p.probs), p.read_as, p.seen));
            assert_eq!(probs(&back), probs(&rows));
            assert!(crate::conformal::read_block_rows(&bytes[..bytes.len() - 1], t.m(), t.k()).is_err());
            assert!(
                crate::conformal::read_block_rows(&[bytes.clone(), vec![0]].concat(), t.m(), t.k()).is_err()
            );
        }
    }
}
