//! `--calibration-true`: calibration given as true-label draws alone gives, byte for byte, what
//! the joined tensor `[calibration items; test items]` gives with the mask of its first items
//! (`sets`, `conformal` with that split, `predict`), for both tie orders; what it cannot do is
//! refused in one line.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rvalue_core::io::{read_scores_file, write_npy_bool, write_npy_f32, write_npy_f64, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the rvalue binary runs")
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The files: the joined tensor and its mask, the calibration items' true-label
/// draws (f64 and f32), the test items and their labels. The first 240 digits, calibration
/// and test items interleaved in the original order, joined calibration first.
struct Files {
    dir: PathBuf,
    joined: String,
    labels: String,
    mask: String,
    true_draws: String,
    true_draws32: String,
    test: String,
    test_labels: String,
}

fn files(name: &str) -> Files {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calibration-true").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let d = read_scores_file(&Path::new(ROOT).join("assets/digits_wbb.npz")).unwrap();
    let (t, labels) = (&d.scores, d.labels.unwrap());
    let (m, k) = (t.m(), t.k());
    let cal: Vec<usize> = (0..240).filter(|i| i % 3 != 1).collect();
    let test: Vec<usize> = (0..240).filter(|i| i % 3 == 1).collect();
    let rows = |items: &[usize]| -> Vec<f64> {
        items.iter().flat_map(|&i| t.items(i..i + 1).data().into_owned()).collect()
    };
    let ints = |items: &[usize]| -> Vec<i64> { items.iter().map(|&i| labels[i] as i64).collect() };
    let joined: Vec<usize> = cal.iter().chain(&test).copied().collect();
    let truth: Vec<f64> = cal
        .iter()
        .flat_map(|&i| (0..m).map(move |dr| (i, dr)))
        .map(|(i, dr)| t.get(i, dr, labels[i]))
        .collect();
    let write = |file: &str, bytes: Vec<u8>| {
        let p = dir.join(file);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let n = joined.len();
    Files {
        joined: write("joined.npy", write_npy_f64(&[n, m, k], &rows(&joined))),
        labels: write("labels.npy", write_npy_i64(&[n], &ints(&joined))),
        mask: write("mask.npy", write_npy_bool(&[n], &(0..n).map(|i| i < cal.len()).collect::<Vec<_>>())),
        true_draws: write("true.npy", write_npy_f64(&[cal.len(), m], &truth)),
        true_draws32: write(
            "true_draws32.npy",
            write_npy_f32(&[cal.len(), m], &truth.iter().map(|&x| x as f32).collect::<Vec<_>>()),
        ),
        test: write("test.npy", write_npy_f64(&[test.len(), m, k], &rows(&test))),
        test_labels: write("test_labels.npy", write_npy_i64(&[test.len()], &ints(&test))),
        dir,
    }
}

/// `sets` rows with the items counted from the first test item (the joined file's are shifted).
fn shifted(csv: &str, by: usize) -> String {
    let mut out = String::new();
    for (i, line) in csv.lines().enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        if i == 0 {
            out.push_str(line);
        } else {
            let item: usize = f[1].parse().unwrap();
            out.push_str(&format!("{},{},{},{},{}", f[0], item - by, f[2], f[3], f[4]));
        }
        out.push('\n');
    }
    out
}

#[test]
fn sets_and_conformal_on_true_draws_are_the_joined_splits() {
    let f = files("sets");
    let n_cal = 160;
    let out = |n: &str| f.dir.join(n).to_str().unwrap().to_string();
    for extra in [&["--ties", "exchangeable"][..], &["--ties", "index", "--seed", "3", "--cp-draw", "4"]] {
        let common = [
            &["--alpha", "0.1", "--method", "cp,cp-avg,cp-r", "--rvalue", "pooled", "--device", "cpu"][..],
            extra,
        ]
        .concat();
        let (joined_sets, true_draws_sets) = (out("joined.csv"), out("true.csv"));
        ok(&[
            &[
                "sets",
                "--scores",
                &f.joined,
                "--labels",
                &f.labels,
                "--split",
                &f.mask,
                "--output",
                &joined_sets,
            ][..],
            &common,
        ]
        .concat());
        let want = shifted(&std::fs::read_to_string(&joined_sets).unwrap(), n_cal);
        for true_draws in [&f.true_draws, &f.true_draws32] {
            let args = [
                "sets",
                "--scores",
                &f.test,
                "--labels",
                &f.test_labels,
                "--calibration-true",
                true_draws,
                "--output",
                &true_draws_sets,
            ];
            ok(&[&args[..], &common].concat());
            let got = std::fs::read_to_string(&true_draws_sets).unwrap();
            // The f32 true draws hold the same values: every f64 digit score is an f32.
            assert_eq!(got, want, "{true_draws} {extra:?}");
        }
        let joined = ok(&[
            &["conformal", "--scores", &f.joined, "--labels", &f.labels, "--split", &f.mask][..],
            &common,
        ]
        .concat());
        let true_draws = ok(&[
            &[
                "conformal",
                "--scores",
                &f.test,
                "--labels",
                &f.test_labels,
                "--calibration-true",
                &f.true_draws,
            ][..],
            &common,
        ]
        .concat());
        assert_eq!(true_draws, joined, "{extra:?}");
    }
}

