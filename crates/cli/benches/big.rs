//! The paper's sizes: `rvalue conformal` on a score file of 4 GB (10,000 items × 100 draws ×
//! 1,000 classes, float32 logits), streamed, against what a numpy user would write at the least
//! (one `np.argsort(axis=2)` pass over the same file, a block of items at a time), whole process
//! against whole process, in one run.
//!
//! `cargo bench -p rvalue-cli --bench big` writes the seeded file (`samples::logit_items`, a
//! block at a time) under Cargo's bench temporary directory once, then prints each command's wall
//! time and peak resident memory (`/usr/bin/time`), and the ratio to numpy. numpy comes from
//! `target/python-venv` (`make test-python` makes it) or the system's `python3`.
//! `RVALUE_BENCH_ITEMS=n` takes the first `n` items only (a quicker, smaller file); the
//! 40 GB case is `RVALUE_BENCH_DRAWS=1000`. Last, the authors' ImageNet layout: float16 true draws
//! of 40,000 true-label draws and float16 test items, pooled CP_r with U = 41,000 units. It
//! prints and asserts nothing.

// A benchmark of seeded inputs: an `expect` states an invariant of the harness, not user input.
#![allow(clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};

use rvalue_core::io::{write_npy_f16_bits, write_npy_f32, write_npy_i64};
use rvalue_core::samples;

#[path = "support/timed.rs"]
mod timed;

const CLASSES: usize = 1000;

fn main() {
    let var =
        |name: &str, default: usize| std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    let (n, m, k) = (var("RVALUE_BENCH_ITEMS", 10_000), var("RVALUE_BENCH_DRAWS", 100), CLASSES);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("big-bench");
    std::fs::create_dir_all(&dir).expect("the bench directory can be created");
    let (scores, labels) = write_logits(&dir, n, m, k);
    let gb = (n * m * k * 4) as f64 / 1e9;
    println!("float32 logits {n} × {m} × {k}: {gb:.1} GB, streamed from disk (page cache as it is)");
    println!("{:<62} {:>9} {:>10}", "command (whole process)", "wall", "peak RSS");
    let ours = row(
        "rvalue conformal: cp, cp-avg, nonparametric cp-r, 100 splits",
        &rvalue(&["--rvalue", "nonparametric", "--splits", "100"], &scores, &labels),
    );
    let numpy = row("numpy: np.argsort(axis=2), 64 items a block", &argsort(&scores));
    println!("{:<62} {:>8.2}×", "numpy time / rvalue time", numpy / ours);
    row(
        "rvalue conformal: cp, cp-avg, parametric cp-r, 100 splits",
        &rvalue(&["--rvalue", "parametric", "--splits", "100"], &scores, &labels),
    );
    let pooled = row(
        "rvalue conformal: pooled cp-r, 2 splits",
        &rvalue(&["--rvalue", "pooled", "--method", "cp-r", "--splits", "2"], &scores, &labels),
    );
    println!("{:<62} {:>8.1} s", "pooled cp-r, time per split (2 splits share each pass)", pooled / 2.0);
    authors_layout(&dir, n, m, k);
}

/// The authors' ImageNet layout: float16 true-label draws of 40,000 units `[40000,
/// M]` and float16 test items `[n, M, 1000]`; pooled CP_r with U = 41,000 units on `TEST_ITEMS`
/// of them (one split: `--cal-size 40000 --test-size TEST_ITEMS`), and its time per test item.
fn authors_layout(dir: &Path, n: usize, m: usize, k: usize) {
    const TRUE_UNITS: usize = 40_000;
    const TEST_ITEMS: usize = 200;
    let true_draws = dir.join(format!("true_f16_{TRUE_UNITS}x{m}.npy"));
    if !true_draws.exists() {
        let draws: Vec<u16> = (n..n + TRUE_UNITS).flat_map(|i| true_label_draws(i, m, k, 11)).collect();
        std::fs::write(&true_draws, write_npy_f16_bits(&[TRUE_UNITS, m], &draws)).expect("writable");
    }
    let (test, labels) = write_logits_f16(dir, n, m, k);
    println!("authors' layout: float16 pool [{TRUE_UNITS}, {m}], float16 test items [{n}, {m}, {k}]");
    let args = |method: &str, kind: &str| {
        let mut a = rvalue(&["--rvalue", kind, "--method", method, "--splits", "1"], &test, &labels);
        a.extend(["--calibration-true".into(), true_draws.display().to_string()]);
        a.extend(["--cal-size".into(), TRUE_UNITS.to_string(), "--test-size".into(), TEST_ITEMS.to_string()]);
        a
    };
    let t = row(
        &format!("pooled cp-r, U = {}, {TEST_ITEMS} test items", TRUE_UNITS + k),
        &args("cp-r", "pooled"),
    );
    println!(
        "{:<62} {:>7.1} ms",
        "pooled cp-r, time per test item (whole command / items)",
        t * 1e3 / TEST_ITEMS as f64
    );
    row(&format!("cp, cp-avg on the same {TEST_ITEMS} test items"), &args("cp,cp-avg", "pooled"));
}

