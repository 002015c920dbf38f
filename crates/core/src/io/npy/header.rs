//! A `.npy` header: its magic and version, the dictionary's `descr`, `fortran_order` and
//! `shape`, and the checks of its sizes against the limits and the data that follows.

use std::io::Read;

use super::literal::{self, Lit};
use super::NPY_MAGIC;
use crate::io::{place, shown, MAX_ELEMENTS};
use crate::{Error, Result};

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

/// A little-endian `u16` at byte `at`, `None` past the end (the zip reader uses it too).
pub(in crate::io) fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([b[0], b[1]]))
}

/// A little-endian `u32` at byte `at`, `None` past the end.
pub(in crate::io) fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
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

/// The header of the `.npy` that `bytes` starts with; of the data, only its size is checked, and
/// only against the header (`bytes` may end where the header does). No limit on the element
/// count: a streamed reader holds a block at a time ([`parse_header`] adds the limit).
pub(crate) fn parse_header_uncapped(file: &str, ctx: &str, bytes: &[u8]) -> Result<Header> {
    let perr = |at: String, msg: String| Error::parse(file, place(ctx, &at), msg);
    let (header_start, header_bytes, data_offset) = preamble(bytes, &perr)?;
    let header_place = |pos: usize| format!("byte {} (header)", header_start + pos);
    // Versions 1 and 2 are latin-1 in principle, but numpy only ever writes ASCII there.
    let header = std::str::from_utf8(header_bytes).map_err(|e| {
        perr(
            header_place(e.valid_up_to()),
            "header is not ASCII/UTF-8 text; expected a Python dict literal".into(),
        )
    })?;
    let dict = literal::whole(header).map_err(|(pos, msg)| perr(header_place(pos), msg))?;
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

/// The fixed preamble (magic, version, header length) checked, giving where the header starts,
/// its bytes and where the data starts: everything before the dict literal is parsed.
fn preamble<'a>(
    bytes: &'a [u8],
    perr: &impl Fn(String, String) -> Error,
) -> Result<(usize, &'a [u8], usize)> {
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
    Ok((header_start, header_bytes, data_offset))
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
pub(super) fn parse_header(file: &str, ctx: &str, bytes: &[u8]) -> Result<Header> {
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
