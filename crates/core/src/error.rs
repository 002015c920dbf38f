//! Errors are values: nothing in the core panics on user input (a panic in wasm kills the page).

use thiserror::Error;

/// Everything that can go wrong in the core, with enough context to tell the user what to fix.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A file could not be read as scores or labels: names the file, the place and what was expected.
    #[error("{file}: {place}: {message}")]
    Parse { file: String, place: String, message: String },
    /// Shapes or sizes that do not fit together (scores vs labels, split mask vs items, …).
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A parameter outside its domain (α not in (0,1), τ² < 0, empty input, …).
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// The GPU path failed (no adapter, shader compilation, device lost, out of memory); the
    /// caller falls back to the CPU path, which gives the same results.
    #[error("GPU: {0}")]
    Gpu(String),
    /// An I/O failure (native only: the browser hands us bytes).
    #[error("{file}: {message}")]
    Io { file: String, message: String },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }
    pub fn shape(msg: impl Into<String>) -> Self {
        Error::Shape(msg.into())
    }
    pub fn parse(file: impl Into<String>, place: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Parse { file: file.into(), place: place.into(), message: message.into() }
    }
}
