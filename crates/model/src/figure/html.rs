//! Text made safe for markup: every string the page writes with `innerHTML` that did not come
//! from this crate's own templates (file names, class names, messages) passes through [`esc`].

/// Escapes text for `innerHTML` and for attribute values in double quotes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
