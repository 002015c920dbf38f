//! Score, label and split-mask files (docs/method.md §8): `.npy`, `.npz` and long-form CSV.
//!
//! Everything takes bytes (the browser hands us bytes) and a file name used only in messages;
//! [`read_scores_file`] streams a `.npy` or an `.npz` from disk instead (the command line's
//! large tensors). Every error names the file, the place (byte offset, or line and column) and
//! what was expected; nothing panics on any input.

mod csv;
mod direct;
mod layout;
mod names;
mod npy;
mod npz;
mod stream;
/// The hand-made `.npy` and `.zip` builders of the reader tests, shared with the workspace's.
#[cfg(test)]
#[path = "../../../tests/common/files.rs"]
pub(crate) mod test_files;

pub use npy::{
    parse_npy, write_npy, write_npy_bool, write_npy_f16_bits, write_npy_f32, write_npy_f64, write_npy_i64,
    NpyArray, NpyData, NpyElement, NPY_MAGIC,
};
pub use npz::{crc32, parse_npz, ZIP_MAGIC};

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::float16;
use crate::tensor::{ScoreTensor, Scores};
use crate::{Error, Result};
pub use layout::BlockLayout;
pub use names::{check_names, read_class_names, reorders_text, MAX_NAME_CHARS};
use npy::{format_shape, Layout};
pub use stream::{Opened, ScoreFile};

/// The most elements one array may claim; larger claims are refused before anything is allocated.
pub const MAX_ELEMENTS: usize = 1 << 28;

/// Scores read from a file, with the labels when the file carried them.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// `S[n][m][k]`.
    pub scores: ScoreTensor,
    /// `y[n]` when the file had them (npz member `labels`, CSV column `label`).
    pub labels: Option<Vec<usize>>,
    /// The array had shape `[N, K]` and was read as `M = 1` (only CP and CP_avg are meaningful).
    pub single_draw: bool,
}

/// File text echoed in a message (a CSV field, a dtype, a member name): control characters
/// escaped and long text cut, so that a hostile file still gets a short message on one line.
pub(crate) fn shown(s: &str) -> String {
    const MAX_CHARS: usize = 48;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `ctx, at` or just `at`: npz members prefix their places with the member name.
pub(crate) fn place(ctx: &str, at: &str) -> String {
    if ctx.is_empty() {
        at.to_string()
    } else {
        format!("{ctx}, {at}")
    }
}

enum Format {
    Npy,
    Zip,
    Text,
}

/// An archive with no members is just its end record (`np.savez(f)` with nothing to save).
const ZIP_EMPTY_MAGIC: &[u8; 4] = b"PK\x05\x06";

/// Decides by content, not by extension, so a misnamed file still reads correctly.
fn sniff(bytes: &[u8]) -> Format {
    if bytes.starts_with(NPY_MAGIC) {
        Format::Npy
    } else if bytes.starts_with(ZIP_MAGIC) || bytes.starts_with(ZIP_EMPTY_MAGIC) {
        Format::Zip
    } else {
        Format::Text
    }
}

/// Reads scores from a `.npy` (`[N, M, K]` or `[N, K]`), an `.npz` (`scores`, optional `labels`)
/// or a long-form CSV, whatever the file is called.
pub fn read_scores(file: &str, bytes: &[u8]) -> Result<Dataset> {
    if bytes.is_empty() {
        // Said here, not by the CSV reader the sniffing falls back to, whatever the file is called.
        return Err(Error::parse(
            file,
            "byte 0",
            "the file is empty (0 bytes); expected a .npy, an .npz or a long-form CSV",
        ));
    }
    match sniff(bytes) {
        Format::Npy => {
            let (a, layout) = npy::parse_npy_with(file, "", bytes)?;
            let (scores, single_draw) = scores_from_array(file, "", a, &layout)?;
            Ok(Dataset { scores, labels: None, single_draw })
        }
        Format::Zip => {
            let entries = npz::entries(file, bytes)?;
            let find = |key: &str| npz::find_member(file, &entries, key);
            let Some(se) = find("scores")? else {
                let names: Vec<String> = entries.iter().map(|e| shown(&e.name)).collect();
                return Err(Error::parse(
                    file,
                    "archive",
                    format!(
                        "no member 'scores' in the .npz; expected np.savez(file, scores=…, \
                         labels=…), found members [{}]",
                        names.join(", ")
                    ),
                ));
            };
            let sctx = format!("member '{}'", shown(&se.name));
            let (a, layout) = npz::member_array(file, bytes, se)?;
            let (scores, single_draw) = scores_from_array(file, &sctx, a, &layout)?;
            let labels = match find("labels")? {
                None => None,
                Some(le) => {
                    let lctx = format!("member '{}'", shown(&le.name));
                    let (a, layout) = npz::member_array(file, bytes, le)?;
                    Some(labels_from_array(file, &lctx, &a, &layout, scores.n(), scores.k())?)
                }
            };
            Ok(Dataset { scores, labels, single_draw })
        }
        Format::Text => {
            let c = csv::parse_long_csv(file, bytes)?;
            Ok(Dataset { scores: c.scores, labels: c.labels, single_draw: false })
        }
    }
}

/// The member `cal_true` of an `.npz` (true-label draws, `[n_cal, M]`)
/// as [`read_scores`] reads scores; `None` for other formats and archives without it.
pub fn read_cal_true(file: &str, bytes: &[u8]) -> Result<Option<Dataset>> {
    if !matches!(sniff(bytes), Format::Zip) {
        return Ok(None);
    }
    let entries = npz::entries(file, bytes)?;
    let Some(e) = npz::find_member(file, &entries, "cal_true")? else { return Ok(None) };
    let ctx = format!("member '{}'", shown(&e.name));
    let (a, layout) = npz::member_array(file, bytes, e)?;
    let (scores, single_draw) = scores_from_array(file, &ctx, a, &layout)?;
    Ok(Some(Dataset { scores, labels: None, single_draw }))
}

/// [`read_scores`] of the file at `path`, with the same results and messages. A `.npy`, and an
/// `.npz`'s members, stored or deflated, are streamed into the tensor, so the file's bytes are
/// never held in memory beside it.
pub fn read_scores_file(path: &Path) -> Result<Dataset> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| cannot_read(&file, &e))?;
    read_scores_from(&file, std::io::BufReader::new(f))
}

