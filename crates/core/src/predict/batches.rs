//! A new item's set is its own: the same alone, in any batch, at any place in it, repeated
//! (docs/method.md §4, §5), for every method, r-value kind, prior and tie order.
#![cfg(not(target_arch = "wasm32"))]

use super::predict;
use crate::conformal::{Method, Prior, RvalueKind, ScoreOptions};
use crate::rvalue::TieOrder;
use crate::tensor::ScoreTensor;
use proptest::prelude::*;

/// Every scoring a prediction can use.
fn scorings() -> Vec<ScoreOptions> {
    let mut all = vec![];
    for kind in RvalueKind::ALL {
        for prior in Prior::ALL {
            for ties in TieOrder::ALL {
                all.push(ScoreOptions { kind, prior, ties, ..ScoreOptions::default() });
            }
        }
    }
    all
}

/// Items `which` of `t`, in that order, as a tensor of their own.
fn pick(t: &ScoreTensor, which: &[usize]) -> ScoreTensor {
    let per = t.m() * t.k();
    let data = t.data();
    let v = which.iter().flat_map(|&i| data[i * per..(i + 1) * per].to_vec()).collect();
    ScoreTensor::new(which.len(), t.m(), t.k(), v).expect("items of a valid tensor")
}

/// Scores from three values (ties in every draw and in the counts), `n_cal` labelled items and
/// `n_new` new ones.
fn tied() -> impl Strategy<Value = (ScoreTensor, Vec<usize>, usize)> {
    (2usize..5, 2usize..5, 4usize..12, 3usize..8).prop_flat_map(|(m, k, n_cal, n_new)| {
        let n = n_cal + n_new;
        (prop::collection::vec(0u8..3, n * m * k), prop::collection::vec(0..k, n_cal)).prop_map(
            move |(v, labels)| {
                let t = ScoreTensor::new(n, m, k, v.iter().map(|&x| f64::from(x)).collect());
                (t.expect("finite scores"), labels, n_cal)
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn an_items_set_is_the_same_alone_in_any_batch_and_repeated(
        (t, labels, n_cal) in tied(),
        seed in 0u64..4,
        rotate in 0usize..8,
    ) {
        let cal = pick(&t, &(0..n_cal).collect::<Vec<_>>());
        let new: Vec<usize> = (n_cal..t.n()).collect();
        // The batch reversed and rotated, with its first item repeated at the end.
        let mut shuffled: Vec<usize> = new.iter().rev().copied().collect();
        shuffled.rotate_left(rotate % new.len());
        shuffled.push(shuffled[0]);
        for opts in scorings() {
            for method in Method::ALL {
                let batch = predict(&cal, &labels, &pick(&t, &new), method, &opts, seed, 2).unwrap();
                let other = predict(&cal, &labels, &pick(&t, &shuffled), method, &opts, seed, 1).unwrap();
                for alpha in [0.1, 0.3] {
                    let in_batch = |j: usize| batch.set(j, alpha, false).members;
                    for (at, &i) in shuffled.iter().enumerate() {
                        let alone = predict(&cal, &labels, &pick(&t, &[i]), method, &opts, seed, 1).unwrap();
                        let want = in_batch(i - n_cal);
                        prop_assert_eq!(&alone.set(0, alpha, false).members, &want, "{} {:?} alone", method, opts);
                        prop_assert_eq!(&other.set(at, alpha, false).members, &want, "{} {:?} moved", method, opts);
                    }
                }
            }
        }
    }
}
