//! The export buttons: each figure to PNG and SVG, panel 6's table and panel 7's sets to CSV,
//! downloaded through a Blob URL and an `<a download>`. The buttons are added to the panels
//! here, so the markup in index.html stays as it is.
//!
//! PNG is what the page shows: the figure's canvas with its overlay (the α marker, or panel 5's
//! front layer) drawn over it on an offscreen canvas, at the canvas' pixel size. SVG draws the
//! figure as last drawn again with plotters' SVG backend at the canvas' CSS size, the α marker
//! added as the figure's own vertical marker and dots (drawn alike). Its text is measured as the
//! page's canvases measure it ([`rvalue_plot::canvas::measure_text`] on an offscreen canvas),
//! not by plotters' web font layer, which adds a span with an inline style to the page: the CSP
//! refuses that.
//! CSV comes from the core ([`rvalue_model::export`]).

use plotters::prelude::IntoDrawingArea;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, Document, HtmlCanvasElement, Url};

use super::{App, Shared};
use crate::ui::canvas;
use crate::ui::dom::{self, by_id};
use rvalue_core::{Error, Result};
use rvalue_model::export::{
    alpha_marker_of, button_groups, file_name, split_mask_npy, table_csv, FigureExport, Save, Table,
    SPLIT_MASK_FILE,
};
use rvalue_model::figure::{panels, Figure};
use rvalue_model::ids;
use rvalue_model::message::sentence;
use rvalue_plot::Draw;

/// Adds the buttons to the panels ([`button_groups`], as
/// [`rvalue_model::export::ButtonGroup::html`]) and listens to them.
pub(super) fn wire(app: &Shared, doc: &Document) -> Result<()> {
    for g in button_groups() {
        let panel: web_sys::Element = by_id(doc, &g.panel.element_id())?;
        panel.insert_adjacent_html("beforeend", &g.html()).map_err(js_err("insertAdjacentHTML"))?;
        let buttons = panel.last_element_child().map(|group| group.children());
        for (i, &(_, save)) in g.buttons.iter().enumerate() {
            let Some(button) = buttons.as_ref().and_then(|b| b.item(i as u32)) else { continue };
            let a = app.clone();
            dom::listen(&button, "click", move |_| {
                let done = match save {
                    Save::Png(f) => export_png(&a.borrow(), f),
                    Save::Svg(f) => export_svg(&mut a.borrow_mut(), f),
                    Save::Csv(table, name) => export_csv(&mut a.borrow_mut(), table, name),
                };
                report(&a, done);
            });
        }
    }
    let a = app.clone();
    dom::listen_id(doc, ids::SPLIT_MASK, "click", move |_| {
        let done = export_mask(&a.borrow());
        report(&a, done);
    })?;
    Ok(())
}

/// A failed export says why in the page's error banner.
fn report(app: &Shared, done: Result<()>) {
    if let Err(e) = done {
        app.borrow().show_error(Some(&format!("Export failed: {}", sentence(&e))));
    }
}

fn js_err(what: &str) -> impl Fn(JsValue) -> Error + '_ {
    move |e| Error::invalid(format!("{what}: {}", e.as_string().unwrap_or_else(|| format!("{e:?}"))))
}

/// A new `<tag>` element of the page, as the element type `T` it is.
fn create<T: JsCast>(doc: &Document, tag: &str) -> Result<T> {
    Ok(doc.create_element(tag).map_err(js_err("createElement"))?.unchecked_into())
}

/// The figure's canvas and overlay composed on an offscreen canvas, then saved as PNG.
fn export_png(app: &App, f: &FigureExport) -> Result<()> {
    let doc = &app.doc;
    app.draw_stale_classes();
    let base: HtmlCanvasElement = by_id(doc, f.canvas)?;
    if !app.drawn.has_figure(f.canvas) || base.width() == 0 || base.height() == 0 {
        return Err(f.no_figure(false));
    }
    let out: HtmlCanvasElement = create(doc, "canvas")?;
    out.set_width(base.width());
    out.set_height(base.height());
    let ctx = rvalue_plot::canvas::context(&out)?;
    ctx.draw_image_with_html_canvas_element(&base, 0.0, 0.0).map_err(js_err("drawImage"))?;
    if let Some(overlay) = f.overlay.and_then(|id| by_id::<HtmlCanvasElement>(doc, id).ok()) {
        // An overlay is sized to its figure when drawn; any other size is a cleared one.
        if overlay.width() == base.width() && overlay.height() == base.height() {
            ctx.draw_image_with_html_canvas_element(&overlay, 0.0, 0.0).map_err(js_err("drawImage"))?;
        }
    }
    download(doc, &file_name(f.name, "png"), &png_bytes(&out)?, "image/png")
}

