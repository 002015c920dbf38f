//! Native and wasm builds compute the same bits. A digest of many core results (every r-value
//! algorithm, the pooled greedy, conformal metrics, the toy simulator) is compared with the one
//! committed in `tests/data/golden/core_digest.txt`; this test runs natively and, in
//! `make test`, as wasm in headless Chromium, so both must match the same file.
//! After an intended change of results: `RVALUE_UPDATE_GOLDEN=1 cargo test --test agreement`.

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rvalue_core::conformal::{self, Method, Prepared, Prior, RvalueKind, ScoreOptions, SplitPlan};
use rvalue_core::rvalue::{
    self, Algorithm, DrawOrder, HyperChoice, LambdaRule, PooledSplit, TieOrder, Ties, Workspace,
};
use rvalue_core::{samples, toy};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN: &str = include_str!("data/golden/core_digest.txt");
const R_UNITS: &str = include_str!("data/reference/rvalues_R_12_units.csv");

/// FNV-1a over the bit patterns: any difference in any last bit changes it.
fn digest(values: impl IntoIterator<Item = f64>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_bits().to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn parametric_lines(name: &str, x: &[f64], s: &[f64], out: &mut Vec<String>) {
    for (alg, rule, tag) in [
        (Algorithm::Grid, LambdaRule::Empirical, "grid-empirical"),
        (Algorithm::Grid, LambdaRule::Model, "grid-model"),
        (Algorithm::Exact, LambdaRule::Model, "exact-model"),
        (Algorithm::Exact, LambdaRule::Empirical, "exact-empirical"),
    ] {
        let p = rvalue::parametric(x, s, HyperChoice::Estimate, alg, rule).expect("valid units");
        let all = [p.hyper.mu, p.hyper.tau2].into_iter().chain(p.post_mean).chain(p.post_sd).chain(p.rvalue);
        out.push(format!("{name} {tag} {}", digest(all)));
    }
}

fn lines() -> Vec<String> {
    let mut out = Vec::new();
    let rows: Vec<Vec<f64>> = R_UNITS
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(|f| f.trim().parse().expect("number")).collect())
        .collect();
    let x: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let s: Vec<f64> = rows.iter().map(|r| r[1] * r[1]).collect();
    parametric_lines("r-12-units", &x, &s, &mut out);
    let (x, s) = samples::units(300, 7);
    parametric_lines("units-300", &x, &s, &mut out);

    let (t, labels) = samples::logits(60, 9, 12, 3).unwrap();
    out.push(format!("logits {}", digest(t.data().iter().copied())));
    let order = DrawOrder::of(&t).expect("small K");
    let np = (0..t.n()).flat_map(|i| rvalue::nonparametric::nonparametric_from_order(&order, i));
    out.push(format!("nonparametric {}", digest(np)));
    let cal: Vec<usize> = (0..30).collect();
    // The lines before the exchangeable tie order existed keep the authors' index order.
    let split = PooledSplit::new(&t, &labels, &cal, Ties::INDEX).expect("valid");
    let mut work = Workspace::default();
    let pooled = (30..60).flat_map(|i| split.item(&t, i, Some(&order), &mut work).rvalues());
    out.push(format!("pooled {}", digest(pooled)));

    let prepared = Prepared::new(&t, &labels, true).expect("valid");
    let splits = SplitPlan::Random { count: 5, cal_fraction: 0.5, seed: 11 }.splits(t.n()).expect("valid");
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric, RvalueKind::Pooled] {
        // The per-item prior the digest was recorded with, whatever the default.
        let opts =
            ScoreOptions { kind, prior: Prior::PerItem, ties: TieOrder::Index, ..ScoreOptions::default() };
        for method in Method::PAPER {
            let cal = prepared.calibrate(method, &opts, &splits).expect("valid");
            let s = conformal::evaluate(&cal, method, 0.1, false).expect("valid α");
            let sweep = conformal::sweep(&cal, &conformal::alpha_grid(0.01, 0.5, 50), true);
            let all = [s.coverage_mean, s.coverage_sd, s.size_mean, s.size_sd, s.position_mean, s.empty_rate]
                .into_iter()
                .chain(sweep.into_iter().flat_map(|(c, z)| [c, z]));
            out.push(format!("conformal {} {} {}", kind.name(), method.name(), digest(all)));
        }
    }

    let p = toy::ToyParams { n_cal: 20, n_test: 20, repeats: 2, ..toy::ToyParams::default() };
    let (sim, _) = toy::simulate(&p, 1).expect("valid toy");
    out.push(format!("toy-simulate {}", digest(sim.data().iter().copied())));
    out.push(format!("toy-p-q {}", digest([toy::prob_q_exceeds_p(1.0, 1.0, 0.0, 1000.0)])));

    let (t, labels) = samples::logits(60, 9, 12, 3).unwrap();
    let ties = rvalue::Ties::new(TieOrder::Exchangeable, 11, 2);
    let split = PooledSplit::new(&t, &labels, &cal, ties).expect("valid");
    let pooled = (30..60).flat_map(|i| split.item(&t, i, None, &mut work).rvalues());
    out.push(format!("pooled-exchangeable {}", digest(pooled)));
    // Scores from three values: ties in every draw.
    let (n, m, k) = (60, 5, 6);
    let coarse = (0..n * m * k).map(|i| ((i * 7919) % 3) as f64).collect();
    let t = rvalue_core::tensor::ScoreTensor::new(n, m, k, coarse).expect("valid");
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let prepared = Prepared::new(&t, &labels, true).expect("valid");
    let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
    let cal = prepared.calibrate(Method::CpR, &opts, &splits[..2]).expect("valid");
    let sweep = conformal::sweep(&cal, &conformal::alpha_grid(0.01, 0.5, 50), false);
    out.push(format!(
        "conformal pooled-exchangeable-ties {}",
        digest(sweep.into_iter().flat_map(|(c, z)| [c, z]))
    ));
    out
}

#[test]
fn native_and_wasm_match_the_committed_digest() {
    let got = lines().join("\n") + "\n";
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("RVALUE_UPDATE_GOLDEN").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden/core_digest.txt");
        std::fs::write(path, &got).expect("write golden digest");
        return;
    }
    for (g, w) in got.lines().zip(GOLDEN.lines()) {
        assert_eq!(g, w, "this build's results differ from the committed digest");
    }
    assert_eq!(got.lines().count(), GOLDEN.lines().count());
}
