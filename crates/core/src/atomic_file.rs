//! Output files written whole or not at all: the bytes go to a temporary file beside the target
//! (same directory, so same file system) and are renamed onto it only once all are written and
//! flushed to disk. A run that fails, or is dropped before [`AtomicFile::commit`], leaves the
//! target as it was (an older file there survives) and removes the temporary file; so a reader
//! of the target never sees a half-written result.
//!
//! Native only in use (the browser hands files to the user through downloads).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Error, Result};

/// A file being written to a temporary path, renamed onto its target by [`AtomicFile::commit`].
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    out: Option<BufWriter<File>>,
}

/// Distinguishes the temporary files of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

impl AtomicFile {
    /// Creates the temporary file beside `target`: `.NAME.PID.N.partial`, a hidden name that
    /// no other process uses (it is created exclusively).
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let name = target.file_name().ok_or_else(|| io_error(target, "not a file name"))?;
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{}.{n}.partial", std::process::id()));
            let temp = dir.join(temp_name);
            match OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(f) => {
                    return Ok(AtomicFile {
                        target: target.to_path_buf(),
                        temp,
                        out: Some(BufWriter::new(f)),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_error(target, e)),
            }
        }
    }

    /// The temporary path being written (for a signal handler that must remove it).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Writes all of `bytes`; an error names the target.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        let out = self.out.as_mut().ok_or_else(|| io_error(&self.target, "already closed"))?;
        out.write_all(bytes).map_err(|e| io_error(&self.target, e))
    }

    /// Flushes the bytes to disk and renames the file onto the target. On failure the target is
    /// untouched and the temporary file is removed (by `Drop`).
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().ok_or_else(|| io_error(&self.target, "already closed"))?;
        {
            let file = out.into_inner().map_err(|e| io_error(&self.target, e.error()))?;
            // On disk before the rename, so that a crash cannot leave a renamed but empty file;
            // closed at the end of this block, before the rename (which some systems require).
            file.sync_all().map_err(|e| io_error(&self.target, e))?;
        }
        std::fs::rename(&self.temp, &self.target).map_err(|e| io_error(&self.target, e))?;
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.out.as_mut() {
            Some(out) => out.write(buf),
            None => Err(std::io::Error::other("already closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().map_or(Ok(()), |out| out.flush())
    }
}

impl Drop for AtomicFile {
    /// Not committed: the partial bytes are removed (nothing to report if that fails: the
    /// target is untouched either way).
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            drop(self.out.take());
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// Writes `bytes` to `target` whole or not at all.
pub fn write(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(target)?;
    f.write_all(bytes)?;
    f.commit()
}

fn io_error(target: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { file: target.display().to_string(), message: format!("cannot write: {e}") }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rvalue-whole-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        assert!(std::fs::create_dir_all(&d).is_ok());
        d
    }

    /// The names in `d`, sorted (unreadable entries are left out: none are expected).
    fn names(d: &Path) -> Vec<String> {
        let entries = std::fs::read_dir(d).into_iter().flatten().flatten();
        let mut v: Vec<String> = entries.filter_map(|e| e.file_name().into_string().ok()).collect();
        v.sort();
        v
    }

    #[test]
    fn a_commit_replaces_the_target_and_a_drop_leaves_it() {
        let d = dir("commit");
        let target = d.join("out.csv");
        std::fs::write(&target, "old\n").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new, half").unwrap();
        assert_eq!(names(&d).len(), 2, "the temporary file sits beside the target");
        drop(f);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        assert_eq!(names(&d), ["out.csv"], "the temporary file is gone");
        write(&target, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(names(&d), ["out.csv"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_missing_directory_names_the_target() {
        let e = write(Path::new("/nonexistent-dir/out.csv"), b"x").unwrap_err();
        assert!(e.to_string().starts_with("/nonexistent-dir/out.csv: cannot write"), "{e}");
    }
}
