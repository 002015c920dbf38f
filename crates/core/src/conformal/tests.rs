use super::scores::scores_with;
use super::sweep::counts_at_most;
use super::*;
use crate::rvalue::{DrawOrder, PooledSplit, Workspace};
use crate::tensor::ScoreTensor;
use crate::toy::{self, ToyParams};
use crate::Error;
#[cfg(not(target_arch = "wasm32"))]
use proptest::prelude::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn k_star_is_the_ceiling() {
    assert_eq!(k_star(10, 0.2), 9); // ⌈8.8⌉
    assert_eq!(k_star(99, 0.05), 95); // 100 · 0.95 must not round up to 96
    assert_eq!(k_star(19, 0.05), 19);
    assert_eq!(k_star(3, 0.1), 4); // > n: the full set
    assert_eq!(k_star(1000, 0.5), 501);
}

#[test]
fn random_splits_are_seeded_partitions() {
    let a = Split::random(101, 0.5, 7, 0).unwrap();
    assert_eq!((a.cal.len(), a.test.len()), (51, 50));
    assert_eq!(a, Split::random(101, 0.5, 7, 0).unwrap());
    assert_ne!(a, Split::random(101, 0.5, 7, 1).unwrap());
    let mut all: Vec<usize> = a.cal.iter().chain(&a.test).copied().collect();
    all.sort();
    assert_eq!(all, (0..101).collect::<Vec<_>>());
    assert!(Split::random(1, 0.5, 7, 0).is_err());
    assert!(Split::from_mask(&[true, true]).is_err());
}

#[test]
fn set_rule_uses_less_or_equal() {
    // 4 items, K = 3; calibration items 0..3 with true-label scores 0.1, 0.2, 0.3.
    let scores = vec![
        0.1, 0.5, 0.9, //
        0.5, 0.2, 0.9, //
        0.9, 0.5, 0.3, //
        0.3, 0.2, 0.31, //
    ];
    let labels = [0, 1, 2, 0];
    let split = Split::from_mask(&[true, true, true, false]).unwrap();
    let c = Calibrated::fixed(&scores, 3, &labels, &split);
    // n = 3, α = 0.25: k* = ⌈4 · 0.75⌉ = 3, q̂ = 0.3; candidate 0 (0.3) ties and is in.
    assert_eq!(c.threshold(0, 0.25), 0.3);
    let set = c.set(0, 0.25, false);
    assert_eq!(set.members, vec![(1, 0.2), (0, 0.3)]);
    let m = c.metrics(0.25, false);
    assert_eq!((m.coverage, m.size, m.position, m.empty_rate), (1.0, 2.0, 1.0, 0.0));
    // α = 0.5: k* = 2, q̂ = 0.2: only candidate 1; the label is not covered.
    assert_eq!(c.metrics(0.5, false).coverage, 0.0);
    // α = 0.9: k* = 1, q̂ = 0.1: empty, and never-empty adds the best candidate.
    assert_eq!(c.set(0, 0.9, false).members, vec![]);
    assert_eq!(c.set(0, 0.9, true).members, vec![(1, 0.2)]);
    // α = 0.1: k* = 4 > n: q̂ = +∞, the full set.
    assert_eq!(c.set(0, 0.1, false).members.len(), 3);
}

#[test]
fn pooled_calibration_reproduces_the_reference_sets() {
    let (t, labels, mask, alpha, expected) = crate::rvalue::pooled::tests::tiny();
    let split = Split::from_mask(&mask).unwrap();
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    // The reference follows the authors' code: the index tie order.
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ties: TieOrder::Index, ..ScoreOptions::default() };
    let cal = prepared.calibrate(Method::CpR, &opts, &[split]).unwrap();
    for (pos, e) in expected.as_array().unwrap().iter().enumerate() {
        let want: Vec<usize> =
            e["set"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
        let mut got: Vec<usize> = cal[0].set(pos, alpha, false).members.iter().map(|m| m.0).collect();
        got.sort();
        assert_eq!(got, want, "item {}", e["item"]);
    }
}

