//! Streamed = in memory, bit for bit, for every method, r-value kind, prior, tie order and
//! thread count, with blocks of one item and one pooled split per pass (so that every pass
//! spans many blocks and groups).

use super::*;
use crate::conformal::{calibrate_each_lean, Prior, SplitPlan};
use crate::rvalue::TieOrder;
use crate::toy::{self, ToyParams};
use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Everything a calibration answers: rows, thresholds and sets at several α, metrics.
fn answers(c: &Calibrated) -> Vec<u64> {
    let mut out: Vec<u64> = c.test.iter().map(|&i| i as u64).collect();
    out.extend(c.labels.iter().map(|&y| y as u64));
    for t in 0..c.test.len() {
        out.extend(c.row(t).iter().map(|x| x.to_bits()));
        for alpha in [0.03, 0.1, 0.25, 0.5] {
            out.push(c.threshold(t, alpha).to_bits());
            out.extend(c.thresholds(t, alpha).iter().map(|x| x.to_bits()));
        }
    }
    for alpha in [0.05, 0.1, 0.2] {
        let m = c.metrics(alpha, false);
        out.extend([m.coverage, m.size, m.position, m.empty_rate].map(f64::to_bits));
    }
    out
}

fn options() -> Vec<ScoreOptions> {
    let mut all = Vec::new();
    for kind in RvalueKind::ALL {
        for ties in TieOrder::ALL {
            for prior in Prior::ALL {
                let o = ScoreOptions { kind, ties, prior, ..ScoreOptions::default() };
                if prior == Prior::Pooled && kind != RvalueKind::Parametric {
                    continue;
                }
                all.push(o);
            }
        }
    }
    all.push(ScoreOptions { cp_draw: 2, ..ScoreOptions::default() });
    let per_class: Vec<ScoreOptions> =
        all.iter().map(|o| ScoreOptions { coverage: crate::conformal::Coverage::PerClass, ..*o }).collect();
    all.extend(per_class);
    all
}

/// Streams `t` and compares every method's calibrations with the in-memory path's.
fn check(t: &ScoreTensor, labels: &[usize], splits: &[Split], threads: usize, run: Streaming) {
    for opts in options() {
        let mut streamed: Vec<(Method, usize, Vec<u64>)> = Vec::new();
        calibrate_streamed(
            t,
            labels,
            &Method::ALL,
            &opts,
            splits,
            &run,
            &mut |_, _, _| {},
            &mut |m, r, c| {
                streamed.push((m, r, answers(&c)));
                Ok(())
            },
        )
        .unwrap();
        let mut memory = Vec::new();
        for m in Method::ALL {
            calibrate_each_lean(t, labels, None, m, &opts, splits, threads, |r, c| {
                memory.push((m, r, answers(&c)))
            })
            .unwrap();
        }
        streamed.sort_by_key(|(m, r, _)| (Method::ALL.iter().position(|x| x == m), *r));
        assert_eq!(streamed.len(), memory.len());
        for (a, b) in streamed.iter().zip(&memory) {
            assert!(a == b, "{opts:?}: {:?} split {} differs", a.0, a.1);
        }
    }
}

fn small(threads: usize) -> Streaming<'static> {
    Streaming { threads, block_bytes: 1, pooled_bytes: 1, ranker: None }
}

#[test]
fn the_toy_streamed_is_the_toy_in_memory() {
    let p = ToyParams {
        k: 6,
        m: 5,
        n_cal: 40,
        n_test: 30,
        sigma2: 30.0,
        high_var_fraction: 0.5,
        ..Default::default()
    };
    let (t, labels) = toy::simulate(&p, 0).unwrap();
    let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 4 }.splits(t.n()).unwrap();
    for threads in [1, 3] {
        check(&t, &labels, &splits, threads, small(threads));
    }
    // Blocks of several items, and every split in one pass.
    check(
        &t,
        &labels,
        &splits,
        2,
        Streaming { threads: 2, block_bytes: 7 * 5 * 6 * 8, pooled_bytes: usize::MAX, ranker: None },
    );
}

#[test]
fn tied_f32_scores_streamed_are_the_same() {
    // Few distinct values, stored as f32: ties within and across items and draws.
    let (n, m, k) = (37, 4, 5);
    let data: Vec<f32> = (0..n * m * k).map(|i| ((i * 7919) % 5) as f32 * 0.5).collect();
    let t = ScoreTensor::from_f32(n, m, k, data).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| (i * 3) % k).collect();
    let mask: Vec<bool> = (0..n).map(|i| i % 3 != 0).collect();
    let splits = [Split::from_mask(&mask).unwrap().keyed(9, 0), Split::random(n, 0.4, 2, 1).unwrap()];
    check(&t, &labels, &splits, 2, small(2));
}

