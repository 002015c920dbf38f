use super::table::{EntryTable, Node, CHILD};
use super::*;
use crate::rvalue::TieOrder;
#[cfg(not(target_arch = "wasm32"))]
use proptest::prelude::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const TINY: &str = include_str!("../../../../../tests/data/reference/pooled_tiny.json");

/// `tests/data/reference/pooled_tiny.json`: scores, labels, calibration mask, α and the expected
/// r-values and sets per test item under the index tie order. Shared with the conformal tests.
pub(crate) fn tiny() -> (ScoreTensor, Vec<usize>, Vec<bool>, f64, serde_json::Value) {
    let v: serde_json::Value = serde_json::from_str(TINY).unwrap();
    let scores = v["scores"].as_array().unwrap();
    let (n, m, k) =
        (scores.len(), scores[0].as_array().unwrap().len(), scores[0][0].as_array().unwrap().len());
    let data: Vec<f64> = scores
        .iter()
        .flat_map(|i| i.as_array().unwrap().iter())
        .flat_map(|d| d.as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .collect();
    let t = ScoreTensor::new(n, m, k, data).unwrap();
    let labels = v["labels"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
    let cal = v["calibration"].as_array().unwrap().iter().map(|x| x.as_bool().unwrap()).collect();
    let alpha = v["alpha"].as_f64().unwrap();
    (t, labels, cal, alpha, v["test_items"].clone())
}

#[test]
fn reproduces_the_pooled_reference_case() {
    let (t, labels, cal, alpha, expected) = tiny();
    let cal_items: Vec<usize> = (0..t.n()).filter(|&i| cal[i]).collect();
    let split = PooledSplit::new(&t, &labels, &cal_items, Ties::INDEX).unwrap();
    let order = DrawOrder::of(&t).unwrap();
    let mut work = Workspace::default();
    for e in expected.as_array().unwrap() {
        let item = e["item"].as_u64().unwrap() as usize;
        let want_r: Vec<f64> = e["rvalues"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let want_set: Vec<usize> =
            e["set"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
        for got in [
            split.item(&t, item, Some(&order), &mut work),
            split.item(&t, item, None, &mut work),
            pooled_item_oracle(&t, &labels, &cal_items, item, Ties::INDEX).unwrap(),
        ] {
            let r = got.rvalues();
            for (a, b) in r.iter().zip(&want_r) {
                assert!((a - b).abs() < 1e-11, "item {item}: {r:?} vs {want_r:?}");
            }
            assert_eq!(got.set(alpha), want_set, "item {item}");
        }
    }
}

/// Positions found elsewhere (the GPU path) give what the item's own ranking gives; positions
/// that collide or fall outside the units are an error.
#[test]
fn positions_give_the_same_item_and_bad_ones_are_refused() {
    let (t, labels, cal, _, expected) = tiny();
    let cal_items: Vec<usize> = (0..t.n()).filter(|&i| cal[i]).collect();
    let split = PooledSplit::new(&t, &labels, &cal_items, Ties::INDEX).unwrap();
    let mut work = Workspace::default();
    let (n, m, k) = (cal_items.len(), t.m(), t.k());
    for e in expected.as_array().unwrap() {
        let item = e["item"].as_u64().unwrap() as usize;
        // Each candidate's position: the calibration units at or above it, and the candidates
        // ranked before it (docs/method.md §4's tie rule, as the oracle ranks).
        let mut pos = vec![0u32; m * k];
        for d in 0..m {
            let mut buf = Vec::new();
            let s = t.draw(item, d, &mut buf);
            for c in 0..k {
                let cal_at_or_above = cal_items.iter().filter(|&&j| t.get(j, d, labels[j]) >= s[c]).count();
                let cands_before = (0..k).filter(|&o| s[o] > s[c] || (s[o] == s[c] && o < c)).count();
                pos[d * k + c] = (cal_at_or_above + cands_before) as u32;
            }
        }
        let want = split.item(&t, item, None, &mut work);
        assert_eq!(split.item_from_positions(item as u64, &pos, &mut work).unwrap(), want, "item {item}");
        let mut collide = pos.clone();
        collide[1] = collide[0];
        let mut outside = pos.clone();
        outside[0] = (n + k) as u32;
        for bad in [collide, outside, pos[1..].to_vec()] {
            assert!(split.item_from_positions(item as u64, &bad, &mut work).is_err());
        }
    }
}

#[test]
fn boundary_is_one_when_k_star_exceeds_n() {
    let (t, labels, _, _, _) = tiny();
    let cal_items = [0, 1, 2];
    let split = PooledSplit::new(&t, &labels, &cal_items, Ties::default()).unwrap();
    let it = split.item(&t, 12, None, &mut Workspace::default());
    // n = 3, α = 0.1: k* = ⌈4 · 0.9⌉ = 4 > 3.
    assert_eq!(it.boundary(0.1), 1.0);
    assert_eq!(it.set(0.1), vec![0, 1, 2, 3]);
}

#[cfg(not(target_arch = "wasm32"))]
pub(super) fn tensor_with_ties() -> impl Strategy<Value = (ScoreTensor, Vec<usize>, usize)> {
    (2usize..12, 1usize..7, 2usize..6).prop_flat_map(|(n, m, k)| {
        (proptest::collection::vec(0i32..4, n * m * k), proptest::collection::vec(0usize..k, n), 1usize..n)
            .prop_map(move |(v, labels, n_cal)| {
                let t = ScoreTensor::new(n, m, k, v.into_iter().map(f64::from).collect()).unwrap();
                (t, labels, n_cal)
            })
    })
}

#[cfg(not(target_arch = "wasm32"))]
proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_equals_the_oracle((t, labels, n_cal) in tensor_with_ties(), seed in any::<u64>()) {
        let cal_items: Vec<usize> = (0..n_cal).collect();
        let order = DrawOrder::of(&t).unwrap();
        let mut work = Workspace::default();
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
            for item in n_cal..t.n() {
                let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
                prop_assert_eq!(&split.item(&t, item, Some(&order), &mut work), &oracle);
                prop_assert_eq!(&split.item(&t, item, None, &mut work), &oracle);
                prop_assert_eq!(&split.item(&t, item, None, &mut plain()), &oracle);
                prop_assert_eq!(&split.item(&t, item, None, &mut plain_floor_at_best()), &oracle);
            }
        }
    }
}

/// The index order and an exchangeable order keyed by `seed`.
pub(super) fn both_orders(seed: u64) -> [Ties; 2] {
    [Ties::INDEX, Ties::new(TieOrder::Exchangeable, seed, seed >> 7)]
}

/// A workspace whose greedy takes the portable picks even where the CPU could take the wide ones,
/// `u32` unit ids even where `u16` would do, and the general entry points even for float16
/// candidates against value tables.
pub(super) fn plain() -> Workspace {
    Workspace { plain_picks: true, wide_ids: true, general_entries: true, ..Workspace::default() }
}

/// [`plain`] with the picks' floor at the best count itself: each fall of the best finds every
/// block maximum again, so the greedy's picks rest on those refreshes as often as they can.
#[cfg(not(target_arch = "wasm32"))]
fn plain_floor_at_best() -> Workspace {
    Workspace { floor_slack: Some(0), ..plain() }
}

/// Up to 32 blocks the greedy can keep the block maxima in registers (module `register_picks`), past them it
/// cannot: units just below, at and above that limit, with ties and distinct scores, the wide
/// and the portable picks agree (and, with ties, the oracle too).
#[test]
fn picks_agree_around_the_register_limit() {
    for (n_cal, k, ties) in [(2040, 7, true), (2040, 8, false), (2040, 9, true), (1990, 58, false)] {
        let (n, m) = (n_cal + 3, 3);
        let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ (n_cal * k) as u64;
        let data: Vec<f64> = (0..n * m * k)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if ties {
                    (state % 5) as f64
                } else {
                    (state >> 11) as f64 / (1u64 << 53) as f64
                }
            })
            .collect();
        let t = ScoreTensor::new(n, m, k, data).unwrap();
        let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
        let cal_items: Vec<usize> = (0..n_cal).collect();
        for order in both_orders(k as u64) {
            let split = PooledSplit::new(&t, &labels, &cal_items, order).unwrap();
            let mut work = Workspace::default();
            for item in n_cal..n {
                let wide = split.item(&t, item, None, &mut work);
                assert_eq!(wide, split.item(&t, item, None, &mut plain()), "U = {}, item {item}", n_cal + k);
                if ties && item == n_cal {
                    assert_eq!(wide, pooled_item_oracle(&t, &labels, &cal_items, item, order).unwrap());
                }
            }
        }
    }
}

