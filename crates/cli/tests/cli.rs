//! The `rvalue` binary against docs/method.md §9: outputs, cross-checks between subcommands, exit status
//! and one-line errors. Runs the built binary on the sample files in `assets/`.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rvalue_core::io::{
    parse_npy, read_labels, read_mask, read_scores, write_npy_bool, write_npy_f16_bits, write_npy_f32,
    write_npy_f64, write_npy_i64, NpyData,
};
use rvalue_core::tensor::ScoreTensor;

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
// The repository root, which holds `assets/` and `tests/data/`.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const SUMMARY_HEADER: &str =
    "method,alpha,coverage_mean,coverage_sd,size_mean,size_sd,position_mean,empty_rate,splits,\
     macro_coverage_mean,macro_coverage_sd,worst_class_coverage_mean,worst_class_coverage_sd,covgap_mean,\
     covgap_sd,violated_classes_mean,violated_classes_sd,sscv_mean,sscv_sd,dsv_mean,dsv_sd";

/// The JSON rows' keys beyond the CSV's columns: the tallies over all splits.
const JSON_TALLIES: [&str; 4] = ["class_coverage", "class_count", "size_strata", "difficulty_strata"];

fn path(rel: &str) -> String {
    format!("{ROOT}/{rel}")
}

fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).output().expect("the rvalue binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Runs and expects success; returns stdout.
fn ok<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    stdout(&o)
}

/// Runs and expects exit 2 with exactly one line `rvalue: …` on stderr; returns that line.
fn bad<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "stdout: {} stderr: {err}", stdout(&o));
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.starts_with("rvalue: ") && err.ends_with('\n'), "{err:?}");
    assert!(o.stdout.is_empty(), "nothing on stdout: {}", stdout(&o));
    err.trim_end().to_string()
}

/// A fresh directory for one test's files.
fn tmp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// CSV text as a header and rows of fields.
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines.next().expect("a header").split(',').map(String::from).collect();
    (header, lines.map(|l| l.split(',').map(String::from).collect()).collect())
}

fn column(header: &[String], rows: &[Vec<String>], name: &str) -> Vec<f64> {
    let i = header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"));
    rows.iter().map(|r| r[i].parse().unwrap()).collect()
}

/// Summary rows by method name: column name → value.
fn summary(text: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let (header, rows) = parse_csv(text);
    assert_eq!(header.join(","), SUMMARY_HEADER);
    rows.iter()
        .map(|r| {
            let vals = header[1..].iter().cloned().zip(r[1..].iter().map(|v| v.parse().unwrap())).collect();
            (r[0].clone(), vals)
        })
        .collect()
}

/// Items in `assets/digits_wbb.npz`.
const DIGITS_N: usize = 900;

/// A deterministic mask over the digits items: about half calibrate.
fn digits_mask() -> Vec<bool> {
    (0..DIGITS_N).map(|i| (i * 7919 + 13) % 11 < 5).collect()
}

/// [`digits_mask`] written as `mask.npy` in `dir`; its path.
fn digits_mask_file(dir: &std::path::Path) -> String {
    let mask = dir.join("mask.npy");
    std::fs::write(&mask, write_npy_bool(&[DIGITS_N], &digits_mask())).unwrap();
    mask.to_str().unwrap().to_string()
}

fn digits_npz() -> String {
    path("assets/digits_wbb.npz")
}

// ---------------------------------------------------------------------------------------------
// rank

#[test]
fn rank_grid_empirical_reproduces_the_r_package() {
    let reference = std::fs::read_to_string(path("tests/data/reference/rvalues_R_12_units.csv")).unwrap();
    let (rh, rr) = parse_csv(&reference);
    let args = ["rank", "--input", &path("tests/data/reference/rvalues_R_12_units.csv")];
    let out = ok(&[&args[..], &["--algorithm", "grid", "--lambda", "empirical"]].concat());
    let (h, rows) = parse_csv(&out);
    assert_eq!(h.join(","), "estimate,se,post_mean,post_sd,rvalue");
    assert_eq!(rows.len(), 12);
    for name in ["estimate", "se", "post_mean", "post_sd", "rvalue"] {
        let (got, want) = (column(&h, &rows, name), column(&rh, &rr, name));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-9, "{name}[{i}]: {g} vs R {w}");
        }
    }
    // The same units with the columns reordered, an extra column, blanks and CRLF line ends.
    let out2 = ok(&[
        "rank",
        "--input",
        &path("tests/data/cli/units_reordered_crlf.csv"),
        "--algorithm",
        "grid",
        "--lambda",
        "empirical",
    ]);
    assert_eq!(out2, out);
}

/// `--algorithm grid` alone asks for the rvalues R package's numbers: its λ rule defaults to the
/// package's empirical one (docs/method.md §9), and `--lambda model` still overrides it.
#[test]
fn rank_grid_alone_gives_the_r_package() {
    let input = path("tests/data/reference/rvalues_R_12_units.csv");
    let reference = std::fs::read_to_string(&input).unwrap();
    let (rh, rr) = parse_csv(&reference);
    let out = ok(&["rank", "--input", &input, "--algorithm", "grid"]);
    let empirical = ok(&["rank", "--input", &input, "--algorithm", "grid", "--lambda", "empirical"]);
    assert_eq!(out, empirical);
    let (h, rows) = parse_csv(&out);
    assert_eq!(rows.len(), 12);
    for name in ["estimate", "se", "post_mean", "post_sd", "rvalue"] {
        let (got, want) = (column(&h, &rows, name), column(&rh, &rr, name));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= 1e-9, "{name}[{i}]: {g} vs R {w}");
        }
    }
    let model = ok(&["rank", "--input", &input, "--algorithm", "grid", "--lambda", "model"]);
    assert_ne!(model, out, "--lambda model must override the grid's default");
    let (hm, rm) = parse_csv(&model);
    let (got, want) = (column(&hm, &rm, "rvalue"), column(&rh, &rr, "rvalue"));
    assert!(got.iter().zip(&want).any(|(g, w)| (g - w).abs() > 1e-6), "the model rule gave R's r-values");
    // The help says which default applies.
    let help = ok(&["rank", "--help"]);
    assert!(help.contains("empirical with --algorithm grid"), "{help}");
}

#[test]
fn rank_defaults_and_fixed_hyper() {
    let input = path("tests/data/reference/rvalues_R_12_units.csv");
    let out = ok(&["rank", "--input", &input]);
    let explicit =
        ok(&["rank", "--input", &input, "--algorithm", "exact", "--lambda", "model", "--hyper", "estimate"]);
    assert_eq!(out, explicit);
    let (h, rows) = parse_csv(&out);
    for r in column(&h, &rows, "rvalue") {
        assert!(r > 0.0 && r < 1.0, "{r}");
    }
    // Fixed hyperparameters: the posterior is the conjugate one, computed here by hand.
    let out = ok(&["rank", "--input", &input, "--hyper", "0.5,2"]);
    let (h, rows) = parse_csv(&out);
    let (x, se) = (column(&h, &rows, "estimate"), column(&h, &rows, "se"));
    let (pm, psd) = (column(&h, &rows, "post_mean"), column(&h, &rows, "post_sd"));
    for i in 0..x.len() {
        let s = se[i] * se[i];
        let mean = (2.0 * x[i] + s * 0.5) / (2.0 + s);
        let sd = (2.0 * s / (2.0 + s)).sqrt();
        assert!((pm[i] - mean).abs() < 1e-12 && (psd[i] - sd).abs() < 1e-12, "unit {i}");
    }
}

