//! The `.npy` format (versions 1.0, 2.0 and 3.0), read and written by hand so the same code runs
//! natively and in wasm without a numpy dependency.

use std::io::Read;

use super::{place, shown, MAX_ELEMENTS};
use crate::{Error, Result};

/// The six bytes every `.npy` file starts with.
pub const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Array values, widened to one type per family so callers match on five cases, not eleven
/// dtypes; floats stay in their own width.
#[derive(Debug, Clone, PartialEq)]
pub enum NpyData {
    /// `<f2`, as binary16 bit patterns ([`crate::float16`]).
    F16(Vec<u16>),
    /// `<f4`.
    F32(Vec<f32>),
    /// `<f8`.
    F64(Vec<f64>),
    /// Any of `i1 i2 i4 i8 u1 u2 u4 u8` (u8 values above `i64::MAX` are refused).
    Int(Vec<i64>),
    /// `|b1`.
    Bool(Vec<bool>),
}

impl NpyData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            NpyData::F16(v) => v.len(),
            NpyData::F32(v) => v.len(),
            NpyData::F64(v) => v.len(),
            NpyData::Int(v) => v.len(),
            NpyData::Bool(v) => v.len(),
        }
    }

    /// True when the array holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A human name for messages ("float32", "int", …).
    pub fn kind_name(&self) -> &'static str {
        match self {
            NpyData::F16(_) => "float16",
            NpyData::F32(_) => "float32",
            NpyData::F64(_) => "float64",
            NpyData::Int(_) => "integer",
            NpyData::Bool(_) => "bool",
        }
    }
}

/// A parsed `.npy` array whose `data` is always in C (row-major) order.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// The shape from the header (`[]` for a scalar).
    pub shape: Vec<usize>,
    /// Whether the file stored the data in Fortran order (informational: `data` is already C order).
    pub fortran_order: bool,
    /// The values in C order.
    pub data: NpyData,
}

/// Where the data of a parsed array sits in its bytes, so later checks can name a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub data_offset: usize,
    pub itemsize: usize,
}

impl Layout {
    /// Byte offset of the element with C-order index `c_index` in an array of `shape`.
    pub(crate) fn byte_of(&self, shape: &[usize], fortran: bool, c_index: usize) -> usize {
        let lin = if fortran && shape.len() > 1 {
            // Unravel in C order, re-ravel in Fortran order (first axis fastest).
            let mut rest = c_index;
            let mut idx = vec![0usize; shape.len()];
            for (d, &s) in shape.iter().enumerate().rev() {
                let s = s.max(1);
                idx[d] = rest % s;
                rest /= s;
            }
            let mut lin = 0usize;
            let mut stride = 1usize;
            for (d, &s) in shape.iter().enumerate() {
                lin = lin.saturating_add(idx[d].saturating_mul(stride));
                stride = stride.saturating_mul(s);
            }
            lin
        } else {
            c_index
        };
        self.data_offset.saturating_add(lin.saturating_mul(self.itemsize))
    }
}

/// Parses a whole `.npy` file; the data is returned in C order whatever the file's order.
pub fn parse_npy(file: &str, bytes: &[u8]) -> Result<NpyArray> {
    parse_npy_with(file, "", bytes).map(|(a, _)| a)
}

/// A dtype the readers take: its family and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    F2,
    F4,
    F8,
    I1,
    I2,
    I4,
    I8,
    U1,
    U2,
    U4,
    U8,
    B1,
}

impl Kind {
    pub(crate) fn size(self) -> usize {
        match self {
            Kind::I1 | Kind::U1 | Kind::B1 => 1,
            Kind::F2 | Kind::I2 | Kind::U2 => 2,
            Kind::F4 | Kind::I4 | Kind::U4 => 4,
            Kind::F8 | Kind::I8 | Kind::U8 => 8,
        }
    }
}

const EXPECTED_DTYPES: &str = "expected float16/float32/float64 ('<f2'/'<f4'/'<f8'), an integer type \
     ('<i4', '<i8', '|u1', …) or bool ('|b1')";

/// Maps a numpy `descr` string to a supported kind, or explains why it is not supported.
fn parse_descr(descr: &str) -> std::result::Result<Kind, String> {
    let (order, body) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => ('|', descr),
    };
    let kind = match body {
        // numpy's descr for float16 is 'f2'; 'e' is its one-character code.
        "f2" | "e" => Kind::F2,
        "f4" => Kind::F4,
        "f8" => Kind::F8,
        "i1" => Kind::I1,
        "i2" => Kind::I2,
        "i4" => Kind::I4,
        "i8" => Kind::I8,
        "u1" => Kind::U1,
        "u2" => Kind::U2,
        "u4" => Kind::U4,
        "u8" => Kind::U8,
        "b1" => Kind::B1,
        _ => {
            let what = match body.chars().next() {
                Some('U') => "unicode string",
                Some('S') | Some('a') => "byte string",
                Some('c') => "complex",
                Some('O') => "Python object (pickled)",
                Some('V') => "raw void/record",
                Some('M') => "datetime",
                Some('m') => "timedelta",
                Some('f') => "float of an unsupported width",
                _ => "unknown",
            };
            return Err(format!("unsupported dtype '{}' ({what}); {EXPECTED_DTYPES}", shown(descr)));
        }
    };
    if kind.size() > 1 {
        match order {
            '>' => {
                return Err(format!(
                    "big-endian dtype '{descr}' is not supported; save little-endian \
                     (arr.astype('<{body}'))"
                ))
            }
            '=' => {
                return Err(format!(
                    "dtype '{descr}' has native byte order '=' which does not say the byte order; \
                     expected little-endian '<{body}'"
                ))
            }
            '|' if descr.starts_with('|') => {}
            '|' => return Err(format!("dtype '{descr}' has no byte order; expected '<{body}'")),
            _ => {}
        }
    }
    Ok(kind)
}

