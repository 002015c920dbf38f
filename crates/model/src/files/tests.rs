use super::*;
use rvalue_core::io::{write_npy_f32, write_npy_i64};

type Files = Vec<(String, Vec<u8>)>;

fn named(v: &[(&str, &Vec<u8>)]) -> Files {
    v.iter().map(|(a, b)| (a.to_string(), b.to_vec())).collect()
}

/// A test file `[4, 3, 2]`, a pool `[5, 3]` for its 3 draws and its labels.
fn three() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (n, m, k, n_cal) = (4, 3, 2, 5);
    let scores: Vec<f32> = (0..n * m * k).map(|x| x as f32 / 8.0).collect();
    let test = write_npy_f32(&[n, m, k], &scores);
    let pool = write_npy_f32(&[n_cal, m], &vec![0.5; n_cal * m]);
    let labels = write_npy_i64(&[n], &[0, 1, 1, 0]);
    (test, pool, labels)
}

/// Files by role: of two score files the pool is the 2-D one for the other's M draws, in any
/// order and beside a labels file; two files that are not both scores are scores and labels.
#[test]
fn files_are_told_apart_by_role() {
    let (test, pool, labels) = three();
    let (name, got) =
        read_named(named(&[("pool.npy", &pool), ("y_labels.npy", &labels), ("test.npy", &test)]));
    let (d, p, _) = got.unwrap();
    assert_eq!(name, "test.npy + y_labels.npy with the pool pool.npy [5, 3]");
    assert_eq!(
        (d.scores.n(), d.labels, p.map(|p| (p.n(), p.m()))),
        (4, Some(vec![0, 1, 1, 0]), Some((5, 3)))
    );
    // The pool first or second: the same test file.
    let (name, got) = read_named(named(&[("test.npy", &test), ("pool.npy", &pool)]));
    assert_eq!(name, "test.npy with the pool pool.npy [5, 3]");
    assert_eq!(got.unwrap().0.scores.m(), 3);
    // Scores and an unnamed labels file.
    let (name, got) = read_named(named(&[("test.npy", &test), ("targets.npy", &labels)]));
    let (d, p, names) = got.unwrap();
    assert_eq!(
        (name.as_str(), d.labels.is_some(), p.is_none(), names),
        ("test.npy + targets.npy", true, true, None)
    );
    // A 2-D file whose second dimension is not M is no pool.
    let other = write_npy_f32(&[5, 4], &[0.5; 20]);
    let e = read_named(named(&[("test.npy", &test), ("other.npy", &other)])).1.unwrap_err();
    assert!(e.to_string().contains("are two score files"), "{e}");
}

#[test]
fn two_labels_files_or_none_of_scores_are_refused() {
    let (test, _, labels) = three();
    let (name, got) =
        read_named(named(&[("a_labels.npy", &labels), ("b_labels.npy", &labels), ("t.npy", &test)]));
    assert!(got.unwrap_err().to_string().contains("more than one file names labels"));
    assert_eq!(name, "t.npy + a_labels.npy + b_labels.npy");
    // Two files named labels alone: the second is read as scores (here, labels cannot be).
    let (name, got) = read_named(named(&[("labels.npy", &labels), ("test_labels.npy", &test)]));
    assert_eq!(name, "test_labels.npy + labels.npy");
    assert_eq!(got.unwrap().0.labels, Some(vec![0, 1, 1, 0]));
    let e = true_draws_of(&named(&[("a", &test), ("b", &test), ("c", &test)]), &[]).unwrap_err();
    assert!(e.to_string().contains("at most two score files"));
}

#[test]
fn a_file_read_with_labels_is_named_after_both() {
    let (test, _, labels) = three();
    let (name, got) = read("test.npy".into(), &test, Some(("y.npy".into(), labels)));
    assert_eq!(name, "test.npy + y.npy");
    let (d, names) = split_names(got);
    assert_eq!((d.unwrap().labels, names), (Some(vec![0, 1, 1, 0]), None));
    let (name, got) = read("bad.npy".into(), b"not a file", None);
    let (d, names) = split_names(got);
    assert_eq!((name.as_str(), d.is_err(), names), ("bad.npy", true, None));
}

