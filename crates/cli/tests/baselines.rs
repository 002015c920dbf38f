//! APS, RAPS and SAPS on the command line: the reading of the scores reported, the same output
//! for any thread count and for a file streamed or read whole, one-line errors for bad
//! parameters and for true-label draws.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
const DIGITS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/digits_wbb.npz");
const SCORES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/digits_wbb_scores.npy");
const LABELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/digits_wbb_labels.npy");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the rvalue binary runs")
}

fn ok(args: &[&str]) -> (String, String) {
    let o = run(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr: {err}");
    (String::from_utf8(o.stdout).unwrap(), err)
}

/// Exit 2 with one line on stderr, nothing on stdout; the line.
fn bad(args: &[&str]) -> String {
    let o = run(args);
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(o.stdout.is_empty());
    err
}

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("baselines").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const RUN: [&str; 8] = ["--alpha", "0.1", "--splits", "40", "--seed", "3", "--device", "cpu"];

#[test]
fn baselines_cover_and_report_how_the_scores_were_read() {
    let args =
        [&["conformal", "--scores", DIGITS, "--method", "aps,raps,saps,cp", "--format", "json"][..], &RUN]
            .concat();
    let (out, err) = ok(&args);
    assert!(err.contains("APS, RAPS and SAPS read the scores as "), "{err}");
    assert!(err.contains("(--scores-are auto)"), "{err}");
    let rows: Vec<&str> = out.split("\"method\": ").skip(1).collect();
    assert_eq!(rows.len(), 4);
    for (row, method) in rows.iter().zip(["aps", "raps", "saps", "cp"]) {
        assert!(row.starts_with(&format!("\"{method}\"")), "{row}");
        assert_eq!(row.contains("\"scores_are\": "), method != "cp", "{row}");
        let cov: f64 =
            row.split("\"coverage_mean\": ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        assert!(cov > 0.86 && cov < 0.96, "{method}: {cov}");
    }
}

#[test]
fn threads_files_and_deterministic_runs_agree() {
    let base = ["conformal", "--method", "aps,raps,saps"];
    let npz = [&base[..], &["--scores", DIGITS, "--threads", "1"], &RUN].concat();
    let pair = [&base[..], &["--scores", SCORES, "--labels", LABELS, "--threads", "2"], &RUN].concat();
    assert_eq!(ok(&npz).0, ok(&pair).0);
    // An explicit reading gives auto's rows when it is auto's choice.
    let (_, err) = ok(&npz);
    let chosen =
        err.split("read the scores as ").nth(1).unwrap().split(' ').next().unwrap().trim().to_string();
    let explicit = [&npz[..], &["--scores-are", &chosen]].concat();
    assert_eq!(ok(&explicit).0, ok(&npz).0);
    // u = 1 is another rule: other rows, the same for every thread count.
    let det = [&npz[..], &["--deterministic"]].concat();
    let det2 = [&pair[..], &["--deterministic"]].concat();
    assert_eq!(ok(&det).0, ok(&det2).0);
    assert_ne!(ok(&det).0, ok(&npz).0);
}

#[test]
fn sets_and_predict_take_the_baselines() {
    let dir = tmp("sets");
    let out = dir.join("sets.csv");
    let common = ["--alpha", "0.1", "--device", "cpu", "--method", "raps", "--raps-lambda", "0.05"];
    ok(&[&["sets", "--scores", DIGITS, "--output", out.to_str().unwrap()][..], &common].concat());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.lines().skip(1).all(|l| l.starts_with("raps,")) && text.lines().count() > 100);
    let pred = dir.join("pred.csv");
    let p = [
        "predict",
        "--calibration",
        SCORES,
        "--calibration-labels",
        LABELS,
        "--test",
        SCORES,
        "--output",
        pred.to_str().unwrap(),
        "--method",
        "saps",
        "--alpha",
        "0.1",
        "--device",
        "cpu",
    ];
    let (_, err) = ok(&p);
    assert!(err.contains("read the scores as log-probabilities (--scores-are auto)"), "{err}");
    assert!(std::fs::read_to_string(&pred).unwrap().lines().count() > 100);
}

#[test]
fn bad_parameters_and_true_draws_get_one_line() {
    let go = |extra: &[&str]| {
        bad(&[&["conformal", "--scores", DIGITS, "--method", "raps"][..], &RUN, extra].concat())
    };
    assert!(go(&["--raps-lambda", "-1"]).contains("RAPS's λ must be a finite number ≥ 0"));
    assert!(go(&["--raps-kreg", "-2"]).contains("RAPS's k_reg must be a finite number ≥ 0"));
    let e = go(&["--scores-are", "probabilities"]);
    assert!(e.contains("scores read as probabilities: item 0, draw 0"), "{e}");
    let dir = tmp("calibration-true");
    let true_draws = dir.join("true.npy");
    let draws: Vec<f64> = (0..40).map(|i| -(i as f64) / 10.0).collect();
    std::fs::write(&true_draws, rvalue_core::io::write_npy_f64(&[20, 2], &draws)).unwrap();
    let e = bad(&[
        "conformal",
        "--scores",
        DIGITS,
        "--calibration-true",
        true_draws.to_str().unwrap(),
        "--method",
        "cp,aps",
        "--alpha",
        "0.1",
        "--device",
        "cpu",
    ]);
    assert!(e.contains("APS needs every class's probability of a calibration item"), "{e}");
}
