//! A coverage-free mutational fuzzer for every `io` entry point, in plain Rust so that it
//! runs on stable in `cargo test`. cargo-fuzz needs nightly, which this project does not use.
//!
//! Three readers (npy, npz, csv) each get seeds (the sample files, the numpy fixtures, the corpus
//! in `tests/data/fuzz/`) and mutators that know their format. Every input goes through
//! `read_scores`, `read_scores_from` (which must agree with it), `read_labels`, `read_mask`,
//! `parse_npy` and `parse_npz`, and must:
//! - not panic (caught per input; the input is saved and named);
//! - fail, if it fails, with `Error::Parse` naming the file and a place, on one printable line;
//! - on success give a consistent result (finite scores, labels in range, right lengths);
//! - allocate at most `ALLOC_FACTOR` × its size plus `ALLOC_MARGIN` beyond what was live before
//!   (a thread-local counting allocator), so a header claiming 10¹² elements must be refused
//!   before anything is allocated.
//!
//! Each input is one call per entry point, so work per input is bounded by the readers themselves;
//! the time budget only decides how many inputs are tried, and is never asserted on.
//! `RVALUE_FUZZ_SECONDS` (default 20) is split across the readers, `RVALUE_FUZZ_SEED` fixes the
//! seed (default: from the clock, printed), `RVALUE_FUZZ_SAVE=DIR` saves every input that produced
//! a message never seen before in the run (candidates for `tests/data/fuzz/`).
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashSet;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "common/files.rs"]
mod common;
use common::{npy, zip, ZipMember};
use rvalue_core::io::{crc32, parse_npy, parse_npz, read_labels, read_mask, read_scores, read_scores_from};
use rvalue_core::Error;

// ---------------------------------------------------------------------------------------------
// Counting allocator

