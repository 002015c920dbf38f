//! `src=` and `labels=`: a score file hosted on the page's own site. A link may name one, as
//! a hosted file is public (an upload never enters a link). The address is checked here for
//! what a link alone can tell (length, control characters, scheme); whether it is on the
//! page's own site is the page's check, which knows its origin. `name=` is the name the page
//! shows for the file: text from a link, checked as a file's class names are.

/// Longest address a link may name.
pub const MAX_SRC_CHARS: usize = 2048;

/// `v` as a hosted file's address, or why not (a phrase after the quoted parameter).
pub fn address(v: &str) -> Result<String, String> {
    plain_text(v, MAX_SRC_CHARS)?;
    // A scheme is what comes before the first ':' when no '/', '?' or '#' comes earlier.
    if let Some(at) = v.find([':', '/', '?', '#']).filter(|&at| v[at..].starts_with(':')) {
        let scheme = v[..at].to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!(
                "is a '{scheme}:' address; a hosted file is a path on this site or an http(s) address"
            ));
        }
    }
    Ok(v.to_string())
}

/// `v` as the name shown for a hosted file, or why not (a phrase after the quoted parameter).
/// The page writes it as text only; what would make it read as another name is refused.
pub fn display_name(v: &str) -> Result<String, String> {
    plain_text(v.trim(), rvalue_core::io::MAX_NAME_CHARS)?;
    Ok(v.trim().to_string())
}

/// Why `v` is not plain text of at most `max` characters: empty, too long, or holding a control
/// or bidirectional control character.
fn plain_text(v: &str, max: usize) -> Result<(), String> {
    if v.is_empty() {
        return Err("is empty".to_string());
    }
    if v.chars().count() > max {
        return Err(format!("is longer than {max} characters"));
    }
    if v.chars().any(char::is_control) {
        return Err("holds a control character".to_string());
    }
    if let Some(c) = v.chars().find(|&c| rvalue_core::io::reorders_text(c)) {
        return Err(format!("holds a bidirectional control character (U+{:04X})", u32::from(c)));
    }
    Ok(())
}

/// How the page reads a hosted file, decided from the answer to a Range request for its
/// first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostedRead {
    /// The server answers Range requests and the file is large: read a block at a time.
    Stream { size: u64 },
    /// The server answers Range requests and the file is small: fetched again, whole.
    Refetch,
    /// The answer holds the whole file (the server ignores Range requests, or the file is no
    /// longer than what was asked for): read as it comes.
    AsIs,
}

impl HostedRead {
    /// The way to read a file whose first `asked` bytes were asked for with a Range request and
    /// came with `status` and `content_range`, when files of `stream_from` bytes or more are
    /// streamed. A 206 whose length cannot be read is fetched again whole.
    pub fn of(status: u16, content_range: Option<&str>, asked: u64, stream_from: f64) -> HostedRead {
        match (status, content_range.and_then(content_range_total)) {
            (206, Some(size)) if size as f64 >= stream_from && size > 0 => HostedRead::Stream { size },
            (206, Some(size)) if size <= asked => HostedRead::AsIs,
            (206, _) => HostedRead::Refetch,
            _ => HostedRead::AsIs,
        }
    }
}

/// What the page says of a file of `bytes` read whole because its server ignores Range
/// requests, when a server that answered them would have let it be streamed.
pub fn unranged_note(bytes: f64, stream_from: f64) -> Option<String> {
    (bytes >= stream_from).then(|| {
        format!(
            "Its server does not answer HTTP Range requests, so it was read whole ({:.1} MB); a \
             server that answers them lets the page read it a block at a time.",
            bytes / 1e6
        )
    })
}

/// The `Range` header's value asking for bytes `range` (HTTP's last byte is inclusive).
pub fn range_header(range: &std::ops::Range<u64>) -> String {
    format!("bytes={}-{}", range.start, range.end.saturating_sub(1))
}

/// The file's whole length, from a 206 answer's `Content-Range` (`bytes 0-99/1234`); `None` for
/// an unknown length (`*`) or anything else.
pub fn content_range_total(value: &str) -> Option<u64> {
    value.trim().strip_prefix("bytes ")?.rsplit_once('/')?.1.trim().parse().ok()
}

/// The last part of an address' path: the name its extension is read from.
pub fn file_name(address: &str) -> String {
    let path = address.split(['?', '#']).next().unwrap_or(address);
    path.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or(path).to_string()
}

/// Why `address`, resolved to origin `origin`, is not loaded by a page of origin `own`.
pub fn other_site(address: &str, origin: &str, own: &str) -> Option<String> {
    (origin != own).then(|| {
        format!(
            "'{address}' is on another site ({origin}); the page loads hosted files from its own \
             site ({own}) only"
        )
    })
}

/// Why an answer from `address` with `status` (`ok`: a 2xx) and `content_type` is not a file's
/// bytes: an error status, or a web page.
pub fn refused_answer(address: &str, ok: bool, status: u16, content_type: Option<&str>) -> Option<String> {
    if !ok {
        return Some(format!("'{address}' could not be fetched: HTTP {status}"));
    }
    content_type
        .is_some_and(|t| t.starts_with("text/html"))
        .then(|| format!("'{address}' is a web page, not a score file: is the address right?"))
}

/// What the status line says while `address`, of `bytes`, downloads.
pub fn fetching(address: &str, bytes: f64) -> String {
    format!("Fetching {address} ({:.1} MB)…", bytes / 1e6)
}

/// Why the answer to a Range request with `status` gives no range (a 206 does).
pub fn unranged(status: u16) -> Option<String> {
    (status != 206).then(|| format!("the server answered a Range request with HTTP {status}"))
}

/// Why `got` bytes are not what a Range request for `range` asked for.
pub fn short_read(range: &std::ops::Range<u64>, got: usize) -> Option<String> {
    let want = range.end - range.start;
    (got as u64 != want).then(|| format!("{got} bytes came where {want} were asked for"))
}

#[cfg(test)]
mod tests;
