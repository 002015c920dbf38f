//! `--coverage per-class`: each class's threshold is its own calibration items' quantile
//! (docs/method.md §5), checked against an independent computation on a fixed mask; and the
//! output is the same held or streamed, on 1 or N threads, on the CPU or the GPU.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rvalue_core::io::{read_scores, write_npy_bool, write_npy_f64, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the rvalue binary runs")
}

fn ok(args: &[&str]) -> (String, String) {
    let o = run(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    (String::from_utf8(o.stdout).unwrap(), err)
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("per_class").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The digits ensemble, its labels with class 9 moved out of calibration (test items only),
/// and a mask: the files `scores.npy`, `labels.npy`, `mask.npy` in `dir` (a `.npy` pair is
/// streamed) and the same as `digits.npz` (held whole).
struct Files {
    scores: String,
    labels: String,
    npz_scores: String,
    mask: String,
    mask_v: Vec<bool>,
}

fn files(dir: &Path) -> (Files, rvalue_core::tensor::ScoreTensor, Vec<usize>) {
    let bytes = std::fs::read(Path::new(ROOT).join("assets/digits_wbb.npz")).unwrap();
    let d = read_scores("digits", &bytes).unwrap();
    let (t, labels) = (d.scores, d.labels.unwrap());
    let mask_v: Vec<bool> = (0..t.n()).map(|i| (i * 7919 + 13) % 11 < 5 && labels[i] != 9).collect();
    let write = |name: &str, b: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, b).unwrap();
        p.to_str().unwrap().to_string()
    };
    let ints: Vec<i64> = labels.iter().map(|&y| y as i64).collect();
    let f = Files {
        scores: write("scores.npy", write_npy_f64(&[t.n(), t.m(), t.k()], &t.data())),
        labels: write("labels.npy", write_npy_i64(&[t.n()], &ints)),
        npz_scores: Path::new(ROOT).join("assets/digits_wbb.npz").to_str().unwrap().to_string(),
        mask: write("mask.npy", write_npy_bool(&[t.n()], &mask_v)),
        mask_v,
    };
    (f, t, labels)
}

/// Rows of a `sets` CSV by (method, item): the candidates in set order.
fn sets_of(csv: &str) -> BTreeMap<(String, usize), Vec<usize>> {
    let mut out: BTreeMap<(String, usize), Vec<usize>> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        out.entry((f[0].to_string(), f[1].parse().unwrap())).or_default().push(f[2].parse().unwrap());
    }
    out
}

#[test]
fn per_class_sets_are_each_class_quantile_on_a_mask() {
    let dir = tmp_dir("definition");
    let (f, t, labels) = files(&dir);
    let out = dir.join("sets.csv");
    let alpha = 0.1;
    let (_, err) = ok(&[
        "sets",
        "--scores",
        &f.npz_scores,
        "--split",
        &f.mask,
        "--alpha",
        "0.1",
        "--method",
        "cp,cp-avg",
        "--coverage",
        "per-class",
        "--output",
        out.to_str().unwrap(),
    ]);
    // Class 9 has no calibration item: it enters every set, and the warning says so.
    assert!(err.contains("1 of 10 classes have too few calibration items"), "{err}");
    let got = sets_of(&std::fs::read_to_string(&out).unwrap());
    let (n, m, k) = (t.n(), t.m(), t.k());
    for method in ["cp", "cp-avg"] {
        let score = |i: usize, c: usize| match method {
            "cp" => -t.get(i, 0, c),
            _ => -(0..m).map(|d| t.get(i, d, c)).sum::<f64>() / m as f64,
        };
        // q̂_c: the ⌈(n_c + 1)(1 − α)⌉-th smallest of class c's calibration scores, else +∞.
        let q: Vec<f64> = (0..k)
            .map(|c| {
                let mut s: Vec<f64> =
                    (0..n).filter(|&i| f.mask_v[i] && labels[i] == c).map(|i| score(i, c)).collect();
                s.sort_by(f64::total_cmp);
                let ks = ((s.len() as f64 + 1.0) * (1.0 - alpha) - 1e-9).ceil() as usize;
                s.get(ks - 1).copied().unwrap_or(f64::INFINITY)
            })
            .collect();
        assert_eq!(q[9], f64::INFINITY);
        let mut differs_from_a_prefix = false;
        for i in (0..n).filter(|&i| !f.mask_v[i]) {
            let mut want: Vec<usize> = (0..k).filter(|&c| score(i, c) <= q[c]).collect();
            want.sort_by(|&a, &b| score(i, a).total_cmp(&score(i, b)).then(a.cmp(&b)));
            let have = got.get(&(method.to_string(), i)).cloned().unwrap_or_default();
            assert_eq!(have, want, "{method} item {i}");
            let mut order: Vec<usize> = (0..k).collect();
            order.sort_by(|&a, &b| score(i, a).total_cmp(&score(i, b)).then(a.cmp(&b)));
            differs_from_a_prefix |= order[..want.len()] != want[..];
        }
        assert!(differs_from_a_prefix, "{method}: some set is not the row's lowest scores");
    }
}

/// `conformal --coverage per-class` as JSON for every r-value kind and the two other methods.
fn conformal(f: &Files, scores: &str, kind: &str, extra: &[&str]) -> String {
    let labels: &[&str] = if scores.ends_with(".npy") { &["--labels", &f.labels] } else { &[] };
    let base = ["conformal", "--scores", scores, "--alpha", "0.1", "--splits", "3", "--rvalue", kind];
    let tail = ["--coverage", "per-class", "--format", "json"];
    ok(&[&base[..], labels, &tail, extra].concat()).0
}

#[test]
fn per_class_is_the_same_streamed_on_threads_and_devices() {
    let dir = tmp_dir("invariants");
    let (f, _, _) = files(&dir);
    for kind in ["parametric", "nonparametric", "pooled"] {
        let want = conformal(&f, &f.npz_scores, kind, &["--threads", "1", "--device", "cpu"]);
        assert!(want.contains("\"coverage\": \"per-class\""), "{want}");
        let marginal = ok(&[
            "conformal",
            "--scores",
            &f.npz_scores,
            "--alpha",
            "0.1",
            "--splits",
            "3",
            "--rvalue",
            kind,
            "--format",
            "json",
        ])
        .0;
        assert_ne!(want, marginal, "{kind}: per class differs from marginal");
        assert_eq!(
            conformal(&f, &f.npz_scores, kind, &["--threads", "2", "--device", "cpu"]),
            want,
            "{kind}: 2 threads"
        );
        assert_eq!(
            conformal(&f, &f.scores, kind, &["--threads", "2", "--device", "cpu"]),
            want,
            "{kind}: streamed"
        );
        if kind != "parametric" && !std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") {
            assert_eq!(conformal(&f, &f.npz_scores, kind, &["--device", "gpu"]), want, "{kind}: GPU");
            assert_eq!(conformal(&f, &f.scores, kind, &["--device", "gpu"]), want, "{kind}: GPU streamed");
        }
    }
}
