//! The `.npy` format (versions 1.0, 2.0 and 3.0), read and written by hand so the same code runs
//! natively and in wasm without a numpy dependency: the header ([`header`], whose dictionary is
//! a Python literal read by [`literal`]), the values, and the writers ([`write`]).

mod header;
mod literal;
mod text;
mod write;

use std::io::Read;

use super::place;
use crate::{Error, Result};
use header::parse_header;
pub(crate) use header::{check_data_len, dtype_label, format_shape, read_header, Header, Kind};
pub(in crate::io) use header::{read_u16, read_u32};
pub(crate) use text::parse_text_npy;
pub use write::{
    write_npy, write_npy_bool, write_npy_f16_bits, write_npy_f32, write_npy_f64, write_npy_i64, NpyElement,
};

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
        Kind::U8 => decode_u8(raw)?,
        Kind::B1 => decode_bool(raw)?,
    })
}

/// uint64 data as int64, refusing values beyond `i64::MAX` rather than wrapping them.
fn decode_u8(raw: &[u8]) -> std::result::Result<NpyData, (usize, String)> {
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
    Ok(NpyData::Int(out))
}

/// bool data, refusing bytes other than 0 and 1 since numpy itself never writes them.
fn decode_bool(raw: &[u8]) -> std::result::Result<NpyData, (usize, String)> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, &b) in raw.iter().enumerate() {
        match b {
            0 => out.push(false),
            1 => out.push(true),
            _ => return Err((i, format!("bool element {i} has byte value {b}; expected 0 or 1"))),
        }
    }
    Ok(NpyData::Bool(out))
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io::MAX_ELEMENTS;
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