#[test]
fn random_true_draw_splits_are_seeded_and_sized() {
    let f = files("splits");
    let base = [
        "conformal",
        "--scores",
        &f.test,
        "--labels",
        &f.test_labels,
        "--calibration-true",
        &f.true_draws,
        "--alpha",
        "0.1",
        "--rvalue",
        "pooled",
    ];
    let sized = [&base[..], &["--cal-size", "100", "--test-size", "50", "--splits", "4"]].concat();
    let a = ok(&sized);
    assert_eq!(a, ok(&sized), "seeded");
    // `splits` is the ninth column.
    let splits = |out: &str| out.lines().nth(1).and_then(|l| l.split(',').nth(8)).map(str::to_string);
    assert_eq!(splits(&a).as_deref(), Some("4"), "four splits: {a}");
    assert_ne!(a, ok(&[&sized[..], &["--seed", "1"]].concat()));
    let all = ok(&base);
    assert_eq!(splits(&all).as_deref(), Some("1"), "one split of everything: {all}");
}

#[test]
fn predict_with_true_draws_is_predict_with_the_calibration_items() {
    let f = files("predict");
    // The calibration items as their own file: the joined file's first 160.
    let d = read_scores_file(Path::new(&f.joined)).unwrap();
    let t = &d.scores;
    let cal = f.dir.join("cal.npy");
    std::fs::write(&cal, write_npy_f64(&[160, t.m(), t.k()], &t.items(0..160).data())).unwrap();
    let cal_labels = f.dir.join("cal_labels.npy");
    let l = rvalue_core::io::read_labels("l", &std::fs::read(&f.labels).unwrap(), t.n(), t.k()).unwrap();
    std::fs::write(
        &cal_labels,
        write_npy_i64(&[160], &l[..160].iter().map(|&y| y as i64).collect::<Vec<_>>()),
    )
    .unwrap();
    for method in ["cp", "cp-avg", "cp-r"] {
        let (a, b) = (f.dir.join("a.csv"), f.dir.join("b.csv"));
        let common = [
            "--alpha", "0.1", "--method", method, "--rvalue", "pooled", "--test", &f.test, "--device", "cpu",
        ];
        ok(&[
            &[
                "predict",
                "--calibration",
                cal.to_str().unwrap(),
                "--calibration-labels",
                cal_labels.to_str().unwrap(),
                "--output",
                a.to_str().unwrap(),
            ][..],
            &common,
        ]
        .concat());
        ok(&[
            &["predict", "--calibration-true", &f.true_draws, "--output", b.to_str().unwrap()][..],
            &common,
        ]
        .concat());
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "{method}");
    }
}

