//! The glue between the page and the core, tested in headless Chromium (wasm-bindgen-test):
//! the real index.html markup, the real event listeners and animation frames, and the numbers
//! on the page compared with the core's answers for the same settings.

use std::time::Duration;

use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;
use web_sys::{Event, HtmlCanvasElement};

use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;

use super::app::{self, Shared};
use super::dom;
use rvalue_core::toy::{self, ToyParams};
use rvalue_model::figure::inspector::{inspector, inspector_columns};
use rvalue_model::figure::tables::{self, TableRow};
use rvalue_model::figure::{panels, Axis, Dots, Figure, Line, BLUE, GREEN, GREY, VERMILLION};
use rvalue_model::Controls;
use rvalue_plot::{Draw, Look};

const PAGE: &str = include_str!("../../index.html");

/// Puts index.html's body into the test document (a fresh copy for each test), inside a
/// container of its own: the test runner reports through its own elements in the body.
fn mount() -> web_sys::Document {
    let doc = dom::document().expect("a document");
    let body =
        PAGE.split("<body>").nth(1).and_then(|b| b.split("</body>").next()).expect("index.html has a body");
    let root = match doc.get_element_by_id("ui-test-root") {
        Some(r) => r,
        None => {
            let r = doc.create_element("div").unwrap();
            r.set_id("ui-test-root");
            doc.body().expect("a body").append_child(&r).unwrap();
            r
        }
    };
    root.set_inner_html(body);
    doc
}

fn small() -> Controls {
    Controls {
        toy: ToyParams { k: 5, m: 8, n_cal: 60, n_test: 40, repeats: 3, ..ToyParams::default() },
        ..Controls::default()
    }
}

async fn sleep(d: Duration) {
    let ms = d.as_millis() as i32;
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ =
            web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(p).await;
}

/// Waits (up to a minute) until the app has no job and has drawn its frame.
async fn idle(app: &Shared) {
    for _ in 0..3000 {
        {
            let a = app.borrow();
            if !a.is_running() && !a.frame_pending() {
                return;
            }
        }
        sleep(Duration::from_millis(20)).await;
    }
    panic!("the analysis did not finish within a minute");
}

fn text(doc: &web_sys::Document, id: &str) -> String {
    doc.get_element_by_id(id).and_then(|e| e.text_content()).unwrap_or_default()
}

fn fire(doc: &web_sys::Document, id: &str, value: &str, event: &str) {
    dom::set_value(doc, id, value);
    let target = doc.get_element_by_id(id).unwrap();
    target.dispatch_event(&Event::new(event).unwrap()).unwrap();
}

#[test]
async fn the_page_shows_the_cores_numbers() {
    let doc = mount();
    let app = app::start_with(small()).unwrap();
    idle(&app).await;
    let a = app.borrow();
    let analysis = a.analysis().expect("finished");
    let view = analysis.at_alpha(0.1, false).unwrap();
    assert_eq!(text(&doc, "coverage-readout"), panels::readout(&view, true));
    assert_eq!(text(&doc, "size-readout"), panels::readout(&view, false));
    assert_eq!(text(&doc, "reduction"), tables::reduction_text(&view, true));
    let p = a.controls().toy_params();
    let pqp = toy::prob_q_exceeds_p(p.mu_p, p.sigma2_p, p.mu_q, p.sigma2);
    assert_eq!(text(&doc, "pqp"), format!("{:.2} %", 100.0 * pqp));
    assert_eq!(doc.query_selector_all("#summary-table tbody tr").unwrap().length(), 3);
    assert!(text(&doc, "status").starts_with("Showing toy, 3 repeats"), "{}", text(&doc, "status"));
    // Every canvas that is shown was drawn at its box size.
    for id in ["plot-scores", "plot-threshold", "plot-coverage", "plot-size", "plot-theorem3"] {
        let c: web_sys::HtmlCanvasElement = dom::by_id(&doc, id).unwrap();
        assert!(c.width() > 0 && c.client_width() > 0, "{id}");
    }
}