#[test]
fn streamed_errors_are_the_in_memory_ones() {
    let (t, labels) =
        toy::simulate(&ToyParams { k: 3, m: 2, n_cal: 5, n_test: 5, ..Default::default() }, 0).unwrap();
    let splits = [Split::random(t.n(), 0.5, 1, 0).unwrap()];
    let run = Streaming::default();
    let go = |labels: &[usize], opts: &ScoreOptions| {
        calibrate_streamed(
            &t,
            labels,
            &Method::ALL,
            opts,
            &splits,
            &run,
            &mut |_, _, _| {},
            &mut |_, _, _| Ok(()),
        )
    };
    let e = go(&labels[1..], &ScoreOptions::default()).unwrap_err();
    assert_eq!(e, crate::conformal::check_data(&t, &labels[1..]).unwrap_err());
    let mut bad = labels.clone();
    bad[4] = 3;
    let e = go(&bad, &ScoreOptions::default()).unwrap_err();
    assert_eq!(e, crate::conformal::check_data(&t, &bad).unwrap_err());
    let e = go(&labels, &ScoreOptions { cp_draw: 2, ..ScoreOptions::default() }).unwrap_err();
    assert!(e.to_string().contains("CP's draw 2 does not exist"), "{e}");
}

/// A source that counts the blocks it hands out.
struct Counted<'a>(&'a ScoreTensor, AtomicUsize);

impl ScoreBlocks for Counted<'_> {
    fn shape(&self) -> (usize, usize, usize) {
        self.0.shape()
    }

    fn for_each_block(
        &self,
        items: usize,
        each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
    ) -> Result<()> {
        self.0.for_each_block(items, &mut |first, block| {
            self.1.fetch_add(1, Ordering::Relaxed);
            each(first, block)
        })
    }
}

/// `auto` read a block at a time is `auto` on the whole tensor; a row of logits in the last
/// block still decides, and data that the first block decides are not read further.
#[test]
fn the_reading_pass_decides_as_the_whole_tensor_and_stops_once_decided() {
    let (n, m, k) = (6, 2, 3);
    let row = [0.5, 0.25, 0.25];
    let probs: Vec<f64> = row.iter().copied().cycle().take(n * m * k).collect();
    let logs: Vec<f64> = probs.iter().map(|p: &f64| p.ln()).collect();
    let mut late_logits = probs.clone();
    late_logits[n * m * k - 1] = 3.0;
    for (data, want) in [
        (probs, ScoresAre::Probabilities),
        (logs, ScoresAre::LogProbabilities),
        (late_logits, ScoresAre::Logits),
    ] {
        let t = ScoreTensor::new(n, m, k, data).unwrap();
        let src = Counted(&t, AtomicUsize::new(0));
        let got = reading(&src, ScoresAre::Auto, &small(1), &mut |_, _, _| {}).unwrap();
        assert_eq!((got, src.1.load(Ordering::Relaxed)), (want, n), "{want}");
        assert_eq!(probability::resolve(&t, ScoresAre::Auto).unwrap(), want);
    }
    let t = ScoreTensor::new(n, m, k, (0..n * m * k).map(|x| x as f64).collect()).unwrap();
    let src = Counted(&t, AtomicUsize::new(0));
    let got = reading(&src, ScoresAre::Auto, &small(1), &mut |_, _, _| {}).unwrap();
    assert_eq!((got, src.1.load(Ordering::Relaxed)), (ScoresAre::Logits, 1));
}

/// A pooled pass reads blocks that give every thread a batch of test items to share each
/// draw's tables over: at the authors' ImageNet shape (M = K = 1,000) the plain 32 MB block
/// holds four test items; the pass takes eight a thread, within half its pooled budget, never
/// fewer than the plain block holds, and one where the budgets hold one.
#[test]
fn pooled_blocks_hold_a_batch_a_thread() {
    let default = Streaming::default();
    assert_eq!(items_per_block(1000, 1000, default.block_bytes), 4);
    for threads in [1, 2, 4] {
        let run = Streaming { threads, ..Streaming::default() };
        assert_eq!(pooled_block_items(1000, 1000, &run), threads * POOLED_BATCH / 2);
    }
    // Half the pooled budget bounds it (33 items of 8 MB), the plain block's size floors it.
    let many = Streaming { threads: 64, ..Streaming::default() };
    assert_eq!(pooled_block_items(1000, 1000, &many), 33);
    assert_eq!(pooled_block_items(10, 10, &many), items_per_block(10, 10, 32 << 20));
    assert_eq!(pooled_block_items(1000, 1000, &small(2)), 1);
}
