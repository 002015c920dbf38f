//! The bounds under the best count ([`super::bounds`]) against the counts they bound, found
//! one by one. Native only, as the frontier greedy that reads them.
#![cfg(not(target_arch = "wasm32"))]

use super::frontier_tests::many_draws;
use super::shifts::Shifts;
use super::tests::larger_tensor;
use super::*;
use proptest::prelude::*;

/// `[x]` how many of unit `x`'s draws stand in the top `j` places of their merged rankings
/// with the candidates that enter draw `d` after `entries[d][..]` units.
fn counts_at(split: &PooledSplit, entries: &[u32], j: usize) -> Vec<usize> {
    let (n, m, k) = (split.n, split.m, split.k);
    let mut count = vec![0; n];
    for d in 0..m {
        let e = &entries[d * k..(d + 1) * k];
        for p in 0..n {
            // The candidates entering at or before rank `p` stand above it.
            let place = p + e.iter().filter(|&&x| x as usize <= p).count();
            if place < j {
                count[split.cal_units[d * n + p] as usize] += 1;
            }
        }
    }
    count
}

/// The `r`-th largest of `v` (1-based), 0 if there are fewer.
fn order_statistic(mut v: Vec<usize>, r: usize) -> i16 {
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.get(r.wrapping_sub(1)).map_or(0, |&c| c as i16)
}

/// Each test item's curve at every step at most the `j`-th largest count of the calibration
/// units there, of which one is left to pick.
fn curves_hold(t: &ScoreTensor, labels: &[usize], n_cal: usize) -> std::result::Result<(), TestCaseError> {
    let cal: Vec<usize> = (0..n_cal).collect();
    let split = PooledSplit::new(t, labels, &cal, Ties::INDEX).unwrap().with_unit_lists();
    let (n, m, k) = (split.n, split.m, split.k);
    let bounds = split.lists.as_ref().unwrap().bounds();
    let (mut work, mut shifts, mut curve) = (Workspace::default(), Shifts::default(), Vec::new());
    for item in n_cal..t.n() {
        split.entry_points(t, &[item], 0, None, &mut work);
        let entries = &work.entries[..m * k];
        shifts.build(entries, n, m, k);
        bounds.curve(&shifts, n + k, &mut curve);
        prop_assert_eq!(curve.len(), n + k + 1);
        for j in 1..=n {
            let least = order_statistic(counts_at(&split, entries, j), j);
            prop_assert!(curve[j] <= least, "item {} step {}: {} above {}", item, j, curve[j], least);
        }
        prop_assert!(curve[n + 1..].iter().all(|&c| c == 0));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn curves_are_under_the_counts_left((t, labels, n_cal) in many_draws()) {
        curves_hold(&t, &labels, n_cal)?;
    }

    #[test]
    fn curves_are_under_the_counts_left_with_ties((t, labels, n_cal) in larger_tensor()) {
        curves_hold(&t, &labels, n_cal)?;
    }

    /// The split's table: every lag's order statistic of the units' counts of ranks up to `t`.
    #[test]
    fn the_table_holds_the_order_statistics((t, labels, n_cal) in many_draws()) {
        let cal: Vec<usize> = (0..n_cal).collect();
        let split = PooledSplit::new(&t, &labels, &cal, Ties::INDEX).unwrap().with_unit_lists();
        let (n, m) = (split.n, split.m);
        let b = split.lists.as_ref().unwrap().bounds();
        for (l, &h) in b.lags().iter().enumerate() {
            let mut count = vec![0; n];
            for r in 0..n {
                (0..m).for_each(|d| count[split.cal_units[d * n + r] as usize] += 1);
                prop_assert_eq!(b.at(l, r), order_statistic(count.clone(), r + 1 + h));
            }
        }
    }
}
