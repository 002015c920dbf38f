//! The figure description's decisions: ranges, ticks, clipping, legend placement, colours and
//! escaping, natively (and in wasm, but for the property tests).

use super::html::esc;
use super::layout::*;
use super::legend::{self, Swatch};
use super::*;
use crate::sigma2_grid;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The panels' figures, tables, inspector and statistics.
mod panels;

#[test]
fn every_method_has_its_own_colour_slot_and_names() {
    for (i, &m) in Method::ALL.iter().enumerate() {
        assert_eq!(method_slot(m), i);
        assert_eq!(method_colour(m), METHOD_COLOURS[i]);
    }
    let colours: std::collections::HashSet<_> = Method::ALL.iter().map(|&m| method_colour(m)).collect();
    assert_eq!(colours.len(), Method::ALL.len());
    assert_eq!(method_label(Method::CpAvg), "CP_avg");
    assert_eq!(method_html(Method::CpR), "CP<sub>r</sub>");
    assert_eq!((method_label(Method::Raps), method_html(Method::Raps)), (Method::Raps.label(), "RAPS"));
}

#[test]
fn a_y_range_holds_its_values_with_a_margin_or_falls_back() {
    assert_eq!(y_range([], (0.0, 1.0)), (0.0, 1.0));
    assert_eq!(y_range([f64::NAN, f64::INFINITY], (-1.0, 2.0)), (-1.0, 2.0));
    let (lo, hi) = y_range([0.0, 10.0, f64::NAN], (0.0, 1.0));
    assert!((lo + 0.6).abs() < 1e-12 && (hi - 10.6).abs() < 1e-12, "{lo} {hi}");
    // One value: a band of a tenth of it (or of 1) either side.
    assert_eq!(y_range([5.0], (0.0, 1.0)), (4.5, 5.5));
    assert_eq!(y_range([0.0], (0.0, 1.0)), (-0.1, 0.1));
}

#[test]
fn lines_keep_gaps_and_styles() {
    let l = Line::of("a", BLUE, &[0.0, 1.0, 2.0, 3.0], &[1.0, f64::NAN, 2.0, 3.0]);
    assert_eq!(l.points, vec![(0.0, Some(1.0)), (1.0, None), (2.0, Some(2.0)), (3.0, Some(3.0))]);
    assert_eq!((l.label.as_deref(), l.width, l.dashed, l.front), (Some("a"), 2, false, false));
    let styled = l.clone().dashed().in_front().faint();
    assert!(styled.dashed && styled.front && styled.width == 1 && styled.opacity < 0.5);
    // Drawn: the gap splits the line, the lone point before it is no segment.
    assert_eq!(l.segments((0.0, 10.0), |x| x), vec![vec![(2.0, 2.0), (3.0, 3.0)]]);
    // Cut at the frame's top, the x mapped first.
    let up = Line::new("", INK, &[1.0, 10.0, 100.0], &[Some(0.0), Some(1.0), Some(2.0)]);
    assert_eq!(up.segments((0.0, 1.5), f64::log10), vec![vec![(0.0, 0.0), (1.0, 1.0), (1.5, 1.5)]]);
}

#[test]
fn a_log_axis_maps_through_log10_and_holds_x_at_its_lower_end() {
    let mut f = Figure::new("x", "y", (1e-3, 1e3), (0.0, 1.0));
    assert_eq!(f.tx(0.0), 0.0);
    f.x_axis = Axis::Log;
    assert_eq!(f.tx(100.0), 2.0);
    assert_eq!(f.tx(0.0), -3.0);
    assert_eq!(f.x_tick_label(2.0), "100");
    f.x_axis = Axis::Linear;
    assert_eq!(f.x_tick_label(0.5), "0.5");
}

#[test]
fn class_names_label_integer_positions_only() {
    let mut f = Figure::new("class", "coverage", (-0.5, 2.5), (0.0, 1.0));
    f.x_names = vec!["cat".into(), "dog".into(), "8".into()];
    assert_eq!(f.x_tick_label(1.0), "dog");
    assert_eq!(f.x_tick_label(2.0000001), "8");
    assert_eq!(f.x_tick_label(0.5), "");
    assert_eq!(f.x_tick_label(-1.0), "");
    assert_eq!(f.x_tick_label(3.0), "");
}

