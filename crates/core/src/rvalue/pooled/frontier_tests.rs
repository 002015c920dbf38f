//! The frontier greedy against the counting greedy and the oracle: the same items, bit for bit.
//! Native only, as the frontier greedy.
#![cfg(not(target_arch = "wasm32"))]

use super::tests::{both_orders, float16_tensor, larger_tensor, plain, tensor_with_ties};
use super::*;
use proptest::prelude::*;

/// A workspace that counts every draw, where the split could run the frontier greedy.
fn counting() -> Workspace {
    Workspace { counting: true, ..Workspace::default() }
}

/// The frontier greedy with the floor at the best count itself: every fall of the best wakes
/// or reschedules every sleeping unit.
fn frontier_floor_at_best() -> Workspace {
    Workspace { floor_slack: Some(0), ..Workspace::default() }
}

/// Many draws of clipped normal scores around each unit's own level, rounded to a grid so that
/// draws tie: units rise through the ranks at different speeds, as the authors' adapters make them.
pub(super) fn many_draws() -> impl Strategy<Value = (ScoreTensor, Vec<usize>, usize)> {
    (40usize..160, 20usize..90, 2usize..24, 1u32..5, any::<u64>())
        .prop_map(|(n, m, k, grid, seed)| around_levels(n, m, k, grid, seed))
}

/// [`many_draws`]' case of `n` items, `m` draws and `k` classes on a grid of `1 / grid`, from
/// `seed`: the tensor, the labels and the calibration items' count.
fn around_levels(n: usize, m: usize, k: usize, grid: u32, seed: u64) -> (ScoreTensor, Vec<usize>, usize) {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let level: Vec<f64> = (0..n * k).map(|_| next() * 4.0).collect();
    let data = (0..n * m * k)
        .map(|i| {
            let (item, c) = (i / (m * k), i % k);
            let x = level[item * k + c] + (next() + next() + next() - 1.5) * 2.0;
            (x * f64::from(grid)).round() / f64::from(grid)
        })
        .collect();
    let labels = (0..n).map(|i| (i * 5 + 3) % k).collect();
    (ScoreTensor::new(n, m, k, data).unwrap(), labels, n * 3 / 4)
}

/// A fall of the floor can wake a unit before the last increment it scheduled, before it fell
/// asleep, has landed: those increments count once. Here, with the floor 8 below the last pick,
/// unit 61 of test item 130 fell asleep at step 68 with three still to land and woke at step 69;
/// found by [`many_draws`]. (At other distances this case takes another path.)
#[test]
fn a_wake_counts_the_increments_still_to_land_once() {
    let (t, labels, n_cal) = around_levels(134, 59, 21, 1, 8_950_190_119_264_563_571);
    let cal_items: Vec<usize> = (0..n_cal).collect();
    let batch: Vec<usize> = (n_cal..t.n()).collect();
    let split = PooledSplit::new(&t, &labels, &cal_items, Ties::INDEX).unwrap().with_unit_lists();
    let want = split.items(&t, &batch, None, &mut counting());
    let mut frontier = Workspace { floor_slack: Some(8), ..Workspace::default() };
    assert_eq!(split.items(&t, &batch, None, &mut frontier), want);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn frontier_equals_the_oracle_on_ties((t, labels, n_cal) in tensor_with_ties(), seed in any::<u64>()) {
        let cal_items: Vec<usize> = (0..n_cal).collect();
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap().with_unit_lists();
            for item in n_cal..t.n() {
                let oracle = pooled_item_oracle(&t, &labels, &cal_items, item, ties).unwrap();
                prop_assert_eq!(&split.item(&t, item, None, &mut Workspace::default()), &oracle);
                prop_assert_eq!(&split.item(&t, item, None, &mut frontier_floor_at_best()), &oracle);
            }
        }
    }

    #[test]
    fn frontier_equals_counting_on_many_draws((t, labels, n_cal) in many_draws(), seed in any::<u64>()) {
        let cal_items: Vec<usize> = (0..n_cal).collect();
        let batch: Vec<usize> = (n_cal..t.n()).collect();
        for ties in both_orders(seed) {
            let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap().with_unit_lists();
            let want = split.items(&t, &batch, None, &mut counting());
            prop_assert_eq!(&split.items(&t, &batch, None, &mut Workspace::default()), &want);
            prop_assert_eq!(&split.items(&t, &batch, None, &mut frontier_floor_at_best()), &want);
            let oracle = pooled_item_oracle(&t, &labels, &cal_items, batch[0], ties).unwrap();
            prop_assert_eq!(&want[0], &oracle);
        }
    }
}

/// The frontier greedy's items on every `step`-th test item after the first `n_cal`, both tie
/// orders keyed by `seed`, against those of the counting greedy's workspace `counting`.
fn equals_counting(
    (t, labels, n_cal): &(ScoreTensor, Vec<usize>, usize),
    step: usize,
    seed: u64,
    counting: fn() -> Workspace,
) -> std::result::Result<(), TestCaseError> {
    let cal_items: Vec<usize> = (0..*n_cal).collect();
    let batch: Vec<usize> = (*n_cal..t.n()).step_by(step).collect();
    for ties in both_orders(seed) {
        let split = PooledSplit::new(t, labels, &cal_items, ties).unwrap().with_unit_lists();
        let want = split.items(t, &batch, None, &mut counting());
        prop_assert_eq!(&split.items(t, &batch, None, &mut Workspace::default()), &want);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn frontier_equals_counting_on_many_units(case in larger_tensor(), seed in any::<u64>()) {
        equals_counting(&case, 3, seed, plain)?;
    }

    #[test]
    fn frontier_equals_counting_on_float16(case in float16_tensor(), seed in any::<u64>()) {
        equals_counting(&case, 2, seed, counting)?;
    }
}

/// A split of at least the frontier's draws keeps its lists and takes the frontier greedy;
/// the bench layout's shape in small: many draws, few candidates, float16 ties.
#[test]
fn splits_of_many_draws_take_the_frontier() {
    let (n, m, k) = (300, FRONTIER_DRAWS, 12);
    let bits: Vec<u16> = (0..n * m * k).map(|i| 0x3c00 + ((i as u64 * 2_654_435_761) % 97) as u16).collect();
    let t = ScoreTensor::from_f16_bits(n, m, k, bits).unwrap();
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let cal_items: Vec<usize> = (0..250).collect();
    let batch: Vec<usize> = (250..n).collect();
    for ties in both_orders(7) {
        let split = PooledSplit::new(&t, &labels, &cal_items, ties).unwrap();
        assert!(split.lists.is_some());
        let want = split.items(&t, &batch, None, &mut counting());
        assert_eq!(split.items(&t, &batch, None, &mut Workspace::default()), want);
    }
}
