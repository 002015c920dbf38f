//! The controls and the page: the inputs read into [`Controls`] and written back, the slider
//! readouts, the mode's sections, the error line, the address' notes, and what a change of
//! the controls recomputes (via [`Controls::impact`]).

use super::App;
use crate::ui::dom::{self, checked, number, select, set_checked, set_hidden, set_text, set_value};
use crate::ui::permalink;
use rvalue_core::{Error, Result};
use rvalue_model::controls::table::{Control, Input, CONTROLS};
use rvalue_model::ids;
use rvalue_model::message::failure;
use rvalue_model::page::form::{
    link_notes, mode_sections, scores_reading, sigma2_label, toggle_per_item_prior,
};
use rvalue_model::page::status::PREVIOUS_SETTINGS;
use rvalue_model::page::Dirty;
use rvalue_model::scales::short;
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

    /// The controls as the inputs show them, read through [`CONTROLS`].
    fn read_controls(&self) -> Result<Controls> {
        let mut c = self.controls.clone();
        for control in CONTROLS.iter() {
            let Some(text) = self.form_text(control, &c)? else { continue };
            control
                .set(&mut c, &text)
                .map_err(|p| Error::invalid(format!("{}: '{text}' {p}", control.name)))?;
        }
        Ok(c)
    }

    /// What the form holds for `control`, as the control's text; `None` for the mode (its radio
    /// buttons switch the mode at once) and for settings only a link can make.
    fn form_text(&self, control: &Control, c: &Controls) -> Result<Option<String>> {
        let (d, id) = (&self.doc, control.key);
        Ok(Some(match control.input {
            // A slider left where it is keeps its value: the value need not be one of its
            // positions (a link's β = 0.13 lies between two), and moving α must not change β.
            Input::Slider { at, position, .. } => {
                let p: u32 = number(d, id, control.name)?;
                let value = control.real(c).unwrap_or(f64::NAN);
                if p == position(value) { value } else { at(p) }.to_string()
            }
            Input::Number => dom::input(d, id)?.value().trim().to_string(),
            Input::Select => select(d, id)?.value(),
            Input::Checkbox => String::from(if checked(d, id)? { "1" } else { "0" }),
            Input::Radio | Input::LinkOnly => return Ok(None),
        }))
    }

    /// Shows `self.controls` in the inputs.
    pub(super) fn write_controls(&self) {
        let (d, c) = (&self.doc, &self.controls);
        for control in CONTROLS.iter() {
            let (id, text) = (control.key, control.text(c));
            match control.input {
                Input::Slider { position, .. } => {
                    set_value(d, id, &position(control.real(c).unwrap_or(f64::NAN)).to_string())
                }
                Input::Number | Input::Select => set_value(d, id, &text),
                Input::Checkbox => set_checked(d, id, text == "1"),
                Input::Radio => {
                    for name in control.names() {
                        set_checked(d, &format!("{id}-{name}"), name == text);
                    }
                }
                Input::LinkOnly => {}
            }
        }
        self.write_slider_values();
    }

    /// The sliders' readouts (`{key}-value`) and spoken values.
    pub(super) fn write_slider_values(&self) {
        let (d, c) = (&self.doc, &self.controls);
        for control in CONTROLS.iter().filter(|c| matches!(c.input, Input::Slider { .. })) {
            let text = short(control.real(c).unwrap_or(f64::NAN));
            set_text(d, &format!("{}-value", control.key), &text);
            if let Ok(i) = dom::input(d, control.key) {
                if i.get_attribute("aria-valuetext").as_deref() != Some(text.as_str()) {
                    let _ = i.set_attribute("aria-valuetext", &text);
                }
            }
        }
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
        let new = match self.read_controls().and_then(|c| c.validate().map(|()| c)) {
            Ok(c) => c,
            Err(e) => return self.show_error(Some(&failure(&e, PREVIOUS_SETTINGS))),
        };
        self.show_error(None);
        let impact = self.controls.impact(&new);
        if impact.sigma2_from_data && self.source.is_loaded() {
            self.source.set_sigma2_from_data(true);
        }
        // Written at the end of the render: a canvas' text drawing (panel 5's legend) resolves
        // style, which would be recalculated first if the page had been written to.
        let dirty = Dirty::for_change(&self.controls, &new, &impact);
        self.controls = new;
        if impact.reanalyse {
            self.start_job();
        }
        let now = self.drawn.dirty();
        *now = now.or(dirty);
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
        self.controls = self.controls.for_mode(mode);
        // Back on a loaded file, σ² starts at its median variance again.
        self.source.set_sigma2_from_data(mode == Mode::Scores && self.source.is_loaded());
        self.fit_kind_to_file();
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