/// Thread-local counts, so that tests running in parallel do not see each other's allocations.
struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grow(n: usize) {
    let _ = LIVE.try_with(|l| {
        let v = l.get().saturating_add(n);
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

fn shrink(n: usize) {
    // Memory freed here may have been allocated by another thread: saturate instead of wrapping.
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Old and new block may both exist during the move: count the new one first.
            grow(new_size);
            shrink(layout.size());
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak bytes allocated by `f` beyond what was live when it started, on this thread.
fn peak_growth<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    (out, PEAK.with(Cell::get).saturating_sub(base))
}

/// The allocation bound per input: readers widen elements to 8 bytes (an `i1` array becomes
/// `i64`, then `f64` scores, then a transposed copy for Fortran order) and a CSV row of 8 bytes
/// becomes a 40-byte record in a doubling vector, so allow 32× the input.
const ALLOC_FACTOR: usize = 32;
/// Error strings, the inflater's state (about 11 KB), small vectors.
const ALLOC_MARGIN: usize = 64 * 1024;

// ---------------------------------------------------------------------------------------------
// Random numbers and interesting values

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const INTERESTING_U64: &[u64] = &[
    0,
    1,
    2,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0xFFFF,
    0x1_0000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
    1 << 28,
    (1 << 28) + 1,
    1 << 31,
    1 << 40,
    1_000_000_000_000,
    u64::MAX / 2,
    u64::MAX,
];

const SHAPES: &[&str] = &[
    "()",
    "(0,)",
    "(1,)",
    "(6,)",
    "(2,)",
    "(6, 4)",
    "(6, 3, 4)",
    "(1, 1, 1)",
    "(1, 1)",
    "(1, 0, 1)",
    "(2, 1, 3)",
    "(1000000000000,)",
    "(1000000000000, 1000000000000)",
    "(268435456,)",
    "(268435457,)",
    "(67108864, 4)",
    "(18446744073709551615,)",
    "(18446744073709551616,)",
    "(4294967296, 4294967296, 2)",
    "(0, 1000000000000000)",
    "(1, 1, 1, 1)",
    "(3, -1)",
    "(3.5,)",
    "(6, 'a')",
    "[6, 4]",
    "((6,),)",
    "6",
    "None",
];

const DTYPES: &[&str] = &[
    "'<f4'",
    "'<f8'",
    "'>f4'",
    "'>f8'",
    "'|b1'",
    "'<i1'",
    "'|u1'",
    "'|i1'",
    "'<i2'",
    "'<u2'",
    "'<i4'",
    "'<u4'",
    "'<i8'",
    "'<u8'",
    "'>i4'",
    "'<f2'",
    "'>f2'",
    "'|f2'",
    "'<c8'",
    "'|O'",
    "'<U5'",
    "'|S3'",
    "'f8'",
    "'=f8'",
    "'|f8'",
    "'<M8[s]'",
    "[('a', '<f4')]",
    "'<f16'",
    "''",
    "'<'",
    "5",
    "'\\x00'",
];

const CSV_TOKENS: &[&str] = &[
    "",
    "0",
    "1",
    "-1",
    "2",
    "9",
    "10",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "1e309",
    "-1e309",
    "1e-320",
    "0x10",
    "1.5",
    "+3",
    " 4 ",
    "\"5\"",
    "\"",
    "abc",
    "1000000000000",
    "268435456",
    "268435455",
    "4294967296",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "١",
    "\u{0}",
    "\t",
    "\r",
    "é",
    "item",
    "label",
];

// ---------------------------------------------------------------------------------------------
// Builders

/// A `.npy` from random header choices, with a data length that mostly fits the header.
fn gen_npy(r: &mut Rng) -> Vec<u8> {
    let descr = *r.pick(DTYPES);
    let shape = if r.chance(3) {
        let dims: Vec<String> = (0..r.below(4)).map(|_| (1 + r.below(7)).to_string()).collect();
        format!("({}{})", dims.join(", "), if dims.len() == 1 { "," } else { "" })
    } else {
        r.pick(SHAPES).to_string()
    };
    let fortran = if r.chance(2) { "True" } else { "False" };
    let header = match r.below(8) {
        0 => format!("{{'shape': {shape}, 'descr': {descr}, 'fortran_order': {fortran}}}"),
        1 => format!("{{'descr': {descr}, 'shape': {shape}}}"),
        _ => format!("{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}"),
    };
    let size = descr.bytes().filter(u8::is_ascii_digit).fold(0usize, |a, d| a * 10 + usize::from(d - b'0'));
    let size = if descr.contains('b') { 1 } else { size.clamp(1, 16) };
    let count: usize = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter_map(|d| d.trim().parse::<usize>().ok())
        .try_fold(1usize, |a, d| a.checked_mul(d))
        .unwrap_or(0);
    let mut len = if count <= 4096 { count * size } else { r.below(64) };
    match r.below(6) {
        0 => len = len.saturating_sub(1),
        1 => len += 1,
        _ => {}
    }
    let floats = [0.0f64, -0.0, 1.0, -1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e308, 5e-324, 3.0];
    // float16 bit patterns: 0, −0, 1, −1.5, NaN, ±∞, the largest, the smallest subnormal, 3.
    let halves = [0u16, 0x8000, 0x3c00, 0xbe00, 0x7e00, 0x7c00, 0xfc00, 0x7bff, 0x0001, 0x4200];
    let mut data = Vec::with_capacity(len);
    while data.len() < len {
        match r.below(3) {
            0 if size == 2 && descr.contains('f') => data.extend_from_slice(&r.pick(&halves).to_le_bytes()),
            0 => data.extend_from_slice(&r.pick(&floats).to_le_bytes()[..size.min(8)]),
            1 => data.extend_from_slice(&(r.below(6) as u64).to_le_bytes()[..size.min(8)]),
            _ => data.push(r.next() as u8),
        }
    }
    data.truncate(len);
    let version = *r.pick(&[1u8, 1, 1, 2, 3]);
    npy(version, &header, &data)
}

/// A complete long-form CSV grid, small.
fn gen_csv(r: &mut Rng) -> Vec<u8> {
    let (n, m, k) = (1 + r.below(4), 1 + r.below(3), 1 + r.below(4));
    let with_label = !r.chance(4);
    let mut s = String::from(if with_label {
        "item,draw,candidate,score,label\n"
    } else {
        "item,draw,candidate,score\n"
    });
    for i in 0..n {
        let label = r.below(k);
        for j in 0..m {
            for c in 0..k {
                let score = (r.below(2000) as f64 - 1000.0) / 100.0;
                s.push_str(&format!("{i},{j},{c},{score}"));
                if with_label {
                    s.push_str(&format!(",{label}"));
                }
                s.push('\n');
            }
        }
    }
    s.into_bytes()
}

fn gen_npz(r: &mut Rng, corpus: &[Vec<u8>]) -> Vec<u8> {
    const NAMES: &[&[u8]] = &[
        b"scores.npy",
        b"labels.npy",
        b"mask.npy",
        b"scores",
        b"labels",
        b"x.npy",
        b"dir/",
        b"",
        b"scores.npy\n\x1b[31m",
        b"\xff\xfe.npy",
    ];
    let count = 1 + r.below(3);
    let members: Vec<ZipMember> = (0..count)
        .map(|i| {
            let name = if i < 2 && !r.chance(5) {
                [b"scores.npy".as_slice(), b"labels.npy"][i].to_vec()
            } else {
                r.pick(NAMES).to_vec()
            };
            let data = if r.chance(2) || corpus.is_empty() {
                gen_npy(r)
            } else {
                let mut d = r.pick(corpus).clone();
                mutate_bytes(r, &mut d, corpus);
                d
            };
            ZipMember {
                name,
                data,
                deflate: r.chance(2),
                zip64: r.chance(3),
                zip64_local: false,
                bad_crc: r.chance(10),
            }
        })
        .collect();
    zip(&members)
}

// ---------------------------------------------------------------------------------------------
// Mutators

fn put_uint(r: &mut Rng, b: &mut [u8], at: usize, width: usize) {
    let mut v = *r.pick(INTERESTING_U64);
    if r.chance(3) {
        // Near the current value: off by one is where length checks fail.
        let mut cur = [0u8; 8];
        cur[..width].copy_from_slice(&b[at..at + width]);
        v = u64::from_le_bytes(cur).wrapping_add(*r.pick(&[1u64, u64::MAX, 2, u64::MAX - 1]));
    }
    b[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
}

fn mutate_bytes(r: &mut Rng, b: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    for _ in 0..1 + r.below(4) {
        let len = b.len();
        match r.below(9) {
            0 if len > 0 => {
                let i = r.below(len);
                b[i] ^= 1 << r.below(8);
            }
            1 if len > 0 => {
                let i = r.below(len);
                b[i] = *r.pick(&[0u8, 0xFF, 0x7F, 0x80, b'0', b'9', b',', b'\n', b'(', b')', b'\'']);
            }
            2 => {
                let i = r.below(len + 1);
                let n = 1 + r.below(8);
                let ins: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
                b.splice(i..i, ins);
            }
            3 if len > 0 => {
                let i = r.below(len);
                let n = (1 + r.below(16)).min(len - i);
                b.drain(i..i + n);
            }
            4 if len > 0 && len < 1 << 16 => {
                let i = r.below(len);
                let n = (1 + r.below(64)).min(len - i);
                let dup = b[i..i + n].to_vec();
                let at = r.below(len + 1);
                b.splice(at..at, dup);
            }
            5 if len > 0 => b.truncate(r.below(len)),
            6 if !corpus.is_empty() => {
                let other = r.pick(corpus);
                let cut = r.below(len + 1);
                let from = r.below(other.len() + 1);
                b.truncate(cut);
                b.extend_from_slice(&other[from..]);
            }
            7 | 8 if len >= 8 => {
                let width = *r.pick(&[2usize, 4, 8]);
                let at = r.below(len - width + 1);
                put_uint(r, b, at, width);
            }
            _ => {}
        }
    }
}

/// Edits the `.npy` header text in place: shape, dtype, order, version, header length.
fn mutate_npy(r: &mut Rng, b: &mut Vec<u8>) {
    if b.len() < 12 || !b.starts_with(b"\x93NUMPY") {
        return;
    }
    let (start, hlen): (usize, usize) = if b[6] == 1 {
        (10, usize::from(u16::from_le_bytes([b[8], b[9]])))
    } else {
        (12, u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize)
    };
    let Some(end) = start.checked_add(hlen).filter(|&e| e <= b.len()) else { return };
    let Ok(header) = std::str::from_utf8(&b[start..end]) else { return };
    let mut h = header.trim_end().to_string();
    let data = b[end..].to_vec();
    let mut version = b[6];
    let replace = |h: &mut String, key: &str, new: &str| {
        if let Some(p) = h.find(key) {
            let vstart = p + key.len();
            let rest = &h[vstart..];
            let vend = match rest.trim_start().as_bytes().first() {
                Some(b'(') | Some(b'[') => rest.find([')', ']']).map_or(rest.len(), |e| e + 1),
                _ => rest.find([',', '}']).unwrap_or(rest.len()),
            };
            h.replace_range(vstart..vstart + vend, &format!(" {new}"));
        }
    };
    match r.below(5) {
        0 => replace(&mut h, "'shape':", r.pick::<&str>(SHAPES)),
        1 => replace(&mut h, "'descr':", r.pick::<&str>(DTYPES)),
        2 => replace(&mut h, "'fortran_order':", r.pick::<&str>(&["True", "False", "1", "None", "'yes'"])),
        3 => version = *r.pick(&[1u8, 2, 3, 0, 4, 255]),
        _ => {
            let i = r.below(h.len() + 1);
            let piece = *r.pick(&["{", "}", "(", ")", "'", ",", ":", "\\", " ", "L", "-", "9", "\u{e9}"]);
            if h.is_char_boundary(i) {
                h.insert_str(i, piece);
            }
        }
    }
    let mut out = npy(if (1..=3).contains(&version) { version } else { 1 }, &h, &data);
    out[6] = version;
    *b = out;
}

/// Sets one header field of a local, central or end record to an interesting value.
fn mutate_zip(r: &mut Rng, b: &mut [u8]) {
    // A record's signature and its fields as (offset, width).
    type Record<'a> = (&'a [u8; 4], &'a [(usize, usize)]);
    let sigs: [Record; 4] = [
        (b"PK\x03\x04", &[(4, 2), (6, 2), (8, 2), (14, 4), (18, 4), (22, 4), (26, 2), (28, 2)]),
        (b"PK\x01\x02", &[(8, 2), (10, 2), (16, 4), (20, 4), (24, 4), (28, 2), (30, 2), (32, 2), (42, 4)]),
        (b"PK\x05\x06", &[(8, 2), (10, 2), (12, 4), (16, 4), (20, 2)]),
        (b"\x01\x00\x10\x00", &[(4, 8), (12, 8)]),
    ];
    let (sig, fields) = r.pick(&sigs);
    let hits: Vec<usize> = b.windows(4).enumerate().filter(|(_, w)| w == sig).map(|(i, _)| i).collect();
    if hits.is_empty() {
        return;
    }
    let at = *r.pick(&hits);
    let &(off, width) = r.pick(fields);
    if at + off + width <= b.len() {
        put_uint(r, b, at + off, width);
    }
}

fn mutate_csv(r: &mut Rng, b: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(b).into_owned();
    let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
    if lines.is_empty() {
        return;
    }
    let li = r.below(lines.len());
    let mut fields: Vec<String> = lines[li].split(',').map(String::from).collect();
    match r.below(10) {
        0 if fields.len() > 1 => {
            let (a, c) = (r.below(fields.len()), r.below(fields.len()));
            fields.swap(a, c);
        }
        1 => {
            let i = r.below(fields.len());
            fields[i] = r.pick(CSV_TOKENS).to_string();
        }
        2 if fields.len() > 1 => {
            fields.remove(r.below(fields.len()));
        }
        3 => fields.insert(r.below(fields.len() + 1), r.pick(CSV_TOKENS).to_string()),
        _ => {}
    }
    lines[li] = fields.join(",");
    let n = lines.len();
    match r.below(8) {
        0 => {
            let l = lines[r.below(n)].clone();
            lines.insert(r.below(n + 1), l);
        }
        1 if n > 1 => {
            lines.remove(r.below(n));
        }
        2 => lines.swap(r.below(n), r.below(n)),
        3 => lines.insert(r.below(n + 1), String::new()),
        4 => lines[0].insert(0, '\u{feff}'),
        5 => {
            let i = r.below(n);
            lines[i].push('\r');
        }
        _ => {}
    }
    *b = lines.join("\n").into_bytes();
}

// ---------------------------------------------------------------------------------------------
// The checks

/// `Ok(())`, or a description of what is wrong with the readers' behaviour on this input.
fn check_error(entry: &str, file: &str, e: &Error) -> Result<(), String> {
    let text = e.to_string();
    let Error::Parse { file: f, place, message } = e else {
        return Err(format!("{entry}: error is not a parse error naming the file and place: {text}"));
    };
    if f != file || place.trim().is_empty() || message.trim().is_empty() {
        return Err(format!("{entry}: error lacks the file or the place: {text}"));
    }
    if let Some(c) = text.chars().find(|c| c.is_control()) {
        return Err(format!(
            "{entry}: message holds control character {c:?}, not one printable line: {text:?}"
        ));
    }
    Ok(())
}

/// Message shape without numbers (decimal or hex), quoted or bracketed text, to tell new
/// behaviour from old: the fuzzer keeps an input when it produces a shape never seen before.
fn template(s: &str) -> String {
    // Echoed file text (which may hold quotes itself) comes after these: drop it.
    let s = [", found ", "dtype '", "members ["].iter().fold(s, |s, m| s.split(m).next().unwrap_or(s));
    let mut out = String::new();
    let mut word = String::new();
    let mut skip: Option<char> = None;
    let flush = |word: &mut String, out: &mut String| {
        let hex = word.len() >= 4 && word.chars().all(|c| c.is_ascii_hexdigit());
        if hex || word.chars().any(|c| c.is_ascii_digit()) {
            out.push('#');
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in s.chars() {
        if let Some(close) = skip {
            if c == close {
                skip = None;
                out.push(c);
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        out.push(c);
        match c {
            '\'' => skip = Some('\''),
            '[' => skip = Some(']'),
            '(' => skip = Some(')'),
            _ => {}
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Runs every entry point on `bytes`; returns the message templates seen, or the first problem.
fn check_all(file: &str, bytes: &[u8]) -> Result<Vec<String>, String> {
    let mut seen = Vec::new();
    let bound = ALLOC_FACTOR * bytes.len() + ALLOC_MARGIN;
    let mut note = |entry: &str, r: Result<String, Error>, grown: usize| -> Result<(), String> {
        if grown > bound {
            return Err(format!(
                "{entry}: allocated {grown} bytes for a {}-byte input (bound {bound})",
                bytes.len()
            ));
        }
        match r {
            Ok(s) => seen.push(format!("{entry} ok {s}")),
            Err(e) => {
                check_error(entry, file, &e)?;
                // The place's last part (byte, line, header) without the member name, which is
                // file text too.
                if let Error::Parse { place, message, .. } = &e {
                    let at = place.rsplit(", ").next().unwrap_or(place);
                    seen.push(format!("{entry} {}: {}", template(at), template(message)));
                }
            }
        }
        Ok(())
    };
    let caught = |entry: &str, f: &mut dyn FnMut() -> Result<String, Error>| {
        let (r, grown) = peak_growth(|| catch_unwind(AssertUnwindSafe(f)));
        match r {
            Ok(r) => Ok((r, grown)),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(format!("{entry}: panicked: {msg}"))
            }
        }
    };

    let mut nk = (6usize, 4usize);
    let (r, g) = caught("read_scores", &mut || {
        let d = read_scores(file, bytes)?;
        let t = &d.scores;
        if t.data().iter().any(|x| !x.is_finite()) || t.data().len() != t.n() * t.m() * t.k() {
            return Ok("INCONSISTENT: non-finite score or wrong length".into());
        }
        if let Some(l) = &d.labels {
            if l.len() != t.n() || l.iter().any(|&y| y >= t.k()) {
                return Ok("INCONSISTENT: labels".into());
            }
        }
        if d.single_draw != (t.m() == 1) && d.single_draw {
            return Ok("INCONSISTENT: single_draw".into());
        }
        Ok(format!("{}x{}x{}", t.n().min(2), t.m().min(2), t.k().min(2)))
    })?;
    if let Ok(s) = &r {
        if s.starts_with("INCONSISTENT") {
            return Err(format!("read_scores: {s}"));
        }
        if let Ok(d) = read_scores(file, bytes) {
            nk = (d.scores.n(), d.scores.k());
        }
    }
    note("read_scores", r, g)?;

    // The streaming reader: the same dataset or the same error, within the same allocation bound.
    let (r, g) = caught("read_scores_from", &mut || {
        let streamed = read_scores_from(file, std::io::Cursor::new(bytes));
        Ok(if streamed == read_scores(file, bytes) { "same".into() } else { "DIFFERENT".into() })
    })?;
    if matches!(&r, Ok(s) if s == "DIFFERENT") {
        return Err("read_scores_from: differs from read_scores".into());
    }
    note("read_scores_from", r, g)?;

    let (r, g) = caught("read_labels", &mut || {
        let l = read_labels(file, bytes, nk.0, nk.1)?;
        Ok(if l.len() == nk.0 && l.iter().all(|&y| y < nk.1) {
            "labels".into()
        } else {
            "INCONSISTENT".into()
        })
    })?;
    if matches!(&r, Ok(s) if s == "INCONSISTENT") {
        return Err("read_labels: wrong length or label out of range".into());
    }
    note("read_labels", r, g)?;

    let (r, g) = caught("read_mask", &mut || {
        let m = read_mask(file, bytes, nk.0)?;
        Ok(if m.len() == nk.0 { "mask".into() } else { "INCONSISTENT".into() })
    })?;
    if matches!(&r, Ok(s) if s == "INCONSISTENT") {
        return Err("read_mask: wrong length".into());
    }
    note("read_mask", r, g)?;

    let (r, g) = caught("parse_npy", &mut || parse_npy(file, bytes).map(|a| a.data.kind_name().to_string()))?;
    note("parse_npy", r, g)?;
    let (r, g) =
        caught("parse_npz", &mut || parse_npz(file, bytes).map(|v| format!("{} members", v.len().min(3))))?;
    note("parse_npz", r, g)?;
    Ok(seen)
}

// ---------------------------------------------------------------------------------------------
// The driver

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[derive(Clone, Copy, PartialEq)]
enum Reader {
    Npy,
    Npz,
    Csv,
}

impl Reader {
    fn name(self) -> &'static str {
        match self {
            Reader::Npy => "npy",
            Reader::Npz => "npz",
            Reader::Csv => "csv",
        }
    }
    /// The file name the readers are told (they must sniff by content, not by this).
    fn file(self) -> &'static str {
        match self {
            Reader::Npy => "fuzz.npy",
            Reader::Npz => "fuzz.npz",
            Reader::Csv => "fuzz.csv",
        }
    }
    fn owns(self, bytes: &[u8]) -> bool {
        match self {
            Reader::Npy => bytes.starts_with(b"\x93NUMPY"),
            Reader::Npz => bytes.starts_with(b"PK"),
            Reader::Csv => !bytes.starts_with(b"\x93NUMPY") && !bytes.starts_with(b"PK"),
        }
    }
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Small seeds of one reader's format from the samples, the fixtures and the corpus.
fn seeds(reader: Reader) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for dir in ["assets", "tests/data/io", "tests/data/fuzz", "tests/data/bad"] {
        for p in files_in(&Path::new(ROOT).join(dir)) {
            let Ok(mut b) = std::fs::read(&p) else { continue };
            if p.extension().is_some_and(|e| e == "md" || e == "py" || e == "txt") {
                continue;
            }
            if reader == Reader::Csv && b.len() > 2048 {
                // The long sample CSV: keep its header and first rows.
                let cut = b[..2048].iter().rposition(|&c| c == b'\n').map_or(2048, |i| i + 1);
                b.truncate(cut);
            }
            if b.len() <= 64 * 1024 && reader.owns(&b) {
                out.push(b);
            }
        }
    }
    out
}

fn hex_head(b: &[u8]) -> String {
    b.iter().take(256).map(|x| format!("{x:02x}")).collect::<Vec<_>>().join("")
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3))
}

fn env_u64(key: &str) -> Option<u64> {
    std::env::var(key).ok().and_then(|v| v.trim().parse().ok())
}

/// Writes past the test harness's output capture, so `cargo test` shows the executions.
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn fuzz(reader: Reader) {
    let total = env_u64("RVALUE_FUZZ_SECONDS").unwrap_or(20);
    let budget = Duration::from_secs_f64(total as f64 / 3.0);
    let seed = env_u64("RVALUE_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    }) ^ fnv(reader.name().as_bytes());
    let save = std::env::var_os("RVALUE_FUZZ_SAVE").map(PathBuf::from);
    let fail_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    let mut r = Rng(seed);
    let mut corpus = seeds(reader);
    assert!(!corpus.is_empty(), "no seeds for {}", reader.name());
    let file = reader.file();
    let mut templates: HashSet<String> = HashSet::new();
    let mut failures: Vec<(String, PathBuf)> = Vec::new();
    let mut failure_kinds: HashSet<String> = HashSet::new();
    let start = Instant::now();
    let mut execs = 0u64;
    let mut saved = 0usize;
    while start.elapsed() < budget && failures.len() < 20 {
        let mut input = match r.below(8) {
            0 => match reader {
                Reader::Npy => gen_npy(&mut r),
                Reader::Npz => gen_npz(&mut r, &corpus),
                Reader::Csv => gen_csv(&mut r),
            },
            _ => r.pick(&corpus).clone(),
        };
        match (reader, r.below(3)) {
            (Reader::Npy, 0) => mutate_npy(&mut r, &mut input),
            (Reader::Npz, 0) => mutate_zip(&mut r, &mut input),
            (Reader::Csv, 0 | 1) => mutate_csv(&mut r, &mut input),
            _ => mutate_bytes(&mut r, &mut input, &corpus),
        }
        execs += 1;
        match check_all(file, &input) {
            Ok(seen) => {
                let mut new = false;
                for t in seen {
                    new |= templates.insert(t);
                }
                if new {
                    saved += 1;
                    if let Some(dir) = save.as_ref().filter(|_| saved <= 5000) {
                        let _ = std::fs::create_dir_all(dir);
                        let name = format!("{}-{:016x}", reader.name(), fnv(&input));
                        let _ = std::fs::write(dir.join(name), &input);
                    }
                    if corpus.len() < 4096 && input.len() <= 64 * 1024 {
                        corpus.push(input);
                    }
                }
            }
            Err(problem) => {
                // Coarse, so that one bug does not fill the list with its variants.
                let kind: String = template(&problem).chars().take(60).collect();
                if failure_kinds.insert(kind) {
                    let _ = std::fs::create_dir_all(&fail_dir);
                    let path = fail_dir.join(format!("{}-{:016x}", reader.name(), fnv(&input)));
                    let _ = std::fs::write(&path, &input);
                    report(&format!(
                        "fuzz {}: {problem}\n  input {} (hex {})",
                        reader.name(),
                        path.display(),
                        hex_head(&input)
                    ));
                    failures.push((problem, path));
                }
            }
        }
    }
    if std::env::var_os("RVALUE_FUZZ_DEBUG").is_some() {
        let mut v: Vec<&String> = templates.iter().collect();
        v.sort();
        for t in v.iter().step_by(v.len() / 40 + 1) {
            report(&format!("  outcome: {}", t.chars().take(200).collect::<String>()));
        }
    }
    report(&format!(
        "fuzz {}: {execs} executions in {:.1} s (seed {seed}), {} distinct outcomes, corpus {}, {} failure kinds",
        reader.name(),
        start.elapsed().as_secs_f64(),
        templates.len(),
        corpus.len(),
        failures.len()
    ));
    assert!(
        failures.is_empty(),
        "fuzz {}: {} kinds of failure, inputs saved: {:#?}",
        reader.name(),
        failures.len(),
        failures
    );
}

#[test]
fn fuzz_npy() {
    fuzz(Reader::Npy);
}

#[test]
fn fuzz_npz() {
    fuzz(Reader::Npz);
}

#[test]
fn fuzz_csv() {
    fuzz(Reader::Csv);
}

/// Every input kept in `tests/data/fuzz/` (interesting inputs and crash reproducers) and every
/// bad-input file, through every entry point, always.
#[test]
fn corpus_regressions() {
    let mut n = 0;
    let mut problems = Vec::new();
    for dir in ["tests/data/fuzz", "tests/data/bad", "tests/data/io"] {
        for p in files_in(&Path::new(ROOT).join(dir)) {
            if p.extension().is_some_and(|e| e == "txt" || e == "py" || e == "md") {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if let Err(e) = check_all(&name, &bytes) {
                problems.push(format!("{}: {e}", p.display()));
            }
            n += 1;
        }
    }
    assert!(n >= 10, "only {n} corpus files");
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The bound holds for real files too, not only for the fuzzer's small inputs.
#[test]
fn samples_stay_within_the_allocation_bound() {
    for name in [
        "digits_wbb.npz",
        "digits_wbb_scores.npy",
        "digits_wbb_labels.npy",
        "small_long.csv",
        "toy_default.npz",
    ] {
        let bytes = std::fs::read(Path::new(ROOT).join("assets").join(name)).unwrap();
        let seen = check_all(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(seen.iter().any(|s| s.contains(" ok ")), "{name}: {seen:?}");
    }
}

/// The harness itself: a claim of 10¹² elements must be refused by the readers, and the counting
/// allocator must see an allocation of that order if a reader made one.
#[test]
fn allocation_bound_is_enforced() {
    let (v, grown) = peak_growth(|| vec![0u8; 1 << 20]);
    assert!(grown >= 1 << 20 && v.len() == 1 << 20);
    let bytes = npy(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", &[0; 64]);
    let seen = check_all("big.npy", &bytes).unwrap();
    assert!(seen.iter().any(|s| s.contains("limit of")), "{seen:?}");
}
