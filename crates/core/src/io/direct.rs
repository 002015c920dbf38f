//! A large file's bytes read around the page cache (Linux `O_DIRECT`).
//!
//! A pass over a file larger than memory gains nothing from the page cache: each page is read once,
//! and filling the cache costs more kernel time than the disk does (copying out of the cache while
//! evicting). Direct reads land in one reused, aligned buffer instead. `O_DIRECT` asks that the
//! buffer, the length and the file offset be aligned, so the file is read from byte 0 in whole
//! aligned chunks and the caller's start is skipped in the buffer. Where the file system refuses
//! direct reads (tmpfs, some network file systems), [`open`] gives `None` and the caller reads
//! through the cache.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Files at least this large are read directly: smaller ones are often read again (the page's
/// samples, a notebook's repeated calls) and are served from the cache.
pub const DIRECT_MIN: u64 = 1 << 30;

/// The alignment every direct read keeps: a page, a multiple of any disk's logical block.
const ALIGN: usize = 4096;

/// Bytes read a system call: large enough that calls are few, small enough to stay in cache.
const CHUNK: usize = 4 << 20;

/// A file read sequentially from `skip` bytes on, a chunk of direct reads at a time.
#[derive(Debug)]
pub struct Direct {
    file: File,
    buf: Vec<u8>,
    /// Where the aligned chunk starts in `buf`.
    start: usize,
    /// The unread bytes of the chunk: `buf[pos..end]`.
    pos: usize,
    end: usize,
    eof: bool,
}

/// `path` opened for direct reads from byte `skip`, or `None` where direct reads are refused.
#[cfg(target_os = "linux")]
pub fn open(path: &Path, skip: u64) -> Option<Direct> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path).ok()?;
    let buf = vec![0u8; CHUNK + ALIGN];
    let start = buf.as_ptr().align_offset(ALIGN);
    let mut d = Direct { file, buf, start, pos: start, end: start, eof: false };
    // The first chunk tells whether the file system takes direct reads at all.
    d.fill().ok()?;
    // A start past the first chunk (no `.npy` header is that long) is left to the cache.
    let skip = usize::try_from(skip).ok().filter(|&s| s <= d.end - d.pos)?;
    d.pos += skip;
    Some(d)
}

/// Direct reads are Linux's: elsewhere every file is read through the cache.
#[cfg(not(target_os = "linux"))]
pub fn open(_path: &Path, _skip: u64) -> Option<Direct> {
    None
}

impl Direct {
    /// The next aligned chunk into the buffer; a short one is the file's end.
    fn fill(&mut self) -> std::io::Result<()> {
        let chunk = &mut self.buf[self.start..self.start + CHUNK];
        let mut got = 0;
        while got < CHUNK {
            match self.file.read(&mut chunk[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
            // Only the last read of a file may end off the alignment; another read would be refused.
            if got % ALIGN != 0 {
                break;
            }
        }
        self.eof = got < CHUNK;
        (self.pos, self.end) = (self.start, self.start + got);
        Ok(())
    }
}

impl Read for Direct {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.end && !self.eof {
            self.fill()?;
        }
        let n = out.len().min(self.end - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Bytes that differ from byte to byte, so that a misplaced chunk shows.
    fn bytes(n: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn direct_reads_give_the_files_bytes_from_any_start() {
        // Beside the build, on the repository's file system: a temporary one may be tmpfs,
        // which refuses direct reads.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/direct-test");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("bytes-{}", std::process::id()));
        let want = bytes(2 * CHUNK + 3 * ALIGN + 123);
        std::fs::write(&path, &want).unwrap();
        for skip in [0, 1, 128, ALIGN - 1, ALIGN, 5000] {
            let mut d = open(&path, skip as u64).expect("an ext4 file takes direct reads");
            let mut got = Vec::new();
            // Odd-sized reads cross the chunks' ends.
            let mut piece = vec![0u8; 777_777];
            loop {
                let n = d.read(&mut piece).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&piece[..n]);
            }
            assert!(got == want[skip..], "skip {skip}: {} bytes against {}", got.len(), want.len() - skip);
        }
        assert!(open(&path, (CHUNK + 1) as u64).is_none(), "a start past the first chunk");
        std::fs::remove_file(&path).unwrap();
    }
}