/// Scores at the ends of the f64 range and a step of one subnormal: the entry tables' scale is
/// not finite or their buckets collapse, and the exact scan must still place every candidate.
#[test]
fn extreme_scores_equal_the_oracle() {
    let (n, m, k) = (40, 3, 5);
    let pick = [f64::MAX, -f64::MAX, 0.0, 5e-324, -5e-324, 1e300, -1e300, 1.0];
    let data: Vec<f64> = (0..n * m * k).map(|i| pick[(i * 7 + i / 3) % pick.len()]).collect();
    let t = ScoreTensor::new(n, m, k, data).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let cal_items: Vec<usize> = (0..30).collect();
    for ties in both_orders(5) {
        let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
        let mut work = Workspace::default();
        for item in 30..n {
            let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
            assert_eq!(split.item(&t, item, None, &mut work), oracle, "item {item} {ties:?}");
        }
    }
}

/// Several blocks of units, runs of every length between candidates, ties and distinct scores.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn larger_tensor() -> impl Strategy<Value = (ScoreTensor, Vec<usize>, usize)> {
    (70usize..260, 1usize..9, 2usize..40, any::<bool>()).prop_flat_map(|(n, m, k, ties)| {
        let value = if ties { (0i32..6).prop_map(f64::from).boxed() } else { (-3.0f64..3.0).boxed() };
        (proptest::collection::vec(value, n * m * k), proptest::collection::vec(0usize..k, n), 60usize..n)
            .prop_map(move |(v, labels, n_cal)| (ScoreTensor::new(n, m, k, v).unwrap(), labels, n_cal))
    })
}

