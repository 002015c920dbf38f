//! Score files streamed a block at a time give what the same files read whole give: the bundled
//! samples (as shipped, and rewritten as float32/float64 `.npy` and stored/deflated `.npz`),
//! through every method, r-value kind, prior and tie order; the fuzz and bad-input corpora
//! accepted or refused alike; huge headers refused before any data is read.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "common/files.rs"]
mod common;
// The core's checksum, for the zip writer of `common`.
use rvalue_core::io::crc32;

use std::path::{Path, PathBuf};

use rvalue_core::blocks::ScoreBlocks;
use rvalue_core::conformal::streamed::{calibrate_streamed, Streaming};
use rvalue_core::conformal::{
    calibrate_each_lean, Calibrated, Method, Prior, RvalueKind, ScoreOptions, SplitPlan,
};
use rvalue_core::io::{self, write_npy_f32, write_npy_f64, write_npy_i64, Opened, ScoreFile};
use rvalue_core::rvalue::TieOrder;
use rvalue_core::tensor::ScoreTensor;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = root().join("target").join("streamed-files");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// What a calibration answers, through its public API.
fn answers(c: &Calibrated) -> Vec<u64> {
    let mut out: Vec<u64> = c.test.iter().map(|&i| i as u64).collect();
    for t in 0..c.test.len() {
        out.push(c.label(t) as u64);
        out.extend(c.row(t).iter().map(|x| x.to_bits()));
        out.extend([0.05, 0.1, 0.3].map(|a| c.threshold(t, a).to_bits()));
    }
    let m = c.metrics(0.1, false);
    out.extend([m.coverage, m.size, m.position, m.empty_rate].map(f64::to_bits));
    out
}

fn option_sets() -> Vec<ScoreOptions> {
    let mut all = vec![ScoreOptions::default()];
    for ties in TieOrder::ALL {
        all.push(ScoreOptions { kind: RvalueKind::Pooled, ties, ..ScoreOptions::default() });
    }
    all.push(ScoreOptions { kind: RvalueKind::Parametric, ..ScoreOptions::default() });
    all.push(ScoreOptions { kind: RvalueKind::Parametric, prior: Prior::Pooled, ..ScoreOptions::default() });
    all
}

fn open_streamed(path: &Path) -> ScoreFile {
    match ScoreFile::open(path).unwrap() {
        Opened::Streamed(f) => f,
        Opened::Whole(_) => panic!("{} was read whole", path.display()),
    }
}

/// Streams `path` (blocks of 3 items, one pooled split per pass, 2 threads) and compares every
/// calibration with the in-memory path on `t`.
fn same_as_in_memory(path: &Path, t: &ScoreTensor, labels: &[usize]) {
    let file = open_streamed(path);
    assert_eq!(file.shape(), (t.n(), t.m(), t.k()));
    let splits = SplitPlan::Random { count: 2, cal_fraction: 0.5, seed: 3 }.splits(t.n()).unwrap();
    let run = Streaming { threads: 2, block_bytes: 3 * t.m() * t.k() * 8, pooled_bytes: 1, ranker: None };
    for opts in option_sets() {
        let mut streamed = Vec::new();
        calibrate_streamed(
            &file,
            labels,
            &Method::ALL,
            &opts,
            &splits,
            &run,
            &mut |_, _, _| {},
            &mut |m, r, c| {
                streamed.push((m, r, answers(&c)));
                Ok(())
            },
        )
        .unwrap();
        streamed.sort_by_key(|(m, r, _)| (Method::ALL.iter().position(|x| x == m), *r));
        let mut memory = Vec::new();
        for m in Method::ALL {
            calibrate_each_lean(t, labels, None, m, &opts, &splits, 1, |r, c| {
                memory.push((m, r, answers(&c)))
            })
            .unwrap();
        }
        assert!(streamed == memory, "{}: {opts:?} differs", path.display());
    }
}

fn sample(name: &str) -> (ScoreTensor, Vec<usize>, PathBuf) {
    let path = root().join("assets").join(name);
    let mut d = io::read_scores_file(&path).unwrap();
    let labels = match d.labels.take() {
        Some(l) => l,
        None => {
            let lp = root().join("assets").join(name.replace("_scores", "_labels"));
            let bytes = std::fs::read(lp).unwrap();
            io::read_labels("labels", &bytes, d.scores.n(), d.scores.k()).unwrap()
        }
    };
    (d.scores, labels, path)
}

/// A smaller copy of a sample (its first items), so that every option set runs quickly.
fn first_items(t: &ScoreTensor, labels: &[usize], n: usize) -> (ScoreTensor, Vec<usize>) {
    (t.items(0..n.min(t.n())), labels[..n.min(t.n())].to_vec())
}

