//! The GPU ranking a streamed file's blocks for pooled CP_r (lavapipe here) gives the CPU's
//! calibrations bit for bit: both tie orders, several splits, blocks of one item and of
//! several, one split a pass and all in one, tied, f32 and f64 scores, and through
//! true-label draws. Without an adapter these fail unless `RVALUE_SKIP_GPU_TESTS=1`.

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::cpu::PooledShape;
use crate::tests::{gpu, scores, small_gpu};
use crate::Gpu;
use rvalue_core::conformal::streamed::{calibrate_streamed, BlockRanker, Streaming};
use rvalue_core::conformal::true_draws::{calibrate_with_true_draws, true_draws_splits, TrueDraws};
use rvalue_core::conformal::{Calibrated, Method, RvalueKind, ScoreOptions, Split, SplitPlan};
use rvalue_core::rvalue::TieOrder;
use std::cell::Cell;

/// The GPU, counting the blocks whose pooled items it ranked: a run that never reached it
/// would otherwise pass for nothing.
struct Counted<'a> {
    gpu: &'a Gpu,
    blocks: Cell<usize>,
}

impl BlockRanker for Counted<'_> {
    fn nonparametric(&self, block: &ScoreTensor) -> Result<Option<Vec<f64>>> {
        self.gpu.nonparametric(block)
    }

    fn pooled(
        &self,
        split: &PooledSplit,
        block: &ScoreTensor,
        items: &[usize],
        key: usize,
        threads: usize,
    ) -> Result<Option<Vec<PooledItem>>> {
        self.blocks.set(self.blocks.get() + 1);
        self.gpu.pooled(split, block, items, key, threads)
    }
}

/// Everything a calibration answers: its items, rows, thresholds and metrics, as bits.
fn answers(c: &Calibrated) -> Vec<u64> {
    let mut out: Vec<u64> = c.test.iter().map(|&i| i as u64).collect();
    for t in 0..c.test.len() {
        out.extend(c.row(t).iter().map(|x| x.to_bits()));
        out.extend([0.05, 0.2, 0.5].map(|a| c.threshold(t, a).to_bits()));
    }
    for alpha in [0.05, 0.1, 0.3] {
        let m = c.metrics(alpha, false);
        out.extend([m.coverage, m.size, m.position, m.empty_rate].map(f64::to_bits));
    }
    out
}

fn pooled(ties: TieOrder) -> ScoreOptions {
    ScoreOptions { kind: RvalueKind::Pooled, ties, ..ScoreOptions::default() }
}

/// Every method's answers on every split, in the order they came.
type Answers = Vec<(Method, usize, Vec<u64>)>;

/// What `run(each)` hands `each`, as answers.
fn collect(run: impl FnOnce(&mut dyn FnMut(Method, usize, Calibrated) -> Result<()>)) -> Answers {
    let mut out = Vec::new();
    run(&mut |m, r, c| {
        out.push((m, r, answers(&c)));
        Ok(())
    });
    out
}

/// `go(run)` on the CPU and on the GPU with the same blocks and passes: the same answers, and
/// the GPU ranked at least `at_least` blocks.
fn same_on_both(g: &Gpu, cpu: Streaming, at_least: usize, go: impl Fn(&Streaming) -> Answers) {
    let want = go(&cpu);
    let counted = Counted { gpu: g, blocks: Cell::new(0) };
    let got = go(&Streaming { ranker: Some(&counted), ..cpu });
    assert!(counted.blocks.get() >= at_least, "the GPU ranked {} blocks", counted.blocks.get());
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(&want) {
        assert!(a == b, "{:?} split {} differs", a.0, a.1);
    }
}

/// Pooled CP_r on `t`'s `splits`, streamed on the CPU and on the GPU, both tie orders.
fn check_streamed(g: &Gpu, t: &ScoreTensor, labels: &[usize], splits: &[Split], cpu: Streaming) {
    for ties in TieOrder::ALL {
        same_on_both(g, cpu, splits.len(), |run| {
            let (methods, opts) = ([Method::CpR], pooled(ties));
            collect(|each| {
                calibrate_streamed(t, labels, &methods, &opts, splits, run, &mut |_, _, _| {}, each).unwrap()
            })
        });
    }
}

/// Scores of `kind` (`tests::scores`: tied, f32, or f64 that are not f32), f32 stored as f32.
fn tensor(kind: u8, (n, m, k): (usize, usize, usize), seed: u64) -> ScoreTensor {
    let data = scores(kind, n * m * k, seed);
    if kind == 1 {
        ScoreTensor::from_f32(n, m, k, data.iter().map(|&x| x as f32).collect()).unwrap()
    } else {
        ScoreTensor::new(n, m, k, data).unwrap()
    }
}

