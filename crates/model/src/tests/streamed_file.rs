//! The page's analysis of a file read a share of items at a time equals the analysis of the
//! same file held in memory, bit for bit, in every panel's numbers: for each r-value kind and
//! prior, one split and several, shares read by other threads and by the job itself in any
//! order; and a second analysis with other splits re-uses the rows without reading the file.
//! The baselines likewise, and as the command line's streamed calibration makes them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::tests::same as same_debug;
use crate::*;
use rvalue_core::conformal::streamed::{calibrate_streamed, Streaming};
use rvalue_core::conformal::{Baseline, Calibrated, Method, Prior, RvalueKind};
use rvalue_core::io::{read_scores, write_npy_f32, BlockLayout};
use rvalue_core::probability::{softmax_into, ScoresAre};
use rvalue_core::rvalue::TieOrder;
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
    grouped(bytes, labels, share_items, GROUP_BYTES)
}

/// [`streamed`], with pooled splits grouped within `group_bytes`.
fn grouped(bytes: &[u8], labels: &[usize], share_items: usize, group_bytes: usize) -> Arc<StreamedFile> {
    let layout = BlockLayout::of_npy_head("big.npy", &bytes[..128], bytes.len() as u64).unwrap();
    let file = StreamedFile::new("big.npy".into(), layout, labels.to_vec()).unwrap();
    Arc::new(file.with_share_items(share_items).with_group_bytes(group_bytes))
}

/// Two threads holding the file, as the page's workers: each gathers the true-label draws in
/// its first pass and keeps them. The bytes they read, counted.
struct Workers<'a> {
    bytes: &'a [u8],
    held: [StreamedSplits; 2],
    turn: usize,
    read: AtomicU64,
}

impl<'a> Workers<'a> {
    fn new(bytes: &'a [u8], labels: &[usize]) -> Self {
        let held = [StreamedSplits::new(labels.to_vec()), StreamedSplits::new(labels.to_vec())];
        Workers { bytes, held, turn: 0, read: AtomicU64::new(0) }
    }

    /// A group of splits, computed by the workers in turn from the file's bytes.
    fn splits(&mut self, layout: &BlockLayout, request: &str) -> Vec<u8> {
        let (bytes, count) = (self.bytes, &self.read);
        let read = move |r: std::ops::Range<u64>| {
            count.fetch_add(r.end - r.start, Ordering::Relaxed);
            Ok(bytes[r.start as usize..r.end as usize].to_vec())
        };
        self.turn += 1;
        // One worker steps a byte (a block an item, a step a block: every boundary is crossed),
        // the other a few items and a bit; each step reads only what `step_range` said it would
        // (what the page's workers read ahead).
        let step = [1, 3 * layout.item_bytes() + 1][self.turn % 2];
        let worker = &mut self.held[self.turn % 2];
        worker.start(layout, request).unwrap();
        loop {
            let ahead = worker.step_range(layout, step);
            let within = |r: std::ops::Range<u64>| {
                assert!(ahead.start <= r.start && r.end <= ahead.end, "{r:?} outside {ahead:?}");
                read(r)
            };
            if let Some(out) = worker.step(layout, &within, step).unwrap() {
                return out;
            }
        }
    }
}

/// Runs `job` to the end, reading its shares as the page does: every third by the job itself,
/// the others handed out and answered out of order; a streamed file's pooled splits by two
/// workers.
fn run(job: AnalysisJob, bytes: &[u8]) -> (Analysis, usize) {
    let labels = job.streamed().map(|f| f.labels.clone()).unwrap_or_default();
    let (a, reads, _) = run_with(job, bytes, &mut Workers::new(bytes, &labels));
    (a, reads)
}

/// [`run`], with the workers given; the shares read, and the groups of splits computed.
fn run_with(mut job: AnalysisJob, bytes: &[u8], workers: &mut Workers) -> (Analysis, usize, usize) {
    let file = job.streamed().cloned();
    let read = |r: std::ops::Range<u64>| Ok(bytes[r.start as usize..r.end as usize].to_vec());
    let (mut out, mut reads, mut groups) = (Vec::new(), 0, 0);
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
            Some(h) if h.work == Work::Splits => {
                groups += 1;
                let bytes = workers.splits(&f.layout, &h.request);
                job.supply_part(h.part, &bytes).unwrap();
            }
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
    (job.finish().unwrap(), reads, groups)
}

