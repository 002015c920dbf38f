//! The GPU path on a real adapter (lavapipe in CI): equal to the CPU path, exactly.
//!
//! Without an adapter these tests fail, unless `RVALUE_SKIP_GPU_TESTS=1` says to skip them
//! (for machines without `mesa-vulkan-drivers`; `make test` installs it).

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use proptest::prelude::*;
use rvalue_core::conformal::{Calibrated, Split};
use rvalue_core::rvalue::nonparametric::{rank_counts as cpu_counts_of_orders, sort_desc};
use rvalue_core::rvalue::{pooled_item_oracle, TieOrder};
use rvalue_core::toy::draws;
use std::sync::OnceLock;

/// The shared GPU, or `None` when skipping is allowed; panics when there is no adapter.
pub(crate) fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<std::result::Result<Gpu, String>> = OnceLock::new();
    let g = GPU.get_or_init(|| Gpu::new().map_err(|e| e.to_string()));
    match g {
        Ok(g) => Some(g),
        Err(_) if std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") => {
            eprintln!("skipping a GPU test: RVALUE_SKIP_GPU_TESTS=1 and no adapter");
            None
        }
        Err(e) => panic!("no GPU adapter ({e}); install mesa-vulkan-drivers or set RVALUE_SKIP_GPU_TESTS=1"),
    }
}

/// A GPU whose limits are forced small, so that every call needs several dispatches.
pub(crate) fn small_gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<std::result::Result<Gpu, String>> = OnceLock::new();
    gpu()?;
    let caps = Caps { max_binding: 4096, max_groups: 2 };
    let g = GPU.get_or_init(|| {
        Gpu::with_options(Options { caps: Some(caps), ..Default::default() }).map_err(|e| e.to_string())
    });
    Some(g.as_ref().expect("a second device on the same adapter"))
}

/// Scores with many exact ties (small integers, ±0), or f32 values, or f64 values that are
/// not f32 (two-word keys).
pub(crate) fn scores(kind: u8, len: usize, seed: u64) -> Vec<f64> {
    let mut s = rvalue_core::rng::Stream::new(seed, 99);
    (0..len)
        .map(|_| match kind % 3 {
            0 => [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0][s.below(6) as usize],
            1 => (s.uniform() as f32 * 8.0 - 4.0) as f64,
            _ => s.uniform() * 8.0 - 4.0,
        })
        .collect()
}

/// Cumulative counts the way `rvalue::nonparametric` computes them (sorting each draw).
fn reference_counts(s: &[f64], items: usize, m: usize, k: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(items * k * k);
    let mut order = vec![0u16; m * k];
    for b in 0..items {
        for d in 0..m {
            let at = (b * m + d) * k;
            sort_desc(&s[at..at + k], &mut order[d * k..(d + 1) * k]);
        }
        out.extend(cpu_counts_of_orders(order.chunks_exact(k), k));
    }
    out
}

