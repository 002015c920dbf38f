//! npyz and zip as independent oracles of the `.npy` and `.npz` readers (docs/method.md §8), on
//! every `.npy`/`.npz` in the test corpus: the fuzz regressions (`tests/data/fuzz/`), the bad
//! inputs (`tests/data/bad/`), the numpy fixtures (`tests/data/io/`) and the bundled samples.
//!
//! - A file both accept gives the same shape and the same values (bit for bit, in C order).
//! - A file the oracle rejects is rejected by ours too.
//! - A file the oracle accepts and ours rejects must fall under a documented difference
//!   ([`Difference`]): ours reads only what score, label and mask files need, and bounds sizes.
//!   Ours also refuses bytes after the array, members claiming more than the largest array, and
//!   two members of one name (numpy would read the last, the zip crate keeps one).
//! - Two differences go the other way, where ours reads as numpy does: the byte order `|` on a
//!   multi-byte number (npyz refuses it, numpy reads native order: bridged in [`oracle_npy`]),
//!   and an end record whose comment length runs past the file (the zip crate refuses it,
//!   Python's zipfile does not; the comment is never read).
//!
//! Native only: npyz and zip are native dev-dependencies, the readers' own code runs in wasm too.
// Tests: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(not(target_arch = "wasm32"))]

use std::io::{Cursor, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use npyz::{DType, Order, TypeChar};
use rvalue_core::io::{parse_npy, parse_npz, NpyArray, NpyData, MAX_ELEMENTS};

/// Values as both sides can give them, compared exactly (floats by their bits, so NaN payloads
/// and signed zeros count).
#[derive(Debug, Clone, PartialEq)]
enum Values {
    F16(Vec<u16>),
    F32(Vec<u32>),
    F64(Vec<u64>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

#[derive(Debug, Clone, PartialEq)]
struct Array {
    shape: Vec<usize>,
    values: Values,
}

/// Why the oracle may accept an array that ours refuses. Each is a choice of the readers
/// (docs/method.md §8), not a bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Difference {
    /// A dtype that is not a score, a label or a mask (complex, strings, structured,
    /// datetimes, …): ours names the dtype and lists the ones it reads.
    Dtype,
    /// Big-endian data: numpy writes native order and every platform that runs these models is
    /// little-endian, so ours refuses `>` rather than carry a second decoding path.
    BigEndian,
    /// More elements than `MAX_ELEMENTS`: refused before anything is allocated, whatever the
    /// oracle could read.
    TooLarge,
    /// `uint64` values above `i64::MAX`: integers are widened to `i64`.
    U64Overflow,
}

/// What the oracle made of one `.npy`: the array, or a reason ours may refuse it, or a refusal.
enum Oracle {
    Accepts(Array),
    AcceptsBeyondOurs(Difference, Vec<usize>),
    Rejects(String),
}

fn to_c_order<T: Clone>(v: Vec<T>, shape: &[usize], order: Order) -> Vec<T> {
    if order == Order::C || shape.len() < 2 || v.is_empty() {
        return v;
    }
    // Fortran: the first axis varies fastest in `v`.
    let mut out = Vec::with_capacity(v.len());
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..v.len() {
        let (mut lin, mut stride) = (0usize, 1usize);
        for (d, &s) in shape.iter().enumerate() {
            lin += idx[d] * stride;
            stride *= s;
        }
        out.push(v[lin].clone());
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// npyz's reading of a `.npy`; a panic in npyz counts as a refusal.
///
/// One difference is bridged rather than listed: npyz refuses the byte order `|` ("not
/// applicable") on multi-byte numbers, numpy reads it as native order, and so does ours, as
/// little-endian. Such a file is read by npyz with that `|` made `<` (same length, same layout).
fn oracle_npy(bytes: &[u8]) -> Oracle {
    let read = |b: &[u8]| match quietly(|| oracle_npy_inner(b)) {
        Some(o) => o,
        None => Oracle::Rejects("npyz panicked".into()),
    };
    match read(bytes) {
        Oracle::Rejects(why) if why.contains("invalid endianness") => match pipe_to_little(bytes) {
            Some(patched) => read(&patched),
            None => Oracle::Rejects(why),
        },
        o => o,
    }
}

thread_local! {
    static IN_ORACLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs an oracle, `None` if it panicked (npyz multiplies a fuzzed shape without checking for
/// overflow): that counts as a refusal, and its message is not printed. Other panics (this
/// test's assertions) print as usual.
fn quietly<T>(f: impl FnOnce() -> T) -> Option<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_ORACLE.with(|c| c.get()) {
                default(info);
            }
        }));
    });
    let outer = IN_ORACLE.with(|c| c.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    IN_ORACLE.with(|c| c.set(outer));
    r.ok()
}

/// The bytes with the first `'|` of the header that starts a number type (`f`, `i`, `u`) made
/// `'<`, or `None` if there is none.
fn pipe_to_little(bytes: &[u8]) -> Option<Vec<u8>> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let at = bytes[..end].windows(3).position(|w| matches!(w, [b'\'' | b'"', b'|', b'f' | b'i' | b'u']))?;
    let mut out = bytes.to_vec();
    out[at + 1] = b'<';
    Some(out)
}

