//! The job's estimate of what pooled CP_r on a streamed file will cost ([`LongRun`]).

use super::AnalysisJob;
use crate::analysis::long_run::{GREEDY_UPDATES_PER_SEC, READ_BYTES_PER_SEC};
use crate::analysis::streamed_splits::group_size;
use crate::analysis::{LongRun, Source};

impl AnalysisJob {
    /// Pooled CP_r on a streamed file: what it will cost with `workers` threads reading the
    /// file; `None` for any other analysis.
    pub fn long_run(&self, workers: usize) -> Option<LongRun> {
        let Source::Streamed(file) = self.inputs.source() else { return None };
        if !self.streamed_pooled() {
            return None;
        }
        let (n, m, k) = file.layout.shape();
        let controls = self.inputs.controls();
        let (splits, group, workers) = (controls.splits, group_size(file, controls), workers.max(1));
        let groups = splits.div_ceil(group);
        let pass = usize::from(file.scored_for(self.inputs.opts(), self.baseline.any()).is_none());
        let bytes = file.layout.data_bytes();
        let read = bytes as f64 / READ_BYTES_PER_SEC;
        let n_cal = (n as f64 * controls.cal_fraction).round() as usize;
        let per_split = (n - n_cal) as f64 * (m * (n_cal + k)) as f64 / GREEDY_UPDATES_PER_SEC;
        // The groups run side by side on the workers, each a read and its splits' greedy.
        let rounds = groups.div_ceil(workers) as f64;
        let secs = pass as f64 * read + read + rounds * (read + group as f64 * per_split);
        Some(LongRun { reads: pass + groups.min(workers) + groups, file_bytes: bytes, group, workers, secs })
    }
}
