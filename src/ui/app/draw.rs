//! Drawing the panels: what is dirty is redrawn from the analysis and the controls, one file
//! per panel, and the canvas helpers they share. Each reads as model view → figure → draw:
//! [`rvalue_model::view`] decides what a panel shows, [`crate::ui::panels`] builds its figure,
//! and these files put both on the page.

pub(super) mod classes;
pub(super) mod curves;
pub(super) mod data;
pub(super) mod inspector;
pub(super) mod notes;
pub(super) mod sweep;
pub(super) mod table;
pub(super) mod theorem3;

use web_sys::HtmlCanvasElement;

use super::App;
use crate::ui::canvas;
use crate::ui::dom::{self, by_id};
use rvalue_model::edits::Edits;
use rvalue_model::figure::Figure;
use rvalue_model::ids;
use rvalue_model::page::font_px;
use rvalue_model::page::form::per_item_prior;
use rvalue_model::Analysis;
use rvalue_plot::{Frame, Layer};

impl App {
    /// Draws what is dirty. Figures first: drawing one afresh reads its canvas' box, which
    /// forces a layout if the DOM was written before. An α move alone draws no figure and reads
    /// no layout: it redraws the overlays of panels 3, 4 and 5 and the text that changed.
    pub(in crate::ui::app) fn render(&mut self) {
        let dirty = self.drawn.take_dirty();
        if dirty.moves_layout() {
            self.drawn.classes_canvas().set_sized(false);
        }
        if dirty.curves {
            self.render_kind_notes();
            self.render_curves();
        }
        if dirty.sweep {
            self.render_sweep();
        }
        if dirty.data {
            self.render_data();
        }
        if dirty.theorem3 || dirty.theorem3_front {
            self.render_theorem3(dirty.theorem3);
        }
        if dirty.alpha {
            self.render_alpha();
            self.render_data_notes();
        }
        if dirty.sliders {
            self.write_slider_values();
        }
        self.show_progress();
        if dirty.device {
            self.show_device();
        }
        if dirty.address {
            let pressed = per_item_prior(&self.controls);
            dom::apply(&self.doc, Edits::new().flag(ids::PER_ITEM_PRIOR, "aria-pressed", pressed));
            let state = self.url_state();
            self.check_tour(&state);
            if let Some(link) = &mut self.link {
                link.update(state.to_query());
            }
        }
    }

    /// The analysis on show if it is of the controls' mode (panels 2 and 5 and the notes show
    /// nothing of the other mode's).
    fn analysis_in_mode(&self) -> Option<&Analysis> {
        self.shown.get().filter(|a| a.controls.mode == self.controls.mode)
    }

    pub(in crate::ui::app) fn font(&self) -> f64 {
        font_px(self.framing.large_text())
    }

    /// Draws `fig` (or one layer of it) on the canvas `id` sized to its box; its frame.
    pub(super) fn draw_sized(&self, id: &str, fig: &Figure, layer: Layer) -> Option<Frame> {
        let frame = warned(id, canvas::draw_figure(&self.doc, id, fig, layer, self.font())).flatten();
        if frame.is_some() && self.drawn.first_figure() {
            // For the benchmark's cold load: the first figure is on its canvas.
            dom::mark("rvalue:first-panel");
        }
        frame
    }

    /// Draws `fig` whole on the canvas `id` at the size it was last given, without reading its
    /// box, and keeps it for the SVG export.
    pub(in crate::ui::app) fn redraw(&self, id: &'static str, fig: Figure) {
        if warned(id, canvas::redraw_figure(&self.doc, id, &fig, Layer::Whole, self.font())).is_some() {
            self.drawn.keep(id, fig);
        }
    }

    /// Draws `fig` whole on the canvas `id` and keeps it for the SVG export; its frame, if it
    /// was drawn (a hidden canvas draws nothing).
    pub(in crate::ui::app) fn draw(&self, id: &'static str, fig: Figure) -> Option<Frame> {
        let frame = self.draw_sized(id, &fig, Layer::Whole);
        if frame.is_some() {
            self.drawn.keep(id, fig);
        }
        frame
    }

    /// Clears the canvas `id` and forgets its figure: a placeholder's panel shows no figure of
    /// earlier settings, and exports none.
    pub(super) fn blank(&self, id: &str) {
        if let Ok(c) = by_id::<HtmlCanvasElement>(&self.doc, id) {
            if let Ok(ctx) = rvalue_plot::canvas::context(&c) {
                ctx.clear_rect(0.0, 0.0, f64::from(c.width()), f64::from(c.height()));
            }
        }
        self.drawn.forget(id);
    }
}

/// `r`'s value, or `None` with the failure logged against the canvas `id`: a figure that cannot
/// be drawn leaves the page as it is.
fn warned<T>(id: &str, r: rvalue_core::Result<T>) -> Option<T> {
    r.map_err(|e| web_sys::console::warn_1(&format!("#{id}: {e}").into())).ok()
}
