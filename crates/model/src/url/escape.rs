//! A query string's pairs and percent escapes, and user text cut short for messages.

/// The query's `key=value` pairs, percent-decoded (`+` is a space, as in forms).
pub(super) fn pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-decoding; a malformed escape is kept as typed (it then fails to parse as a value).
pub(super) fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |j: usize| bytes.get(j).and_then(|b| (*b as char).to_digit(16));
        match (bytes[i], hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes all but the characters that need no escape in a query value.
pub(super) fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Long user text is cut in messages, so a crafted link cannot flood the page; control and
/// bidirectional control characters show as U+FFFD, so a quoted value cannot reorder or break
/// the sentence that refuses it.
pub(super) fn shown(v: &str) -> String {
    const MAX: usize = 40;
    let safe = |c: char| if c.is_control() || rvalue_core::io::reorders_text(c) { '\u{FFFD}' } else { c };
    let cut: String = v.chars().take(MAX).map(safe).collect();
    if v.chars().count() > MAX {
        format!("{cut}…")
    } else {
        cut
    }
}
