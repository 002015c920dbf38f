//! The controls and the page: the inputs read into [`Controls`] and written back, the slider
//! readouts, the mode's sections, the error line, the address' notes, and what a change of
//! the controls recomputes (via [`Controls::impact`]).

use super::{App, Dirty};
use crate::ui::dom::{self, checked, number, select, set_checked, set_hidden, set_text, set_value};
use crate::ui::permalink;
use rvalue_core::Result;
use rvalue_model::scales::{self, short};
use rvalue_model::url::{DataRef, UrlState};
use rvalue_model::{Controls, Mode};

impl App {
    /// What a link to the page as it is now holds.
    pub(in crate::ui) fn url_state(&self) -> UrlState {
        UrlState {
            controls: self.controls.clone(),
            item: self.item,
            data: self.data_ref.clone(),
            embed: self.embed,
            large_text: self.large_text,
            tour: self.tour,
            tour_alone: self.tour_alone,
        }
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
    pub(super) fn show_link_notes(&self, warnings: &[String]) {
        let mut notes: Vec<String> = warnings.iter().map(|w| format!("{w}.")).collect();
        if self.data_ref == DataRef::Upload {
            notes.push(
                "This link was made with a score file from its author's computer. Files are never put \
                 in links: load the same file (drop it on the page or choose it) to see this view."
                    .to_string(),
            );
        }
        set_text(&self.doc, "url-notes", &notes.join(" "));
        set_hidden(&self.doc, "url-notes", notes.is_empty());
    }

    /// The controls as the inputs show them.
    fn read_controls(&self) -> Result<Controls> {
        let d = &self.doc;
        let mut c = self.controls.clone();
        // A slider left where it is keeps its value: the value need not be one of its positions
        // (β = 0.1 sits at the position of 0.0988), and moving α must not change β.
        let slider = |id: &str, what: &str, value: f64, at: fn(u32) -> f64, position: fn(f64) -> u32| {
            number(d, id, what).map(|p: u32| if p == position(value) { value } else { at(p) })
        };
        c.alpha = slider("alpha", "α", c.alpha, scales::alpha_at, scales::alpha_position)?;
        c.beta = slider("beta", "β", c.beta, scales::beta_at, scales::beta_position)?;
        c.sigma2 = slider("sigma2", "σ²", c.sigma2, scales::sigma2_at, scales::sigma2_position)?;
        c.score.kind = select(d, "kind")?.value().parse()?;
        c.score.prior = select(d, "prior")?.value().parse()?;
        c.score.variance = select(d, "variance")?.value().parse()?;
        c.score.cp_draw = number(d, "cp-draw", "CP's draw")?;
        c.score.ties = select(d, "ties")?.value().parse()?;
        c.never_empty = checked(d, "never-empty")?;
        c.toy.k = number(d, "toy-k", "K")?;
        c.toy.m = number(d, "toy-m", "M")?;
        c.toy.n_cal = number(d, "toy-ncal", "n_cal")?;
        c.toy.n_test = number(d, "toy-ntest", "n_test")?;
        c.toy.repeats = number(d, "toy-repeats", "repeats")?;
        c.toy.mu_p = number(d, "toy-mup", "μp")?;
        c.toy.sigma2_p = number(d, "toy-sigma2p", "σp²")?;
        c.toy.mu_q = number(d, "toy-muq", "μq")?;
        c.toy.high_var_fraction = number(d, "toy-frac", "high-variance fraction")?;
        c.toy.seed = number(d, "toy-seed", "seed")?;
        c.splits = number(d, "splits", "random splits")?;
        c.cal_fraction = number(d, "cal-fraction", "calibration fraction")?;
        c.seed = number(d, "split-seed", "split seed")?;
        Ok(c)
    }

    /// Shows `self.controls` in the inputs.
    pub(super) fn write_controls(&self) {
        let (d, c) = (&self.doc, &self.controls);
        set_value(d, "alpha", &scales::alpha_position(c.alpha).to_string());
        set_value(d, "beta", &scales::beta_position(c.beta).to_string());
        set_value(d, "sigma2", &scales::sigma2_position(c.sigma2).to_string());
        set_value(d, "kind", c.score.kind.name());
        set_value(d, "prior", c.score.prior.name());
        set_value(d, "variance", c.score.variance.name());
        set_value(d, "cp-draw", &c.score.cp_draw.to_string());
        set_value(d, "ties", c.score.ties.name());
        set_checked(d, "never-empty", c.never_empty);
        let t = &c.toy;
        for (id, v) in [
            ("toy-k", t.k.to_string()),
            ("toy-m", t.m.to_string()),
            ("toy-ncal", t.n_cal.to_string()),
            ("toy-ntest", t.n_test.to_string()),
            ("toy-repeats", t.repeats.to_string()),
            ("toy-mup", t.mu_p.to_string()),
            ("toy-sigma2p", t.sigma2_p.to_string()),
            ("toy-muq", t.mu_q.to_string()),
            ("toy-frac", t.high_var_fraction.to_string()),
            ("toy-seed", t.seed.to_string()),
            ("splits", c.splits.to_string()),
            ("cal-fraction", c.cal_fraction.to_string()),
            ("split-seed", c.seed.to_string()),
        ] {
            set_value(d, id, &v);
        }
        set_checked(d, "mode-toy", c.mode == Mode::Toy);
        set_checked(d, "mode-scores", c.mode == Mode::Scores);
        self.write_slider_values();
    }

    pub(super) fn write_slider_values(&self) {
        let (d, c) = (&self.doc, &self.controls);
        set_text(d, "alpha-value", &short(c.alpha));
        set_text(d, "beta-value", &short(c.beta));
        set_text(d, "sigma2-value", &short(c.sigma2));
        for (id, v) in [("alpha", c.alpha), ("beta", c.beta), ("sigma2", c.sigma2)] {
            if let Ok(i) = dom::input(d, id) {
                let text = short(v);
                if i.get_attribute("aria-valuetext").as_deref() != Some(text.as_str()) {
                    let _ = i.set_attribute("aria-valuetext", &text);
                }
            }
        }
    }

    pub(super) fn show_mode(&self) {
        let toy = self.controls.mode == Mode::Toy;
        set_hidden(&self.doc, "toy-params", !toy);
        set_hidden(&self.doc, "scores-params", toy);
        set_hidden(&self.doc, "panel-scores", !toy);
        set_hidden(&self.doc, "panel-data", toy || self.data.is_none());
        let label =
            if toy { "σ², false candidates' variance" } else { "σ², marked on the threshold curve" };
        if let Some(l) = self.doc.query_selector("label[for=sigma2]").ok().flatten() {
            l.set_text_content(Some(label));
        }
    }

    pub(super) fn show_error(&self, msg: Option<&str>) {
        match msg {
            Some(m) => {
                set_text(&self.doc, "error", m);
                set_hidden(&self.doc, "error", false);
                // The message sits under the controls, below the fold of the sidebar when the toy's
                // parameters are open: bring it into view, to the middle, since the status lines
                // above it can still grow in the same frame (at the nearest edge that pushed it
                // partly out of view). Not in an embedded panel, whose frame fills its height and
                // must not scroll the host page.
                if self.embed.is_none() {
                    if let Some(e) = self.doc.get_element_by_id("error") {
                        let opts = web_sys::ScrollIntoViewOptions::new();
                        opts.set_block(web_sys::ScrollLogicalPosition::Center);
                        e.scroll_into_view_with_scroll_into_view_options(&opts);
                    }
                }
            }
            None => set_hidden(&self.doc, "error", true),
        }
    }

    /// Applies the inputs' settings: recompute what they change, redraw what depends on them.
    pub(super) fn controls_changed(&mut self) {
        let new = match self.read_controls().and_then(|c| c.validate().map(|()| c)) {
            Ok(c) => c,
            Err(e) => {
                return self
                    .show_error(Some(&format!("{e}. The results shown are for the previous settings.")))
            }
        };
        self.show_error(None);
        let impact = self.controls.impact(&new);
        let never_empty_changed = self.controls.never_empty != new.never_empty;
        // α moves only panel 5 among the closed forms: panel 2's z_β is a root over every
        // candidate of a score file, too slow to redo under the α slider.
        let curves = impact.curves
            && (impact.reanalyse || self.controls.beta != new.beta || self.controls.sigma2 != new.sigma2);
        self.controls = new;
        // Written at the end of the render: a canvas' text drawing (panel 5's legend) resolves
        // style, which would be recalculated first if the page had been written to.
        self.dirty.sliders = true;
        self.dirty.address = true;
        if impact.reanalyse {
            self.start_job();
        }
        self.dirty.curves |= curves;
        self.dirty.theorem3 |= curves;
        self.dirty.theorem3_front |= impact.curves;
        self.dirty.alpha |= impact.alpha;
        self.dirty.sweep |= never_empty_changed;
    }

    pub(super) fn set_mode(&mut self, mode: Mode) {
        self.controls = self.controls.for_mode(mode);
        self.write_controls();
        self.show_mode();
        self.start_job();
        self.dirty = Dirty::ALL;
    }
}
