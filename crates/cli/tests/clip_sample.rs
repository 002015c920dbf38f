//! The bundled CLIP-like paraphrase sample (`assets/clip_paraphrases.npz`, written by
//! `scripts/make_clip_sample.py`): its shape, and what it is bundled to show, CP_r's sets
//! smaller than CP_avg's at α = 0.05 with every method covering 1 − α, as in the paper's
//! Table 1 on CLIP. Checked with the page's defaults (100 half/half splits, seed 0) for the
//! default parametric r-values and for the pooled ones tour step 9 uses.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use rvalue_core::io::read_scores;

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/clip_paraphrases.npz");
const ALPHA: f64 = 0.05;
const SPLITS: f64 = 100.0;

#[test]
fn the_sample_is_280_images_10_paraphrases_100_classes() {
    let d = read_scores("clip_paraphrases.npz", &std::fs::read(SAMPLE).unwrap()).unwrap();
    assert_eq!((d.scores.n(), d.scores.m(), d.scores.k()), (280, 10, 100));
    let labels = d.labels.unwrap();
    let mut seen = [0usize; 100];
    labels.iter().for_each(|&y| seen[y] += 1);
    // Balanced: 280 = 2 × 100 + 80, so every class has two or three images.
    assert!(seen.iter().all(|&c| c == 2 || c == 3), "{seen:?}");
}

/// `(coverage mean, coverage sd, size mean)` per method, from `rvalue conformal`'s CSV.
fn conformal(rvalue: &str) -> Vec<(String, f64, f64, f64)> {
    let alpha = ALPHA.to_string();
    let args = ["conformal", "--scores", SAMPLE, "--alpha", &alpha, "--rvalue", rvalue, "--threads", "2"];
    let o = Command::new(BIN).args(args).output().expect("the rvalue binary runs");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8(o.stdout).unwrap();
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (cov, sd, size) = (col("coverage_mean"), col("coverage_sd"), col("size_mean"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            (f[0].to_string(), num(cov), num(sd), num(size))
        })
        .collect()
}

/// Every method covers 1 − α within four standard errors of the mean over the splits
/// (sd / √splits), and CP_r's sets are smaller than CP_avg's, which are smaller than CP's.
fn check(rvalue: &str) {
    let rows = conformal(rvalue);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["cp", "cp-avg", "cp-r"]);
    for (name, coverage, sd, _) in &rows {
        let tolerance = 4.0 * sd / SPLITS.sqrt();
        assert!(*coverage >= 1.0 - ALPHA - tolerance, "{rvalue} {name}: coverage {coverage} (sd {sd})");
    }
    let (cp, avg, r) = (rows[0].3, rows[1].3, rows[2].3);
    assert!(r < avg && avg < cp, "{rvalue}: sizes CP {cp}, CP_avg {avg}, CP_r {r}");
}

#[test]
fn cp_r_sets_are_smaller_than_cp_avg_s_with_parametric_r_values() {
    check("parametric");
}

#[test]
fn cp_r_sets_are_smaller_than_cp_avg_s_with_pooled_r_values() {
    check("pooled");
}
