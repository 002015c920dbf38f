//! How tight calibration-only bounds on the pooled greedy's counts are, measured on the files of
//! `cargo bench -p rvalue-cli --bench pooled` (`scripts/pooled_layout.sh`): docs/performance.md,
//! "Bounds from the calibration-only order".
//!
//! In draw `m` at step `j` (the top `j` merged places) the calibration units present are those
//! of calibration rank `< j − h_m(j)`, `h_m(j)` being the candidates among the top `j`. With
//! `h(j) = min_m h_m(j)` and `H(j) = max_m h_m(j)`, unit `c`'s count lies between its
//! calibration-only counts `#{m : cr_m(c) < j − H(j)}` and `#{m : cr_m(c) < j − h(j)}`, and
//! only draws with `cr_m(c)` in the window `[j − H(j), j − h(j))` need an exact look. This runs
//! the plain counting greedy (index tie order, which is enough for these statistics) and prints,
//! per tenth of the steps, the width `H − h`, how many units' upper bounds reach the step's best
//! count, how many tie it exactly, and the window draws of those units and of the pick.
//!
//! `cargo run --release -p rvalue-core --example pooled_bounds -- CAL_TRUE.npy TEST.npy ITEMS`
//! (float16 `.npy` files, `[n, M]` and `[T, M, K]`).

// A measurement on the bench's own files: an `expect` states what those files are.
#![allow(clippy::expect_used)]

use rvalue_core::io::{parse_npy, NpyData};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, cal_true, test, items] = &args[..] else {
        eprintln!("usage: pooled_bounds CAL_TRUE.npy TEST.npy ITEMS");
        std::process::exit(2);
    };
    let (shape, cal_true) = npy_f16(cal_true);
    let (n, m) = (shape[0], shape[1]);
    let (shape, test) = npy_f16(test);
    let k = shape[2];
    let split = Split::new(&cal_true, n, m);
    for t in 0..items.parse().expect("a number of items") {
        let item = Merged::new(&split, k, &test[t * m * k..(t + 1) * m * k]);
        let first = |h: &[usize]| h.iter().position(|&x| x > 0).unwrap_or(h.len());
        let stats = greedy_stats(&split, &item);
        stats.print(t);
        // While `H = 0` the top places hold no candidate in any draw; while `h = 0`, in some draw.
        println!("  first step with H > 0: {}, with h > 0: {}", first(&item.h_max), first(&item.h_min));
    }
}

/// A float16 `.npy` file's shape and values, through the core's reader.
fn npy_f16(path: &str) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).expect("a readable file");
    let a = parse_npy(path, &bytes).expect("a .npy file");
    match a.data {
        NpyData::F16(bits) => (a.shape, bits.into_iter().map(|b| half::f16::from_bits(b).to_f32()).collect()),
        other => panic!("{path}: float16 expected, not {}", other.kind_name()),
    }
}

/// Per draw, the calibration units by score, highest first (ties to the lower unit), and their
/// scores in that order: `[draw][rank]`.
struct Split {
    n: usize,
    m: usize,
    order: Vec<u32>,
    sorted: Vec<f32>,
}

impl Split {
    fn new(cal_true: &[f32], n: usize, m: usize) -> Split {
        let (mut order, mut sorted) = (Vec::with_capacity(n * m), Vec::with_capacity(n * m));
        for d in 0..m {
            let mut idx: Vec<u32> = (0..n as u32).collect();
            let s = |c: u32| cal_true[c as usize * m + d];
            idx.sort_by(|&x, &y| s(y).total_cmp(&s(x)).then(x.cmp(&y)));
            sorted.extend(idx.iter().map(|&c| s(c)));
            order.extend(idx);
        }
        Split { n, m, order, sorted }
    }
}

/// One test item's merged rows (`[draw][place]` unit ids, candidates `n..n + K`) and
/// `h(j)`, `H(j)` for `j = 0..=U`.
struct Merged {
    u: usize,
    rows: Vec<u32>,
    h_min: Vec<usize>,
    h_max: Vec<usize>,
}