fn check_counts(g: &Gpu, kind: u8, items: usize, m: usize, k: usize, seed: u64) {
    let s = scores(kind, items * m * k, seed);
    let keys = Keys::of(&s);
    assert_eq!(keys.words, if kind % 3 == 2 { 2 } else { 1 });
    let got = block_on(g.rank_counts(&keys, m, k)).unwrap().unwrap();
    let want = reference_counts(&s, items, m, k);
    // Report the first difference, not two vectors of up to a million counts.
    let first = got.iter().zip(&want).position(|(a, b)| a != b);
    assert!(
        got.len() == want.len() && first.is_none(),
        "kind {kind} B={items} M={m} K={k}: {} counts, {} expected; first difference at {first:?}",
        got.len(),
        want.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// K from 2 to 1024, M from 1 to 512, bounded work per case (lavapipe is slow).
    #[test]
    fn rank_counts_equal_the_cpu(kind in 0u8..3, k in prop_oneof![2usize..16, 16usize..=1024], m in 1usize..=512, seed in any::<u64>()) {
        let Some(g) = gpu() else { return Ok(()) };
        let m = m.min((1 << 22) / (k * k)).max(1);
        let items = ((1 << 22) / (m * k * k)).clamp(1, 5);
        check_counts(g, kind, items, m, k, seed);
    }
}

#[test]
fn rank_counts_at_the_extremes() {
    let Some(g) = gpu() else { return };
    // M·K ≥ 65536: without the draw slices (context.rs, MAX_LOOP) lavapipe returns short counts.
    check_counts(g, 0, 1, 512, 1024, 1);
    check_counts(g, 2, 1, 4, 1024, 2);
    check_counts(g, 1, 3, 512, 2, 3);
    check_counts(g, 0, 2, 512, 64, 4);
    // The CPU twin of the kernel agrees too.
    let s = scores(0, 3 * 7 * 9, 5);
    assert_eq!(cpu::rank_counts(&Keys::of(&s), 3, 7, 9), reference_counts(&s, 3, 7, 9));
}

#[test]
fn rank_counts_split_across_dispatches() {
    let Some(g) = small_gpu() else { return };
    // 4096-byte bindings hold 10 items of 10 × 10 one-word keys; 37 items need 4+ dispatches,
    // and two workgroups per dimension force a 2-D grid.
    for (kind, items, m, k) in [(0, 37, 10, 10), (2, 11, 3, 16), (1, 5, 1, 30)] {
        check_counts(g, kind, items, m, k, 7);
    }
    // One item that exceeds a binding is refused, with a message.
    let s = scores(1, 2 * 64 * 64, 1);
    let e = block_on(g.rank_counts(&Keys::of(&s), 2, 64)).unwrap().unwrap_err();
    assert!(matches!(&e, Error::Gpu { message: m } if m.contains("storage binding")), "{e}");
}

#[test]
fn nonparametric_rvalues_equal_the_core() {
    let Some(g) = gpu() else { return };
    for kind in 0..3 {
        let (n, m, k) = (20, 9, 7);
        let t = ScoreTensor::new(n, m, k, scores(kind, n * m * k, 11)).unwrap();
        let want: Vec<f64> = (0..n)
            .flat_map(|i| rvalue_core::rvalue::nonparametric(t.item(i, &mut Vec::new()), m, k))
            .collect();
        assert_eq!(nonparametric_rvalues(g, &t, &Keys::of_tensor(&t)).unwrap(), want);
    }
}

fn pooled_case(kind: u8, n: usize, m: usize, k: usize, seed: u64) -> (ScoreTensor, Vec<usize>, Split) {
    let t = ScoreTensor::new(n, m, k, scores(kind, n * m * k, seed)).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| (i * 7 + seed as usize) % k).collect();
    let split = Split::random(n, 0.5, seed, 0).unwrap();
    (t, labels, split)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pooled_items_equal_the_oracle(kind in 0u8..3, n in 4usize..40, m in 1usize..20, k in 2usize..12, seed in any::<u64>(), ties in 0usize..2) {
        let Some(g) = gpu() else { return Ok(()) };
        let (t, labels, split) = pooled_case(kind, n, m, k, seed);
        let ties = TieOrder::ALL[ties];
        let keys = Keys::of_tensor(&t);
        let got = pooled_items(g, &t, &keys, &labels, &split, ties).unwrap();
        prop_assert_eq!(&got, &pooled_items_cpu(&t, &keys, &labels, &split, ties).unwrap());
        for (it, &i) in got.iter().zip(&split.test) {
            prop_assert_eq!(it, &pooled_item_oracle(&t, &labels, &split.cal, i, split.ties(ties)).unwrap());
        }
    }
}

#[test]
fn pooled_positions_split_across_dispatches() {
    let Some(g) = small_gpu() else { return };
    let (t, labels, split) = pooled_case(0, 60, 13, 9, 3);
    let keys = Keys::of_tensor(&t);
    let cal = cpu::PooledCal::new(&t, &keys, &labels, &split.cal);
    positions_are_the_twins(g, (&t, &keys, &labels), &split, &cal);
}

/// The GPU's pooled positions of `split`'s test items equal the CPU twin's, in both tie orders.
fn positions_are_the_twins(
    g: &Gpu,
    (t, keys, labels): (&ScoreTensor, &Keys, &[usize]),
    split: &Split,
    cal: &cpu::PooledCal,
) {
    let test: Vec<u32> = split.test.iter().map(|&i| i as u32).collect();
    for ties in TieOrder::ALL {
        let ps = PooledSplit::new(t, labels, &split.cal, split.ties(ties)).unwrap();
        let orders = cpu::tie_orders(&ps, t, &test);
        let got = block_on(g.pooled_positions(keys, cal, &test, &orders)).unwrap().unwrap();
        assert_eq!(got, cpu::pooled_positions(keys, cal, &test, &orders), "{ties:?}");
    }
}

/// Calibration keys beyond the (forced small) binding: the draws go in groups, each group's
/// items in several dispatches, and the positions are the twin's, one-word and two-word keys.
#[test]
fn pooled_positions_in_groups_of_draws() {
    let Some(g) = small_gpu() else { return };
    for kind in [0, 2] {
        let (t, labels, split) = pooled_case(kind, 420, 13, 9, 6);
        let keys = Keys::of_tensor(&t);
        let cal = cpu::PooledCal::new(&t, &keys, &labels, &split.cal);
        let shape = cpu::PooledShape { n: cal.n, m: cal.m, k: cal.k, words: keys.words };
        assert!(g.draws_per_group(shape).unwrap() < cal.m, "one group of draws");
        positions_are_the_twins(g, (&t, &keys, &labels), &split, &cal);
    }
}