#[cfg(not(target_arch = "wasm32"))]
proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_equals_the_oracle_on_many_units((t, labels, n_cal) in larger_tensor(), seed in any::<u64>()) {
        let cal_items: Vec<usize> = (0..n_cal).collect();
        let order = DrawOrder::of(&t).unwrap();
        let mut work = Workspace::default();
        let batch: Vec<usize> = (n_cal..t.n()).step_by(3).collect();
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
            let together = split.items(&t, &batch, None, &mut work);
            let plain_together = split.items(&t, &batch, None, &mut plain());
            prop_assert_eq!(&split.items(&t, &batch, None, &mut plain_floor_at_best()), &plain_together);
            for ((&item, got), got_plain) in batch.iter().zip(&together).zip(&plain_together) {
                let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
                prop_assert_eq!(&split.item(&t, item, Some(&order), &mut work), &oracle);
                prop_assert_eq!(got, &oracle);
                prop_assert_eq!(got_plain, &oracle);
            }
        }
    }
}

/// Softmax-probability-like scores: most near 0 (tiny normals, `f32` and `f64` subnormals,
/// exact zeros), the rest crowding towards 1, with ties at 0, at 1 and at a few repeated
/// values. The entry tables refine the crowded key ranges node by node and give tied runs
/// nodes of their own; every candidate must still enter where the oracle's ranking puts it.
#[test]
fn probability_like_scores_equal_the_oracle() {
    let (n_cal, m, k) = (400, 4, 24);
    let n = n_cal + 6;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let data: Vec<f64> = (0..n * m * k)
        .map(|_| {
            let r = next();
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            match r % 10 {
                0 => 0.0,
                1 => f64::from(f32::from_bits((r >> 40) as u32 & 0x007f_ffff)),
                2 => 5e-324 * ((r >> 50) % 4) as f64,
                3 => 1.0,
                4 => [1e-30, 0.5, 1.0 - 1e-7][(r >> 32) as usize % 3],
                5 | 6 => libm::exp(-700.0 * u),
                _ => f64::from((1.0 - u * u * 1e-3) as f32),
            }
        })
        .collect();
    let t = ScoreTensor::new(n, m, k, data).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let cal_items: Vec<usize> = (0..n_cal).collect();
    let order = DrawOrder::of(&t).unwrap();
    for ties in [Ties::INDEX, Ties::new(TieOrder::Exchangeable, 11, 3)] {
        let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
        let mut work = Workspace::default();
        let test: Vec<usize> = (n_cal..n).collect();
        let together = split.items(&t, &test, Some(&order), &mut work);
        for (&item, got) in test.iter().zip(&together) {
            let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
            assert_eq!(got, &oracle, "item {item} {ties:?}");
            assert_eq!(split.item(&t, item, None, &mut work), oracle, "item {item} {ties:?}");
        }
    }
}

