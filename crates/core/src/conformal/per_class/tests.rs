use super::super::*;
use crate::rvalue::{pooled_item_oracle, DrawOrder};
use crate::samples::logits;
use crate::tensor::ScoreTensor;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const ALPHAS: [f64; 6] = [0.02, 0.1, 0.25, 0.4, 0.7, 0.95];

/// Unequal classes and one (the last) in no calibration item: items `0..n_cal` calibrate.
fn data(n_cal: usize, n_test: usize, k: usize, m: usize) -> (ScoreTensor, Vec<usize>, Split) {
    let (t, _) = logits(n_cal + n_test, m, k, 11).unwrap();
    let labels: Vec<usize> = (0..n_cal + n_test)
        .map(|i| if i < n_cal { (i * i + 3 * i) % (k - 1) % (1 + i % 3).max(1).min(k - 1) } else { i % k })
        .collect();
    let split = Split::new((0..n_cal).collect(), (n_cal..n_cal + n_test).collect()).keyed(3, 1);
    (t, labels, split)
}

/// `q̂_c` from its definition: the `⌈(n_c + 1)(1 − α)⌉`-th smallest of class `c`'s calibration
/// scores, `+∞` beyond `n_c`.
fn by_definition(unit_scores: &[(usize, f64)], c: usize, alpha: f64) -> f64 {
    let mut s: Vec<f64> = unit_scores.iter().filter(|u| u.0 == c).map(|u| u.1).collect();
    s.sort_by(f64::total_cmp);
    let ks = ((s.len() as f64 + 1.0) * (1.0 - alpha) - 1e-9).ceil() as usize;
    if ks == 0 {
        f64::NEG_INFINITY
    } else {
        s.get(ks - 1).copied().unwrap_or(f64::INFINITY)
    }
}

/// Checks `c` against each class's threshold `q(t, class, α)` and the test rows `row(t)`:
/// thresholds, sets, metrics, sizes and sweeps.
fn check(
    c: &Calibrated,
    labels: &[usize],
    q: impl Fn(usize, usize, f64) -> f64,
    row: impl Fn(usize) -> Vec<f64>,
) {
    assert_eq!(c.coverage(), Coverage::PerClass);
    let nt = c.test.len();
    let sweep = c.sweep(&ALPHAS, false);
    for (a, &alpha) in ALPHAS.iter().enumerate() {
        let (mut covered, mut size, mut pos) = (0, 0, 0);
        let sizes = c.sizes(alpha, false);
        for t in 0..nt {
            let r = row(t);
            let y = labels[c.test[t]];
            let qs: Vec<f64> = (0..c.k).map(|k| q(t, k, alpha)).collect();
            assert_eq!(c.thresholds(t, alpha), qs, "α = {alpha}, item {t}");
            let mut members: Vec<(usize, f64)> =
                (0..c.k).filter(|&k| r[k] <= qs[k]).map(|k| (k, r[k])).collect();
            members.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            assert_eq!(c.set(t, alpha, false).members, members, "α = {alpha}, item {t}");
            assert_eq!(sizes[t], members.len());
            size += members.len();
            if let Some(p) = members.iter().position(|m| m.0 == y) {
                covered += 1;
                pos += p;
            }
        }
        let m = c.metrics(alpha, false);
        assert_eq!(m.coverage, covered as f64 / nt as f64, "α = {alpha}");
        assert_eq!(m.size, size as f64 / nt as f64, "α = {alpha}");
        if covered > 0 {
            assert_eq!(m.position, pos as f64 / covered as f64, "α = {alpha}");
        }
        assert_eq!(sweep[a], (m.coverage, m.size), "α = {alpha}");
        assert_eq!(c.metrics_and_sizes(alpha, false), (m, sizes));
    }
}

