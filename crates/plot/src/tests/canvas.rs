//! The page's canvas backend ([`crate::canvas`]) in headless Chromium: although it measures and
//! draws text itself, it draws what plain plotters-canvas draws, pixel for pixel.

use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test as test;
use web_sys::HtmlCanvasElement;

use super::unlabelled_figure;
use crate::{Draw, Look};

fn new_canvas(w: u32, h: u32) -> HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_width(w);
    c.set_height(h);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

#[test]
fn the_canvas_backend_draws_what_plotters_canvas_draws() {
    let fig = unlabelled_figure();
    let (ours, theirs) = (new_canvas(420, 240), new_canvas(420, 240));
    let plain = plotters_canvas::CanvasBackend::with_canvas_object(theirs.clone()).unwrap();
    fig.draw(&plain.into_drawing_area(), &Look::light(13)).unwrap();
    // Twice: the second drawing starts from the font the first one left on the context.
    for _ in 0..2 {
        let backend = crate::canvas::canvas(ours.clone()).unwrap();
        fig.draw(&backend.into_drawing_area(), &Look::light(13)).unwrap();
        assert_eq!(ours.to_data_url().unwrap(), theirs.to_data_url().unwrap());
    }
    ours.remove();
    theirs.remove();
}