/// The canvas encoded as PNG in this task (`toDataURL`), not in a `toBlob` callback: a download
/// started from a later task is outside the click's user activation, and the browser may then
/// hold it back as an unrequested download.
fn png_bytes(canvas: &HtmlCanvasElement) -> Result<Vec<u8>> {
    let url = canvas.to_data_url().map_err(js_err("toDataURL"))?;
    let b64 =
        url.strip_prefix("data:image/png;base64,").ok_or_else(|| Error::invalid("the canvas gave no PNG"))?;
    let window = web_sys::window().ok_or_else(|| Error::invalid("no window"))?;
    // atob gives one char per byte (0–255).
    Ok(window.atob(b64).map_err(js_err("atob"))?.chars().map(|c| c as u8).collect())
}

/// The first split's mask as `.npy` (`rvalue sets --split` reads it).
fn export_mask(app: &App) -> Result<()> {
    let a = app.shown.get().ok_or_else(|| Error::invalid("no analysis yet"))?;
    download(&app.doc, SPLIT_MASK_FILE, &split_mask_npy(a)?, "application/octet-stream")
}

/// The figure as last drawn (with the α marker on panels 3 and 4), drawn again as SVG.
fn export_svg(app: &mut App, f: &FigureExport) -> Result<()> {
    let mut fig = app.drawn.figure(f.canvas).ok_or_else(|| f.no_figure(false))?;
    if let Some(coverage) = alpha_marker_of(f) {
        let (alpha, never_empty) = (app.controls.alpha, app.controls.never_empty);
        let view = app.shown.alpha_view(alpha, never_empty).ok();
        fig.add_marker(&panels::alpha_marker(view.as_ref(), alpha, coverage));
    }
    let canvas: HtmlCanvasElement = by_id(&app.doc, f.canvas)?;
    let (w, h) = (canvas.client_width(), canvas.client_height());
    if w <= 0 || h <= 0 {
        return Err(f.no_figure(true));
    }
    let text = svg(&fig, (w as u32, h as u32), app.font().round() as u32)?;
    download(&app.doc, &file_name(f.name, "svg"), text.as_bytes(), "image/svg+xml")
}

/// `fig` as an SVG document of `size` pixels with `font`-pixel tick labels.
pub(crate) fn svg(fig: &Figure, size: (u32, u32), font: u32) -> Result<String> {
    let ctx = rvalue_plot::canvas::context(&create(&dom::document()?, "canvas")?)?;
    let mut out = String::new();
    {
        let area = rvalue_plot::canvas::svg(&mut out, size, ctx).into_drawing_area();
        // The page's palette and legend placement: the export looks as the figure on show.
        fig.draw(&area, &canvas::look(font))?;
    }
    Ok(out)
}

fn export_csv(app: &mut App, table: Table, name: &str) -> Result<()> {
    let at = (app.controls.alpha, app.controls.never_empty);
    let text = table_csv(table, &mut app.shown, at, app.source.class_names())?;
    download(&app.doc, &file_name(name, "csv"), text.as_bytes(), "text/csv;charset=utf-8")
}

/// Saves `bytes` of type `mime` as `name` through a temporary object URL and an `<a download>`.
fn download(doc: &Document, name: &str, bytes: &[u8], mime: &str) -> Result<()> {
    let opts = BlobPropertyBag::new();
    opts.set_type(mime);
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(js_err("Blob"))?;
    let url = Url::create_object_url_with_blob(&blob).map_err(js_err("createObjectURL"))?;
    let a: web_sys::HtmlAnchorElement = create(doc, "a")?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The download has read the URL by the time a later task runs; a minute is ample.
    let revoke = Closure::once_into_js(move || {
        let _ = Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
    Ok(())
}
