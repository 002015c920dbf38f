//! `.npz` archives: a zip of `.npy` members, read by hand (central directory, stored or deflated,
//! zip64) because the core must not pull in a zip crate for wasm.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::{Read, Seek, SeekFrom};

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::npy::{parse_npy_with, read_npy_stream, Layout, NpyArray};
use super::{place, shown, MAX_ELEMENTS};
use crate::{Error, Result};

/// The four bytes a zip file (and so an `.npz`) starts with.
pub const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";

const SIG_LOCAL: u32 = 0x0403_4b50;
const SIG_CENTRAL: u32 = 0x0201_4b50;
const SIG_EOCD: u32 = 0x0605_4b50;
const SIG_ZIP64_EOCD: u32 = 0x0606_4b50;
const SIG_ZIP64_LOCATOR: u32 = 0x0706_4b50;

/// The largest member we inflate: the largest allowed array plus generous room for its header.
const MAX_MEMBER_BYTES: u64 = (MAX_ELEMENTS as u64) * 8 + (1 << 20);

/// The most all members of one archive may inflate to, read together by `parse_npz`.
const MAX_ARCHIVE_BYTES: u64 = 2 * MAX_MEMBER_BYTES;

/// One member as described by the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub name: String,
    method: u16,
    flags: u16,
    crc: u32,
    csize: u64,
    usize_: u64,
    local_offset: u64,
}

impl Entry {
    /// The member's size uncompressed, as the directory says.
    pub(crate) fn size(&self) -> u64 {
        self.usize_
    }
}

/// Parses every `.npy` member; names lose their `.npy` suffix, directories are skipped.
pub fn parse_npz(file: &str, bytes: &[u8]) -> Result<Vec<(String, NpyArray)>> {
    let entries = entries(file, bytes)?;
    // Each member is bounded on its own, but many directory entries may point at one highly
    // compressed member, and every array read here is kept: bound the sum as well.
    let claimed =
        entries.iter().filter(|e| !e.name.ends_with('/')).fold(0u64, |a, e| a.saturating_add(e.usize_));
    if claimed > MAX_ARCHIVE_BYTES {
        return Err(Error::parse(
            file,
            "archive",
            format!(
                "the members claim {claimed} bytes uncompressed in all, more than the \
                 {MAX_ARCHIVE_BYTES} allowed (twice the largest member, {MAX_ELEMENTS} elements)"
            ),
        ));
    }
    let mut keys: Vec<&str> =
        entries.iter().filter(|e| !e.name.ends_with('/')).map(|e| member_key(&e.name)).collect();
    keys.sort_unstable();
    if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
        return Err(two_of(file, w[0]));
    }
    let mut out = Vec::new();
    for e in &entries {
        if e.name.ends_with('/') {
            continue;
        }
        let (a, _) = member_array(file, bytes, e)?;
        out.push((member_key(&e.name).to_string(), a));
    }
    Ok(out)
}

/// The member numpy gives for `key`, `None` if there is none. Two members of that key are an
/// error: numpy reads the last, a reader by name the first, and neither is what the file means.
pub(crate) fn find_member<'a>(file: &str, entries: &'a [Entry], key: &str) -> Result<Option<&'a Entry>> {
    let mut found = entries.iter().filter(|e| member_key(&e.name) == key);
    let first = found.next();
    match found.next() {
        Some(_) => Err(two_of(file, key)),
        None => Ok(first),
    }
}

fn two_of(file: &str, key: &str) -> Error {
    Error::parse(
        file,
        "archive",
        format!("the archive holds two members named '{}'; expected one of each", shown(key)),
    )
}

/// The key numpy gives a member: its name without the `.npy` suffix.
pub(crate) fn member_key(name: &str) -> &str {
    name.strip_suffix(".npy").unwrap_or(name)
}

/// Extracts and parses one member, with places prefixed by the member name.
pub(crate) fn member_array(file: &str, bytes: &[u8], e: &Entry) -> Result<(NpyArray, Layout)> {
    let data = extract(file, bytes, e)?;
    parse_npy_with(file, &format!("member '{}'", shown(&e.name)), &data)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

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
        self.get(at, 2).and_then(|b| u16_at(b, 0))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        self.get(at, 4).and_then(|b| u32_at(b, 0))
    }
    fn u64(&self, at: usize) -> Option<u64> {
        self.get(at, 8).and_then(|b| u64_at(b, 0))
    }
}

