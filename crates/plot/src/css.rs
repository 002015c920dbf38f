//! plotters' styles as a canvas 2D context is told them: fonts and colours as CSS, text anchors
//! as `textBaseline`/`textAlign`, rotations in degrees, and a measure turned into a text box.
//! Plain functions, so that what the page's canvas backend (the `canvas` module) sets is
//! checked natively: what plotters-canvas sets for the same styles, whose pixels the backend
//! must keep.

use plotters::prelude::RGBColor;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendTextStyle, FontTransform};

/// `style`'s font as a canvas context serialises it (no `normal`), so that a context's own
/// font compares equal: `13px sans-serif`, `italic 13px sans-serif`.
pub fn css_font<S: BackendTextStyle>(style: &S) -> String {
    let (kind, family) = (style.style(), style.family());
    let (kind, size, family) = (kind.as_str(), style.size(), family.as_str());
    if kind == "normal" {
        format!("{size}px {family}")
    } else {
        format!("{kind} {size}px {family}")
    }
}

/// A text colour as plotters-canvas writes it into `fillStyle`.
pub fn css_rgba(c: BackendColor) -> String {
    let (r, g, b) = c.rgb;
    format!("rgba({r},{g},{b},{})", c.alpha)
}

/// An opaque colour (a marker's) as CSS.
pub fn css_rgb(c: RGBColor) -> String {
    format!("rgb({},{},{})", c.0, c.1, c.2)
}

/// The `textBaseline` that puts a text's `v` side at its anchor.
pub fn text_baseline(v: VPos) -> &'static str {
    match v {
        VPos::Top => "top",
        VPos::Center => "middle",
        VPos::Bottom => "bottom",
    }
}

/// The `textAlign` that puts a text's `h` side at its anchor.
pub fn text_align(h: HPos) -> &'static str {
    match h {
        HPos::Left => "start",
        HPos::Right => "end",
        HPos::Center => "center",
    }
}

/// A text's clockwise rotation about its anchor, in degrees (0: drawn unrotated, no transform).
pub fn text_degrees(t: FontTransform) -> f64 {
    match t {
        FontTransform::None => 0.0,
        FontTransform::Rotate90 => 90.0,
        FontTransform::Rotate180 => 180.0,
        FontTransform::Rotate270 => 270.0,
    }
}

/// A text's box from `measureText`: its advance, and the font's line box (bounding-box ascent
/// plus descent) as the span plotters' web font layer would measure, both rounded up.
pub fn text_box(width: f64, ascent: f64, descent: f64) -> (u32, u32) {
    (width.ceil().max(0.0) as u32, (ascent + descent).ceil().max(0.0) as u32)
}

/// A rough box for `text` of `px` pixels, for a measure that failed (never seen): it keeps the
/// figure drawable.
pub fn rough_text_box(text: &str, px: f64) -> (u32, u32) {
    ((0.6 * px * text.chars().count() as f64) as u32, (1.2 * px) as u32)
}