/// The pooled prior, its noise computed where it is read, is the estimate on a stored copy of
/// every candidate's noise, bit for bit, for both variance choices.
#[test]
fn pooled_hyper_is_the_estimate_on_stored_noise() {
    let (t, _) =
        toy::simulate(&ToyParams { k: 5, m: 8, n_cal: 60, n_test: 60, ..ToyParams::default() }, 0).unwrap();
    let summaries = crate::tensor::Summaries::of(&t);
    for kind in [crate::tensor::VarianceKind::PerDraw, crate::tensor::VarianceKind::OfMean] {
        let s: Vec<f64> = (0..summaries.n * summaries.k)
            .map(|u| summaries.s(u / summaries.k, u % summaries.k, kind))
            .collect();
        let stored = crate::eb::estimate(&summaries.mean, &s).unwrap();
        let got = pooled_hyper(&summaries, kind).unwrap();
        assert_eq!((got.mu.to_bits(), got.tau2.to_bits()), (stored.mu.to_bits(), stored.tau2.to_bits()));
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn small_toy(seed: u64) -> ToyParams {
    ToyParams {
        k: 5,
        m: 8,
        n_cal: 60,
        n_test: 60,
        repeats: 40,
        sigma2: 30.0,
        high_var_fraction: 0.5,
        seed,
        ..ToyParams::default()
    }
}

// Statistical, so native only (it would take minutes as debug wasm).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn index_ties_reach_the_target_once_count_ties_are_rare() {
    // The index tie order (docs/method.md §4) breaks count ties towards the lower unit index,
    // i.e. towards the calibration units, so the test label loses every tie and pooled CP_r
    // under-covers when M is small. With many draws ties are rare and exchangeability gives the
    // guarantee back.
    let alpha = 0.1;
    let floor = 1.0 - alpha - 3.0 * (alpha * (1.0 - alpha) / 2400.0f64).sqrt();
    let index = ScoreOptions { kind: RvalueKind::Pooled, ties: TieOrder::Index, ..ScoreOptions::default() };
    let many = ToyParams { m: 400, ..small_toy(3) };
    let cov = toy_coverage(&many, Method::CpR, &index, alpha);
    assert!(cov >= floor, "M = 400: coverage {cov} < {floor}");
    let few = ToyParams { m: 8, ..small_toy(3) };
    let cov_few = toy_coverage(&few, Method::CpR, &index, alpha);
    assert!(cov_few < cov, "the tie deficit should shrink with M: {cov_few} vs {cov}");
}

/// Mean coverage over the toy's repeats, one fresh data set and one split per repeat.
#[cfg(not(target_arch = "wasm32"))]
fn toy_coverage(p: &ToyParams, method: Method, opts: &ScoreOptions, alpha: f64) -> f64 {
    let kind = opts.kind;
    let mut total = 0.0;
    for r in 0..p.repeats {
        let (t, labels) = toy::simulate(p, r).unwrap();
        // The simulator's first n_cal items calibrate; a random split is just as exchangeable.
        let split = Split::random(t.n(), 0.5, p.seed, r).unwrap();
        let prepared = Prepared::new(&t, &labels, kind != RvalueKind::Parametric).unwrap();
        let cal = prepared.calibrate(method, opts, &[split]).unwrap();
        total += cal[0].metrics(alpha, false).coverage;
    }
    total / p.repeats as f64
}

#[test]
fn counts_at_most_are_plain_counts_for_any_thresholds() {
    let special = [f64::NEG_INFINITY, -1.5, -0.0, 0.0, 0.25, 0.25, 3.0, f64::INFINITY, f64::NAN, -f64::NAN];
    let mut rng = crate::rng::Stream::new(7, 0);
    for round in 0..200 {
        let pick = |rng: &mut crate::rng::Stream, n: usize| -> Vec<f64> {
            (0..n)
                .map(|_| {
                    let u = rng.uniform();
                    if u < 0.3 {
                        special[(u * 100.0) as usize % special.len()]
                    } else {
                        (u * 8.0).floor() / 4.0 - 1.0
                    }
                })
                .collect()
        };
        let values = pick(&mut rng, round % 40);
        let qs = pick(&mut rng, round % 13);
        let plain: Vec<usize> = qs.iter().map(|&q| values.iter().filter(|&&v| v <= q).count()).collect();
        assert_eq!(counts_at_most(values.iter().copied(), &qs), plain, "values {values:?} qs {qs:?}");
    }
}

#[cfg(not(target_arch = "wasm32"))]
proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn every_method_covers_on_exchangeable_toy_data(seed in 0u64..1_000_000) {
        let p = small_toy(seed);
        let alpha = 0.1;
        // 40 repeats × 60 test items: the Monte Carlo se of the mean is at most ~0.005.
        let floor = 1.0 - alpha - 3.0 * (alpha * (1.0 - alpha) / 2400.0f64).sqrt() - 0.02;
        for (method, kind) in [
            (Method::Cp, RvalueKind::Parametric),
            (Method::CpAvg, RvalueKind::Parametric),
            (Method::CpR, RvalueKind::Parametric),
            (Method::CpR, RvalueKind::Nonparametric),
            (Method::CpR, RvalueKind::Pooled),
        ] {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            let cov = toy_coverage(&p, method, &opts, alpha);
            prop_assert!(cov >= floor, "{method:?}/{kind:?}: coverage {cov} < {floor}");
        }
    }

    #[test]
    fn global_sweep_equals_the_item_by_item_sweep(seed in 0u64..1_000_000, never_empty in any::<bool>()) {
        // Nonparametric r-values tie a lot: the counts must agree exactly, ties included.
        let p = ToyParams { repeats: 1, ..small_toy(seed) };
        let (t, labels) = toy::simulate(&p, 0).unwrap();
        let prepared = Prepared::new(&t, &labels, true).unwrap();
        let splits = SplitPlan::Random { count: 2, cal_fraction: 0.5, seed }.splits(t.n()).unwrap();
        let alphas = alpha_grid(0.001, 0.999, 200);
        for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric] {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            for method in Method::ALL {
                for c in prepared.calibrate(method, &opts, &splits).unwrap() {
                    prop_assert!(!c.per_item_threshold());
                    prop_assert_eq!(c.sweep_global(&alphas, never_empty), c.sweep_per_item(&alphas, never_empty));
                }
            }
        }
    }

    #[test]
    fn metrics_equal_those_of_the_sets(seed in 0u64..1_000_000, never_empty in any::<bool>()) {
        // Every kind (nonparametric and pooled r-values tie a lot), at α where sets are empty,
        // partial and whole.
        let p = ToyParams { repeats: 1, ..small_toy(seed) };
        let (t, labels) = toy::simulate(&p, 0).unwrap();
        let prepared = Prepared::new(&t, &labels, true).unwrap();
        let splits = SplitPlan::Random { count: 2, cal_fraction: 0.5, seed }.splits(t.n()).unwrap();
        for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric, RvalueKind::Pooled] {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            for method in Method::ALL {
                for c in prepared.calibrate(method, &opts, &splits).unwrap() {
                    for alpha in [0.001, 0.05, 0.3, 0.9, 0.999] {
                        let want = metrics_of_sets(&c, alpha, never_empty);
                        prop_assert_eq!(format!("{:?}", c.metrics(alpha, never_empty)), format!("{want:?}"));
                    }
                }
            }
        }
    }

    #[test]
    fn sweep_equals_pointwise_recomputation(seed in 0u64..1_000_000, never_empty in any::<bool>()) {
        let p = ToyParams { repeats: 1, ..small_toy(seed) };
        let (t, labels) = toy::simulate(&p, 0).unwrap();
        let prepared = Prepared::new(&t, &labels, true).unwrap();
        let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed }.splits(t.n()).unwrap();
        let alphas = alpha_grid(0.005, 0.5, 100);
        for kind in [RvalueKind::Parametric, RvalueKind::Pooled] {
            let opts = ScoreOptions { kind, ..ScoreOptions::default() };
            for method in Method::ALL {
                let cal = prepared.calibrate(method, &opts, &splits).unwrap();
                let swept = sweep(&cal, &alphas, never_empty);
                for (a, &(cov, size)) in alphas.iter().zip(&swept) {
                    let s = evaluate(&cal, method, *a, never_empty).unwrap();
                    prop_assert!((s.coverage_mean - cov).abs() < 1e-12 && (s.size_mean - size).abs() < 1e-12,
                        "{method:?}/{kind:?} α {a}: sweep ({cov}, {size}) vs ({}, {})", s.coverage_mean, s.size_mean);
                }
            }
        }
    }
}