/// Item `i`'s true-label scores in each draw, as [`samples::logit_items`] makes them, rounded
/// to float16 bits.
fn true_label_draws(i: usize, m: usize, k: usize, seed: u64) -> Vec<u16> {
    let c = (i % k) as u32;
    let latent = 2.0 + samples::standard_normal(seed, i as u32, u32::MAX, c);
    let spread = 0.2 + 0.8 * samples::standard_normal(seed, i as u32, u32::MAX - 1, c).abs();
    let draw = |d: usize| (latent + spread * samples::standard_normal(seed, i as u32, d as u32, c)) as f32;
    (0..m).map(|d| half::f16::from_f32(draw(d)).to_bits()).collect()
}

/// The seeded logits of [`write_logits`] rounded to float16, unless an earlier run wrote them.
fn write_logits_f16(dir: &Path, n: usize, m: usize, k: usize) -> (PathBuf, PathBuf) {
    let scores = dir.join(format!("logits_f16_{n}x{m}x{k}.npy"));
    let labels = dir.join(format!("logits_{n}_labels.npy"));
    if scores.metadata().is_ok_and(|md| md.len() > (n * m * k * 2) as u64) && labels.exists() {
        return (scores, labels);
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(&scores).expect("writable"));
    f.write_all(&write_npy_f16_bits(&[n, m, k], &[])).expect("writable");
    for first in (0..n).step_by(50) {
        for x in samples::logit_items(first..(first + 50).min(n), m, k, 11) {
            f.write_all(&half::f16::from_f32(x).to_bits().to_le_bytes()).expect("writable");
        }
    }
    f.flush().expect("writable");
    let l: Vec<i64> = (0..n).map(|i| (i % k) as i64).collect();
    std::fs::write(&labels, write_npy_i64(&[n], &l)).expect("writable");
    (scores, labels)
}

/// `rvalue conformal` at α = 0.1 on the CPU with `extra` options.
fn rvalue(extra: &[&str], scores: &Path, labels: &Path) -> Vec<String> {
    let mut args: Vec<String> =
        vec![env!("CARGO_BIN_EXE_rvalue").into(), "conformal".into(), "--alpha".into(), "0.1".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--device".into(), "cpu".into(), "--scores".into(), scores.display().to_string()]);
    args.extend(["--labels".into(), labels.display().to_string()]);
    args
}

/// The numpy baseline: argsort every draw's scores, a block of items at a time, from a memmap.
fn argsort(scores: &Path) -> Vec<String> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/python-venv/bin/python");
    let python = if venv.exists() { venv.display().to_string() } else { "python3".into() };
    let script = "import sys, numpy as np\n\
                  a = np.load(sys.argv[1], mmap_mode='r')\n\
                  for s in range(0, a.shape[0], 64):\n    np.argsort(a[s:s + 64], axis=2)\n";
    vec![python, "-c".into(), script.into(), scores.display().to_string()]
}

/// Runs `args` once and prints its wall time and peak RSS; the seconds.
fn row(what: &str, args: &[String]) -> f64 {
    let t = timed::run(args);
    println!("{what:<62} {:>7.2} s {:>10}", t.seconds, t.rss());
    t.seconds
}

/// Writes the seeded logits a block of items at a time, unless an earlier run did.
fn write_logits(dir: &Path, n: usize, m: usize, k: usize) -> (PathBuf, PathBuf) {
    let scores = dir.join(format!("logits_{n}x{m}x{k}.npy"));
    let labels = dir.join(format!("logits_{n}_labels.npy"));
    let bytes = (n * m * k * 4) as u64;
    if scores.metadata().is_ok_and(|md| md.len() > bytes) && labels.exists() {
        return (scores, labels);
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(&scores).expect("writable"));
    f.write_all(&write_npy_f32(&[n, m, k], &[])).expect("writable");
    const BLOCK: usize = 50;
    for first in (0..n).step_by(BLOCK) {
        let items = first..(first + BLOCK).min(n);
        let half = items.start + items.len() / 2;
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| samples::logit_items(items.start..half, m, k, 11));
            let b = samples::logit_items(half..items.end, m, k, 11);
            (a.join().expect("the generator thread ends"), b)
        });
        for x in a.iter().chain(&b) {
            f.write_all(&x.to_le_bytes()).expect("writable");
        }
    }
    f.flush().expect("writable");
    let l: Vec<i64> = (0..n).map(|i| (i % k) as i64).collect();
    std::fs::write(&labels, write_npy_i64(&[n], &l)).expect("writable");
    (scores, labels)
}
