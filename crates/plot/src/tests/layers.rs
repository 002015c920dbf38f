//! A figure drawn in two layers draws what it draws whole, and the palette paints it.

use super::recorder::{drawn, whole, Call, Calls};
use super::{labelled_figure, unlabelled_figure};
use crate::{Layer, Look, Palette};
use rvalue_model::figure::{BLUE, GREY};
use rvalue_model::theme::DARK;

/// The calls in a fixed order, to compare what was drawn regardless of when.
fn sorted(calls: &[Call]) -> Vec<String> {
    let mut all: Vec<String> = calls.iter().map(|c| format!("{c:?}")).collect();
    all.sort();
    all
}

#[test]
fn the_back_and_front_layers_draw_what_the_whole_figure_draws() {
    let mut fig = labelled_figure();
    fig.lines[0].front = true;
    let look = Look::light(13);
    let (whole_frame, all) = drawn(&fig, (420, 240), &look, Layer::Whole);
    let (back_frame, back) = drawn(&fig, (420, 240), &look, Layer::Back);
    let (front_frame, front) = drawn(&fig, (420, 240), &look, Layer::Front);
    let both: Vec<Call> = back.0.iter().chain(&front.0).cloned().collect();
    assert_eq!(sorted(&all.0), sorted(&both));
    for f in [&back_frame, &front_frame] {
        assert_eq!(
            (f.plot, f.legend, f.pixel(1.0, 0.0)),
            (whole_frame.plot, whole_frame.legend, whole_frame.pixel(1.0, 0.0))
        );
    }
    assert_eq!((back_frame.marks.len(), front_frame.marks.len()), (2, 0));
    // The front: the front curve and the legend, no axes.
    assert_eq!(front.texts(), ["a curve", "some dots"]);
    assert_eq!(front.paths(BLUE, 2).len(), 1);
    assert!(back.paths(BLUE, 2).is_empty());
}

/// The filled rectangles covering the whole `w × h` backend.
fn backgrounds(calls: &Calls, (w, h): (i32, i32)) -> Vec<(u8, u8, u8)> {
    calls
        .0
        .iter()
        .filter_map(|c| match c {
            Call::Rect((0, 0), b, (rgb, 1000), true) if b.0 >= w - 1 && b.1 >= h - 1 => Some(*rgb),
            _ => None,
        })
        .collect()
}

#[test]
fn the_dark_palette_paints_the_figure_and_its_ink() {
    let fig = unlabelled_figure();
    let dark = Palette::of(&DARK, false);
    let (_, calls) = drawn(&fig, (300, 200), &Look { palette: dark, ..Look::light(13) }, Layer::Whole);
    assert_eq!(backgrounds(&calls, (300, 200)), [DARK.background]);
    // The light grey line is drawn in the dark palette's grey; Okabe–Ito blue stays.
    assert_eq!(dark.colour(GREY), dark.grey);
    assert!(calls.paths(GREY, 2).is_empty() && !calls.paths(DARK.grey, 2).is_empty());
    assert!(!calls.paths(BLUE, 2).is_empty());
    assert!(calls
        .0
        .iter()
        .any(|c| matches!(c, Call::Text(t, _, _, (rgb, _)) if t == "value" && *rgb == DARK.ink)));
    // Transparent: nothing is painted under the figure; light: white.
    let transparent = Look { palette: Palette::of(&DARK, true), ..Look::light(13) };
    let (_, clear) = drawn(&fig, (300, 200), &transparent, Layer::Whole);
    assert!(backgrounds(&clear, (300, 200)).is_empty());
    let (_, light) = whole(&fig, (300, 200));
    assert_eq!(backgrounds(&light, (300, 200)), [(255, 255, 255)]);
}
