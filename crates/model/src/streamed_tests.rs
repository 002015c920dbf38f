//! The page's analysis of a file read a share of items at a time equals the analysis of the
//! same file held in memory, bit for bit, in every panel's numbers: for each r-value kind and
//! prior, one split and several, shares read by other threads and by the job itself in any
//! order; and a second analysis with other splits re-uses the rows without reading the file.

use std::sync::Arc;

use super::*;
use rvalue_core::conformal::{Method, Prior, RvalueKind};
use rvalue_core::io::{read_scores, write_npy_f32, BlockLayout};
use rvalue_core::toy::{self, ToyParams};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A share's rows as a worker makes them: the request read, its bytes read, its items scored.
fn compute_share(
    layout: &BlockLayout,
    request: &str,
    read: impl FnOnce(std::ops::Range<u64>) -> rvalue_core::Result<Vec<u8>>,
) -> rvalue_core::Result<Vec<u8>> {
    let share = ShareRequest::parse(layout, request)?;
    share.score(layout, &read(share.bytes(layout))?)
}

/// A toy data set as a float32 `.npy`'s bytes, and its labels.
fn file() -> (Vec<u8>, Vec<usize>) {
    let p = ToyParams { k: 6, m: 5, n_cal: 40, n_test: 33, sigma2: 30.0, ..ToyParams::default() };
    let (t, y) = toy::simulate(&p, 0).unwrap();
    let data: Vec<f32> = t.data().iter().map(|&x| x as f32).collect();
    (write_npy_f32(&[t.n(), t.m(), t.k()], &data), y)
}

fn streamed(bytes: &[u8], labels: &[usize], share_items: usize) -> Arc<StreamedFile> {
    let layout = BlockLayout::of_npy_head("big.npy", &bytes[..128], bytes.len() as u64).unwrap();
    Arc::new(
        StreamedFile::new("big.npy".into(), layout, labels.to_vec()).unwrap().with_share_items(share_items),
    )
}

/// Runs `job` to the end, reading its shares as the page does: every third by the job itself,
/// the others handed out and answered out of order.
fn run(mut job: AnalysisJob, bytes: &[u8]) -> (Analysis, usize) {
    let file = job.streamed().cloned();
    let read = |r: std::ops::Range<u64>| Ok(bytes[r.start as usize..r.end as usize].to_vec());
    let (mut out, mut reads) = (Vec::new(), 0);
    loop {
        match job.step().unwrap() {
            Progress::Done => break,
            Progress::Working(_) => continue,
            Progress::Waiting(_) => {}
        }
        if reads % 3 == 0 {
            if let Some((s, r)) = job.wants_bytes() {
                reads += 1;
                job.supply_bytes(s, read(r).unwrap()).unwrap();
                continue;
            }
        }
        while let Some(h) = job.hand_out() {
            out.push(h);
        }
        let f = file.as_ref().unwrap();
        match out.pop() {
            Some(h) => {
                reads += 1;
                let bytes = compute_share(&f.layout, &h.request, read).unwrap();
                job.supply_part(h.part, &bytes).unwrap();
            }
            None => {
                let (s, r) = job.wants_bytes().expect("a share to read");
                reads += 1;
                job.supply_bytes(s, read(r).unwrap()).unwrap();
            }
        }
    }
    (job.finish().unwrap(), reads)
}

fn same(a: &Analysis, b: &Analysis, what: &str) {
    for ne in [false, true] {
        assert_eq!(a.sweep(ne), b.sweep(ne), "{what}: sweep");
    }
    for m in Method::ALL {
        for (x, y) in a.calibrated(m).iter().zip(b.calibrated(m)) {
            assert_eq!(x.test, y.test, "{what}: {m:?}");
            for t in 0..x.test.len() {
                assert_eq!(x.threshold(t, 0.1).to_bits(), y.threshold(t, 0.1).to_bits(), "{what}: {m:?}");
            }
        }
        for alpha in [0.05, 0.1, 0.3] {
            assert_eq!(a.summary(m, alpha, false).unwrap(), b.summary(m, alpha, false).unwrap(), "{what}");
        }
    }
    for t in [0, a.n_inspectable() - 1] {
        assert_eq!(a.inspect(t, 0.1, false).unwrap(), b.inspect(t, 0.1, false).unwrap(), "{what}: item {t}");
    }
    assert_eq!(a.hyper(), b.hyper(), "{what}: prior");
    assert_eq!(a.false_mean().to_bits(), b.false_mean().to_bits(), "{what}: μ0");
}