/// `a`'s inspector on test item `t`, its item read from `bytes` first when it asks for it.
fn inspect(a: &Analysis, t: usize, bytes: &[u8]) -> ItemView {
    if let Some((item, r)) = a.item_bytes(t) {
        assert!(a.inspect(t, 0.1, false).is_err(), "an item not read yet is not inspected");
        a.supply_item(item, &bytes[r.start as usize..r.end as usize]).unwrap();
        assert_eq!(a.item_bytes(t), None, "the item read is at hand");
    }
    a.inspect(t, 0.1, false).unwrap()
}

fn same(a: &Analysis, b: &Analysis, what: &str, bytes: &[u8]) {
    for ne in [false, true] {
        assert_eq!(a.sweep(ne), b.sweep(ne), "{what}: sweep");
    }
    for m in Method::PAPER {
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
        assert_eq!(inspect(a, t, bytes), b.inspect(t, 0.1, false).unwrap(), "{what}: item {t}");
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
            same(&got, &want, &what, &bytes);
            // Other splits and seed: the rows are kept, the file is not read again.
            c.splits = 2;
            c.seed = 9;
            let want = AnalysisJob::new(Source::Data(held.clone()), &c).unwrap().run().unwrap();
            let (got, reads) = run(AnalysisJob::new(Source::Streamed(file), &c).unwrap(), &bytes);
            assert_eq!(reads, 0, "{what}: the rows were kept");
            same(&got, &want, &format!("{what}, again"), &bytes);
        }
    }
}

#[test]
fn pooled_rvalues_on_a_streamed_file_are_the_held_files() {
    let (bytes, labels) = file();
    let mut held = read_scores("big.npy", &bytes).unwrap();
    held.labels = Some(labels.clone());
    let held = Arc::new(held);
    let data = bytes.len() as u64 - 128;
    // Groups of one split, of two, and all in one.
    for (splits, group_bytes, groups) in [(1, 1, 1), (5, 1, 5), (5, 2 * 9_000, 3), (3, usize::MAX, 1)] {
        let mut c = Controls { mode: Mode::Scores, splits, seed: 7, ..Controls::default() };
        c.score.kind = RvalueKind::Pooled;
        for ties in [TieOrder::Exchangeable, TieOrder::Index] {
            c.score.ties = ties;
            let what = format!("{splits} splits in {groups} groups, {ties:?} ties");
            let want = AnalysisJob::new(Source::Data(held.clone()), &c).unwrap().run().unwrap();
            let file = grouped(&bytes, &labels, 4, group_bytes);
            let mut workers = Workers::new(&bytes, &labels);
            let job = AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap().with_budget(40);
            assert!(job.streamed_pooled());
            let (got, reads, handed) = run_with(job, &bytes, &mut workers);
            assert_eq!((reads, handed), (file.shares(), groups), "{what}: shares read, groups computed");
            // Each worker gathers the draws once, then each group is one pass.
            let passes = groups + groups.min(2);
            assert_eq!(
                workers.read.into_inner(),
                passes as u64 * data,
                "{what}: the file read {passes} times"
            );
            same(&got, &want, &what, &bytes);
        }
    }
}

#[test]
fn pooled_rvalues_after_another_kind_read_the_file_only_in_the_workers() {
    let (bytes, labels) = file();
    let mut held = read_scores("big.npy", &bytes).unwrap();
    held.labels = Some(labels.clone());
    let held = Arc::new(held);
    let file = streamed(&bytes, &labels, 4);
    let mut c = Controls { mode: Mode::Scores, splits: 3, ..Controls::default() };
    c.score.cp_draw = 1;
    c.score.kind = RvalueKind::Nonparametric;
    let (_, reads) = run(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes);
    assert_eq!(reads, file.shares());
    // CP's and CP_avg's rows are kept: only the workers read the file, for the pooled splits.
    c.score.kind = RvalueKind::Pooled;
    let want = AnalysisJob::new(Source::Data(held.clone()), &c).unwrap().run().unwrap();
    assert!(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap().long_run(1).unwrap().reads == 2);
    let (got, reads) = run(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes);
    assert_eq!(reads, 0, "no share read");
    same(&got, &want, "pooled after nonparametric", &bytes);
    // The nonparametric rows are still there; another CP draw reads the file again.
    c.score.kind = RvalueKind::Nonparametric;
    assert_eq!(run(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes).1, 0);
    (c.score.kind, c.score.cp_draw) = (RvalueKind::Pooled, 2);
    assert_eq!(run(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes).1, file.shares());
}

