//! How the explorer's stepped analysis behaves ("never block the page for more than
//! 100 ms"): steps, the slowest step, the total, and the cost of answering a new α, at the toy
//! defaults and on the bundled digits file. `cargo bench --bench explorer`.

use rvalue_core::conformal::{RvalueKind, ScoreOptions};
use rvalue_model::{AnalysisJob, Controls, Mode, Progress, Source};
use std::sync::Arc;
use std::time::Instant;

fn run(label: &str, source: Source, c: &Controls) {
    let start = Instant::now();
    let mut job = match AnalysisJob::new(source, c) {
        Ok(job) => job,
        Err(e) => return println!("{label}: {e}"),
    };
    let (mut steps, mut worst, mut worst_what) = (0, 0.0f64, String::new());
    loop {
        let t = Instant::now();
        let what = job.describe();
        let Ok(p) = job.step() else { return println!("{label}: step failed") };
        let dt = t.elapsed().as_secs_f64();
        if dt > worst {
            (worst, worst_what) = (dt, what);
        }
        steps += 1;
        if p == Progress::Done {
            break;
        }
    }
    let Ok(a) = job.finish() else { return println!("{label}: finish failed") };
    let total = start.elapsed().as_secs_f64();
    let t = Instant::now();
    let reps = 20;
    for j in 0..reps {
        let _ = a.at_alpha(0.05 + 0.01 * j as f64, false);
    }
    let at_alpha = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{label:34} {steps:4} steps, slowest {:7.1} ms ({worst_what}), total {:6.2} s; new α {:6.2} ms",
        worst * 1e3,
        total,
        at_alpha * 1e3
    );
}

fn main() {
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric, RvalueKind::Pooled] {
        let c = Controls { score: ScoreOptions { kind, ..Controls::default().score }, ..Controls::default() };
        run(&format!("toy defaults, {}", kind.name()), Source::Toy(c.toy_params()), &c);
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/digits_wbb.npz");
    let Ok(bytes) = std::fs::read(path) else { return println!("{path}: missing") };
    let Ok(d) = rvalue_core::io::read_scores(path, &bytes) else { return println!("{path}: unreadable") };
    let d = Arc::new(d);
    for kind in [RvalueKind::Parametric, RvalueKind::Nonparametric, RvalueKind::Pooled] {
        let c = Controls {
            mode: Mode::Scores,
            score: ScoreOptions { kind, ..Controls::default().score },
            ..Controls::default()
        };
        run(&format!("digits, 100 splits, {}", kind.name()), Source::Data(d.clone()), &c);
    }
}
