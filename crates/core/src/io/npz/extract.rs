//! A member's bytes from an archive held in memory: located by its local header, inflated when
//! deflated, and checked against the directory's size and CRC-32.

use std::borrow::Cow;

use super::{crc32, member_err, read_u16, read_u32, Entry, MAX_MEMBER_BYTES, SIG_LOCAL};
use crate::io::MAX_ELEMENTS;
use crate::Result;

/// The uncompressed bytes of one member (borrowed when stored), size- and CRC-checked.
pub(crate) fn extract<'a>(file: &str, bytes: &'a [u8], e: &Entry) -> Result<Cow<'a, [u8]>> {
    check_claims(file, e)?;
    let (start, data) = stored_bytes(file, bytes, e)?;
    let out = decompress(file, e, start, data)?;
    check_contents(file, e, start, &out)?;
    Ok(out)
}

/// Refuses, before any byte is read, what the directory says we cannot or will not read.
fn check_claims(file: &str, e: &Entry) -> Result<()> {
    if e.flags & 1 != 0 {
        return Err(member_err(
            file,
            e,
            e.local_offset,
            "member is encrypted; expected a plain np.savez archive",
        ));
    }
    if e.usize_ > MAX_MEMBER_BYTES {
        return Err(member_err(
            file,
            e,
            e.local_offset,
            format!(
                "member claims {} bytes uncompressed, more than allowed for the limit of \
                 {MAX_ELEMENTS} elements",
                e.usize_
            ),
        ));
    }
    Ok(())
}

/// The member's bytes as stored (compressed or not), and the byte they start at.
fn stored_bytes<'a>(file: &str, bytes: &'a [u8], e: &Entry) -> Result<(usize, &'a [u8])> {
    let lo = usize::try_from(e.local_offset).ok().filter(|&lo| read_u32(bytes, lo) == Some(SIG_LOCAL));
    let lo = lo.ok_or_else(|| {
        member_err(
            file,
            e,
            e.local_offset,
            "expected a zip local file header here; the archive is corrupt or truncated",
        )
    })?;
    // The local header's own name and extra lengths decide where data starts (they may differ
    // from the central directory's); the sizes come from the central directory because the
    // local copy may be 0 (data descriptor) or 0xFFFFFFFF (zip64).
    let name_len = usize::from(read_u16(bytes, lo + 26).unwrap_or(0));
    let extra_len = usize::from(read_u16(bytes, lo + 28).unwrap_or(0));
    let start = lo + 30 + name_len + extra_len;
    let end = usize::try_from(e.csize).ok().and_then(|c| start.checked_add(c));
    match end {
        Some(end) if end <= bytes.len() => Ok((start, &bytes[start..end])),
        _ => Err(member_err(
            file,
            e,
            start as u64,
            format!(
                "truncated member: the directory says {} compressed bytes, the file has {}",
                e.csize,
                bytes.len().saturating_sub(start)
            ),
        )),
    }
}

/// The stored bytes `data` (from byte `start`) uncompressed: borrowed when stored, inflated to
/// at most the size the directory says when deflated.
fn decompress<'a>(file: &str, e: &Entry, start: usize, data: &'a [u8]) -> Result<Cow<'a, [u8]>> {
    let expected = e.usize_ as usize; // fits: bounded by MAX_MEMBER_BYTES in check_claims
    match e.method {
        0 => Ok(Cow::Borrowed(data)),
        8 => match miniz_oxide::inflate::decompress_to_vec_with_limit(data, expected) {
            Ok(v) => Ok(Cow::Owned(v)),
            Err(err) => Err(member_err(
                file,
                e,
                start as u64,
                format!(
                    "deflated data is corrupt or longer than the {} bytes the directory says ({:?})",
                    e.usize_, err.status
                ),
            )),
        },
        m => Err(member_err(
            file,
            e,
            e.local_offset,
            format!(
                "compression method {m} is not supported; expected stored (0) or deflated (8) as \
                 written by np.savez / np.savez_compressed"
            ),
        )),
    }
}

/// Checks the uncompressed bytes against the directory's size and CRC-32.
fn check_contents(file: &str, e: &Entry, start: usize, out: &[u8]) -> Result<()> {
    if out.len() as u64 != e.usize_ {
        return Err(member_err(
            file,
            e,
            start as u64,
            format!("member has {} bytes uncompressed, the directory says {}", out.len(), e.usize_),
        ));
    }
    let crc = crc32(out);
    if crc != e.crc {
        return Err(member_err(
            file,
            e,
            start as u64,
            format!(
                "CRC-32 mismatch (computed {crc:08x}, directory says {:08x}): the member is corrupt",
                e.crc
            ),
        ));
    }
    Ok(())
}