#[test]
async fn alpha_moves_answer_from_stored_scores() {
    let doc = mount();
    let app = app::start_with(small()).unwrap();
    idle(&app).await;
    let before = app.borrow().analysis_id();
    fire(&doc, "alpha", "10", "input");
    idle(&app).await;
    let a = app.borrow();
    assert_eq!(a.controls().alpha, 0.05);
    assert_eq!(text(&doc, "alpha-value"), "0.05");
    // Same analysis object: nothing was recomputed.
    assert_eq!(a.analysis_id(), before);
    let view = a.analysis().unwrap().at_alpha(0.05, false).unwrap();
    assert_eq!(text(&doc, "coverage-readout"), panels::readout(&view, true));
    for id in ["plot-coverage-alpha", "plot-size-alpha"] {
        assert_eq!(
            dom::by_id::<web_sys::Element>(&doc, id).unwrap().get_attribute("data-alpha").unwrap(),
            "0.05",
            "{id}"
        );
    }
}

fn canvas(doc: &web_sys::Document, id: &str) -> HtmlCanvasElement {
    dom::by_id(doc, id).unwrap()
}

fn pixels(doc: &web_sys::Document, id: &str) -> String {
    canvas(doc, id).to_data_url().unwrap()
}

/// The text of every element `selector` matches, in document order.
fn cell_texts(doc: &web_sys::Document, selector: &str) -> Vec<String> {
    let all = doc.query_selector_all(selector).unwrap();
    (0..all.length()).map(|i| all.item(i).unwrap().text_content().unwrap()).collect()
}

#[test]
async fn an_alpha_move_is_drawn_in_the_input_event_on_the_overlays_only() {
    let doc = mount();
    let app = app::start_with(small()).unwrap();
    idle(&app).await;
    const FIGURES: [&str; 3] = ["plot-coverage", "plot-size", "plot-theorem3"];
    let overlay_of = |id: &str| format!("{id}-alpha");
    let figures: Vec<String> = FIGURES.iter().map(|id| pixels(&doc, id)).collect();
    let overlays: Vec<String> = FIGURES.iter().map(|id| pixels(&doc, &overlay_of(id))).collect();
    // The overlays are drawn at their figure's pixel size.
    for figure in FIGURES {
        let overlay = &overlay_of(figure);
        let (f, o) = (canvas(&doc, figure), canvas(&doc, overlay));
        assert!(f.width() > 0 && f.height() > 0, "{figure}");
        assert_eq!((o.width(), o.height()), (f.width(), f.height()), "{overlay}");
    }
    let row = doc.query_selector("#summary-table tbody tr td").unwrap().unwrap();
    let column = doc.query_selector("#inspector .ranking").unwrap().unwrap();
    fire(&doc, "alpha", "40", "input");
    // No frame yet: the input event itself showed the new α.
    let a = app.borrow();
    let view = a.analysis().unwrap().at_alpha(0.2, false).unwrap();
    assert_eq!(text(&doc, "coverage-readout"), panels::readout(&view, true));
    assert_eq!(text(&doc, "reduction"), tables::reduction_text(&view, true));
    assert!(text(&doc, "item-info").ends_with("(α = 0.2)"), "{}", text(&doc, "item-info"));
    assert!(text(&doc, "theorem3-note").starts_with("α = 0.2,"), "{}", text(&doc, "theorem3-note"));
    // The markers (and panel 5's CP curve) moved; the figures under them were not drawn again.
    for (i, figure) in FIGURES.iter().enumerate() {
        assert_ne!(pixels(&doc, &overlay_of(figure)), overlays[i], "{figure}'s overlay");
        assert_eq!(pixels(&doc, figure), figures[i], "{figure} was drawn again");
    }
    // Panel 6's cells and panel 7's columns were updated in place, with the core's numbers.
    let same = |a: &web_sys::Element, b: &web_sys::Element| a.is_same_node(Some(b));
    assert!(same(&row, &doc.query_selector("#summary-table tbody tr td").unwrap().unwrap()));
    assert!(same(&column, &doc.query_selector("#inspector .ranking").unwrap().unwrap()));
    assert_eq!(
        cell_texts(&doc, "#summary-table tbody td"),
        rvalue_model::figure::tables::summary_cells(&view).concat()
    );
    let conditional = rvalue_model::figure::tables::conditional_cells(&view).concat();
    assert_eq!(cell_texts(&doc, "#conditional-table tbody td"), conditional);
    assert!(conditional.iter().all(|c| c.contains(" ± ")), "{conditional:?}");
    let item = a.analysis().unwrap().inspect(0, 0.2, false).unwrap();
    // As the browser serialises the markup of a fresh render.
    let fresh = doc.create_element("div").unwrap();
    fresh.set_inner_html(&inspector(&inspector_columns(&item, false)));
    assert_eq!(doc.get_element_by_id("inspector").unwrap().inner_html(), fresh.inner_html());
}