#[test]
fn cp_r_shrinks_sets_in_the_toy_setting() {
    // The paper's point: with unstable false candidates CP_r's sets are smaller than CP's. This
    // holds with a prior pooled over items; with per-item priors a false candidate's large mean
    // can pull μ above a stable true candidate, which is then confidently outside the top.
    let p = ToyParams { repeats: 1, n_cal: 200, n_test: 200, ..ToyParams::default() };
    let (t, labels) = toy::simulate(&p, 0).unwrap();
    let prepared = Prepared::new(&t, &labels, false).unwrap();
    let split = Split::from_mask(&(0..t.n()).map(|i| i < 200).collect::<Vec<_>>()).unwrap();
    let opts = ScoreOptions { prior: Prior::Pooled, ..ScoreOptions::default() };
    let size =
        |m| prepared.calibrate(m, &opts, std::slice::from_ref(&split)).unwrap()[0].metrics(0.1, false).size;
    let (cp, cpr) = (size(Method::Cp), size(Method::CpR));
    assert!(cpr < cp, "CP_r {cpr} vs CP {cp}");
}

#[test]
fn rvalue_kind_names_parse_back() {
    for k in RvalueKind::ALL {
        assert_eq!(k.name().parse::<RvalueKind>().unwrap(), k);
    }
    let e = "grid".parse::<RvalueKind>().unwrap_err();
    assert!(
        matches!(&e, Error::InvalidOption { option, value, .. } if option == "r-value kind" && value == "grid"),
        "{e}"
    );
}

