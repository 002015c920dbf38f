//! What the canvas backend tells a 2D context ([`crate::css`]): the strings plotters-canvas
//! writes for the same styles, so both draw the same pixels.

use plotters::prelude::{FontStyle, IntoFont, RGBColor};
use plotters::style::TextStyle;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, FontTransform};

use crate::css::{
    css_font, css_rgb, css_rgba, rough_text_box, text_align, text_baseline, text_box, text_degrees,
};

fn font(style: FontStyle) -> TextStyle<'static> {
    ("sans-serif", 13).into_font().style(style).color(&RGBColor(0, 0, 0))
}

#[test]
fn a_font_is_written_as_a_context_reads_it_back() {
    assert_eq!(css_font(&font(FontStyle::Normal)), "13px sans-serif");
    assert_eq!(css_font(&font(FontStyle::Italic)), "italic 13px sans-serif");
    assert_eq!(css_font(&font(FontStyle::Bold)), "bold 13px sans-serif");
}

#[test]
fn colours_are_css() {
    assert_eq!(css_rgba(BackendColor { alpha: 0.5, rgb: (1, 2, 3) }), "rgba(1,2,3,0.5)");
    assert_eq!(css_rgba(BackendColor { alpha: 1.0, rgb: (255, 0, 9) }), "rgba(255,0,9,1)");
    assert_eq!(css_rgb(RGBColor(0, 114, 178)), "rgb(0,114,178)");
}

#[test]
fn anchors_are_the_contexts_baseline_and_alignment() {
    let v = [VPos::Top, VPos::Center, VPos::Bottom].map(text_baseline);
    assert_eq!(v, ["top", "middle", "bottom"]);
    let h = [HPos::Left, HPos::Center, HPos::Right].map(text_align);
    assert_eq!(h, ["start", "center", "end"]);
}

/// The canvas turns clockwise on a y-down bitmap: the unit x vector rotated by the degrees lands
/// where plotters' own transform puts it.
#[test]
fn rotations_turn_as_plotters_transforms() {
    use FontTransform::*;
    for t in [None, Rotate90, Rotate180, Rotate270] {
        let a = text_degrees(t.clone()).to_radians();
        let turned = (a.cos().round() as i32, a.sin().round() as i32);
        assert_eq!(turned, t.transform(1, 0), "{}", text_degrees(t));
    }
}

#[test]
fn a_measure_is_rounded_up_to_whole_pixels() {
    assert_eq!(text_box(10.2, 9.1, 2.3), (11, 12));
    assert_eq!(text_box(12.0, 10.0, 3.0), (12, 13));
    assert_eq!(text_box(-1.0, 0.0, 0.0), (0, 0));
    // A failed measure: 0.6 em per character (not per byte), 1.2 em high.
    assert_eq!(rough_text_box("σ² ab", 10.0), (30, 12));
}
