//! `rvalue conformal --alpha A1,A2,…`: one row per α and method, α first, equal to the rows of
//! separate single-α runs on the same splits (docs/method.md §9); `sets` and `predict` take one.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the rvalue binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// A whole file (CSV, held) and a streamed one (an .npz member), under methods whose scores are
/// split-independent and pooled CP_r, in CSV and JSON.
#[test]
fn several_alphas_are_the_single_runs_rows_in_order() {
    let digits = format!("{ROOT}/assets/digits_wbb.npz");
    let csv = format!("{ROOT}/assets/small_long.csv");
    let runs: [(&str, &[&str]); 3] = [
        (&digits, &["--splits", "4", "--method", "cp,cp-r"]),
        (&digits, &["--splits", "3", "--method", "cp-r,cp-avg", "--rvalue", "pooled", "--format", "json"]),
        (&csv, &["--splits", "5", "--rvalue", "nonparametric", "--cal-fraction", "0.5"]),
    ];
    let alphas = ["0.05", "0.2", "0.1"];
    for (scores, flags) in runs {
        let base = [&["conformal", "--scores", scores, "--device", "cpu", "--seed", "7"][..], flags].concat();
        let all = ok(&[&base[..], &["--alpha", &alphas.join(",")]].concat());
        let single: Vec<String> = alphas.iter().map(|a| ok(&[&base[..], &["--alpha", a]].concat())).collect();
        if flags.contains(&"json") {
            let rows = |t: &str| -> Vec<serde_json::Value> {
                serde_json::from_str::<serde_json::Value>(t).unwrap().as_array().unwrap().clone()
            };
            let want: Vec<serde_json::Value> = single.iter().flat_map(|s| rows(s)).collect();
            assert_eq!(rows(&all), want, "{flags:?}");
        } else {
            let header = single[0].lines().next().unwrap();
            let want: Vec<&str> = single.iter().flat_map(|s| s.lines().skip(1)).collect();
            let got: Vec<&str> = all.lines().collect();
            assert_eq!(got[0], header);
            assert_eq!(got[1..], want[..], "{flags:?}");
        }
    }
}

#[test]
fn sets_and_predict_take_one_alpha_and_a_bad_one_is_refused() {
    let digits = format!("{ROOT}/assets/digits_wbb.npz");
    let out = std::env::temp_dir().join(format!("rvalue-alphas-{}.csv", std::process::id()));
    let o = run(&["sets", "--scores", &digits, "--alpha", "0.1,0.2", "--output", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("one level only"), "{err}");
    assert!(!out.exists());
    let o = run(&["conformal", "--scores", &digits, "--alpha", "0.1,1.5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8(o.stderr).unwrap().contains("(0, 1)"));
}
