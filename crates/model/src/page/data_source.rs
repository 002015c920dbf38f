//! The data source: the score file the page holds (whole, or read a block at a time), where it
//! came from (what a link can say of it), the item a link asked for before its file arrived,
//! and where the σ² marker starts on it. The page's handle on a streamed file (its bytes are
//! the browser's) is a type parameter: the model needs only what it knows of the file.

use std::sync::Arc;

use super::load::{no_labels, UNCHANGED};
use crate::analysis::{Source, StreamedFile};
use crate::message::failure;
use crate::url::DataRef;
use crate::{Controls, DataSummary, Mode};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::Dataset;
use rvalue_core::Result;

/// Histogram bins of panel 8.
const VARIANCE_BINS: usize = 40;

/// A file read a block at a time, as the page holds it.
pub trait StreamedHandle: Clone {
    /// What the model knows of the file.
    fn info(&self) -> &Arc<StreamedFile>;
}

/// A score file the page holds, with what was read beside it.
pub struct Loaded<F> {
    name: String,
    data: Held<F>,
    /// Calibration units given as their true label's draws alone: the analysis calibrates on
    /// them, and `data`'s items are all test items.
    true_draws: Option<Arc<TrueDraws>>,
    /// Panel 8's statistics (of a file the page holds).
    summary: Option<DataSummary>,
    /// The names an `.npz` gives its classes (member `class_names`).
    class_names: Option<Vec<String>>,
}

impl<F: StreamedHandle> Loaded<F> {
    /// A file read whole, its statistics computed.
    pub fn whole(
        name: String,
        d: Dataset,
        summary: DataSummary,
        (class_names, true_draws): (Option<Vec<String>>, Option<Arc<TrueDraws>>),
    ) -> Loaded<F> {
        Loaded { name, data: Held::Whole(Arc::new(d)), true_draws, summary: Some(summary), class_names }
    }

    /// A file read whole, when the page can analyse it (it has labels, and statistics under
    /// the controls' variance `c`); else the message saying why.
    pub fn checked(
        name: String,
        data: Result<Dataset>,
        beside: (Option<Vec<String>>, Option<Arc<TrueDraws>>),
        c: &Controls,
    ) -> std::result::Result<Loaded<F>, String> {
        let d = data.map_err(|e| failure(&e, UNCHANGED))?;
        if d.labels.is_none() {
            return Err(no_labels(&name));
        }
        let summary =
            DataSummary::of(&d, c.score.variance, VARIANCE_BINS).map_err(|e| failure(&e, UNCHANGED))?;
        Ok(Loaded::whole(name, d, summary, beside))
    }

    /// A file read a block at a time.
    pub fn streamed(f: F) -> Loaded<F> {
        let name = f.info().name.clone();
        Loaded { name, data: Held::Streamed(f), true_draws: None, summary: None, class_names: None }
    }
}

/// A score file as the page has it: held whole, or read a block at a time.
enum Held<F> {
    Whole(Arc<Dataset>),
    Streamed(F),
}

impl<F: StreamedHandle> Held<F> {
    /// Items `N`.
    fn n(&self) -> usize {
        match self {
            Held::Whole(d) => d.scores.n(),
            Held::Streamed(s) => s.info().layout.shape().0,
        }
    }
}

/// What panel 8 shows of the file.
#[derive(Debug, PartialEq)]
pub enum Stats<'a> {
    Summary(&'a DataSummary),
    /// A streamed file's shape `(N, M, K)`: it is never held whole to summarise.
    Streamed((usize, usize, usize)),
    None,
}

/// Where the σ² marker starts on a score file: at the data's median variance, unless a link set it.
#[derive(Debug, Clone, Copy, Default)]
struct Sigma2Start {
    /// A link's σ², kept for the file the link names (its first load) instead of the data's.
    from_link: bool,
    /// Move the marker to the data's median variance when this file's analysis is done.
    from_data: bool,
}

pub struct DataSource<F> {
    loaded: Option<Loaded<F>>,
    /// Where the score file came from (what a link can say about it).
    data_ref: DataRef,
    /// The item a link asked for, applied once its file (sample or upload) is loaded.
    pending_item: Option<usize>,
    sigma2: Sigma2Start,
}

impl<F: StreamedHandle> DataSource<F> {
    /// Before any file: the one a link names (`data`), its item and whether it set σ².
    pub fn new(data: DataRef, item: usize, sigma2_given: bool) -> DataSource<F> {
        let named = data != DataRef::None;
        DataSource {
            loaded: None,
            pending_item: named.then_some(item),
            sigma2: Sigma2Start { from_link: sigma2_given && named, from_data: false },
            data_ref: data,
        }
    }

    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    pub fn data_ref(&self) -> &DataRef {
        &self.data_ref
    }

    /// Puts `loaded` in place, from `origin`; the item to inspect (the link's, else the first).
    pub fn put_in(&mut self, loaded: Loaded<F>, origin: DataRef) -> usize {
        self.loaded = Some(loaded);
        self.data_ref = origin;
        self.sigma2.from_data = !std::mem::take(&mut self.sigma2.from_link);
        self.pending_item.take().unwrap_or(0)
    }

    /// The file loaded, when it is read a block at a time.
    pub fn streamed(&self) -> Option<F> {
        match self.loaded.as_ref().map(|l| &l.data) {
            Some(Held::Streamed(s)) => Some(s.clone()),
            _ => None,
        }
    }

    pub fn is_streamed(&self) -> bool {
        matches!(self.loaded.as_ref().map(|l| &l.data), Some(Held::Streamed(_)))
    }

    /// The class names of the file, if it gives them.
    pub fn class_names(&self) -> Option<&[String]> {
        self.loaded.as_ref().and_then(|l| l.class_names.as_deref())
    }

    /// The true-label draws beside the file, when `c` analyses the file.
    pub fn true_draws(&self, c: &Controls) -> Option<Arc<TrueDraws>> {
        self.loaded.as_ref().and_then(|l| l.true_draws.clone()).filter(|_| c.mode == Mode::Scores)
    }

    /// The file's name and items `N`.
    pub fn file(&self) -> Option<(&str, usize)> {
        self.loaded.as_ref().map(|l| (l.name.as_str(), l.data.n()))
    }

    /// What an analysis of `c` runs on: the file in score mode, else the toy.
    pub fn job_source(&self, c: &Controls) -> Result<Source> {
        match self.loaded.as_ref().map(|l| &l.data).filter(|_| c.mode == Mode::Scores) {
            Some(Held::Streamed(s)) => Ok(Source::Streamed(s.info().clone())),
            Some(Held::Whole(d)) => Source::from_controls(c, Some(d.clone())),
            None => Source::from_controls(c, None),
        }
    }

    /// Panel 8's statistics, with the file's name.
    pub fn stats(&self) -> Option<(&str, Stats<'_>)> {
        let l = self.loaded.as_ref()?;
        let stats = match (&l.summary, &l.data) {
            (Some(s), _) => Stats::Summary(s),
            (None, Held::Streamed(s)) => Stats::Streamed(s.info().layout.shape()),
            (None, Held::Whole(_)) => Stats::None,
        };
        Some((l.name.as_str(), stats))
    }

    /// Whether the σ² marker is to move to the data's median variance (asked once: the
    /// answer is forgotten).
    pub fn take_sigma2_from_data(&mut self) -> bool {
        std::mem::take(&mut self.sigma2.from_data)
    }

    /// Sets whether the σ² marker starts again at the data's median variance.
    pub fn set_sigma2_from_data(&mut self, again: bool) {
        self.sigma2.from_data = again;
    }
}

#[cfg(test)]
mod tests;