#[test]
fn global_thresholds_are_each_class_quantile() {
    let (k, n_cal) = (5, 60);
    let (t, labels, split) = data(n_cal, 40, k, 6);
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    let kinds = [(Method::Cp, RvalueKind::Parametric), (Method::CpAvg, RvalueKind::Parametric)]
        .into_iter()
        .chain([RvalueKind::Parametric, RvalueKind::Nonparametric].map(|r| (Method::CpR, r)));
    for (method, kind) in kinds {
        let opts = ScoreOptions { kind, coverage: Coverage::PerClass, ..ScoreOptions::default() };
        let c = prepared.calibrate(method, &opts, std::slice::from_ref(&split)).unwrap().remove(0);
        let s =
            item_scores(&t, &prepared.summaries, prepared.order.as_ref(), method, &opts).unwrap().unwrap();
        let units: Vec<(usize, f64)> = split.cal.iter().map(|&i| (labels[i], s[i * k + labels[i]])).collect();
        let q = |_: usize, class: usize, alpha: f64| by_definition(&units, class, alpha);
        check(&c, &labels, q, |t| s[split.test[t] * k..(split.test[t] + 1) * k].to_vec());
        // The last class calibrates nothing: +∞ at every α, and counted.
        assert_eq!(c.class_threshold(0, k - 1, 0.5), f64::INFINITY);
        let counts = c.class_counts().unwrap();
        assert_eq!(counts.iter().sum::<usize>(), n_cal);
        for alpha in ALPHAS {
            let unbounded =
                (0..k).filter(|&class| by_definition(&units, class, alpha) == f64::INFINITY).count();
            assert_eq!(c.unbounded_classes(alpha), unbounded);
            assert!(unbounded >= 1);
        }
        let marginal = prepared.calibrate(
            method,
            &ScoreOptions { kind, ..ScoreOptions::default() },
            std::slice::from_ref(&split),
        );
        assert_eq!(marginal.unwrap()[0].unbounded_classes(0.1), 0);
    }
}

#[test]
fn pooled_boundaries_are_each_class_quantile() {
    let (k, n_cal) = (4, 45);
    let (t, labels, split) = data(n_cal, 20, k, 5);
    let order = DrawOrder::of(&t).unwrap();
    for ties in [TieOrder::Exchangeable, TieOrder::Index] {
        let c = Calibrated::pooled_with(&t, &labels, Some(&order), &split, ties, Coverage::PerClass).unwrap();
        // The O(U²) oracle names the unit chosen at each step: each unit's r-value, by class.
        let items: Vec<_> = split
            .test
            .iter()
            .map(|&i| pooled_item_oracle(&t, &labels, &split.cal, i, split.ties(ties)).unwrap())
            .collect();
        let units: Vec<Vec<(usize, f64)>> = items
            .iter()
            .map(|it| {
                let u = it.units as f64;
                let mut by_unit = vec![(0, 0.0); n_cal];
                for (&s, &j) in it.cal_steps.iter().zip(&it.cal_units) {
                    by_unit[j as usize] = (labels[split.cal[j as usize]], s as f64 / u);
                }
                by_unit
            })
            .collect();
        let q = |t: usize, class: usize, alpha: f64| by_definition(&units[t], class, alpha);
        check(&c, &labels, q, |t| items[t].rvalues());
        for threads in [2, 3] {
            let n = Calibrated::pooled_threads(
                &t,
                &labels,
                Some(&order),
                &split,
                ties,
                Coverage::PerClass,
                threads,
            );
            assert_eq!(format!("{c:?}"), format!("{:?}", n.unwrap()), "{threads} threads");
        }
    }
}

/// Marginal calibrations keep their bytes; per-class ones come back the same, bit for bit, and
/// altered buffers are errors or calibrations, never panics.
#[test]
fn per_class_calibrations_survive_their_bytes() {
    let (k, n_cal) = (4, 30);
    let (t, labels, split) = data(n_cal, 12, k, 4);
    let prepared = Prepared::new(&t, &labels, true).unwrap();
    let cp =
        item_scores(&t, &prepared.summaries, None, Method::Cp, &ScoreOptions::default()).unwrap().unwrap();
    let pooled = |coverage| {
        Calibrated::pooled_with(
            &t,
            &labels,
            prepared.order.as_ref(),
            &split,
            TieOrder::Exchangeable,
            coverage,
        )
    };
    let bytes_of = |c: &Calibrated| {
        let mut b = Vec::new();
        c.write_bytes(&mut b);
        b
    };
    let marginal = [Calibrated::fixed(&cp, k, &labels, &split), pooled(Coverage::Marginal).unwrap()];
    let per_class = [
        Calibrated::fixed_with(&cp, k, &labels, &split, Coverage::PerClass),
        pooled(Coverage::PerClass).unwrap(),
    ];
    for (m, c) in marginal.iter().zip(&per_class) {
        let (mb, b) = (bytes_of(m), bytes_of(c));
        assert_eq!(&b[..mb.len()], {
            let mut want = mb.clone();
            want[8 + 8 * m.test.len()] |= 0x80;
            want
        });
        let back = Calibrated::read_bytes(&mut &b[..]).unwrap();
        assert_eq!(format!("{c:?}"), format!("{back:?}"));
        assert_eq!(back.coverage(), Coverage::PerClass);
        for cut in [mb.len(), b.len() - 1] {
            assert!(Calibrated::read_bytes(&mut &b[..cut]).is_err(), "cut at {cut}");
        }
        for at in (0..b.len()).step_by(7) {
            let mut altered = b.clone();
            altered[at] ^= 0xff;
            let _ = Calibrated::read_bytes(&mut &altered[..]);
        }
    }
}