#[test]
fn dots_outside_the_frame_are_left_out_and_scale_with_the_font() {
    let mut f = Figure::new("x", "y", (0.01, 100.0), (0.0, 1.0));
    f.x_axis = Axis::Log;
    let d = Dots {
        label: None,
        colour: GREEN,
        radius: 7,
        filled: true,
        opacity: 1.0,
        points: vec![(10.0, 0.5), (1.0, 1.5), (0.1, -0.1), (0.0, 1.0)],
    };
    assert_eq!(f.dots_inside(&d), vec![(1.0, 0.5), (-2.0, 1.0)]);
    assert_eq!((d.drawn_radius(14), d.drawn_radius(28), d.drawn_radius(2)), (7, 14, 2));
    assert_eq!((Marker::dot_radius(14), Marker::dot_radius(1)), (6, 2));
    assert_eq!((Marker::line_width(14), Marker::line_width(7)), (2, 1));
}

#[test]
fn a_dark_palette_recolours_only_ink_and_grey() {
    let mut f = Figure::new("x", "y", (0.0, 1.0), (0.0, 1.0));
    f.lines.push(Line::of("target", GREY, &[0.0], &[0.5]));
    f.lines.push(Line::of("cp", ORANGE, &[0.0], &[0.5]));
    f.dots.push(Dots { label: None, colour: INK, radius: 3, filled: true, opacity: 1.0, points: vec![] });
    f.bars.push(Bars { label: None, colour: INK, bars: vec![] });
    f.vlines.push((0.5, INK));
    f.exits.push((0.5, GREEN));
    assert_eq!(f.recoloured(INK, GREY), None);
    let dark = crate::theme::DARK;
    let d = f.recoloured(dark.ink, dark.grey).unwrap();
    assert_eq!((d.lines[0].colour, d.lines[1].colour), (dark.grey, ORANGE));
    assert_eq!(
        (d.dots[0].colour, d.bars[0].colour, d.vlines[0].1, d.exits[0].1),
        (dark.ink, dark.ink, dark.ink, GREEN)
    );
}

#[test]
fn the_legend_goes_where_it_hides_the_fewest_points() {
    let (size, area) = ((100, 60), (400, 300));
    // Nothing to hide: the figure's choice.
    assert_eq!(legend_spot(Legend::UpperRight, size, area, &[]), (295, 5));
    assert_eq!(legend_spot(Legend::LowerLeft, size, area, &[]), (5, 235));
    // A curve across the top (as coverage near 1, or CP's set sizes): the legend leaves it.
    let top: Vec<(i32, i32)> = (0..400).map(|x| (x, 30)).collect();
    let (_, y) = legend_spot(Legend::UpperRight, size, area, &top);
    assert!(y > 30, "the legend still covers the curve along the top (y = {y})");
    // Curves along the top and the bottom (panel 4: CP and CP_avg high, CP_r low): halfway down.
    let both: Vec<(i32, i32)> = (0..400).flat_map(|x| [(x, 30), (x, 280)]).collect();
    assert_eq!(legend_spot(Legend::UpperRight, size, area, &both), (295, 120));
    // A tie keeps the figure's choice.
    let one_each: Vec<(i32, i32)> =
        [(300, 10), (10, 10), (300, 250), (10, 250), (300, 150), (10, 150)].to_vec();
    assert_eq!(legend_spot(Legend::UpperLeft, size, area, &one_each), (5, 5));
    assert_eq!(Legend::MiddleLeft.origin(size, area), (5, 120));
    assert_eq!(Legend::LowerRight.origin(size, area), (295, 235));
}

#[test]
fn legend_entries_are_bars_lines_then_dots_and_only_the_back_counts() {
    let mut f = Figure::new("x", "y", (0.0, 1.0), (0.0, 1.0));
    f.dots.push(Dots {
        label: Some("ring".into()),
        colour: SKY,
        radius: 3,
        filled: false,
        opacity: 1.0,
        points: vec![(0.2, 0.3)],
    });
    f.lines.push(Line::new("back", BLUE, &[0.0, 1.0], &[Some(0.0), None]));
    f.lines.push(Line { label: None, ..Line::new("", GREY, &[0.5], &[Some(0.5)]) });
    f.lines.push(Line::new("front", PURPLE, &[0.9], &[Some(0.9)]).in_front());
    f.bars.push(Bars { label: Some("bars".into()), colour: VERMILLION, bars: vec![(0.0, 0.2, 0.7)] });
    assert_eq!(
        f.legend_entries(),
        vec![
            ("bars", Swatch::Dot(VERMILLION, true)),
            ("back", Swatch::Line(BLUE)),
            ("front", Swatch::Line(PURPLE)),
            ("ring", Swatch::Dot(SKY, false)),
        ]
    );
    // Defined points of the back lines, the dots, each bar's top centre; not the front line's.
    assert_eq!(f.legend_points(), vec![(0.0, 0.0), (0.5, 0.5), (0.2, 0.3), (0.1, 0.7)]);
}

