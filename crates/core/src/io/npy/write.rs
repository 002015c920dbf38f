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
