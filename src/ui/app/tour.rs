//! The guided tour ([`rvalue_model::tour`]; [`tour::card`] decides what the card shows): the
//! step card beside the panels it is about (the others dimmed), Next and Back, the keys
//! presentation clickers send, and the "try this" confirmation.
//!
//! A step is applied as a link is: its state comes from `UrlState::from_query`, goes into the
//! inputs with `write_controls`, and the address then reads `?tour=N` (the step's own state),
//! or that plus what the reader changed. Leaving the tour keeps the state.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};

use super::frame::{with, with_now};
use super::{App, Shared};
use crate::ui::dom;
use rvalue_core::Result;
use rvalue_model::ids;
use rvalue_model::tour::{self, KeyTarget, Move, Outcome};
use rvalue_model::url::UrlState;
use rvalue_model::{AlphaView, Controls};

/// The key's move in the tour ([`tour::key_move`]), from where its target sits.
fn key_move(e: &KeyboardEvent) -> Option<Move> {
    let target = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok());
    let tag = target.as_ref().map(|t| t.tag_name()).unwrap_or_default();
    let in_field = matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA")
        || target.as_ref().is_some_and(|t| t.is_content_editable());
    let on_button = target.as_ref().is_some_and(|t| {
        let button = tag == "BUTTON" || t.get_attribute("role").as_deref() == Some("button");
        button && !t.closest(&format!("#{}", ids::TOUR)).is_ok_and(|c| c.is_some())
    });
    let modified = e.alt_key() || e.ctrl_key() || e.meta_key() || e.shift_key();
    tour::key_move(&e.key(), modified, KeyTarget { in_field, on_button })
}

impl App {
    /// Goes to step `number` (from 1): its state, its card, its panels in front.
    pub(super) fn go_to_step(&mut self, number: usize) {
        let Some(step) = tour::step(number) else { return };
        self.framing.go_to(number);
        self.apply_controls(step.state(number).controls);
        // A step about the reader's scores, before a file: the step before's toy numbers would
        // read as theirs.
        if self.controls.mode == rvalue_model::Mode::Scores && !self.source.is_loaded() {
            self.forget_analysis();
        }
        self.show_tour();
    }

    /// Puts `controls` in the inputs and recomputes what they change, as a link opening would.
    fn apply_controls(&mut self, controls: Controls) {
        let impact = self.controls.impact(&controls);
        self.controls = controls;
        self.write_controls();
        self.show_mode();
        self.show_error(None);
        if impact.reanalyse {
            self.start_job();
        }
        self.drawn.all_dirty();
    }

    /// Leaves the tour; the state stays, and the address says it against the defaults.
    fn leave_tour(&mut self) {
        self.framing.leave();
        self.show_tour();
        // The panels leave the tour's layout: every figure is drawn again at its new box.
        self.drawn.all_dirty();
        focus(&self.doc, ids::TOUR_START);
    }

    /// Shows the card of the current step (or hides it) and marks the step's panels
    /// ([`tour::Card::edits`]); a button turned off while it had focus hands it to the title.
    pub(super) fn show_tour(&self) {
        let d = &self.doc;
        let c = tour::card(self.framing.step(), self.framing.tour_alone(), self.framing.tried());
        let active = d.active_element().map(|a| a.id());
        let lost_focus = c.buttons.iter().any(|&(id, off)| off && active.as_deref() == Some(id));
        dom::apply(d, &c.edits());
        keep_controls(d, c.keep);
        if c.reveal {
            reveal(d);
            reveal_controls(d, c.keep);
        }
        if lost_focus {
            focus(d, ids::TOUR_TITLE);
        }
    }

    /// Shows the confirmation once the reader has done what the step proposes (called when
    /// the state a link holds changes, first on the state the step opened with).
    pub(super) fn check_tour(&mut self, state: &UrlState) {
        let Some(step) = self.framing.step().and_then(tour::step) else { return };
        if self.framing.try_now((step.tried)(state)) {
            dom::apply(&self.doc, &tour::tried());
        }
    }

    fn step_by(&mut self, m: Move) {
        let Some(n) = self.framing.step() else { return };
        match tour::after(n, m) {
            Some(Some(k)) => self.go_to_step(k),
            Some(None) => self.leave_tour(),
            None => {}
        }
    }
}

/// Scrolls the card to the top of the window when it is not wholly in view (a phone shows the
/// controls first), and leaves the page where it is otherwise.
fn reveal(doc: &web_sys::Document) {
    let (Some(card), Some(w)) = (doc.get_element_by_id(ids::TOUR), web_sys::window()) else { return };
    let r = card.get_bounding_client_rect();
    let height = w.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    if r.top() < 0.0 || r.bottom() > height {
        let opts = web_sys::ScrollIntoViewOptions::new();
        opts.set_block(web_sys::ScrollLogicalPosition::Start);
        card.scroll_into_view_with_scroll_into_view_options(&opts);
    }
}

