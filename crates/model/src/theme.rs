//! The figures' colours in each theme, beside the page's style sheet (`www/style.css` holds the
//! same values as CSS custom properties), and the contrast the dark one was chosen for. The
//! methods keep their Okabe–Ito colours in both themes: each stays at least 3:1 (WCAG's ratio
//! for graphics) against the dark figure background, so no method needs a second colour. A
//! link's theme is marked on the page's `<html>` ([`html_attrs`]), where the figures read it.

use crate::url::{Theme, View};

/// An sRGB colour.
pub type Rgb = (u8, u8, u8);

/// Okabe–Ito's colours of CP, CP_avg, CP_r, APS, RAPS, SAPS (the page's method order).
pub const METHODS: [Rgb; 6] =
    [(230, 159, 0), (86, 180, 233), (0, 158, 115), (0, 114, 178), (213, 94, 0), (204, 121, 167)];

/// What a figure draws in colours that are not a method's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// The figure's background (the panel's colour).
    pub background: Rgb,
    /// Text, axes and lines drawn in the text colour.
    pub ink: Rgb,
    /// Secondary lines (a target, faint curves).
    pub grey: Rgb,
    /// The grid's fine and bold lines.
    pub grid: (Rgb, Rgb),
    /// The legend box's edge.
    pub edge: Rgb,
}

pub const LIGHT: Palette = Palette {
    background: (255, 255, 255),
    ink: (29, 29, 31),
    grey: (110, 110, 110),
    grid: ((238, 238, 238), (220, 220, 220)),
    edge: (200, 200, 200),
};

pub const DARK: Palette = Palette {
    background: (27, 28, 32),
    ink: (230, 230, 234),
    grey: (160, 160, 168),
    grid: ((38, 39, 44), (50, 51, 58)),
    edge: (90, 91, 100),
};

/// WCAG's relative luminance.
pub fn luminance((r, g, b): Rgb) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

/// WCAG's contrast ratio of two colours (1 to 21).
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The attributes on `<html>` for a link's `view`, which colour the page and its figures: its
/// theme resolved (`auto` asks `prefers_dark`, the system's colour scheme) as `data-theme`, and
/// `data-background` when it is transparent.
pub fn html_attrs(view: &View, prefers_dark: impl FnOnce() -> bool) -> Vec<(&'static str, &'static str)> {
    let dark = match view.theme {
        Theme::Light => false,
        Theme::Dark => true,
        Theme::Auto => prefers_dark(),
    };
    let mut attrs = vec![("data-theme", if dark { "dark" } else { "light" })];
    if view.transparent {
        attrs.push(("data-background", "transparent"));
    }
    attrs
}

/// The figures' colours on a page whose `<html>` has `data-theme` = `theme` and
/// `data-background` = `background` ([`html_attrs`]), and whether the background is transparent.
pub fn page_palette(theme: Option<&str>, background: Option<&str>) -> (&'static Palette, bool) {
    (if theme == Some("dark") { &DARK } else { &LIGHT }, background == Some("transparent"))
}

#[cfg(test)]
mod tests;