#[test]
fn rank_bad_inputs() {
    let e = bad(&["rank", "--input", &path("tests/data/cli/units_no_se.csv")]);
    assert!(e.contains("units_no_se.csv") && e.contains("'se'"), "{e}");
    let dir = tmp_dir("rank_bad");
    let f = dir.join("neg.csv");
    std::fs::write(&f, "estimate,se\n1,0.5\n2,-1\n").unwrap();
    let e = bad(&["rank".as_ref(), "--input".as_ref(), f.as_os_str()]);
    assert!(e.contains("neg.csv: line 3, column 2 (se)") && e.contains("negative"), "{e}");
    let e = bad(&["rank", "--input", "/nonexistent/units.csv"]);
    assert!(e.contains("/nonexistent/units.csv"), "{e}");
    let e =
        bad(&["rank", "--input", &path("tests/data/reference/rvalues_R_12_units.csv"), "--hyper", "1,-2"]);
    assert!(e.contains("--hyper"), "{e}");
    let e = bad(&["rank", "--input", &path("tests/data/reference/rvalues_R_12_units.csv"), "--lambda", "x"]);
    assert!(e.contains("--lambda"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// conformal

#[test]
fn conformal_on_digits_covers() {
    let out = ok(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--splits", "20"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let rows = summary(&out);
    let methods: Vec<&str> = lines[1..].iter().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(methods, ["cp", "cp-avg", "cp-r"]);
    for (m, r) in &rows {
        assert!(r["coverage_mean"] > 0.85 && r["coverage_mean"] < 0.98, "{m}: {r:?}");
        assert!(r["coverage_sd"] > 0.0 && r["coverage_sd"] < 0.05, "{m}: {r:?}");
        assert_eq!(r["alpha"], 0.1);
        assert_eq!(r["splits"], 20.0);
        assert!(r["size_mean"] > 0.5 && r["size_mean"] < 3.0, "{m}: {r:?}");
        assert!((0.0..1.0).contains(&r["empty_rate"]));
        assert!(r["position_mean"] >= 0.0);
    }
}

#[test]
fn conformal_npy_pair_equals_npz_and_json_parses() {
    let common = ["--alpha", "0.2", "--splits", "3", "--seed", "7", "--method", "cp-avg,cp"];
    let npz = ok(&[&["conformal", "--scores", &digits_npz()][..], &common].concat());
    let pair = ok(&[
        &[
            "conformal",
            "--scores",
            &path("assets/digits_wbb_scores.npy"),
            "--labels",
            &path("assets/digits_wbb_labels.npy"),
        ][..],
        &common,
    ]
    .concat());
    assert_eq!(npz, pair);
    let methods: Vec<&str> = npz.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(methods, ["cp-avg", "cp"], "rows in the order given");

    let json = ok(&[&["conformal", "--scores", &digits_npz(), "--format", "json"][..], &common].concat());
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 2);
    let csv = summary(&npz);
    for obj in arr {
        let obj = obj.as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut want: Vec<&str> = SUMMARY_HEADER.split(',').chain(JSON_TALLIES).collect();
        want.sort_unstable();
        let mut keys_sorted = keys.clone();
        keys_sorted.sort_unstable();
        assert_eq!(keys_sorted, want);
        let row = &csv[obj["method"].as_str().unwrap()];
        for (k, v) in row {
            // serde_json's default float parsing is not always the correctly rounded one.
            let j = obj[k.as_str()].as_f64().unwrap_or(f64::NAN);
            assert!((j - v).abs() <= 1e-15 * v.abs() || (j.is_nan() && v.is_nan()), "{k}: {j} vs {v}");
        }
    }
    // A different seed gives different splits.
    let other = ok(&[
        "conformal",
        "--scores",
        &digits_npz(),
        "--alpha",
        "0.2",
        "--splits",
        "3",
        "--seed",
        "8",
        "--method",
        "cp-avg,cp",
    ]);
    assert_ne!(other, npz);
}

#[test]
fn json_writes_nan_as_null() {
    // A position is NaN when no set holds its true label. Items 0 and 1 calibrate with true-label
    // scores 10 (CP's nonconformity −10); with α = 0.99, k* = ⌈3 · 0.01⌉ = 1, so q̂ = −10, and the
    // test items 2 and 3, whose scores are all ≤ 0, get empty sets.
    let dir = tmp_dir("json_nan");
    let s = dir.join("s.npy");
    let y = dir.join("y.npy");
    let mask = dir.join("mask.npy");
    let scores = [10.0, 0.0, 0.0, 10.0, 0.0, -1.0, -2.0, 0.0, -1.0];
    std::fs::write(&s, write_npy_f64(&[4, 1, 3], &[&scores[..], &[-1.0, -2.0, -3.0]].concat())).unwrap();
    std::fs::write(&y, write_npy_i64(&[4], &[0, 1, 2, 0])).unwrap();
    std::fs::write(&mask, write_npy_bool(&[4], &[true, true, false, false])).unwrap();
    let args: Vec<&std::ffi::OsStr> = vec![
        "conformal".as_ref(),
        "--scores".as_ref(),
        s.as_os_str(),
        "--labels".as_ref(),
        y.as_os_str(),
        "--split".as_ref(),
        mask.as_os_str(),
        "--alpha".as_ref(),
        "0.99".as_ref(),
        "--method".as_ref(),
        "cp".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ];
    let v: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
    assert!(v[0]["position_mean"].is_null(), "{v}");
    assert_eq!(v[0]["coverage_mean"].as_f64(), Some(0.0));
    assert_eq!(v[0]["size_mean"].as_f64(), Some(0.0));
    assert_eq!(v[0]["empty_rate"].as_f64(), Some(1.0));
    // The same run as CSV writes NaN.
    let csv = ok(&args[..args.len() - 2]);
    assert!(csv.lines().nth(1).unwrap().contains(",NaN,"), "{csv}");
}

#[test]
fn conformal_with_one_split_mask() {
    let mask = digits_mask_file(&tmp_dir("one_split"));
    let mask = mask.as_str();
    let out = ok(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--split", mask]);
    let rows = summary(&out);
    assert_eq!(rows.len(), 3);
    for r in rows.values() {
        assert_eq!(r["splits"], 1.0);
        assert_eq!(r["coverage_sd"], 0.0);
    }
    let e =
        bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--split", mask, "--splits", "5"]);
    assert!(e.contains("--split"), "{e}");
}

#[test]
fn conformal_other_rvalues_and_long_csv() {
    // The long-form CSV carries its labels; 12 items, M = 5.
    let csv = path("assets/small_long.csv");
    for rv in ["parametric", "nonparametric", "pooled"] {
        let out = ok(&["conformal", "--scores", &csv, "--alpha", "0.2", "--splits", "4", "--rvalue", rv]);
        let rows = summary(&out);
        assert_eq!(rows.len(), 3, "{rv}");
        assert!(rows["cp-r"]["coverage_mean"] > 0.5, "{rv}: {out}");
    }
    let out = ok(&[
        "conformal",
        "--scores",
        &csv,
        "--alpha",
        "0.2",
        "--splits",
        "4",
        "--method",
        "cp-r",
        "--variance",
        "of-mean",
        "--prior",
        "pooled",
        "--algorithm",
        "grid",
        "--lambda",
        "empirical",
        "--never-empty",
        "--cal-fraction",
        "0.6",
    ]);
    let rows = summary(&out);
    assert_eq!(rows["cp-r"]["empty_rate"], 0.0);
    // --cp-draw picks CP's draw: another draw, other sets.
    let d0 = ok(&["conformal", "--scores", &csv, "--alpha", "0.2", "--splits", "4", "--method", "cp"]);
    let d3 = ok(&[
        "conformal",
        "--scores",
        &csv,
        "--alpha",
        "0.2",
        "--splits",
        "4",
        "--method",
        "cp",
        "--cp-draw",
        "3",
    ]);
    assert_ne!(d0, d3);
    let e = bad(&["conformal", "--scores", &csv, "--alpha", "0.2", "--method", "cp", "--cp-draw", "5"]);
    assert!(e.contains("draw 5"), "{e}");
}

#[test]
fn single_draw_scores_warn_for_cp_r() {
    let dir = tmp_dir("single_draw");
    let (n, k) = (30usize, 4usize);
    let scores: Vec<f64> = (0..n * k).map(|i| ((i * 37) % 23) as f64 / 7.0).collect();
    let labels: Vec<i64> = (0..n as i64).map(|i| i % k as i64).collect();
    let s = dir.join("nk.npy");
    let y = dir.join("y.npy");
    std::fs::write(&s, write_npy_f64(&[n, k], &scores)).unwrap();
    std::fs::write(&y, write_npy_i64(&[n], &labels)).unwrap();
    let args = |methods: &str| -> Vec<String> {
        let mut v: Vec<String> =
            ["conformal", "--scores", s.to_str().unwrap(), "--labels", y.to_str().unwrap()]
                .map(String::from)
                .to_vec();
        v.extend(["--alpha", "0.2", "--splits", "2", "--method", methods].map(String::from));
        v
    };
    let o = run(&args("cp,cp-r"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("M = 1: only CP and CP_avg are meaningful"), "{}", stderr(&o));
    assert_eq!(summary(&stdout(&o)).len(), 2);
    let o = run(&args("cp,cp-avg"));
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------------
// sets

#[test]
fn sets_file_matches_conformal_on_the_same_split() {
    let dir = tmp_dir("sets");
    let mask_v = digits_mask();
    let mask = digits_mask_file(&dir);
    let sets = dir.join("sets.csv");
    let (mask, sets_s) = (mask.as_str(), sets.to_str().unwrap());
    let methods = "cp-r,cp,cp-avg";
    let common = ["--alpha", "0.05", "--method", methods, "--split", mask];
    let o = run(&[&["sets", "--scores", &digits_npz(), "--output", sets_s][..], &common].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let conf = summary(&ok(&[&["conformal", "--scores", &digits_npz()][..], &common].concat()));

    let data = read_scores("digits", &std::fs::read(digits_npz()).unwrap()).unwrap();
    let (t, labels) = (&data.scores, data.labels.unwrap());
    let test: Vec<usize> = (0..DIGITS_N).filter(|&i| !mask_v[i]).collect();

    let text = std::fs::read_to_string(&sets).unwrap();
    let (header, rows) = parse_csv(&text);
    assert_eq!(header.join(","), "method,item,candidate,score,position");
    // Sorted by method (in the order given), item, position; positions 0, 1, … per set, and an
    // empty set as one row with no candidate (position "" sorts first).
    let order: Vec<&str> = methods.split(',').collect();
    let key = |r: &Vec<String>| {
        let m = order.iter().position(|&m| m == r[0]).expect("a requested method");
        (m, r[1].parse::<usize>().unwrap(), r[4].parse::<usize>().ok())
    };
    let keys: Vec<_> = rows.iter().map(key).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "rows sorted and unique");
    let mut sets_of: BTreeMap<(String, usize), Vec<(usize, f64)>> = BTreeMap::new();
    for r in &rows {
        let item: usize = r[1].parse().unwrap();
        let set = sets_of.entry((r[0].clone(), item)).or_default();
        if r[2].is_empty() {
            assert_eq!(r[3..], ["", ""], "an empty set's row has no score or position: {r:?}");
            continue;
        }
        assert_eq!(r[4].parse::<usize>().unwrap(), set.len(), "positions count up: {r:?}");
        set.push((r[2].parse().unwrap(), r[3].parse().unwrap()));
    }
    for m in &order {
        let mut covered = 0usize;
        let mut size = 0usize;
        for &i in &test {
            let set = sets_of.get(&(m.to_string(), i)).expect("every test item has a row");
            size += set.len();
            covered += usize::from(set.iter().any(|&(c, _)| c == labels[i]));
            assert!(set.windows(2).all(|w| w[0].1 <= w[1].1), "{m} item {i}: scores ascend");
            let cands: BTreeSet<usize> = set.iter().map(|&(c, _)| c).collect();
            assert_eq!(cands.len(), set.len(), "{m} item {i}: no repeated candidate");
            for &(c, score) in set {
                // The method's own score: −S[m0 = 0] for CP, −mean for CP_avg, an r-value for CP_r.
                let want = match *m {
                    "cp" => Some(-t.get(i, 0, c)),
                    "cp-avg" => Some(-(0..t.m()).map(|d| t.get(i, d, c)).sum::<f64>() / t.m() as f64),
                    _ => None,
                };
                match want {
                    Some(w) => assert!((score - w).abs() < 1e-9, "{m} item {i} cand {c}: {score} vs {w}"),
                    None => assert!(score > 0.0 && score <= 1.0, "{m}: r-value {score}"),
                }
            }
        }
        assert!(sets_of.keys().all(|(_, i)| !mask_v[*i]), "only test items have sets");
        let cov = covered as f64 / test.len() as f64;
        let r = &conf[*m];
        assert_eq!(cov, r["coverage_mean"], "{m}: coverage from the sets file vs conformal --split");
        assert!((size as f64 / test.len() as f64 - r["size_mean"]).abs() < 1e-12, "{m}: size");
    }
}

/// Without a mask `sets` runs `conformal`'s seeded split `--split-index`: the masks both commands
/// save are the same files, and `--split` reads them back to the same sets and rows.
#[test]
fn sets_runs_conformals_seeded_split_and_both_save_its_mask() {
    let dir = tmp_dir("seeded_split");
    let (digits, d) = (digits_npz(), dir.to_str().unwrap().to_string());
    let common = ["--alpha", "0.1", "--seed", "4", "--device", "cpu"];
    let masks = dir.join("masks");
    ok(&[
        &["conformal", "--scores", &digits, "--splits", "3", "--save-splits", masks.to_str().unwrap()][..],
        &common,
    ]
    .concat());
    let names: BTreeSet<String> =
        std::fs::read_dir(&masks).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["split_0.npy", "split_1.npy", "split_2.npy"].map(String::from).into());
    for i in ["0", "2"] {
        let (seeded, given) = (format!("{d}/seeded_{i}.csv"), format!("{d}/given_{i}.csv"));
        let saved = format!("{d}/saved_{i}.npy");
        let args =
            ["sets", "--scores", &digits, "--split-index", i, "--save-split", &saved, "--output", &seeded];
        ok(&[&args[..], &common].concat());
        let from_conformal = std::fs::read(masks.join(format!("split_{i}.npy"))).unwrap();
        assert_eq!(std::fs::read(&saved).unwrap(), from_conformal, "split {i}: one mask");
        let mask = masks.join(format!("split_{i}.npy"));
        ok(&[
            &["sets", "--scores", &digits, "--split", mask.to_str().unwrap(), "--output", &given][..],
            &common,
        ]
        .concat());
        let (a, b) = (std::fs::read_to_string(&seeded).unwrap(), std::fs::read_to_string(&given).unwrap());
        assert_eq!(a, b, "split {i}: the seeded split and its mask give the same sets");
        let mask = parse_npy("m", &from_conformal).unwrap();
        let NpyData::Bool(mask) = mask.data else { panic!("a boolean mask") };
        let tested: BTreeSet<usize> = parse_csv(&a).1.iter().map(|r| r[1].parse().unwrap()).collect();
        assert_eq!(tested, (0..DIGITS_N).filter(|&j| !mask[j]).collect(), "test items are the mask's false");
    }
    // Split 0 is the first seeded split of `conformal`, so their first rows agree.
    let first = summary(&ok(&[&["conformal", "--scores", &digits, "--splits", "1"][..], &common].concat()));
    let mask0 = masks.join("split_0.npy");
    let given =
        summary(&ok(
            &[&["conformal", "--scores", &digits, "--split", mask0.to_str().unwrap()][..], &common].concat()
        ));
    assert_eq!(first, given);
    let e = bad(&[
        "sets",
        "--scores",
        &digits,
        "--alpha",
        "0.1",
        "--split",
        "m.npy",
        "--split-index",
        "1",
        "--output",
        "x.csv",
    ]);
    assert!(e.contains("--split-index") && e.contains("--split"), "{e}");
}

#[test]
fn sets_needs_an_output() {
    let e = bad(&["sets", "--scores", &digits_npz(), "--alpha", "0.1", "--split", "m.npy"]);
    assert!(e.contains("--output"), "{e}");
    let mask = digits_mask_file(&tmp_dir("sets_bad"));
    let e = bad(&[
        "sets",
        "--scores",
        &digits_npz(),
        "--alpha",
        "0.1",
        "--method",
        "cp",
        "--split",
        &mask,
        "--output",
        "/nonexistent-dir/sets.csv",
    ]);
    assert!(e.contains("/nonexistent-dir/sets.csv"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// predict

/// A data set as files for `predict` and the equivalent `sets` run: the calibration items (`mask`
/// true), then the new ones, joined in `joined.npy` with the mask `[true]*n_cal + [false]*n_test`.
struct PredictFiles {
    joined: String,
    labels: String,
    mask: String,
    cal: String,
    cal_labels: String,
    test: String,
    n_cal: usize,
}

fn predict_files(dir: &Path, t: &ScoreTensor, labels: &[usize], mask: &[bool]) -> PredictFiles {
    let cal: Vec<usize> = (0..t.n()).filter(|&i| mask[i]).collect();
    let test: Vec<usize> = (0..t.n()).filter(|&i| !mask[i]).collect();
    let per = t.m() * t.k();
    let all = t.data();
    let scores_of = |items: &[usize]| -> Vec<f64> {
        items.iter().flat_map(|&i| all[i * per..(i + 1) * per].iter().copied()).collect()
    };
    let labels_of = |items: &[usize]| -> Vec<i64> { items.iter().map(|&i| labels[i] as i64).collect() };
    let joined: Vec<usize> = cal.iter().chain(&test).copied().collect();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (n_cal, n, m, k) = (cal.len(), joined.len(), t.m(), t.k());
    let joined_mask: Vec<bool> = (0..n).map(|i| i < n_cal).collect();
    PredictFiles {
        joined: write("joined.npy", write_npy_f64(&[n, m, k], &scores_of(&joined))),
        labels: write("labels.npy", write_npy_i64(&[n], &labels_of(&joined))),
        mask: write("mask.npy", write_npy_bool(&[n], &joined_mask)),
        cal: write("cal.npy", write_npy_f64(&[n_cal, m, k], &scores_of(&cal))),
        cal_labels: write("cal_labels.npy", write_npy_i64(&[n_cal], &labels_of(&cal))),
        test: write("test.npy", write_npy_f64(&[test.len(), m, k], &scores_of(&test))),
        n_cal,
    }
}

/// The first 300 digits (the runs stay short), calibration and new items interleaved as
/// [`digits_mask`] says.
fn digits_predict_files(dir: &Path) -> PredictFiles {
    let data = read_scores("digits", &std::fs::read(digits_npz()).unwrap()).unwrap();
    let (t, labels) = (&data.scores, data.labels.unwrap());
    let per = t.m() * t.k();
    let head = ScoreTensor::new(300, t.m(), t.k(), t.data()[..300 * per].to_vec()).unwrap();
    predict_files(dir, &head, &labels[..300], &digits_mask()[..300])
}

impl PredictFiles {
    /// The arguments of `rvalue predict` writing to `out`, before any others.
    fn predict_args<'a>(&'a self, out: &'a str) -> [&'a str; 9] {
        [
            "predict",
            "--calibration",
            &self.cal,
            "--calibration-labels",
            &self.cal_labels,
            "--test",
            &self.test,
            "--output",
            out,
        ]
    }

    /// `rvalue predict` with `extra` options, written to `out`: the file's bytes. Nothing on
    /// stdout, and nothing on stderr but the data's warnings.
    fn predict(&self, out: &Path, extra: &[&str]) -> Vec<u8> {
        let o = run(&[&self.predict_args(out.to_str().unwrap())[..], extra].concat());
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", stderr(&o));
        let warned = stderr(&o).lines().all(|l| l.starts_with("rvalue: warning: "));
        assert!(o.stdout.is_empty() && warned, "{extra:?}: {}", stderr(&o));
        std::fs::read(out).unwrap()
    }

    /// `rvalue sets` on the joined file with `extra` options, as `predict` rows: the method column
    /// dropped and the items counted from the first new one.
    fn sets_as_predict(&self, out: &Path, extra: &[&str]) -> String {
        let out_s = out.to_str().unwrap();
        let args = [
            "sets",
            "--scores",
            &self.joined,
            "--labels",
            &self.labels,
            "--split",
            &self.mask,
            "--output",
            out_s,
        ];
        ok(&[&args[..], extra].concat());
        let mut rows = String::from("item,candidate,score,position\n");
        for line in std::fs::read_to_string(out).unwrap().lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 5, "{line}");
            let item: usize = f[1].parse().unwrap();
            rows.push_str(&format!("{},{},{},{}\n", item - self.n_cal, f[2], f[3], f[4]));
        }
        rows
    }

    /// `predict` and `sets` with the same `extra` options agree; the rows.
    fn same_as_sets(&self, dir: &Path, extra: &[&str]) -> String {
        let extra = [extra, &["--device", "cpu"]].concat();
        let want = self.sets_as_predict(&dir.join("sets.csv"), &extra);
        let got = String::from_utf8(self.predict(&dir.join("predicted.csv"), &extra)).unwrap();
        assert_eq!(got, want, "{extra:?}");
        got
    }
}

/// `predict` is `sets` on the split whose test items are the new ones: the same rows, byte for
/// byte, for every method and r-value whose sets look at no other new item and no item's place
/// (docs/method.md §5; a pooled prior and the exchangeable order differ there by design).
#[test]
fn predict_gives_the_sets_of_the_joined_split() {
    let dir = tmp_dir("predict_sets");
    let f = digits_predict_files(&dir);
    let runs: [&[&str]; 6] = [
        &["--method", "cp", "--alpha", "0.1"],
        &["--method", "cp-avg", "--alpha", "0.2", "--never-empty"],
        &["--method", "cp-r", "--alpha", "0.1", "--prior", "per-item"],
        &["--method", "cp-r", "--alpha", "0.05", "--prior", "per-item", "--variance", "of-mean"],
        &["--method", "cp-r", "--alpha", "0.1", "--rvalue", "nonparametric"],
        &["--method", "cp-r", "--alpha", "0.3", "--rvalue", "pooled", "--ties", "index", "--threads", "2"],
    ];
    let rows: usize = runs.iter().map(|extra| f.same_as_sets(&dir, extra).lines().count() - 1).sum();
    assert!(rows > 1000, "the sets have members: {rows}");
}

/// On data with ties the seed changes pooled sets: `predict` follows `--seed`; and a new item's
/// set is its own: the new items reversed give the same sets, reversed.
#[test]
fn predict_follows_the_seed_of_the_tie_order() {
    let dir = tmp_dir("predict_seed");
    let tiny = pooled_tiny_files(&dir);
    let data = read_scores("tiny", &std::fs::read(&tiny.scores).unwrap()).unwrap();
    let (n, k) = (data.scores.n(), data.scores.k());
    let labels = read_labels("tiny", &std::fs::read(&tiny.labels).unwrap(), n, k).unwrap();
    let mask = read_mask("tiny", &std::fs::read(&tiny.mask).unwrap(), n).unwrap();
    let f = predict_files(&dir, &data.scores, &labels, &mask);
    let alpha = tiny.alpha.to_string();
    let rows = |seed: &str| {
        let args =
            ["--alpha", &alpha, "--method", "cp-r", "--rvalue", "pooled", "--seed", seed, "--device", "cpu"];
        String::from_utf8(f.predict(&dir.join("predicted.csv"), &args)).unwrap()
    };
    let first = rows("0");
    assert!((1..6).any(|s| rows(&s.to_string()) != first), "the seed changes the tie order");
    let t = read_scores("test", &std::fs::read(&f.test).unwrap()).unwrap().scores;
    let per = t.m() * t.k();
    let reversed: Vec<f64> =
        (0..t.n()).rev().flat_map(|i| t.data()[i * per..(i + 1) * per].to_vec()).collect();
    let back = dir.join("reversed.npy");
    std::fs::write(&back, write_npy_f64(&[t.n(), t.m(), t.k()], &reversed)).unwrap();
    let out = dir.join("reversed.npy.csv");
    let args = [
        "predict",
        "--calibration",
        &f.cal,
        "--calibration-labels",
        &f.cal_labels,
        "--test",
        back.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
        "--alpha",
        &alpha,
        "--rvalue",
        "pooled",
        "--device",
        "cpu",
    ];
    ok(&args);
    let by_item = |text: &str, flip: bool| -> BTreeMap<usize, Vec<String>> {
        let mut m: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for r in parse_csv(text).1 {
            let i: usize = r[0].parse().unwrap();
            m.entry(if flip { t.n() - 1 - i } else { i }).or_default().push(r[1].clone());
        }
        m
    };
    assert_eq!(by_item(&std::fs::read_to_string(&out).unwrap(), true), by_item(&first, false));
}

/// The `.npy` output is the CSV's sets as a boolean mask `[n_test, K]`.
#[test]
fn predict_npy_is_the_csv_sets_as_a_mask() {
    let dir = tmp_dir("predict_npy");
    let f = digits_predict_files(&dir);
    let runs = [
        &["--alpha", "0.1", "--rvalue", "pooled"][..],
        &["--alpha", "0.02", "--never-empty"],
        &["--alpha", "0.6"],
    ];
    for extra in runs {
        let csv = String::from_utf8(f.predict(&dir.join("sets.csv"), extra)).unwrap();
        let npy = f.predict(&dir.join("sets.NPY"), extra);
        let a = parse_npy("sets.npy", &npy).unwrap();
        let NpyData::Bool(mask) = a.data else { panic!("a boolean array: {:?}", a.shape) };
        let (n_test, k) = (300 - f.n_cal, 10);
        assert_eq!(a.shape, [n_test, k]);
        let mut want = vec![false; n_test * k];
        let rows = parse_csv(&csv).1;
        let items: BTreeSet<usize> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert_eq!(items, (0..n_test).collect(), "every new item has a row, an empty set too");
        let empty: Vec<&Vec<String>> = rows.iter().filter(|r| r[1].is_empty()).collect();
        assert!(empty.iter().all(|r| r[2..] == ["", ""]), "an empty set's row: item,,,");
        match extra[1] {
            "0.6" => assert!(!empty.is_empty(), "empty sets at α = 0.6"),
            _ if extra.contains(&"--never-empty") => assert!(empty.is_empty(), "{extra:?}"),
            _ => {}
        }
        for r in rows.iter().filter(|r| !r[1].is_empty()) {
            want[r[0].parse::<usize>().unwrap() * k + r[1].parse::<usize>().unwrap()] = true;
        }
        assert_eq!(mask, want, "{extra:?}");
        assert!(mask.iter().any(|&b| b) && !mask.iter().all(|&b| b), "{extra:?}: some in, some out");
    }
}

/// Labels come from the calibration file when it carries them; the test file's are never read,
/// and a note says so (the plain case says nothing).
#[test]
fn predict_takes_labels_from_the_calibration_file_only() {
    let dir = tmp_dir("predict_labels");
    let (npz, npy, y) =
        (digits_npz(), path("assets/digits_wbb_scores.npy"), path("assets/digits_wbb_labels.npy"));
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (carried, given) = (out("carried.csv"), out("given.csv"));
    let common = ["--alpha", "0.1", "--device", "cpu"];
    let o =
        run(&[&["predict", "--calibration", &npz, "--test", &npy, "--output", &carried][..], &common]
            .concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "no note when the test file has no labels: {}", stderr(&o));
    let args =
        ["predict", "--calibration", &npy, "--calibration-labels", &y, "--test", &npz, "--output", &given];
    let o = run(&[&args[..], &common].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("note") && err.contains("digits_wbb.npz") && err.contains("labels"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let carried = std::fs::read_to_string(&carried).unwrap();
    assert!(carried.lines().count() > 500, "{carried}");
    assert_eq!(carried, std::fs::read_to_string(&given).unwrap());
}

/// `--device gpu` ranks the joined split's draws on the GPU: the same sets as the CPU's.
#[cfg(feature = "gpu")]
#[test]
fn predict_on_the_gpu_gives_the_cpu_sets() {
    let dir = tmp_dir("predict_gpu");
    let f = digits_predict_files(&dir);
    for kind in ["nonparametric", "pooled"] {
        let cpu = f.predict(&dir.join("cpu.csv"), &["--alpha", "0.1", "--rvalue", kind, "--device", "cpu"]);
        let out = dir.join("gpu.csv");
        let args = ["--alpha", "0.1", "--rvalue", kind, "--device", "gpu"];
        let o = run(&[&f.predict_args(out.to_str().unwrap())[..], &args].concat());
        if o.status.code() != Some(0) && may_skip_gpu() {
            return;
        }
        assert_eq!(o.status.code(), Some(0), "{kind}: {}", stderr(&o));
        assert_eq!(std::fs::read(out).unwrap(), cpu, "{kind}");
    }
}

/// `rvalue predict` on the given files with α = 0.1, expecting a one-line error: the line.
fn predict_bad(cal: &str, cal_labels: Option<&str>, test: &str, out: &str, extra: &[&str]) -> String {
    let mut args = vec!["predict", "--calibration", cal, "--test", test, "--output", out, "--alpha", "0.1"];
    if let Some(y) = cal_labels {
        args.extend(["--calibration-labels", y]);
    }
    bad(&[&args[..], extra].concat())
}

#[test]
fn predict_bad_inputs_exit_2_with_one_line() {
    let dir = tmp_dir("predict_bad");
    let f = digits_predict_files(&dir);
    let out = dir.join("sets.csv");
    let out = out.to_str().unwrap();
    let (cal, y, test) = (f.cal.as_str(), Some(f.cal_labels.as_str()), f.test.as_str());
    // No labels for the calibration items; labels of the wrong length (the joined file's).
    let e = predict_bad(test, None, test, out, &[]);
    assert!(e.contains("test.npy") && e.contains("--calibration-labels"), "{e}");
    let e = predict_bad(cal, Some(&f.labels), test, out, &[]);
    assert!(e.contains("labels.npy") && e.contains("[300]"), "{e}");
    // Other M, other K.
    let (m3, k4) = (dir.join("m3.npy"), dir.join("k4.npy"));
    std::fs::write(&m3, write_npy_f64(&[5, 3, 10], &[0.5; 150])).unwrap();
    std::fs::write(&k4, write_npy_f64(&[5, 30, 4], &[0.5; 600])).unwrap();
    for (file, what) in [(&m3, "M = 3"), (&k4, "K = 4")] {
        let file = file.to_str().unwrap();
        let e = predict_bad(cal, y, file, out, &[]);
        assert!(e.contains(file) && e.contains(what) && e.contains("M = 30"), "{e}");
    }
    let e = bad(&[&f.predict_args(out)[..], &["--alpha", "1"]].concat());
    assert!(e.contains("--alpha") && e.contains("(0, 1)"), "{e}");
    let e = predict_bad(cal, y, test, out, &["--method", "cp,cp-r"]);
    assert!(e.contains("--method") && e.contains("one method"), "{e}");
    let e = predict_bad(cal, y, test, out, &["--method", "lac"]);
    assert!(e.contains("lac"), "{e}");
    let e = bad(&["predict", "--calibration", cal, "--alpha", "0.1", "--output", out]);
    assert!(e.contains("--test"), "{e}");
    let e = predict_bad("/nonexistent/cal.npy", None, test, out, &[]);
    assert!(e.contains("/nonexistent/cal.npy"), "{e}");
    for out in ["/nonexistent-dir/sets.csv", "/nonexistent-dir/sets.npy"] {
        let e = predict_bad(cal, y, test, out, &[]);
        assert!(e.contains(out) && e.contains("cannot write"), "{e}");
    }
    for out in [dir.join("sets.txt"), dir.join("sets")] {
        let e = predict_bad(cal, y, test, out.to_str().unwrap(), &[]);
        assert!(e.contains(".csv") && e.contains(".npy"), "{e}");
        assert!(!out.exists(), "nothing written");
    }
}

// ---------------------------------------------------------------------------------------------
// toy

#[test]
fn toy_prints_the_closed_form_and_rows() {
    let out = ok(&["toy", "--repeats", "2", "--n-cal", "100", "--n-test", "100", "--m", "10"]);
    assert!(out.contains("48.74 %"), "{out}");
    assert!(out.contains("0.48739"), "{out}");
    assert!(out.contains("48.47"), "the note on the paper's figure: {out}");
    let csv = &out[out.find(SUMMARY_HEADER).expect("the rows' header")..];
    let rows = summary(csv);
    assert_eq!(rows.len(), 3);
    for (m, r) in &rows {
        assert_eq!(r["splits"], 2.0, "{m}");
        assert_eq!(r["alpha"], 0.1, "{m}");
        assert!(r["coverage_mean"] > 0.75, "{m}: {r:?}");
    }
    // The closed form follows the parameters.
    let out = ok(&[
        "toy",
        "--sigma2",
        "0",
        "--mu-q",
        "1",
        "--repeats",
        "1",
        "--n-cal",
        "20",
        "--n-test",
        "20",
        "--method",
        "cp",
    ]);
    assert!(out.contains("P(q > p) = 50.00 %"), "{out}");
    let e = bad(&["toy", "--high-var-fraction", "2"]);
    assert!(e.contains("h"), "{e}");
    let e = bad(&["toy", "--k", "1"]);
    assert!(e.contains("K"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// errors and help

#[test]
fn bad_inputs_exit_2_with_one_line() {
    let dir = tmp_dir("bad_inputs");
    let e = bad(&["conformal", "--scores", "/nonexistent/s.npy", "--alpha", "0.1"]);
    assert!(e.contains("/nonexistent/s.npy"), "{e}");

    let full = std::fs::read(path("assets/digits_wbb_scores.npy")).unwrap();
    let trunc = dir.join("trunc.npy");
    std::fs::write(&trunc, &full[..full.len() / 2]).unwrap();
    let e = bad(&["conformal", "--scores", trunc.to_str().unwrap(), "--alpha", "0.1"]);
    assert!(e.contains("trunc.npy"), "{e}");

    let (n, m, k) = (6usize, 3usize, 4usize);
    let s = dir.join("s.npy");
    std::fs::write(&s, write_npy_f64(&[n, m, k], &vec![0.5; n * m * k])).unwrap();
    let y = dir.join("y.npy");
    std::fs::write(&y, write_npy_i64(&[n], &[0, 1, 2, 3, 4, 0])).unwrap();
    let e = bad(&[
        "conformal",
        "--scores",
        s.to_str().unwrap(),
        "--labels",
        y.to_str().unwrap(),
        "--alpha",
        "0.1",
    ]);
    assert!(e.contains("y.npy") && e.contains("label [4] is 4") && e.contains("out of range"), "{e}");

    let e = bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--method", "cp,lac"]);
    assert!(e.contains("lac") && e.contains("--method"), "{e}");
    let e = bad(&["conformal", "--scores", &digits_npz(), "--alpha", "1.5"]);
    assert!(e.contains("1.5") && e.contains("--alpha"), "{e}");
    // A negative α is read as a value and refused as one, not taken for an option.
    let digits = digits_npz();
    let runs: [&[&str]; 3] =
        [&["conformal", "--scores", &digits], &["sets", "--scores", &digits, "--output", "x.csv"], &["toy"]];
    for args in runs {
        let e = bad(&[args, &["--alpha", "-0.1"]].concat());
        assert!(e.contains("'-0.1'") && e.contains("(0, 1)") && !e.contains("unexpected"), "{args:?}: {e}");
    }
    let e = bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--method", "cp,cp"]);
    assert!(e.contains("twice"), "{e}");
    let e = bad(&["conformal", "--scores", &digits_npz()]);
    assert!(e.contains("--alpha"), "{e}");

    let mask = dir.join("short_mask.npy");
    std::fs::write(&mask, write_npy_bool(&[5], &[true, false, true, false, true])).unwrap();
    let e =
        bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--split", mask.to_str().unwrap()]);
    assert!(e.contains("short_mask.npy") && e.contains("[5]") && e.contains(&DIGITS_N.to_string()), "{e}");

    let e = bad(&["conformal", "--scores", &path("assets/digits_wbb_scores.npy"), "--alpha", "0.1"]);
    assert!(e.contains("digits_wbb_scores.npy") && e.contains("--labels"), "{e}");
    let e = bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--splits", "0"]);
    assert!(e.contains("splits"), "{e}");
    let e = bad(&["conformal", "--scores", &digits_npz(), "--alpha", "0.1", "--cal-fraction", "1"]);
    assert!(e.contains("fraction"), "{e}");

    let e = bad(&["frobnicate"]);
    assert!(e.contains("frobnicate"), "{e}");
    let e = bad::<&str>(&[]);
    assert!(e.contains("command"), "{e}");
}

#[test]
fn help_everywhere_exits_0_on_stdout() {
    for sub in [&[][..], &["rank"], &["conformal"], &["sets"], &["predict"], &["toy"]] {
        let o = run(&[sub, &["--help"]].concat());
        assert_eq!(o.status.code(), Some(0), "{sub:?}");
        assert!(o.stderr.is_empty(), "{sub:?}");
        let text = stdout(&o);
        assert!(text.contains("Usage: rvalue"), "{sub:?}: {text}");
    }
    let conf = ok(&["conformal", "--help"]);
    for flag in [
        "--scores",
        "--labels",
        "--alpha",
        "--method",
        "--rvalue",
        "--variance",
        "--splits",
        "--seed",
        "--split",
        "--format",
    ] {
        assert!(conf.contains(flag), "{flag}");
    }
    assert!(conf.contains("[default: 100]") && conf.contains("[default: per-draw]"), "{conf}");
    let toy = ok(&["toy", "-h"]);
    assert!(toy.contains("[default: 1000]") && toy.contains("[default: 0.1]"), "{toy}");
    assert_eq!(ok(&["help", "rank"]), ok(&["rank", "--help"]));
}

// ---------------------------------------------------------------------------------------------
// --device: the GPU path (lavapipe here) gives the CPU path's output byte for byte.

/// Runs with extra environment variables.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BIN).args(args).envs(env.iter().copied()).output().expect("the rvalue binary runs")
}

/// Whether GPU tests may be skipped for want of an adapter (`RVALUE_SKIP_GPU_TESTS=1`).
#[cfg(feature = "gpu")]
fn may_skip_gpu() -> bool {
    std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1")
}

/// Only with the `gpu` feature: without it there is no GPU path to compare.
#[cfg(feature = "gpu")]
#[test]
fn device_gpu_gives_the_cpu_output() {
    let dir = tmp_dir("device");
    let mask = digits_mask_file(&dir);
    let mask = mask.as_str();
    let scores = digits_npz();
    for kind in ["nonparametric", "pooled"] {
        let conformal = |device: &str| {
            let args = [
                "conformal",
                "--scores",
                &scores,
                "--alpha",
                "0.1",
                "--splits",
                "3",
                "--rvalue",
                kind,
                "--device",
                device,
            ];
            let o = run_env(&args, &[]);
            if o.status.code() != Some(0) && may_skip_gpu() && device == "gpu" {
                return None;
            }
            assert_eq!(o.status.code(), Some(0), "{kind} on {device}: {}", stderr(&o));
            Some(stdout(&o))
        };
        let cpu = conformal("cpu").unwrap();
        if let Some(gpu) = conformal("gpu") {
            assert_eq!(gpu, cpu, "{kind}: conformal");
        }
        assert_eq!(conformal("auto").unwrap(), cpu, "{kind}: auto");
        let sets = |device: &str| {
            let out = dir.join(format!("sets_{kind}_{device}.csv"));
            let out_s = out.to_str().unwrap();
            let args = [
                "sets", "--scores", &scores, "--alpha", "0.1", "--split", mask, "--rvalue", kind, "--method",
                "cp-r", "--device", device, "--output", out_s,
            ];
            let o = run_env(&args, &[]);
            if o.status.code() != Some(0) && may_skip_gpu() && device == "gpu" {
                return None;
            }
            assert_eq!(o.status.code(), Some(0), "{kind} sets on {device}: {}", stderr(&o));
            Some(std::fs::read_to_string(out).unwrap())
        };
        let cpu = sets("cpu").unwrap();
        assert!(cpu.lines().count() > 100, "sets has rows");
        if let Some(gpu) = sets("gpu") {
            assert_eq!(gpu, cpu, "{kind}: sets");
        }
    }
}

#[test]
fn device_gpu_without_an_adapter_is_an_error_and_auto_falls_back() {
    let scores = digits_npz();
    let args = |device: &'static str| {
        [
            "conformal",
            "--scores",
            &scores,
            "--alpha",
            "0.1",
            "--splits",
            "2",
            "--rvalue",
            "pooled",
            "--method",
            "cp-r",
            "--device",
            device,
        ]
        .map(String::from)
    };
    let off = [("RVALUE_GPU", "off")];
    let o = run_env(&args("gpu").each_ref().map(String::as_str), &off);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A build without the `gpu` feature has no GPU path at all, and says so instead.
    let why = if cfg!(feature = "gpu") { "no GPU adapter" } else { "this build has no GPU support" };
    assert!(err.starts_with(&format!("rvalue: GPU: {why}")), "{err}");
    let auto = run_env(&args("auto").each_ref().map(String::as_str), &off);
    assert_eq!(auto.status.code(), Some(0), "{}", stderr(&auto));
    assert_eq!(stdout(&auto), ok(&args("cpu")));
    // The device is irrelevant where nothing ranks draws, and refused when it is not a device.
    let bad_device = bad(&["conformal", "--scores", &scores, "--alpha", "0.1", "--device", "tpu"]);
    assert!(bad_device.contains("tpu"), "{bad_device}");
}

/// A score file of more than 2^28 elements (sparse: a header, a few items written, the rest
/// zeros that cost no disk) is streamed for pooled CP_r on the GPU as on the CPU, with the same
/// output. Its shape keeps the work small: 64 candidates, 32,766 draws, 128 calibration items
/// and one test item.
#[cfg(feature = "gpu")]
#[test]
fn device_gpu_streams_pooled_cp_r_past_the_memory_cap() {
    use std::io::{Seek, SeekFrom, Write};
    let (n, m, k) = (129usize, 32_766usize, 64usize);
    assert!(n * m * k > 1 << 28);
    let dir = tmp_dir("device-past-the-cap");
    let scores = dir.join("sparse.npy");
    let header = write_npy_f32(&[n, m, k], &[]);
    let mut f = std::fs::File::create(&scores).unwrap();
    f.write_all(&header).unwrap();
    f.set_len((header.len() + n * m * k * 4) as u64).unwrap();
    // Seeded scores, many tied, for two calibration items and the test item.
    for item in [0, 5, n - 1] {
        let values: Vec<f32> = (0..m * k).map(|i| ((i * 7919 + item * 31) % 13) as f32 * 0.25).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        f.seek(SeekFrom::Start((header.len() + item * m * k * 4) as u64)).unwrap();
        f.write_all(&bytes).unwrap();
    }
    drop(f);
    let labels = dir.join("labels.npy");
    std::fs::write(&labels, write_npy_i64(&[n], &(0..n).map(|i| (i % k) as i64).collect::<Vec<_>>()))
        .unwrap();
    let mask = dir.join("mask.npy");
    std::fs::write(&mask, write_npy_bool(&[n], &(0..n).map(|i| i + 1 < n).collect::<Vec<_>>())).unwrap();
    let (scores, labels, mask) = (scores.to_str().unwrap(), labels.to_str().unwrap(), mask.to_str().unwrap());
    let conformal = |device: &str, ties: &str| {
        run(&[
            "conformal",
            "--scores",
            scores,
            "--labels",
            labels,
            "--split",
            mask,
            "--alpha",
            "0.1",
            "--method",
            "cp-r",
            "--rvalue",
            "pooled",
            "--ties",
            ties,
            "--device",
            device,
        ])
    };
    for ties in ["exchangeable", "index"] {
        let gpu = conformal("gpu", ties);
        if gpu.status.code() != Some(0) && may_skip_gpu() {
            return;
        }
        assert_eq!(gpu.status.code(), Some(0), "{ties}: {}", stderr(&gpu));
        let cpu = conformal("cpu", ties);
        assert_eq!(cpu.status.code(), Some(0), "{ties}: {}", stderr(&cpu));
        assert_eq!(stdout(&gpu), stdout(&cpu), "{ties}");
        assert!(stdout(&gpu).lines().count() == 2, "{}", stdout(&gpu));
    }
    std::fs::remove_file(scores).unwrap();
}

/// No display environment (as in a container or over ssh): Vulkan's layers must print nothing,
/// so stderr holds only the program's own lines, and the output is the CPU's. `auto` (which
/// here finds no hardware GPU) and, with the `gpu` feature, `gpu` (which opens lavapipe), both
/// subcommands, both rank-based r-values.
#[test]
fn devices_keep_stderr_clean_without_a_display() {
    let dir = tmp_dir("device-quiet");
    let mask = digits_mask_file(&dir);
    let scores = digits_npz();
    let devices: &[&str] = if cfg!(feature = "gpu") { &["auto", "gpu"] } else { &["auto"] };
    // The output, or None when `gpu` found no adapter and GPU tests may be skipped.
    let quiet = |args: &[&str], device: &str| -> Option<String> {
        let o = Command::new(BIN)
            .args(args)
            .args(["--device", device])
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DISPLAY")
            .env_remove("NODEVICE_SELECT")
            .output()
            .expect("the rvalue binary runs");
        let err = stderr(&o);
        #[cfg(feature = "gpu")]
        if device == "gpu" && o.status.code() != Some(0) && may_skip_gpu() {
            return None;
        }
        assert_eq!(o.status.code(), Some(0), "{args:?} on {device}: {err}");
        assert!(err.lines().all(|l| l.starts_with("rvalue")), "{args:?} on {device}: {err}");
        Some(stdout(&o))
    };
    for kind in ["nonparametric", "pooled"] {
        let args = [
            "conformal",
            "--scores",
            &scores,
            "--alpha",
            "0.1",
            "--splits",
            "2",
            "--rvalue",
            kind,
            "--method",
            "cp-r",
        ];
        let cpu = ok(&[&args[..], &["--device", "cpu"]].concat());
        let out = dir.join(format!("sets_{kind}.csv"));
        let out = out.to_str().unwrap();
        let sets = [
            "sets", "--scores", &scores, "--alpha", "0.1", "--split", &mask, "--rvalue", kind, "--output",
            out,
        ];
        for &device in devices {
            if let Some(got) = quiet(&args, device) {
                assert_eq!(got, cpu, "{kind} on {device}");
            }
            quiet(&sets, device);
        }
    }
}

/// `--threads` changes who computes, never what: `conformal` over several splits and `sets` on
/// one split (its test items in chunks) give the same bytes on 1 and 3 threads, for every kind
/// of r-value.
#[test]
fn threads_give_the_same_output_byte_for_byte() {
    let dir = tmp_dir("threads");
    let mask = digits_mask_file(&dir);
    let scores = digits_npz();
    for kind in ["parametric", "nonparametric", "pooled"] {
        let conformal = |threads: &str| {
            ok(&[
                "conformal",
                "--scores",
                &scores,
                "--alpha",
                "0.1",
                "--splits",
                "3",
                "--rvalue",
                kind,
                "--device",
                "cpu",
                "--threads",
                threads,
            ])
        };
        assert_eq!(conformal("1"), conformal("3"), "{kind}: conformal");
        let sets = |threads: &str| {
            let out = dir.join(format!("sets_{kind}_{threads}.csv"));
            let out_s = out.to_str().unwrap();
            ok(&[
                "sets",
                "--scores",
                &scores,
                "--alpha",
                "0.1",
                "--split",
                &mask,
                "--rvalue",
                kind,
                "--device",
                "cpu",
                "--threads",
                threads,
                "--output",
                out_s,
            ]);
            std::fs::read(out).unwrap()
        };
        let one = sets("1");
        assert!(one.len() > 1000, "{kind}: sets has rows");
        assert_eq!(one, sets("3"), "{kind}: sets");
    }
    let zero = bad(&["conformal", "--scores", &scores, "--alpha", "0.1", "--threads", "0"]);
    assert!(zero.contains("threads"), "{zero}");
}

// ---------------------------------------------------------------------------------------------
// tie order

/// The pooled reference case as files: paths of scores, labels and mask, α, and the expected
/// set of each test item.
struct PooledTiny {
    scores: String,
    labels: String,
    mask: String,
    alpha: f64,
    expected: Vec<(usize, Vec<usize>)>,
}

/// `tests/data/reference/pooled_tiny.json` as `.npy` files in `dir`.
fn pooled_tiny_files(dir: &Path) -> PooledTiny {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(path("tests/data/reference/pooled_tiny.json")).unwrap(),
    )
    .unwrap();
    let scores = v["scores"].as_array().unwrap();
    let (n, m, k) =
        (scores.len(), scores[0].as_array().unwrap().len(), scores[0][0].as_array().unwrap().len());
    let data: Vec<f64> = scores
        .iter()
        .flat_map(|i| i.as_array().unwrap().iter())
        .flat_map(|d| d.as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .collect();
    let labels: Vec<i64> = v["labels"].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect();
    let mask: Vec<bool> = v["calibration"].as_array().unwrap().iter().map(|x| x.as_bool().unwrap()).collect();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let expected = v["test_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let set = e["set"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
            (e["item"].as_u64().unwrap() as usize, set)
        })
        .collect();
    PooledTiny {
        scores: write("scores.npy", write_npy_f64(&[n, m, k], &data)),
        labels: write("labels.npy", write_npy_i64(&[n], &labels)),
        mask: write("mask.npy", write_npy_bool(&[n], &mask)),
        alpha: v["alpha"].as_f64().unwrap(),
        expected,
    }
}

/// The sets `rvalue sets` writes for CP_r, per test item (candidates ascending).
fn cp_r_sets(csv: &str) -> BTreeMap<usize, Vec<usize>> {
    let mut sets: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[0] == "cp-r" {
            // Every test item has a row; an empty set's has no candidate.
            let set = sets.entry(f[1].parse().unwrap()).or_default();
            set.extend(f[2].parse::<usize>().ok());
        }
    }
    sets.values_mut().for_each(|s| s.sort_unstable());
    sets
}

#[test]
fn sets_with_index_ties_reproduce_the_pooled_reference() {
    let dir = tmp_dir("pooled_tiny");
    let PooledTiny { scores, labels, mask, alpha, expected } = pooled_tiny_files(&dir);
    let sets = |ties: &str, seed: &str| {
        let out = dir.join(format!("sets_{ties}_{seed}.csv"));
        let alpha = alpha.to_string();
        ok(&[
            "sets",
            "--scores",
            &scores,
            "--labels",
            &labels,
            "--split",
            &mask,
            "--alpha",
            &alpha,
            "--method",
            "cp-r",
            "--rvalue",
            "pooled",
            "--ties",
            ties,
            "--seed",
            seed,
            "--output",
            out.to_str().unwrap(),
        ]);
        cp_r_sets(&std::fs::read_to_string(out).unwrap())
    };
    let index = sets("index", "0");
    assert_eq!(index.len(), expected.len(), "a row for every test item");
    for (item, want) in &expected {
        assert_eq!(index[item], *want, "item {item}");
    }
    // The index order needs no seed; the exchangeable order is the default and follows the seed.
    assert_eq!(sets("index", "9"), index);
    let exchangeable = sets("exchangeable", "0");
    assert_eq!(exchangeable, sets("exchangeable", "0"));
    let others: Vec<_> = (1..6).map(|s| sets("exchangeable", &s.to_string())).collect();
    assert!(others.iter().any(|o| *o != exchangeable), "the seed changes the tie order");
    let e = bad(&[
        "sets", "--scores", &scores, "--labels", &labels, "--split", &mask, "--alpha", "0.1", "--output",
        "x.csv", "--ties", "random",
    ]);
    assert!(e.contains("random") && e.contains("exchangeable"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// float16 files

/// A float16 file gives the output of the float32 file of the same (widened) values, byte for
/// byte: the digits sample rounded to float16 (by the `half` crate), every method, r-value kind,
/// tie order and prior, in `conformal`, `sets` and `predict`; and numpy's own float16 fixture
/// gives its float32 twin's output.
#[test]
fn float16_files_give_the_float32_files_output() {
    let dir = tmp_dir("float16");
    let d = read_scores("digits", &std::fs::read(digits_npz()).unwrap()).unwrap();
    let t = &d.scores;
    let shape = [t.n(), t.m(), t.k()];
    let bits: Vec<u16> = t.data().iter().map(|&x| half::f16::from_f64(x).to_bits()).collect();
    let wide: Vec<f32> = bits.iter().map(|&h| half::f16::from_bits(h).to_f32()).collect();
    let file = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let f16 = file("f16.npy", write_npy_f16_bits(&shape, &bits));
    let f32 = file("f32.npy", write_npy_f32(&shape, &wide));
    let labels: Vec<i64> = d.labels.unwrap().iter().map(|&y| y as i64).collect();
    let y = file("y.npy", write_npy_i64(&[DIGITS_N], &labels));
    let mask = digits_mask_file(&dir);
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for rvalue in ["parametric", "nonparametric", "pooled"] {
        for ties in ["exchangeable", "index"] {
            runs.push(vec!["conformal", "--splits", "3", "--rvalue", rvalue, "--ties", ties]);
            runs.push(vec![
                "sets",
                "--split",
                &mask,
                "--method",
                "cp-r,cp,cp-avg",
                "--rvalue",
                rvalue,
                "--ties",
                ties,
            ]);
        }
    }
    runs.push(vec!["conformal", "--splits", "3", "--prior", "pooled", "--variance", "of-mean"]);
    runs.push(vec!["conformal", "--splits", "2", "--rvalue", "pooled", "--threads", "2"]);
    let sets = dir.join("sets.csv");
    for args in &runs {
        let common =
            ["--labels", &y, "--alpha", "0.1", "--device", "cpu", "--output", sets.to_str().unwrap()];
        // conformal writes to stdout, sets to its --output.
        let common = if args[0] == "sets" { &common[..] } else { &common[..6] };
        let with = |scores: &str| {
            let stdout = ok(&[&args[..1], &["--scores", scores], &args[1..], common].concat());
            if args[0] == "sets" {
                std::fs::read_to_string(&sets).unwrap()
            } else {
                stdout
            }
        };
        let (got, want) = (with(&f16), with(&f32));
        assert!(want.lines().count() > 2, "{args:?}: {want}");
        assert_eq!(got, want, "{args:?}");
    }
    // predict: float16 calibration items, float32 new items, and the other way round.
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let predict = |cal: &str, test: &str, o: &str| {
        let args =
            ["predict", "--calibration", cal, "--calibration-labels", &y, "--test", test, "--output", o];
        ok(&[&args[..], &["--alpha", "0.1", "--rvalue", "pooled", "--device", "cpu"]].concat());
        std::fs::read(o).unwrap()
    };
    let want = predict(&f32, &f32, &out("p32.csv"));
    assert_eq!(predict(&f16, &f16, &out("p16.csv")), want);
    assert_eq!(predict(&f16, &f32, &out("p16_32.csv")), want);
    assert_eq!(predict(&f32, &f16, &out("p32_16.csv")), want);
    // numpy's float16 archive and its float32 twin hold the same scores and labels.
    let fixture = |name: &str| {
        let args = ["conformal", "--scores", &path(&format!("tests/data/io/{name}")), "--alpha", "0.3"];
        ok(&[&args[..], &["--splits", "5", "--device", "cpu"]].concat())
    };
    assert_eq!(fixture("data_f2.npz"), fixture("data_compressed.npz"));
}