/// Common failures come as kinds a caller can match, with the values that caused them.
#[test]
fn failures_are_kinds_with_fields() {
    let e = check_alpha(1.5).unwrap_err();
    assert!(matches!(&e, Error::OutOfRange { what, value, .. } if what == "α" && *value == 1.5), "{e}");
    assert_eq!(e.to_string(), "invalid argument: α = 1.5 is not in (0, 1)");
    let t = ScoreTensor::new(3, 1, 2, vec![0.0; 6]).unwrap();
    let Err(e) = Prepared::new(&t, &[0, 1], false) else { panic!("2 labels for 3 items") };
    assert!(
        matches!(&e, Error::Length { what, got: 2, expected } if what == "labels" && expected == "3 items"),
        "{e}"
    );
    assert_eq!(e.to_string(), "shape mismatch: 2 labels for 3 items");
    let e = "global".parse::<Prior>().unwrap_err();
    assert!(
        matches!(&e, Error::InvalidOption { option, value, .. } if option == "prior" && value == "global")
    );
}

/// A split whose calibration items are test items nowhere (the toy's): parametric CP_r computes
/// only their true labels' r-values, with the same bits, and the split is calibrated exactly as
/// from every item's full scores. Data sets with several random splits compute every entry.
#[test]
fn calibration_items_need_only_their_labels_score() {
    let p = ToyParams { k: 4, m: 6, n_cal: 12, n_test: 9, repeats: 1, ..ToyParams::default() };
    let (t, labels) = toy::simulate(&p, 0).unwrap();
    let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect());
    let only = needed_candidates(&labels, std::slice::from_ref(&split));
    assert!(only.iter().enumerate().all(|(i, o)| *o == (i < p.n_cal).then_some(labels[i])));
    let random = SplitPlan::Random { count: 20, cal_fraction: 0.5, seed: 3 }.splits(p.n()).unwrap();
    assert!(needed_candidates(&labels, &random).iter().all(Option::is_none));
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric] {
        for (algorithm, lambda, prior) in [
            (Algorithm::Exact, LambdaRule::Model, Prior::PerItem),
            (Algorithm::Exact, LambdaRule::Empirical, Prior::PerItem),
            (Algorithm::Grid, LambdaRule::Model, Prior::PerItem),
            (Algorithm::Exact, LambdaRule::Model, Prior::Pooled),
        ] {
            let opts = ScoreOptions { kind, algorithm, lambda, prior, ..ScoreOptions::default() };
            for method in Method::PAPER {
                let all = item_scores(&t, &prepared.summaries, prepared.order.as_ref(), method, &opts)
                    .unwrap()
                    .unwrap();
                let some =
                    item_scores_only(&t, &prepared.summaries, prepared.order.as_ref(), method, &opts, &only)
                        .unwrap()
                        .unwrap();
                for (u, (a, b)) in all.iter().zip(&some).enumerate() {
                    let (i, c) = (u / p.k, u % p.k);
                    let skipped = method == Method::CpR
                        && kind == RvalueKind::Parametric
                        && only[i].is_some_and(|y| y != c);
                    if skipped {
                        assert!(b.is_nan(), "{method:?} {opts:?} item {i} candidate {c}");
                    } else {
                        assert_eq!(a.to_bits(), b.to_bits(), "{method:?} {opts:?} item {i} candidate {c}");
                    }
                }
                let want = format!("{:?}", Calibrated::fixed(&all, p.k, &labels, &split));
                let got = prepared.calibrate(method, &opts, std::slice::from_ref(&split)).unwrap();
                assert_eq!(format!("{:?}", got[0]), want, "{method:?} {opts:?}");
            }
        }
    }
    let opts = ScoreOptions::default();
    let cp_r = |only: &[Option<usize>]| {
        item_scores_only(&t, &prepared.summaries, None, Method::CpR, &opts, only).map(|_| ())
    };
    assert!(cp_r(&only[1..]).is_err(), "one entry per item");
    let mut beyond = only.clone();
    beyond[0] = Some(p.k);
    assert!(cp_r(&beyond).is_err(), "a candidate beyond K");
}

