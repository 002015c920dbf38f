use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn the_contrast_ratio_is_wcags() {
    assert!((contrast((0, 0, 0), (255, 255, 255)) - 21.0).abs() < 1e-9);
    assert!((contrast((119, 119, 119), (255, 255, 255)) - 4.48).abs() < 0.01);
}

#[test]
fn text_reads_at_4_5_to_1_and_lines_at_3_to_1_in_both_themes() {
    for p in [LIGHT, DARK] {
        assert!(contrast(p.ink, p.background) >= 4.5, "{p:?}");
        assert!(contrast(p.grey, p.background) >= 3.0, "{p:?}");
        // The grid stays in the background: fainter than any line drawn on it.
        assert!(contrast(p.grid.1, p.background) < 1.5, "{p:?}");
    }
}

#[test]
fn every_method_colour_stands_out_on_the_dark_background() {
    for c in METHODS {
        let r = contrast(c, DARK.background);
        assert!(r >= 3.0, "{c:?}: {r:.2}");
    }
}

#[test]
fn the_page_marks_its_resolved_theme_and_reads_it_back() {
    let view = |theme, transparent| View { theme, transparent, ..View::default() };
    let asked = std::cell::Cell::new(0);
    let dark = || {
        asked.set(asked.get() + 1);
        true
    };
    assert_eq!(html_attrs(&view(Theme::Light, false), dark), [("data-theme", "light")]);
    assert_eq!(asked.get(), 0, "only auto asks the system");
    assert_eq!(
        html_attrs(&view(Theme::Auto, true), dark),
        [("data-theme", "dark"), ("data-background", "transparent")]
    );
    assert_eq!(html_attrs(&view(Theme::Auto, false), || false), [("data-theme", "light")]);
    assert_eq!(asked.get(), 1);
    let (colours, transparent) = page_palette(Some("dark"), Some("transparent"));
    assert!(*colours == DARK && transparent);
    let (colours, transparent) = page_palette(None, None);
    assert!(*colours == LIGHT && !transparent);
}