/// [`entries`] of a file of `len` bytes whose end `bytes` holds.
pub(crate) fn entries_in(file: &str, bytes: &Tail<'_>, len: usize) -> Result<Vec<Entry>> {
    let perr = |at: usize, msg: String| Error::parse(file, format!("byte {at}"), msg);
    // The end-of-central-directory record sits in the last 22 + 65535 (comment) bytes.
    let lowest = len.saturating_sub(22 + 65535);
    let mut eocd = None;
    let mut pos = len.saturating_sub(22);
    while len >= 22 && pos >= lowest {
        if bytes.u32(pos) == Some(SIG_EOCD) {
            eocd = Some(pos);
            break;
        }
        if pos == 0 {
            break;
        }
        pos -= 1;
    }
    let eocd = eocd.ok_or_else(|| {
        perr(len, "no zip end-of-central-directory record: the .npz is truncated or not a zip archive".into())
    })?;
    let rd16 = |at| bytes.u16(at).unwrap_or(0);
    let rd32 = |at| bytes.u32(at).unwrap_or(0);
    // One disk, and as many entries on it as in all: anything else is a split archive or a
    // corrupt record, whose members the two counts would disagree on (numpy reads by the
    // directory's size, we would read by the total count; the zip crate refuses it).
    let (disk, cd_disk, on_disk) = (rd16(eocd + 4), rd16(eocd + 6), rd16(eocd + 8));
    if disk != 0 || cd_disk != 0 || on_disk != rd16(eocd + 10) {
        return Err(perr(
            eocd,
            format!(
                "the end-of-central-directory record says disk {disk}, directory on disk \
                 {cd_disk}, {on_disk} entries on this disk of {} in all: a split (multi-disk) \
                 archive or a corrupt one",
                rd16(eocd + 10)
            ),
        ));
    }
    let mut count = u64::from(rd16(eocd + 10));
    let mut cd_size = u64::from(rd32(eocd + 12));
    let mut cd_offset = u64::from(rd32(eocd + 16));
    if count == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
        // Zip64: the locator just before the EOCD points at the zip64 EOCD record.
        let loc = eocd.checked_sub(20).filter(|&l| bytes.u32(l) == Some(SIG_ZIP64_LOCATOR));
        if let Some(loc) = loc {
            let z = bytes
                .u64(loc + 8)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&z| bytes.u32(z) == Some(SIG_ZIP64_EOCD))
                .ok_or_else(|| {
                    perr(loc, "zip64 locator points to no zip64 end-of-directory record".into())
                })?;
            let get = |at: usize| {
                bytes.u64(z + at).ok_or_else(|| perr(z, "zip64 end-of-directory record is truncated".into()))
            };
            count = get(32)?;
            cd_size = get(40)?;
            cd_offset = get(48)?;
        }
    }
    let cd_start = usize::try_from(cd_offset).ok();
    let cd_end = cd_start.and_then(|s| s.checked_add(usize::try_from(cd_size).ok()?));
    let (cd_start, cd_end) = match (cd_start, cd_end) {
        (Some(s), Some(e)) if e <= len => (s, e),
        _ => {
            return Err(perr(
                eocd,
                format!(
                    "central directory at byte {cd_offset} of {cd_size} bytes lies outside the file \
                     ({} bytes): the archive is truncated or corrupt",
                    len
                ),
            ))
        }
    };
    let mut out = Vec::new();
    let mut at = cd_start;
    for i in 0..count {
        if bytes.u32(at) != Some(SIG_CENTRAL) || at + 46 > cd_end {
            return Err(perr(
                at,
                format!("expected central directory entry {} of {count}; the archive is corrupt", i + 1),
            ));
        }
        let flags = rd16(at + 8);
        let method = rd16(at + 10);
        let crc = rd32(at + 16);
        let mut csize = u64::from(rd32(at + 20));
        let mut usize_ = u64::from(rd32(at + 24));
        let name_len = usize::from(rd16(at + 28));
        let extra_len = usize::from(rd16(at + 30));
        let comment_len = usize::from(rd16(at + 32));
        let mut local_offset = u64::from(rd32(at + 42));
        let name_start = at + 46;
        let extra_start = name_start + name_len;
        let next = extra_start + extra_len + comment_len;
        if next > cd_end {
            return Err(perr(
                at,
                "central directory entry runs past the directory; the archive is corrupt".into(),
            ));
        }
        let name = String::from_utf8_lossy(bytes.get(name_start, name_len).unwrap_or_default()).into_owned();
        // Zip64 extra field: the 64-bit values appear only for the fields that are saturated.
        let extra = bytes.get(extra_start, extra_len).unwrap_or_default();
        let mut x = 0usize;
        while x + 4 <= extra.len() {
            let id = u16_at(extra, x).unwrap_or(0);
            let len = usize::from(u16_at(extra, x + 2).unwrap_or(0));
            let body = extra.get(x + 4..x + 4 + len).unwrap_or(&[]);
            if id == 1 {
                let mut y = 0usize;
                let mut take = |v: &mut u64, wide: bool| {
                    if wide {
                        if let Some(w) = u64_at(body, y) {
                            *v = w;
                        }
                        y += 8;
                    }
                };
                let wide = [usize_, csize, local_offset].map(|v| v == 0xFFFF_FFFF);
                take(&mut usize_, wide[0]);
                take(&mut csize, wide[1]);
                take(&mut local_offset, wide[2]);
            }
            x += 4 + len;
        }
        out.push(Entry { name, method, flags, crc, csize, usize_, local_offset });
        at = next;
    }
    Ok(out)
}

