//! The names an `.npz` gives its classes: the member `class_names`, one string per class,
//! shown by the page as text. A name is at most [`MAX_NAME_CHARS`] characters and holds no
//! control character and no bidirectional control (which would show it as another name), so
//! a file cannot break the page's layout, its CSV exports or what a name seems to say.

use super::{npz, shown, sniff, Format};
use crate::{Error, Result};

/// Longest class name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The member `class_names` of an `.npz` of `k` classes: `None` for other formats and archives
/// without it; an error naming the member when it is not `k` names of text.
pub fn read_class_names(file: &str, bytes: &[u8], k: usize) -> Result<Option<Vec<String>>> {
    if !matches!(sniff(bytes), Format::Zip) {
        return Ok(None);
    }
    let entries = npz::entries(file, bytes)?;
    let Some(e) = npz::find_member(file, &entries, "class_names")? else { return Ok(None) };
    let at = format!("member '{}'", shown(&e.name));
    let bad = |why: String| Error::parse(file, at.as_str(), why);
    let data = npz::extract(file, bytes, e)?;
    let names = super::npy::parse_text_npy(&data).map_err(bad)?;
    check_names(&names, k).map_err(bad)?;
    Ok(Some(names))
}

/// Whether `c` reorders the text after it on screen (the bidirectional embeddings, overrides
/// and isolates): a name holding one could show as another name.
pub fn reorders_text(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Why `names` cannot name `k` classes.
pub fn check_names(names: &[String], k: usize) -> std::result::Result<(), String> {
    if names.len() != k {
        return Err(format!("{} names for K = {k} classes; expected one name per class", names.len()));
    }
    for (i, n) in names.iter().enumerate() {
        if n.chars().count() > MAX_NAME_CHARS {
            return Err(format!("name {i} is longer than {MAX_NAME_CHARS} characters"));
        }
        if n.chars().any(char::is_control) {
            return Err(format!("name {i} holds a control character"));
        }
        if let Some(c) = n.chars().find(|&c| reorders_text(c)) {
            return Err(format!("name {i} holds a bidirectional control character (U+{:04X})", u32::from(c)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::npy::write_npy_f64;
    use crate::io::npz::tests::{build_zip, Member};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A `.npy` of text as numpy writes it: `<U{width}` (UTF-32) or `|S{width}` (bytes).
    fn text_npy(names: &[&str], wide: bool) -> Vec<u8> {
        let width = names.iter().map(|n| if wide { n.chars().count() } else { n.len() }).max().unwrap_or(0);
        let descr = if wide { format!("<U{width}") } else { format!("|S{width}") };
        let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({},), }}", names.len());
        // Padded so the data starts at byte 128, as numpy aligns it.
        let mut head = dict.into_bytes();
        head.resize(117, b' ');
        head.push(b'\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(head.len() as u16).to_le_bytes());
        out.extend_from_slice(&head);
        for n in names {
            if wide {
                let cs: Vec<char> = n.chars().collect();
                for i in 0..width {
                    out.extend_from_slice(&cs.get(i).map_or(0, |&c| c as u32).to_le_bytes());
                }
            } else {
                out.extend_from_slice(n.as_bytes());
                out.resize(out.len() + width - n.len(), 0);
            }
        }
        out
    }

    fn archive(names: &[u8]) -> Vec<u8> {
        let scores = write_npy_f64(&[2, 3], &[0.0; 6]);
        let member = |name, data| Member { name, data, deflate: false, zip64_central: false };
        build_zip(&[member("scores.npy", &scores), member("class_names.npy", names)])
    }

    #[test]
    fn names_read_from_unicode_and_byte_arrays() {
        let wide = archive(&text_npy(&["chat", "Hund", "φ"], true));
        let got = read_class_names("a.npz", &wide, 3).unwrap();
        assert_eq!(got, Some(vec!["chat".to_string(), "Hund".into(), "φ".into()]));
        let narrow = archive(&text_npy(&["a", "bb", ""], false));
        assert_eq!(read_class_names("a.npz", &narrow, 3).unwrap().unwrap(), ["a", "bb", ""]);
        let plain = build_zip(&[Member {
            name: "scores.npy",
            data: &write_npy_f64(&[1, 2], &[0.0; 2]),
            deflate: true,
            zip64_central: false,
        }]);
        assert_eq!(read_class_names("a.npz", &plain, 2).unwrap(), None);
        assert_eq!(read_class_names("a.npy", &write_npy_f64(&[1, 2], &[0.0; 2]), 2).unwrap(), None);
    }

    #[test]
    fn bad_names_are_refused_naming_the_member() {
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        let cases: [(Vec<u8>, &str); 5] = [
            (text_npy(&["a", "b"], true), "2 names for K = 3 classes"),
            (text_npy(&["a", "b\u{7}", "c"], true), "name 1 holds a control character"),
            (
                text_npy(&["a", "b", "c\u{202E}d"], true),
                "name 2 holds a bidirectional control character (U+202E)",
            ),
            (text_npy(&["a", &long, "c"], true), "name 1 is longer than 200 characters"),
            (write_npy_f64(&[3], &[1.0, 2.0, 3.0]), "dtype '<f8' is not text"),
        ];
        for (member, why) in cases {
            let e = read_class_names("a.npz", &archive(&member), 3).unwrap_err().to_string();
            assert!(e.contains("member 'class_names.npy'") && e.contains(why), "{e}");
        }
    }
}