/// A Python literal as it appears in a `.npy` header.
#[derive(Debug, Clone, PartialEq)]
enum Lit {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    /// Tuple or list.
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

/// A recursive-descent reader for the tiny subset of Python literals numpy writes.
struct LitParser<'a> {
    s: &'a [u8],
    i: usize,
}

type PResult<T> = std::result::Result<T, (usize, String)>;

impl LitParser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err((self.i, msg.into()))
    }

    fn value(&mut self, depth: usize) -> PResult<Lit> {
        if depth > 16 {
            return self.err("header literal nested too deeply");
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("header ends early; expected a value"),
            Some(b'\'' | b'"') => self.string(),
            Some(b'(') => self.seq(b')', depth),
            Some(b'[') => self.seq(b']', depth),
            Some(b'{') => self.dict(depth),
            Some(b) if b.is_ascii_digit() => self.int(),
            Some(b'-') => self.err("negative number in header; expected a non-negative size"),
            Some(_) => self.word(),
        }
    }

    fn string(&mut self) -> PResult<Lit> {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return self.err("unterminated string in header"),
                Some(&b) if b == quote => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    // Python's escapes, as numpy's `literal_eval` reads them: `'fortran_orde\r'`
                    // is not the key 'fortran_order'. numpy writes none; others are refused.
                    self.i += 1;
                    let b = match self.s.get(self.i) {
                        Some(&b @ (b'\\' | b'\'' | b'"')) => b,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'0') => 0,
                        Some(_) => return self.err("unsupported escape sequence in a header string"),
                        None => return self.err("unterminated string in header"),
                    };
                    out.push(b);
                    self.i += 1;
                }
                Some(&b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
        match String::from_utf8(out) {
            Ok(s) => Ok(Lit::Str(s)),
            Err(_) => self.err("string in header is not UTF-8"),
        }
    }

    fn int(&mut self) -> PResult<Lit> {
        let mut v: u64 = 0;
        while let Some(&b) = self.s.get(self.i) {
            if !b.is_ascii_digit() {
                break;
            }
            v = match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(b - b'0'))) {
                Some(v) => v,
                None => return self.err("number in header is too large"),
            };
            self.i += 1;
        }
        // Python 2 era files wrote longs as `3L`.
        if matches!(self.s.get(self.i), Some(b'L' | b'l')) {
            self.i += 1;
        }
        Ok(Lit::Int(v))
    }

    fn word(&mut self) -> PResult<Lit> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            self.i += 1;
        }
        match &self.s[start..self.i] {
            b"True" => Ok(Lit::Bool(true)),
            b"False" => Ok(Lit::Bool(false)),
            b"None" => Ok(Lit::None),
            _ => {
                self.i = start;
                self.err("unexpected text in header; expected a string, number, True/False or tuple")
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> PResult<Lit> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&close) {
                self.i += 1;
                return Ok(Lit::Seq(items));
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(&b) if b == close => {}
                _ => return self.err(format!("expected ',' or '{}' in header", close as char)),
            }
        }
    }

    fn dict(&mut self, depth: usize) -> PResult<Lit> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&b'}') {
                self.i += 1;
                return Ok(Lit::Dict(items));
            }
            let key = self.value(depth + 1)?;
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return self.err("expected ':' after a key in the header dictionary");
            }
            self.i += 1;
            let value = self.value(depth + 1)?;
            items.push((key, value));
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return self.err("expected ',' or '}' in the header dictionary"),
            }
        }
    }
}

/// A little-endian `u16` at byte `at`, `None` past the end (the zip reader uses it too).
pub(super) fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// A little-endian `u32` at byte `at`, `None` past the end.
pub(super) fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A `.npy` header, read and checked: what the data must be.
pub(crate) struct Header {
    pub(crate) kind: Kind,
    pub(crate) fortran_order: bool,
    pub(crate) shape: Vec<usize>,
    pub(crate) count: usize,
    pub(crate) data_offset: usize,
}

/// Parses a `.npy` held in `bytes`; `ctx` prefixes every place (e.g. an npz member name).
pub(crate) fn parse_npy_with(file: &str, ctx: &str, bytes: &[u8]) -> Result<(NpyArray, Layout)> {
    let h = parse_header(file, ctx, bytes)?;
    let perr = |at: String, msg: String| Error::parse(file, place(ctx, &at), msg);
    let itemsize = h.kind.size();
    check_data_len(file, ctx, &h, (bytes.len() - h.data_offset) as u64)?;
    let Header { kind, fortran_order, shape, data_offset, .. } = h;
    let raw = &bytes[data_offset..];
    let data =
        decode(kind, raw).map_err(|(i, msg)| perr(format!("byte {}", data_offset + i * itemsize), msg))?;
    Ok(in_c_order(NpyArray { shape, fortran_order, data }, Layout { data_offset, itemsize }))
}

