//! The zip central directory: found through the end record (zip64-aware) at the file's end, then
//! read entry by entry. Every offset is checked against the file, since the archive may be
//! hostile.

use std::cell::Cell;

use super::{read_u16, read_u32, read_u64, Entry, SIG_CENTRAL, SIG_EOCD, SIG_ZIP64_EOCD, SIG_ZIP64_LOCATOR};
use crate::{Error, Result};

/// Reads the central directory (zip64-aware) into a list of members.
pub(crate) fn entries(file: &str, bytes: &[u8]) -> Result<Vec<Entry>> {
    entries_in(file, &Tail { base: 0, bytes, missed: Cell::new(false) }, bytes.len())
}

/// The end of a file of `len` bytes, from byte `base` on: where a zip keeps its directory.
/// Reads before `base` give nothing and are remembered in `missed`.
pub(crate) struct Tail<'a> {
    pub base: usize,
    pub bytes: &'a [u8],
    pub missed: Cell<bool>,
}

impl Tail<'_> {
    fn get(&self, at: usize, n: usize) -> Option<&[u8]> {
        let Some(rel) = at.checked_sub(self.base) else {
            self.missed.set(true);
            return None;
        };
        self.bytes.get(rel..rel.checked_add(n)?)
    }
    fn u16(&self, at: usize) -> Option<u16> {
        self.get(at, 2).and_then(|b| read_u16(b, 0))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        self.get(at, 4).and_then(|b| read_u32(b, 0))
    }
    fn u64(&self, at: usize) -> Option<u64> {
        self.get(at, 8).and_then(|b| read_u64(b, 0))
    }
    /// A field of a record already found: past the file's end it reads as 0, and the checks
    /// of offsets and sizes that follow refuse what that leads to.
    fn u16_or_0(&self, at: usize) -> u16 {
        self.u16(at).unwrap_or(0)
    }
    fn u32_or_0(&self, at: usize) -> u32 {
        self.u32(at).unwrap_or(0)
    }
}

/// Where the directory lies and how many entries it holds, as the end records say.
struct Directory {
    count: u64,
    size: u64,
    offset: u64,
}

/// An error at byte `at` of the archive.
fn at_byte(file: &str, at: usize, message: impl Into<String>) -> Error {
    Error::parse(file, format!("byte {at}"), message)
}

/// [`entries`] of a file of `len` bytes whose end `bytes` holds.
pub(crate) fn entries_in(file: &str, bytes: &Tail<'_>, len: usize) -> Result<Vec<Entry>> {
    let eocd = find_eocd(bytes, len).ok_or_else(|| {
        at_byte(
            file,
            len,
            "no zip end-of-central-directory record: the .npz is truncated or not a zip archive",
        )
    })?;
    check_one_disk(file, bytes, eocd)?;
    let dir = directory(file, bytes, eocd)?;
    let (start, end) = directory_span(file, &dir, eocd, len)?;
    let mut out = Vec::new();
    let mut at = start;
    for i in 0..dir.count {
        let (entry, next) = central_entry(file, bytes, at, end, (i, dir.count))?;
        out.push(entry);
        at = next;
    }
    Ok(out)
}

/// The end-of-central-directory record, searched backwards through the last 22 + 65535
/// (comment) bytes where it must sit.
fn find_eocd(bytes: &Tail<'_>, len: usize) -> Option<usize> {
    let lowest = len.saturating_sub(22 + 65535);
    let mut pos = len.saturating_sub(22);
    while len >= 22 && pos >= lowest {
        if bytes.u32(pos) == Some(SIG_EOCD) {
            return Some(pos);
        }
        if pos == 0 {
            break;
        }
        pos -= 1;
    }
    None
}

/// One disk, and as many entries on it as in all: anything else is a split archive or a
/// corrupt record, whose members the two counts would disagree on (numpy reads by the
/// directory's size, we would read by the total count; the zip crate refuses it).
fn check_one_disk(file: &str, bytes: &Tail<'_>, eocd: usize) -> Result<()> {
    let rd16 = |at| bytes.u16_or_0(at);
    let (disk, cd_disk, on_disk) = (rd16(eocd + 4), rd16(eocd + 6), rd16(eocd + 8));
    if disk != 0 || cd_disk != 0 || on_disk != rd16(eocd + 10) {
        return Err(at_byte(
            file,
            eocd,
            format!(
                "the end-of-central-directory record says disk {disk}, directory on disk \
                 {cd_disk}, {on_disk} entries on this disk of {} in all: a split (multi-disk) \
                 archive or a corrupt one",
                rd16(eocd + 10)
            ),
        ));
    }
    Ok(())
}

