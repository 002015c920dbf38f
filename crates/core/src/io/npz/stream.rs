//! A member's bytes read off a file a chunk at a time, stored or inflated, their size and CRC-32
//! counted as they pass: for files too large to hold, and for reading scores a block at a time.

use std::io::{Read, Seek, SeekFrom};

use super::crc::crc32_update;
use super::inflate::Inflate;
use super::{member_err, read_u16, read_u32, Entry, MAX_MEMBER_BYTES, SIG_LOCAL};
use crate::io::npy::{read_npy_stream, Layout, NpyArray};
use crate::{Error, Result};

/// [`member_array`](super::member_array) read off `r` (a file of `len` bytes) a chunk at a time: a stored member is
/// parsed as it is read, a deflated one as it is inflated, and neither is held as bytes. `None`
/// unless [`member_array`](super::member_array) would give the same array from the file's bytes (sizes and CRC
/// included): a caller that gets `None` reads the bytes for the message.
pub(crate) fn member_stream<R: Read + Seek>(r: &mut R, len: u64, e: &Entry) -> Option<(NpyArray, Layout)> {
    if e.flags & 1 != 0 || e.usize_ > MAX_MEMBER_BYTES {
        return None;
    }
    r.seek(SeekFrom::Start(e.local_offset)).ok()?;
    let mut head = [0u8; 30];
    r.read_exact(&mut head).ok()?;
    (read_u32(&head, 0)? == SIG_LOCAL).then_some(())?;
    let start = e.local_offset + 30 + u64::from(read_u16(&head, 26)?) + u64::from(read_u16(&head, 28)?);
    (start.checked_add(e.csize)? <= len).then_some(())?;
    r.seek(SeekFrom::Start(start)).ok()?;
    let raw = r.take(e.csize);
    let source = match e.method {
        0 => Source::Stored(raw),
        8 => Source::Deflated(Inflate::new(raw, e.csize)),
        _ => return None,
    };
    let mut data = Checked { source, crc: !0, count: 0 };
    let got = read_npy_stream(&mut data, e.usize_)?;
    (data.count == e.usize_ && !data.crc == e.crc).then_some(got)
}

/// A member's bytes, stored or inflated, read off `r` (a file of `len` bytes) in order, for a
/// member of any size: nothing is held but a read buffer. Past its last byte the member's size
/// and CRC-32 are checked against the directory, and a mismatch is a read error, so a pass that
/// reads a member to its end has read what the archive says.
pub(crate) fn member_reader<R: Read + Seek>(mut r: R, len: u64, e: &Entry, file: &str) -> Result<impl Read> {
    let perr = |at: u64, msg: &str| member_err(file, e, at, msg);
    let io = |e: std::io::Error| Error::Io { file: file.to_string(), message: format!("cannot read: {e}") };
    if e.flags & 1 != 0 {
        return Err(perr(e.local_offset, "member is encrypted; expected a plain np.savez archive"));
    }
    r.seek(SeekFrom::Start(e.local_offset)).map_err(io)?;
    let mut head = [0u8; 30];
    r.read_exact(&mut head).map_err(io)?;
    if read_u32(&head, 0) != Some(SIG_LOCAL) {
        return Err(perr(
            e.local_offset,
            "expected a zip local file header here; the archive is corrupt or truncated",
        ));
    }
    let lengths = u64::from(read_u16(&head, 26).unwrap_or(0)) + u64::from(read_u16(&head, 28).unwrap_or(0));
    let start = e.local_offset.saturating_add(30 + lengths);
    if start.checked_add(e.csize).is_none_or(|end| end > len) {
        return Err(perr(
            start,
            "truncated member: the directory says more compressed bytes than the file has",
        ));
    }
    r.seek(SeekFrom::Start(start)).map_err(io)?;
    let raw = r.take(e.csize);
    let source = match e.method {
        0 => Source::Stored(raw),
        8 => Source::Deflated(Inflate::new(raw, e.csize)),
        _ => {
            return Err(perr(
                e.local_offset,
                "compression method is not supported; expected stored (0) or deflated (8)",
            ))
        }
    };
    Ok(Verified { data: Checked { source, crc: !0, count: 0 }, size: e.usize_, crc: e.crc })
}

/// A member's bytes whose size and CRC-32 are checked at their end ([`member_reader`]).
struct Verified<R> {
    data: Checked<R>,
    size: u64,
    crc: u32,
}

impl<R: Read> Read for Verified<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let got = self.data.read(out)?;
        let at_end = got == 0 && !out.is_empty();
        if (at_end || self.data.count > self.size)
            && (self.data.count != self.size || !self.data.crc != self.crc)
        {
            let msg = format!(
                "the member's {} bytes (CRC-32 {:08x}) are not the {} bytes (CRC-32 {:08x}) the directory says: the archive is corrupt",
                self.data.count, !self.data.crc, self.size, self.crc
            );
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, msg));
        }
        Ok(got)
    }
}

/// A member's bytes as stored or inflated.
enum Source<R> {
    Stored(R),
    Deflated(Inflate<R>),
}

/// A reader that counts its bytes and their CRC-32 as they pass.
struct Checked<R> {
    source: Source<R>,
    crc: u32,
    count: u64,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = match &mut self.source {
            Source::Stored(r) => r.read(out)?,
            Source::Deflated(r) => r.read(out)?,
        };
        self.crc = crc32_update(self.crc, &out[..n]);
        self.count += n as u64;
        Ok(n)
    }
}
