//! What arrives between frames: a data set loaded (file, sample or upload), the GPU's answers
//! and the workers' replies, each applied to the app followed by a frame.

use std::rc::Rc;
use std::sync::Arc;

use super::frame::with;
use super::{App, Dirty, Held, Loaded, Shared};
use crate::ui::dom::{self, set_hidden, set_text};
use crate::ui::streamed::Streamed;
use crate::ui::{device, files, workers};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::conformal::RvalueKind;
use rvalue_core::io::Dataset;
use rvalue_core::Result;
use rvalue_model::message::failure;
use rvalue_model::url::DataRef;
use rvalue_model::{DataSummary, Mode};

/// What a failed load leaves on the page.
const UNCHANGED: &str = "The results shown are unchanged.";

/// Histogram bins of panel 8.
const VARIANCE_BINS: usize = 40;

impl App {
    /// Shows a data set read from a file or generated in the page, or why it cannot be used.
    fn install(
        &mut self,
        name: String,
        data: Result<Dataset>,
        (class_names, pool): (Option<Vec<String>>, Option<Arc<TrueDraws>>),
        (origin, note): (DataRef, Option<String>),
    ) {
        let result = data.map_err(|e| failure(&e, UNCHANGED)).and_then(|d| {
            if d.labels.is_none() {
                // The file's name opens the sentence as it is spelled.
                return Err(format!(
                    "{name} has no labels: conformal prediction needs the true label of every item \
                     (an .npz member 'labels', a CSV column 'label', or a second .npy named *labels*). \
                     {UNCHANGED}"
                ));
            }
            let summary = DataSummary::of(&d, self.controls.score.variance, VARIANCE_BINS)
                .map_err(|e| failure(&e, UNCHANGED))?;
            Ok((d, summary))
        });
        match result {
            Ok((d, summary)) => {
                let mut what = format!("Loaded {name}: the data stays in this page.");
                if let Some(note) = note {
                    what = format!("{what} {note}");
                }
                let loaded = Loaded {
                    name,
                    data: Held::Whole(Arc::new(d)),
                    pool,
                    summary: Some(summary),
                    class_names,
                };
                self.put_in(loaded, origin, &what);
            }
            Err(msg) => self.show_error(Some(&msg)),
        }
    }

    /// Takes a file read a block at a time: its shares are read by the first analysis.
    fn install_streamed(&mut self, s: Streamed, origin: DataRef) {
        let (n, m, k) = s.info.layout.shape();
        let gb = s.info.layout.data_bytes() as f64 / 1e9;
        let mut what = format!(
            "Opened {} ({n} × {m} × {k}, {gb:.1} GB): read a block at a time, never held whole; \
             the data stays in this page.",
            s.info.name
        );
        // What `fit_kind_to_file` will do once the file is in.
        if self.controls.for_mode(Mode::Scores).score.kind == RvalueKind::Pooled {
            what.push_str(
                " CP_r starts with the nonparametric r-value, one read of the file: pooled r-values \
                 read it again for every group of splits, and the page says how long before it \
                 starts them.",
            );
        }
        let loaded = Loaded {
            name: s.info.name.clone(),
            data: Held::Streamed(s),
            pool: None,
            summary: None,
            class_names: None,
        };
        self.put_in(loaded, origin, &what);
    }

    /// Pooled r-values (the score files' default) read a streamed file again for every group
    /// of splits: a streamed file opens (and score mode starts) with the nonparametric r-value,
    /// which reads it once; the reader may then choose pooled, and is told what it costs.
    /// Whether the kind changed.
    pub(super) fn fit_kind_to_file(&mut self) -> bool {
        let streamed = matches!(self.data.as_ref().map(|l| &l.data), Some(Held::Streamed(_)));
        let c = &mut self.controls;
        if !streamed || c.mode != Mode::Scores || c.score.kind != RvalueKind::Pooled {
            return false;
        }
        c.score.kind = RvalueKind::Nonparametric;
        true
    }

    /// Puts a loaded file in place and analyses it.
    fn put_in(&mut self, loaded: Loaded, origin: DataRef, what: &str) {
        self.show_error(None);
        set_text(&self.doc, "data-name", what);
        self.data = Some(loaded);
        if self.data_ref == DataRef::Upload {
            // The file the link asked for (or another): its note has done its job.
            set_hidden(&self.doc, "url-notes", true);
        }
        self.data_ref = origin;
        self.item = self.pending_item.take().unwrap_or(0);
        self.sigma2.from_data = !std::mem::take(&mut self.sigma2.from_link);
        if self.controls.mode == Mode::Scores {
            if self.fit_kind_to_file() {
                self.write_controls();
            }
            self.start_job();
            self.dirty = Dirty::ALL;
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
            files::Got::Failed(msg) => {
                // A file's name may open it, spelled as it is: no capital forced.
                a.show_error(Some(&format!("{}. {UNCHANGED}", msg.trim_end_matches('.'))))
            }
        })
    })
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code, unused_variables))]
/// The GPU's answer for part `part` of job `serial`.
pub(super) fn offloaded(app: &Shared, serial: u64, part: usize, answer: Result<device::Answer>) {
    with(app, |a| {
        let Some(run) = a.running.as_mut() else { return dom::mark(dom::DROPPED_ANSWER) };
        #[cfg(feature = "gpu")]
        let supply = |ans: device::Answer| match ans {
            device::Answer::Rvalues(r) => run.job.supply_rvalues(part, r),
            device::Answer::Pooled { index, calibrated } => run.job.supply_pooled(part, index, calibrated),
        };
        #[cfg(not(feature = "gpu"))]
        let supply = |ans: device::Answer| -> Result<()> { match ans {} };
        if !run.gpu.take(&mut a.device, serial, answer, supply) {
            dom::mark(dom::DROPPED_ANSWER);
        }
        a.dirty.device = true;
    });
}

/// Worker `i`'s reply: started, or a repeat (of the running job, or of one since replaced).
pub(super) fn worker_replied(app: &Shared, i: usize, reply: workers::Reply) {
    with(app, |a| {
        let ready = a.pool.ready();
        let file = a.streamed_file();
        if let Some(run) = a.running.as_mut() {
            run.from_workers += usize::from(a.pool.replied(i, reply, Some((&mut run.job, run.serial))));
            a.pool.feed(&mut run.job, run.serial, file.as_ref());
        } else {
            a.pool.replied(i, reply, None);
        }
        a.dirty.device |= a.pool.ready() != ready;
    });
}
