//! Whole `rvalue` commands on the inputs users have, timed as a user would time them: one
//! process per run, file reading, the device probe and the CSV output included.
//!
//! `cargo bench -p rvalue-cli --bench commands` writes seeded score files under Cargo's bench
//! temporary directory (CLIP-like f32 softmax probabilities, the same as log-probabilities and
//! CIFAR-shaped f32 logits, 2000 × 31 × 100; an ImageNet-like 10000 × 10 × 1000 f32 tensor
//! of 400 MB), then prints for each command the fastest and median wall time and the peak
//! resident memory (from `/usr/bin/time`, when it is installed). `RVALUE_BENCH_RUNS=n` sets the
//! runs per command (default 3); `RVALUE_BENCH_QUICK=1` skips the pooled 100-split and
//! ImageNet-like rows. It prints and asserts nothing: speed is not a test.

// A benchmark of seeded inputs: an `expect` states an invariant of the harness, not user input.
#![allow(clippy::expect_used)]

use rvalue_core::samples;
use rvalue_core::tensor::ScoreTensor;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Items, draws and candidates of the CLIP- and CIFAR-shaped files.
const SHAPE: (usize, usize, usize) = (2000, 31, 100);
/// The ImageNet-like tensor of the memory target.
const IMAGENET: (usize, usize, usize) = (10_000, 10, 1000);
/// The seeded samples of these non-empty shapes are never refused.
const SEEDED: &str = "a non-empty shape of finite scores";

fn main() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("commands-bench");
    std::fs::create_dir_all(&dir).expect("the bench directory can be created");
    let runs = std::env::var("RVALUE_BENCH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let quick = std::env::var_os("RVALUE_BENCH_QUICK").is_some();
    let (n, m, k) = SHAPE;

    let files = [
        (
            "CLIP-like probabilities",
            write_f32(&dir, "clip_prob", &samples::clip_probabilities(n, m, k, 7).expect(SEEDED)),
        ),
        (
            "the same, log-probabilities",
            write_f32(&dir, "clip_logp", &samples::clip_log_probabilities(n, m, k, 7).expect(SEEDED)),
        ),
        ("CIFAR-shaped logits", write_f32(&dir, "cifar_logits", &samples::logits(n, m, k, 7).expect(SEEDED))),
    ];
    println!("{:<58} {:>10} {:>10} {:>9}", "command (whole process)", "fastest", "median", "peak RSS");
    for (what, (scores, labels)) in &files {
        let pooled = |splits: &'static str| {
            vec!["conformal", "--alpha", "0.05", "--rvalue", "pooled", "--method", "cp-r", "--splits", splits]
        };
        row(&format!("{what}: pooled CP_r, 5 splits"), runs, &with_files(pooled("5"), scores, labels));
        if !quick {
            row(&format!("{what}: pooled CP_r, 100 splits"), 1, &with_files(pooled("100"), scores, labels));
        }
    }
    let (scores, labels) = &files[0].1;
    row(
        "CLIP-like probabilities: all methods, defaults, 5 splits",
        runs,
        &with_files(vec!["conformal", "--alpha", "0.1", "--splits", "5"], scores, labels),
    );

    // The baselines' cost: 100 splits of the CIFAR-shaped logits, the paper's three methods
    // against those three and APS, RAPS, SAPS (the target: at most 1.5 times).
    let (scores, labels) = &files[2].1;
    let three = vec!["conformal", "--alpha", "0.1", "--splits", "100"];
    let six =
        vec!["conformal", "--alpha", "0.1", "--splits", "100", "--method", "cp,cp-avg,cp-r,aps,raps,saps"];
    row("CIFAR-shaped logits: 3 methods, 100 splits", runs, &with_files(three, scores, labels));
    row("CIFAR-shaped logits: 6 methods, 100 splits", runs, &with_files(six, scores, labels));

    if !quick {
        let (n, m, k) = IMAGENET;
        let (scores, labels) =
            write_f32(&dir, "imagenet_logits", &samples::logits(n, m, k, 11).expect(SEEDED));
        let bytes = n * m * k * 4;
        println!("ImageNet-like f32 tensor {n} × {m} × {k}: {} MB", bytes / 1_000_000);
        for args in [
            vec!["conformal", "--alpha", "0.1", "--splits", "5"],
            vec!["conformal", "--alpha", "0.1", "--splits", "5", "--rvalue", "pooled"],
        ] {
            row(&format!("ImageNet-like: {}", args[1..].join(" ")), 1, &with_files(args, &scores, &labels));
        }
    }
}

/// `args` with `--scores`, `--labels`, and the CPU named (the probe is timed elsewhere).
fn with_files(mut args: Vec<&str>, scores: &Path, labels: &Path) -> Vec<String> {
    args.extend(["--device", "cpu"]);
    let mut out: Vec<String> = args.into_iter().map(String::from).collect();
    out.extend([
        "--scores".into(),
        scores.display().to_string(),
        "--labels".into(),
        labels.display().to_string(),
    ]);
    out
}

/// Runs the command `runs` times and prints its fastest and median wall time and peak RSS.
fn row(what: &str, runs: usize, args: &[String]) {
    let mut times = Vec::with_capacity(runs);
    let mut peak_kb = None;
    for _ in 0..runs.max(1) {
        let (seconds, kb) = run(args);
        times.push(seconds);
        peak_kb = peak_kb.max(kb);
    }
    times.sort_by(f64::total_cmp);
    let rss = peak_kb.map_or("—".to_string(), |kb| format!("{} MB", kb / 1000));
    println!("{what:<58} {:>8.2} s {:>8.2} s {rss:>9}", times[0], times[times.len() / 2]);
}

/// One run: wall seconds, and peak RSS in kB when `/usr/bin/time` can tell it.
fn run(args: &[String]) -> (f64, Option<u64>) {
    let exe = env!("CARGO_BIN_EXE_rvalue");
    let timer = Path::new("/usr/bin/time");
    let mut cmd = if timer.exists() {
        let mut c = Command::new(timer);
        c.args(["-f", "%M", exe]);
        c
    } else {
        Command::new(exe)
    };
    let start = Instant::now();
    let out = cmd.args(args).output().expect("the rvalue binary runs");
    let seconds = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rvalue {} failed: {stderr}", args.join(" "));
    let kb = timer.exists().then(|| stderr.lines().last().and_then(|l| l.trim().parse().ok())).flatten();
    (seconds, kb)
}

/// Writes the scores as a float32 `.npy` (each score is an f32 already) and the labels as an
/// int64 `.npy`, unless both exist from an earlier run.
fn write_f32(dir: &Path, name: &str, (t, labels): &(ScoreTensor, Vec<usize>)) -> (PathBuf, PathBuf) {
    let (scores, label_file) = (dir.join(format!("{name}.npy")), dir.join(format!("{name}_labels.npy")));
    if scores.exists() && label_file.exists() {
        return (scores, label_file);
    }
    let f32s: Vec<f32> = t.data().iter().map(|&x| x as f32).collect();
    let bytes = rvalue_core::io::write_npy_f32(&[t.n(), t.m(), t.k()], &f32s);
    std::fs::write(&scores, bytes).expect("the bench directory is writable");
    let l: Vec<i64> = labels.iter().map(|&y| y as i64).collect();
    std::fs::write(&label_file, rvalue_core::io::write_npy_i64(&[l.len()], &l))
        .expect("the bench directory is writable");
    (scores, label_file)
}
