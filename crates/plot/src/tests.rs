//! Native tests: real figures drawn on a backend that records every call ([`recorder`]) and on
//! plotters' SVG backend, with text measured by a font of fixed advance.

mod recorder;

mod backends;
#[cfg(all(feature = "canvas", target_arch = "wasm32"))]
mod canvas;
mod css;
mod layers;
mod legend;
mod marks;
mod series;
mod text;

use rvalue_model::figure::{Axis, Dots, Figure, Line, BLUE, GREEN, GREY, VERMILLION};

/// A log-axis figure with a solid and a dashed curve (a gap in each), a marked x and two dots,
/// nothing labelled.
fn unlabelled_figure() -> Figure {
    let xs: Vec<f64> = (0..60).map(|i| 10f64.powf(-2.0 + 5.0 * i as f64 / 59.0)).collect();
    let ys: Vec<Option<f64>> = xs.iter().map(|x| (x.ln() > -3.0).then(|| x.ln().sin())).collect();
    let mut f = Figure::new("σ² (log scale)", "value", (0.01, 1000.0), (-1.2, 1.2));
    f.x_axis = Axis::Log;
    f.lines.push(Line { label: None, ..Line::new("", BLUE, &xs, &ys) });
    f.lines.push(Line { label: None, ..Line::new("", GREY, &xs, &ys).dashed() });
    f.vlines.push((3.0, GREEN));
    f.dots.push(Dots {
        label: None,
        colour: VERMILLION,
        radius: 4,
        filled: true,
        opacity: 0.5,
        points: vec![(0.1, 0.5), (10.0, -0.5)],
    });
    f
}

/// [`unlabelled_figure`] with its solid curve and its dots in the legend.
fn labelled_figure() -> Figure {
    let mut fig = unlabelled_figure();
    fig.lines[0].label = Some("a curve".into());
    fig.dots[0].label = Some("some dots".into());
    fig
}
