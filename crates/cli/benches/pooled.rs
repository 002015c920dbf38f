//! Pooled CP_r on the authors' ImageNet layout: float16 true-label draws
//! `[40000, M]` and float16 test items `[T, M, 1000]` (`M` = 1000 by default), `rvalue
//! conformal --calibration-true TRUE_UNITS --rvalue pooled --method cp-r --device cpu` on 2 threads,
//! one split of every true-draw unit and `T` test items, beside the authors' procedure on a few items.
//!
//! `cargo bench -p rvalue-cli --bench pooled` writes the seeded files under
//! `target/pooled-bench/` once (the same scores as the `big` bench's layout, a smaller file),
//! then prints each command's wall time, peak resident memory and time per test item. The set-up
//! (reading the true draws, sorting them, building the split's tables) is the same command on one
//! test item. `RVALUE_POOLED_ITEMS=T` (default 200) and `RVALUE_POOLED_DRAWS=M` set the size;
//! `RVALUE_POOLED_BEFORE=path/to/rvalue` times an older build beside this one, run alternately;
//! `RVALUE_POOLED_ROUNDS` (default 2) sets how often each runs; `RVALUE_POOLED_GENERATE=1` only writes the files (`scripts/pooled_layout.sh`).
//! With `RVALUE_AUTHORS_DIR` naming the directory of the authors' procedure (`authors_pooled.py`,
//! never part of this project), `RVALUE_POOLED_AUTHORS=n` (default 3) runs it on `n` test items
//! against all the true draws under `RVALUE_AUTHORS_PYTHON` (default `target/authors-venv`'s Python,
//! with numpy and numba) and prints the ratio of its time per item to ours. It prints and
//! asserts nothing.

// A benchmark of seeded inputs: an `expect` states an invariant of the harness, not user input.
#![allow(clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use rvalue_core::io::{write_npy_f16_bits, write_npy_i64};
use rvalue_core::samples;

#[path = "support/timed.rs"]
mod timed;

const CLASSES: usize = 1000;
const TRUE_UNITS: usize = 40_000;
/// The seed of the `big` bench's logits, so that both benches' layouts hold the same scores.
const SEED: u64 = 11;

fn main() {
    let var =
        |name: &str, default: usize| std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    let (t, m) = (var("RVALUE_POOLED_ITEMS", 200), var("RVALUE_POOLED_DRAWS", 1000));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pooled-bench");
    std::fs::create_dir_all(&root).expect("the bench directory can be created");
    let files = Files::write(&root, t, m);
    println!(
        "pool float16 [{TRUE_UNITS}, {m}], test items float16 [{t}, {m}, {CLASSES}] in {}",
        root.display()
    );
    if var("RVALUE_POOLED_GENERATE", 0) == 1 {
        return;
    }
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_rvalue"));
    let before = std::env::var("RVALUE_POOLED_BEFORE").ok().map(PathBuf::from);
    let head = ("pooled cp-r, 2 threads, --device cpu", "wall", "user", "peak", "wall/item");
    println!("{:<44} {:>9} {:>9} {:>8} {:>12}", head.0, head.1, head.2, head.3, head.4);
    let mut now_per = f64::NAN;
    for round in 0..var("RVALUE_POOLED_ROUNDS", 2) {
        for (name, bin) in [("before", before.as_deref()), ("now", Some(ours.as_path()))] {
            let Some(bin) = bin else { continue };
            let setup = row(&format!("{name}: set-up (1 test item), run {round}"), &files.args(bin, 1), 1);
            let all = row(&format!("{name}: {t} test items, run {round}"), &files.args(bin, t), t);
            let items = (t - 1).max(1) as f64;
            let (wall, user) = ((all.0 - setup.0) * 1e3 / items, (all.1 - setup.1) * 1e3 / items);
            let what = format!("{name}: per test item beyond the set-up");
            println!("{what:<44} {wall:>7.1} ms {user:>7.1} ms user CPU");
            if name == "now" {
                now_per = now_per.min(wall);
            }
        }
    }
    if let Some(theirs) = authors(&files, var("RVALUE_POOLED_AUTHORS", 3)) {
        println!("{:<44} {:>31.0}×", "authors' time per item / ours", theirs * 1e3 / now_per);
    }
}

/// The seeded files of one layout.
struct Files {
    true_draws: PathBuf,
    test: PathBuf,
    labels: PathBuf,
}

impl Files {
    /// Writes the true draws, the test items and their labels unless an earlier run did.
    fn write(root: &Path, t: usize, m: usize) -> Files {
        let dir = root.to_path_buf();
        let true_draws = dir.join(format!("true_f16_{TRUE_UNITS}x{m}.npy"));
        if !true_draws.exists() {
            // True-draw unit `j` is item `t_max + j` of the logits: disjoint from every test item.
            let draws: Vec<u16> = (0..TRUE_UNITS).flat_map(|j| true_label_draws(1_000_000 + j, m)).collect();
            std::fs::write(&true_draws, write_npy_f16_bits(&[TRUE_UNITS, m], &draws)).expect("writable");
        }
        let test = dir.join(format!("test_f16_{t}x{m}x{CLASSES}.npy"));
        let labels = dir.join(format!("test_{t}_labels.npy"));
        if !test.metadata().is_ok_and(|md| md.len() > (t * m * CLASSES * 2) as u64) || !labels.exists() {
            let mut f = std::io::BufWriter::new(std::fs::File::create(&test).expect("writable"));
            f.write_all(&write_npy_f16_bits(&[t, m, CLASSES], &[])).expect("writable");
            for first in (0..t).step_by(20) {
                for x in samples::logit_items(first..(first + 20).min(t), m, CLASSES, SEED) {
                    f.write_all(&half::f16::from_f32(x).to_bits().to_le_bytes()).expect("writable");
                }
            }
            f.flush().expect("writable");
            let l: Vec<i64> = (0..t).map(|i| (i % CLASSES) as i64).collect();
            std::fs::write(&labels, write_npy_i64(&[t], &l)).expect("writable");
        }
        Files { true_draws, test, labels }
    }