#[test]
fn pooled_rvalues_on_a_large_streamed_file_say_what_they_cost() {
    // The header of a 4 GB file: 10,000 × 100 × 1,000 float32.
    let head = write_npy_f32(&[10_000, 100, 1_000], &[]);
    let len = head.len() as u64 + 4 * 10_000 * 100 * 1_000;
    let layout = BlockLayout::of_npy_head("big.npy", &head, len).unwrap();
    let file = Arc::new(StreamedFile::new("big.npy".into(), layout, vec![0; 10_000]).unwrap());
    let mut c = Controls { mode: Mode::Scores, splits: 10, ..Controls::default() };
    c.score.kind = RvalueKind::Nonparametric;
    let cheap = AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap();
    assert_eq!(cheap.long_run(1), None, "one read: nothing to warn of");
    c.score.kind = RvalueKind::Pooled;
    let job = AnalysisJob::new(Source::Streamed(file), &c).unwrap();
    let one = job.long_run(1).unwrap();
    // A split of 5,000 units and 5,000 test items holds about 40 MB: two per group.
    assert_eq!((one.group, one.file_bytes), (2, 4_000_000_000));
    assert_eq!(one.reads, 1 + 1 + 5, "the scores, the draws, five groups");
    let two = job.long_run(2).unwrap();
    assert_eq!(two.reads, 1 + 2 + 5, "each worker gathers the draws");
    assert!(two.secs < one.secs);
    let text = one.describe("big.npy");
    assert!(
        text.starts_with("Pooled CP_r on big.npy reads the file 7 times (7 × 4.0 GB = 28.0 GB"),
        "{text}"
    );
    assert!(text.contains("stated rates"), "{text}");
}