/// The uncompressed bytes of one member (borrowed when stored), size- and CRC-checked.
pub(crate) fn extract<'a>(file: &str, bytes: &'a [u8], e: &Entry) -> Result<Cow<'a, [u8]>> {
    let ctx = format!("member '{}'", shown(&e.name));
    let perr = |at: u64, msg: String| Error::parse(file, place(&ctx, &format!("byte {at}")), msg);
    if e.flags & 1 != 0 {
        return Err(perr(e.local_offset, "member is encrypted; expected a plain np.savez archive".into()));
    }
    if e.usize_ > MAX_MEMBER_BYTES {
        return Err(perr(
            e.local_offset,
            format!(
                "member claims {} bytes uncompressed, more than allowed for the limit of \
                 {MAX_ELEMENTS} elements",
                e.usize_
            ),
        ));
    }
    let lo = usize::try_from(e.local_offset).ok().filter(|&lo| u32_at(bytes, lo) == Some(SIG_LOCAL));
    let lo = lo.ok_or_else(|| {
        perr(
            e.local_offset,
            "expected a zip local file header here; the archive is corrupt or truncated".into(),
        )
    })?;
    // The local header's own name and extra lengths decide where data starts (they may differ
    // from the central directory's); the sizes come from the central directory because the
    // local copy may be 0 (data descriptor) or 0xFFFFFFFF (zip64).
    let name_len = usize::from(u16_at(bytes, lo + 26).unwrap_or(0));
    let extra_len = usize::from(u16_at(bytes, lo + 28).unwrap_or(0));
    let start = lo + 30 + name_len + extra_len;
    let end = usize::try_from(e.csize).ok().and_then(|c| start.checked_add(c));
    let data = match end {
        Some(end) if end <= bytes.len() => &bytes[start..end],
        _ => {
            return Err(perr(
                start as u64,
                format!(
                    "truncated member: the directory says {} compressed bytes, the file has {}",
                    e.csize,
                    bytes.len().saturating_sub(start)
                ),
            ))
        }
    };
    let expected = e.usize_ as usize; // fits: bounded by MAX_MEMBER_BYTES above
    let out: Cow<'a, [u8]> = match e.method {
        0 => Cow::Borrowed(data),
        8 => match miniz_oxide::inflate::decompress_to_vec_with_limit(data, expected) {
            Ok(v) => Cow::Owned(v),
            Err(err) => {
                return Err(perr(
                    start as u64,
                    format!(
                        "deflated data is corrupt or longer than the {} bytes the directory \
                         says ({:?})",
                        e.usize_, err.status
                    ),
                ))
            }
        },
        m => {
            return Err(perr(
                e.local_offset,
                format!(
                    "compression method {m} is not supported; expected stored (0) or deflated (8) \
                     as written by np.savez / np.savez_compressed"
                ),
            ))
        }
    };
    if out.len() as u64 != e.usize_ {
        return Err(perr(
            start as u64,
            format!("member has {} bytes uncompressed, the directory says {}", out.len(), e.usize_),
        ));
    }
    let crc = crc32(&out);
    if crc != e.crc {
        return Err(perr(
            start as u64,
            format!(
                "CRC-32 mismatch (computed {crc:08x}, directory says {:08x}): the member is corrupt",
                e.crc
            ),
        ));
    }
    Ok(out)
}

