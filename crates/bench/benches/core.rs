//! Speed of the core on seeded CIFAR-shaped inputs. `cargo bench -p rvalue-bench --bench core
//! [filter]` prints one line per workload: the median of several runs, single-threaded, and the
//! peak heap growth of the first run. `tests/wasm_bench.rs` runs the same workloads as wasm.

use rvalue_bench::{PooledCase, Suite};
use rvalue_core::rvalue::{pooled_item_oracle, TieOrder};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Counts live and peak heap bytes, for the memory targets.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Fastest and median wall time in ms of `runs` calls, and the peak heap growth of the first
/// call in MB. The fastest run is the least disturbed by other load on a shared machine.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, f64) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    black_box(f());
    let peak_mb = (PEAK.load(Relaxed) - base) as f64 / 1e6;
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms[0], ms[ms.len() / 2], peak_mb)
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let s = Suite::new();
    println!(
        "CIFAR-shaped tensor {}×{}×{}, {} calibration items; fastest and median of 5 runs (3 for the slow ones)",
        s.data.tensor.n(),
        s.data.tensor.m(),
        s.data.tensor.k(),
        s.data.split.cal.len()
    );
    let report = |name: &str, target: &str, (min, median, mb): (f64, f64, f64)| {
        println!("{name:56} {min:9.2} ms (median {median:9.2}) {mb:7.1} MB   (target {target})");
    };
    if run("draw-order") {
        report("draw orders, 2000×31 sorts of 100 (once per data set)", "-", time(5, || s.draw_orders()));
    }
    if run("pooled") {
        let exchangeable = time(9, || s.data.pooled_split(TieOrder::Exchangeable));
        let index = time(9, || s.data.pooled_split(TieOrder::Index));
        report("pooled CP_r, one split (1000 test items), exchangeable", "≤ 100 ms", exchangeable);
        report("pooled CP_r, one split (1000 test items), index ties", "-", index);
        // Interleaved pairs, so that a neighbour's load falls on both orders alike.
        let mut ratios: Vec<f64> = (0..15)
            .map(|_| {
                let once = |ties| {
                    let t = Instant::now();
                    black_box(s.data.pooled_split(ties));
                    t.elapsed().as_secs_f64()
                };
                once(TieOrder::Exchangeable) / once(TieOrder::Index)
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "{:56} {:9.1} %            (median of 15 interleaved pairs; target ≤ 10 %)",
            "exchangeable ties' cost over index ties",
            (ratios[7] - 1.0) * 100.0
        );
        let ties = s.data.split.ties(TieOrder::Exchangeable);
        let (ms, _, _) = time(1, || {
            for &i in &s.data.split.test[..10] {
                black_box(
                    pooled_item_oracle(&s.data.tensor, &s.data.labels, &s.data.split.cal, i, ties).ok(),
                );
            }
        });
        println!(
            "{:56} {:9.2} ms            (extrapolated from 10 test items)",
            "pooled O(U²) oracle, one split",
            ms * 100.0
        );
    }
    // The same split on three score scales: the entry tables must not care which.
    for (name, case) in [
        ("pooled-logits", PooledCase::logits as fn() -> PooledCase),
        ("pooled-probabilities", PooledCase::probabilities),
        ("pooled-f32-probabilities", PooledCase::probabilities_f32),
        ("pooled-log-probabilities", PooledCase::log_probabilities),
    ] {
        if !run(name) {
            continue;
        }
        let case = case();
        for (ties, label) in [(TieOrder::Exchangeable, "exchangeable"), (TieOrder::Index, "index ties")] {
            let line = format!("{name}: one split, {label}");
            report(&line, "-", time(9, || case.pooled_split(ties)));
        }
    }
    if run("nonparametric") {
        report(
            "per-item nonparametric r-values (incl. draw orders)",
            "≤ 100 ms",
            time(5, || s.nonparametric()),
        );
    }
    if run("parametric-exact") {
        report(
            "per-item parametric exact r-values (model rule)",
            "≤ 1000 ms",
            time(3, || s.parametric_exact()),
        );
    }
    if run("sweep") {
        report("α sweep, 100 values, pooled CP_r, one split", "≤ 10 ms", time(5, || s.sweep_pooled()));
        report("α sweep, 100 values, CP_avg, one split", "≤ 10 ms", time(5, || s.sweep_avg()));
    }
    if run("grid") {
        report(
            "parametric grid r-values, 100,000 units (rvalues 0.7.1)",
            "≤ 500 ms, ≤ 100 MB",
            time(3, || s.grid_100k()),
        );
    }
}
