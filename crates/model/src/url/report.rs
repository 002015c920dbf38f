//! A saved report: one HTML file holding the page, a score file and the settings to open it
//! with. The settings are the link's parameters (so the page reads them as it reads a link),
//! named as keyword arguments are (`cal_fraction` for `cal-fraction`, `rvalue` for `kind`,
//! `panel` for `embed`). Both blocks are base64 inside the file, so no text in them can end
//! an HTML element; [`decode_base64`] reads them back.

use super::escape::{encode, pairs};
use super::{hosted, DataRef, Restored, UrlState};
use crate::controls::table::{self, CONTROLS};
use crate::Mode;

/// Settings a report takes besides the controls of score files: the inspector's item, the
/// panel shown alone, the view's, and the name shown for the data.
const OTHERS: [&str; 8] = ["item", "panel", "theme", "background", "chrome", "controls", "text", "name"];

/// Why settings cannot go into a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Names that are no setting of a report, as given.
    Unknown(Vec<String>),
    /// A value the page would not use, in the sentence the page would show.
    Bad(String),
}

/// The link key a report's setting `name` is written as, if it is one.
fn link_key(name: &str) -> Option<String> {
    match name {
        "rvalue" => return Some("kind".to_string()),
        "panel" => return Some("embed".to_string()),
        _ => {}
    }
    let key = name.replace('_', "-");
    let scores_control = CONTROLS
        .iter()
        .any(|c| c.key == key && c.key != table::MODE && c.mode.is_none_or(|m| m == Mode::Scores));
    (scores_control || OTHERS.contains(&name)).then_some(key)
}

/// The query a report carries for `settings` (name, value as text), checked as the page reads
/// it: every name must be a setting, and every value one the page uses as given.
pub fn query(settings: &[(String, String)]) -> Result<String, Refused> {
    let mut unknown = Vec::new();
    let mut out = Vec::new();
    for (name, value) in settings {
        match link_key(name) {
            Some(key) => out.push(format!("{key}={}", encode(value))),
            None => unknown.push(name.clone()),
        }
    }
    if !unknown.is_empty() {
        return Err(Refused::Unknown(unknown));
    }
    let q = out.join("&");
    let (restored, _) = read(&q);
    match restored.warnings.into_iter().next() {
        Some(w) => Err(Refused::Bad(format!("{w}."))),
        None => Ok(q),
    }
}

/// A report's query read as the page opens it: in score mode, on the report's own data, without
/// workers (a file opened from disk cannot start them), and the name shown for the data, if a
/// valid one is given (else a warning says why).
pub fn read(query: &str) -> (Restored, Option<String>) {
    let mut name = None;
    let mut bad_name = None;
    let mut rest = vec!["mode=scores".to_string()];
    for (k, v) in pairs(query) {
        if k == table::MODE || k == super::TOUR {
            continue; // a report shows its data, in score mode
        }
        if k == "name" {
            match hosted::display_name(&v) {
                Ok(n) => name = Some(n),
                Err(why) => bad_name = Some(format!("'name' {why}: the data's own name is shown")),
            }
        } else {
            rest.push(format!("{}={}", encode(&k), encode(&v)));
        }
    }
    let mut restored = UrlState::from_query(&rest.join("&"));
    restored.state.data = DataRef::Report;
    restored.workers_switch = Some("0".to_string());
    restored.warnings.extend(bad_name);
    (restored, name)
}

/// The settings in force in a saved report whose settings block holds `block` and whose
/// address' query is `search`: the address' own once the page has written them there (a reload
/// keeps the view), else the report's; the name shown for the data is the report's unless the
/// address gives one (a link never holds the report's).
pub fn in_force(block: &str, search: &str) -> (Restored, Option<String>) {
    let own = read(block);
    if search.is_empty() {
        return own;
    }
    let (restored, name) = read(search);
    (restored, name.or(own.1))
}

/// Bytes from base64 text (the standard alphabet, `=` padding optional, ASCII whitespace
/// ignored), or why the text is not base64.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits, mut ended) = (0u32, 0u32, false);
    for (i, b) in text.bytes().enumerate() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                ended = true;
                continue;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => continue,
            _ => return Err(format!("byte {i} is not base64")),
        };
        if ended {
            return Err(format!("byte {i} follows the padding"));
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("the text ends in the middle of a byte".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
