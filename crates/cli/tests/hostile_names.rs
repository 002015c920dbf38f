//! Class names from an `.npz` (`class_names`) that would be markup, break a CSV row or end a
//! JSON string: the command line accepts the file, and its outputs carry no text from it
//! (its per-class output is `class_coverage`/`class_count`, by class index), so they parse
//! (CSV rows of the header's width, JSON by a JSON parser) to the numbers of the same file
//! without names.
#![cfg(not(target_arch = "wasm32"))]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../tests/common/files.rs"]
mod common;
use rvalue_core::io::crc32;

use std::path::Path;
use std::process::Command;

use common::{npy, npy_header, zip, ZipMember};
use rvalue_core::io::{write_npy_f64, write_npy_i64};

const BIN: &str = env!("CARGO_BIN_EXE_rvalue");

const HOSTILE: [&str; 5] = [
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(2)</script>",
    "\"><svg onload=alert(3)>",
    "a,b\",\"c\\\"d",
    "line}]{\"x\": [",
];

/// `names` as numpy writes a string array: `<U{width}`, UTF-32 little-endian, zero-padded.
fn text_npy(names: &[&str]) -> Vec<u8> {
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(1).max(1);
    let mut data = Vec::new();
    for n in names {
        let chars: Vec<char> = n.chars().collect();
        for i in 0..width {
            data.extend(u32::from(chars.get(i).copied().unwrap_or('\0')).to_le_bytes());
        }
    }
    npy(1, &npy_header(&format!("<U{width}"), &format!("({},)", names.len())), &data)
}

/// A small score file of 5 classes, with `names` as its `class_names` if given.
fn archive(names: Option<&[&str]>) -> Vec<u8> {
    let (n, m, k) = (60, 4, 5);
    let scores: Vec<f64> = (0..n * m * k).map(|i| ((i * 7919) % 101) as f64 / 10.0).collect();
    let labels: Vec<i64> = (0..n as i64).map(|i| i % k as i64).collect();
    let mut members = vec![
        ZipMember::stored("scores.npy", write_npy_f64(&[n, m, k], &scores)),
        ZipMember::stored("labels.npy", write_npy_i64(&[n], &labels)),
    ];
    if let Some(names) = names {
        members.push(ZipMember::stored("class_names.npy", text_npy(names)));
    }
    zip(&members)
}

fn run(file: &Path, format: &str) -> String {
    let o = Command::new(BIN)
        .args([
            "conformal",
            "--scores",
            file.to_str().unwrap(),
            "--splits",
            "2",
            "--method",
            "cp,aps",
            "--alpha",
            "0.1",
        ])
        .args(["--coverage", "per-class", "--format", format])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn hostile_class_names_leave_the_csv_and_json_outputs_as_they_are() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile_names");
    std::fs::create_dir_all(&dir).unwrap();
    let (named, plain) = (dir.join("named.npz"), dir.join("plain.npz"));
    std::fs::write(&named, archive(Some(&HOSTILE))).unwrap();
    std::fs::write(&plain, archive(None)).unwrap();
    let csv = run(&named, "csv");
    assert_eq!(csv, run(&plain, "csv"));
    let mut lines = csv.lines();
    let width = lines.next().unwrap().split(',').count();
    for line in lines {
        assert!(!line.contains('"'), "{line}");
        assert_eq!(line.split(',').count(), width, "{line}");
    }
    let json: serde_json::Value = serde_json::from_str(&run(&named, "json")).unwrap();
    let plain_json: serde_json::Value = serde_json::from_str(&run(&plain, "json")).unwrap();
    assert_eq!(json, plain_json);
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["class_count"].as_array().unwrap().len(), HOSTILE.len());
        let text: Vec<&str> = row.as_object().unwrap().values().filter_map(|v| v.as_str()).collect();
        assert!(text.iter().all(|t| HOSTILE.iter().all(|h| !t.contains(h))), "{text:?}");
    }
}