/// [`read_scores_file`] from any seekable reader, `file` naming it in messages.
pub fn read_scores_from(file: &str, mut r: impl Read + Seek) -> Result<Dataset> {
    let io = |e: std::io::Error| cannot_read(file, &e);
    let total = r.seek(SeekFrom::End(0)).map_err(io)?;
    r.rewind().map_err(io)?;
    let mut magic = Vec::with_capacity(NPY_MAGIC.len());
    r.by_ref().take(NPY_MAGIC.len() as u64).read_to_end(&mut magic).map_err(io)?;
    r.rewind().map_err(io)?;
    if magic == NPY_MAGIC {
        if let Some((a, layout)) = npy::read_npy_stream(&mut r, total) {
            let (scores, single_draw) = scores_from_array(file, "", a, &layout)?;
            return Ok(Dataset { scores, labels: None, single_draw });
        }
        r.rewind().map_err(io)?;
    } else if magic.starts_with(ZIP_MAGIC) {
        if let Some(d) = npz_stream(file, &mut r, total) {
            return d;
        }
        r.rewind().map_err(io)?;
    }
    // Other formats, and a .npy the stream refused, whose message needs its bytes.
    let mut bytes = Vec::new();
    r.read_to_end(&mut bytes).map_err(io)?;
    read_scores(file, &bytes)
}

