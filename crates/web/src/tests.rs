//! The crate's browser side in headless Chromium (`make test-wasm`): files made in the page and
//! read through the same calls a dropped file goes through, and the workers' entry points
//! called as `www/worker.js` calls them.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test as test;
use web_sys::File;

use crate::byte_source::ByteSource;
use crate::files::{self, Got};
use crate::streamed::Streamed;
use rvalue_core::io::write_npy;
use rvalue_core::toy::ToyParams;
use rvalue_model::Controls;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// A `File` named `name` holding `bytes`, as a file input or a drop gives one.
fn file(name: &str, bytes: &[u8]) -> File {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    File::new_with_u8_array_sequence(&parts, name).unwrap()
}

/// Bytes that differ from their neighbours, so a range read from the wrong place shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// A scores `.npy` of `n` items, 2 draws and 3 classes, and its labels `.npy`.
fn score_files(n: usize) -> (Vec<u8>, Vec<u8>) {
    let scores: Vec<f64> = (0..n * 6).map(|i| (i % 11) as f64 / 10.0).collect();
    let labels: Vec<i64> = (0..n as i64).map(|i| i % 3).collect();
    (write_npy(&[n, 2, 3], &scores), write_npy(&[n], &labels))
}

/// Ranges of a file read through `File.slice`, longer than the one read buffer and again after
/// it was handed back, are the file's bytes.
#[test]
async fn a_file_is_read_by_ranges_through_one_buffer() {
    let bytes = pattern((3 << 20) + 17);
    let source = ByteSource::File(file("big.bin", &bytes));
    assert_eq!(source.size(), bytes.len() as u64);
    for range in [5..(3 << 20) + 10, 0..1, 1000..(1 << 20) + 1000, 0..bytes.len() as u64] {
        let got = source.read(range.clone()).await.unwrap();
        assert_eq!(got, bytes[range.start as usize..range.end as usize]);
    }
}

/// A range past the file's end is an error naming the file, never fewer bytes.
#[test]
async fn a_range_past_the_end_is_an_error() {
    let source = ByteSource::File(file("short.bin", &pattern(100)));
    let err = source.read(50..150).await.unwrap_err().to_string();
    assert!(err.contains("short.bin") && err.contains("read 50 bytes where 100"), "{err}");
}

/// A large score file opens from its header and labels, under the name the page shows.
#[test]
async fn a_streamed_file_opens_from_its_header() {
    let (scores, labels) = score_files(40);
    let source = ByteSource::File(file("scores.npy", &scores));
    let opened = Streamed::open(source, None, Some(("labels.npy".into(), labels)), Some("shown")).await;
    let s = opened.unwrap();
    assert_eq!((s.info.name.as_str(), s.info.layout.shape()), ("shown", (40, 2, 3)));
    assert_eq!(s.info.labels, (0..40).map(|i| i % 3).collect::<Vec<_>>());
    let bad = Streamed::open(ByteSource::File(file("x.npy", b"not npy")), None, None, None).await;
    assert!(bad.is_err());
}

/// Dropped scores and labels are read whole into one data set; an empty drop is refused with
/// the reason the model gives.
#[test]
async fn dropped_files_are_read_whole() {
    let (scores, labels) = score_files(12);
    let got = files::dropped(vec![file("scores.npy", &scores), file("labels.npy", &labels)]).await;
    let Got::Dataset { name, data, .. } = got else { panic!("not a data set") };
    let data = data.unwrap();
    assert!(name.contains("scores.npy"), "{name}");
    assert_eq!((data.scores.n(), data.scores.m(), data.scores.k()), (12, 2, 3));
    let Got::Failed(why) = files::dropped(Vec::new()).await else { panic!("an empty drop read") };
    assert!(why.starts_with("0 files were given"), "{why}");
}

/// The workers' entry point (what `www/worker.js` calls) computes a repeat the job takes, and
/// refuses a request that is not one.
#[test]
fn the_worker_entry_point_computes_a_repeat_the_job_takes() {
    use rvalue_model::{AnalysisJob, Source};
    let c = Controls {
        toy: ToyParams { k: 4, m: 6, n_cal: 25, n_test: 30, repeats: 3, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    };
    let mut job = AnalysisJob::new(Source::Toy(c.toy_params()), &c).unwrap();
    let h = job.hand_out().expect("repeat 1 is handed out");
    let bytes = crate::worker::rvalue_compute_part(&h.request).unwrap();
    job.supply_part(h.part, &bytes).unwrap();
    assert_eq!(job.parts_out(), 0);
    assert!(crate::worker::rvalue_compute_part("not a request").is_err());
}

/// A held score file's split, asked before any file is held, is refused, not a panic.
#[test]
fn a_split_without_a_held_file_is_refused() {
    let err = crate::worker::rvalue_compute_split("{}").unwrap_err();
    assert_eq!(err, JsValue::from_str("no score file is held"));
}
