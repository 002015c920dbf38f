// The body of `benches/gpu.rs` (native only: `Gpu::new` and the blocking calls do not exist in
// wasm, where the wasm tests exercise WebGPU instead).

use rvalue_core::conformal::Split;
use rvalue_gpu::{self as gpu, block_on, cpu, keys::Keys, Gpu};
use rvalue_core::rvalue::nonparametric::{rank_counts, sort_desc};
use rvalue_core::rvalue::{PooledSplit, TieOrder};
use rvalue_core::samples;
use rvalue_core::toy::draws;
use std::hint::black_box;
use std::time::Instant;

/// Fastest wall time in seconds of `runs` calls after one warm-up.
fn fastest<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    black_box(f());
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Items per second with three significant digits.
fn rate(items: usize, s: f64) -> String {
    let r = items as f64 / s;
    let decimals = if r >= 100.0 {
        0
    } else if r >= 10.0 {
        1
    } else {
        3
    };
    format!("{r:>10.decimals$} items/s ({s:.3} s)")
}

fn line(what: &str, items: usize, cpu_s: f64, gpu_s: Option<f64>) {
    let gpu = gpu_s.map_or("—".to_string(), |s| rate(items, s));
    println!("{what:<50} CPU {}   GPU {gpu}", rate(items, cpu_s));
}

/// The core's CPU path for rank counts: sort each draw (keyed integer sort), count, accumulate.
fn cpu_counts(s: &[f64], items: usize, m: usize, k: usize) -> usize {
    let mut order = vec![0u16; m * k];
    let mut total = 0;
    for b in 0..items {
        for d in 0..m {
            let at = (b * m + d) * k;
            sort_desc(&s[at..at + k], &mut order[d * k..(d + 1) * k]);
        }
        total += rank_counts(order.chunks_exact(k), k)[k * k - 1] as usize;
    }
    total
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let g: Option<Gpu> = match Gpu::new() {
        Ok(g) => {
            let c = g.caps();
            println!(
                "adapter: {} ({:?}, {:?}); storage binding ≤ {} MB, ≤ {} workgroups per dimension",
                g.adapter_name(),
                g.adapter_info().device_type,
                g.adapter_info().backend,
                c.max_binding >> 20,
                c.max_groups
            );
            Some(g)
        }
        Err(e) => {
            println!("no GPU ({e}): CPU figures only");
            None
        }
    };
    println!("fastest of 3 runs after a warm-up, one CPU thread for the CPU path");

    if run("counts") {
        let (t, _) = samples::cifar_like(1);
        let (n, m, k) = (t.n(), t.m(), t.k());
        let keys = Keys::of_tensor(&t);
        let c = fastest(3, || cpu_counts(&t.data(), n, m, k));
        let gs = g.as_ref().map(|g| fastest(3, || block_on(g.rank_counts(&keys, m, k)).unwrap().unwrap()));
        line(&format!("rank counts, {n} items × {m} draws × {k}"), n, c, gs);

        let (t, _) = samples::logits(4, 1000, 1000, 2).unwrap();
        let (n, m, k) = (t.n(), t.m(), t.k());
        let keys = Keys::of_tensor(&t);
        let c = fastest(1, || cpu_counts(&t.data(), n, m, k));
        let gs = g.as_ref().map(|g| fastest(1, || block_on(g.rank_counts(&keys, m, k)).unwrap().unwrap()));
        line(&format!("rank counts, {n} items × {m} draws × {k}"), n, c, gs);
    }

    if run("pooled") {
        let (t, labels) = samples::cifar_like(1);
        let split = Split::random(t.n(), 0.5, 0, 0).unwrap();
        let keys = Keys::of_tensor(&t);
        let cal = cpu::PooledCal::new(&t, &keys, &labels, &split.cal);
        let test: Vec<u32> = split.test.iter().map(|&i| i as u32).collect();
        let ties = TieOrder::Exchangeable;
        let ps = PooledSplit::new(&t, &labels, &split.cal, split.ties(ties)).unwrap();
        let orders = cpu::tie_orders(&ps, &t, &test);
        let c = fastest(3, || cpu::pooled_positions(&keys, &cal, &test, &orders));
        let gs = g
            .as_ref()
            .map(|g| fastest(3, || block_on(g.pooled_positions(&keys, &cal, &test, &orders)).unwrap().unwrap()));
        line(&format!("pooled positions, {} test × {} cal units", test.len(), cal.n), test.len(), c, gs);
        let c = fastest(3, || gpu::pooled_items_cpu(&t, &keys, &labels, &split, ties).unwrap());
        let gs = g.as_ref().map(|g| fastest(3, || gpu::pooled_items(g, &t, &keys, &labels, &split, ties).unwrap()));
        line("pooled r-values incl. greedy (CPU greedy both)", test.len(), c, gs);
    }

    if run("draws") {
        let (items, m, k) = (1000u32, 30u32, 10u32);
        let c = fastest(3, || draws::normals(1, 0, items, m, k));
        let gs = g.as_ref().map(|g| fastest(3, || block_on(g.normals(1, 0, items, m, k)).unwrap().unwrap()));
        line(&format!("normals, {items} items × {m} × {k} (items = one M×K block)"), items as usize, c, gs);
        let (items, m, k) = (10u32, 1000u32, 1000u32);
        let c = fastest(1, || draws::normals(1, 0, items, m, k));
        let gs = g.as_ref().map(|g| fastest(1, || block_on(g.normals(1, 0, items, m, k)).unwrap().unwrap()));
        line(&format!("normals, {items} items × {m} × {k}"), items as usize, c, gs);
    }
}
