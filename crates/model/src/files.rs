//! Which files make a data set: the file picker's and a drop's files told apart by role
//! ([`read_named`]: scores, labels, calibration true draws), a drop planned before anything is read
//! ([`plan_drop`]: whole, or a block at a time), the size limits, and a large score file opened
//! from its header ([`open_streamed`]). The page reads the bytes; these decide what they are.

use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::{read_cal_true, read_class_names, read_labels, read_scores, BlockLayout, Dataset};
use rvalue_core::{Error, Result};

use crate::StreamedFile;

mod drop;
mod read_ahead;

pub use drop::{plan_drop, DropPlan};
pub use read_ahead::ReadAhead;

/// Largest file the page reads whole (the core refuses tensors over 2^28 elements anyway);
/// larger `.npy` score files are read a block at a time.
pub const MAX_FILE_BYTES: f64 = 2.0 * 1024.0 * 1024.0 * 1024.0;

/// Score files of at least this many bytes are read a block at a time, unless the address'
/// `stream=MB` says otherwise: a file the page holds answers a change of r-value kind at once,
/// a streamed one reads itself again.
pub const STREAM_FROM_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

/// A streamed file's header is read from this many bytes at the file's start.
pub const HEAD_BYTES: u64 = 1024 * 1024;

/// Why a file of `bytes` named `name` is not read, if it is larger than the page reads whole.
pub fn too_large(name: &str, bytes: f64) -> Option<String> {
    (bytes > MAX_FILE_BYTES).then(|| {
        format!(
            "{name}: {:.1} GiB is larger than the page reads (2 GiB); use the rvalue command line",
            bytes / 1024f64.powi(3)
        )
    })
}

/// The size from which score files are streamed: the `stream` switch (megabytes), or the
/// default without one (or with one that is no size).
pub fn stream_from(switch: Option<&str>) -> f64 {
    switch.and_then(|s| s.parse::<f64>().ok()).filter(|x| *x >= 0.0).map_or(STREAM_FROM_BYTES, |mb| mb * 1e6)
}

/// A data set read and its class names, if its `.npz` gives them.
pub type Labelled = (Dataset, Option<Vec<String>>);

/// A score file's bytes (from a drop, the picker or a sample) read, with `labels` from a
/// separate labels file when two were dropped; the name to show, and the data set.
pub fn read(name: String, bytes: &[u8], labels: Option<(String, Vec<u8>)>) -> (String, Result<Labelled>) {
    let data = read_scores(&name, bytes).and_then(|mut d| {
        if let Some((lname, lbytes)) = &labels {
            d.labels = Some(read_labels(lname, lbytes, d.scores.n(), d.scores.k())?);
        }
        let names = read_class_names(&name, bytes, d.scores.k())?;
        Ok((d, names))
    });
    let name = match &labels {
        Some((l, _)) => format!("{name} + {l}"),
        None => name,
    };
    (name, data)
}

/// A read's data set and class names apart, as the page holds them.
pub fn split_names(got: Result<Labelled>) -> (Result<Dataset>, Option<Vec<String>>) {
    match got {
        Ok((d, names)) => (Ok(d), names),
        Err(e) => (Err(e), None),
    }
}

/// A data set read, its true draws, if any, and its class names, if its `.npz` gives them.
pub type Named = (Dataset, Option<TrueDraws>, Option<Vec<String>>);

/// Files' bytes by role. A name holding "label" is the labels file (the second of two such
/// names is taken as scores). Of two score files, the true draws are the 2-D file `[n_cal, M]` whose
/// second dimension is the other's M (two files that are not both scores are scores and
/// labels, in that order); an `.npz` of scores may carry its true draws as member `cal_true`. The
/// name to show, and the scores (labelled) with the true draws, if any.
pub fn read_named(files: Vec<(String, Vec<u8>)>) -> (String, Result<Named>) {
    let (mut labels, mut scores): (Vec<_>, Vec<_>) = files.into_iter().partition(|(n, _)| is_labels(n));
    if scores.is_empty() && labels.len() > 1 {
        scores.push(labels.remove(1));
    }
    let read_all = |scores: &[(String, Vec<u8>)]| {
        scores.iter().map(|(n, b)| read_scores(n, b)).collect::<Result<Vec<_>>>()
    };
    let mut read = read_all(&scores);
    if read.is_err() && labels.is_empty() && scores.len() == 2 {
        labels.push(scores.remove(1));
        read = read_all(&scores);
    }
    let names: Vec<&str> = scores.iter().chain(&labels).map(|(n, _)| n.as_str()).collect();
    let shown = names.join(" + ");
    if labels.len() > 1 || scores.is_empty() {
        let e = Error::invalid(format!(
            "{shown}: more than one file names labels; give one labels file (its name holding \"label\")"
        ));
        return (shown, Err(e));
    }
    let got = read.and_then(|mut read| {
        let (test_at, true_draws) = true_draws_of(&scores, &read)?;
        let mut d = read.swap_remove(test_at);
        if let Some((lname, lbytes)) = labels.first() {
            d.labels = Some(read_labels(lname, lbytes, d.scores.n(), d.scores.k())?);
        }
        let (sname, sbytes) = &scores[test_at];
        let names = read_class_names(sname, sbytes, d.scores.k())?;
        Ok((test_at, d, true_draws, names))
    });
    match got {
        Ok((test_at, d, true_draws, names)) => {
            (named_as(&scores, &labels, test_at, true_draws.as_ref()), Ok((d, true_draws, names)))
        }
        Err(e) => (shown, Err(e)),
    }
}