/// Refuses data of another size than the header says: `have` bytes follow the header.
pub(crate) fn check_data_len(file: &str, ctx: &str, h: &Header, have: u64) -> Result<()> {
    let nbytes = (h.count * h.kind.size()) as u64; // no overflow: checked by the header's parse
    if have == nbytes {
        return Ok(());
    }
    let what =
        if have < nbytes { "truncated data" } else { "oversized data (trailing bytes after the array)" };
    Err(Error::parse(
        file,
        place(ctx, &format!("byte {}", h.data_offset)),
        format!(
            "{what}: the header says shape {} of {} = {nbytes} bytes, the file has {have} bytes of data",
            format_shape(&h.shape),
            dtype_label(h.kind)
        ),
    ))
}

/// The header of the `.npy` that `r` is at, read without the data (at most a megabyte, so a
/// hostile length is refused before anything large is read); `r` is left where the data starts.
pub(crate) fn read_header(r: &mut impl Read, file: &str, ctx: &str) -> Result<Header> {
    const MAX_HEADER: usize = 1 << 20;
    let io = |e: std::io::Error| Error::Io { file: file.to_string(), message: format!("cannot read: {e}") };
    let mut head = Vec::with_capacity(128);
    r.by_ref().take(12).read_to_end(&mut head).map_err(io)?;
    let header_len = match head.get(6) {
        Some(1) => read_u16(&head, 8).map(|l| usize::from(l) + 10),
        Some(2 | 3) => read_u32(&head, 8).and_then(|l| usize::try_from(l).ok()).map(|l| l + 12),
        _ => None,
    };
    if let Some(rest) = header_len.and_then(|l| l.checked_sub(head.len())).filter(|&l| l <= MAX_HEADER) {
        r.by_ref().take(rest as u64).read_to_end(&mut head).map_err(io)?;
    }
    // A version 1 header has two bytes of length: the first data byte came with the twelve.
    let h = parse_header_uncapped(file, ctx, &head)?;
    if head.len() > h.data_offset {
        return Err(Error::parse(file, place(ctx, "byte 8"), "header length is shorter than its own fields"));
    }
    Ok(h)
}

/// The array with its data in C order, whatever the file's order.
fn in_c_order(a: NpyArray, layout: Layout) -> (NpyArray, Layout) {
    let NpyArray { shape, fortran_order, data } = a;
    let data = if fortran_order {
        match data {
            NpyData::F16(v) => NpyData::F16(fortran_to_c(v, &shape)),
            NpyData::F32(v) => NpyData::F32(fortran_to_c(v, &shape)),
            NpyData::F64(v) => NpyData::F64(fortran_to_c(v, &shape)),
            NpyData::Int(v) => NpyData::Int(fortran_to_c(v, &shape)),
            NpyData::Bool(v) => NpyData::Bool(fortran_to_c(v, &shape)),
        }
    } else {
        data
    };
    (NpyArray { shape, fortran_order, data }, layout)
}

/// The header of the `.npy` that `bytes` starts with; of the data, only its size is checked, and
/// only against the header (`bytes` may end where the header does). No limit on the element
/// count: a streamed reader holds a block at a time ([`parse_header`] adds the limit).
pub(crate) fn parse_header_uncapped(file: &str, ctx: &str, bytes: &[u8]) -> Result<Header> {
    let perr = |at: String, msg: String| Error::parse(file, place(ctx, &at), msg);
    if bytes.len() < 10 || &bytes[..6] != NPY_MAGIC {
        return Err(perr(
            "byte 0".into(),
            format!(
                "not a .npy file: expected the magic bytes \\x93NUMPY and a header, found {} bytes{}",
                bytes.len(),
                if bytes.starts_with(NPY_MAGIC) { " (too short)" } else { "" }
            ),
        ));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_len, header_start) = match major {
        1 => (read_u16(bytes, 8).map(usize::from), 10usize),
        2 | 3 => (read_u32(bytes, 8).and_then(|v| usize::try_from(v).ok()), 12usize),
        _ => {
            return Err(perr(
                "byte 6".into(),
                format!("unsupported .npy format version {major}.{minor}; expected 1.0, 2.0 or 3.0"),
            ))
        }
    };
    let header_len = header_len.ok_or_else(|| {
        perr("byte 8".into(), "file ends inside the header length; expected a complete .npy header".into())
    })?;
    let data_offset = header_start
        .checked_add(header_len)
        .ok_or_else(|| perr("byte 8".into(), "header length overflows".into()))?;
    let header_bytes = bytes.get(header_start..data_offset).ok_or_else(|| {
        perr(
            format!("byte {header_start}"),
            format!(
                "truncated header: the file says the header is {header_len} bytes, but only {} remain",
                bytes.len().saturating_sub(header_start)
            ),
        )
    })?;
    let header_place = |pos: usize| format!("byte {} (header)", header_start + pos);
    // Versions 1 and 2 are latin-1 in principle, but numpy only ever writes ASCII there.
    let header = std::str::from_utf8(header_bytes).map_err(|e| {
        perr(
            header_place(e.valid_up_to()),
            "header is not ASCII/UTF-8 text; expected a Python dict literal".into(),
        )
    })?;
    let mut p = LitParser { s: header.as_bytes(), i: 0 };
    let dict = p.value(0).map_err(|(pos, msg)| perr(header_place(pos), msg))?;
    p.ws();
    if p.i != p.s.len() {
        return Err(perr(header_place(p.i), "unexpected text after the header dictionary".into()));
    }
    let Lit::Dict(items) = dict else {
        return Err(perr(
            header_place(0),
            "header is not a dictionary; expected {'descr': …, 'fortran_order': …, 'shape': …}".into(),
        ));
    };
    let get = |key: &str| items.iter().find(|(k, _)| *k == Lit::Str(key.to_string())).map(|(_, v)| v);
    let missing = |key: &str| {
        perr(
            header_place(0),
            format!("header has no '{key}' key; expected 'descr', 'fortran_order' and 'shape'"),
        )
    };
    let kind =
        descr_kind(get("descr").ok_or_else(|| missing("descr"))?).map_err(|m| perr(header_place(0), m))?;
    let fortran_order = match get("fortran_order").ok_or_else(|| missing("fortran_order"))? {
        Lit::Bool(b) => *b,
        _ => return Err(perr(header_place(0), "'fortran_order' is not True or False".into())),
    };
    let shape =
        shape_of(get("shape").ok_or_else(|| missing("shape"))?).map_err(|m| perr(header_place(0), m))?;
    let count = element_count(&shape, kind).map_err(|m| perr(header_place(0), m))?;
    Ok(Header { kind, fortran_order, shape, count, data_offset })
}