/// Every score's entry point is the count of calibration scores at or above it, on the
/// probability-shaped benchmark workload's first draws (subnormals, zeros and ties at 1).
#[test]
fn entry_points_are_counts_on_clip_like_probabilities() {
    let (t, labels) = crate::samples::clip_probabilities(300, 3, 100, 4).unwrap();
    for d in 0..t.m() {
        let mut cal_s: Vec<f64> = (0..200).map(|i| t.get(i, d, labels[i])).collect();
        cal_s.sort_by(|a, b| b.total_cmp(a));
        // One bucket per score on odd draws, as large tables have it.
        let table = EntryTable::new(&cal_s, 1 + d % 2);
        // The scores crowd near 0: buckets are refined by key nodes, two levels deep at least.
        let nested = |node: &Node| {
            let slots = &table.slots[node.first_slot as usize..=(node.first_slot + node.last) as usize];
            slots.iter().any(|&s| s & CHILD != 0)
        };
        assert!(table.nodes.iter().any(nested), "draw {d}: {} nodes", table.nodes.len());
        cal_s.extend([f64::NEG_INFINITY; PAD]);
        for &s in t.data().iter() {
            let want = cal_s.iter().filter(|&&c| c >= s).count();
            let mut got = [0u32];
            table.entries(&cal_s, std::iter::once(s), &mut got);
            assert_eq!(got[0] as usize, want, "score {s:e}, draw {d}");
        }
    }
}

/// Runs of equal scores get two-slot nodes: a score equal to the run enters after all of it,
/// a higher one before, and the leaf scan never walks the run.
#[test]
fn runs_of_equal_scores_get_their_own_node() {
    let mut cal_s: Vec<f64> = (0..50).map(|i| 1.0 - i as f64 * 1e-3).collect();
    cal_s.extend([1e-40; 30]);
    cal_s.extend([0.0; 20]);
    let table = EntryTable::new(&cal_s, 2);
    assert!(table.nodes.iter().any(|n| n.last == 1 && n.shift == 0));
    let n = cal_s.len();
    cal_s.extend([f64::NEG_INFINITY; PAD]);
    for (score, want) in [(1e-40, 80), (2e-40, 50), (0.0, 100), (5e-324, 80), (-0.0, 100), (1.0, 1)] {
        let mut got = [0u32];
        table.entries(&cal_s, std::iter::once(score), &mut got);
        assert_eq!(got[0] as usize, want.min(n), "score {score:e}");
    }
}

