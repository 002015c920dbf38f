//! The controls and the page: the inputs read into [`Controls`] and written back, the slider
//! readouts, the mode's sections, the error line, the address' notes, and what a change of
//! the controls recomputes (via [`Controls::impact`]).

use super::App;
use crate::ui::dom::{self, checked, number, select};
use crate::ui::permalink;
use rvalue_core::Result;
use rvalue_model::controls::table::Input;
use rvalue_model::ids;
use rvalue_model::page::form::{self, link_notes, mode_sections};
use rvalue_model::page::inputs::{self, Read};
use rvalue_model::url::{DataRef, UrlState};
use rvalue_model::{Controls, Mode};

impl App {
    /// What a link to the page as it is now holds.
    pub(in crate::ui) fn url_state(&self) -> UrlState {
        self.framing.url_state(self.controls.clone(), self.item, self.source.data_ref().clone())
    }

    /// The address of the page as it is now, written into the address bar at once.
    pub(in crate::ui) fn link_now(&mut self) -> String {
        let query = self.url_state().to_query();
        match &mut self.link {
            Some(l) => l.now(query),
            None => permalink::url_with(&query),
        }
    }

    /// What was wrong in the address, and the note that a file from the author's machine must
    /// be loaded again.
    /// In an embed the warnings go to the console: the host page's readers did not write the
    /// link, its writer reads the console.
    pub(super) fn show_link_notes(&self, warnings: &[String]) {
        let upload = *self.source.data_ref() == DataRef::Upload;
        let (console, notes) = link_notes(warnings, self.framing.embedded(), upload);
        for n in console {
            web_sys::console::warn_1(&format!("rvalue-explorer: {n}").into());
        }
        dom::apply(&self.doc, &notes);
    }

    /// The controls as the inputs show them ([`inputs::read`]).
    fn read_controls(&self) -> Result<Controls> {
        let d = &self.doc;
        inputs::read(&self.controls, |control| {
            let id = control.key;
            Ok(Some(match control.input {
                Input::Slider { .. } => Read::Position(number(d, id, control.name)?),
                Input::Number => Read::Text(dom::input(d, id)?.value()),
                Input::Select => Read::Text(select(d, id)?.value()),
                Input::Checkbox => Read::Checked(checked(d, id)?),
                Input::Radio | Input::LinkOnly => return Ok(None),
            }))
        })
    }

    /// Shows `self.controls` in the inputs ([`inputs::edits`]).
    pub(super) fn write_controls(&self) {
        dom::apply(&self.doc, &inputs::edits(&self.controls));
    }

    /// The sliders' readouts and spoken values ([`inputs::readouts`]).
    pub(super) fn write_slider_values(&self) {
        dom::apply(&self.doc, &inputs::readouts(&self.controls));
    }

    /// The mode's sections and σ²'s label ([`mode_sections`]).
    pub(super) fn show_mode(&self) {
        let mode = self.controls.mode;
        dom::apply(&self.doc, &mode_sections(mode, self.source.is_loaded()));
    }

    pub(super) fn show_error(&self, msg: Option<&str>) {
        dom::apply(&self.doc, &form::error(msg));
        // The message sits under the controls, below the fold of the sidebar when the toy's
        // parameters are open: bring it into view, to the middle, since the status lines above
        // it can still grow in the same frame (at the nearest edge that pushed it partly out
        // of view). Not in an embedded panel, whose frame fills its height and must not scroll
        // the host page.
        if let (Some(_), None) = (msg, self.framing.embed()) {
            if let Some(e) = self.doc.get_element_by_id(ids::ERROR) {
                let opts = web_sys::ScrollIntoViewOptions::new();
                opts.set_block(web_sys::ScrollLogicalPosition::Center);
                e.scroll_into_view_with_scroll_into_view_options(&opts);
            }
        }
    }

    /// Applies the inputs' settings: recompute what they change, redraw what depends on them.
    pub(super) fn controls_changed(&mut self) {
        let change = match inputs::change(&self.controls, self.read_controls(), self.source.is_loaded()) {
            Ok(c) => c,
            Err(msg) => return self.show_error(Some(&msg)),
        };
        self.show_error(None);
        if change.sigma2_from_data {
            self.source.set_sigma2_from_data(true);
        }
        self.controls = change.controls;
        if change.reanalyse {
            self.start_job();
        }
        // Written at the end of the render: a canvas' text drawing (panel 5's legend) resolves
        // style, which would be recalculated first if the page had been written to.
        let now = self.drawn.dirty();
        *now = now.or(change.dirty);
    }

    /// Panel 6's switch to the paper's per-item prior (with parametric r-values, the one kind
    /// that has a prior), and back to the pooled one: as if the reader had set both selects.
    pub(super) fn toggle_per_item_prior(&mut self) {
        dom::apply(&self.doc, &form::toggle_per_item_prior(&self.controls));
        self.controls_changed();
    }

    pub(super) fn set_mode(&mut self, mode: Mode) {
        let (loaded, streamed) = (self.source.is_loaded(), self.source.is_streamed());
        let (controls, sigma2_again) = inputs::for_mode(&self.controls, mode, loaded, streamed);
        self.controls = controls;
        // Back on a loaded file, σ² starts at its median variance again.
        self.source.set_sigma2_from_data(sigma2_again);
        self.write_controls();
        self.show_mode();
        self.start_job();
        self.drawn.all_dirty();
    }
}
