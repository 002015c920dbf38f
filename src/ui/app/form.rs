//! The controls and the page: the inputs read into [`Controls`] and written back, the slider
//! readouts, the mode's sections, the error line, the address' notes, and what a change of
//! the controls recomputes (via [`Controls::impact`]).

use super::App;
use crate::ui::dom::{self, checked, number, select, set_checked, set_hidden, set_text, set_value};
use crate::ui::permalink;
use rvalue_core::Result;
use rvalue_model::controls::table::Input;
use rvalue_model::ids;
use rvalue_model::page::form::{
    link_notes, mode_sections, scores_reading, sigma2_label, toggle_per_item_prior,
};
use rvalue_model::page::inputs::{self, Read, Write};
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
        set_text(&self.doc, ids::URL_NOTES, &notes.join(" "));
        set_hidden(&self.doc, ids::URL_NOTES, notes.is_empty());
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

    /// Shows `self.controls` in the inputs.
    pub(super) fn write_controls(&self) {
        inputs::writes(&self.controls, |id, w| match w {
            Write::Value(v) => set_value(&self.doc, id, &v),
            Write::Checked(on) => set_checked(&self.doc, id, on),
        });
        self.write_slider_values();
    }

    /// The sliders' readouts (`{key}-value`) and spoken values.
    pub(super) fn write_slider_values(&self) {
        let d = &self.doc;
        inputs::readouts(&self.controls, |key, text| {
            set_text(d, &format!("{key}-value"), &text);
            if let Ok(i) = dom::input(d, key) {
                if i.get_attribute("aria-valuetext").as_deref() != Some(text.as_str()) {
                    let _ = i.set_attribute("aria-valuetext", &text);
                }
            }
        });
    }

    pub(super) fn show_mode(&self) {
        let mode = self.controls.mode;
        for (id, hidden) in mode_sections(mode, self.source.is_loaded()) {
            set_hidden(&self.doc, id, hidden);
        }
        if let Some(l) = self.doc.query_selector("label[for=sigma2]").ok().flatten() {
            l.set_text_content(Some(sigma2_label(mode)));
        }
    }

    pub(super) fn show_error(&self, msg: Option<&str>) {
        match msg {
            Some(m) => {
                set_text(&self.doc, ids::ERROR, m);
                set_hidden(&self.doc, ids::ERROR, false);
                // The message sits under the controls, below the fold of the sidebar when the toy's
                // parameters are open: bring it into view, to the middle, since the status lines
                // above it can still grow in the same frame (at the nearest edge that pushed it
                // partly out of view). Not in an embedded panel, whose frame fills its height and
                // must not scroll the host page.
                if self.framing.embed().is_none() {
                    if let Some(e) = self.doc.get_element_by_id(ids::ERROR) {
                        let opts = web_sys::ScrollIntoViewOptions::new();
                        opts.set_block(web_sys::ScrollLogicalPosition::Center);
                        e.scroll_into_view_with_scroll_into_view_options(&opts);
                    }
                }
            }
            None => set_hidden(&self.doc, ids::ERROR, true),
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
        let (prior, kind) = toggle_per_item_prior(&self.controls);
        set_value(&self.doc, "prior", prior);
        if let Some(kind) = kind {
            set_value(&self.doc, "kind", kind);
        }
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

/// The data summary's line on how the baselines read the file's scores (`auto`'s choice).
pub(super) fn show_reading(doc: &web_sys::Document, a: &rvalue_model::Analysis) {
    let text = scores_reading(a.toy.is_some(), a.scores_read_as(), a.controls.score.scores_are);
    set_text(doc, ids::SCORES_READING, &text);
}