#[test]
fn what_true_draws_cannot_do_is_one_line() {
    let f = files("bad");
    let bad = |args: &[&str]| {
        let o = run(args);
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let base = ["conformal", "--scores", &f.test, "--labels", &f.test_labels, "--alpha", "0.1"];
    let e = bad(&[&base[..], &["--calibration-true", &f.true_draws]].concat());
    assert!(e.contains("parametric CP_r needs every candidate's draws"), "{e}");
    let e = bad(&[&base[..], &["--calibration-true", &f.true_draws, "--rvalue", "nonparametric"]].concat());
    assert!(e.contains("nonparametric CP_r needs every candidate's draws"), "{e}");
    let e = bad(&[&base[..], &["--calibration-true", &f.test, "--method", "cp"]].concat());
    assert!(e.contains("expected [n_cal, M]"), "{e}");
    let e = bad(&[
        &base[..],
        &["--calibration-true", &f.true_draws, "--method", "cp", "--cal-size", "500", "--test-size", "10"],
    ]
    .concat());
    assert!(e.contains("does not fit"), "{e}");
    let e = bad(&[&base[..], &["--calibration-true", &f.true_draws, "--split", &f.mask]].concat());
    assert!(e.contains("cannot be used with"), "{e}");
    let e = bad(&[&base[..], &["--cal-size", "5", "--test-size", "5", "--method", "cp"]].concat());
    assert!(e.contains("--calibration-true"), "{e}");
}

/// `--device gpu` ranks the true draws' pooled CP_r test items on the GPU (lavapipe here): `sets`,
/// `conformal` (sized splits) and `predict` give the CPU's bytes, for both tie orders.
#[cfg(feature = "gpu")]
#[test]
fn true_draws_on_the_gpu_give_the_cpu_output() {
    let f = files("gpu");
    let out = |n: &str| f.dir.join(n).to_str().unwrap().to_string();
    let may_skip = std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1");
    for ties in ["exchangeable", "index"] {
        let on = |device: &str, args: &[&str]| -> Option<String> {
            let common = ["--alpha", "0.1", "--rvalue", "pooled", "--ties", ties, "--device", device];
            let o = run(&[args, &common[..]].concat());
            if o.status.code() != Some(0) && may_skip && device == "gpu" {
                return None;
            }
            assert_eq!(o.status.code(), Some(0), "{args:?} {device}: {}", String::from_utf8_lossy(&o.stderr));
            Some(String::from_utf8(o.stdout).unwrap())
        };
        let true_draws = ["--calibration-true", f.true_draws.as_str()];
        let test = ["--scores", f.test.as_str(), "--labels", f.test_labels.as_str()];
        let sized = ["--cal-size", "120", "--test-size", "50", "--splits", "3"];
        let conformal = [&["conformal"][..], &test, &true_draws, &sized].concat();
        let Some(gpu) = on("gpu", &conformal) else { return };
        assert_eq!(gpu, on("cpu", &conformal).unwrap(), "conformal {ties}");
        for (command, file) in [("sets", "sets"), ("predict", "predict")] {
            let written = |device: &str| {
                let path = out(&format!("{file}_{ties}_{device}.csv"));
                let args = match command {
                    "sets" => [&["sets"][..], &test, &true_draws, &["--output", &path]].concat(),
                    _ => [&["predict", "--test", f.test.as_str()][..], &true_draws, &["--output", &path]]
                        .concat(),
                };
                on(device, &args).unwrap();
                std::fs::read_to_string(&path).unwrap()
            };
            let cpu = written("cpu");
            assert!(cpu.lines().count() > 50, "{command} has rows");
            assert_eq!(written("gpu"), cpu, "{command} {ties}");
        }
    }
}

/// `--coverage per-class` with true draws needs the true draws' classes (`--calibration-labels`): with
/// them, `sets`, `conformal` and `predict` give the joined split's per-class output (on the GPU
/// too); without them, one line says why not.
#[test]
fn true_draws_with_their_classes_are_the_joined_split_per_class() {
    let f = files("per_class");
    let l = rvalue_core::io::read_labels("l", &std::fs::read(&f.labels).unwrap(), 240, 10).unwrap();
    let true_labels = f.dir.join("true_labels.npy").to_str().unwrap().to_string();
    let ints: Vec<i64> = l[..160].iter().map(|&y| y as i64).collect();
    std::fs::write(&true_labels, write_npy_i64(&[160], &ints)).unwrap();
    let out = |n: &str| f.dir.join(n).to_str().unwrap().to_string();
    let common =
        ["--alpha", "0.1", "--method", "cp,cp-avg,cp-r", "--rvalue", "pooled", "--coverage", "per-class"];
    let (joined_sets, true_draws_sets) = (out("joined.csv"), out("true.csv"));
    let joined = ["--scores", f.joined.as_str(), "--labels", f.labels.as_str(), "--split", f.mask.as_str()];
    ok(&[&["sets", "--output", &joined_sets][..], &joined, &common].concat());
    let want = shifted(&std::fs::read_to_string(&joined_sets).unwrap(), 160);
    let marginal = out("marginal.csv");
    ok(&[&["sets", "--output", &marginal, "--coverage", "marginal"][..], &joined, &common[..6]].concat());
    assert_ne!(std::fs::read_to_string(&marginal).unwrap(), std::fs::read_to_string(&joined_sets).unwrap());
    let test = ["--scores", f.test.as_str(), "--labels", f.test_labels.as_str()];
    let true_draws =
        ["--calibration-true", f.true_draws.as_str(), "--calibration-labels", true_labels.as_str()];
    let may_skip = std::env::var("RVALUE_SKIP_GPU_TESTS").is_ok_and(|v| v == "1");
    for device in ["cpu", "gpu"] {
        if device == "gpu" && (may_skip || !cfg!(feature = "gpu")) {
            continue;
        }
        let dev = ["--device", device];
        ok(&[&["sets", "--output", &true_draws_sets][..], &test, &true_draws, &common, &dev].concat());
        assert_eq!(std::fs::read_to_string(&true_draws_sets).unwrap(), want, "sets on {device}");
        let c_joined = ok(&[&["conformal"][..], &joined, &common, &dev].concat());
        assert_eq!(
            ok(&[&["conformal"][..], &test, &true_draws, &common, &dev].concat()),
            c_joined,
            "{device}"
        );
    }
    // predict: the true draws with their classes against the calibration items' file.
    let (a, b) = (out("a.csv"), out("b.csv"));
    let d = read_scores_file(Path::new(&f.joined)).unwrap();
    let cal = out("cal.npy");
    std::fs::write(&cal, write_npy_f64(&[160, d.scores.m(), d.scores.k()], &d.scores.items(0..160).data()))
        .unwrap();
    let one = [
        "--alpha",
        "0.1",
        "--method",
        "cp-r",
        "--rvalue",
        "pooled",
        "--coverage",
        "per-class",
        "--test",
        &f.test,
    ];
    ok(&[
        &["predict", "--calibration", &cal, "--calibration-labels", &true_labels, "--output", &a][..],
        &one,
    ]
    .concat());
    ok(&[&["predict", "--output", &b][..], &true_draws, &one].concat());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Without the true draws' classes: one line, for each command.
    for args in [
        [&["conformal"][..], &test, &true_draws[..2], &common].concat(),
        [&["sets", "--output", &true_draws_sets][..], &test, &true_draws[..2], &common].concat(),
        [&["predict", "--output", &b][..], &true_draws[..2], &one].concat(),
    ] {
        let o = run(&args);
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--coverage per-class needs the class of every calibration item"), "{err}");
        assert!(err.contains("--calibration-labels"), "{err}");
    }
}

/// The authors' procedure (their greedy after a stable argsort of every draw's units, the index
/// tie order), run beside this project, never part of it: `RVALUE_AUTHORS_DIR` names the
/// directory of its `authors_pooled.py` and `RVALUE_AUTHORS_PYTHON` a Python with numpy and
/// numba (default `target/authors-venv`). Its pooled CP_r sets of the joined digits file equal
/// `sets --ties index`'s, from the joined split and from the true draws, at several α.
#[test]
#[ignore = "runs the authors' procedure: set RVALUE_AUTHORS_DIR (and RVALUE_AUTHORS_PYTHON)"]
fn pooled_sets_are_the_authors_under_index_ties() {
    let dir = PathBuf::from(std::env::var_os("RVALUE_AUTHORS_DIR").expect("RVALUE_AUTHORS_DIR is set"));
    let python = std::env::var_os("RVALUE_AUTHORS_PYTHON")
        .map_or(Path::new(ROOT).join("target/authors-venv/bin/python"), PathBuf::from);
    let f = files("authors");
    let n_cal = 160;
    for alpha in ["0.05", "0.1", "0.3"] {
        let out = f.dir.join("authors_sets.npy");
        let o = Command::new(&python)
            .arg(dir.join("authors_pooled.py"))
            .args([&f.joined, &f.labels, &f.mask, alpha, out.to_str().unwrap()])
            .output()
            .expect("python runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let listing = "import sys, numpy as np\n\
                       for t, c in zip(*np.nonzero(np.load(sys.argv[1]))): print(f'{t},{c}')\n";
        let o = Command::new(&python).args(["-c", listing, out.to_str().unwrap()]).output().unwrap();
        let theirs = String::from_utf8(o.stdout).unwrap();
        let common = ["--alpha", alpha, "--method", "cp-r", "--rvalue", "pooled", "--ties", "index"];
        let csv = f.dir.join("ours.csv");
        let csv = csv.to_str().unwrap();
        let joined =
            ["sets", "--scores", &f.joined, "--labels", &f.labels, "--split", &f.mask, "--output", csv];
        ok(&[&joined[..], &common].concat());
        let ours = pairs(&std::fs::read_to_string(csv).unwrap(), n_cal);
        assert_eq!(ours, theirs, "joined split, alpha {alpha}");
        let true_draws =
            ["sets", "--scores", &f.test, "--labels", &f.test_labels, "--calibration-true", &f.true_draws];
        ok(&[&true_draws[..], &common, &["--output", csv]].concat());
        assert_eq!(pairs(&std::fs::read_to_string(csv).unwrap(), 0), theirs, "pool, alpha {alpha}");
    }
}

/// `sets` rows as `test item,candidate` lines, items counted from the first test item.
fn pairs(csv: &str, first: usize) -> String {
    let mut out: Vec<(usize, usize)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].parse::<usize>().unwrap() - first, f[2].parse().unwrap())
        })
        .collect();
    out.sort_unstable();
    out.iter().map(|(t, c)| format!("{t},{c}\n")).collect()
}

