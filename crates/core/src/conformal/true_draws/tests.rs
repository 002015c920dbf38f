//! True-label draws and a test set give the joined tensor's split, bit for bit.

use super::*;
use crate::conformal::calibrate_each_lean;
use crate::rvalue::TieOrder;
use crate::toy::{self, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Items `items` of `t` (any order) as a tensor, stored as `t` is.
fn gather(t: &ScoreTensor, items: &[usize], f32s: bool) -> ScoreTensor {
    let mut data = Vec::new();
    for &i in items {
        data.extend_from_slice(&t.items(i..i + 1).data());
    }
    if f32s {
        ScoreTensor::from_f32(items.len(), t.m(), t.k(), data.iter().map(|&x| x as f32).collect()).unwrap()
    } else {
        ScoreTensor::new(items.len(), t.m(), t.k(), data).unwrap()
    }
}

fn answers(c: &Calibrated, shift: usize) -> Vec<u64> {
    let mut out: Vec<u64> = c.test.iter().map(|&i| (i + shift) as u64).collect();
    out.extend(c.labels.iter().map(|&y| y as u64));
    for t in 0..c.test.len() {
        out.extend(c.row(t).iter().map(|x| x.to_bits()));
        out.extend([0.05, 0.2, 0.5].map(|a| c.threshold(t, a).to_bits()));
        out.extend([0.05, 0.2, 0.5].iter().flat_map(|&a| c.thresholds(t, a)).map(f64::to_bits));
    }
    let m = c.metrics(0.1, false);
    out.extend([m.coverage, m.size, m.position, m.empty_rate].map(f64::to_bits));
    out
}

/// True draws: those of `true_items`, test set = `test_items`; the true draws' splits
/// against the joined tensor `[true-draw units; test items]`'s.
fn check(
    t: &ScoreTensor,
    labels: &[usize],
    true_items: &[usize],
    test_items: &[usize],
    sizes: Option<(usize, usize)>,
    f32s: bool,
) {
    let joined_items: Vec<usize> = true_items.iter().chain(test_items).copied().collect();
    let joined = gather(t, &joined_items, f32s);
    let joined_labels: Vec<usize> = joined_items.iter().map(|&i| labels[i]).collect();
    let test = gather(t, test_items, f32s);
    let test_labels: Vec<usize> = test_items.iter().map(|&i| labels[i]).collect();
    let draws: Vec<f64> = (0..true_items.len())
        .flat_map(|j| (0..t.m()).map(move |d| (j, d)))
        .map(|(j, d)| joined.get(j, d, joined_labels[j]))
        .collect();
    let true_labels = joined_labels[..true_items.len()].to_vec();
    let true_draws =
        TrueDraws::new(true_items.len(), t.m(), draws).unwrap().with_classes(true_labels).unwrap();
    let splits = true_draws_splits(true_draws.n(), test_items.len(), sizes, 3, 5).unwrap();
    let methods = [Method::Cp, Method::CpAvg, Method::CpR];
    for ties in TieOrder::ALL {
        for (cp_draw, coverage) in [(0, Coverage::Marginal), (2, Coverage::Marginal), (0, Coverage::PerClass)]
        {
            let opts =
                ScoreOptions { kind: RvalueKind::Pooled, ties, cp_draw, coverage, ..ScoreOptions::default() };
            let run = Streaming { threads: 2, block_bytes: 1, pooled_bytes: 1, ranker: None };
            let mut got = Vec::new();
            calibrate_with_true_draws(
                &true_draws,
                &test,
                &test_labels,
                &methods,
                &opts,
                &splits,
                &run,
                &mut |_, _, _| {},
                &mut |m, r, c| {
                    got.push((m, r, answers(&c, true_draws.n())));
                    Ok(())
                },
            )
            .unwrap();
            got.sort_by_key(|(m, r, _)| (methods.iter().position(|x| x == m), *r));
            let joined_splits: Vec<Split> = splits.iter().map(|s| joined_split(s, true_draws.n())).collect();
            let mut want = Vec::new();
            for m in methods {
                calibrate_each_lean(&joined, &joined_labels, None, m, &opts, &joined_splits, 1, |r, c| {
                    want.push((m, r, answers(&c, 0)))
                })
                .unwrap();
            }
            assert!(got == want, "{ties:?}, cp_draw {cp_draw}, {coverage}, f32 {f32s}, sizes {sizes:?}");
        }
    }
}

#[test]
fn true_label_draws_give_the_joined_split() {
    let p = ToyParams {
        k: 5,
        m: 4,
        n_cal: 30,
        n_test: 30,
        sigma2: 30.0,
        high_var_fraction: 0.5,
        ..Default::default()
    };
    let (t, labels) = toy::simulate(&p, 0).unwrap();
    let split = Split::random(t.n(), 0.5, 7, 0).unwrap();
    for f32s in [false, true] {
        check(&t, &labels, &split.cal, &split.test, None, f32s);
        check(&t, &labels, &split.cal, &split.test, Some((12, 9)), f32s);
    }
    // Labels spread over the classes, for per-class thresholds of several classes.
    let spread: Vec<usize> = (0..t.n()).map(|i| (i * 3 + i / 7) % p.k).collect();
    check(&t, &spread, &split.cal, &split.test, Some((20, 9)), false);
    // True draws and test set in no particular order of the original items.
    let mut true_draws: Vec<usize> = (0..t.n()).rev().step_by(2).collect();
    true_draws.truncate(25);
    let test: Vec<usize> = (0..t.n()).filter(|i| !true_draws.contains(i)).collect();
    check(&t, &labels, &true_draws, &test, Some((20, 20)), false);
}

/// Scores rounded to float16 values (a float16 file's true draws, whose candidates the split places
/// by value tables), with many ties: the true draws' splits (two threads, sized and default splits,
/// both tie orders) are still the joined tensor's (one thread).
#[test]
fn a_float16_pool_is_the_joined_split() {
    let p = ToyParams { k: 6, m: 5, n_cal: 40, n_test: 30, sigma2: 4.0, ..Default::default() };
    let (t, labels) = toy::simulate(&p, 3).unwrap();
    // 17 adjacent float16 values from 1 up, in the scores' order: they tie often, and their
    // range is narrow enough for the value tables even at 25 units.
    let rounded: Vec<f64> =
        t.data().iter().map(|&x| 1.0 + ((x * 2.0).round().clamp(-8.0, 8.0) + 8.0) / 1024.0).collect();
    let rounded = ScoreTensor::new(t.n(), t.m(), t.k(), rounded).unwrap();
    let split = Split::random(t.n(), 0.5, 11, 0).unwrap();
    for f32s in [false, true] {
        check(&rounded, &labels, &split.cal, &split.test, None, f32s);
        check(&rounded, &labels, &split.cal, &split.test, Some((25, 11)), f32s);
    }
}

#[test]
fn what_true_draws_cannot_do_is_refused() {
    let true_draws = TrueDraws::new(3, 2, vec![0.0; 6]).unwrap();
    let test = ScoreTensor::new(2, 2, 3, vec![0.0; 12]).unwrap();
    let splits = true_draws_splits(3, 2, None, 1, 0).unwrap();
    let go = |methods: &[Method], opts: &ScoreOptions, labels: &[usize]| {
        let run = Streaming::default();
        calibrate_with_true_draws(
            &true_draws,
            &test,
            labels,
            methods,
            opts,
            &splits,
            &run,
            &mut |_, _, _| {},
            &mut |_, _, _| Ok(()),
        )
    };
    let e = go(&[Method::CpR], &ScoreOptions::default(), &[0, 1]).unwrap_err().to_string();
    assert!(e.contains("parametric CP_r needs every candidate's draws"), "{e}");
    let nonpar = ScoreOptions { kind: RvalueKind::Nonparametric, ..ScoreOptions::default() };
    assert!(go(&[Method::Cp, Method::CpR], &nonpar, &[0, 1]).is_err());
    for m in Method::BASELINES {
        let e = go(&[Method::Cp, m], &ScoreOptions::default(), &[0, 1]).unwrap_err().to_string();
        assert!(e.contains("needs every class's probability of a calibration item"), "{e}");
    }
    assert!(go(&[Method::Cp], &ScoreOptions::default(), &[0]).is_err());
    assert!(go(&[Method::Cp], &ScoreOptions { cp_draw: 2, ..ScoreOptions::default() }, &[0, 1]).is_err());
    assert!(TrueDraws::new(1, 2, vec![0.0, f64::NAN]).is_err());
    assert!(true_draws_splits(3, 2, Some((4, 1)), 2, 0).is_err());
    let three = ScoreTensor::new(2, 3, 2, vec![0.0; 12]).unwrap();
    assert!(go(&[Method::Cp], &ScoreOptions::default(), &[0, 1]).is_ok());
    // Per class without the true draws' classes, or with a class beyond K.
    let per_class = ScoreOptions { coverage: Coverage::PerClass, ..ScoreOptions::default() };
    let e = go(&[Method::Cp], &per_class, &[0, 1]).unwrap_err().to_string();
    assert!(e.contains("per-class coverage needs the class of every calibration item"), "{e}");
    assert!(TrueDraws::new(3, 2, vec![0.0; 6]).unwrap().with_classes(vec![0, 1]).is_err());
    let classed = TrueDraws::new(3, 2, vec![0.0; 6]).unwrap().with_classes(vec![0, 1, 3]).unwrap();
    let run = Streaming::default();
    let e = calibrate_with_true_draws(
        &classed,
        &test,
        &[0, 1],
        &[Method::Cp],
        &per_class,
        &splits,
        &run,
        &mut |_, _, _| {},
        &mut |_, _, _| Ok(()),
    );
    assert!(e.unwrap_err().to_string().contains("calibration label of unit 2 is 3 but K = 3"));
    assert!(calibrate_with_true_draws(
        &true_draws,
        &three,
        &[0, 1],
        &[Method::Cp],
        &ScoreOptions::default(),
        &splits,
        &Streaming::default(),
        &mut |_, _, _| {},
        &mut |_, _, _| Ok(())
    )
    .is_err());
}

/// A pool of 64 draws, as many as the frontier greedy takes (the ImageNet layout's shape in
/// small), float16-like ties: the true draws' splits (two threads, sized and default splits,
/// both tie orders) are still the joined tensor's (one thread).
#[test]
fn a_pool_of_many_draws_is_the_joined_split() {
    let p = ToyParams { k: 5, m: 64, n_cal: 40, n_test: 24, sigma2: 4.0, ..Default::default() };
    let (t, labels) = toy::simulate(&p, 5).unwrap();
    let rounded: Vec<f64> = t.data().iter().map(|&x| (x * 4.0).round() / 4.0).collect();
    let rounded = ScoreTensor::new(t.n(), t.m(), t.k(), rounded).unwrap();
    let split = Split::random(t.n(), 0.5, 13, 0).unwrap();
    check(&rounded, &labels, &split.cal, &split.test, None, true);
    check(&rounded, &labels, &split.cal, &split.test, Some((28, 10)), false);
}