fn oracle_npy_inner(bytes: &[u8]) -> Oracle {
    let file = match npyz::NpyFile::new(bytes) {
        Ok(f) => f,
        Err(e) => return Oracle::Rejects(e.to_string()),
    };
    let shape: Vec<usize> = file.shape().iter().map(|&s| s as usize).collect();
    let order = file.order();
    let len = shape.iter().try_fold(1usize, |a, &s| a.checked_mul(s));
    let DType::Plain(ts) = file.dtype() else {
        return Oracle::AcceptsBeyondOurs(Difference::Dtype, shape);
    };
    let (tc, size) = (ts.type_char(), ts.size_field());
    let big = ts.endianness() == npyz::Endianness::Big && size > 1;
    let known = matches!(
        (tc, size),
        (TypeChar::Float, 2 | 4 | 8) | (TypeChar::Int | TypeChar::Uint, 1 | 2 | 4 | 8) | (TypeChar::Bool, 1)
    );
    if !known {
        return Oracle::AcceptsBeyondOurs(Difference::Dtype, shape);
    }
    if big {
        return Oracle::AcceptsBeyondOurs(Difference::BigEndian, shape);
    }
    if len.is_none_or(|n| n > MAX_ELEMENTS) {
        return Oracle::AcceptsBeyondOurs(Difference::TooLarge, shape);
    }
    let values = match (tc, size) {
        // npyz's float16 is the `half` crate's; ours keeps the bit patterns.
        (TypeChar::Float, 2) => {
            file.into_vec::<npyz::half::f16>().map(|v| Values::F16(v.iter().map(|x| x.to_bits()).collect()))
        }
        (TypeChar::Float, 4) => {
            file.into_vec::<f32>().map(|v| Values::F32(v.iter().map(|x| x.to_bits()).collect()))
        }
        (TypeChar::Float, 8) => {
            file.into_vec::<f64>().map(|v| Values::F64(v.iter().map(|x| x.to_bits()).collect()))
        }
        (TypeChar::Int, 1) => {
            file.into_vec::<i8>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Int, 2) => {
            file.into_vec::<i16>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Int, 4) => {
            file.into_vec::<i32>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Int, 8) => file.into_vec::<i64>().map(Values::Int),
        (TypeChar::Uint, 1) => {
            file.into_vec::<u8>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Uint, 2) => {
            file.into_vec::<u16>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Uint, 4) => {
            file.into_vec::<u32>().map(|v| Values::Int(v.into_iter().map(i64::from).collect()))
        }
        (TypeChar::Uint, 8) => match file.into_vec::<u64>() {
            Ok(v) if v.iter().any(|&x| x > i64::MAX as u64) => {
                return Oracle::AcceptsBeyondOurs(Difference::U64Overflow, shape)
            }
            r => r.map(|v| Values::Int(v.into_iter().map(|x| x as i64).collect())),
        },
        (TypeChar::Bool, 1) => file.into_vec::<bool>().map(Values::Bool),
        _ => unreachable!(),
    };
    match values {
        Err(e) => Oracle::Rejects(e.to_string()),
        Ok(v) => {
            let v = match v {
                Values::F16(x) => Values::F16(to_c_order(x, &shape, order)),
                Values::F32(x) => Values::F32(to_c_order(x, &shape, order)),
                Values::F64(x) => Values::F64(to_c_order(x, &shape, order)),
                Values::Int(x) => Values::Int(to_c_order(x, &shape, order)),
                Values::Bool(x) => Values::Bool(to_c_order(x, &shape, order)),
            };
            Oracle::Accepts(Array { shape, values: v })
        }
    }
}