#[test]
fn a_legend_is_laid_out_in_columns_when_tall_and_in_rows_below() {
    let sizes = vec![(40, 10); 6];
    // A tall plot: one column of six lines 1.25 fonts apart.
    let tall = legend::inside(sizes.clone(), 10.0, 400.0);
    assert_eq!(tall.cells[5], (0, 63));
    assert_eq!((tall.w, tall.h), (40 + 30 + 10 + 10, 63 + 10 + 20));
    // A short plot: two columns of three.
    let short = legend::inside(sizes.clone(), 10.0, 100.0);
    assert_eq!(short.cells[3], (80, 0));
    assert_eq!(short.w, 2 * 80 + 10);
    // Below a 260-px figure: rows of two 90-px entries in 240 px.
    let below = legend::below(sizes, 10.0, 260);
    assert_eq!(below.cells, vec![(0, 0), (90, 0), (0, 14), (90, 14), (0, 28), (90, 28)]);
    assert_eq!((below.w, below.h), (260, 28 + 10 + 20));
}

#[test]
fn a_legend_that_would_bury_the_plot_goes_below() {
    let box_of = |w, h| legend::Layout { w, h, cells: vec![], sizes: vec![] };
    // Small in a large plot: inside.
    assert!(!legend::crowds(&box_of(100, 60), (400.0, 300.0)));
    // Wider than the plot and over half its height.
    assert!(legend::crowds(&box_of(450, 160), (400.0, 300.0)));
    // Wider but short: inside still.
    assert!(!legend::crowds(&box_of(450, 100), (400.0, 300.0)));
    // Taller than most of the plot, however narrow.
    assert!(legend::crowds(&box_of(50, 250), (400.0, 300.0)));
}

#[test]
fn the_plot_leaves_room_for_labels_and_titles() {
    assert_eq!((margin(14), x_label_area(14), y_label_area(14)), (11, 42, 56));
    assert_eq!(plot_size((400, 300), 14), (400.0 - 22.0 - 56.0, 300.0 - 22.0 - 42.0));
    assert_eq!(plot_size((10, 10), 14), (0.0, 0.0));
    // 300 px of 50-px labels: at least half a label between neighbours.
    assert_eq!(labels_that_fit(50, 300), 5);
    assert_eq!(labels_that_fit(500, 300), 2);
    assert_eq!(labels_that_fit(0, 30), 21);
}

