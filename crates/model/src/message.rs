//! Errors as the page shows them: a reader's sentence, never the error kind's prefix that the
//! command line prints ("invalid argument: ").

use rvalue_core::Error;

/// An error as a sentence for the page: its message without the error kind's prefix, its first
/// letter capitalised (a Latin one) and a full stop. A file's errors start with the file's name,
/// which keeps its case.
pub fn sentence(e: &Error) -> String {
    match e {
        Error::Parse { .. } | Error::Io { .. } => format!("{}.", plain(e).trim_end_matches('.')),
        _ => capitalised(&plain(e)),
    }
}

/// An error's message without the error kind's prefix, as it is, to follow a name
/// ("digits.npz: …").
pub fn plain(e: &Error) -> String {
    match e {
        Error::Invalid(m) | Error::Shape(m) => m.clone(),
        Error::OutOfRange { what, value, range } => format!("{what} = {value} is not in {range}"),
        Error::InvalidOption { option, value, expected } => {
            format!("'{value}' is not a {option} (expected {expected})")
        }
        Error::Length { what, got, expected } => format!("{got} {what} do not fit {expected}"),
        Error::Gpu { message } => format!("the GPU failed ({message})"),
        Error::Parse { .. } | Error::Io { .. } | Error::Stopped => e.to_string(),
    }
}

/// An error's message alone, for a note that says itself what failed ("GPU failed: …"): a GPU
/// error's message without "GPU: ", any other as [`plain`].
pub fn reason(e: &Error) -> String {
    match e {
        Error::Gpu { message } => message.clone(),
        _ => plain(e),
    }
}

/// An error about `name` (a file) as a sentence: "name: message.".
pub fn about(name: &str, e: &Error) -> String {
    format!("{name}: {}.", plain(e).trim_end_matches('.'))
}

/// `text` as a sentence: one full stop at the end, and the first letter capitalised when the
/// first word is a plain lower-case word. A name keeps its case ("scores_v2.npy: …", "α = …":
/// Α is not α).
pub fn capitalised(text: &str) -> String {
    let text = text.trim_end_matches('.');
    let word = text.split(|c: char| c.is_whitespace() || c == ':' || c == ',').next().unwrap_or("");
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '-' || c == '\'');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if plain => format!("{}{}.", first.to_ascii_uppercase(), chars.as_str()),
        Some(_) => format!("{text}."),
        None => String::new(),
    }
}

/// An error and what it left on the page ("The results shown are unchanged."), as one message.
pub fn failure(e: &Error, consequence: &str) -> String {
    format!("{} {consequence}", sentence(e))
}

#[cfg(test)]
mod tests;