#[test]
fn files_over_two_gib_are_refused_with_their_size() {
    assert_eq!(too_large("a.npy", MAX_FILE_BYTES), None);
    let why = too_large("a.npy", 3.0 * 1024f64.powi(3)).unwrap();
    assert_eq!(why, "a.npy: 3.0 GiB is larger than the page reads (2 GiB); use the rvalue command line");
}

#[test]
fn the_stream_switch_is_megabytes_or_the_default() {
    assert_eq!(stream_from(None), STREAM_FROM_BYTES);
    assert_eq!(stream_from(Some("2.5")), 2.5e6);
    assert_eq!(stream_from(Some("0")), 0.0);
    assert_eq!(stream_from(Some("-1")), STREAM_FROM_BYTES);
    assert_eq!(stream_from(Some("big")), STREAM_FROM_BYTES);
}

fn sized(v: &[(&str, f64)]) -> Vec<(String, f64)> {
    v.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

#[test]
fn a_drop_streams_its_large_score_file_with_its_labels_alone() {
    let plan = |v: &[(&str, f64)]| plan_drop(&sized(v), 100.0);
    assert_eq!(
        plan(&[("y_labels.npy", 500.0), ("s.npy", 100.0)]),
        DropPlan::Stream { scores: 1, labels: Some(0) }
    );
    assert_eq!(plan(&[("s.npy", 100.0)]), DropPlan::Stream { scores: 0, labels: None });
    let DropPlan::Refused(why) = plan(&[("s.npy", 200.0), ("pool.npy", 1.0)]) else { panic!("streamed") };
    assert!(why.starts_with("s.npy is read a block at a time"), "{why}");
    assert_eq!(plan(&[("s.npy", 99.0), ("labels.npy", 1.0), ("p.npy", 1.0)]), DropPlan::Whole);
    let DropPlan::Refused(why) = plan(&[]) else { panic!("nothing read") };
    assert!(why.starts_with("0 files were given"), "{why}");
    let four = [("a", 1.0), ("b", 1.0), ("c", 1.0), ("d", 1.0)];
    assert!(matches!(plan(&four), DropPlan::Refused(w) if w.starts_with("4 files")));
}

#[test]
fn a_large_file_opens_from_its_header_with_its_labels() {
    let (test, _, labels) = three();
    let size = test.len() as u64;
    let f =
        open_streamed("s.npy", size, &test[..test.len().min(200)], Some(("y.npy".into(), labels.clone())));
    let f = f.unwrap();
    assert_eq!((f.name.as_str(), f.labels.clone()), ("s.npy + y.npy", vec![0, 1, 1, 0]));
    let e = open_streamed("s.npy", size, &test, None).unwrap_err();
    assert!(e.to_string().contains("s.npy has no labels"), "{e}");
    let e =
        open_streamed("s.npz", 3_000_000_000, b"PK\x03\x04rest", Some(("y.npy".into(), labels))).unwrap_err();
    assert!(e.to_string().contains("an .npz of 3.0 GB"), "{e}");
}

#[test]
fn a_sample_says_how_it_is_loaded() {
    assert!(sample_status(crate::samples::SYNTHETIC_CIFAR).starts_with("Generating a CIFAR-100"));
    assert!(sample_status(crate::samples::SYNTHETIC_TOY).starts_with("Simulating the toy"));
    assert_eq!(sample_status("x.npz"), "Fetching x.npz…");
}

#[test]
fn reads_within_the_bytes_read_ahead_are_answered_from_them() {
    let ahead = ReadAhead::new(100..110, (0..10).collect());
    assert_eq!(ahead.get(&(100..103)), Some(vec![0, 1, 2]));
    assert_eq!(ahead.get(&(107..110)), Some(vec![7, 8, 9]));
    assert_eq!(ahead.get(&(105..105)), Some(vec![]));
    assert_eq!(ahead.get(&(99..103)), None);
    assert_eq!(ahead.get(&(108..111)), None);
    assert_eq!(ReadAhead::new(0..0, vec![]).get(&(0..1)), None);
}