    /// The command on the first `items` test items against all the true draws.
    fn args(&self, bin: &Path, items: usize) -> Vec<String> {
        let s = |p: &Path| p.display().to_string();
        let mut a: Vec<String> = vec![s(bin), "conformal".into(), "--alpha".into(), "0.05".into()];
        a.extend(
            ["--rvalue", "pooled", "--method", "cp-r", "--splits", "1", "--device", "cpu"].map(String::from),
        );
        a.extend(["--threads".into(), "2".into(), "--scores".into(), s(&self.test)]);
        a.extend(["--labels".into(), s(&self.labels), "--calibration-true".into(), s(&self.true_draws)]);
        a.extend(["--cal-size".into(), TRUE_UNITS.to_string(), "--test-size".into(), items.to_string()]);
        a
    }
}

/// Unit `i`'s true-label scores in each draw, as [`samples::logit_items`] makes them for item
/// `i` (true class `i mod 1000`), rounded to float16 bits.
fn true_label_draws(i: usize, m: usize) -> Vec<u16> {
    let c = (i % CLASSES) as u32;
    let latent = 2.0 + samples::standard_normal(SEED, i as u32, u32::MAX, c);
    let spread = 0.2 + 0.8 * samples::standard_normal(SEED, i as u32, u32::MAX - 1, c).abs();
    let draw = |d: usize| (latent + spread * samples::standard_normal(SEED, i as u32, d as u32, c)) as f32;
    (0..m).map(|d| half::f16::from_f32(draw(d)).to_bits()).collect()
}

/// The authors' procedure on the first `items` test items against all the true draws: their
/// script's own per-item steps (`np.argsort` of every draw's `U` units as float32, then their
/// numba greedy `_greedy`, imported from the script), timed per item after one warm-up item
/// that compiles the greedy.
fn authors(files: &Files, items: usize) -> Option<f64> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var("RVALUE_AUTHORS_PYTHON")
        .map_or(root.join("target/authors-venv/bin/python"), PathBuf::from);
    let Some(dir) = std::env::var_os("RVALUE_AUTHORS_DIR").map(PathBuf::from) else {
        println!("authors' procedure: skipped (set RVALUE_AUTHORS_DIR)");
        return None;
    };
    if items == 0 || !python.exists() || !dir.join("authors_pooled.py").exists() {
        println!("authors' procedure: skipped (needs {} and {})", python.display(), dir.display());
        return None;
    }
    let script = format!(
        "import sys, time, numpy as np\n\
         sys.path.insert(0, sys.argv[1])\n\
         from authors_pooled import _greedy\n\
         true_draws = np.load(sys.argv[2]).astype(np.float32)\n\
         test = np.load(sys.argv[3], mmap_mode='r')\n\
         n, m = true_draws.shape\n\
         k = test.shape[2]\n\
         full = np.empty((m, n + k), np.float32)\n\
         full[:, :n] = true_draws.T\n\
         r_out, keep = np.empty(n + k), np.empty(k, np.bool_)\n\
         for i in range({items} + 1):\n\
         \x20   if i == 1: t0 = time.perf_counter()\n\
         \x20   full[:, n:] = test[i].astype(np.float32)\n\
         \x20   _greedy(np.argsort(-full, axis=1), n, 0.05, r_out, keep)\n\
         print((time.perf_counter() - t0) / {items})\n"
    );
    let s = |p: &Path| p.display().to_string();
    let out = Command::new(&python)
        .args(["-c", &script, &s(&dir), &s(&files.true_draws), &s(&files.test)])
        .output()
        .expect("python runs");
    let per: Option<f64> = String::from_utf8_lossy(&out.stdout).trim().parse().ok();
    match per {
        Some(per) => {
            println!(
                "{:<44} {:>32.1} ms",
                format!("authors' procedure (numba), per item of {items}"),
                per * 1e3
            );
            Some(per)
        }
        None => {
            println!("authors' procedure failed: {}", String::from_utf8_lossy(&out.stderr));
            None
        }
    }
}

/// Runs `args` once and prints its wall time, user CPU time, peak RSS and wall time per item;
/// the wall and user CPU seconds (a loaded machine's comparable figure).
fn row(what: &str, args: &[String], items: usize) -> (f64, f64) {
    let t = timed::run(args);
    let per = t.seconds * 1e3 / items.max(1) as f64;
    println!("{what:<44} {:>7.2} s {:>7.2} s {:>8} {per:>9.1} ms", t.seconds, t.user, t.rss());
    (t.seconds, t.user)
}