#[test]
fn bundled_samples_stream_as_they_read() {
    for name in ["toy_default.npz", "digits_wbb.npz"] {
        let (t, labels, path) = sample(name);
        let file = open_streamed(&path);
        let mut whole = Vec::new();
        file.for_each_block(100, &mut |_, b| {
            whole.extend(
                (0..b.n())
                    .flat_map(|i| (0..b.m()).flat_map(move |d| (0..b.k()).map(move |c| (i, d, c))))
                    .map(|(i, d, c)| b.get(i, d, c).to_bits()),
            );
            Ok(())
        })
        .unwrap();
        let expect: Vec<u64> = t.data().iter().map(|x| x.to_bits()).collect();
        assert!(whole == expect, "{name}: the blocks are not the file's scores");
        let (small, small_labels) = first_items(&t, &labels, 120);
        let f32s: Vec<f32> = small.data().iter().map(|&x| x as f32).collect();
        let small32 = ScoreTensor::from_f32(small.n(), small.m(), small.k(), f32s.clone()).unwrap();
        let shape = [small.n(), small.m(), small.k()];
        let labels_npy =
            write_npy_i64(&[small.n()], &small_labels.iter().map(|&y| y as i64).collect::<Vec<_>>());
        for (suffix, bytes, t) in [
            ("f64.npy", write_npy_f64(&shape, &small.data()), &small),
            ("f32.npy", write_npy_f32(&shape, &f32s), &small32),
        ] {
            let p = scratch(&format!("{name}.{suffix}"));
            std::fs::write(&p, &bytes).unwrap();
            same_as_in_memory(&p, t, &small_labels);
            for deflate in [false, true] {
                let members = [
                    common::ZipMember { deflate, ..common::ZipMember::stored("scores.npy", bytes.clone()) },
                    common::ZipMember {
                        deflate,
                        ..common::ZipMember::stored("labels.npy", labels_npy.clone())
                    },
                ];
                let p = scratch(&format!("{name}.{suffix}.{deflate}.npz"));
                std::fs::write(&p, common::zip(&members)).unwrap();
                let mut f = open_streamed(&p);
                assert_eq!(f.take_labels().as_deref(), Some(&small_labels[..]));
                same_as_in_memory(&p, t, &small_labels);
            }
        }
    }
}

/// Every corpus file: streamed and read whole both accept it with the same scores and labels,
/// or both refuse it.
#[test]
fn corpora_are_accepted_or_refused_alike() {
    let mut checked = 0;
    for dir in ["tests/data/fuzz", "tests/data/bad", "tests/data/io"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else { continue };
        for e in entries {
            let path = e.unwrap().path();
            let whole = io::read_scores_file(&path);
            let streamed = ScoreFile::open(&path).and_then(|o| match o {
                Opened::Whole(d) => Ok((d.scores.data().to_vec(), d.labels)),
                Opened::Streamed(mut f) => {
                    let mut all = Vec::new();
                    f.for_each_block(2, &mut |_, b| {
                        all.extend_from_slice(&b.data());
                        Ok(())
                    })?;
                    Ok((all, f.take_labels()))
                }
            });
            match (&whole, &streamed) {
                (Ok(w), Ok((s, l))) => {
                    let same = w.scores.data().iter().map(|x| x.to_bits()).eq(s.iter().map(|x| x.to_bits()));
                    assert!(same && &w.labels == l, "{}: different scores or labels", path.display());
                }
                (Err(_), Err(_)) => {}
                _ => panic!(
                    "{}: read whole {:?}, streamed {:?}",
                    path.display(),
                    whole.map(|_| ()),
                    streamed.map(|_| ())
                ),
            }
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} corpus files");
}

/// A header claiming far more than the file holds is refused at once: the check is the header's
/// against the file's size, before any data is read.
#[test]
fn huge_claims_are_refused_from_the_header() {
    let header = common::npy_header("<f4", "(10000, 1000, 1000)");
    let p = scratch("claims-40gb.npy");
    std::fs::write(&p, common::npy(1, &header, &[0u8; 64])).unwrap();
    let e = ScoreFile::open(&p).unwrap_err().to_string();
    assert!(
        e.contains("truncated data") && e.contains("40000000000 bytes") && e.contains("the file has 64"),
        "{e}"
    );
    let p = scratch("bad-header.npy");
    std::fs::write(&p, common::npy(1, "{'descr': '<f4', 'shape': (3, 2, 2), }", &[0u8; 48])).unwrap();
    let e = ScoreFile::open(&p).unwrap_err().to_string();
    assert!(e.contains("no 'fortran_order' key"), "{e}");
}