/// The authors' ImageNet layout at its full test size: float16 test items `[10000, 1000, 1000]`
/// (20 GB, sparse: a header and a truncate, zeros that cost no disk) against float16 true draws of
/// 4,000 units. Pooled CP_r on two test items streams the file: the process's peak stays
/// within the split's tables and a little more, far below the file's size.
#[test]
fn pooled_cp_r_streams_the_full_test_file() {
    use std::io::Write;
    let (n, m, k, n_true) = (10_000usize, 1000usize, 1000usize, 4000usize);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("calibration-true").join("full-test-size");
    std::fs::create_dir_all(&dir).unwrap();
    let test = dir.join("test.npy");
    let header = rvalue_core::io::write_npy_f16_bits(&[n, m, k], &[]);
    let mut file = std::fs::File::create(&test).unwrap();
    file.write_all(&header).unwrap();
    file.set_len((header.len() + n * m * k * 2) as u64).unwrap();
    drop(file);
    let labels = dir.join("labels.npy");
    std::fs::write(&labels, write_npy_i64(&[n], &(0..n).map(|i| (i % k) as i64).collect::<Vec<_>>()))
        .unwrap();
    // Seeded float16 scores in [0, 2): the zeros of the test file tie none of them.
    let bits: Vec<u16> = (0..n_true * m).map(|i| 0x3c00 + ((i * 7919) % 1024) as u16).collect();
    let true_draws = dir.join("true.npy");
    std::fs::write(&true_draws, rvalue_core::io::write_npy_f16_bits(&[n_true, m], &bits)).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let args = [
        "conformal",
        "--alpha",
        "0.05",
        "--method",
        "cp-r",
        "--rvalue",
        "pooled",
        "--splits",
        "1",
        "--device",
        "cpu",
        "--threads",
        "2",
        "--cal-size",
        "4000",
        "--test-size",
        "2",
    ];
    let files = [
        "--scores".into(),
        s(&test),
        "--labels".into(),
        s(&labels),
        "--calibration-true".into(),
        s(&true_draws),
    ];
    let mut child = Command::new(BIN)
        .args(args)
        .args(&files)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The peak resident memory (VmHWM) read while the process runs: it only grows.
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    while child.try_wait().unwrap().is_none() {
        if let Ok(text) = std::fs::read_to_string(&status) {
            let hwm = text.lines().find_map(|l| l.strip_prefix("VmHWM:"));
            if let Some(kb) = hwm.and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()) {
                peak_kb = kb;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("method,"));
    // The split's tables (about 28 bytes a unit and draw: 112 MB) and the true draws (8 MB) plus the
    // reading blocks and the two test items' work: a 20 GB file must not show in the peak.
    assert!(peak_kb > 0 && peak_kb < 400_000, "peak {peak_kb} kB");
}
