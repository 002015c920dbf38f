//! What pooled CP_r on a streamed file will cost ([`LongRun`], made by
//! [`AnalysisJob::long_run`](super::AnalysisJob::long_run)), said before it starts: reads of the
//! file, and a time at stated rates.

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
