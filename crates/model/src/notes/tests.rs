use super::*;
use crate::{Mode, Source};
use rvalue_core::io::Dataset;
use rvalue_core::toy::ToyParams;
use std::sync::Arc;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A file of `n` items whose labels use `classes` of the `k` candidates.
fn file(n: usize, m: usize, k: usize, classes: usize, controls: &Controls) -> Analysis {
    let (scores, labels) = rvalue_core::samples::logits(n, m, k, 5).unwrap();
    let labels = labels.iter().map(|y| y % classes).collect();
    let data = Arc::new(Dataset { scores, labels: Some(labels), single_draw: false });
    Analysis::build(Source::from_controls(controls, Some(data)).unwrap(), controls).unwrap()
}

fn scores(kind: RvalueKind) -> Controls {
    let mut c = Controls { splits: 2, ..Controls::default().for_mode(Mode::Scores) };
    c.score.kind = kind;
    c
}

#[test]
fn the_cores_warnings_reach_the_page_as_sentences() {
    let c = scores(RvalueKind::Parametric);
    let a = file(60, 6, 10, 10, &c);
    assert_eq!(a.n_cal(), 30);
    assert_eq!(a.warnings(0.1), Vec::<String>::new());
    // α below 1/(n_cal + 1): every set full.
    let w = a.warnings(0.02);
    assert_eq!(w.len(), 1);
    assert!(w[0].starts_with("α = 0.02 is below"), "{}", w[0]);
    assert!(w[0].ends_with("every prediction set is full."), "{}", w[0]);
    // A tensor stacked [N, K, M]: labels use 3 of 10 candidates.
    let w = file(60, 6, 10, 3, &c).warnings(0.1);
    assert!(w.len() == 1 && w[0].contains("is the tensor [N, M, K]?"), "{w:?}");
    // Nonparametric r-values over K = 6: coarse.
    let w = file(60, 6, 6, 6, &scores(RvalueKind::Nonparametric)).warnings(0.1);
    assert!(w.len() == 1 && w[0].starts_with("Nonparametric r-values rank"), "{w:?}");
    // The toy's single label is no warning; its n_cal is the toy's.
    let toy = Controls {
        toy: ToyParams { k: 4, m: 5, n_cal: 30, n_test: 20, repeats: 1, ..ToyParams::default() },
        ..Controls::default()
    };
    let a = Analysis::build(Source::from_controls(&toy, None).unwrap(), &toy).unwrap();
    assert_eq!((a.n_cal(), a.warnings(0.1)), (30, Vec::<String>::new()));
    assert_eq!(a.sigma2_start(), None, "the toy's σ² is a parameter");
}

#[test]
fn the_sigma2_marker_starts_at_the_median_variance() {
    let a = file(60, 6, 10, 10, &scores(RvalueKind::Parametric));
    let mut v = a.variances();
    v.sort_by(f64::total_cmp);
    let median = 0.5 * (v[v.len() / 2 - 1] + v[v.len() / 2]);
    let start = a.sigma2_start().unwrap();
    assert_eq!(start, scales::round3(median));
    assert!(start > 0.0 && (start / median - 1.0).abs() < 5e-3 && start < 1000.0, "{start} vs {median}");
}

#[test]
fn panels_and_formulas_follow_the_r_value_in_use() {
    let mut per_item = scores(RvalueKind::Parametric);
    per_item.score.prior = Prior::PerItem;
    let p = kind_notes(&per_item);
    assert!(!p.nonparametric && !p.pooled && p.theorem3.is_empty());
    assert!(p.threshold.contains("pooled over all candidates"), "{}", p.threshold);
    per_item.score.prior = Prior::Pooled;
    assert_eq!(kind_notes(&per_item).threshold, "CP_r uses this parametric r-value.");
    let toy = kind_notes(&Controls::default());
    assert_eq!(toy.threshold, "CP_r uses this parametric r-value.");
    let np = kind_notes(&scores(RvalueKind::Nonparametric));
    assert!(np.nonparametric && !np.pooled);
    let pooled = kind_notes(&scores(RvalueKind::Pooled));
    assert!(pooled.pooled && !pooled.nonparametric);
    for n in [&np, &pooled] {
        assert!(n.threshold.starts_with("Parametric view only"), "{}", n.threshold);
        assert!(n.theorem3.starts_with("Parametric view only"), "{}", n.theorem3);
        assert!(n.formulas.contains("panels 2 and 5"), "{}", n.formulas);
    }
    assert!(pooled.formulas.contains("pooled r-value") && np.formulas.contains("nonparametric r-value"));
}
