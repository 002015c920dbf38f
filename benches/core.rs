//! Speed of the core on seeded CIFAR-shaped inputs (issue 2's targets). `cargo bench --bench core`
//! prints one line per workload: the median of several runs, single-threaded.

use rvalue_explorer::conformal::{self, Calibrated, Method, Prepared, RvalueKind, ScoreOptions, Split};
use rvalue_explorer::rvalue::nonparametric::nonparametric_from_order;
use rvalue_explorer::rvalue::{self, pooled_item_oracle, Algorithm, DrawOrder, HyperChoice, LambdaRule};
use rvalue_explorer::tensor::{Summaries, VarianceKind};
use rvalue_explorer::workload;
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

/// Median wall time in ms of `runs` calls, and the peak heap growth of the first call in MB.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
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
    (ms[ms.len() / 2], peak_mb)
}

fn report(name: &str, target: &str, (ms, mb): (f64, f64)) {
    println!("{name:58} {ms:10.2} ms  {mb:8.1} MB   (target {target})");
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let (t, labels) = workload::cifar_like(1);
    let split = Split::random(t.n(), 0.5, 1, 0).expect("2000 items split");
    println!("CIFAR-shaped tensor {}×{}×{}, {} calibration items", t.n(), t.m(), t.k(), split.cal.len());

    let order = DrawOrder::of(&t).expect("K ≤ 65536");
    if run("draw-order") {
        report("draw orders (once per tensor)", "-", time(3, || DrawOrder::of(&t)));
    }
    if run("pooled") {
        report(
            "pooled CP_r, one split (1000 test items)",
            "≤ 100 ms",
            time(3, || Calibrated::pooled(&t, &labels, Some(&order), &split)),
        );
        let (ms, _) = time(1, || {
            for &i in &split.test[..10] {
                black_box(pooled_item_oracle(&t, &labels, &split.cal, i).ok());
            }
        });
        println!(
            "{:58} {:10.2} ms  (extrapolated from 10 test items)",
            "pooled O(U²) oracle, one split",
            ms * 100.0
        );
    }
    if run("nonparametric") {
        report(
            "per-item nonparametric r-values (incl. draw orders)",
            "≤ 100 ms",
            time(3, || {
                let order = DrawOrder::of(&t).expect("K ≤ 65536");
                (0..t.n()).map(|i| nonparametric_from_order(&order, i)).collect::<Vec<_>>()
            }),
        );
    }
    let summaries = Summaries::of(&t);
    if run("parametric-exact") {
        report(
            "per-item parametric exact r-values (model rule)",
            "≤ 1000 ms",
            time(1, || {
                (0..t.n())
                    .map(|i| {
                        let s: Vec<f64> =
                            (0..t.k()).map(|c| summaries.s(i, c, VarianceKind::PerDraw)).collect();
                        rvalue::parametric(
                            summaries.mean_row(i),
                            &s,
                            HyperChoice::Estimate,
                            Algorithm::Exact,
                            LambdaRule::Model,
                        )
                    })
                    .collect::<Vec<_>>()
            }),
        );
    }
    if run("sweep") {
        let prepared = Prepared::new(&t, &labels, true).expect("valid");
        let opts = ScoreOptions { kind: RvalueKind::Pooled, ..ScoreOptions::default() };
        let cal = prepared.calibrate(Method::CpR, &opts, std::slice::from_ref(&split)).expect("valid");
        let alphas = conformal::alpha_grid(0.005, 0.5, 100);
        report(
            "α sweep, 100 values, pooled CP_r, one split",
            "≤ 10 ms",
            time(5, || conformal::sweep(&cal, &alphas, false)),
        );
        let cal = prepared.calibrate(Method::CpAvg, &opts, std::slice::from_ref(&split)).expect("valid");
        report(
            "α sweep, 100 values, CP_avg, one split",
            "≤ 10 ms",
            time(5, || conformal::sweep(&cal, &alphas, false)),
        );
    }
    if run("grid") {
        let (x, s) = workload::units(100_000, 1);
        report(
            "parametric grid r-values, 100,000 units (rvalues 0.7.1)",
            "≤ 500 ms, ≤ 100 MB",
            time(3, || {
                rvalue::parametric(&x, &s, HyperChoice::Estimate, Algorithm::Grid, LambdaRule::Empirical)
            }),
        );
    }
}
