//! The bad-input corpus in `tests/data/bad/` (docs/method.md §8): every file is made here, so the
//! corpus is reproducible (`RVALUE_BLESS_BAD=1 cargo test --test bad_inputs` rewrites it), and
//! `expected.txt` says, per scores file, the labels file given with it (or `-`), the exit status
//! and a fragment the one-line message must contain. Status 2 is a refused file; status 0 marks
//! files that are accepted with a note on stderr (docs/method.md: `[N, K]` is read as `M = 1`).
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The file builders shared with the fuzz harness at the repository root.
#[path = "../../../tests/common/files.rs"]
mod common;
// The core's checksum, for the zip writer of `common`.
use rvalue_core::io::crc32;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{npy, npy_header, zip, ZipMember};
use rvalue_core::io::{write_npy_bool, write_npy_f64, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
// The repository root, which holds `tests/data/`.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn dir() -> PathBuf {
    Path::new(ROOT).join("tests/data/bad")
}

/// A valid `[n, m, k]` score tensor with varied values.
fn scores(n: usize, m: usize, k: usize) -> Vec<f64> {
    (0..n * m * k).map(|i| ((i * 7) % 13) as f64 / 4.0 - 1.5).collect()
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn npz(members: Vec<(&str, Vec<u8>)>) -> Vec<u8> {
    zip(&members.into_iter().map(|(n, d)| ZipMember::stored(n, d)).collect::<Vec<_>>())
}

/// A valid archive of 12 items × 3 draws × 4 candidates, with `labels` as given.
fn npz_with_labels(labels: &[i64]) -> Vec<u8> {
    let n = labels.len();
    npz(vec![
        ("scores.npy", write_npy_f64(&[n, 3, 4], &scores(n, 3, 4))),
        ("labels.npy", write_npy_i64(&[n], labels)),
    ])
}

/// Long-form CSV rows `item,draw,candidate,score,label` for a full `n × m × k` grid.
fn csv_grid(n: usize, m: usize, k: usize) -> Vec<String> {
    let mut rows = vec!["item,draw,candidate,score,label".to_string()];
    for i in 0..n {
        for j in 0..m {
            for c in 0..k {
                rows.push(format!("{i},{j},{c},{},{}", ((i + 2 * j + 3 * c) % 7) as f64 / 2.0, i % k));
            }
        }
    }
    rows
}

fn csv(rows: &[String]) -> Vec<u8> {
    let mut s = rows.join("\n");
    s.push('\n');
    s.into_bytes()
}

/// Every file of the corpus, by name.
fn corpus() -> BTreeMap<&'static str, Vec<u8>> {
    let labels12: Vec<i64> = (0..12).map(|i| i % 4).collect();
    let s634 = scores(12, 3, 4);
    let mut f: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();

    // Empty and truncated files.
    f.insert("empty.npy", Vec::new());
    f.insert("empty.csv", Vec::new());
    f.insert("blank_lines.csv", b"\n\r\n  \n".to_vec());
    f.insert("header_only.csv", b"item,draw,candidate,score,label\n".to_vec());
    let good = write_npy_f64(&[12, 3, 4], &s634);
    f.insert("truncated_data.npy", good[..good.len() - 5].to_vec());
    f.insert("truncated_header.npy", good[..40].to_vec());
    f.insert("magic_only.npy", b"\x93NUMPY".to_vec());
    let good_npz = npz_with_labels(&labels12);
    f.insert("truncated.npz", good_npz[..good_npz.len() / 2].to_vec());

    // Wrong magic, version, dtype, byte order, shape.
    let mut wrong_magic = good.clone();
    wrong_magic[1..6].copy_from_slice(b"NUMPZ");
    f.insert("wrong_magic.npy", wrong_magic);
    let mut v4 = good.clone();
    v4[6] = 4;
    f.insert("version4.npy", v4);
    let h = |d: &str, s: &str| npy_header(d, s);
    f.insert("big_endian.npy", npy(1, &h(">f8", "(12, 3, 4)"), &[0; 12 * 3 * 4 * 8]));
    f.insert("float16_big_endian.npy", npy(1, &h(">f2", "(12, 3, 4)"), &[0; 12 * 3 * 4 * 2]));
    f.insert("complex.npy", npy(1, &h("<c16", "(12, 3, 4)"), &[0; 12 * 3 * 4 * 16]));
    f.insert("unicode.npy", npy(1, &h("<U3", "(12, 3, 4)"), &[0; 12 * 3 * 4 * 12]));
    f.insert(
        "structured.npy",
        npy(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }", &[0; 16]),
    );
    f.insert("bool_scores.npy", write_npy_bool(&[2, 2], &[true, false, true, true]));
    f.insert("scores_1d.npy", write_npy_f64(&[4], &[0.0; 4]));
    f.insert("scores_4d.npy", write_npy_f64(&[2, 1, 2, 2], &[0.0; 8]));
    f.insert("huge_claim.npy", npy(1, &h("<f8", "(1000000000000,)"), &[0; 64]));
    f.insert("huge_claim_3d.npy", npy(1, &h("<f4", "(1000000, 1000, 1000)"), &[0; 64]));
    f.insert("overflow_claim.npy", npy(1, &h("<f8", "(4294967296, 4294967296, 4294967296)"), &[]));

    // Values.
    let mut nan = s634.clone();
    nan[17] = f64::NAN;
    f.insert("nan.npy", write_npy_f64(&[12, 3, 4], &nan));
    let mut inf = s634.clone();
    inf[5] = f64::NEG_INFINITY;
    f.insert("inf.npz", npz(vec![("scores.npy", write_npy_f64(&[12, 3, 4], &inf))]));
    // float16 (bit patterns): 1.0 everywhere, one NaN, one −∞.
    let mut half = vec![0x3c00u16; 12 * 3 * 4];
    half[17] = 0x7e00;
    let half: Vec<u8> = half.iter().flat_map(|x| x.to_le_bytes()).collect();
    f.insert("float16_nan.npy", npy(1, &h("<f2", "(12, 3, 4)"), &half));
    let mut half = vec![0x3c00u16; 12 * 3 * 4];
    half[5] = 0xfc00;
    let half =
        npy(1, &h("<f2", "(12, 3, 4)"), &half.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>());
    f.insert("float16_inf.npz", npz(vec![("scores.npy", half)]));

    // Items, draws, candidates.
    f.insert("m0.npy", npy(1, &h("<f8", "(12, 0, 4)"), &[]));
    f.insert("n0.npy", npy(1, &h("<f8", "(0, 3, 4)"), &[]));
    f.insert("n1.npz", npz_with_labels(&[2]));
    f.insert("k1.npz", {
        npz(vec![
            ("scores.npy", write_npy_f64(&[12, 3, 1], &scores(12, 3, 1))),
            ("labels.npy", write_npy_i64(&[12], &[0; 12])),
        ])
    });
    f.insert("nk_single_draw.npz", {
        npz(vec![
            ("scores.npy", write_npy_f64(&[12, 4], &scores(12, 1, 4))),
            ("labels.npy", write_npy_i64(&[12], &labels12)),
        ])
    });
    // Accepted with a warning: a tensor stacked [N, K = 4, M = 10] (read as M = 4, K = 10, its
    // labels using 4 of 10 candidates), and 6 items, whose 3 calibration items are too few for
    // α = 0.2 (k* = 4 > 3: every set full). Small, as the fuzzer starts from these files and
    // its allocation bound is in proportion to an input's size.
    let four: Vec<i64> = (0..20).map(|i| i % 4).collect();
    f.insert("transposed.npz", {
        npz(vec![
            ("scores.npy", write_npy_f64(&[20, 4, 10], &scores(20, 4, 10))),
            ("labels.npy", write_npy_i64(&[20], &four)),
        ])
    });
    f.insert("n6_alpha_too_small.npz", npz_with_labels(&labels12[..6]));

    // Labels.
    let mut out_of_range = labels12.clone();
    out_of_range[7] = 4;
    f.insert("labels_out_of_range.npz", npz_with_labels(&out_of_range));
    let mut negative = labels12.clone();
    negative[3] = -1;
    f.insert("labels_negative.npz", npz_with_labels(&negative));
    f.insert("scores_12.npy", write_npy_f64(&[12, 3, 4], &s634));
    f.insert("labels_12.npy", write_npy_i64(&[12], &labels12));
    f.insert("labels_11.npy", write_npy_i64(&[11], &labels12[..11]));
    f.insert("labels_2d.npy", write_npy_i64(&[12, 1], &labels12));
    f.insert("labels_fraction.npy", write_npy_f64(&[12], &[0.5; 12]));
    f.insert("labels_text.csv", b"0\n1\n2\n".to_vec());
    f.insert("labels_bool.npy", write_npy_bool(&[12], &[true; 12]));
    f.insert("no_labels.npy", write_npy_f64(&[12, 3, 4], &s634));

    // Archives.
    f.insert("zip_without_members.npz", npz(vec![("x.npy", write_npy_f64(&[12, 3, 4], &s634))]));
    f.insert("zip_empty.npz", npz(vec![]));
    f.insert("zip_no_directory.npz", b"PK\x03\x04 nothing else".to_vec());
    f.insert(
        "zip_bad_crc.npz",
        zip(&[ZipMember {
            bad_crc: true,
            ..ZipMember::stored("scores.npy", write_npy_f64(&[2, 1, 2], &[0.0; 4]))
        }]),
    );
    f.insert("zip_huge_member.npz", {
        let mut z = npz(vec![("scores.npy", write_npy_f64(&[2, 1, 2], &[0.0; 4]))]);
        // The central directory's uncompressed size: claim 4 GB.
        let cd = z.windows(4).position(|w| w == b"PK\x01\x02").unwrap_or(0);
        z[cd + 24..cd + 28].copy_from_slice(&u32::MAX.to_le_bytes());
        z
    });
    f.insert("zip_member_name_control.npz", npz(vec![("x\n\x1b[31m.npy", write_npy_f64(&[1], &[0.0]))]));

    // Long-form CSV.
    let grid = csv_grid(12, 2, 3);
    let mut ragged = grid.clone();
    ragged[9] = "4,0,2,0.5".into();
    f.insert("ragged.csv", csv(&ragged));
    let mut dup = grid.clone();
    dup[20] = dup[19].clone();
    f.insert("duplicate_row.csv", csv(&dup));
    let mut missing = grid.clone();
    missing.remove(30);
    f.insert("missing_row.csv", csv(&missing));
    let mut text = grid.clone();
    text[14] = "2,0,1,high,2".into();
    f.insert("text_in_score.csv", csv(&text));
    let mut text_index = grid.clone();
    text_index[3] = "zero,1,0,0.5,0".into();
    f.insert("text_in_index.csv", csv(&text_index));
    let mut negative_index = grid.clone();
    negative_index[3] = "0,-1,0,0.5,0".into();
    f.insert("negative_index.csv", csv(&negative_index));
    let mut nan_csv = grid.clone();
    nan_csv[8] = "1,0,1,NaN,1".into();
    f.insert("nan.csv", csv(&nan_csv));
    let mut inf_csv = grid.clone();
    inf_csv[8] = "1,0,1,inf,1".into();
    f.insert("inf.csv", csv(&inf_csv));
    let mut label_range = grid.clone();
    for r in label_range.iter_mut().skip(1).filter(|r| r.starts_with("5,")) {
        *r = format!("{}7", r.strip_suffix(|c: char| c.is_ascii_digit()).unwrap_or(r));
    }
    f.insert("csv_label_out_of_range.csv", csv(&label_range));
    let mut label_neg = grid.clone();
    for r in label_neg.iter_mut().skip(1).filter(|r| r.starts_with("6,")) {
        *r = format!("{}-1", r.strip_suffix(|c: char| c.is_ascii_digit()).unwrap_or(r));
    }
    f.insert("csv_label_negative.csv", csv(&label_neg));
    let mut label_conflict = grid.clone();
    label_conflict[2] = label_conflict[2].replace(",0.5,0", ",0.5,2").replace(",1,0", ",1,2");
    let r2 = label_conflict[2].clone();
    label_conflict[2] = format!("{}2", r2.strip_suffix(|c: char| c.is_ascii_digit()).unwrap_or(&r2));
    f.insert("csv_label_conflict.csv", csv(&label_conflict));
    let mut no_score = grid.clone();
    no_score[0] = "item,draw,candidate,value,label".into();
    f.insert("csv_missing_column.csv", csv(&no_score));
    let mut twice = grid.clone();
    twice[0] = "item,draw,candidate,score,item".into();
    f.insert("csv_column_twice.csv", csv(&twice));
    let mut huge = csv_grid(1, 1, 2);
    huge.push("1000000000000,0,0,0.5,0".into());
    f.insert("csv_huge_index.csv", csv(&huge));
    let mut big_grid = csv_grid(1, 1, 2);
    big_grid.push("20000,20000,0,0.5,0".into());
    f.insert("csv_grid_over_limit.csv", csv(&big_grid));
    let mut latin1 = csv(&csv_grid(2, 1, 2));
    latin1.extend_from_slice(b"1,0,2,\xe9,1\n");
    f.insert("not_utf8.csv", latin1);
    f.insert("csv_n1.csv", csv(&csv_grid(1, 3, 4)));

    // Split masks (`--split`).
    f.insert("mask_values.npy", write_npy_i64(&[12], &[0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 0, 1]));
    f.insert("mask_length.npy", write_npy_bool(&[5], &[true; 5]));
    f.insert("mask_all_calibration.npy", write_npy_bool(&[12], &[true; 12]));
    f.insert("raw_f8_no_header.npy", f64_bytes(&s634));
    f
}