#[test]
fn a_streamed_file_gives_the_in_memory_analysis() {
    let (bytes, labels) = file();
    let mut held = read_scores("big.npy", &bytes).unwrap();
    held.labels = Some(labels.clone());
    let held = Arc::new(held);
    let kinds = [
        (RvalueKind::Nonparametric, Prior::PerItem),
        (RvalueKind::Parametric, Prior::PerItem),
        (RvalueKind::Parametric, Prior::Pooled),
    ];
    for (kind, prior) in kinds {
        for splits in [1, 3] {
            let mut c = Controls { mode: Mode::Scores, splits, seed: 5, ..Controls::default() };
            (c.score.kind, c.score.prior, c.score.cp_draw) = (kind, prior, 2);
            let what = format!("{kind:?} {prior:?}, {splits} splits");
            let want = AnalysisJob::new(Source::Data(held.clone()), &c).unwrap().run().unwrap();
            let file = streamed(&bytes, &labels, 4);
            let job = AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap().with_budget(40);
            let (got, reads) = run(job, &bytes);
            assert_eq!(reads, file.shares(), "{what}: each share read once");
            same(&got, &want, &what);
            // Other splits and seed: the rows are kept, the file is not read again.
            c.splits = 2;
            c.seed = 9;
            let want = AnalysisJob::new(Source::Data(held.clone()), &c).unwrap().run().unwrap();
            let (got, reads) = run(AnalysisJob::new(Source::Streamed(file), &c).unwrap(), &bytes);
            assert_eq!(reads, 0, "{what}: the rows were kept");
            same(&got, &want, &format!("{what}, again"));
        }
    }
}

#[test]
fn pooled_rvalues_on_a_streamed_file_are_refused_in_one_line() {
    let (bytes, labels) = file();
    let mut c = Controls { mode: Mode::Scores, ..Controls::default() };
    c.score.kind = RvalueKind::Pooled;
    let e = AnalysisJob::new(Source::Streamed(streamed(&bytes, &labels, 4)), &c).unwrap_err().to_string();
    assert!(e.contains("pooled CP_r on big.npy") && e.contains("rvalue conformal --rvalue pooled"), "{e}");
}

#[test]
fn a_garbled_or_unasked_share_is_refused() {
    let (bytes, labels) = file();
    let c = Controls { mode: Mode::Scores, ..Controls::default() };
    let mut job = AnalysisJob::new(Source::Streamed(streamed(&bytes, &labels, 4)), &c).unwrap();
    job.step().unwrap();
    assert!(job.supply_part(0, &[1, 2, 3]).is_err());
    let h = job.hand_out().unwrap();
    assert!(job.supply_part(h.part + 1, &[0; 64]).is_err(), "share not handed out");
    assert!(job.supply_bytes(h.part, vec![0; 3]).is_err(), "not asked for");
    // A request names its share, its items and the settings; anything else is refused unread.
    let f = streamed(&bytes, &labels, 4);
    let (_, settings) = h.request.split_once('\n').unwrap();
    let read = |_: std::ops::Range<u64>| -> rvalue_core::Result<Vec<u8>> { panic!("read for a bad request") };
    for bad in ["0:0-4", "0\n", "x:0-4\n", "0:4-4\n", "0:0-999\n", "0:0+4\n"] {
        let request = if bad.ends_with('\n') { format!("{bad}{settings}") } else { bad.to_string() };
        assert!(compute_share(&f.layout, &request, read).is_err(), "{request}");
    }
    assert!(compute_share(&f.layout, &h.request, |r| Ok(bytes[r.start as usize..r.end as usize].to_vec()))
        .is_ok());
}

#[test]
fn a_files_splits_share_its_rows_so_many_splits_of_a_large_file_are_taken() {
    // The header of a 4 GB file: only its claimed size is checked against `len`.
    let head = write_npy_f32(&[10_000, 100, 1_000], &[]);
    let len = head.len() as u64 + 4 * 10_000 * 100 * 1_000;
    let layout = BlockLayout::of_npy_head("big.npy", &head, len).unwrap();
    let file = Arc::new(StreamedFile::new("big.npy".into(), layout, vec![0; 10_000]).unwrap());
    let mut c = Controls { mode: Mode::Scores, splits: 100, ..Controls::default() };
    c.score.kind = RvalueKind::Nonparametric;
    assert!(AnalysisJob::new(Source::Streamed(file), &c).is_ok());
    // A toy repeat keeps its own rows: 1000 repeats of 10,000 × 100 are refused.
    let mut toy = Controls::default();
    (toy.toy.repeats, toy.toy.n_test, toy.toy.k) = (1000, 10_000, 100);
    let e = AnalysisJob::new(Source::Toy(toy.toy_params()), &toy).unwrap_err().to_string();
    assert!(e.contains("GiB of stored scores"), "{e}");
}
