//! A score file of more than 2^28 elements (a sparse file: a `.npy` header, then `set_len`, so
//! it costs no disk) opens, streams and is scored within a memory bound far below its size.
//! Its own test binary: the allocator below counts every thread's allocations.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use rvalue_core::conformal::streamed::{calibrate_streamed, Streaming};
use rvalue_core::conformal::{Method, ScoreOptions, SplitPlan};
use rvalue_core::io::{write_npy_f32, Opened, ScoreFile};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let v = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(v, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

#[test]
fn a_file_past_the_old_limit_is_scored_in_bounded_memory() {
    // 400,000 items × 700 draws × 1 candidate: 2.8·10^8 f32 scores (1.12 GB), all zero.
    let (n, m, k) = (400_000usize, 700usize, 1usize);
    assert!(n * m * k > 1 << 28);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sparse-past-the-limit.npy");
    let header = write_npy_f32(&[n, m, k], &[]);
    std::fs::write(&path, &header).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len((header.len() + n * m * k * 4) as u64).unwrap();
    drop(f);
    let Opened::Streamed(file) = ScoreFile::open(&path).unwrap() else { panic!("read whole") };
    let labels = vec![0usize; n];
    let splits = SplitPlan::Random { count: 2, cal_fraction: 0.5, seed: 1 }.splits(n).unwrap();
    let run = Streaming { threads: 2, block_bytes: 16 << 20, pooled_bytes: 64 << 20, ranker: None };
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut coverage = Vec::new();
    let methods = [Method::Cp, Method::CpAvg];
    calibrate_streamed(
        &file,
        &labels,
        &methods,
        &ScoreOptions::default(),
        &splits,
        &run,
        &mut |_, _, _| {},
        &mut |_, _, c| {
            coverage.push(c.metrics(0.1, false).coverage);
            Ok(())
        },
    )
    .unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let _ = std::fs::remove_file(&path);
    // K = 1, every score 0: every set holds the one candidate.
    assert_eq!(coverage, vec![1.0; 4]);
    // Blocks of 16 MiB widened (f32 raw and decoded, one read ahead), the rows (8 bytes per item
    // and method, twice for the sorted copy), labels: far below the file's 1.12 GB.
    assert!(peak < 160 << 20, "peak allocation {peak} bytes");
}