struct Case {
    file: String,
    labels: Option<String>,
    split: Option<String>,
    status: i32,
    fragment: String,
}

/// `expected.txt`: `file<TAB>labels or -<TAB>status<TAB>fragment`; a labels entry of the form
/// `split:MASK` gives `--split MASK` instead (with `labels_12.npy` for `scores_12.npy`).
fn manifest() -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("expected.txt")).expect("tests/data/bad/expected.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 4, "expected.txt line needs 4 tab-separated columns: {l:?}");
            let (labels, split) = match cols[1] {
                "-" => (None, None),
                s => match s.strip_prefix("split:") {
                    Some(m) => (None, Some(m.to_string())),
                    None => (Some(s.to_string()), None),
                },
            };
            Case {
                file: cols[0].to_string(),
                labels,
                split,
                status: cols[2].parse().expect("status"),
                fragment: cols[3].to_string(),
            }
        })
        .collect()
}

#[test]
fn corpus_files_are_reproducible() {
    let want = corpus();
    let bless = std::env::var_os("RVALUE_BLESS_BAD").is_some();
    if bless {
        std::fs::create_dir_all(dir()).unwrap();
    }
    for (name, bytes) in &want {
        let p = dir().join(name);
        if bless {
            std::fs::write(&p, bytes).unwrap();
        } else {
            let have = std::fs::read(&p).unwrap_or_else(|_| panic!("{name} missing: RVALUE_BLESS_BAD=1"));
            assert!(&have == bytes, "{name} differs from its generator: RVALUE_BLESS_BAD=1 rewrites it");
        }
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "expected.txt")
        .collect();
    on_disk.sort();
    let made: Vec<String> = want.keys().map(|s| s.to_string()).collect();
    assert_eq!(on_disk, made, "files in tests/data/bad/ that no generator makes");
    assert!(want.len() >= 25);
}

