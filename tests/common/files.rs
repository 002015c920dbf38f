//! File builders shared by the tests that write files by hand (the core's reader tests, the fuzz
//! harness, the streamed-file tests and the bad-input corpus): `.npy` with any header text and
//! `.zip` archives with any member names and contents. Each includer brings the core's `crc32`
//! into scope (`rvalue_core::io::crc32`, or `crate::io::crc32` inside the core).
#![allow(dead_code)] // each test binary uses a part

use super::crc32;

/// A `.npy` of format `version` with `header` padded as numpy pads it, then `data` as given.
pub fn npy(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let start = if version == 1 { 10 } else { 12 };
    let mut h = header.to_string();
    while !(start + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    npy_raw(version, &h, data)
}

/// A `.npy` of format `version` with `header` exactly as given (no padding), then `data`.
pub fn npy_raw(version: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[version, 0]);
    if version == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// The header numpy writes for `descr` and `shape` (shape as Python text, e.g. `(6, 3, 4)`).
pub fn npy_header(descr: &str, shape: &str) -> String {
    format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
}

/// One member of a zip written by [`zip`].
pub struct ZipMember {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    pub deflate: bool,
    /// Sizes as 0xFFFFFFFF with a zip64 extra field in both headers.
    pub zip64: bool,
    /// The same in the local header alone, as Python's zipfile writes for np.savez.
    pub zip64_local: bool,
    /// Store a CRC that does not match the data.
    pub bad_crc: bool,
}

impl ZipMember {
    pub fn stored(name: &str, data: Vec<u8>) -> Self {
        ZipMember {
            name: name.as_bytes().to_vec(),
            data,
            deflate: false,
            zip64: false,
            zip64_local: false,
            bad_crc: false,
        }
    }
}

/// A zip archive of `members` (local headers, data, central directory, end record).
pub fn zip(members: &[ZipMember]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for m in members {
        let payload =
            if m.deflate { miniz_oxide::deflate::compress_to_vec(&m.data, 6) } else { m.data.clone() };
        let method: u16 = if m.deflate { 8 } else { 0 };
        let crc = crc32(&m.data) ^ u32::from(m.bad_crc);
        let offset = out.len() as u32;
        let mut z64 = Vec::new();
        z64.extend_from_slice(&1u16.to_le_bytes());
        z64.extend_from_slice(&16u16.to_le_bytes());
        z64.extend_from_slice(&(m.data.len() as u64).to_le_bytes());
        z64.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        for (buf, central_dir) in [(&mut out, false), (&mut central, true)] {
            let zip64 = m.zip64 || (m.zip64_local && !central_dir);
            let extra: &[u8] = if zip64 { &z64 } else { &[] };
            let (cs, us) =
                if zip64 { (u32::MAX, u32::MAX) } else { (payload.len() as u32, m.data.len() as u32) };
            buf.extend_from_slice(if central_dir { b"PK\x01\x02" } else { b"PK\x03\x04" });
            if central_dir {
                buf.extend_from_slice(&45u16.to_le_bytes());
            }
            buf.extend_from_slice(&45u16.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
            buf.extend_from_slice(&method.to_le_bytes());
            buf.extend_from_slice(&[0; 4]);
            buf.extend_from_slice(&crc.to_le_bytes());
            buf.extend_from_slice(&cs.to_le_bytes());
            buf.extend_from_slice(&us.to_le_bytes());
            buf.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            if central_dir {
                buf.extend_from_slice(&[0; 10]);
                buf.extend_from_slice(&offset.to_le_bytes());
            }
            buf.extend_from_slice(&m.name);
            buf.extend_from_slice(extra);
        }
        out.extend_from_slice(&payload);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(members.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}