/// The header's `descr` value as a supported kind, or why not.
fn descr_kind(lit: &Lit) -> std::result::Result<Kind, String> {
    match lit {
        Lit::Str(d) => parse_descr(d),
        Lit::Seq(_) => Err(format!("structured (record) dtype is not supported; {EXPECTED_DTYPES}")),
        _ => Err("'descr' is not a string; expected a dtype such as '<f8'".into()),
    }
}

/// The header's `shape` value as dimensions, or why not.
fn shape_of(lit: &Lit) -> std::result::Result<Vec<usize>, String> {
    let Lit::Seq(dims) = lit else {
        return Err("'shape' is not a tuple; expected e.g. (100, 10)".into());
    };
    let mut shape = Vec::with_capacity(dims.len().min(64));
    for d in dims {
        let Lit::Int(v) = d else {
            return Err("'shape' holds a non-integer; expected a tuple such as (100, 10)".into());
        };
        shape.push(
            usize::try_from(*v).map_err(|_| format!("shape dimension {v} is too large for this platform"))?,
        );
    }
    Ok(shape)
}

/// The header of the `.npy` that `bytes` starts with, refused if it claims more than
/// [`MAX_ELEMENTS`] elements: what a reader that holds the whole array may allocate.
fn parse_header(file: &str, ctx: &str, bytes: &[u8]) -> Result<Header> {
    let h = parse_header_uncapped(file, ctx, bytes)?;
    if h.count > MAX_ELEMENTS {
        let at = format!("byte {} (header)", if bytes.get(6) == Some(&1) { 10 } else { 12 });
        return Err(Error::parse(
            file,
            place(ctx, &at),
            format!(
                "shape {} has {} elements, more than the limit of {MAX_ELEMENTS} elements",
                format_shape(&h.shape),
                h.count
            ),
        ));
    }
    Ok(h)
}

/// The number of elements of `shape`, refused if it or its byte size overflows.
fn element_count(shape: &[usize], kind: Kind) -> std::result::Result<usize, String> {
    let shape_txt = format_shape(shape);
    let count = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).ok_or_else(|| {
        format!("shape {shape_txt} has too many elements (the count overflows); the limit is {MAX_ELEMENTS} elements")
    })?;
    count
        .checked_mul(kind.size())
        .ok_or_else(|| format!("shape {shape_txt} is too large (byte size overflows)"))?;
    Ok(count)
}

/// Reads a `.npy` from `r` a chunk at a time into its array, never holding the file's bytes:
/// float data goes straight into its vector. `total` is the stream's length.
/// `None` unless [`parse_npy_with`] would accept the same bytes, and then the same array: a
/// caller that gets `None` reads the bytes and parses them for the message.
pub(crate) fn read_npy_stream(r: &mut impl Read, total: u64) -> Option<(NpyArray, Layout)> {
    let mut head = Vec::with_capacity(128);
    r.by_ref().take(12).read_to_end(&mut head).ok()?;
    let header_len = match head.get(6) {
        Some(1) => usize::from(read_u16(&head, 8)?) + 10,
        Some(2 | 3) => usize::try_from(read_u32(&head, 8)?).ok()? + 12,
        _ => return None,
    };
    // A bounded header: a claim of gigabytes must not be read into memory first.
    let rest = header_len.checked_sub(head.len()).filter(|&n| n <= 1 << 20)?;
    r.by_ref().take(rest as u64).read_to_end(&mut head).ok()?;
    let h = parse_header("", "", &head).ok()?;
    let Header { kind, fortran_order, shape, count, data_offset } = h;
    // Sized as the header says before anything is allocated for the data.
    (total == (data_offset + count * kind.size()) as u64).then_some(())?;
    let data = match kind {
        Kind::F2 => NpyData::F16(read_values(r, count, u16::from_le_bytes)?),
        Kind::F4 => NpyData::F32(read_values(r, count, f32::from_le_bytes)?),
        Kind::F8 => NpyData::F64(read_values(r, count, f64::from_le_bytes)?),
        _ => {
            let mut raw = Vec::with_capacity(count * kind.size());
            r.by_ref().take((count * kind.size()) as u64).read_to_end(&mut raw).ok()?;
            (raw.len() == count * kind.size()).then_some(())?;
            decode(kind, &raw).ok()?
        }
    };
    // Nothing may follow the array.
    (r.read(&mut [0u8]).ok()? == 0).then_some(())?;
    let layout = Layout { data_offset, itemsize: kind.size() };
    Some(in_c_order(NpyArray { shape, fortran_order, data }, layout))
}

