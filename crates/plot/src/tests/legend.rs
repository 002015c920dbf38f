//! The legend sits where the model decides ([`rvalue_model::figure::legend`]), from the
//! backend's measures, and is painted there: inside the plot where it hides the fewest data
//! points, or under the plot on a narrow page or where it would bury the plot.

use super::recorder::{drawn, whole, Call, Calls, Fixed};
use super::{labelled_figure, unlabelled_figure};
use crate::{Frame, Layer, Look, Text};
use plotters::prelude::{IntoFont, RGBColor};
use rvalue_model::figure::legend::{self, legend_spot};
use rvalue_model::figure::{Dots, Figure, Legend, Line, BLUE, ORANGE, VERMILLION};

/// The legend's box as the model places it inside `frame`'s plot, its labels measured by the
/// fixed-advance font at 13 pixels.
fn model_box(fig: &Figure, frame: &Frame) -> (i32, i32, i32, i32) {
    let font = ("sans-serif", 13).into_font().color(&RGBColor(0, 0, 0));
    let sizes = fig.legend_entries().iter().map(|(label, _)| Fixed.size(label, &font)).collect();
    let (l, t, r, b) = frame.plot;
    let layout = legend::inside(sizes, 13.0, f64::from(b - t));
    let points: Vec<(i32, i32)> =
        fig.legend_points().iter().map(|&(x, y)| frame.pixel(x, y)).map(|(x, y)| (x - l, y - t)).collect();
    let (x, y) = legend_spot(fig.legend, (layout.w, layout.h), (r - l, b - t), &points);
    (l + x, t + y, l + x + layout.w, t + y + layout.h)
}

/// The legend's painted box: its filled background's corners.
fn painted(calls: &Calls) -> Vec<(i32, i32, i32, i32)> {
    let white = (255, 255, 255);
    calls
        .0
        .iter()
        .filter_map(|c| match c {
            Call::Rect(a, b, (c, 850), true) if *c == white => Some((a.0, a.1, b.0, b.1)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_legend_sits_and_is_painted_where_the_model_places_it() {
    let fig = labelled_figure();
    let (frame, calls) = whole(&fig, (640, 400));
    let spot = model_box(&fig, &frame);
    assert_eq!(frame.legend, Some(spot));
    assert_eq!(painted(&calls), [spot]);
    // Its labels inside it, in order.
    let labels: Vec<_> = ["a curve", "some dots"].iter().flat_map(|l| calls.text(l)).collect();
    assert_eq!(labels.len(), 2);
    assert!(labels.iter().all(|&((x, y), _)| x > spot.0 && x < spot.2 && y > spot.1 && y < spot.3));
    assert!(labels[0].0 .1 < labels[1].0 .1, "{labels:?}");
}

#[test]
fn the_legend_moves_off_the_data_in_its_corner() {
    let mut fig = Figure::new("x", "y", (0.0, 1.0), (0.0, 1.0));
    // A cloud of dots in the upper right, where the legend would go.
    let points =
        (0..100).map(|i| (0.7 + 0.003 * f64::from(i % 10 * 10), 0.7 + 0.003 * f64::from(i / 10 * 10)));
    fig.dots.push(Dots {
        label: Some("cloud".into()),
        colour: VERMILLION,
        radius: 4,
        filled: true,
        opacity: 1.0,
        points: points.collect(),
    });
    fig.lines.push(Line::of("curve", BLUE, &[0.0, 1.0], &[0.5, 0.5]));
    assert_eq!(fig.legend, Legend::UpperRight);
    let (frame, calls) = whole(&fig, (640, 400));
    let spot = model_box(&fig, &frame);
    assert_eq!((frame.legend, painted(&calls)), (Some(spot), vec![spot]));
    let covered = |&(x, y, _): &(i32, i32, i32)| x >= spot.0 && x <= spot.2 && y >= spot.1 && y <= spot.3;
    assert_eq!(frame.marks.len(), 100);
    assert!(!frame.marks.iter().any(covered), "{spot:?} covers dots");
}

#[test]
fn a_narrow_figure_lays_its_legend_under_the_plot_alike_in_both_layers() {
    let fig = labelled_figure();
    let look = Look { legend_below: true, ..Look::light(13) };
    let (b, _) = drawn(&fig, (380, 300), &look, Layer::Back);
    let (f, front) = drawn(&fig, (380, 300), &look, Layer::Front);
    let legend = b.legend.unwrap();
    assert_eq!((f.legend, f.plot), (Some(legend), b.plot));
    assert!(legend.1 >= b.plot.3, "legend {legend:?} under the plot {:?}", b.plot);
    assert_eq!(painted(&front), [legend]);
    // Both dots are drawn, inside the plot; the wide figure keeps its legend inside.
    assert_eq!(b.marks.len(), 2);
    let p = b.plot;
    assert!(b.marks.iter().all(|&(x, y, _)| x >= p.0 && x <= p.2 && y >= p.1 && y <= p.3));
    let (wide, _) = whole(&fig, (380, 300));
    let inside = wide.legend.unwrap();
    assert!(inside.1 >= wide.plot.1 && inside.3 <= wide.plot.3, "{inside:?} in {:?}", wide.plot);
}

#[test]
fn a_legend_that_would_bury_a_small_plot_goes_under_it() {
    let mut fig = unlabelled_figure();
    for (i, colour) in [BLUE, ORANGE, VERMILLION, BLUE, ORANGE, VERMILLION].into_iter().enumerate() {
        fig.lines.push(Line::of(format!("a long legend label {i}"), colour, &[0.1, 1.0], &[0.0, 0.5]));
    }
    let (small, _) = whole(&fig, (300, 160));
    let (legend, plot) = (small.legend.unwrap(), small.plot);
    assert!(legend.1 >= plot.3, "legend {legend:?} under the plot {plot:?}");
    let (large, _) = whole(&fig, (1200, 900));
    let (legend, plot) = (large.legend.unwrap(), large.plot);
    assert!(legend.1 >= plot.1 && legend.3 <= plot.3, "legend {legend:?} in the plot {plot:?}");
}

#[test]
fn a_figure_without_labels_has_no_legend() {
    let (frame, calls) = whole(&unlabelled_figure(), (640, 400));
    assert_eq!((frame.legend, painted(&calls)), (None, vec![]));
}
