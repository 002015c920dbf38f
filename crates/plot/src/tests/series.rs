//! Every series of a figure reaches the backend: each defined stretch of a curve as a path
//! inside the frame, bars, dots, marked x positions and the arrows where a curve leaves the top.

use super::recorder::{whole, Call};
use rvalue_model::figure::{Bars, Dots, Figure, Line, BLUE, GREEN, ORANGE, PURPLE, SKY, VERMILLION};

/// Whether `p` lies in the frame's plotting area (edges included).
fn inside(plot: (i32, i32, i32, i32), (x, y): (i32, i32)) -> bool {
    (plot.0..=plot.2).contains(&x) && (plot.1..=plot.3).contains(&y)
}

#[test]
fn every_curve_of_a_figure_is_a_path_per_defined_stretch() {
    let xs: Vec<f64> = (0..=20).map(f64::from).collect();
    let mut fig = Figure::new("x", "y", (0.0, 20.0), (0.0, 1.0));
    let ramp: Vec<f64> = xs.iter().map(|x| x / 20.0).collect();
    fig.lines.push(Line::of("whole", BLUE, &xs, &ramp));
    // A gap at x = 10: two stretches.
    let gapped: Vec<f64> = xs.iter().map(|&x| if x == 10.0 { f64::NAN } else { 0.5 }).collect();
    fig.lines.push(Line::of("gapped", ORANGE, &xs, &gapped));
    let (frame, calls) = whole(&fig, (600, 400));
    let blue = calls.paths(BLUE, 2);
    assert_eq!(blue.len(), 1, "{blue:?}");
    assert_eq!(blue[0].first(), Some(&frame.pixel(0.0, 0.0)));
    assert_eq!(blue[0].last(), Some(&frame.pixel(20.0, 1.0)));
    let orange = calls.paths(ORANGE, 2);
    assert_eq!(orange.len(), 2, "{orange:?}");
    assert_eq!(
        (orange[0].last(), orange[1].first()),
        (Some(&frame.pixel(9.0, 0.5)), Some(&frame.pixel(11.0, 0.5)))
    );
    // The legend's swatches, 3 pixels wide, one per curve.
    assert_eq!((calls.paths(BLUE, 3).len(), calls.paths(ORANGE, 3).len()), (1, 1));
    assert!(blue.iter().chain(&orange).all(|p| p.iter().all(|&q| inside(frame.plot, q))));
}

#[test]
fn a_curve_leaving_the_frame_is_cut_at_its_edge_and_marked_by_an_arrow() {
    let xs: Vec<f64> = (0..=10).map(f64::from).collect();
    let steep: Vec<f64> = xs.iter().map(|x| x / 5.0).collect();
    let mut fig = Figure::new("x", "y", (0.0, 10.0), (0.0, 1.0));
    fig.lines.push(Line { label: None, ..Line::of("", SKY, &xs, &steep) });
    fig.exits.push((5.0, PURPLE));
    let (frame, calls) = whole(&fig, (500, 300));
    let sky = calls.paths(SKY, 2);
    assert_eq!(sky.len(), 1);
    // It ends where it crosses y = 1 (x = 5), on the plot's top edge.
    assert_eq!(sky[0].last(), Some(&frame.pixel(5.0, 1.0)));
    assert!(sky[0].iter().all(|&p| inside(frame.plot, p)), "{:?} in {:?}", sky[0], frame.plot);
    // The arrow, a pixel wider than a marked x: a shaft and a head whose tip is a pixel under the top edge at x = 5.
    let arrow = calls.paths(PURPLE, 3);
    let (x, top) = frame.pixel(5.0, 1.0);
    assert_eq!(arrow.len(), 2);
    assert_eq!((arrow[0].last(), arrow[1].get(1)), (Some(&(x, top + 1)), Some(&(x, top + 1))));
}

#[test]
fn bars_dots_and_marked_positions_are_drawn_where_their_data_are() {
    let mut fig = Figure::new("x", "y", (0.0, 4.0), (-1.0, 2.0));
    fig.bars.push(Bars { label: None, colour: GREEN, bars: vec![(0.5, 1.5, 1.0), (2.5, 3.5, 1.5)] });
    let points = vec![(1.0, 0.5), (2.0, 1.5), (3.0, 5.0)];
    fig.dots.push(Dots { label: None, colour: VERMILLION, radius: 6, filled: false, opacity: 1.0, points });
    fig.vlines.push((2.0, BLUE));
    let (frame, calls) = whole(&fig, (400, 300));
    let bars: Vec<_> = calls
        .0
        .iter()
        .filter_map(|c| match c {
            Call::Rect(a, b, (GREEN, 1000), true) => Some((*a, *b)),
            _ => None,
        })
        .collect();
    // From 0 (inside the y range), not from the frame's bottom.
    assert_eq!(
        bars,
        [(frame.pixel(0.5, 1.0), frame.pixel(1.5, 0.0)), (frame.pixel(2.5, 1.5), frame.pixel(3.5, 0.0))]
    );
    // The dot above the frame is left out; rings of radius 6 at 14-pixel text, 5 at 13.
    let rings: Vec<_> = calls
        .0
        .iter()
        .filter_map(|c| match c {
            Call::Circle(at, r, (VERMILLION, _), false) => Some((*at, *r as i32)),
            _ => None,
        })
        .collect();
    let expected = [(frame.pixel(1.0, 0.5), 5), (frame.pixel(2.0, 1.5), 5)];
    assert_eq!(rings, expected);
    assert_eq!(frame.marks, expected.map(|((x, y), r)| (x, y, r)));
    // The marked x: dashes down the whole frame at x = 2.
    let dashes = calls.paths(BLUE, 2);
    let x = frame.pixel(2.0, 0.0).0;
    assert!(dashes.len() > 3 && dashes.iter().flat_map(|d| d.iter()).all(|p| p.0 == x), "{dashes:?}");
}