#[test]
fn streamed_pooled_on_the_gpu_is_the_cpus() {
    let Some(g) = gpu() else { return };
    let (n, m, k) = (41, 6, 5);
    for kind in 0..3u8 {
        let t = tensor(kind, (n, m, k), 7 + kind as u64);
        let labels: Vec<usize> = (0..n).map(|i| (i * 3 + kind as usize) % k).collect();
        let mut splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 4 }.splits(n).unwrap();
        let mask: Vec<bool> = (0..n).map(|i| i % 4 != 1).collect();
        splits.push(Split::from_mask(&mask).unwrap().keyed(9, 0));
        // Blocks of one item and a split a pass; blocks of 7 items, every split in one pass.
        let one = Streaming { threads: 1, block_bytes: 1, pooled_bytes: 1, ranker: None };
        check_streamed(g, &t, &labels, &splits, one);
        let several =
            Streaming { threads: 2, block_bytes: 7 * m * k * 8, pooled_bytes: usize::MAX, ranker: None };
        check_streamed(g, &t, &labels, &splits, several);
    }
}

/// Limits forced small: every block's positions take several dispatches.
#[test]
fn streamed_pooled_across_dispatches_is_the_cpus() {
    let Some(g) = small_gpu() else { return };
    let (n, m, k) = (60, 9, 7);
    let t = tensor(0, (n, m, k), 3);
    let labels: Vec<usize> = (0..n).map(|i| (i * 5) % k).collect();
    let splits = SplitPlan::Random { count: 2, cal_fraction: 0.6, seed: 2 }.splits(n).unwrap();
    let run = Streaming { threads: 2, block_bytes: 30 * m * k * 8, pooled_bytes: usize::MAX, ranker: None };
    check_streamed(g, &t, &labels, &splits, run);
}

/// `calibrate_with_true_draws`: true-label draws and streamed f32 test items, every method
/// the true draws take. Both tie often; the true draws' scores are f32 (one-word keys) or, with one that
/// is not, all take two words.
#[test]
fn true_draws_ranked_on_the_gpu_are_the_cpus() {
    let Some(g) = gpu() else { return };
    let (n_true, n_test, m, k) = (30, 23, 5, 6);
    let tied = tensor(0, (n_test, m, k), 11).data().iter().map(|&x| x as f32).collect();
    let test = ScoreTensor::from_f32(n_test, m, k, tied).unwrap();
    let labels: Vec<usize> = (0..n_test).map(|i| (i * 7) % k).collect();
    for not_f32 in [false, true] {
        let mut draws = scores(0, n_true * m, 5);
        if not_f32 {
            draws[17] = 0.1;
        }
        let true_draws = TrueDraws::new(n_true, m, draws).unwrap();
        let splits = true_draws_splits(n_true, n_test, Some((20, 15)), 3, 8).unwrap();
        let methods = [Method::Cp, Method::CpAvg, Method::CpR];
        let cpu = Streaming { threads: 2, block_bytes: 1, pooled_bytes: 1, ranker: None };
        true_draws_on_both(g, cpu, (&true_draws, &test, &labels), &methods, &splits);
    }
}

/// `calibrate_with_true_draws` of `methods` on the test items `data` with their labels, run
/// as `cpu` and with `g` ranking, the same in both tie orders ([`same_on_both`]).
fn true_draws_on_both(
    g: &Gpu,
    cpu: Streaming,
    (true_draws, test, labels): (&TrueDraws, &ScoreTensor, &[usize]),
    methods: &[Method],
    splits: &[Split],
) {
    for ties in TieOrder::ALL {
        same_on_both(g, cpu, splits.len(), |run| {
            let (opts, mut report) = (pooled(ties), |_: &str, _: usize, _: usize| {});
            collect(|each| {
                calibrate_with_true_draws(
                    true_draws,
                    test,
                    labels,
                    methods,
                    &opts,
                    splits,
                    run,
                    &mut report,
                    each,
                )
                .unwrap()
            })
        });
    }
}

/// Scores as float16 bits: half from six tied values (±0 among them), half any finite
/// float16, subnormals included.
fn f16_bits(len: usize, seed: u64) -> Vec<u16> {
    const TIED: [u16; 6] = [0x3c00, 0x4000, 0xbc00, 0x0000, 0x8000, 0x3555];
    let mut s = rvalue_core::rng::Stream::new(seed, 7);
    (0..len)
        .map(|_| match s.below(2) {
            0 => TIED[s.below(6) as usize],
            _ => s.below(0x7c00) as u16 | (s.below(2) as u16) << 15,
        })
        .collect()
}