/// [`member_array`] read off `r` (a file of `len` bytes) a chunk at a time: a stored member is
/// parsed as it is read, a deflated one as it is inflated, and neither is held as bytes. `None`
/// unless [`member_array`] would give the same array from the file's bytes (sizes and CRC
/// included): a caller that gets `None` reads the bytes for the message.
pub(crate) fn member_stream<R: Read + Seek>(r: &mut R, len: u64, e: &Entry) -> Option<(NpyArray, Layout)> {
    if e.flags & 1 != 0 || e.usize_ > MAX_MEMBER_BYTES {
        return None;
    }
    r.seek(SeekFrom::Start(e.local_offset)).ok()?;
    let mut head = [0u8; 30];
    r.read_exact(&mut head).ok()?;
    (u32_at(&head, 0)? == SIG_LOCAL).then_some(())?;
    let start = e.local_offset + 30 + u64::from(u16_at(&head, 26)?) + u64::from(u16_at(&head, 28)?);
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
    let ctx = format!("member '{}'", shown(&e.name));
    let perr = |at: u64, msg: &str| Error::parse(file, place(&ctx, &format!("byte {at}")), msg);
    let io = |e: std::io::Error| Error::Io { file: file.to_string(), message: format!("cannot read: {e}") };
    if e.flags & 1 != 0 {
        return Err(perr(e.local_offset, "member is encrypted; expected a plain np.savez archive"));
    }
    r.seek(SeekFrom::Start(e.local_offset)).map_err(io)?;
    let mut head = [0u8; 30];
    r.read_exact(&mut head).map_err(io)?;
    if u32_at(&head, 0) != Some(SIG_LOCAL) {
        return Err(perr(
            e.local_offset,
            "expected a zip local file header here; the archive is corrupt or truncated",
        ));
    }
    let lengths = u64::from(u16_at(&head, 26).unwrap_or(0)) + u64::from(u16_at(&head, 28).unwrap_or(0));
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
        for &b in &out[..n] {
            self.crc = CRC_TABLE[((self.crc ^ u32::from(b)) & 0xFF) as usize] ^ (self.crc >> 8);
        }
        self.count += n as u64;
        Ok(n)
    }
}

/// Raw deflate, inflated as it is read.
struct Inflate<R> {
    inner: R,
    state: Box<InflateState>,
    input: Vec<u8>,
    at: usize,
    end: usize,
    eof: bool,
    done: bool,
}

impl<R: Read> Inflate<R> {
    /// Inflates the `csize` compressed bytes of `inner`, in chunks no larger than they are.
    fn new(inner: R, csize: u64) -> Self {
        let state = InflateState::new_boxed(DataFormat::Raw);
        let input = vec![0; csize.clamp(1, 1 << 15) as usize];
        Inflate { inner, state, input, at: 0, end: 0, eof: false, done: false }
    }
}

