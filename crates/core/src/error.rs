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

/// The value among `all` whose `name` is `s`, or an error naming `what` and the names allowed:
/// the inverse of an option's `name` (prior, variance, algorithm, λ rule).
pub(crate) fn parse_name<T: Copy>(s: &str, all: &[T], name: fn(T) -> &'static str, what: &str) -> Result<T> {
    all.iter().copied().find(|&v| name(v) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&v| name(v)).collect();
        let expected = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        Error::invalid(format!("unknown {what} '{s}' (expected {expected})"))
    })
}

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

#[cfg(test)]
mod tests {
    use crate::conformal::Prior;
    use crate::rvalue::{Algorithm, LambdaRule};
    use crate::tensor::VarianceKind;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn option_names_read_back_and_others_are_named_in_the_error() {
        assert!(Prior::ALL.iter().all(|&p| Prior::parse(p.name()) == Ok(p)));
        assert!(VarianceKind::ALL.iter().all(|&v| VarianceKind::parse(v.name()) == Ok(v)));
        assert!(Algorithm::ALL.iter().all(|&a| Algorithm::parse(a.name()) == Ok(a)));
        assert!(LambdaRule::ALL.iter().all(|&l| LambdaRule::parse(l.name()) == Ok(l)));
        let e = Prior::parse("global").unwrap_err().to_string();
        assert!(e.contains("unknown prior 'global' (expected per-item or pooled)"), "{e}");
    }
}