/// The markup the browser makes of `html` in a fresh element, to compare with a patched one.
fn fresh_html(doc: &web_sys::Document, html: &str) -> String {
    let t = doc.create_element("tbody").unwrap();
    t.set_inner_html(html);
    t.inner_html()
}

#[test]
async fn tables_patched_over_alpha_moves_equal_a_fresh_render() {
    let doc = mount();
    let app = app::start_with(small()).unwrap();
    idle(&app).await;
    let inner = |id: &str| doc.get_element_by_id(id).unwrap().inner_html();
    let tbody = |sel: &str| doc.query_selector(sel).unwrap().unwrap().inner_html();
    // Far moves and back: strata appear and vanish, rows are added and removed at the end.
    for (position, alpha) in [("40", 0.2), ("2", 0.01), ("100", 0.5), ("10", 0.05), ("40", 0.2)] {
        fire(&doc, "alpha", position, "input");
        let a = app.borrow();
        let an = a.analysis().unwrap();
        let view = an.at_alpha(alpha, false).unwrap();
        let rows =
            |t: Vec<TableRow>, labels| t.iter().map(|r| tables::row_html(r, labels)).collect::<String>();
        let summary = rows(tables::summary_table(&view), Some(tables::SUMMARY_COLUMNS));
        assert_eq!(tbody("#summary-table tbody"), fresh_html(&doc, &summary), "α = {alpha}");
        let conditional = rows(tables::conditional_table(&view), Some(tables::CONDITIONAL_COLUMNS));
        assert_eq!(tbody("#conditional-table tbody"), fresh_html(&doc, &conditional), "α = {alpha}");
        let cv = rvalue_model::classes::ClassView::new(&view, an.k, an.toy.is_some());
        assert_eq!(
            inner("strata-body"),
            fresh_html(&doc, &rows(rvalue_model::figure::classes::strata_table(&cv), None)),
            "α = {alpha}"
        );
        let item = an.inspect(0, alpha, false).unwrap();
        let fresh = doc.create_element("div").unwrap();
        fresh.set_inner_html(&inspector(&inspector_columns(&item, false)));
        assert_eq!(inner("inspector"), fresh.inner_html(), "α = {alpha}");
    }
}

/// A figure with every element except the legend (which plotters lays out itself).
fn unlabelled_figure() -> Figure {
    let xs: Vec<f64> = (0..50).map(|i| 0.01 * 1.2f64.powi(i)).collect();
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

fn new_canvas(doc: &web_sys::Document, w: u32, h: u32) -> HtmlCanvasElement {
    let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

#[test]
fn the_page_canvas_backend_draws_what_plotters_canvas_draws() {
    let doc = mount();
    let fig = unlabelled_figure();
    let (ours, theirs) = (new_canvas(&doc, 420, 240), new_canvas(&doc, 420, 240));
    let plain = plotters_canvas::CanvasBackend::with_canvas_object(theirs.clone()).unwrap();
    fig.draw(&plain.into_drawing_area(), &Look::light(13)).unwrap();
    // Twice: the second drawing starts from the font the first one left on the context.
    for _ in 0..2 {
        let backend = super::canvas::canvas(ours.clone()).unwrap();
        fig.draw(&backend.into_drawing_area(), &Look::light(13)).unwrap();
        assert_eq!(ours.to_data_url().unwrap(), theirs.to_data_url().unwrap());
    }
    ours.remove();
    theirs.remove();
}
