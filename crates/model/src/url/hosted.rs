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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_http_addresses_pass_and_other_schemes_do_not() {
        for ok in
            ["data/clip.npz", "../x.npy", "/scores.csv", "https://example.org/a.npz", "a?b=c:d", "HTTP://h/x"]
        {
            assert_eq!(address(ok).as_deref(), Ok(ok), "{ok}");
        }
        for (bad, why) in [
            ("", "empty"),
            ("javascript:alert(1)", "'javascript:'"),
            ("data:text/plain,x", "'data:'"),
            ("file:///etc/passwd", "'file:'"),
            ("a\u{7}b", "control"),
            ("x\u{202E}\n", "control"),
            ("abc\u{202E}gpj.npz", "bidirectional control character (U+202E)"),
        ] {
            let e = address(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        assert!(address(&"a".repeat(MAX_SRC_CHARS)).is_ok());
        assert!(address(&"a".repeat(MAX_SRC_CHARS + 1)).unwrap_err().contains("longer"));
    }

    #[test]
    fn display_names_are_plain_text_of_bounded_length() {
        for ok in ["CLIP ViT-B/32 on ImageNet", "<img src=x onerror=alert(1)>", "数据 ☃", " padded "] {
            assert_eq!(display_name(ok).as_deref(), Ok(ok.trim()), "{ok}");
        }
        let max = rvalue_core::io::MAX_NAME_CHARS;
        assert!(display_name(&"é".repeat(max)).is_ok());
        for (bad, why) in [
            ("", "empty"),
            ("   ", "empty"),
            ("a\tb", "control"),
            ("line\nbreak", "control"),
            ("abc\u{202E}gpj.npz", "bidirectional control character (U+202E)"),
            ("\u{2066}x\u{2069}", "bidirectional control character (U+2066)"),
        ] {
            let e = display_name(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        assert!(display_name(&"x".repeat(max + 1)).unwrap_err().contains("longer than 200"));
    }
}