/// Exactly `count` values of `W` little-endian bytes each from `r`, or `None`.
fn read_values<T, const W: usize>(
    r: &mut impl Read,
    count: usize,
    f: impl Fn([u8; W]) -> T,
) -> Option<Vec<T>> {
    let mut out = Vec::with_capacity(count);
    const CHUNK: usize = 4096;
    let mut buf = vec![0u8; count.min(CHUNK) * W];
    while out.len() < count {
        let chunk = &mut buf[..(count - out.len()).min(CHUNK) * W];
        r.read_exact(chunk).ok()?;
        out.extend(chunk.chunks_exact(W).map(|c| {
            let mut a = [0u8; W];
            a.copy_from_slice(c);
            f(a)
        }));
    }
    Some(out)
}

pub(crate) fn dtype_label(kind: Kind) -> &'static str {
    match kind {
        Kind::F2 => "float16 (2 bytes each)",
        Kind::F4 => "float32 (4 bytes each)",
        Kind::F8 => "float64 (8 bytes each)",
        Kind::I1 => "int8 (1 byte each)",
        Kind::I2 => "int16 (2 bytes each)",
        Kind::I4 => "int32 (4 bytes each)",
        Kind::I8 => "int64 (8 bytes each)",
        Kind::U1 => "uint8 (1 byte each)",
        Kind::U2 => "uint16 (2 bytes each)",
        Kind::U4 => "uint32 (4 bytes each)",
        Kind::U8 => "uint64 (8 bytes each)",
        Kind::B1 => "bool (1 byte each)",
    }
}