/// [`read_scores`]'s reading of an `.npz`, its members streamed ([`npz::member_stream`]) once
/// the directory is read from the file's end. `None` where that is not the same as reading the
/// bytes (a directory far from the end, a member the stream does not accept).
fn npz_stream(file: &str, r: &mut (impl Read + Seek), total: u64) -> Option<Result<Dataset>> {
    // The directory and its end records: a few hundred bytes for np.savez's archives.
    const TAIL: usize = 1 << 20;
    let len = usize::try_from(total).ok()?;
    let base = len.saturating_sub(TAIL);
    r.seek(SeekFrom::Start(base as u64)).ok()?;
    let mut bytes = Vec::with_capacity(len - base);
    r.read_to_end(&mut bytes).ok()?;
    let tail = npz::Tail { base, bytes: &bytes, missed: std::cell::Cell::new(false) };
    let entries = npz::entries_in(file, &tail, len).ok().filter(|_| !tail.missed.get())?;
    let find = |key: &str| npz::find_member(file, &entries, key).ok();
    let se = find("scores")??;
    let (a, layout) = npz::member_stream(r, total, se)?;
    let sctx = format!("member '{}'", shown(&se.name));
    let (scores, single_draw) = match scores_from_array(file, &sctx, a, &layout) {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let labels = match find("labels")? {
        None => None,
        Some(le) => {
            let (a, layout) = npz::member_stream(r, total, le)?;
            let lctx = format!("member '{}'", shown(&le.name));
            match labels_from_array(file, &lctx, &a, &layout, scores.n(), scores.k()) {
                Ok(l) => Some(l),
                Err(e) => return Some(Err(e)),
            }
        }
    };
    Some(Ok(Dataset { scores, labels, single_draw }))
}

fn cannot_read(file: &str, e: &std::io::Error) -> Error {
    Error::Io { file: file.to_string(), message: format!("cannot read: {e}") }
}

/// Reads labels `y[n]` in `0..k` from a `.npy` of shape `[N]` (integers, or floats holding exact
/// integers), or from the `labels` member of an `.npz`.
pub fn read_labels(file: &str, bytes: &[u8], n: usize, k: usize) -> Result<Vec<usize>> {
    let (ctx, a, layout) = one_array(file, bytes, "labels")?;
    labels_from_array(file, &ctx, &a, &layout, n, k)
}

/// Reads a split mask of shape `[N]` (bool, or 0/1 numbers); `true` marks a calibration item.
pub fn read_mask(file: &str, bytes: &[u8], n: usize) -> Result<Vec<bool>> {
    let (ctx, a, layout) = one_array(file, bytes, "mask")?;
    check_vector_shape(file, &ctx, &a, n, "split mask", "one flag per item")?;
    let bad = |i: usize, v: String| {
        Error::parse(
            file,
            place(&ctx, &format!("byte {}", layout.byte_of(&a.shape, false, i))),
            format!("mask [{i}] is {v}; expected 0 or 1 (or bool), 1 = calibration"),
        )
    };
    match &a.data {
        NpyData::Bool(v) => Ok(v.clone()),
        NpyData::Int(v) => v
            .iter()
            .enumerate()
            .map(|(i, &x)| match x {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(bad(i, x.to_string())),
            })
            .collect(),
        NpyData::F16(v) => floats_to_mask(v.iter().map(|&x| float16::to_f64(x)), bad),
        NpyData::F32(v) => floats_to_mask(v.iter().map(|&x| f64::from(x)), bad),
        NpyData::F64(v) => floats_to_mask(v.iter().copied(), bad),
    }
}

fn floats_to_mask(v: impl Iterator<Item = f64>, bad: impl Fn(usize, String) -> Error) -> Result<Vec<bool>> {
    v.enumerate()
        .map(|(i, x)| {
            if x == 0.0 {
                Ok(false)
            } else if x == 1.0 {
                Ok(true)
            } else {
                Err(bad(i, x.to_string()))
            }
        })
        .collect()
}

/// The single array of a `.npy`, or member `member` of an `.npz`, with the context for places.
fn one_array(file: &str, bytes: &[u8], member: &str) -> Result<(String, NpyArray, Layout)> {
    match sniff(bytes) {
        Format::Npy => {
            let (a, l) = npy::parse_npy_with(file, "", bytes)?;
            Ok((String::new(), a, l))
        }
        Format::Zip => {
            let entries = npz::entries(file, bytes)?;
            let e = npz::find_member(file, &entries, member)?.ok_or_else(|| {
                Error::parse(
                    file,
                    "archive",
                    format!("no member '{member}' in the .npz; expected a .npy or an .npz with '{member}'"),
                )
            })?;
            let (a, l) = npz::member_array(file, bytes, e)?;
            Ok((format!("member '{}'", shown(&e.name)), a, l))
        }
        Format::Text => Err(Error::parse(
            file,
            "byte 0",
            format!("not a .npy file (no \\x93NUMPY magic); expected the {member} saved with np.save"),
        )),
    }
}

fn check_vector_shape(file: &str, ctx: &str, a: &NpyArray, n: usize, what: &str, why: &str) -> Result<()> {
    if a.shape.as_slice() != [n] {
        return Err(Error::parse(
            file,
            place(ctx, "header"),
            format!(
                "{what} has shape {}; expected [{n}] ({why} of the {n} items in the scores)",
                format_shape(&a.shape)
            ),
        ));
    }
    Ok(())
}

pub(crate) fn labels_from_array(
    file: &str,
    ctx: &str,
    a: &NpyArray,
    layout: &Layout,
    n: usize,
    k: usize,
) -> Result<Vec<usize>> {
    check_vector_shape(file, ctx, a, n, "labels", "one label per item")?;
    let at = |i: usize| place(ctx, &format!("byte {}", layout.byte_of(&a.shape, false, i)));
    let range = |i: usize, v: String| {
        Error::parse(
            file,
            at(i),
            format!(
                "label [{i}] is {v}, out of range; expected 0 <= label < K = {k} (the number of candidates)"
            ),
        )
    };
    let check_int = |i: usize, x: i64| -> Result<usize> {
        if x < 0 || x as u64 >= k as u64 {
            Err(range(i, x.to_string()))
        } else {
            Ok(x as usize)
        }
    };
    let check_float = |i: usize, x: f64| -> Result<usize> {
        if !x.is_finite() || x.fract() != 0.0 {
            return Err(Error::parse(
                file,
                at(i),
                format!("label [{i}] is {x}; expected an integer class index"),
            ));
        }
        if x < 0.0 || x >= k as f64 {
            return Err(range(i, x.to_string()));
        }
        Ok(x as usize)
    };
    match &a.data {
        NpyData::Int(v) => v.iter().enumerate().map(|(i, &x)| check_int(i, x)).collect(),
        NpyData::F64(v) => v.iter().enumerate().map(|(i, &x)| check_float(i, x)).collect(),
        NpyData::F32(v) => v.iter().enumerate().map(|(i, &x)| check_float(i, f64::from(x))).collect(),
        NpyData::F16(v) => v.iter().enumerate().map(|(i, &x)| check_float(i, float16::to_f64(x))).collect(),
        NpyData::Bool(_) => {
            Err(Error::parse(file, place(ctx, "header"), "labels are bool; expected integer class indices"))
        }
    }
}

/// The first non-finite value and its index.
pub(crate) fn non_finite(d: &NpyData) -> Option<(usize, f64)> {
    // The tensor's branch-free scan: a streamed file's every block passes here, and a search
    // that stops at the first failure checked one score per several instructions.
    let scores = match d {
        NpyData::F64(v) => Scores::F64(v),
        NpyData::F32(v) => Scores::F32(v),
        NpyData::F16(v) => Scores::F16(v),
        NpyData::Int(_) | NpyData::Bool(_) => return None,
    };
    scores.first_non_finite().map(|i| (i, scores.at(i)))
}

/// The `n × m × k` tensor of decoded scores ([`npy::decode`]) kept in their stored type: float16
/// stays float16 and float32 stays f32 (a quarter and half the memory of f64; every reader
/// widens exactly). `None` for bool data, which is no score. The tensor's own checks apply
/// (length, finite scores), with its own messages.
pub(crate) fn tensor_of(n: usize, m: usize, k: usize, data: NpyData) -> Option<Result<ScoreTensor>> {
    Some(match data {
        NpyData::F64(v) => ScoreTensor::new(n, m, k, v),
        NpyData::F32(v) => ScoreTensor::from_f32(n, m, k, v),
        NpyData::F16(v) => ScoreTensor::from_f16_bits(n, m, k, v),
        // Judge scores are often small integers; they convert exactly.
        NpyData::Int(v) => ScoreTensor::new(n, m, k, v.iter().map(|&x| x as f64).collect()),
        NpyData::Bool(_) => return None,
    })
}

/// `(N, M, K)` of a score array's shape `[N, M, K]` or `[N, K]` (then `M = 1` and the flag says
/// so), refusing other ranks and empty axes.
pub(crate) fn score_shape(file: &str, ctx: &str, shape: &[usize]) -> Result<(usize, usize, usize, bool)> {
    let (n, m, k, single) = match *shape {
        [n, m, k] => (n, m, k, false),
        [n, k] => (n, 1, k, true),
        _ => {
            return Err(Error::parse(
                file,
                place(ctx, "header"),
                format!(
                    "scores have shape {}; expected [N, M, K] (items, draws, candidates) or [N, K]",
                    format_shape(shape)
                ),
            ))
        }
    };
    if n == 0 || m == 0 || k == 0 {
        return Err(Error::parse(
            file,
            place(ctx, "header"),
            format!(
                "scores have shape {} with an empty axis; expected at least one item, draw and \
                 candidate",
                format_shape(shape)
            ),
        ));
    }
    Ok((n, m, k, single))
}

/// Builds the score tensor from an `[N, M, K]` or `[N, K]` array; the flag says it was `[N, K]`.
fn scores_from_array(file: &str, ctx: &str, a: NpyArray, layout: &Layout) -> Result<(ScoreTensor, bool)> {
    let (n, m, k, single) = score_shape(file, ctx, &a.shape)?;
    let NpyArray { shape, fortran_order, data } = a;
    let bad = non_finite(&data);
    let Some(scores) = tensor_of(n, m, k, data) else {
        return Err(Error::parse(
            file,
            place(ctx, "header"),
            "scores are bool; expected float16/float32/float64 scores",
        ));
    };
    let scores = scores.map_err(|e| match bad {
        Some((i, x)) => {
            let (item, rest) = (i / (m * k), i % (m * k));
            let idx = if single {
                format!("[{item}][{}]", rest % k)
            } else {
                format!("[{item}][{}][{}]", rest / k, rest % k)
            };
            Error::parse(
                file,
                place(ctx, &format!("byte {}", layout.byte_of(&shape, fortran_order, i))),
                crate::tensor::not_finite(&idx, &x.to_string(), x),
            )
        }
        None => Error::parse(file, place(ctx, "data"), e.to_string()),
    })?;
    Ok((scores, single))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::npy::tests::npy_raw;
    use super::npz::tests::{build_zip, Member};
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The numpy-written fixtures, compiled in so that the tests also run as wasm.
    pub(crate) fn fixture(name: &str) -> Vec<u8> {
        macro_rules! fixtures {
            ($($f:literal),*) => {
                match name {
                    $($f => include_bytes!(concat!("../../../tests/data/io/", $f)).to_vec(),)*
                    other => panic!("no fixture {other}"),
                }
            };
        }
        fixtures!(
            "data.npz",
            "data_compressed.npz",
            "data_f2.npz",
            "data_stream.npz",
            "labels_f2.npy",
            "labels_f8.npy",
            "labels_i4.npy",
            "mask_bool.npy",
            "scores_f2.npy",
            "scores_f2_fortran3.npy",
            "scores_f4.npy",
            "scores_fortran3.npy",
            "scores_nk_fortran.npy"
        )
    }

    /// The fixtures' scores: `((i·M·K + j·K + k) mod 17) / 8 − 1` with N, M, K = 6, 3, 4.
    fn fixture_score(i: usize, j: usize, k: usize) -> f64 {
        ((i * 12 + j * 4 + k) % 17) as f64 / 8.0 - 1.0
    }

    fn check_fixture_scores(t: &ScoreTensor, draws: &[usize]) {
        assert_eq!((t.n(), t.m(), t.k()), (6, draws.len(), 4));
        for i in 0..6 {
            for (jj, &j) in draws.iter().enumerate() {
                for k in 0..4 {
                    assert_eq!(t.get(i, jj, k), fixture_score(i, j, k), "[{i}][{j}][{k}]");
                }
            }
        }
    }

    fn err<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Ok(v) => panic!("expected an error, got {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn numpy_fixtures_parse() {
        let d = read_scores("scores_f4.npy", &fixture("scores_f4.npy")).unwrap();
        check_fixture_scores(&d.scores, &[0, 1, 2]);
        assert!(!d.single_draw && d.labels.is_none());
        let a = parse_npy("f", &fixture("scores_f4.npy")).unwrap();
        assert!(matches!(a.data, NpyData::F32(_)));

        let d = read_scores("f3.npy", &fixture("scores_fortran3.npy")).unwrap();
        check_fixture_scores(&d.scores, &[0, 1, 2]);
        assert!(parse_npy("f", &fixture("scores_fortran3.npy")).unwrap().fortran_order);

        let d = read_scores("nk.npy", &fixture("scores_nk_fortran.npy")).unwrap();
        check_fixture_scores(&d.scores, &[0]);
        assert!(d.single_draw);

        let labels = vec![0, 1, 2, 3, 0, 1];
        for name in ["data.npz", "data_compressed.npz", "data_stream.npz"] {
            let d = read_scores(name, &fixture(name)).unwrap();
            check_fixture_scores(&d.scores, &[0, 1, 2]);
            assert_eq!(d.labels.as_deref(), Some(&labels[..]), "{name}");
        }
        let members = parse_npz("c.npz", &fixture("data_compressed.npz")).unwrap();
        let names: Vec<&str> = members.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["scores", "labels"]);
        // The class-name member is a string array: whole-archive parsing says so, read_scores skips it.
        let e = err(parse_npz("data.npz", &fixture("data.npz")));
        assert!(e.contains("data.npz: member 'classes.npy'") && e.contains("unicode"), "{e}");

        assert_eq!(read_labels("l.npy", &fixture("labels_i4.npy"), 6, 4).unwrap(), labels);
        assert_eq!(read_labels("l.npy", &fixture("labels_f8.npy"), 6, 4).unwrap(), labels);
        assert_eq!(read_labels("d.npz", &fixture("data.npz"), 6, 4).unwrap(), labels);
        let mask = read_mask("m.npy", &fixture("mask_bool.npy"), 6).unwrap();
        assert_eq!(mask, [true, false, true, false, true, false]);
    }

    /// numpy's float16 files read as float16, equal to its float32 file of the same scores, by
    /// the bytes' reader and the streaming one alike.
    #[test]
    fn numpy_float16_fixtures_parse() {
        let f32s = read_scores("f4.npy", &fixture("scores_f4.npy")).unwrap().scores;
        for name in ["scores_f2.npy", "scores_f2_fortran3.npy", "data_f2.npz"] {
            let bytes = fixture(name);
            let d = read_scores(name, &bytes).unwrap();
            check_fixture_scores(&d.scores, &[0, 1, 2]);
            assert!(matches!(d.scores.scores(), crate::tensor::Scores::F16(_)), "{name} stays float16");
            assert_eq!(d.scores, f32s, "{name}");
            assert_eq!(read_scores_from(name, std::io::Cursor::new(&bytes)), Ok(d.clone()), "{name}");
            if name.ends_with(".npz") {
                assert_eq!(d.labels.as_deref(), Some(&[0, 1, 2, 3, 0, 1][..]));
                let streamed = npz_stream(name, &mut std::io::Cursor::new(&bytes), bytes.len() as u64);
                assert!(matches!(streamed, Some(Ok(_))), "{streamed:?}");
            }
        }
        assert!(parse_npy("f", &fixture("scores_f2_fortran3.npy")).unwrap().fortran_order);
        assert_eq!(read_labels("l.npy", &fixture("labels_f2.npy"), 6, 4).unwrap(), [0, 1, 2, 3, 0, 1]);
        let h = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }";
        let ones: Vec<u8> = [0x3c00u16, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(read_mask("m.npy", &npy_raw(1, h, &ones), 2).unwrap(), [true, false]);
        let halves: Vec<u8> = [0x3800u16, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let e = err(read_labels("l.npy", &npy_raw(1, h, &halves), 2, 4));
        assert!(e.contains("label [0] is 0.5") && e.contains("integer"), "{e}");
    }

    /// Non-finite float16 scores are refused as float32 ones are: the same message, naming the
    /// score, its value and its byte in the file.
    #[test]
    fn non_finite_float16_scores_are_refused() {
        let h = "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 1, 3), }";
        for (bits, value) in [(0x7e00u16, "NaN"), (0x7c00, "inf"), (0xfc00, "-inf"), (0xfe01, "NaN")] {
            let mut v = [0x3c00u16; 6];
            v[4] = bits;
            let raw: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            let bytes = npy_raw(1, h, &raw);
            let e = err(read_scores("h.npy", &bytes));
            let at = 10 + h.len() + 4 * 2;
            assert!(
                e.contains(&format!(
                    "h.npy: byte {at}: score [1][0][1] is {value}; expected a finite number"
                )),
                "{e}"
            );
            assert_eq!(err(read_scores_from("h.npy", std::io::Cursor::new(&bytes))), e);
            let e32 = err(ScoreTensor::from_f32(2, 1, 3, v.iter().map(|&x| float16::to_f32(x)).collect()));
            assert_eq!(err(ScoreTensor::from_f16_bits(2, 1, 3, v.to_vec())), e32);
        }
    }

    /// The streaming reader gives what the bytes' reader gives, message for message, and keeps
    /// float32 scores as f32.
    #[test]
    fn streaming_reads_as_the_bytes_do() {
        let f32s: Vec<f32> = (0..24).map(|i| i as f32 / 3.0).collect();
        let good = write_npy_f32(&[2, 3, 4], &f32s);
        let mut non_finite = good.clone();
        let at = non_finite.len() - 8;
        non_finite[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let mut inputs = vec![
            good.clone(),
            write_npy_f64(&[3, 4], &[0.5; 12]),
            write_npy_i64(&[1, 1, 2], &[3, 7]),
            good[..good.len() - 1].to_vec(),
            [&good[..], &[0]].concat(),
            good[..40].to_vec(),
            non_finite,
            npy_raw(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (268435457,), }", &[]),
            b"item,draw,candidate,score\n0,0,0,1.5\n".to_vec(),
            Vec::new(),
        ];
        for name in [
            "scores_f4.npy",
            "scores_fortran3.npy",
            "scores_nk_fortran.npy",
            "scores_f2.npy",
            "scores_f2_fortran3.npy",
        ] {
            inputs.push(fixture(name));
        }
        // Archives: numpy's, and built by hand stored, deflated and zip64, whole and damaged.
        let labels = write_npy_i64(&[2], &[1, 0]);
        let mut zips = vec![
            fixture("data.npz"),
            fixture("data_compressed.npz"),
            fixture("data_stream.npz"),
            fixture("data_f2.npz"),
        ];
        for (deflate, zip64_central) in [(false, false), (true, false), (true, true)] {
            zips.push(build_zip(&[
                Member { name: "scores.npy", data: &good, deflate, zip64_central },
                Member { name: "labels.npy", data: &labels, deflate: !deflate, zip64_central },
            ]));
        }
        for zip in zips {
            // Read by the stream itself, not by the fallback to the bytes.
            let streamed = npz_stream("s.npz", &mut std::io::Cursor::new(&zip), zip.len() as u64);
            assert!(matches!(streamed, Some(Ok(_))), "{streamed:?}");
            for cut in [zip.len() / 3, zip.len() / 2, zip.len() - 30] {
                let mut flipped = zip.clone();
                flipped[cut] ^= 0x55;
                inputs.push(flipped);
                inputs.push([&zip[..cut], &zip[cut + 1..]].concat());
            }
            inputs.push(zip);
        }
        for bytes in &inputs {
            let want = read_scores("s.npy", bytes);
            assert_eq!(read_scores_from("s.npy", std::io::Cursor::new(bytes)), want, "{:?}", want);
        }
        assert!(npy::read_npy_stream(&mut std::io::Cursor::new(&good), good.len() as u64).is_some());
        let d = read_scores_from("s.npy", std::io::Cursor::new(&good)).unwrap();
        assert!(matches!(d.scores.scores(), crate::tensor::Scores::F32(s) if s == f32s));
        let zip =
            build_zip(&[Member { name: "scores.npy", data: &good, deflate: true, zip64_central: false }]);
        let d = read_scores_from("s.npz", std::io::Cursor::new(&zip)).unwrap();
        assert!(matches!(d.scores.scores(), crate::tensor::Scores::F32(s) if s == f32s));
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn reads_a_file_by_path() {
        let dir = std::env::temp_dir().join(format!("rvalue-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.npy");
        std::fs::write(&path, fixture("scores_f4.npy")).unwrap();
        let d = read_scores_file(&path).unwrap();
        check_fixture_scores(&d.scores, &[0, 1, 2]);
        std::fs::remove_file(&path).unwrap();
        let e = err(read_scores_file(&path));
        assert!(e.starts_with(&format!("{}: cannot read: ", path.display())), "{e}");
    }

    #[test]
    fn read_scores_dispatches_on_content() {
        let data: Vec<f64> = (0..12).map(f64::from).collect();
        let d = read_scores("wrong_name.csv", &write_npy_f64(&[2, 3, 2], &data)).unwrap();
        assert_eq!((d.scores.n(), d.scores.m(), d.scores.k()), (2, 3, 2));
        assert_eq!(d.scores.data(), &data[..]);
        let d = read_scores("x.npy", &write_npy_f64(&[3, 4], &data)).unwrap();
        assert!(d.single_draw);
        assert_eq!((d.scores.n(), d.scores.m(), d.scores.k()), (3, 1, 4));
        let d = read_scores("x.npy", &write_npy_i64(&[1, 1, 2], &[3, 7])).unwrap();
        assert_eq!(*d.scores.data(), [3.0, 7.0]);
        let csv = b"item,draw,candidate,score,label\n0,0,0,1.5,1\n0,0,1,2.5,1\n";
        let d = read_scores("x.npz", csv).unwrap();
        assert_eq!(d.labels, Some(vec![1]));
        assert!(!d.single_draw);
    }

    #[test]
    fn npz_built_by_hand() {
        let s = write_npy_f64(&[2, 1, 3], &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
        let l = write_npy_i64(&[2], &[2, 0]);
        let zip = build_zip(&[
            Member { name: "labels.npy", data: &l, deflate: true, zip64_central: false },
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
        ]);
        let d = read_scores("h.npz", &zip).unwrap();
        assert_eq!(d.labels, Some(vec![2, 0]));
        assert_eq!(d.scores.get(1, 0, 2), 0.6);

        let zip = build_zip(&[Member { name: "scores.npy", data: &s, deflate: true, zip64_central: true }]);
        assert_eq!(read_scores("h.npz", &zip).unwrap().labels, None);

        let zip = build_zip(&[Member { name: "x.npy", data: &s, deflate: false, zip64_central: false }]);
        let e = err(read_scores("h.npz", &zip));
        assert!(
            e.contains("h.npz: archive") && e.contains("no member 'scores'") && e.contains("x.npy"),
            "{e}"
        );

        let bad = write_npy_i64(&[3], &[0, 1, 2]);
        let zip = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &bad, deflate: true, zip64_central: false },
        ]);
        let e = err(read_scores("h.npz", &zip));
        assert!(
            e.contains("h.npz: member 'labels.npy', header")
                && e.contains("shape [3]")
                && e.contains("expected [2]"),
            "{e}"
        );
    }

    #[test]
    fn non_finite_scores_name_index_and_byte() {
        let mut v = vec![0.0; 2 * 3 * 4];
        v[21] = f64::NAN; // [1][2][1] = (1·3 + 2)·4 + 1
        let bytes = write_npy_f64(&[2, 3, 4], &v);
        let off = bytes.len() - v.len() * 8;
        let e = err(read_scores("nan.npy", &bytes));
        assert!(e.contains("nan.npy") && e.contains("score [1][2][1] is NaN") && e.contains("finite"), "{e}");
        assert!(e.contains(&format!("byte {}", off + 21 * 8)), "{e}");
        let bytes = write_npy_f64(&[2, 2], &[0.0, 1.0, f64::INFINITY, 0.0]);
        let e = err(read_scores("inf.npy", &bytes));
        assert!(e.contains("score [1][0] is inf"), "{e}");
        // Fortran order: the byte named is where the value really sits in the file.
        let h = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }";
        let raw: Vec<u8> = [0.0f32, f32::NAN, 0.0, 0.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let e = err(read_scores("f.npy", &npy_raw(1, h, &raw)));
        assert!(
            e.contains("score [1][0] is NaN") && e.contains(&format!("byte {}", 10 + h.len() + 4)),
            "{e}"
        );
    }

    #[test]
    fn score_shape_and_dtype_errors() {
        let e = err(read_scores("s.npy", &write_npy_f64(&[4], &[0.0; 4])));
        assert!(
            e.contains("s.npy: header") && e.contains("shape [4]") && e.contains("expected [N, M, K]"),
            "{e}"
        );
        let e = err(read_scores("s.npy", &write_npy_f64(&[0, 2], &[])));
        assert!(e.contains("empty axis"), "{e}");
        let e = err(read_scores("s.npy", &write_npy_bool(&[1, 2], &[true, false])));
        assert!(e.contains("bool") && e.contains("expected float"), "{e}");
        let h = "{'descr': '<U5', 'fortran_order': False, 'shape': (1, 1), }";
        let e = err(read_scores("u.npy", &npy_raw(1, h, &[0; 20])));
        assert!(e.contains("u.npy: byte 10 (header)") && e.contains("'<U5'"), "{e}");
        let e = err(read_scores("t.npy", b"\x93NUMPY\x01"));
        assert!(e.contains("t.npy: byte 0"), "{e}");
    }

    #[test]
    fn labels_are_checked() {
        let e = err(read_labels("l.npy", &write_npy_i64(&[3], &[0, 5, 1]), 3, 5));
        assert!(e.contains("l.npy: byte ") && e.contains("label [1] is 5") && e.contains("K = 5"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_i64(&[3], &[0, 1, -2]), 3, 5));
        assert!(e.contains("label [2] is -2") && e.contains("out of range"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_i64(&[4], &[0; 4]), 3, 5));
        assert!(e.contains("l.npy: header") && e.contains("shape [4]") && e.contains("expected [3]"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_i64(&[3, 1], &[0; 3]), 3, 5));
        assert!(e.contains("shape [3, 1]"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_f64(&[2], &[1.0, 2.5]), 2, 5));
        assert!(e.contains("label [1] is 2.5") && e.contains("integer"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_f64(&[2], &[1.0, 7.0]), 2, 5));
        assert!(e.contains("label [1] is 7") && e.contains("out of range"), "{e}");
        let e = err(read_labels("l.npy", &write_npy_bool(&[2], &[true, false]), 2, 5));
        assert!(e.contains("bool"), "{e}");
        let e = err(read_labels("l.txt", b"0\n1\n", 2, 5));
        assert!(e.contains("l.txt: byte 0") && e.contains("np.save"), "{e}");
        assert_eq!(read_labels("l.npy", &write_npy_f64(&[2], &[4.0, 0.0]), 2, 5).unwrap(), [4, 0]);
    }

    #[test]
    fn masks_are_checked() {
        assert_eq!(read_mask("m.npy", &write_npy_i64(&[3], &[1, 0, 1]), 3).unwrap(), [true, false, true]);
        assert_eq!(read_mask("m.npy", &write_npy_f64(&[2], &[0.0, 1.0]), 2).unwrap(), [false, true]);
        let e = err(read_mask("m.npy", &write_npy_i64(&[3], &[1, 2, 1]), 3));
        assert!(
            e.contains("m.npy: byte ") && e.contains("mask [1] is 2") && e.contains("expected 0 or 1"),
            "{e}"
        );
        let e = err(read_mask("m.npy", &write_npy_bool(&[2], &[true, false]), 3));
        assert!(e.contains("shape [2]") && e.contains("expected [3]"), "{e}");
    }

    #[test]
    fn corrupted_fixtures_never_panic() {
        for name in [
            "scores_f4.npy",
            "scores_fortran3.npy",
            "data.npz",
            "data_compressed.npz",
            "data_stream.npz",
            "scores_f2.npy",
            "data_f2.npz",
        ] {
            let good = fixture(name);
            for i in 0..good.len() {
                for flip in [0x01u8, 0x80, 0xFF] {
                    let mut b = good.clone();
                    b[i] ^= flip;
                    let _ = read_scores(name, &b);
                    let _ = read_labels(name, &b, 6, 4);
                    let _ = read_mask(name, &b, 6);
                }
                let _ = read_scores(name, &good[..i]);
            }
        }
    }

    #[test]
    fn echoed_file_text_stays_one_short_line() {
        assert_eq!(shown("a\n\u{1b}[31m\0"), "a\\n\\u{1b}[31m\\u{0}");
        assert_eq!(shown(&"x".repeat(100)), format!("{}…", "x".repeat(48)));
        let s = write_npy_f64(&[1], &[0.0]);
        let zip = build_zip(&[Member { name: "a\nb.npy", data: &s, deflate: false, zip64_central: false }]);
        let e = err(read_scores("h.npz", &zip));
        assert!(e.contains("found members [a\\nb.npy]") && !e.contains('\n'), "{e}");
        let e = err(read_scores("c.csv", b"item,draw,candidate,score\n0,0,0,1\x07\n"));
        assert!(e.contains("found '1\\u{7}'") && !e.chars().any(char::is_control), "{e}");
        let e = err(read_scores("c.csv", format!("{}\n", "\u{1}".repeat(500)).as_bytes()));
        assert!(e.len() < 400 && !e.chars().any(char::is_control), "{e}");
    }

    #[test]
    fn empty_files_and_empty_archives() {
        for name in ["e.npy", "e.csv", "e.npz"] {
            let e = err(read_scores(name, b""));
            assert!(e.contains(&format!("{name}: byte 0: the file is empty (0 bytes)")), "{e}");
        }
        let zip = build_zip(&[]);
        assert!(zip.starts_with(b"PK\x05\x06"));
        let e = err(read_scores("z.npz", &zip));
        assert!(e.contains("z.npz: archive: no member 'scores'") && e.contains("found members []"), "{e}");
    }

    #[test]
    fn cifar_sized_float32_file() {
        let (n, m, k) = (2000usize, 31usize, 100usize);
        let h = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n}, {m}, {k}), }}");
        let raw: Vec<u8> = (0..n * m * k).flat_map(|i| ((i % 1000) as f32 * 0.01).to_le_bytes()).collect();
        let d = read_scores("cifar.npy", &npy_raw(1, &h, &raw)).unwrap();
        assert_eq!((d.scores.n(), d.scores.m(), d.scores.k()), (n, m, k));
        assert_eq!(d.scores.get(1999, 30, 99), (((n * m * k - 1) % 1000) as f32 * 0.01) as f64);
    }
}