/// Tables past half a GB take one bucket per score; the paper's `[40000, 100]` keeps two. The
/// ImageNet layout's split, with the frontier greedy's lists natively, stays within 1.25 GB.
#[test]
fn only_large_tables_take_one_bucket_per_score() {
    assert_eq!(PooledSplit::buckets_per_score(40_000, 100), 2);
    assert_eq!(PooledSplit::buckets_per_score(40_000, 1000), 1);
    let bytes = PooledSplit::bytes_for(40_000, 1000);
    let per_unit_draw = if cfg!(target_arch = "wasm32") { 26 } else { 30 };
    assert!((40_000 * 1000 * per_unit_draw..5 << 28).contains(&bytes), "{bytes}");
}

/// Float16 scores from a handful of neighbouring values, stored as float16, float32 or
/// float64: long runs of calibration scores tie each candidate, so the entry points search
/// back through runs of every length, and the split's draws sort by packed keys of either
/// width (every float16 is a single-precision number; `f64` offsets make the rest wide).
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn float16_tensor() -> impl Strategy<Value = (ScoreTensor, Vec<usize>, usize)> {
    (60usize..200, 1usize..5, 2usize..12, 0usize..3).prop_flat_map(|(n, m, k, width)| {
        (proptest::collection::vec(0u16..7, n * m * k), proptest::collection::vec(0usize..k, n), 40usize..n)
            .prop_map(move |(steps, labels, n_cal)| {
                // 1.0 and the next six float16 values.
                let bits: Vec<u16> = steps.iter().map(|&s| 0x3c00 + s).collect();
                let wide = |b: u16| f64::from(f32::from_bits(f16_bits_to_f32_bits(b)));
                let t = match width {
                    0 => ScoreTensor::from_f16_bits(n, m, k, bits).unwrap(),
                    1 => ScoreTensor::from_f32(n, m, k, bits.iter().map(|&b| wide(b) as f32).collect())
                        .unwrap(),
                    // Off the single-precision grid by a tiny step: the wide packed keys.
                    _ => ScoreTensor::new(n, m, k, bits.iter().map(|&b| wide(b) + 1e-12).collect()).unwrap(),
                };
                (t, labels, n_cal)
            })
    })
}

/// The float32 bits of a normal, positive float16 (all [`float16_tensor`] makes).
#[cfg(not(target_arch = "wasm32"))]
fn f16_bits_to_f32_bits(b: u16) -> u32 {
    let (exp, mantissa) = (u32::from(b >> 10 & 0x1f), u32::from(b & 0x3ff));
    (exp + 127 - 15) << 23 | mantissa << 13
}