/// `bits`' scores stored as float16, as f32, or (scaled by 0.1, so not f32: two-word keys) as f64.
fn stored(kind: u8, (n, m, k): (usize, usize, usize), bits: Vec<u16>) -> ScoreTensor {
    let wide = || ScoreTensor::from_f16_bits(n, m, k, bits.clone()).unwrap().data().into_owned();
    match kind {
        0 => ScoreTensor::from_f16_bits(n, m, k, bits).unwrap(),
        1 => ScoreTensor::from_f32(n, m, k, wide().iter().map(|&x| x as f32).collect()).unwrap(),
        _ => ScoreTensor::new(n, m, k, wide().iter().map(|&x| x * 0.1).collect()).unwrap(),
    }
}

/// The authors' layout in small (`--calibration-true` with every unit, and random subsets):
/// true draws and test items stored as float16, f32 or f64, with limits so small that a
/// split's calibration keys go in several groups of draws and every group's items in several
/// dispatches.
#[test]
fn true_draws_in_groups_of_draws_are_the_cpus() {
    let Some(g) = small_gpu() else { return };
    let (n_true, n_test, m, k) = (300, 9, 7, 5);
    let labels: Vec<usize> = (0..n_test).map(|i| (i * 3) % k).collect();
    for kind in 0..3u8 {
        let true_draws =
            TrueDraws::of_single_draw(stored(kind, (n_true, 1, m), f16_bits(n_true * m, 2))).unwrap();
        let test = stored(kind, (n_test, m, k), f16_bits(n_test * m * k, 3));
        let words = if kind == 2 { 2 } else { 1 };
        let groups = g.draws_per_group(PooledShape { n: n_true, m, k, words }).unwrap();
        assert!(groups < m, "{groups} draws a group: one group holds every draw");
        let mut splits = true_draws_splits(n_true, n_test, None, 1, 8).unwrap();
        splits.extend(true_draws_splits(n_true, n_test, Some((250, 7)), 2, 8).unwrap());
        let cpu =
            Streaming { threads: 2, block_bytes: 4 * m * k * 2, pooled_bytes: usize::MAX, ranker: None };
        true_draws_on_both(g, cpu, (&true_draws, &test, &labels), &[Method::CpR], &splits);
    }
}

/// One draw of calibration keys beyond a storage binding is an `Error::Gpu` saying so, not a
/// failed allocation or a panic.
#[test]
fn a_draw_beyond_a_binding_is_a_gpu_error() {
    let Some(g) = small_gpu() else { return };
    let (n, m, k) = (1100, 2, 3);
    let t = stored(1, (n, m, k), f16_bits(n * m * k, 4));
    let cal: Vec<usize> = (0..1030).collect();
    let ps = PooledSplit::new(&t, &vec![0; n], &cal, rvalue_core::rvalue::Ties::INDEX).unwrap();
    let e = pooled_block_items(g, &ps, &t, &[1040, 1050], 0, 1).unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }) && e.to_string().contains("storage binding"), "{e}");
}

/// The CPU twin (positions from `cpu::pooled_positions`) is the core's own greedy on a block,
/// its items keyed by their place in the whole data set.
#[test]
fn the_block_twin_is_the_cores_greedy() {
    let (n, m, k) = (20, 4, 5);
    for kind in 0..3u8 {
        let t = tensor(kind, (n, m, k), 1 + kind as u64);
        let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
        let cal: Vec<usize> = (0..n).step_by(2).collect();
        let block = t.items(8..20);
        let items = [1, 2, 5, 9, 11];
        for ties in TieOrder::ALL {
            let split = Split::new(cal.clone(), vec![]).keyed(3, 1);
            let ps = PooledSplit::new(&t, &labels, &cal, split.ties(ties)).unwrap();
            let want = ps.items_at(&block, &items, 8, None, &mut Workspace::default());
            for threads in [1, 3] {
                assert_eq!(pooled_block_items_cpu(&ps, &block, &items, 8, threads).unwrap(), want);
            }
        }
    }
}

/// A GPU that fails (its device destroyed) is an `Error::Gpu`, for the caller to fall back on.
#[test]
fn a_failing_gpu_is_a_gpu_error() {
    if gpu().is_none() {
        return;
    }
    let g = Gpu::new().unwrap();
    g.destroy_device();
    let t = tensor(1, (10, 3, 4), 2);
    let labels = vec![0; 10];
    let ps = PooledSplit::new(&t, &labels, &[0, 1, 2], rvalue_core::rvalue::Ties::INDEX).unwrap();
    let e = pooled_block_items(&g, &ps, &t, &[4, 5], 0, 1).unwrap_err();
    assert!(matches!(e, Error::Gpu { .. }), "{e}");
}
