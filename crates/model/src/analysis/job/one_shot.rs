//! [`Analysis::build`]'s work: every data set calibrated in one go with the core's
//! `Prepared::calibrate` and `conformal::sweep`, the reference the stepped job is tested
//! against; blocks, so not for the page.

use super::{AnalysisJob, Phase};
use crate::analysis::{internal, Analysis, Source};
use rvalue_core::conformal::{self, item_scores, Calibrated, RvalueKind};
use rvalue_core::probability;
use rvalue_core::Result;

impl AnalysisJob {
    /// The analysis [`Analysis::build`] makes.
    pub(in crate::analysis) fn build_whole(mut self) -> Result<Analysis> {
        if matches!(self.inputs.source(), Source::TrueDraws(..)) {
            // `Prepared` calibrates on the file's own items: true-label draws' reference is the
            // joined tensor's split instead (`tests::true_draws`), and their stepped job is run
            // here.
            return self.run();
        }
        let opts = *self.inputs.opts();
        let need_order = opts.kind != RvalueKind::Parametric;
        let methods = self.inputs.controls().methods();
        let mut calibrated: Vec<Vec<Calibrated>> = vec![Vec::new(); methods.len()];
        let (mut first, mut read_as) = (None, None);
        for r in 0..self.parts.total() {
            self.work.load(&self.inputs, r)?;
            let mut part = self.work.take_part().ok_or_else(|| internal("load() left no part"))?;
            let prepared = conformal::Prepared::new(part.tensor()?, part.labels(), need_order)?;
            let mut scores: [Option<Vec<f64>>; 3] = Default::default();
            for (mi, &m) in methods.iter().enumerate() {
                if !m.is_baseline() {
                    scores[mi] =
                        item_scores(prepared.t, &prepared.summaries, prepared.order.as_ref(), m, &opts)?;
                }
                calibrated[mi].extend(prepared.calibrate(m, &opts, part.splits())?);
            }
            if r == 0 && methods.len() > 3 {
                read_as = Some(probability::resolve(prepared.t, opts.scores_are)?);
            }
            if r == 0 {
                scores.into_iter().enumerate().for_each(|(mi, s)| part.set_scores(mi, s));
                first = Some(part);
            }
        }
        let baselines = self.recorded.set_whole(calibrated)?;
        self.baseline.set_whole(baselines, read_as);
        self.work.set_first(first);
        self.phase = Phase::Done;
        self.finish()
    }
}