impl Merged {
    fn new(split: &Split, k: usize, scores: &[f32]) -> Merged {
        let (n, u) = (split.n, split.n + k);
        let mut item =
            Merged { u, rows: vec![0; split.m * u], h_min: vec![usize::MAX; u + 1], h_max: vec![0; u + 1] };
        for d in 0..split.m {
            let row = &scores[d * k..(d + 1) * k];
            let mut cands: Vec<u32> = (0..k as u32).collect();
            cands.sort_by(|&x, &y| row[y as usize].total_cmp(&row[x as usize]).then(x.cmp(&y)));
            let cal = &split.sorted[d * n..(d + 1) * n];
            let (mut r, mut h) = (0, 0);
            for &c in &cands {
                // Calibration units win ties (the index order).
                let entry = cal.partition_point(|&x| x >= row[c as usize]);
                while r < entry {
                    item.place(d, r + h, split.order[d * n + r], h);
                    r += 1;
                }
                item.place(d, r + h, (n + c as usize) as u32, h + 1);
                h += 1;
            }
            for r in r..n {
                item.place(d, r + h, split.order[d * n + r], h);
            }
        }
        item.h_min[0] = 0;
        item
    }

    /// Unit `x` at place `at` of draw `d`, with `h` candidates among the top `at + 1`.
    fn place(&mut self, d: usize, at: usize, x: u32, h: usize) {
        self.rows[d * self.u + at] = x;
        self.h_min[at + 1] = self.h_min[at + 1].min(h);
        self.h_max[at + 1] = self.h_max[at + 1].max(h);
    }
}

/// Calibration-only counts at a rank bound that only rises: `count[c] = #{m : cr_m(c) < x}`.
struct CalCounts {
    x: usize,
    count: Vec<i32>,
}

impl CalCounts {
    fn advance(&mut self, split: &Split, to: usize) {
        while self.x < to {
            for d in 0..split.m {
                self.count[split.order[d * split.n + self.x] as usize] += 1;
            }
            self.x += 1;
        }
    }
}

/// Sums per tenth of the steps: steps, `H − h`, units whose upper bound reaches the best count,
/// units tying it, the window draws of the former, those of the pick, units whose lower bound
/// reaches it, the best count; and the largest `H − h`.
struct Stats {
    sums: [[f64; 8]; 10],
    widest: [usize; 10],
}

fn greedy_stats(split: &Split, item: &Merged) -> Stats {
    let (n, m, u) = (split.n, split.m, item.u);
    let mut upper = CalCounts { x: 0, count: vec![0; n] };
    let mut lower = CalCounts { x: 0, count: vec![0; n] };
    let (mut counts, mut chosen) = (vec![0i32; u], vec![false; u]);
    let mut stats = Stats { sums: [[0.0; 8]; 10], widest: [0; 10] };
    for j in 1..=u {
        for d in 0..m {
            counts[item.rows[d * u + j - 1] as usize] += 1;
        }
        upper.advance(split, j - item.h_min[j]);
        lower.advance(split, j - item.h_max[j]);
        let (mut best, mut pick) = (i32::MIN, 0);
        for (x, &c) in counts.iter().enumerate() {
            if !chosen[x] && c > best {
                (best, pick) = (c, x);
            }
        }
        chosen[pick] = true;
        let (mut reach, mut ties, mut window, mut sure) = (0.0, 0.0, 0.0, 0.0);
        for c in (0..n).filter(|&c| !chosen[c] || c == pick) {
            let (hi, lo) = (upper.count[c], lower.count[c]);
            if hi >= best {
                (reach, window) = (reach + 1.0, window + f64::from(hi - lo));
                sure += f64::from(u8::from(lo >= best));
            }
            ties += f64::from(u8::from(counts[c] == best));
        }
        let pick_window = if pick < n { upper.count[pick] - lower.count[pick] } else { 0 };
        let q = (j - 1) * 10 / u;
        let width = item.h_max[j] - item.h_min[j];
        let row = [1.0, width as f64, reach, ties, window, f64::from(pick_window), sure, f64::from(best)];
        stats.sums[q].iter_mut().zip(row).for_each(|(s, v)| *s += v);
        stats.widest[q] = stats.widest[q].max(width);
    }
    stats
}

impl Stats {
    fn print(&self, t: usize) {
        println!("item {t}, per tenth of the steps (means per step):");
        println!("  tenth  H-h (max)   reach   ties  window draws  pick's  lower>=best  best count");
        for (q, (s, w)) in self.sums.iter().zip(self.widest).enumerate() {
            let mean = |i: usize| s[i] / s[0];
            println!(
                "  {q:>5} {:>5.1} ({w:>3}) {:>7.1} {:>6.1} {:>13.1} {:>7.1} {:>12.2} {:>11.1}",
                mean(1),
                mean(2),
                mean(3),
                mean(4),
                mean(5),
                mean(6),
                mean(7)
            );
        }
        let total = |i: usize| self.sums.iter().map(|s| s[i]).sum::<f64>();
        println!(
            "  whole item: {:.0} steps, {:.2} M unit-steps with the upper bound at the best, {:.2} M window draws",
            total(0),
            total(2) / 1e6,
            total(4) / 1e6
        );
    }
}