#[test]
fn every_file_has_an_expected_message() {
    let cases = manifest();
    let listed: Vec<&str> = cases
        .iter()
        .flat_map(|c| [Some(c.file.as_str()), c.labels.as_deref(), c.split.as_deref()])
        .flatten()
        .collect();
    for name in corpus().keys() {
        assert!(listed.contains(name), "{name} is not used in expected.txt");
    }
    for name in &listed {
        assert!(dir().join(name).is_file(), "expected.txt names {name}, which does not exist");
    }
}

/// Runs `rvalue conformal` on each case: status 2 with one line `rvalue: FILE: …fragment…`, or
/// status 0 with the fragment as a note on stderr.
#[test]
fn cli_reports_each_bad_file() {
    let mut failures = Vec::new();
    let cases = manifest();
    assert!(cases.len() >= 25);
    for c in &cases {
        let p = |n: &str| dir().join(n).to_string_lossy().into_owned();
        let mut cmd = Command::new(BIN);
        cmd.args(["conformal", "--scores", &p(&c.file), "--alpha", "0.2", "--device", "cpu"]);
        if c.split.is_none() {
            cmd.args(["--splits", "2"]);
        }
        if let Some(l) = &c.labels {
            cmd.args(["--labels", &p(l)]);
        }
        if let Some(m) = &c.split {
            cmd.args(["--split", &p(m)]);
            if c.file == "scores_12.npy" {
                cmd.args(["--labels", &p("labels_12.npy")]);
            }
        }
        let o = cmd.output().expect("the rvalue binary runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        // The file at fault: the mask, else the labels, else the scores (a case names one only).
        let named = p(c.split.as_ref().or(c.labels.as_ref()).filter(|_| c.status == 2).unwrap_or(&c.file));
        let problem = if o.status.code() != Some(c.status) {
            Some(format!("exit {:?}, expected {}", o.status.code(), c.status))
        } else if !err.contains(&c.fragment) {
            Some(format!("stderr lacks {:?}", c.fragment))
        } else if c.status == 2
            && (err.lines().count() != 1 || !err.starts_with("rvalue: ") || !o.stdout.is_empty())
        {
            Some("not one line 'rvalue: …' on stderr with nothing on stdout".to_string())
        } else if c.status == 2 && !err.contains(&format!("{named}: ")) {
            Some(format!("the message does not name {named}"))
        } else if c.status == 0 && o.stdout.is_empty() {
            Some("no results on stdout".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            failures.push(format!("{}: {problem}\n    stderr: {}", c.file, err.trim_end()));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Per-class coverage reads the same files: every case of the corpus ends as it does under
/// marginal coverage (refused in one line, or accepted), never in a panic.
#[test]
fn per_class_coverage_takes_the_files_marginal_takes() {
    for c in &manifest() {
        let p = |n: &str| dir().join(n).to_string_lossy().into_owned();
        let mut cmd = Command::new(BIN);
        cmd.args(["conformal", "--scores", &p(&c.file), "--alpha", "0.2", "--device", "cpu"]);
        cmd.args(["--coverage", "per-class", "--splits", "2"]);
        if let Some(l) = &c.labels {
            cmd.args(["--labels", &p(l)]);
        }
        if c.file == "scores_12.npy" && c.labels.is_none() {
            cmd.args(["--labels", &p("labels_12.npy")]);
        }
        let o = cmd.output().expect("the rvalue binary runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!err.contains("panicked"), "{}: {err}", c.file);
        assert!(matches!(o.status.code(), Some(0 | 2)), "{}: {:?} {err}", c.file, o.status.code());
        if o.status.code() == Some(2) {
            assert_eq!(err.lines().count(), 1, "{}: {err}", c.file);
        }
    }
}

/// True draws' classes (`--calibration-labels`) of the wrong length or beyond K, or none at all
/// for per-class coverage, and an unknown coverage: one line each.
#[test]
fn per_class_true_draw_labels_are_checked() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad_per_class");
    std::fs::create_dir_all(&tmp).unwrap();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = tmp.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_string_lossy().into_owned()
    };
    let true_draws = write("true.npy", write_npy_f64(&[5, 3], &scores(5, 1, 3)));
    let test = write("test.npy", write_npy_f64(&[6, 3, 4], &scores(6, 3, 4)));
    let test_labels = write("test_labels.npy", write_npy_i64(&[6], &[0, 1, 2, 3, 0, 1]));
    let short = write("short.npy", write_npy_i64(&[4], &[0, 1, 2, 3]));
    let beyond = write("beyond.npy", write_npy_i64(&[5], &[0, 1, 2, 3, 4]));
    let base = ["conformal", "--scores", &test, "--labels", &test_labels, "--alpha", "0.2", "--method", "cp"];
    let one_line = |extra: &[&str], fragment: &str| {
        let o = Command::new(BIN).args(base).args(extra).output().expect("the rvalue binary runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(fragment), "{extra:?}: {err}");
    };
    let per_class = ["--coverage", "per-class", "--calibration-true", true_draws.as_str()];
    one_line(&per_class, "--coverage per-class needs the class of every calibration item");
    one_line(&[&per_class[..], &["--calibration-labels", &short]].concat(), "short.npy");
    one_line(&[&per_class[..], &["--calibration-labels", &beyond]].concat(), "beyond.npy");
    one_line(&["--coverage", "mondrian"], "per-class");
}
