use std::sync::Arc;

use super::*;
use crate::{AnalysisJob, Controls, Mode, Progress, Source, StreamedFile, Work};
use rvalue_core::conformal::RvalueKind;
use rvalue_core::io::{read_scores, write_npy_f32};
use rvalue_core::toy::{self, ToyParams};

/// A toy data set as a float32 `.npy`'s bytes, and its labels.
fn file() -> (Vec<u8>, Vec<usize>) {
    let p = ToyParams { k: 5, m: 4, n_cal: 30, n_test: 25, sigma2: 30.0, ..ToyParams::default() };
    let (t, y) = toy::simulate(&p, 0).unwrap();
    let data: Vec<f32> = t.data().iter().map(|&x| x as f32).collect();
    (write_npy_f32(&[t.n(), t.m(), t.k()], &data), y)
}

/// Runs a streamed job whose every share and group of splits a worker holding the file as
/// [`HeldStream`] computes, reading only what it says it reads; the work done, by kind.
fn run_in_worker(mut job: AnalysisJob, bytes: &[u8], labels: &[usize]) -> (crate::Analysis, Vec<Work>) {
    let labels = labels.iter().map(|&y| y as f64).collect();
    let mut held = HeldStream::open("big.npy", bytes.len() as u64, &bytes[..128], labels).unwrap();
    let read = |r: Range<u64>| Ok(bytes[r.start as usize..r.end as usize].to_vec());
    let mut done = Vec::new();
    loop {
        match job.step().unwrap() {
            Progress::Done => return (job.finish().unwrap(), done),
            Progress::Working(_) => continue,
            Progress::Waiting(_) => {}
        }
        let h = job.hand_out().expect("work for the worker");
        done.push(h.work);
        let out = match h.work {
            Work::Share => {
                let (share, range) = held.share(&h.request).unwrap();
                held.score(&share, &read(range).unwrap()).unwrap()
            }
            _ => {
                held.start(&h.request).unwrap();
                loop {
                    let ahead = held.ahead();
                    let within = |r: Range<u64>| {
                        assert!(ahead.start <= r.start && r.end <= ahead.end, "{r:?} outside {ahead:?}");
                        read(r)
                    };
                    if let Some(out) = held.step(&within).unwrap() {
                        break out;
                    }
                }
            }
        };
        job.supply_part(h.part, &out).unwrap();
    }
}

#[test]
fn a_worker_holding_the_file_gives_the_held_file_s_pooled_analysis() {
    let (bytes, labels) = file();
    let mut held = read_scores("big.npy", &bytes).unwrap();
    held.labels = Some(labels.clone());
    let mut c = Controls { mode: Mode::Scores, splits: 2, seed: 3, ..Controls::default() };
    c.score.kind = RvalueKind::Pooled;
    let want = AnalysisJob::new(Source::Data(Arc::new(held)), &c).unwrap().run().unwrap();
    let layout = BlockLayout::of_npy_head("big.npy", &bytes[..128], bytes.len() as u64).unwrap();
    let file =
        Arc::new(StreamedFile::new("big.npy".into(), layout, labels.clone()).unwrap().with_share_items(7));
    let (got, done) = run_in_worker(AnalysisJob::new(Source::Streamed(file), &c).unwrap(), &bytes, &labels);
    assert!(done.contains(&Work::Share) && done.contains(&Work::Splits), "{done:?}");
    for alpha in [0.05, 0.2] {
        assert_eq!(format!("{:?}", got.at_alpha(alpha, false)), format!("{:?}", want.at_alpha(alpha, false)));
    }
}

#[test]
fn a_worker_refuses_a_bad_header_or_request() {
    let (bytes, labels) = file();
    let labels: Vec<f64> = labels.iter().map(|&y| y as f64).collect();
    assert!(HeldStream::open("big.npy", bytes.len() as u64, b"not a header", labels.clone()).is_err());
    let mut held = HeldStream::open("big.npy", bytes.len() as u64, &bytes[..128], labels).unwrap();
    assert_eq!(held.ahead(), 0..0, "no group started");
    assert!(held.start("not a request").is_err());
    assert!(held.share("not a request").is_err());
    assert!(held.step(&|_| Ok(Vec::new())).is_err(), "no group started");
}