/// A calibration read back from its bytes is the same, bit for bit, global or pooled; every
/// shorter or altered buffer is read as an error or a calibration, never a panic.
#[test]
fn calibrations_survive_their_bytes() {
    let p = ToyParams { k: 4, m: 6, n_cal: 20, n_test: 15, sigma2: 30.0, ..ToyParams::default() };
    let (t, labels) = toy::simulate(&p, 0).unwrap();
    let split = Split::new((0..20).collect(), (20..35).collect());
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    let cp =
        item_scores(&t, &prepared.summaries, None, Method::Cp, &ScoreOptions::default()).unwrap().unwrap();
    let pooled =
        Calibrated::pooled(&t, &labels, prepared.order.as_ref(), &split, TieOrder::Exchangeable).unwrap();
    for c in [Calibrated::fixed(&cp, 4, &labels, &split), pooled] {
        let mut bytes = Vec::new();
        c.write_bytes(&mut bytes);
        let mut input = &bytes[..];
        let back = Calibrated::read_bytes(&mut input).unwrap();
        assert!(input.is_empty());
        assert_eq!(format!("{c:?}"), format!("{back:?}"));
        for cut in [0, 1, 7, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(Calibrated::read_bytes(&mut &bytes[..cut]).is_err(), "cut at {cut}");
        }
        for at in (0..bytes.len()).step_by(13) {
            let mut altered = bytes.clone();
            altered[at] ^= 0xff;
            let _ = Calibrated::read_bytes(&mut &altered[..]);
        }
    }
}