/// Marks the controls a step keeps in view (`ids`, [`tour::Step::stage_controls`]) with
/// `stage-keep`, with their labels and the slider or fieldset each sits in; unmarks the rest.
/// With large text the tour shows only these (`www/style.css`).
fn keep_controls(doc: &web_sys::Document, ids: &[&str]) {
    if let Ok(marked) = doc.query_selector_all(".stage-keep") {
        for i in 0..marked.length() {
            if let Some(e) = marked.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) {
                let _ = e.class_list().remove_1("stage-keep");
            }
        }
    }
    for id in ids {
        let Some(e) = doc.get_element_by_id(id) else { continue };
        let block = e.closest(".slider, fieldset").ok().flatten();
        let label = doc.query_selector(&format!("label[for=\"{id}\"]")).ok().flatten();
        for k in [Some(e), block, label].into_iter().flatten() {
            let _ = k.class_list().add_1("stage-keep");
        }
    }
}

/// Scrolls the controls' own column, never the page, so that the step's controls are in it.
fn reveal_controls(doc: &web_sys::Document, ids: &[&str]) {
    let (Some(column), Some(first)) = (doc.get_element_by_id(ids::CONTROLS), ids.first()) else { return };
    let Some(e) = doc.get_element_by_id(first) else { return };
    let block = e.closest(".slider, fieldset").ok().flatten().unwrap_or(e);
    let (c, b) = (column.get_bounding_client_rect(), block.get_bounding_client_rect());
    if b.top() < c.top() || b.bottom() > c.bottom() {
        let to = f64::from(column.scroll_top()) + b.top() - c.top();
        column.set_scroll_top(to.max(0.0) as i32);
    }
}

fn focus(doc: &web_sys::Document, id: &str) {
    if let Ok(e) = dom::by_id::<HtmlElement>(doc, id) {
        let _ = e.focus();
    }
}

/// The Tour button, the card's buttons and the keys.
pub(super) fn wire(app: &Shared) -> Result<()> {
    let doc = app.borrow().doc.clone();
    let a = app.clone();
    dom::listen_id(&doc, ids::TOUR_START, "click", move |_| {
        with(&a, |app| {
            app.go_to_step(1);
            focus(&app.doc, ids::TOUR_TITLE);
        })
    })?;
    for (id, m) in
        [(ids::TOUR_NEXT, Move::Next), (ids::TOUR_BACK, Move::Back), (ids::TOUR_LEAVE, Move::Leave)]
    {
        let a = app.clone();
        dom::listen_id(&doc, id, "click", move |_| with_now(&a, |app| app.step_by(m)))?;
    }
    // To Next, or Back at the last step: the card's buttons within a Tab stop of the page's
    // top. The link's own jump would put a fragment in the address the page writes.
    dom::listen_id(&doc, ids::TOUR_SKIP, "click", move |e| {
        e.prevent_default();
        let d = web_sys::window().and_then(|w| w.document());
        let Some(d) = d else { return };
        let next = dom::by_id::<web_sys::HtmlButtonElement>(&d, ids::TOUR_NEXT);
        focus(&d, if next.is_ok_and(|b| !b.disabled()) { ids::TOUR_NEXT } else { ids::TOUR_BACK });
    })?;
    let a = app.clone();
    dom::listen(&doc, "keydown", move |e| {
        let Some(m) = e.dyn_ref::<KeyboardEvent>().and_then(key_move) else { return };
        let active = a.try_borrow().is_ok_and(|app| app.framing.takes_keys());
        if active {
            e.prevent_default();
            with_now(&a, |app| app.step_by(m));
        }
    });
    Ok(())
}

impl App {
    /// The per-class step ([`tour::per_class_step`]): keeps the marginal analysis' view at α,
    /// and once a per-class analysis is on show, adds to the confirmation what per-class
    /// thresholds did, computed from the two.
    pub(super) fn tour_outcome(&mut self, v: &AlphaView) {
        let Some(a) = self.shown.get() else { return };
        let names = self.source.class_names();
        let Some(outcome) = tour::per_class_step(self.framing.step(), a, v, self.framing.baseline(), names)
        else {
            return;
        };
        if outcome == Outcome::Baseline {
            self.framing.set_baseline(v.clone());
        }
        dom::apply(&self.doc, &outcome.edits());
    }
}