#[test]
fn ticks_are_round_steps_inside_the_range() {
    let t: Vec<f64> = round_ticks(0.0, 1.0, 6).collect();
    assert_eq!(t, vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
    let t: Vec<f64> = round_ticks(0.005, 0.5, 6).collect();
    assert_eq!(t, vec![0.1, 0.2, 0.30000000000000004, 0.4, 0.5]);
    assert_eq!(round_ticks(3.0, 3.0, 6).count(), 0);
    let (d, most) = decades(-3.0, 3.7);
    assert_eq!((d, most), (-3..=3, 7));
    assert_eq!(decades(-3.0, 9.0).1, 8);
}

#[test]
fn titles_shrink_or_lose_their_tail_to_fit() {
    assert_eq!(fitted_size(16.0, 100, 200, 12), None);
    assert_eq!(fitted_size(16.0, 200, 150, 8), Some(12.0));
    assert_eq!(fitted_size(16.0, 400, 100, 12), Some(12.0));
    assert_eq!(fitted_size(16.0, 0, 0, 12), None);
    assert_eq!(shortened_desc("σ² (log scale)"), Some("σ²"));
    assert_eq!(shortened_desc("coverage"), None);
}

#[test]
fn a_line_is_cut_where_it_leaves_the_frame() {
    // Up through the top, back down, then a jump across the whole band.
    let pts = [(0.0, 0.0), (1.0, 2.0), (2.0, 4.0), (3.0, 0.5), (4.0, -3.0), (5.0, 3.0)];
    let parts = clip_band(&pts, (-1.0, 1.0));
    let want = [
        vec![(0.0, 0.0), (0.5, 1.0)],
        vec![(2.0 + 3.0 / 3.5, 1.0), (3.0, 0.5), (3.0 + 1.5 / 3.5, -1.0)],
        vec![(4.0 + 2.0 / 6.0, -1.0), (4.0 + 4.0 / 6.0, 1.0)],
    ];
    assert_eq!(parts.len(), want.len(), "{parts:?}");
    for (got, want) in parts.iter().zip(&want) {
        assert_eq!(got.len(), want.len(), "{parts:?}");
        for (a, b) in got.iter().zip(want) {
            assert!((a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12, "{parts:?}");
        }
    }
    assert_eq!(clip_band(&[(0.0, 0.5)], (0.0, 1.0)), vec![vec![(0.0, 0.5)]]);
    assert!(clip_band(&[(0.0, 5.0), (1.0, 6.0)], (0.0, 1.0)).is_empty());
    // Flat along the edge stays; flat outside is dropped.
    assert_eq!(clip_band(&[(0.0, 1.0), (1.0, 1.0)], (0.0, 1.0)), vec![vec![(0.0, 1.0), (1.0, 1.0)]]);
    assert!(clip_band(&[(0.0, 2.0), (1.0, 2.0)], (0.0, 1.0)).is_empty());
}

#[test]
fn html_is_escaped() {
    assert_eq!(esc("<b>\"a&b\"</b>"), "&lt;b&gt;&quot;a&amp;b&quot;&lt;/b&gt;");
    assert_eq!(esc("plain σ²"), "plain σ²");
}

#[test]
fn the_sigma2_axis_is_log_spaced_up_to_the_slider_top() {
    let g = sigma2_grid(7);
    let want = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0];
    assert_eq!(g.len(), 7);
    // Seven points from 1e-3 to 5000: equal ratios.
    let ratio = (5000.0f64 / 1e-3).powf(1.0 / 6.0);
    for (j, x) in g.iter().enumerate() {
        assert!((x / (1e-3 * ratio.powi(j as i32)) - 1.0).abs() < 1e-12, "{g:?}");
    }
    assert!((g[0] - want[0]).abs() < 1e-15 && (g[6] - crate::SIGMA2_RANGE.1).abs() < 1e-9);
    assert_eq!(sigma2_grid(1), vec![1e-3]);
    assert!(sigma2_grid(0).is_empty());
}

/// Invariants over random inputs (proptest, natively).
#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn finite() -> impl Strategy<Value = f64> {
        -1e6f64..1e6
    }

    proptest! {
        #[test]
        fn a_y_range_contains_every_finite_value(vs in prop::collection::vec(finite(), 1..40)) {
            let (lo, hi) = y_range(vs.iter().copied(), (0.0, 1.0));
            prop_assert!(lo < hi);
            prop_assert!(vs.iter().all(|&v| lo <= v && v <= hi));
        }

        #[test]
        fn clipped_pieces_stay_in_the_band_and_on_the_line(
            ys in prop::collection::vec(-5.0f64..5.0, 1..30),
            lo in -3.0f64..0.0,
            width in 0.1f64..4.0,
        ) {
            let pts: Vec<(f64, f64)> = ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect();
            let band = (lo, lo + width);
            for piece in clip_band(&pts, band) {
                prop_assert!(!piece.is_empty());
                for &(x, y) in &piece {
                    prop_assert!(y >= band.0 - 1e-9 && y <= band.1 + 1e-9, "{y} outside {band:?}");
                    // On the polyline: interpolate it at x.
                    let i = (x.floor() as usize).min(pts.len() - 1);
                    let on = if i + 1 < pts.len() { pts[i].1 + (x - i as f64) * (pts[i + 1].1 - pts[i].1) } else { pts[i].1 };
                    prop_assert!((on - y).abs() < 1e-6, "({x}, {y}) is off the line ({on})");
                }
                prop_assert!(piece.windows(2).all(|w| w[0].0 <= w[1].0));
            }
            // Every original point inside the band is kept.
            for &(x, y) in pts.iter().filter(|p| p.1 >= band.0 && p.1 <= band.1) {
                let near = |&(a, b): &(f64, f64)| (a - x).abs() < 1e-9 && (b - y).abs() < 1e-9;
                let kept = clip_band(&pts, band).iter().flatten().any(near);
                prop_assert!(kept, "({x}, {y}) dropped");
            }
        }

        #[test]
        fn ticks_are_round_ascending_and_inside(lo in -1e4f64..1e4, span in 1e-3f64..1e4, count in 2usize..10) {
            let hi = lo + span;
            let t: Vec<f64> = round_ticks(lo, hi, count).collect();
            prop_assert!(t.len() <= count + 1);
            prop_assert!(t.iter().all(|&v| v >= lo - 1e-9 * span && v <= hi + 1e-9 * span), "{t:?} in {lo}..{hi}");
            prop_assert!(t.windows(2).all(|w| w[0] < w[1]));
            if t.len() >= 2 {
                // A step of 1, 2 or 5 times a power of ten.
                let step = t[1] - t[0];
                let mantissa = step / 10f64.powf(step.log10().floor());
                prop_assert!([1.0, 2.0, 5.0, 10.0].iter().any(|m| (mantissa - m).abs() < 1e-6), "{step}");
            }
        }

        #[test]
        fn the_legend_stays_inside_its_area(
            w in 10i32..200, h in 10i32..200,
            aw in 200i32..800, ah in 200i32..600,
            pts in prop::collection::vec((0i32..800, 0i32..600), 0..50),
            pref in 0usize..6,
        ) {
            let prefs = [Legend::UpperLeft, Legend::UpperRight, Legend::LowerLeft, Legend::LowerRight, Legend::MiddleLeft, Legend::MiddleRight];
            let (x, y) = legend_spot(prefs[pref], (w, h), (aw, ah), &pts);
            prop_assert!(x >= 0 && y >= 0 && x + w <= aw && y + h <= ah);
            // With room for the margins, it keeps them.
            if w + 10 <= aw {
                prop_assert!(x >= 5 && x + w <= aw - 5);
            }
            // It covers no more points than the figure's own choice.
            let covered = |(x, y): (i32, i32)| pts.iter().filter(|p| p.0 >= x && p.0 <= x + w && p.1 >= y && p.1 <= y + h).count();
            prop_assert!(covered((x, y)) <= covered(prefs[pref].origin((w, h), (aw, ah))));
        }

        #[test]
        fn escaped_text_has_no_markup_and_reads_back(s in ".{0,40}") {
            let e = esc(&s);
            prop_assert!(!e.contains('<') && !e.contains('>') && !e.contains('"'));
            let back = e.replace("&quot;", "\"").replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&");
            prop_assert_eq!(back, s);
        }

        #[test]
        fn labels_that_fit_are_at_least_two_and_fit(widest in 1u32..300, width in 0u32..2000) {
            let n = labels_that_fit(widest, width);
            prop_assert!(n >= 2);
            if n > 2 {
                // n − 1 labels with half a label between them fit in the width.
                prop_assert!((n as u32 - 1) * widest * 3 / 2 <= width);
            }
        }
    }
}