fn ours(a: NpyArray) -> Array {
    let values = match a.data {
        NpyData::F16(v) => Values::F16(v),
        NpyData::F32(v) => Values::F32(v.iter().map(|x| x.to_bits()).collect()),
        NpyData::F64(v) => Values::F64(v.iter().map(|x| x.to_bits()).collect()),
        NpyData::Int(v) => Values::Int(v),
        NpyData::Bool(v) => Values::Bool(v),
    };
    Array { shape: a.shape, values }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of the corpus whose bytes start like a `.npy` (`npy == true`) or a zip.
fn corpus(npy: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["tests/data/fuzz", "tests/data/bad", "tests/data/io", "assets"] {
        let Ok(rd) = std::fs::read_dir(root().join(dir)) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(b) = std::fs::read(&p) else { continue };
            let magic: &[u8] = if npy { b"\x93NUMPY" } else { b"PK" };
            let by_name = p.extension().is_some_and(|x| x == if npy { "npy" } else { "npz" });
            if b.starts_with(magic) || by_name {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// One file's verdict: `Err` describes a disagreement the readers must not have.
fn compare_npy(what: &str, bytes: &[u8], tally: &mut Tally) -> Result<(), String> {
    let mine = parse_npy(what, bytes);
    match (oracle_npy(bytes), mine) {
        (Oracle::Accepts(want), Ok(got)) => {
            tally.both += 1;
            let got = ours(got);
            tally.both_f16 += usize::from(matches!(got.values, Values::F16(_)));
            if got != want {
                return Err(format!("{what}: ours {:?} vs npyz {:?}", short(&got), short(&want)));
            }
        }
        (Oracle::Accepts(want), Err(e)) => {
            // Ours refuses bytes after the array (npyz and numpy stop reading at its end): a file
            // longer than its header says is not what the header describes.
            let e = e.to_string();
            if !e.contains("trailing bytes after the array") {
                return Err(format!("{what}: npyz reads {}, ours refuses: {e}", short(&want)));
            }
            tally.stricter.push(format!("{what}: {e}"));
        }
        (Oracle::AcceptsBeyondOurs(d, shape), Ok(got)) => {
            return Err(format!(
                "{what}: ours accepts {:?} shape {:?}, expected a refusal ({d:?}, {shape:?})",
                got.shape, got.shape
            ));
        }
        (Oracle::AcceptsBeyondOurs(d, _), Err(_)) => {
            *tally.by_design.entry(format!("{d:?}")).or_default() += 1
        }
        (Oracle::Rejects(why), Ok(got)) => {
            return Err(format!("{what}: npyz rejects it ({why}), ours reads shape {:?}", got.shape));
        }
        (Oracle::Rejects(_), Err(_)) => tally.both_reject += 1,
    }
    Ok(())
}

fn short(a: &Array) -> String {
    let n = match &a.values {
        Values::F16(v) => format!("f16 × {}", v.len()),
        Values::F32(v) => format!("f32 × {}", v.len()),
        Values::F64(v) => format!("f64 × {}", v.len()),
        Values::Int(v) => format!("int × {}", v.len()),
        Values::Bool(v) => format!("bool × {}", v.len()),
    };
    format!("{:?} {n}", a.shape)
}

#[derive(Default, Debug)]
struct Tally {
    both: usize,
    /// Of those, float16 arrays.
    both_f16: usize,
    both_reject: usize,
    by_design: std::collections::BTreeMap<String, usize>,
    stricter: Vec<String>,
}

#[test]
fn npy_reader_agrees_with_npyz() {
    let files = corpus(true);
    assert!(files.len() > 50, "the corpus has only {} .npy files", files.len());
    let mut tally = Tally::default();
    let mut bad = Vec::new();
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        if let Err(e) = compare_npy(&name(p), &bytes, &mut tally) {
            bad.push(e);
        }
    }
    eprintln!("npy: {} files, {tally:#?}", files.len());
    assert!(bad.is_empty(), "{} disagreements:\n{}", bad.len(), bad.join("\n"));
    assert!(tally.both >= 5, "too few files both read: {tally:?}");
    // numpy's float16 fixtures and the bad corpus's float16 NaN file.
    assert!(tally.both_f16 >= 3, "too few float16 files both read: {tally:?}");
}

/// The zip crate's reading of an archive: each `.npy` member (numpy's key: the name without
/// `.npy`) through npyz. Members that are not `.npy` are skipped as ours skips directories.
fn oracle_npz(bytes: &[u8]) -> Result<Vec<(String, Oracle)>, String> {
    let mut z = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for i in 0..z.len() {
        let mut f = z.by_index(i).map_err(|e| e.to_string())?;
        if f.is_dir() {
            continue;
        }
        let name = f.name().map_err(|e| format!("member {i}'s name: {e}"))?.into_owned();
        let key = name.strip_suffix(".npy").unwrap_or(&name).to_string();
        let mut data = Vec::new();
        // Bounded like ours: a member may not inflate past the largest array ours reads.
        let cap = (MAX_ELEMENTS as u64) * 8 + (1 << 20);
        (&mut f).take(cap + 1).read_to_end(&mut data).map_err(|e| format!("member {key}: {e}"))?;
        if data.len() as u64 > cap {
            out.push((key, Oracle::AcceptsBeyondOurs(Difference::TooLarge, vec![])));
            continue;
        }
        out.push((key, oracle_npy(&data)));
    }
    Ok(out)
}

#[test]
fn npz_reader_agrees_with_zip_and_npyz() {
    let files = corpus(false);
    assert!(files.len() > 50, "the corpus has only {} .npz files", files.len());
    let (mut both, mut both_reject, mut by_design, mut lenient, mut stricter) = (0, 0, 0, 0, Vec::new());
    let mut bad = Vec::new();
    for p in &files {
        let what = name(p);
        let bytes = std::fs::read(p).unwrap();
        let oracle = quietly(|| oracle_npz(&bytes)).unwrap_or_else(|| Err("zip panicked".into()));
        let mine = parse_npz(&what, &bytes);
        match (oracle, mine) {
            (Ok(members), Ok(got)) => {
                let mut ok = members.len() == got.len();
                for ((k, o), (gk, ga)) in members.into_iter().zip(got) {
                    match o {
                        Oracle::Accepts(want) if k == gk && ours(ga.clone()) == want => {}
                        other => {
                            ok = false;
                            let o = match other {
                                Oracle::Accepts(a) => short(&a),
                                Oracle::AcceptsBeyondOurs(d, _) => format!("{d:?}"),
                                Oracle::Rejects(w) => format!("rejects: {w}"),
                            };
                            bad.push(format!(
                                "{what}: member {k} vs ours {gk} {}: oracle {o}",
                                short(&ours(ga))
                            ));
                        }
                    }
                }
                if ok {
                    both += 1;
                } else {
                    bad.push(format!("{what}: members differ"));
                }
            }
            (Ok(members), Err(e)) => {
                if members.iter().any(|(_, o)| matches!(o, Oracle::Rejects(_))) {
                    both_reject += 1;
                } else if members.iter().any(|(_, o)| matches!(o, Oracle::AcceptsBeyondOurs(..))) {
                    by_design += 1;
                } else {
                    // Ours refuses, beyond the members' own checks: a member claiming more bytes
                    // than the largest array it reads (before inflating anything), and two members
                    // of one name (numpy reads the last, the zip crate keeps one of them).
                    let e = e.to_string();
                    let known = [
                        "trailing bytes after the array",
                        "more than allowed for the limit",
                        "two members named",
                    ];
                    if known.iter().any(|k| e.contains(k)) {
                        stricter.push(format!("{what}: {e}"));
                    } else {
                        bad.push(format!("{what}: zip and npyz read it, ours refuses: {e}"));
                    }
                }
            }
            (Err(why), Ok(got)) => {
                // The zip crate refuses an end record whose comment length runs past the file.
                // numpy's np.load (Python's zipfile) reads such an archive, and so does ours: the
                // comment is never read.
                if why.contains("comment exceeds file boundary") {
                    lenient += 1;
                } else {
                    bad.push(format!("{what}: zip rejects it ({why}), ours reads {} members", got.len()));
                }
            }
            (Err(_), Err(_)) => both_reject += 1,
        }
    }
    eprintln!(
        "npz: {} files, both read {both}, both reject {both_reject}, by design {by_design}, \
         comment past the end {lenient}, ours stricter {}:\n{}",
        files.len(),
        stricter.len(),
        stricter.join("\n")
    );
    assert!(bad.is_empty(), "{} disagreements:\n{}", bad.len(), bad.join("\n"));
    assert!(both >= 3, "too few archives both read");
}
