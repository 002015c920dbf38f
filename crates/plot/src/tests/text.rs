//! Text fitted to the room there is, measured by the backend: tick labels that do not fit are
//! dropped (plotters takes a coarser step), a long x title loses its parenthesised tail, and a
//! long y title shrinks.

use plotters::prelude::{IntoFont, RGBColor};

use super::recorder::{whole, Calls, Fixed};
use super::unlabelled_figure;
use crate::Text;
use rvalue_model::figure::layout::{self, margin, x_label_area};
use rvalue_model::figure::{Figure, Line, BLUE};

/// The drawn x labels among `labels` (under the plot, whose bottom is `bottom`): each one's x
/// and width at 13 pixels, left to right.
fn drawn_labels((calls, bottom): (&Calls, i32), labels: &[String]) -> Vec<(i32, i32)> {
    let font = &("sans-serif", 13).into_font().color(&RGBColor(0, 0, 0));
    let mut xs: Vec<(i32, i32)> = labels
        .iter()
        .flat_map(|l| calls.text(l).into_iter().map(move |(at, _)| (at, Fixed.size(l, font).0 as i32)))
        .filter(|&((_, y), _)| y >= bottom)
        .map(|((x, _), w)| (x, w))
        .collect();
    xs.sort();
    xs
}

/// Whether the labels (centred at their x, as plotters draws tick labels) overlap.
fn overlap(labels: &[(i32, i32)]) -> bool {
    labels.windows(2).any(|w| w[1].0 - w[0].0 < (w[0].1 + w[1].1) / 2)
}

fn names_figure() -> (Figure, Vec<String>) {
    let names: Vec<String> = (0..12).map(|i| format!("class {i:02}")).collect();
    let mut fig = Figure::new("class", "coverage", (-0.5, 11.5), (0.0, 1.0));
    fig.x_names = names.clone();
    let xs: Vec<f64> = (0..12).map(f64::from).collect();
    fig.lines.push(Line { label: None, ..Line::of("", BLUE, &xs, &[0.9; 12]) });
    (fig, names)
}

#[test]
fn class_names_that_do_not_fit_are_dropped() {
    let (fig, names) = names_figure();
    let (frame, wide) = whole(&fig, (1400, 400));
    let all = drawn_labels((&wide, frame.plot.3), &names);
    assert_eq!(all.len(), 12);
    assert!(!overlap(&all), "{all:?}");
    let (frame, narrow) = whole(&fig, (320, 300));
    let some = drawn_labels((&narrow, frame.plot.3), &names);
    // The plot's width over the widest name, as the model counts.
    let width = 320 - (layout::y_label_area(13) + 2 * margin(13));
    let fit = layout::labels_that_fit(all[0].1 as u32, width);
    assert!(some.len() >= 2 && some.len() <= fit, "{} names drawn, {fit} fit: {some:?}", some.len());
    assert!(!overlap(&some), "{some:?}");
}

#[test]
fn decades_that_do_not_fit_are_dropped() {
    let fig = unlabelled_figure();
    let decades: Vec<String> = (-2..=3).map(|d| fig.x_tick_label(f64::from(d))).collect();
    let (frame, wide) = whole(&fig, (900, 400));
    assert_eq!(drawn_labels((&wide, frame.plot.3), &decades).len(), 6, "{:?}", wide.texts());
    let (frame, narrow) = whole(&fig, (200, 300));
    let some = drawn_labels((&narrow, frame.plot.3), &decades);
    assert!(some.len() >= 2 && some.len() < 6 && !overlap(&some), "{some:?}");
}

#[test]
fn a_long_x_title_loses_its_tail_where_it_would_not_fit() {
    let fig = unlabelled_figure();
    assert_eq!(fig.x_desc, "σ² (log scale)");
    let (_, wide) = whole(&fig, (600, 300));
    assert_eq!((wide.text("σ² (log scale)").len(), wide.text("σ²").len()), (1, 0));
    let (_, narrow) = whole(&fig, (180, 300));
    assert_eq!((narrow.text("σ² (log scale)").len(), narrow.text("σ²").len()), (0, 1));
}

#[test]
fn a_long_y_title_shrinks_to_fit_the_plot_height() {
    let mut fig = unlabelled_figure();
    fig.y_desc = "a rather long y title!".into();
    let title = ("sans-serif", 15).into_font().color(&RGBColor(0, 0, 0));
    let measured = Fixed.size(&fig.y_desc, &title).0;
    let (_, tall) = whole(&fig, (400, 600));
    assert_eq!(tall.text(&fig.y_desc)[0].1, 15);
    let (_, short) = whole(&fig, (400, 250));
    let height = 250 - (x_label_area(13) + 2 * margin(13));
    let fitted = layout::fitted_size(15.0, measured, height, 13).unwrap();
    assert_eq!((short.text(&fig.y_desc)[0].1, fitted), (14, 14.0));
}