#[test]
fn a_garbled_or_unasked_group_of_splits_is_refused() {
    let (bytes, labels) = file();
    let mut c = Controls { mode: Mode::Scores, splits: 2, ..Controls::default() };
    c.score.kind = RvalueKind::Pooled;
    let file = grouped(&bytes, &labels, 100, 1);
    let mut job = AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap();
    let mut workers = Workers::new(&bytes, &labels);
    // The pass first: its one share, read by the job.
    job.step().unwrap();
    let (s, r) = job.wants_bytes().unwrap();
    job.supply_bytes(s, bytes[r.start as usize..r.end as usize].to_vec()).unwrap();
    while job.step().unwrap() != Progress::Waiting(job.fraction_done()) {}
    let first = job.hand_out().unwrap();
    assert_eq!((first.part, first.work), (0, Work::Splits));
    let h = job.hand_out().unwrap();
    assert_eq!((h.part, h.work), (1, Work::Splits));
    let second = workers.splits(&file.layout, &h.request);
    assert!(job.supply_part(0, &second).is_err(), "split 1's result for split 0");
    assert!(job.supply_part(1, &second[..second.len() - 1]).is_err(), "cut short");
    assert!(job.supply_part(1, &[0; 7]).is_err(), "garbled");
    // Given back, it goes out again, and its result is taken.
    job.hand_back(1);
    let again = job.hand_out().unwrap();
    assert_eq!(again.part, 1);
    job.supply_part(1, &second).unwrap();
    assert!(job.supply_part(1, &second).is_err(), "back already");
    assert_eq!(job.hand_out(), None, "every split is out or back");
    // A worker computes only what a request names.
    for bad in ["0+0\n", "1+2\n", "0-1\n", "x+1\n"] {
        let request = format!("{bad}{}", h.request.split_once('\n').unwrap().1);
        let mut worker = StreamedSplits::new(labels.clone());
        assert!(worker.start(&file.layout, &request).is_err(), "{request}");
        assert_eq!(worker.step_range(&file.layout, 1), 0..0, "nothing to read for {request}");
    }
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

/// The toy's draws as a float32 `.npy` and labels, the first `as_probabilities` items' draws
/// turned into probabilities (a softmax), the others left as logits.
fn file_of(as_probabilities: usize) -> (Vec<u8>, Vec<usize>) {
    let p = ToyParams { k: 6, m: 5, n_cal: 40, n_test: 33, sigma2: 30.0, ..ToyParams::default() };
    let (t, y) = toy::simulate(&p, 0).unwrap();
    let (mut data, mut row) = (Vec::new(), Vec::new());
    for (i, draw) in t.data().chunks_exact(t.k()).enumerate() {
        if i / t.m() < as_probabilities {
            softmax_into(draw, &mut row);
            data.extend(row.iter().map(|&x| x as f32));
        } else {
            data.extend(draw.iter().map(|&x| x as f32));
        }
    }
    (write_npy_f32(&[t.n(), t.m(), t.k()], &data), y)
}

/// The same file held in memory.
fn held(bytes: &[u8], labels: &[usize]) -> Arc<rvalue_core::io::Dataset> {
    let mut held = read_scores("big.npy", bytes).unwrap();
    held.labels = Some(labels.to_vec());
    Arc::new(held)
}

/// Method `m`'s calibrations by the command line's streamed path (`calibrate_streamed`, blocks of
/// a few items) on the held file's tensor, for `c`'s splits.
fn command_line(d: &rvalue_core::io::Dataset, c: &Controls, m: Method) -> Vec<Calibrated> {
    let (labels, mut out) = (d.labels.clone().unwrap(), Vec::new());
    let splits = c.split_plan().splits(d.scores.n()).unwrap();
    let run = Streaming { block_bytes: 7 * d.scores.m() * d.scores.k() * 8, ..Streaming::default() };
    calibrate_streamed(
        &d.scores,
        &labels,
        &[m],
        &c.score,
        &splits,
        &run,
        &mut |_, _, _| {},
        &mut |_, _, c| {
            out.push(c);
            Ok(())
        },
    )
    .unwrap();
    out
}

/// The baselines of `a` and `b` agree bit for bit: calibrations, summaries, sweeps, reading.
fn same_baselines(a: &Analysis, b: &Analysis, what: &str) {
    assert_eq!(a.methods(), b.methods(), "{what}");
    for m in Method::BASELINES.into_iter().filter(|m| a.methods().contains(m)) {
        assert!(!a.calibrated(m).is_empty(), "{what}: {m:?}");
        assert!(same_debug(&a.calibrated(m), &b.calibrated(m)), "{what}: {m:?}");
        for alpha in [0.05, 0.1, 0.3] {
            assert_eq!(a.summary(m, alpha, false).unwrap(), b.summary(m, alpha, false).unwrap(), "{what}");
        }
    }
    assert_eq!(a.scores_read_as(), b.scores_read_as(), "{what}: reading");
}

/// Every baseline on, randomized or not, under `scores_are`.
fn baseline_controls(randomized: bool, scores_are: ScoresAre) -> Controls {
    let mut c =
        Controls { mode: Mode::Scores, splits: 3, seed: 4, baselines: [true; 3], ..Controls::default() };
    c.score.baseline = Baseline { randomized, raps_kreg: 1.0, ..Baseline::default() };
    (c.score.scores_are, c.score.kind) = (scores_are, RvalueKind::Nonparametric);
    c
}

#[test]
fn baselines_on_a_streamed_file_are_the_held_files_and_the_command_lines() {
    // Logits and probabilities, auto and the explicit reading, randomized and not, one share
    // and many.
    for (as_probabilities, explicit) in [(0, ScoresAre::Logits), (73, ScoresAre::Probabilities)] {
        let (bytes, labels) = file_of(as_probabilities);
        let data = held(&bytes, &labels);
        for scores_are in [ScoresAre::Auto, explicit] {
            for randomized in [true, false] {
                let c = baseline_controls(randomized, scores_are);
                let want = AnalysisJob::new(Source::Data(data.clone()), &c).unwrap().run().unwrap();
                assert_eq!(want.scores_read_as(), Some(explicit));
                for share_items in [4, 1000] {
                    let what = format!(
                        "{explicit} read as {scores_are}, randomized {randomized}, {share_items} a share"
                    );
                    let file = streamed(&bytes, &labels, share_items);
                    let job = AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap().with_budget(40);
                    let (got, reads) = run(job, &bytes);
                    assert_eq!(reads, file.shares(), "{what}: each share read once");
                    same_baselines(&got, &want, &what);
                    same(&got, &want, &what, &bytes);
                    for m in Method::BASELINES {
                        assert!(
                            same_debug(&got.calibrated(m), &&command_line(&data, &c, m)[..]),
                            "{what}: {m:?}"
                        );
                    }
                }
            }
        }
    }
}

/// The error `job` ends with, its shares read by the job itself.
fn failure(mut job: AnalysisJob, bytes: &[u8]) -> String {
    loop {
        match job.step() {
            Err(e) => return e.to_string(),
            Ok(Progress::Done) => panic!("the job ran to the end"),
            Ok(_) => {}
        }
        if let Some((s, r)) = job.wants_bytes() {
            job.supply_bytes(s, bytes[r.start as usize..r.end as usize].to_vec()).unwrap();
        }
    }
}

#[test]
fn a_file_of_probabilities_and_logits_reads_its_probability_shares_again_under_auto() {
    // Items 0..12 are probabilities: shares 0, 1 and 2 (of 4 items) take them as given, until
    // the logits after them decide the file's reading.
    let (bytes, labels) = file_of(12);
    let data = held(&bytes, &labels);
    let c = baseline_controls(true, ScoresAre::Auto);
    let want = AnalysisJob::new(Source::Data(data.clone()), &c).unwrap().run().unwrap();
    assert_eq!(want.scores_read_as(), Some(ScoresAre::Logits));
    let file = streamed(&bytes, &labels, 4);
    let (got, reads) = run(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes);
    assert_eq!(reads, file.shares() + 3, "the three shares of probabilities read again");
    same_baselines(&got, &want, "mixed");
    for m in Method::BASELINES {
        assert!(same_debug(&got.calibrated(m), &&command_line(&data, &c, m)[..]), "{m:?}");
    }
    // Read as probabilities, the logits are refused naming the first item that is none.
    let c = baseline_controls(true, ScoresAre::Probabilities);
    let e = failure(AnalysisJob::new(Source::Streamed(streamed(&bytes, &labels, 4)), &c).unwrap(), &bytes);
    assert!(e.contains("item 12"), "{e}");
}

#[test]
fn a_streamed_files_probabilities_are_kept_for_the_baselines_parameters() {
    let (bytes, labels) = file_of(0);
    let data = held(&bytes, &labels);
    let file = streamed(&bytes, &labels, 4);
    let reads = |c: &Controls| {
        let want = AnalysisJob::new(Source::Data(data.clone()), c).unwrap().run().unwrap();
        let (got, reads) = run(AnalysisJob::new(Source::Streamed(file.clone()), c).unwrap(), &bytes);
        same_baselines(&got, &want, &format!("{:?}", c.score));
        same(&got, &want, "kept", &bytes);
        reads
    };
    let mut c = baseline_controls(true, ScoresAre::Auto);
    c.baselines = [false; 3];
    assert_eq!(reads(&c), file.shares(), "the first analysis reads the file");
    c.baselines = [true, false, true];
    assert_eq!(reads(&c), file.shares(), "no class probabilities were kept");
    (c.score.baseline.saps_lambda, c.score.baseline.randomized, c.seed, c.splits) = (0.3, false, 8, 2);
    assert_eq!(reads(&c), 0, "λ, randomization, seed and splits re-use them");
    c.score.scores_are = ScoresAre::Logits;
    assert_eq!(reads(&c), 0, "auto read logits");
    c.baselines = [false; 3];
    c.score.scores_are = ScoresAre::Probabilities;
    assert_eq!(reads(&c), 0, "the rows serve the paper's methods whatever the reading");
    // Another reading reads the file again (here to find it is not that).
    (c.baselines, c.score.scores_are) = ([true; 3], ScoresAre::LogProbabilities);
    let e = failure(AnalysisJob::new(Source::Streamed(file.clone()), &c).unwrap(), &bytes);
    assert!(e.contains("read as log-probabilities: item 0"), "{e}");
    c.score.kind = RvalueKind::Parametric;
    c.baselines = [false, true, false];
    c.score.scores_are = ScoresAre::Auto;
    assert_eq!(reads(&c), file.shares(), "another r-value kind reads the file again");
}