impl<R: Read> Read for Inflate<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while !self.done && !out.is_empty() {
            if self.at == self.end && !self.eof {
                self.end = self.inner.read(&mut self.input)?;
                self.at = 0;
                self.eof = self.end == 0;
            }
            let flush = if self.eof { MZFlush::Finish } else { MZFlush::None };
            let step = inflate(&mut self.state, &self.input[self.at..self.end], out, flush);
            self.at += step.bytes_consumed;
            let stuck =
                step.bytes_written == 0 && (self.eof || step.bytes_consumed == 0 && self.at < self.end);
            match step.status {
                Ok(MZStatus::StreamEnd) => self.done = true,
                Ok(MZStatus::Ok) | Err(MZError::Buf) if !stuck => {}
                _ => {
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "corrupt deflate data"))
                }
            }
            if step.bytes_written > 0 {
                return Ok(step.bytes_written);
            }
        }
        Ok(0)
    }
}

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut j = 0;
        while j < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            j += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32 (IEEE), as zip uses.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c = CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io::npy::{write_npy_f64, write_npy_i64, NpyData};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// One member of a hand-built zip.
    pub(crate) struct Member<'a> {
        pub name: &'a str,
        pub data: &'a [u8],
        pub deflate: bool,
        /// Write sizes as 0xFFFFFFFF with a zip64 extra field (local header always, central too).
        pub zip64_central: bool,
    }

    /// Builds a zip the way Python's zipfile does for np.savez (zip64 extra in the local header).
    pub(crate) fn build_zip(members: &[Member]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for m in members {
            let payload =
                if m.deflate { miniz_oxide::deflate::compress_to_vec(m.data, 6) } else { m.data.to_vec() };
            let method: u16 = if m.deflate { 8 } else { 0 };
            let crc = crc32(m.data);
            let offset = out.len() as u32;
            let mut zip64 = Vec::new();
            zip64.extend_from_slice(&1u16.to_le_bytes());
            zip64.extend_from_slice(&16u16.to_le_bytes());
            zip64.extend_from_slice(&(m.data.len() as u64).to_le_bytes());
            zip64.extend_from_slice(&(payload.len() as u64).to_le_bytes());
            out.extend_from_slice(&SIG_LOCAL.to_le_bytes());
            out.extend_from_slice(&45u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&method.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&u32::MAX.to_le_bytes());
            out.extend_from_slice(&u32::MAX.to_le_bytes());
            out.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            out.extend_from_slice(&(zip64.len() as u16).to_le_bytes());
            out.extend_from_slice(m.name.as_bytes());
            out.extend_from_slice(&zip64);
            out.extend_from_slice(&payload);

            central.extend_from_slice(&SIG_CENTRAL.to_le_bytes());
            central.extend_from_slice(&45u16.to_le_bytes());
            central.extend_from_slice(&45u16.to_le_bytes());
            central.extend_from_slice(&0u16.to_le_bytes());
            central.extend_from_slice(&method.to_le_bytes());
            central.extend_from_slice(&[0; 4]);
            central.extend_from_slice(&crc.to_le_bytes());
            if m.zip64_central {
                central.extend_from_slice(&u32::MAX.to_le_bytes());
                central.extend_from_slice(&u32::MAX.to_le_bytes());
            } else {
                central.extend_from_slice(&(payload.len() as u32).to_le_bytes());
                central.extend_from_slice(&(m.data.len() as u32).to_le_bytes());
            }
            central.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
            let extra: &[u8] = if m.zip64_central { &zip64 } else { &[] };
            central.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            central.extend_from_slice(&[0; 6]); // comment len, disk, internal attrs
            central.extend_from_slice(&[0; 4]); // external attrs
            central.extend_from_slice(&offset.to_le_bytes());
            central.extend_from_slice(m.name.as_bytes());
            central.extend_from_slice(extra);
        }
        let cd_offset = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&SIG_EOCD.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(members.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    fn sample() -> (Vec<u8>, Vec<u8>) {
        let scores: Vec<f64> = (0..12).map(|i| i as f64 / 4.0).collect();
        (write_npy_f64(&[2, 3, 2], &scores), write_npy_i64(&[2], &[1, 0]))
    }

    #[test]
    fn many_entries_for_one_member_are_bounded_in_all() {
        let (s, _) = sample();
        let members: Vec<Member> = ["a.npy", "b.npy", "c.npy"]
            .into_iter()
            .map(|name| Member { name, data: &s, deflate: true, zip64_central: false })
            .collect();
        let mut zip = build_zip(&members);
        // Each entry claims 1.5 GB, under the member limit; together they are over the archive's.
        let mut at = 0;
        while let Some(p) = zip[at..].windows(4).position(|w| w == SIG_CENTRAL.to_le_bytes()) {
            let c = at + p;
            zip[c + 24..c + 28].copy_from_slice(&0x6000_0000u32.to_le_bytes());
            at = c + 4;
        }
        let e = parse_npz("many.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("many.npz: archive: the members claim") && e.contains("in all"), "{e}");
    }

    #[test]
    fn two_members_of_one_name_are_refused() {
        // numpy would read the last, a reader by name the first: neither is what the file means.
        let (s, l) = sample();
        let zip = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &s, deflate: true, zip64_central: false },
        ]);
        let e = parse_npz("dup.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("dup.npz: archive: the archive holds two members named 'labels'"), "{e}");
        let e = crate::io::read_scores("dup.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("two members named 'labels'"), "{e}");
        let e = crate::io::read_labels("dup.npz", &zip, 2, 2).unwrap_err().to_string();
        assert!(e.contains("two members named 'labels'"), "{e}");
    }

    #[test]
    fn split_archive_records_are_refused() {
        let (s, l) = sample();
        let good = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
        ]);
        assert_eq!(parse_npz("ok.npz", &good).unwrap().len(), 2);
        let eocd = good.len() - 22;
        // A disk number, the directory's disk, and entries on this disk that are not all of them
        // (the total would drop the labels without a word).
        for (at, v) in [(4, 1u16), (6, 1), (10, 1)] {
            let mut zip = good.clone();
            zip[eocd + at..eocd + at + 2].copy_from_slice(&v.to_le_bytes());
            let e = parse_npz("split.npz", &zip).unwrap_err().to_string();
            assert!(e.contains("split.npz: byte") && e.contains("multi-disk"), "{e}");
        }
    }

    #[test]
    fn crc32_known_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn stored_and_deflated_members() {
        let (s, l) = sample();
        for zip64_central in [false, true] {
            let zip = build_zip(&[
                Member { name: "scores.npy", data: &s, deflate: false, zip64_central },
                Member { name: "labels.npy", data: &l, deflate: true, zip64_central },
            ]);
            let got = parse_npz("a.npz", &zip).unwrap();
            assert_eq!(got.len(), 2);
            assert_eq!(got[0].0, "scores");
            assert_eq!(got[0].1.shape, vec![2, 3, 2]);
            assert_eq!(got[1].0, "labels");
            assert_eq!(got[1].1.data, NpyData::Int(vec![1, 0]));
        }
    }

    #[test]
    fn refuses_corrupt_archives_without_panicking() {
        let (s, l) = sample();
        let zip = build_zip(&[
            Member { name: "scores.npy", data: &s, deflate: true, zip64_central: false },
            Member { name: "labels.npy", data: &l, deflate: false, zip64_central: false },
        ]);
        for cut in 0..zip.len() {
            assert!(parse_npz("c.npz", &zip[..cut]).is_err());
        }
        let e = parse_npz("c.npz", &zip[..zip.len() - 1]).unwrap_err().to_string();
        assert!(e.contains("c.npz") && e.contains("end-of-central-directory"), "{e}");
        // Flip one byte in the stored member's data: the CRC catches it.
        let mut bad = zip.clone();
        let at = bad.windows(6).rposition(|w| w == b"\x93NUMPY").unwrap() + 100;
        bad[at] ^= 0x55;
        let e = parse_npz("c.npz", &bad).unwrap_err().to_string();
        assert!(e.contains("CRC") && e.contains("member 'labels.npy'"), "{e}");
        // Every single-byte corruption is an error or a parse, never a panic.
        for i in 0..zip.len() {
            let mut z = zip.clone();
            z[i] ^= 0xA5;
            let _ = parse_npz("c.npz", &z);
        }
    }

    #[test]
    fn refuses_unsupported_method_and_huge_claims() {
        let (s, _) = sample();
        let mut zip =
            build_zip(&[Member { name: "scores.npy", data: &s, deflate: false, zip64_central: false }]);
        let cd = zip.windows(4).position(|w| w == SIG_CENTRAL.to_le_bytes()).unwrap();
        let mut m = zip.clone();
        m[cd + 10] = 12; // bzip2
        let e = parse_npz("m.npz", &m).unwrap_err().to_string();
        assert!(e.contains("method 12") && e.contains("expected stored (0) or deflated (8)"), "{e}");
        zip[cd + 24..cd + 28].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = parse_npz("h.npz", &zip).unwrap_err().to_string();
        assert!(e.contains("h.npz: member 'scores.npy', byte 0") && e.contains("limit"), "{e}");
    }
}