#[test]
fn an_added_marker_is_a_vertical_line_and_a_dot_per_finite_value() {
    let mut fig = Figure::new("α", "coverage", (0.0, 0.5), (0.0, 1.0));
    let marker = Marker { x: 0.1, colour: INK, dots: vec![(0.9, BLUE), (f64::NAN, ORANGE), (0.8, GREEN)] };
    fig.add_marker(&marker);
    assert_eq!(fig.vlines, vec![(0.1, INK)]);
    let dots: Vec<_> = fig.dots.iter().map(|d| (d.points.clone(), d.colour, d.radius, d.filled)).collect();
    assert_eq!(dots, vec![(vec![(0.1, 0.9)], BLUE, 6, true), (vec![(0.1, 0.8)], GREEN, 6, true)]);
    assert!(fig.dots.iter().all(|d| d.label.is_none() && d.opacity == 1.0));
}

#[test]
fn canvases_draw_at_one_to_three_pixels_a_css_pixel_and_print_at_two_or_more() {
    assert_eq!(pixel_ratio(0.5, false), 1.0);
    assert_eq!(pixel_ratio(1.25, false), 1.25);
    assert_eq!(pixel_ratio(4.0, false), 3.0);
    assert_eq!(pixel_ratio(1.0, true), PRINT_PIXEL_RATIO);
    assert_eq!(pixel_ratio(2.5, true), 2.5);
}

#[test]
fn a_backing_store_is_the_box_times_the_ratio_and_none_for_an_empty_box() {
    assert_eq!(backing_size((300, 200), 1.5), Some((450, 300)));
    assert_eq!(backing_size((301, 201), 1.25), Some((376, 251)));
    assert_eq!(backing_size((0, 200), 2.0), None);
    assert_eq!(backing_size((300, -1), 2.0), None);
}

#[test]
fn a_legend_wider_than_the_margins_allow_stays_inside_the_area() {
    // Without room for both 5 px margins the box keeps flush inside the area, not across it.
    assert_eq!(Legend::UpperRight.origin((193, 10), (200, 200)), (2, 5));
    assert_eq!(Legend::UpperRight.origin((199, 10), (200, 200)), (0, 5));
    assert_eq!(Legend::UpperLeft.origin((199, 10), (200, 200)), (1, 5));
    assert_eq!(Legend::LowerLeft.origin((20, 198), (200, 200)), (5, 0));
}
