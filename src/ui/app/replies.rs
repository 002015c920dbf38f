//! What arrives between frames: a data set loaded (file, sample or upload), the GPU's answers
//! and the workers' replies, each applied to the app followed by a frame.

use std::rc::Rc;
use std::sync::Arc;

use super::frame::with;
use super::source::Loaded;
use super::{App, Shared};
use crate::ui::dom;
use crate::ui::files;
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::Dataset;
use rvalue_core::Result;
use rvalue_model::page::load::{self, load_failed, loaded, opened_streamed, streamed_kind};
use rvalue_model::url::DataRef;
use rvalue_model::Mode;
use rvalue_web::device;
use rvalue_web::pool as workers;
use rvalue_web::streamed::Streamed;

impl App {
    /// Shows a data set read from a file or generated in the page, or why it cannot be used.
    fn install(
        &mut self,
        name: String,
        data: Result<Dataset>,
        beside: (Option<Vec<String>>, Option<Arc<TrueDraws>>),
        (origin, note): (DataRef, Option<String>),
    ) {
        let what = loaded(&name, note.as_deref());
        match Loaded::checked(name, data, beside, &self.controls) {
            Ok(l) => self.put_in(l, origin, &what),
            Err(msg) => self.show_error(Some(&msg)),
        }
    }

    /// Takes a file read a block at a time: its shares are read by the first analysis.
    fn install_streamed(&mut self, s: Streamed, origin: DataRef) {
        let layout = &s.info.layout;
        let what = opened_streamed(&s.info.name, layout.shape(), layout.data_bytes(), &self.controls);
        self.put_in(Loaded::streamed(s), origin, &what);
    }

    /// Puts a loaded file in place and analyses it.
    fn put_in(&mut self, loaded: Loaded, origin: DataRef, what: &str) {
        dom::apply(&self.doc, &load::put_in(what, *self.source.data_ref() == DataRef::Upload));
        self.item = self.source.put_in(loaded, origin);
        if self.controls.mode == Mode::Scores {
            // A streamed file's r-value ([`streamed_kind`]).
            if let Some(kind) = streamed_kind(&self.controls, self.source.is_streamed()) {
                self.controls.score.kind = kind;
                self.write_controls();
            }
            self.start_job();
            self.drawn.all_dirty();
        } else {
            self.set_mode(Mode::Scores);
        }
    }
}

/// Where [`crate::ui::files`] delivers what it loaded: into the app, then a frame.
pub(in crate::ui) fn file_sink(app: &Shared) -> files::Sink {
    let app = app.clone();
    Rc::new(move |got| {
        with(&app, |a| match got {
            files::Got::Dataset { name, data, names, pool, origin, note } => {
                a.install(name, data, (names, pool), (origin, note))
            }
            files::Got::Streamed(s, origin) => a.install_streamed(s, origin),
            files::Got::Failed(msg) => a.show_error(Some(&load_failed(&msg))),
        })
    })
}

/// The GPU's answer for part `part` of job `serial`.
pub(super) fn offloaded(app: &Shared, serial: u64, part: usize, answer: Result<device::Answer>) {
    with(app, |a| {
        match a.compute.take_answer(serial, part, answer) {
            None => return dom::mark(dom::DROPPED_ANSWER),
            Some(false) => dom::mark(dom::DROPPED_ANSWER),
            Some(true) => {}
        }
        a.drawn.dirty().device = true;
    });
}

/// Worker `i`'s reply: started, or a repeat (of the running job, or of one since replaced).
pub(super) fn worker_replied(app: &Shared, i: usize, reply: workers::Reply) {
    with(app, |a| {
        let file = a.source.streamed();
        if a.compute.worker_replied(i, reply, file.as_ref()) {
            a.drawn.dirty().device = true;
        }
    });
}
