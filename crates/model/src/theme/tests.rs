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