/// A pooled calibration keeps greedy steps and calibration step sets, not r-values: every row,
/// threshold, set size, metric and sweep point is what each test item's r-values `step/U` as
/// f64 give, at any α, with few draws (many ties) or more, under either tie order.
#[test]
fn pooled_steps_answer_as_their_rvalues() {
    let alphas: Vec<f64> = (1..400).map(|i| i as f64 / 400.0).chain([1e-9, 0.003, 0.999_999]).collect();
    for (m, ties) in [(2, TieOrder::Index), (3, TieOrder::Exchangeable), (12, TieOrder::Exchangeable)] {
        let p = ToyParams { k: 6, m, n_cal: 70, n_test: 30, sigma2: 30.0, ..ToyParams::default() };
        let (t, labels) = toy::simulate(&p, 1).unwrap();
        let split = Split::new((0..70).collect(), (70..100).collect()).keyed(5, 2);
        let order = DrawOrder::of(&t).unwrap();
        let c = Calibrated::pooled(&t, &labels, Some(&order), &split, ties).unwrap();
        let ps = PooledSplit::new(&t, &labels, &split.cal, split.ties(ties)).unwrap();
        let mut work = Workspace::default();
        let items: Vec<_> = split.test.iter().map(|&i| ps.item(&t, i, Some(&order), &mut work)).collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for &alpha in &alphas {
            let (mut covered, mut size) = ([0usize; 2], [0usize; 2]);
            let sizes = [c.sizes(alpha, false), c.sizes(alpha, true)];
            for (pos, it) in items.iter().enumerate() {
                let r = it.rvalues();
                let cal: Vec<f64> = it.cal_steps.iter().map(|&s| s as f64 / it.units as f64).collect();
                assert_eq!(bits(&c.row(pos)), bits(&r), "row of test item {pos}");
                let q = conformal_quantile(&cal, alpha);
                assert_eq!(c.threshold(pos, alpha).to_bits(), q.to_bits(), "α = {alpha}, item {pos}");
                let y = labels[split.test[pos]];
                let best = (0..p.k).fold(0, |b, j| if r[j] < r[b] { j } else { b });
                let count = r.iter().filter(|&&x| x <= q).count();
                for ne in [false, true] {
                    let (n, holds) = if ne && count == 0 { (1, best == y) } else { (count, r[y] <= q) };
                    assert_eq!(sizes[usize::from(ne)][pos], n, "α = {alpha}, item {pos}, never empty {ne}");
                    size[usize::from(ne)] += n;
                    covered[usize::from(ne)] += usize::from(holds);
                }
            }
            for ne in [false, true] {
                let nt = items.len() as f64;
                let want = (covered[usize::from(ne)] as f64 / nt, size[usize::from(ne)] as f64 / nt);
                assert_eq!(c.sweep(&[alpha], ne), vec![want], "α = {alpha}, never empty {ne}");
                let m = c.metrics(alpha, ne);
                assert_eq!((m.coverage, m.size), want, "α = {alpha}, never empty {ne}");
            }
        }
    }
}

/// Every method under every r-value kind and tie order (and the pooled prior), on `splits`
/// with `threads` threads: metrics, set sizes and the sets' members as bits, at three α.
fn every_result(p: &Prepared<'_>, splits: &[Split], threads: usize) -> Vec<String> {
    let bits = |s: &ItemSet| (s.item, s.members.iter().map(|&(c, x)| (c, x.to_bits())).collect::<Vec<_>>());
    let mut kinds: Vec<ScoreOptions> = Vec::new();
    for kind in RvalueKind::ALL {
        for ties in TieOrder::ALL {
            kinds.push(ScoreOptions { kind, ties, ..ScoreOptions::default() });
        }
    }
    kinds.push(ScoreOptions { prior: Prior::Pooled, ..ScoreOptions::default() });
    let mut out = Vec::new();
    for opts in &kinds {
        for method in Method::ALL {
            p.calibrate_each_threads(method, opts, splits, threads, |_, c| {
                for alpha in [0.05, 0.2, 0.5] {
                    let sets: Vec<_> = (0..c.test.len()).map(|t| bits(&c.set(t, alpha, false))).collect();
                    let m = format!("{:?}", c.metrics(alpha, true));
                    for ne in [false, true] {
                        let (joint, sizes) = c.metrics_and_sizes(alpha, ne);
                        let apart = (format!("{:?}", c.metrics(alpha, ne)), c.sizes(alpha, ne));
                        assert_eq!((format!("{joint:?}"), sizes), apart, "{method:?} {opts:?} α {alpha}");
                    }
                    out.push(format!(
                        "{method:?} {opts:?} α {alpha}: {m} {:?} {sets:?}",
                        c.sizes(alpha, false)
                    ));
                }
            })
            .unwrap();
        }
    }
    out
}

