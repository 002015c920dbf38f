//! The frame a figure returns maps data to the backend's pixels as the figure was drawn:
//! what the page's overlays mark points with and records for scripts.

use super::recorder::{drawn, whole};
use super::unlabelled_figure;
use crate::{Layer, Look, MarkerLine};
use rvalue_model::figure::{Figure, Marker, BLUE, GREEN, VERMILLION};

#[test]
fn the_frame_maps_the_data_range_onto_the_plotting_area() {
    let fig = Figure::new("x", "y", (2.0, 6.0), (-1.0, 1.0));
    let (frame, _) = whole(&fig, (500, 300));
    let (l, t, r, b) = frame.plot;
    assert!(l > 0 && t > 0 && r < 500 && b < 300 && l < r && t < b, "{:?}", frame.plot);
    // plotters maps a range onto the pixels start..end, the last pixel excluded.
    assert_eq!((frame.pixel(2.0, -1.0), frame.pixel(6.0, 1.0)), ((l, b - 1), (r - 1, t)));
    let (mx, my) = frame.pixel(4.0, 0.0);
    assert!((mx - (l + r - 1) / 2).abs() <= 1 && (my - (t + b - 1) / 2).abs() <= 1);
    assert_eq!((frame.size, frame.font, frame.y_range()), ((500, 300), 13, (-1.0, 1.0)));
}

#[test]
fn a_log_frame_spaces_decades_evenly_and_clamps_below_its_range() {
    let (frame, _) = whole(&unlabelled_figure(), (700, 300));
    let xs: Vec<i32> = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0].iter().map(|&x| frame.pixel(x, 0.0).0).collect();
    let steps: Vec<i32> = xs.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(steps.iter().all(|s| (s - steps[0]).abs() <= 1 && *s > 50), "{xs:?}");
    assert_eq!(frame.pixel(1e-9, 0.0), frame.pixel(0.01, 0.0));
    assert_eq!(xs[0], frame.plot.0);
}

#[test]
fn a_marker_line_is_placed_by_the_frame() {
    let fig = Figure::new("x", "y", (0.0, 1.0), (0.0, 10.0));
    let (frame, _) = whole(&fig, (400, 300));
    let line = frame.marker_line(0.25);
    let (x, top) = frame.pixel(0.25, 10.0);
    // 13-pixel text: a line 2 pixels wide, on the pixel's edge; dots of radius 5.
    assert_eq!(
        line,
        MarkerLine { x: f64::from(x), top, bottom: frame.pixel(0.25, 0.0).1, width: 2, radius: 5 }
    );
    // At 16-pixel text the line is 3 pixels wide: half a pixel in, so that it is crisp.
    let (big, _) = drawn(&fig, (400, 300), &Look::light(16), Layer::Whole);
    let line = big.marker_line(0.25);
    assert_eq!((line.width, line.x), (3, f64::from(big.pixel(0.25, 0.0).0) + 0.5));
}

#[test]
fn the_frame_is_recorded_as_text_a_script_reads() {
    let (mut frame, _) = whole(&Figure::new("x", "y", (0.0, 1.0), (0.0, 1.0)), (400, 300));
    frame.marks = vec![(10, 20, 3), (30, 40, 3)];
    frame.legend = Some((1, 2, 3, 4));
    let (l, t, r, b) = frame.plot;
    assert_eq!(
        frame.attributes(),
        [
            ("data-plot", format!("{l} {t} {r} {b}")),
            ("data-legend", "1 2 3 4".to_string()),
            ("data-marks", "10 20 3,30 40 3".to_string())
        ]
    );
    frame.legend = None;
    assert_eq!(frame.attributes()[1], ("data-legend", String::new()));
}

#[test]
fn a_markers_dots_are_placed_by_the_frame_and_non_finite_ones_left_out() {
    let fig = Figure::new("x", "y", (0.0, 1.0), (0.0, 10.0));
    let (frame, _) = whole(&fig, (400, 300));
    let dots = vec![(2.0, BLUE), (f64::NAN, GREEN), (f64::INFINITY, BLUE), (7.5, VERMILLION)];
    let marker = Marker { x: 0.25, colour: GREEN, dots };
    let placed: Vec<_> = frame.marker_dots(&marker).collect();
    assert_eq!(placed, vec![(frame.pixel(0.25, 2.0), BLUE), (frame.pixel(0.25, 7.5), VERMILLION)]);
    // On the marker's line, the higher value higher up.
    assert_eq!(placed[0].0 .0 as f64, frame.marker_line(0.25).x.floor());
    assert!(placed[1].0 .1 < placed[0].0 .1);
}