/// The directory as the end record says, or as the zip64 end record says where one of the
/// 32-bit fields is saturated and a zip64 locator is present.
fn directory(file: &str, bytes: &Tail<'_>, eocd: usize) -> Result<Directory> {
    let dir = Directory {
        count: u64::from(bytes.u16_or_0(eocd + 10)),
        size: u64::from(bytes.u32_or_0(eocd + 12)),
        offset: u64::from(bytes.u32_or_0(eocd + 16)),
    };
    if dir.count == 0xFFFF || dir.size == 0xFFFF_FFFF || dir.offset == 0xFFFF_FFFF {
        // Zip64: the locator just before the EOCD points at the zip64 EOCD record.
        let loc = eocd.checked_sub(20).filter(|&l| bytes.u32(l) == Some(SIG_ZIP64_LOCATOR));
        if let Some(loc) = loc {
            return zip64_directory(file, bytes, loc);
        }
    }
    Ok(dir)
}

/// The directory as the zip64 end record the locator at `loc` points to says.
fn zip64_directory(file: &str, bytes: &Tail<'_>, loc: usize) -> Result<Directory> {
    let z = bytes
        .u64(loc + 8)
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&z| bytes.u32(z) == Some(SIG_ZIP64_EOCD))
        .ok_or_else(|| at_byte(file, loc, "zip64 locator points to no zip64 end-of-directory record"))?;
    let get = |at: usize| {
        bytes.u64(z + at).ok_or_else(|| at_byte(file, z, "zip64 end-of-directory record is truncated"))
    };
    Ok(Directory { count: get(32)?, size: get(40)?, offset: get(48)? })
}

/// The directory's first byte and the byte after its last, both within the file.
fn directory_span(file: &str, dir: &Directory, eocd: usize, len: usize) -> Result<(usize, usize)> {
    let start = usize::try_from(dir.offset).ok();
    let end = start.and_then(|s| s.checked_add(usize::try_from(dir.size).ok()?));
    match (start, end) {
        (Some(s), Some(e)) if e <= len => Ok((s, e)),
        _ => Err(at_byte(
            file,
            eocd,
            format!(
                "central directory at byte {} of {} bytes lies outside the file ({len} bytes): the \
                 archive is truncated or corrupt",
                dir.offset, dir.size
            ),
        )),
    }
}

/// The directory entry at `at` (number `i + 1` of `count`), which must end by `cd_end`, and
/// where the next one starts.
fn central_entry(
    file: &str,
    bytes: &Tail<'_>,
    at: usize,
    cd_end: usize,
    (i, count): (u64, u64),
) -> Result<(Entry, usize)> {
    if bytes.u32(at) != Some(SIG_CENTRAL) || at + 46 > cd_end {
        return Err(at_byte(
            file,
            at,
            format!("expected central directory entry {} of {count}; the archive is corrupt", i + 1),
        ));
    }
    let (rd16, rd32) = (|at| bytes.u16_or_0(at), |at| bytes.u32_or_0(at));
    let flags = rd16(at + 8);
    let method = rd16(at + 10);
    let crc = rd32(at + 16);
    let csize = u64::from(rd32(at + 20));
    let usize_ = u64::from(rd32(at + 24));
    let name_len = usize::from(rd16(at + 28));
    let extra_len = usize::from(rd16(at + 30));
    let comment_len = usize::from(rd16(at + 32));
    let local_offset = u64::from(rd32(at + 42));
    let name_start = at + 46;
    let extra_start = name_start + name_len;
    let next = extra_start + extra_len + comment_len;
    if next > cd_end {
        return Err(at_byte(
            file,
            at,
            "central directory entry runs past the directory; the archive is corrupt",
        ));
    }
    let name = String::from_utf8_lossy(bytes.get(name_start, name_len).unwrap_or_default()).into_owned();
    let extra = bytes.get(extra_start, extra_len).unwrap_or_default();
    let [usize_, csize, local_offset] = zip64_sizes(extra, [usize_, csize, local_offset]);
    Ok((Entry { name, method, flags, crc, csize, usize_, local_offset }, next))
}

/// The uncompressed size, compressed size and local header offset `v` with a zip64 extra field
/// applied: its 64-bit values appear, in that order, only for the fields that are saturated.
fn zip64_sizes(extra: &[u8], mut v: [u64; 3]) -> [u64; 3] {
    let mut x = 0usize;
    while x + 4 <= extra.len() {
        let id = read_u16(extra, x).unwrap_or(0);
        let len = usize::from(read_u16(extra, x + 2).unwrap_or(0));
        let body = extra.get(x + 4..x + 4 + len).unwrap_or(&[]);
        if id == 1 {
            let wide = v.map(|v| v == 0xFFFF_FFFF);
            let mut y = 0usize;
            for (v, wide) in v.iter_mut().zip(wide) {
                if wide {
                    if let Some(w) = read_u64(body, y) {
                        *v = w;
                    }
                    y += 8;
                }
            }
        }
        x += 4 + len;
    }
    v
}
