//! Writing little-endian C-order `.npy` files (version 1.0, or 2.0 for a long header).

use super::NPY_MAGIC;

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

/// An element type `.npy` files hold: its `descr` and its little-endian bytes.
pub trait NpyElement: Copy {
    /// numpy's type string (`<f8`, `|b1`, ...).
    const DESCR: &'static str;
    /// Bytes per element.
    const SIZE: usize;
    /// Appends the element's little-endian bytes to `out`.
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! npy_element {
    ($t:ty, $descr:literal) => {
        impl NpyElement for $t {
            const DESCR: &'static str = $descr;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}

npy_element!(f64, "<f8");
npy_element!(f32, "<f4");
npy_element!(i64, "<i8");
npy_element!(u16, "<u2");

impl NpyElement for bool {
    const DESCR: &'static str = "|b1";
    const SIZE: usize = 1;
    fn put(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

/// Writes a little-endian C-order `.npy` of `data`; `data.len()` should be the product of
/// `shape`.
pub fn write_npy<T: NpyElement>(shape: &[usize], data: &[T]) -> Vec<u8> {
    write_with(T::DESCR, shape, data)
}

/// [`write_npy`] under another `descr` of the same size (float16 held as its bit patterns).
fn write_with<T: NpyElement>(descr: &str, shape: &[usize], data: &[T]) -> Vec<u8> {
    let mut out = header_bytes(descr, shape);
    out.reserve(data.len() * T::SIZE);
    for &v in data {
        v.put(&mut out);
    }
    out
}

/// Writes a little-endian C-order float64 `.npy` ([`write_npy`]).
pub fn write_npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    write_npy(shape, data)
}

/// Writes a little-endian C-order float32 `.npy` ([`write_npy`]).
pub fn write_npy_f32(shape: &[usize], data: &[f32]) -> Vec<u8> {
    write_npy(shape, data)
}

/// Writes a little-endian C-order float16 `.npy` of binary16 bit patterns ([`crate::float16`]):
/// their `u16`s under float16's `descr`.
pub fn write_npy_f16_bits(shape: &[usize], data: &[u16]) -> Vec<u8> {
    write_with("<f2", shape, data)
}

/// Writes a little-endian C-order int64 `.npy` ([`write_npy`]).
pub fn write_npy_i64(shape: &[usize], data: &[i64]) -> Vec<u8> {
    write_npy(shape, data)
}

/// Writes a C-order bool `.npy` ([`write_npy`]).
pub fn write_npy_bool(shape: &[usize], data: &[bool]) -> Vec<u8> {
    write_npy(shape, data)
}