#[test]
fn pooled_items_in_chunks_equal_one_call() {
    let Some(g) = gpu() else { return };
    let (t, labels, split) = pooled_case(2, 50, 9, 7, 5);
    let keys = Keys::of_tensor(&t);
    let mut reported = Vec::new();
    let ties = TieOrder::Exchangeable;
    let got =
        block_on(pooled_items_chunked_async(g, &t, &keys, &labels, &split, ties, 4, |d| reported.push(d)))
            .unwrap()
            .unwrap();
    assert_eq!(got, pooled_items_cpu(&t, &keys, &labels, &split, ties).unwrap());
    let n = split.test.len();
    assert_eq!(reported, (1..=n.div_ceil(4)).map(|c| (4 * c).min(n)).collect::<Vec<_>>());
}

#[test]
fn pooled_calibrated_equals_the_core() {
    let Some(g) = gpu() else { return };
    let (t, labels, split) = pooled_case(1, 80, 12, 6, 9);
    for ties in TieOrder::ALL {
        let want = Calibrated::pooled(&t, &labels, None, &split, ties).unwrap();
        let got = pooled_calibrated(g, &t, &Keys::of_tensor(&t), &labels, &split, ties).unwrap();
        for alpha in [0.05, 0.1, 0.3] {
            assert_eq!(got.metrics(alpha, false), want.metrics(alpha, false));
            assert_eq!(got.sizes(alpha, true), want.sizes(alpha, true));
        }
    }
}

#[test]
fn draws_equal_the_cpu_twin_bit_for_bit() {
    let Some(g) = gpu() else { return };
    for (seed, first, items, m, k) in
        [(0u64, 0u32, 3u32, 30u32, 10u32), (u64::MAX, 4_000_000_000, 2, 7, 1024), (42, 17, 50, 1, 3)]
    {
        let got = block_on(g.normals(seed, first, items, m, k)).unwrap().unwrap();
        let want = draws::normals(seed, first, items, m, k);
        assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "seed {seed}");
        assert_eq!(got.len(), want.len());
    }
    // Several dispatches.
    let small = small_gpu().unwrap();
    let got = block_on(small.normals(5, 10, 40, 6, 11)).unwrap().unwrap();
    let want = draws::normals(5, 10, 40, 6, 11);
    assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()));
}

#[test]
fn toy_repeats_equal_the_cpu_simulator_bit_for_bit() {
    let Some(g) = gpu() else { return };
    let p = ToyParams { n_cal: 40, n_test: 30, m: 7, k: 10, repeats: 3, ..ToyParams::default() };
    for r in [0, 2] {
        let (got, labels) = toy_repeat(g, &p, r).unwrap();
        let (want, want_labels) = toy::simulate(&p, r).unwrap();
        assert!(
            got.data().iter().zip(want.data().iter()).all(|(a, b)| a.to_bits() == b.to_bits()),
            "repeat {r}"
        );
        assert_eq!((got.n(), got.m(), got.k(), labels), (want.n(), want.m(), want.k(), want_labels));
    }
    assert!(toy_repeat(g, &p, 3).is_err());
}

#[test]
fn a_shader_that_fails_to_compile_is_an_error() {
    if gpu().is_none() {
        return;
    }
    let broken = RANK_WGSL.replace("fn rank_in(", "fn rank_in(((");
    let e = Gpu::with_options(Options { rank_source: Some(broken), ..Default::default() }).unwrap_err();
    assert!(matches!(&e, Error::Gpu { message: m } if m.contains("compiling the kernels")), "{e}");
}

#[test]
fn no_adapter_is_an_error_and_auto_falls_back() {
    let e = Gpu::with_options(Options { no_adapter: true, ..Default::default() }).unwrap_err();
    assert!(matches!(&e, Error::Gpu { message: m } if m.contains("no GPU adapter")), "{e}");
    assert!(matches!(open(Device::Cpu), Ok((None, None))));
}

#[test]
fn a_lost_device_is_an_error() {
    if gpu().is_none() {
        return;
    }
    let g = Gpu::new().unwrap();
    let keys = Keys::of(&scores(0, 2 * 3 * 4, 1));
    assert!(block_on(g.rank_counts(&keys, 3, 4)).unwrap().is_ok());
    g.destroy_device();
    let e = block_on(g.rank_counts(&keys, 3, 4)).unwrap().unwrap_err();
    assert!(
        matches!(&e, Error::Gpu { message: m } if m.contains("lost") || m.contains("destroyed") || m.contains("invalid")),
        "{e}"
    );
}