/// A float32 file is stored as f32 and widened where read: every method, r-value kind and tie
/// order gives the same bits as on the same scores stored as f64, on one thread or several.
#[test]
fn f32_storage_gives_the_f64_results() {
    let (n, m, k) = (48, 5, 6);
    let (wide, _) = crate::samples::logits(n, m, k, 11).unwrap();
    // Half the items on a coarse grid, so that draws and calibration units tie.
    let narrow: Vec<f32> = (0..n * m * k)
        .map(|i| {
            let x = wide.get(i / (m * k), i / k % m, i % k) as f32;
            if i / (m * k) % 2 == 0 {
                (x * 4.0).round() / 4.0
            } else {
                x
            }
        })
        .collect();
    let labels: Vec<usize> = (0..n).map(|i| (i * 5) % k).collect();
    let bytes = crate::io::write_npy_f32(&[n, m, k], &narrow);
    let f32s = crate::io::read_scores("s.npy", &bytes).unwrap().scores;
    assert!(matches!(f32s.scores(), crate::tensor::Scores::F32(_)), "a float32 file stays f32");
    let f64s = ScoreTensor::new(n, m, k, f32s.data().into_owned()).unwrap();
    assert_eq!(f32s, f64s);
    let (a, b) = (Prepared::new(&f32s, &labels, true).unwrap(), Prepared::new(&f64s, &labels, true).unwrap());
    assert_eq!(a.summaries, b.summaries);
    let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 2 }.splits(n).unwrap();
    for threads in [1, 2] {
        assert_eq!(
            every_result(&a, &splits, threads),
            every_result(&b, &splits, threads),
            "threads {threads}"
        );
    }
}

/// A float16 file is stored as float16 and widened where read: on the bundled samples and the
/// numpy fixtures rounded to float16 (by the `half` crate), every method, r-value kind and tie
/// order gives the same bits as the float32 file of the same values, on one thread or several.
#[test]
fn f16_files_give_the_f32_files_results() {
    use crate::io::{read_scores, write_npy_f16_bits, write_npy_f32};
    use crate::tensor::Scores;
    let digits = read_scores("digits_wbb.npz", include_bytes!("../../../../assets/digits_wbb.npz")).unwrap();
    let toy = read_scores("toy_default.npz", include_bytes!("../../../../assets/toy_default.npz")).unwrap();
    // The fixtures' scores are exactly float16: numpy's own float16 file, beside its float32 one.
    let fixture = |name| read_scores(name, &crate::io::tests::fixture(name)).unwrap();
    let (f2, f4) = (fixture("data_f2.npz"), fixture("data_compressed.npz"));
    assert!(matches!(f2.scores.scores(), Scores::F16(_)) && f2.scores == f4.scores);
    let mut cases = vec![("fixtures", f2.scores, f4.scores, f4.labels.unwrap(), 3)];
    for (name, d) in [("digits", digits), ("toy", toy)] {
        let t = &d.scores;
        let shape = [t.n(), t.m(), t.k()];
        let bits: Vec<u16> = t.data().iter().map(|&x| half::f16::from_f64(x).to_bits()).collect();
        let widened: Vec<f32> = bits.iter().map(|&h| half::f16::from_bits(h).to_f32()).collect();
        let f16s = read_scores("s.npy", &write_npy_f16_bits(&shape, &bits)).unwrap().scores;
        let f32s = read_scores("s.npy", &write_npy_f32(&shape, &widened)).unwrap().scores;
        assert!(matches!(f16s.scores(), Scores::F16(_)), "a float16 file stays float16");
        cases.push((name, f16s, f32s, d.labels.unwrap(), 2));
    }
    for (name, f16s, f32s, labels, count) in &cases {
        let n = f16s.n();
        let (a, b) = (Prepared::new(f16s, labels, true).unwrap(), Prepared::new(f32s, labels, true).unwrap());
        assert_eq!(a.summaries, b.summaries, "{name}");
        let splits = SplitPlan::Random { count: *count, cal_fraction: 0.5, seed: 3 }.splits(n).unwrap();
        for threads in [1, 2] {
            assert_eq!(
                every_result(&a, &splits, threads),
                every_result(&b, &splits, threads),
                "{name} {threads}"
            );
        }
    }
}

