//! Errors are values: nothing in the core panics on user input (a panic in wasm kills the page).

use thiserror::Error;

/// Everything that can go wrong in the core, with enough context to tell the user what to fix.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A file could not be read as scores or labels: names the file, the place and what was expected.
    #[error("{file}: {place}: {message}")]
    Parse { file: String, place: String, message: String },
    /// A list whose length does not fit the rest: `got` of `what` (labels, positions, …) for
    /// `expected` (`"12 items"`, `"3 draws × 4 candidates"`).
    #[error("shape mismatch: {got} {what} for {expected}")]
    Length { what: String, got: usize, expected: String },
    /// Other shapes or sizes that do not fit together (tensor dimensions, split mask vs items, …).
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A name that is not one of an option's values (`option` is "prior", "tie order", …;
    /// `expected` lists the names allowed, as "a, b or c").
    #[error("invalid argument: unknown {option} '{value}' (expected {expected})")]
    InvalidOption { option: String, value: String, expected: String },
    /// A parameter outside its range: `what` (α, β) is `value`, not in `range` (`"(0, 1)"`).
    #[error("invalid argument: {what} = {value} is not in {range}")]
    OutOfRange { what: String, value: f64, range: String },
    /// Any other parameter outside its domain (τ² < 0, empty input, …).
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// The GPU path failed (no adapter, shader compilation, device lost, out of memory); the
    /// caller falls back to the CPU path, which gives the same results.
    #[error("GPU: {message}")]
    Gpu { message: String },
    /// An I/O failure (native only: the browser hands us bytes).
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    /// The caller asked the run to stop before it finished ([`crate::watch`]); nothing it
    /// computed is returned.
    #[error("stopped before the end, as asked")]
    Stopped,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }
    pub fn shape(msg: impl Into<String>) -> Self {
        Error::Shape(msg.into())
    }
    /// `got` of `what` where `expected` fit: see [`Error::Length`].
    pub fn length(what: impl Into<String>, got: usize, expected: impl Into<String>) -> Self {
        Error::Length { what: what.into(), got, expected: expected.into() }
    }
    /// `what = value` outside `range`: see [`Error::OutOfRange`].
    pub fn out_of_range(what: impl Into<String>, value: f64, range: impl Into<String>) -> Self {
        Error::OutOfRange { what: what.into(), value, range: range.into() }
    }
    pub fn gpu(message: impl Into<String>) -> Self {
        Error::Gpu { message: message.into() }
    }
    pub fn parse(file: impl Into<String>, place: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Parse { file: file.into(), place: place.into(), message: message.into() }
    }
}