/// `[2, 3]`-style text for messages.
pub(crate) fn format_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Decodes exactly-sized little-endian data of `kind` (a whole array or any run of whole
/// elements of one); on a bad value returns its element index in `raw`. Floats keep their
/// width (float16 as bit patterns), so scores are stored as the file holds them.
pub(crate) fn decode(kind: Kind, raw: &[u8]) -> std::result::Result<NpyData, (usize, String)> {
    // `chunks_exact` plus fixed-size arrays lets the compiler drop per-element bounds checks.
    fn ints<const W: usize>(raw: &[u8], f: impl Fn([u8; W]) -> i64) -> NpyData {
        NpyData::Int(
            raw.chunks_exact(W)
                .map(|c| {
                    let mut a = [0u8; W];
                    a.copy_from_slice(c);
                    f(a)
                })
                .collect(),
        )
    }
    Ok(match kind {
        Kind::F2 => NpyData::F16(raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect()),
        Kind::F4 => {
            NpyData::F32(raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
        }
        Kind::F8 => NpyData::F64(
            raw.chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ),
        Kind::I1 => ints::<1>(raw, |a| i64::from(i8::from_le_bytes(a))),
        Kind::I2 => ints::<2>(raw, |a| i64::from(i16::from_le_bytes(a))),
        Kind::I4 => ints::<4>(raw, |a| i64::from(i32::from_le_bytes(a))),
        Kind::I8 => ints::<8>(raw, i64::from_le_bytes),
        Kind::U1 => ints::<1>(raw, |a| i64::from(a[0])),
        Kind::U2 => ints::<2>(raw, |a| i64::from(u16::from_le_bytes(a))),
        Kind::U4 => ints::<4>(raw, |a| i64::from(u32::from_le_bytes(a))),
        Kind::U8 => {
            let mut out = Vec::with_capacity(raw.len() / 8);
            for (i, c) in raw.chunks_exact(8).enumerate() {
                let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                match i64::try_from(v) {
                    Ok(v) => out.push(v),
                    Err(_) => {
                        return Err((
                            i,
                            format!(
                                "uint64 value {v} at element {i} is larger than {}; expected \
                                 values that fit in int64",
                                i64::MAX
                            ),
                        ))
                    }
                }
            }
            NpyData::Int(out)
        }
        Kind::B1 => {
            let mut out = Vec::with_capacity(raw.len());
            for (i, &b) in raw.iter().enumerate() {
                match b {
                    0 => out.push(false),
                    1 => out.push(true),
                    _ => return Err((i, format!("bool element {i} has byte value {b}; expected 0 or 1"))),
                }
            }
            NpyData::Bool(out)
        }
    })
}

/// Reorders Fortran-order data (first axis fastest) into C order (last axis fastest).
fn fortran_to_c<T: Copy + Default>(src: Vec<T>, shape: &[usize]) -> Vec<T> {
    let rank = shape.len();
    if rank <= 1 || src.len() <= 1 || shape.iter().filter(|&&d| d > 1).count() <= 1 {
        // With at most one axis longer than 1 the two orders coincide.
        return src;
    }
    // C strides: the stride of axis d is the product of the later axes.
    let mut cstride = vec![1usize; rank];
    for d in (0..rank - 1).rev() {
        cstride[d] = cstride[d + 1] * shape[d + 1];
    }
    let mut out = vec![T::default(); src.len()];
    let mut idx = vec![0usize; rank];
    let mut c_off = 0usize;
    // Walk the source in its own (Fortran) order, keeping the C offset of the current index.
    for &v in &src {
        out[c_off] = v;
        for d in 0..rank {
            idx[d] += 1;
            c_off += cstride[d];
            if idx[d] < shape[d] {
                break;
            }
            c_off -= cstride[d] * shape[d];
            idx[d] = 0;
        }
    }
    out
}

/// Serialises a version-1.0 header for `descr` and `shape`, padded to a multiple of 64 bytes.
fn header_bytes(descr: &str, shape: &[usize]) -> Vec<u8> {
    let shape_txt = match shape {
        [d] => format!("({d},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            format!("({})", parts.join(", "))
        }
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    // Version 1.0 has a 2-byte length; a header beyond that needs version 2.0.
    let (version, prefix) =
        if dict.len() + 1 + 10 + 64 <= usize::from(u16::MAX) { (1u8, 10usize) } else { (2u8, 12usize) };
    let unpadded = prefix + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let hlen = total - prefix;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(NPY_MAGIC);
    out.push(version);
    out.push(0);
    if version == 1 {
        out.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// Writes a little-endian C-order float64 `.npy`; `data.len()` should be the product of `shape`.
pub fn write_npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    let mut out = header_bytes("<f8", shape);
    out.reserve(data.len() * 8);
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes a little-endian C-order float32 `.npy`; `data.len()` should be the product of `shape`.
pub fn write_npy_f32(shape: &[usize], data: &[f32]) -> Vec<u8> {
    let mut out = header_bytes("<f4", shape);
    out.reserve(data.len() * 4);
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes a little-endian C-order float16 `.npy` of binary16 bit patterns ([`crate::float16`]);
/// `data.len()` should be the product of `shape`.
pub fn write_npy_f16_bits(shape: &[usize], data: &[u16]) -> Vec<u8> {
    let mut out = header_bytes("<f2", shape);
    out.reserve(data.len() * 2);
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes a little-endian C-order int64 `.npy`; `data.len()` should be the product of `shape`.
pub fn write_npy_i64(shape: &[usize], data: &[i64]) -> Vec<u8> {
    let mut out = header_bytes("<i8", shape);
    out.reserve(data.len() * 8);
    for v in data {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// Writes a C-order bool `.npy`; `data.len()` should be the product of `shape`.
pub fn write_npy_bool(shape: &[usize], data: &[bool]) -> Vec<u8> {
    let mut out = header_bytes("|b1", shape);
    out.extend(data.iter().map(|&b| u8::from(b)));
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    pub(crate) use crate::io::test_files::npy_raw;

    fn f64_bytes(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn err_text(r: Result<NpyArray>) -> String {
        match r {
            Ok(a) => panic!("expected an error, got {a:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn round_trip_writers() {
        let d: Vec<f64> = (0..24).map(|i| i as f64 * 0.5 - 3.0).collect();
        let bytes = write_npy_f64(&[2, 3, 4], &d);
        assert_eq!(bytes.len() % 64, (24 * 8) % 64);
        let a = parse_npy("a.npy", &bytes).unwrap();
        assert_eq!(a.shape, vec![2, 3, 4]);
        assert!(!a.fortran_order);
        assert_eq!(a.data, NpyData::F64(d));

        let a = parse_npy("b.npy", &write_npy_i64(&[3], &[-1, 0, i64::MAX])).unwrap();
        assert_eq!(a.shape, vec![3]);
        assert_eq!(a.data, NpyData::Int(vec![-1, 0, i64::MAX]));

        let a = parse_npy("c.npy", &write_npy_bool(&[2, 1], &[true, false])).unwrap();
        assert_eq!(a.data, NpyData::Bool(vec![true, false]));

        let a = parse_npy("d.npy", &write_npy_f64(&[], &[7.0])).unwrap();
        assert!(a.shape.is_empty());
        assert_eq!(a.data, NpyData::F64(vec![7.0]));

        let a = parse_npy("e.npy", &write_npy_f64(&[0, 3], &[])).unwrap();
        assert_eq!(a.shape, vec![0, 3]);
        assert!(a.data.is_empty());
    }

    #[test]
    fn versions_two_and_three_and_loose_headers() {
        let data = f64_bytes(&[1.0, 2.0]);
        let h = "{'descr':'<f8','fortran_order':False,'shape':(2,)}\n";
        let a = parse_npy("v2.npy", &npy_raw(2, h, &data)).unwrap();
        assert_eq!(a.data, NpyData::F64(vec![1.0, 2.0]));
        // Version 3 allows UTF-8 in the header (here in an ignored extra key).
        let h = "{ \"descr\" : \"<f8\" , 'shape' : ( 2 , ) , 'fortran_order' : False , 'note': 'µ', }   \n";
        let a = parse_npy("v3.npy", &npy_raw(3, h, &data)).unwrap();
        assert_eq!(a.shape, vec![2]);
        let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
        let a = parse_npy("s.npy", &npy_raw(1, h, &f64_bytes(&[4.0]))).unwrap();
        assert!(a.shape.is_empty());
        let h = "{'descr': '<i8', 'fortran_order': False, 'shape': (1L, 2L)}";
        let a =
            parse_npy("py2.npy", &npy_raw(1, h, &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0])).unwrap();
        assert_eq!(a.data, NpyData::Int(vec![1, 2]));
    }

    #[test]
    fn header_strings_read_python_escapes() {
        let data = f64_bytes(&[1.0, 2.0]);
        // Escaped quotes are the quote; numpy's literal_eval reads the same.
        let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'n\\'o\\\\te': 1}";
        assert_eq!(parse_npy("q.npy", &npy_raw(1, h, &data)).unwrap().shape, vec![2]);
        // `\r` is a carriage return: this key is not 'fortran_order', so that key is missing.
        let h = "{'descr': '<f8', 'fortran_orde\\r': False, 'shape': (2,), }";
        let e = parse_npy("r.npy", &npy_raw(1, h, &data)).unwrap_err().to_string();
        assert!(e.contains("no 'fortran_order' key"), "{e}");
        let h = "{'descr': '<f\\x38', 'fortran_order': False, 'shape': (2,), }";
        let e = parse_npy("x.npy", &npy_raw(1, h, &data)).unwrap_err().to_string();
        assert!(e.contains("unsupported escape"), "{e}");
    }

    #[test]
    fn fortran_order_is_transposed_to_c() {
        // C array [[0,1,2],[3,4,5]] stored in Fortran order: 0,3,1,4,2,5.
        let h = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
        let a = parse_npy("f.npy", &npy_raw(1, h, &f64_bytes(&[0., 3., 1., 4., 2., 5.]))).unwrap();
        assert!(a.fortran_order);
        assert_eq!(a.data, NpyData::F64(vec![0., 1., 2., 3., 4., 5.]));
        // Rank 3: element [i][j][k] = 100i + 10j + k, shape (2,3,4), Fortran order.
        let (n, m, k) = (2, 3, 4);
        let mut f = Vec::new();
        for kk in 0..k {
            for j in 0..m {
                for i in 0..n {
                    f.push((100 * i + 10 * j + kk) as i64);
                }
            }
        }
        let raw: Vec<u8> = f.iter().flat_map(|x| x.to_le_bytes()).collect();
        let h = "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 4), }";
        let a = parse_npy("f3.npy", &npy_raw(1, h, &raw)).unwrap();
        let want: Vec<i64> = (0..n)
            .flat_map(|i| (0..m).flat_map(move |j| (0..k).map(move |kk| (100 * i + 10 * j + kk) as i64)))
            .collect();
        assert_eq!(a.data, NpyData::Int(want));
        // The byte offset of C index 1 ([0][0][1]) in Fortran order is element n*m = 6.
        let l = Layout { data_offset: 64, itemsize: 8 };
        assert_eq!(l.byte_of(&[2, 3, 4], true, 1), 64 + 6 * 8);
    }

    #[test]
    fn float32_and_integer_kinds() {
        let raw: Vec<u8> = [1.5f32, -2.0, 3.25].iter().flat_map(|x| x.to_le_bytes()).collect();
        let h = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
        let a = parse_npy("f4.npy", &npy_raw(1, h, &raw)).unwrap();
        assert_eq!(a.data, NpyData::F32(vec![1.5, -2.0, 3.25]));
        let cases: [(&str, Vec<u8>, Vec<i64>); 7] = [
            ("|i1", vec![0xff, 2], vec![-1, 2]),
            ("|u1", vec![0xff, 2], vec![255, 2]),
            ("<i2", vec![0xff, 0xff, 2, 0], vec![-1, 2]),
            ("<u2", vec![0xff, 0xff, 2, 0], vec![65535, 2]),
            ("<i4", [-7i32, 9].iter().flat_map(|x| x.to_le_bytes()).collect(), vec![-7, 9]),
            ("<u4", [u32::MAX, 9].iter().flat_map(|x| x.to_le_bytes()).collect(), vec![u32::MAX as i64, 9]),
            ("<u8", [5u64, 9].iter().flat_map(|x| x.to_le_bytes()).collect(), vec![5, 9]),
        ];
        for (descr, raw, want) in cases {
            let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
            let a = parse_npy("i.npy", &npy_raw(1, &h, &raw)).unwrap();
            assert_eq!(a.data, NpyData::Int(want), "{descr}");
        }
    }

    /// float16 data is kept as its bit patterns, in C order whatever the file's order, each
    /// pattern as the file holds it (NaN and infinity too: only scores must be finite).
    #[test]
    fn float16_is_kept_as_bit_patterns() {
        let bits: [u16; 6] = [0x3c00, 0xc000, 0x0001, 0x7bff, 0x7e00, 0xfc00];
        let raw: Vec<u8> = bits.iter().flat_map(|x| x.to_le_bytes()).collect();
        let h = "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }";
        let a = parse_npy("f2.npy", &npy_raw(1, h, &raw)).unwrap();
        assert_eq!((a.shape.as_slice(), a.data.kind_name()), (&[2, 3][..], "float16"));
        assert_eq!(a.data, NpyData::F16(bits.to_vec()));
        assert_eq!(parse_npy("w.npy", &write_npy_f16_bits(&[2, 3], &bits)).unwrap(), a);
        let h = "{'descr': '<f2', 'fortran_order': True, 'shape': (3, 2), }";
        let a = parse_npy("f2.npy", &npy_raw(1, h, &raw)).unwrap();
        assert_eq!(a.data, NpyData::F16(vec![0x3c00, 0x7bff, 0xc000, 0x7e00, 0x0001, 0xfc00]));
        let streamed =
            read_npy_stream(&mut std::io::Cursor::new(npy_raw(1, h, &raw)), 10 + h.len() as u64 + 12);
        assert_eq!(
            streamed.map(|(a, _)| a.data),
            Some(NpyData::F16(vec![0x3c00, 0x7bff, 0xc000, 0x7e00, 0x0001, 0xfc00]))
        );
        let e = err_text(parse_npy("t.npy", &npy_raw(1, h, &raw[..11])));
        assert!(
            e.contains("truncated") && e.contains("float16 (2 bytes each)") && e.contains("12 bytes"),
            "{e}"
        );
        let h = "{'descr': '|f2', 'fortran_order': False, 'shape': (1,), }";
        assert_eq!(parse_npy("p.npy", &npy_raw(1, h, &[0, 0x3c])).unwrap().data, NpyData::F16(vec![0x3c00]));
    }

    #[test]
    fn refuses_bad_dtypes() {
        for (descr, word) in
            [("<U5", "unicode"), ("<c16", "complex"), ("|O", "object"), ("<f16", "width"), ("|S3", "string")]
        {
            let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}");
            let e = err_text(parse_npy("x.npy", &npy_raw(1, &h, &[0; 16])));
            assert!(e.contains("x.npy") && e.contains("header") && e.contains(word), "{e}");
            assert!(e.contains("expected float16/float32/float64"), "{e}");
        }
        for (descr, size) in [(">f8", 8), (">f4", 4), (">f2", 2)] {
            let h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (1,), }}");
            let e = err_text(parse_npy("be.npy", &npy_raw(1, &h, &vec![0; size])));
            assert!(e.contains("big-endian") && e.contains("be.npy") && e.contains("byte 10"), "{e}");
            assert!(e.contains(&format!("'{descr}'")) && e.contains(&format!("'<{}'", &descr[1..])), "{e}");
        }
        let h = "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }";
        let e = err_text(parse_npy("rec.npy", &npy_raw(1, h, &[0; 8])));
        assert!(e.contains("structured"), "{e}");
        let h = "{'descr': '<u8', 'fortran_order': False, 'shape': (2,), }";
        let mut raw = 1u64.to_le_bytes().to_vec();
        raw.extend_from_slice(&u64::MAX.to_le_bytes());
        let e = err_text(parse_npy("u.npy", &npy_raw(1, h, &raw)));
        assert!(e.contains("u.npy: byte ") && e.contains("int64"), "{e}");
        let h = "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }";
        let e = err_text(parse_npy("b.npy", &npy_raw(1, h, &[1, 7])));
        assert!(e.contains(&format!("byte {}", 10 + h.len() + 1)) && e.contains("expected 0 or 1"), "{e}");
    }

    #[test]
    fn refuses_truncated_and_oversized_data() {
        let mut bytes = write_npy_f64(&[4], &[1.0, 2.0, 3.0, 4.0]);
        let data_offset = bytes.len() - 32;
        let full = bytes.clone();
        bytes.truncate(bytes.len() - 3);
        let e = err_text(parse_npy("t.npy", &bytes));
        assert!(e.contains("t.npy") && e.contains("truncated"), "{e}");
        assert!(
            e.contains(&format!("byte {data_offset}")) && e.contains("32 bytes") && e.contains("29 bytes"),
            "{e}"
        );
        let mut more = full.clone();
        more.extend_from_slice(&[0; 8]);
        let e = err_text(parse_npy("o.npy", &more));
        assert!(e.contains("oversized") && e.contains("32 bytes") && e.contains("40 bytes"), "{e}");
        // Every prefix of a valid file is refused without panicking.
        for cut in 0..full.len() {
            assert!(parse_npy("p.npy", &full[..cut]).is_err());
        }
        let e = err_text(parse_npy("m.npy", b"hello world, not numpy"));
        assert!(e.contains("m.npy: byte 0") && e.contains("magic"), "{e}");
        let e = err_text(parse_npy("v.npy", &npy_raw(4, "{}", &[])));
        assert!(e.contains("version 4.0") && e.contains("byte 6"), "{e}");
    }

    #[test]
    fn refuses_huge_claims_before_allocating() {
        let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }";
        let e = err_text(parse_npy("big.npy", &npy_raw(1, h, &[])));
        assert!(e.contains("limit") && e.contains(&MAX_ELEMENTS.to_string()), "{e}");
        let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 18446744073709551615), }";
        let e = err_text(parse_npy("ovf.npy", &npy_raw(1, h, &[])));
        // With a 32-bit usize (wasm) a single dimension already does not fit.
        assert!(
            e.contains("overflow") && e.contains("limit") || e.contains("too large for this platform"),
            "{e}"
        );
        let h = "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }";
        let e = err_text(parse_npy("long.npy", &npy_raw(1, h, &[])));
        assert!(e.contains("too large"), "{e}");
        // A header length claiming 4 GB is refused as truncated, not allocated.
        let mut b = NPY_MAGIC.to_vec();
        b.extend_from_slice(&[2, 0, 0xff, 0xff, 0xff, 0xff, b'{']);
        let e = err_text(parse_npy("h.npy", &b));
        assert!(e.contains("truncated header") || e.contains("header length overflows"), "{e}");
    }

    #[test]
    fn refuses_malformed_headers() {
        for (h, word) in [
            ("{'descr': '<f8', 'shape': (1,), }", "fortran_order"),
            ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,) ", "header"),
            ("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }", "unexpected text"),
            ("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", "negative"),
            ("{'descr': '<f8', 'fortran_order': False, 'shape': ('a',), }", "non-integer"),
            ("['descr']", "not a dictionary"),
            ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x", "after the header"),
            ("{'descr': '<f8", "unterminated"),
            ("((((((((((((((((((((((((((((((", "deeply"),
        ] {
            let e = err_text(parse_npy("h.npy", &npy_raw(1, h, &[0; 8])));
            assert!(e.contains("h.npy: byte ") && e.contains(word), "{h}: {e}");
        }
    }

    #[test]
    fn fortran_to_c_handles_degenerate_shapes() {
        assert_eq!(fortran_to_c(vec![1, 2, 3], &[3, 1]), vec![1, 2, 3]);
        assert_eq!(fortran_to_c(vec![1, 2, 3], &[1, 3]), vec![1, 2, 3]);
        assert_eq!(fortran_to_c(Vec::<i32>::new(), &[0, 3]), Vec::<i32>::new());
        assert_eq!(fortran_to_c(vec![1, 3, 2, 4], &[2, 1, 2]), vec![1, 2, 3, 4]);
    }
}
