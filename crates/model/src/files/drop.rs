//! A drop (or the picker's choice) planned from its files' names and sizes, before a byte is
//! read: a score file too large to hold is read a block at a time, with its labels file alone.

use super::is_labels;

/// How the page reads the files given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropPlan {
    /// Score file `scores` (an index into the files) a block at a time, with labels file
    /// `labels`, if one was given.
    Stream { scores: usize, labels: Option<usize> },
    /// Every file whole: scores, and perhaps labels and a calibration pool.
    Whole,
    /// Nothing: why.
    Refused(String),
}

/// The plan for files `(name, bytes)`, when score files of `stream_from` bytes or more are
/// streamed.
pub fn plan_drop(files: &[(String, f64)], stream_from: f64) -> DropPlan {
    let big = files.iter().position(|(n, size)| !is_labels(n) && *size >= stream_from);
    if let Some(big) = big {
        let labels = files.iter().enumerate().position(|(i, (n, _))| i != big && is_labels(n));
        if files.len() > 1 + usize::from(labels.is_some()) {
            return DropPlan::Refused(format!(
                "{} is read a block at a time: drop it with its labels file alone (a calibration \
                 pool needs the test items in memory)",
                files[big].0
            ));
        }
        return DropPlan::Stream { scores: big, labels };
    }
    if files.is_empty() || files.len() > 3 {
        return DropPlan::Refused(format!(
            "{} files were given: load one file, or up to three: a scores file, a labels file \
             (its name holding \"label\") and a calibration pool of true-label draws [n_cal, M]",
            files.len()
        ));
    }
    DropPlan::Whole
}
