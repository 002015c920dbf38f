//! Time per test item of the pooled greedy on the files of `cargo bench -p rvalue-cli --bench
//! pooled` (`scripts/pooled_layout.sh`), one thread, as the thread's CPU time (Linux's
//! `/proc/thread-self/schedstat`), the least of several rounds per item: on a machine shared
//! with other work the least CPU time is the comparable figure.
//!
//! `cargo run --release -p rvalue-core --example pooled_time -- CAL_TRUE.npy TEST.npy ITEMS ROUNDS`
//!
//! With `BATCH=b` it times `PooledSplit::items` on batches of `b` test items instead, as the
//! command runs them (16 a batch): the entry points are then found draw by draw across a batch,
//! and the figure is the least of the rounds' CPU time over all items, per item.

// A measurement on the bench's own files: an `expect` states what those files are.
#![allow(clippy::expect_used)]

use rvalue_core::io::{parse_npy, NpyData};
use rvalue_core::rvalue::{PooledSplit, TieOrder, Ties, Workspace};
use rvalue_core::tensor::ScoreTensor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, cal_true, test, items, rounds] = &args[..] else {
        eprintln!("usage: pooled_time CAL_TRUE.npy TEST.npy ITEMS ROUNDS");
        std::process::exit(2);
    };
    let (items, rounds): (usize, usize) = (items.parse().expect("items"), rounds.parse().expect("rounds"));
    let (shape, cal_true) = npy_f16_bits(cal_true);
    let m = shape[1];
    let (shape, test) = npy_f16_bits(test);
    let k = shape[2];
    let test = test[..items * m * k].to_vec();
    let t = ScoreTensor::from_f16_bits(items, m, k, test).expect("a tensor");
    let draws: Vec<f64> = cal_true.iter().map(|&b| f64::from(half::f16::from_bits(b))).collect();
    for (name, ties) in [("index", Ties::INDEX), ("exchangeable", Ties::new(TieOrder::Exchangeable, 1, 0))] {
        let split = PooledSplit::from_draws(&draws, m, k, ties).expect("a split");
        let mut work = Workspace::default();
        if let Some(batch) = std::env::var("BATCH").ok().and_then(|b| b.parse::<usize>().ok()) {
            let per_item = batched(&split, &t, items, batch.max(1), rounds, &mut work);
            println!(
                "{name}: batches of {batch}, fastest of {rounds} rounds: {:.1} ms a test item",
                per_item * 1e3
            );
            continue;
        }
        let mut best = vec![f64::INFINITY; items];
        for _ in 0..rounds {
            for (item, b) in best.iter_mut().enumerate() {
                let start = cpu_seconds();
                std::hint::black_box(split.item(&t, item, None, &mut work));
                *b = b.min(cpu_seconds() - start);
            }
        }
        let mean = best.iter().sum::<f64>() / items as f64;
        println!("{name}: fastest of {rounds} rounds, mean over {items} items: {:.1} ms", mean * 1e3);
    }
}

/// The least over `rounds` of the CPU time `PooledSplit::items` takes on the first `items`
/// test items in batches of `batch`, per item, in seconds.
fn batched(
    split: &PooledSplit,
    t: &ScoreTensor,
    items: usize,
    batch: usize,
    rounds: usize,
    work: &mut Workspace,
) -> f64 {
    let all: Vec<usize> = (0..items).collect();
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let start = cpu_seconds();
        for b in all.chunks(batch) {
            std::hint::black_box(split.items(t, b, None, work));
        }
        best = best.min(cpu_seconds() - start);
    }
    best / items as f64
}

/// A float16 `.npy` file's shape and bits, through the core's reader.
fn npy_f16_bits(path: &str) -> (Vec<usize>, Vec<u16>) {
    let bytes = std::fs::read(path).expect("a readable file");
    let a = parse_npy(path, &bytes).expect("a .npy file");
    match a.data {
        NpyData::F16(bits) => (a.shape, bits),
        other => panic!("{path}: float16 expected, not {}", other.kind_name()),
    }
}

/// This thread's time on a CPU so far, in seconds.
fn cpu_seconds() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    let ns: u64 = s.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a time");
    ns as f64 * 1e-9
}