/// Nonparametric scores sorted an item at a time (no shared orders) equal those from the whole
/// tensor's orders, for any thread count.
#[test]
fn nonparametric_scores_in_blocks_equal_shared_orders() {
    let n = 135;
    let (t, _) = crate::samples::logits(n, 6, 9, 5).unwrap();
    let opts = ScoreOptions { kind: RvalueKind::Nonparametric, ..ScoreOptions::default() };
    let order = DrawOrder::of(&t).unwrap();
    let shared = scores_with(&t, None, Some(&order), Method::CpR, &opts, |_| None, None, 1).unwrap().unwrap();
    for threads in [1, 3] {
        let blocked =
            scores_with(&t, None, None, Method::CpR, &opts, |_| None, None, threads).unwrap().unwrap();
        assert_eq!(blocked.len(), n * t.k());
        assert!(shared.iter().zip(&blocked).all(|(a, b)| a.to_bits() == b.to_bits()), "{threads} threads");
    }
}

/// The metrics as the sets define them: each set built and sorted, the label's place read off.
#[cfg(not(target_arch = "wasm32"))]
fn metrics_of_sets(c: &Calibrated, alpha: f64, never_empty: bool) -> SplitMetrics {
    let nt = c.test.len();
    let (mut covered, mut size, mut empty, mut pos_sum) = (0usize, 0usize, 0usize, 0usize);
    for t in 0..nt {
        let set = c.set(t, alpha, never_empty);
        size += set.members.len();
        empty += usize::from(set.members.is_empty());
        if let Some(p) = set.members.iter().position(|&(m, _)| m == c.label(t)) {
            covered += 1;
            pos_sum += p;
        }
    }
    let n = nt as f64;
    SplitMetrics {
        coverage: covered as f64 / n,
        size: size as f64 / n,
        position: if covered > 0 { pos_sum as f64 / covered as f64 } else { f64::NAN },
        empty_rate: empty as f64 / n,
        unbounded_classes: c.class_counts().map(|_| c.unbounded_classes(alpha)),
    }
}

#[test]
fn score_rows_sort_as_total_cmp_does_and_give_each_score_back() {
    let row = [0.5, -0.0, 0.0, -1.0, f64::MAX, -f64::MAX, 1e-300, -1e-300, 3.0, -0.0, 0.5, f64::MIN_POSITIVE];
    let given = [row, row.map(|x| -x)].concat();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let rows = ScoreRows::new(given.clone(), row.len());
    for (r, got) in rows.sorted.chunks(row.len()).enumerate() {
        let mut want = given[r * row.len()..(r + 1) * row.len()].to_vec();
        assert_eq!(bits(&rows.row(r)), bits(&want), "row {r} by candidate");
        want.sort_by(f64::total_cmp);
        assert_eq!(bits(got), bits(&want));
    }
}

#[test]
fn score_rows_of_more_than_65536_candidates_give_each_score_back() {
    let k = 70_000;
    let given: Vec<f64> = (0..2 * k).map(|u| ((u * 7919) % 1009) as f64 - 500.0).collect();
    let rows = ScoreRows::new(given.clone(), k);
    assert_eq!([rows.row(0), rows.row(1)].concat(), given);
}