#[cfg(not(target_arch = "wasm32"))]
proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn float16_runs_of_ties_equal_the_oracle((t, labels, n_cal) in float16_tensor(), seed in any::<u64>()) {
        let cal_items: Vec<usize> = (0..n_cal).collect();
        let mut work = Workspace::default();
        let batch: Vec<usize> = (n_cal..t.n()).step_by(2).collect();
        // Scores on the float16 grid take the value tables (`codes`), the others the general ones.
        let on_grid = t.data().iter().all(|&x| f64::from(x as f32) == x);
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
            let by_value = split.entry.iter().all(|e| matches!(e, codes::DrawEntry::Codes(_)));
            prop_assert_eq!(by_value, on_grid);
            let together = split.items(&t, &batch, None, &mut work);
            let plain_together = split.items(&t, &batch, None, &mut plain());
            let wide = Workspace { wide_ids: true, ..Workspace::default() };
            let wide_together = split.items(&t, &batch, None, &mut { wide });
            for (((&item, got), got_plain), got_wide) in batch.iter().zip(&together).zip(&plain_together).zip(&wide_together) {
                let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
                prop_assert_eq!(got, &oracle);
                prop_assert_eq!(got_plain, &oracle);
                prop_assert_eq!(got_wide, &oracle);
            }
        }
    }

    /// Float16 candidates against value tables (module `entries16`) across the sign: the
    /// calibration items hold both zeros and the smallest subnormals of either sign (a range of
    /// values narrow enough for the tables), the test items those and ±1 and the largest finite
    /// values, beyond every calibration score. Their entry points give the items the general
    /// entry points give, and the oracle's, in both tie orders.
    #[test]
    fn float16_candidates_of_either_sign_equal_the_general_path(
        (n, m, k) in (40usize..90, 1usize..4, 2usize..10),
        picks in proptest::collection::vec(0usize..12, 90 * 4 * 10),
        seed in any::<u64>(),
    ) {
        const BITS: [u16; 12] =
            [0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x8003, 0x0010, 0x8010, 0x3c00, 0xbc00, 0x7bff, 0xfbff];
        // Calibration items take the first eight values, test items all twelve.
        let bits: Vec<u16> = picks[..n * m * k]
            .iter()
            .enumerate()
            .map(|(i, &p)| BITS[if i / (m * k) < n / 2 { p % 8 } else { p }])
            .collect();
        let t = ScoreTensor::from_f16_bits(n, m, k, bits).unwrap();
        let labels: Vec<usize> = (0..n).map(|i| (i * 7 + seed as usize) % k).collect();
        let cal_items: Vec<usize> = (0..n / 2).collect();
        let batch: Vec<usize> = (n / 2..n).collect();
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
            let by_value = split.entry.iter().all(|e| matches!(e, codes::DrawEntry::Codes(_)));
            prop_assert!(by_value);
            let fast = split.items(&t, &batch, None, &mut Workspace::default());
            let general = split.items(&t, &batch, None, &mut plain());
            prop_assert_eq!(&fast, &general);
            let wide = Workspace { wide_ids: true, ..Workspace::default() };
            prop_assert_eq!(&split.items(&t, &batch, None, &mut { wide }), &general);
            for (&item, got) in batch.iter().zip(&fast).take(3) {
                prop_assert_eq!(got, &pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap());
            }
        }
    }

    /// Galloping back from an entry point finds the start of its run of equal scores where a
    /// binary search over the whole prefix does, for runs of every length.
    #[test]
    fn run_starts_are_the_prefix_searches(runs in proptest::collection::vec(1usize..70, 1..40), at in any::<proptest::sample::Index>()) {
        let cal_s: Vec<f64> =
            runs.iter().enumerate().flat_map(|(r, &len)| std::iter::repeat_n(-(r as f64), len)).collect();
        let at = at.index(cal_s.len()) + 1;
        let s = cal_s[at - 1];
        prop_assert_eq!(table::run_start(&cal_s, at, s), cal_s[..at].partition_point(|&x| x > s));
    }

    /// A draw's units sorted by packed integer keys are in the comparison sort's order
    /// (descending score, `−0` tying `+0`, ties to the lower unit), for single-precision and
    /// other scores.
    #[test]
    fn packed_keys_sort_units_as_scores_compare(
        column in proptest::collection::vec(prop_oneof![
            (-4i32..4).prop_map(|x| f64::from(x) * 0.5),
            Just(-0.0),
            -1e3f64..1e3,
            any::<f32>().prop_filter("finite", |x| x.is_finite()).prop_map(f64::from),
        ], 1..300),
        narrow in any::<bool>(),
    ) {
        let column: Vec<f64> = if narrow { column.iter().map(|&x| f64::from(x as f32)).collect() } else { column };
        let mut want: Vec<u32> = (0..column.len() as u32).collect();
        want.sort_by(|&a, &b| column[b as usize].partial_cmp(&column[a as usize]).unwrap().then(a.cmp(&b)));
        let (mut idx, mut words, mut wide) = (Vec::new(), Vec::new(), Vec::new());
        sort_column(&column, &mut idx, &mut words, &mut wide);
        prop_assert_eq!(idx, want);
    }
}