/// Whether a file's name says it holds labels.
pub fn is_labels(name: &str) -> bool {
    name.to_lowercase().contains("label")
}

/// The name shown for test file `test_at` of `scores`, with its labels and true draws.
fn named_as(
    scores: &[(String, Vec<u8>)],
    labels: &[(String, Vec<u8>)],
    test_at: usize,
    true_draws: Option<&TrueDraws>,
) -> String {
    let mut name = scores[test_at].0.clone();
    for (l, _) in labels {
        name = format!("{name} + {l}");
    }
    if let Some(p) = true_draws {
        let from = scores.get(1 - test_at).map_or("cal_true", |(n, _)| n.as_str());
        name = format!("{name} with the pool {from} [{}, {}]", p.n(), p.m());
    }
    name
}

/// Which of the score files read is the test file, and the true draws: the other file, or the test
/// file's member `cal_true`.
pub fn true_draws_of(files: &[(String, Vec<u8>)], read: &[Dataset]) -> Result<(usize, Option<TrueDraws>)> {
    match (files, read) {
        ([(name, bytes)], _) => {
            let draws = read_cal_true(name, bytes)?;
            Ok((0, draws.map(|d| TrueDraws::of_dataset(&format!("{name}: member cal_true"), d)).transpose()?))
        }
        ([(a, _), (b, _)], [da, db]) => {
            let draws_for = |p: &Dataset, t: &Dataset| p.single_draw && p.scores.k() == t.scores.m();
            let (test_at, draws_name) = match (draws_for(db, da), draws_for(da, db)) {
                (true, false) => (0, b),
                (false, true) => (1, a),
                _ => {
                    return Err(Error::invalid(format!(
                        "{a} and {b} are two score files: one should be a calibration pool of \
                         true-label draws [n_cal, M] for the other's M draws (or name a labels \
                         file \"…label…\")"
                    )))
                }
            };
            Ok((test_at, Some(TrueDraws::of_dataset(draws_name, read[1 - test_at].clone())?)))
        }
        _ => Err(Error::invalid("give at most two score files: the test items and a pool")),
    }
}

/// The large `.npy` `name` of `size` bytes opened from `head`, its first bytes (at most
/// [`HEAD_BYTES`]), with the labels `labels` (a name and the bytes, read whole: a few bytes per
/// item). An `.npz`, or scores without labels, cannot be streamed, and say why.
pub fn open_streamed(
    name: &str,
    size: u64,
    head: &[u8],
    labels: Option<(String, Vec<u8>)>,
) -> Result<StreamedFile> {
    if head.starts_with(rvalue_core::io::ZIP_MAGIC) {
        return Err(Error::invalid(format!(
            "{name}: an .npz of {:.1} GB is larger than the page holds; save its scores as an .npy \
             (np.save) to read them a block at a time, with the labels as a second .npy",
            size as f64 / 1e9
        )));
    }
    let layout = BlockLayout::of_npy_head(name, head, size)?;
    let Some((lname, lbytes)) = labels else {
        return Err(Error::invalid(format!(
            "{name} has no labels: conformal prediction needs the true label of every item (drop \
             a second .npy named *labels* with it)"
        )));
    };
    let (n, _, k) = layout.shape();
    let y = read_labels(&lname, &lbytes, n, k)?;
    StreamedFile::new(format!("{name} + {lname}"), layout, y)
}

/// What the status line says while sample `name` is loaded.
pub fn sample_status(name: &str) -> String {
    use crate::samples::{SYNTHETIC_CIFAR, SYNTHETIC_TOY};
    match name {
        SYNTHETIC_CIFAR => "Generating a CIFAR-100-shaped tensor (2000 × 31 × 100)…".to_string(),
        SYNTHETIC_TOY => "Simulating the toy at its defaults (1000 × 30 × 10)…".to_string(),
        _ => format!("Fetching {name}…"),
    }
}

#[cfg(test)]
mod tests;
