//! What pooled CP_r on a streamed file will cost ([`LongRun`]), said before it starts: reads of
//! the file, and a time at stated rates.

use super::streamed_splits::group_size;
use super::{AnalysisJob, Source};

/// The rate at which a worker reads a file (`FileReaderSync`, a break every
/// [`STEP_BYTES`](super::STEP_BYTES)), stated: 4 GB in 16–17 s, measured in headless Chromium
/// on a 2-core test machine.
pub const READ_BYTES_PER_SEC: f64 = 235e6;

/// The pooled greedy's unit updates (draws × (units + candidates) per test item) a worker does
/// per second, stated: one split of the 4 GB benchmark file (10,000 × 100 × 1000, half/half:
/// 3·10⁹ updates) in about 38 s beside its reads, measured as [`READ_BYTES_PER_SEC`] was.
pub const GREEDY_UPDATES_PER_SEC: f64 = 80e6;

/// What pooled CP_r on a streamed file costs, said before it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct LongRun {
    /// Reads of the whole file: the scores' pass (unless kept), each worker's true-label draws,
    /// then one per group of splits.
    pub reads: usize,
    pub file_bytes: u64,
    /// Splits per group (per read).
    pub group: usize,
    pub workers: usize,
    /// The time it should take at the stated rates.
    pub secs: f64,
}

impl AnalysisJob {
    /// Pooled CP_r on a streamed file: what it will cost with `workers` threads reading the
    /// file; `None` for any other analysis.
    pub fn long_run(&self, workers: usize) -> Option<LongRun> {
        let Source::Streamed(file) = &self.source else { return None };
        if !self.streamed_pooled() {
            return None;
        }
        let (n, m, k) = file.layout.shape();
        let (splits, group, workers) =
            (self.controls.splits, group_size(file, &self.controls), workers.max(1));
        let groups = splits.div_ceil(group);
        let pass = usize::from(file.scored_for(&self.opts, !self.baseline.methods.is_empty()).is_none());
        let bytes = file.layout.data_bytes();
        let read = bytes as f64 / READ_BYTES_PER_SEC;
        let n_cal = (n as f64 * self.controls.cal_fraction).round() as usize;
        let per_split = (n - n_cal) as f64 * (m * (n_cal + k)) as f64 / GREEDY_UPDATES_PER_SEC;
        // The groups run side by side on the workers, each a read and its splits' greedy.
        let rounds = groups.div_ceil(workers) as f64;
        let secs = pass as f64 * read + read + rounds * (read + group as f64 * per_split);
        Some(LongRun { reads: pass + groups.min(workers) + groups, file_bytes: bytes, group, workers, secs })
    }
}

impl LongRun {
    /// The warning shown before the run starts, for the file `name`.
    pub fn describe(&self, name: &str) -> String {
        let gb = self.file_bytes as f64 / 1e9;
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        format!(
            "Pooled CP_r on {name} reads the file {} ({} × {gb:.1} GB = {:.1} GB; {} per read) on {}: \
             about {}, at stated rates (reading {:.0} MB/s and {:.0} M greedy steps/s per thread, \
             measured on a 2-core test machine).",
            plural(self.reads, "time", "times"),
            self.reads,
            self.reads as f64 * gb,
            plural(self.group, "split", "splits"),
            plural(self.workers, "worker thread", "worker threads"),
            duration(self.secs),
            READ_BYTES_PER_SEC / 1e6,
            GREEDY_UPDATES_PER_SEC / 1e6,
        )
    }
}

/// "40 s", "12 min", "2.5 h".
fn duration(secs: f64) -> String {
    match secs {
        s if s < 90.0 => format!("{:.0} s", s.max(1.0)),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}
