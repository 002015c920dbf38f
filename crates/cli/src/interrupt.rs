//! Ctrl-C and SIGTERM: the output files being written are removed and the process exits with
//! status 130, so an interrupted run leaves no half-written file behind and every target is as
//! it was before the run (written whole through `rvalue_core::atomic_file`).
//!
//! The handler runs on a thread of its own (the `ctrlc` crate's), not in signal context, so it
//! may take a lock and remove files. A file being renamed onto its target holds the same lock,
//! so a signal sees each file either still temporary (removed) or complete at its target.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rvalue_core::atomic_file::AtomicFile;

/// Temporary paths of the outputs being written.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The exit status of an interrupted run (128 + SIGINT, as shells report it).
pub const INTERRUPTED: i32 = 130;

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the list cannot leave it half-changed (push, retain): keep using it.
    PENDING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Installs the handler for SIGINT and SIGTERM (once per process; later calls do nothing).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let files = pending();
        for temp in files.iter() {
            let _ = std::fs::remove_file(temp);
        }
        eprintln!("\nrvalue: interrupted");
        std::process::exit(INTERRUPTED);
    });
}

/// An output file written whole or not at all, removed if the process is interrupted.
pub struct Output {
    file: Option<AtomicFile>,
}

impl Output {
    pub fn create(target: &Path) -> rvalue_core::Result<Output> {
        let file = AtomicFile::create(target)?;
        pending().push(file.temp_path().to_path_buf());
        Ok(Output { file: Some(file) })
    }

    /// Renames the file onto its target, with no signal handled meanwhile.
    pub fn commit(mut self) -> rvalue_core::Result<()> {
        let mut files = pending();
        let Some(file) = self.file.take() else { return Ok(()) };
        files.retain(|p| p != file.temp_path());
        file.commit()
    }
}

impl std::io::Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.as_mut() {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("already closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

impl Drop for Output {
    /// Not committed (an error): the temporary file is removed and forgotten.
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            let mut files = pending();
            files.retain(|p| p != file.temp_path());
            drop(file);
        }
    }
}

/// Writes `bytes` to `target` whole or not at all.
pub fn write(target: &Path, bytes: &[u8]) -> rvalue_core::Result<()> {
    let mut out = Output::create(target)?;
    std::io::Write::write_all(&mut out, bytes).map_err(|e| rvalue_core::Error::Io {
        file: target.display().to_string(),
        message: format!("cannot write: {e}"),
    })?;
    out.commit()
}
