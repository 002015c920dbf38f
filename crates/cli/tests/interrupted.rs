//! Outputs written whole or not at all: `rvalue sets` and `rvalue predict` interrupted by SIGINT
//! or SIGTERM mid-run leave an older file at the output path as it was, no temporary file beside
//! it, and exit with status 130.
#![cfg(unix)]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rvalue_core::io::{write_npy_bool, write_npy_f64, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
/// Items, draws and candidates: a split's pooled r-values on these take many seconds, so a run
/// is still going when the signal comes.
const N: usize = 6000;
const M: usize = 8;
const K: usize = 10;

fn tmp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("interrupted").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Seeded scores, labels and a half/half mask as .npy files in `dir`: (scores, labels, mask).
fn inputs(dir: &Path) -> (String, String, String) {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let scores: Vec<f64> = (0..N * M * K)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let labels: Vec<i64> = (0..N as i64).map(|i| i % K as i64).collect();
    let mask: Vec<bool> = (0..N).map(|i| i % 2 == 0).collect();
    let files = [
        ("scores.npy", write_npy_f64(&[N, M, K], &scores)),
        ("labels.npy", write_npy_i64(&[N], &labels)),
        ("mask.npy", write_npy_bool(&[N], &mask)),
    ];
    let paths: Vec<String> = files
        .into_iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p.to_str().unwrap().to_string()
        })
        .collect();
    (paths[0].clone(), paths[1].clone(), paths[2].clone())
}

/// Names in `dir` other than the inputs.
fn outputs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.ends_with(".npy") || n.starts_with("out"))
        .collect();
    names.sort();
    names
}

/// A command line's words (the test's paths have no spaces).
fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn spawn(args: &[String]) -> Child {
    Command::new(BIN).args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Polls until `ready` holds (a minute at most, else the test fails).
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(60), "never happened: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill").args([name, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

/// Waits for the child; its exit status and stderr.
fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

#[test]
fn sets_interrupted_mid_run_leaves_the_older_file() {
    let dir = tmp_dir("sets");
    let (scores, labels, mask) = inputs(&dir);
    let target = dir.join("out.csv");
    std::fs::write(&target, "an older result\n").unwrap();
    let t = target.to_str().unwrap();
    let args = words(&format!(
        "sets --alpha 0.1 --scores {scores} --labels {labels} --split {mask} --method cp,cp-r --rvalue pooled --threads 1 --output {t}"
    ));
    let child = spawn(&args);
    // CP's rows are written first, in a moment; CP_r's pooled r-values take much longer.
    let partial = || outputs(&dir).into_iter().find(|n| n.ends_with(".partial")).map(|n| dir.join(n));
    wait_until("rows in the temporary file", || {
        partial().is_some_and(|p| p.metadata().is_ok_and(|m| m.len() > 0))
    });
    let temp = partial().unwrap();
    assert!(
        temp.file_name().unwrap().to_str().unwrap().starts_with(".out.csv."),
        "{temp:?} beside the target"
    );
    signal(&child, "-INT");
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("rvalue: interrupted"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "an older result\n");
    assert_eq!(outputs(&dir), ["out.csv"], "the temporary file is removed");
}

#[test]
fn predict_terminated_mid_run_leaves_the_older_file() {
    let dir = tmp_dir("predict");
    let (scores, labels, _) = inputs(&dir);
    let target = dir.join("out.npy");
    std::fs::write(&target, "an older result\n").unwrap();
    let t = target.to_str().unwrap();
    let args = words(&format!(
        "predict --alpha 0.1 --calibration {scores} --calibration-labels {labels} --test {scores} --method cp-r --rvalue pooled --threads 1 --output {t}"
    ));
    let mut child = spawn(&args);
    // Past reading the files and into the pooled greedy.
    std::thread::sleep(Duration::from_millis(1000));
    assert!(child.try_wait().unwrap().is_none(), "still running when the signal comes");
    signal(&child, "-TERM");
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "an older result\n");
    assert_eq!(outputs(&dir), ["out.npy"], "no temporary file is left");
}

#[test]
fn a_finished_run_replaces_the_older_file_whole() {
    let dir = tmp_dir("finished");
    let (scores, labels, mask) = inputs(&dir);
    let target = dir.join("out.csv");
    std::fs::write(&target, "an older result\n").unwrap();
    let t = target.to_str().unwrap();
    let args = words(&format!(
        "sets --alpha 0.1 --scores {scores} --labels {labels} --split {mask} --method cp --output {t}"
    ));
    let (code, err) = finish(spawn(&args));
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with("method,item,candidate,score,position\n") && text.ends_with('\n'), "whole");
    assert_eq!(text.lines().count() - 1, text.lines().filter(|l| l.starts_with("cp,")).count());
    assert_eq!(outputs(&dir), ["out.csv"]);
}
