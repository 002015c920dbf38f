//! The job's first phase for a streamed file ([`Phase::Pass`]): its shares of items are handed
//! out to whoever reads them (the page's workers, [`AnalysisJob::hand_out`]) or read for the job
//! itself ([`AnalysisJob::wants_bytes`], then scored a few items a step), and their rows put in
//! place in any order. The rows are then the in-memory path's, bit for bit.
//!
//! With a baseline on, shares carry their items' class probabilities too. Under `auto` the
//! reading is the whole file's, known only once every share is seen; rather than a first pass
//! that only reads (the file read twice, always), each share reads its scores as its own rows
//! decide and hands back what it saw ([`Detector`]), merged here. Logits and log-probabilities
//! give the same probabilities (a softmax either way), so a share's choice differs from the
//! file's in what it makes only if its rows are all probabilities and another share's are not:
//! only then are those shares read again, read as logits. A file of probabilities, or of
//! logits, is read once.

use std::ops::Range;
use std::sync::Arc;

use super::{AnalysisJob, Claim, Phase};
use crate::analysis::streamed_file::ReadProbabilities;
use crate::analysis::streamed_file::{score_share, share_request, Scored, StreamedFile};
use crate::analysis::{internal, item_cost, Part, Source, CP_R};
use crate::url::UrlState;
use rvalue_core::conformal::streamed::{rvalues_per_item, BlockRows};
use rvalue_core::conformal::{read_block_rows, Ranked, RvalueKind, ScoreOptions, ScoreRows};
use rvalue_core::probability::{Detector, ScoresAre};
use rvalue_core::tensor::Summaries;
use rvalue_core::{Error, Result};

/// A streamed file's rows as its shares come in.
#[derive(Debug)]
pub(in crate::analysis) struct Pass {
    file: Arc<StreamedFile>,
    claims: Vec<Claim>,
    /// Shares in place.
    done: usize,
    /// `[N][K]` per method; CP_r's stays empty when it is made from the summaries after.
    rows: [Vec<f64>; 3],
    mean: Vec<f64>,
    var: Vec<f64>,
    /// The share the job reads itself, while it does.
    own: Option<Own>,
    /// Class probabilities `[N][K]`, when a baseline is on (`None` otherwise).
    probs: Option<Vec<f64>>,
    /// The reading asked for.
    asked: ScoresAre,
    /// The reading shares are scored with now: the one asked, or logits when shares are read
    /// again under `auto`.
    reading: ScoresAre,
    /// Under `auto`: the rows every share saw, merged.
    seen: Detector,
    /// Under `auto`: shares some of whose items' probabilities were taken as given (their rows
    /// were all probabilities).
    as_given: Vec<bool>,
}

/// A share the job reads itself.
#[derive(Debug)]
struct Own {
    share: usize,
    /// Its bytes, once read.
    bytes: Option<Vec<u8>>,
    /// Its items scored so far.
    next: usize,
}

impl Pass {
    /// A pass scoring `file` with `opts`, and the items' class probabilities when `baselines`.
    pub(in crate::analysis) fn new(file: Arc<StreamedFile>, opts: &ScoreOptions, baselines: bool) -> Self {
        let (n, _, k) = file.layout.shape();
        let full = || vec![f64::NAN; n * k];
        let cp_r = if rvalues_per_item(opts) { full() } else { Vec::new() };
        Pass {
            claims: vec![Claim::Free; file.shares()],
            done: 0,
            rows: [full(), full(), cp_r],
            mean: full(),
            var: full(),
            own: None,
            probs: baselines.then(full),
            asked: opts.scores_are,
            reading: opts.scores_are,
            seen: Detector::default(),
            as_given: vec![false; file.shares()],
            file,
        }
    }

    /// The options shares are scored with: `opts` with the pass's reading.
    fn options(&self, opts: &ScoreOptions) -> ScoreOptions {
        ScoreOptions { scores_are: self.reading, ..*opts }
    }

    /// Whether a baseline is on (the shares carry class probabilities).
    fn baselines(&self) -> bool {
        self.probs.is_some()
    }

    /// The fraction of the file's shares in place.
    pub(in crate::analysis) fn fraction(&self) -> f64 {
        self.done as f64 / self.claims.len().max(1) as f64
    }

    /// Bytes of the file read and scored so far, and in all.
    pub(in crate::analysis) fn bytes(&self) -> (u64, u64) {
        let all = self.file.layout.data_bytes();
        ((self.fraction() * all as f64) as u64, all)
    }

    /// Puts rows of the items `first..`, of share `s`, in place.
    fn place(&mut self, s: usize, first: usize, r: BlockRows) -> Result<()> {
        let k = self.file.layout.shape().2;
        let at = first * k..first * k + r.cp.len();
        if at.end > self.rows[0].len() {
            return Err(internal("a share's rows lie beyond the file"));
        }
        self.rows[0][at.clone()].copy_from_slice(&r.cp);
        self.rows[1][at.clone()].copy_from_slice(&r.cp_avg);
        if let (Some(cp_r), Some(out)) = (r.cp_r, self.rows[CP_R].get_mut(at.clone())) {
            out.copy_from_slice(&cp_r);
        }
        self.mean[at.clone()].copy_from_slice(&r.summaries.mean);
        self.var[at.clone()].copy_from_slice(&r.summaries.var);
        match (r.probabilities, self.probs.as_mut()) {
            (Some(p), Some(out)) if p.probs.len() == at.len() => {
                out[at].copy_from_slice(&p.probs);
                if self.asked == ScoresAre::Auto {
                    self.seen.merge(p.seen);
                    self.as_given[s] |= p.read_as == ScoresAre::Probabilities;
                }
                Ok(())
            }
            (None, None) => Ok(()),
            _ => Err(internal("a share's class probabilities do not fit")),
        }
    }

    /// Under `auto`, once every share is in: the shares whose probabilities were taken as given
    /// while the file's are read with a softmax, handed out again to be read as logits. Whether
    /// there were any.
    fn read_again(&mut self) -> bool {
        let softmax = self.seen.choice() != ScoresAre::Probabilities;
        if self.asked != ScoresAre::Auto || !softmax || !self.as_given.contains(&true) {
            return false;
        }
        for (claim, given) in self.claims.iter_mut().zip(self.as_given.iter_mut()) {
            if std::mem::take(given) {
                *claim = Claim::Free;
                self.done -= 1;
            }
        }
        self.reading = ScoresAre::Logits;
        true
    }

    /// The class probabilities sorted once, with the reading made, when a baseline is on.
    fn ranked(&mut self) -> Result<Option<ReadProbabilities>> {
        let Some(probs) = self.probs.take() else { return Ok(None) };
        let read_as = if self.asked == ScoresAre::Auto { self.seen.choice() } else { self.asked };
        let ranked = Arc::new(Ranked::of(&probs, self.file.layout.shape().2, 1)?);
        Ok(Some(ReadProbabilities { asked: self.asked, read_as, ranked }))
    }

    /// The rows made, as the part's: sorted rows per method (CP_r's `None` when made later).
    fn into_rows(self) -> ([Option<Arc<ScoreRows>>; 3], Summaries) {
        let (n, m, k) = self.file.layout.shape();
        let [cp, cp_avg, cp_r] = self.rows;
        let rows = [Some(ScoreRows::new(cp, k)), Some(ScoreRows::new(cp_avg, k)), {
            (!cp_r.is_empty()).then(|| ScoreRows::new(cp_r, k))
        }];
        (rows, Summaries { n, k, m, mean: self.mean, var: self.var })
    }
}

impl AnalysisJob {
    /// Starts a streamed file's analysis: from the rows kept for these options, or a pass.
    pub(in crate::analysis) fn load_streamed(&mut self, file: &Arc<StreamedFile>) -> Result<()> {
        let (baselines, opts) = (self.baseline.any(), self.inputs.opts());
        match file.scored_for(opts, baselines) {
            Some(s) => {
                let [cp, cp_avg, cp_r] = s.rows.clone();
                let pooled = opts.kind == RvalueKind::Pooled;
                let ranked = s.ranked.clone().filter(|_| baselines);
                self.streamed_part(file, [cp, cp_avg, cp_r.filter(|_| !pooled)], s.summaries.clone(), ranked)
            }
            None => {
                file.forget();
                self.read_file = true;
                self.pass = Some(Pass::new(file.clone(), opts, baselines));
                self.phase = Phase::Pass;
                Ok(())
            }
        }
    }

    /// The part of a streamed file from its rows (and its sorted class probabilities, for the
    /// baselines), and the phase after it.
    fn streamed_part(
        &mut self,
        file: &Arc<StreamedFile>,
        rows: [Option<Arc<ScoreRows>>; 3],
        summaries: Arc<Summaries>,
        ranked: Option<ReadProbabilities>,
    ) -> Result<()> {
        self.baseline.set_streamed(ranked);
        let n = file.layout.shape().0;
        let splits = self.inputs.controls().split_plan().splits(n)?;
        // Pooled CP_r has no rows: its splits are calibrated by the threads that read the file.
        let need_rvalues = rows[CP_R].is_none() && self.inputs.opts().kind != RvalueKind::Pooled;
        self.work.set_part(Part::streamed(file, splits, summaries, rows));
        self.phase = if need_rvalues {
            Phase::Scores { method: CP_R, next: 0 }
        } else {
            Phase::Calibrate { next: 0, method: 0 }
        };
        Ok(())
    }

    /// A pass step: scores a few items of the job's own share, if its bytes are in. Whether
    /// there was anything to do.
    pub(in crate::analysis) fn pass_step(&mut self) -> Result<bool> {
        let pass = self.pass.as_mut().ok_or_else(|| internal("no pass in the pass phase"))?;
        let Some(Own { share, bytes: Some(raw), next }) = pass.own.as_ref() else { return Ok(false) };
        let (share, next) = (*share, *next);
        let layout = &pass.file.layout;
        let (items, (_, m, k)) = (pass.file.share(share), layout.shape());
        let opts = self.inputs.opts();
        let end = (next + (self.inputs.budget() / item_cost(opts.kind, m, k)).max(1)).min(items.len());
        let size = layout.item_bytes();
        let (opts, baselines) = (pass.options(opts), pass.baselines());
        let rows = score_share(layout, items.start + next, &raw[next * size..end * size], &opts, baselines)?;
        pass.place(share, items.start + next, rows)?;
        if end < items.len() {
            pass.own.as_mut().ok_or_else(|| internal("the job's share is gone"))?.next = end;
            return Ok(true);
        }
        pass.own = None;
        self.share_done(share)?;
        Ok(true)
    }

    /// A share the job reads itself: its index and bytes, claimed now; `None` outside a pass,
    /// while one is being read or scored, or when none is left.
    pub fn wants_bytes(&mut self) -> Option<(usize, Range<u64>)> {
        let pass = self.pass.as_mut().filter(|p| p.own.is_none())?;
        let s = pass.claims.iter().position(|&c| c == Claim::Free)?;
        pass.claims[s] = Claim::Job;
        pass.own = Some(Own { share: s, bytes: None, next: 0 });
        Some((s, pass.file.layout.bytes_of(pass.file.share(s))))
    }

    /// The bytes of share `s`, asked for by [`AnalysisJob::wants_bytes`].
    pub fn supply_bytes(&mut self, s: usize, bytes: Vec<u8>) -> Result<()> {
        let pass = self.pass.as_mut().ok_or_else(|| Error::invalid("no file is being read"))?;
        let want = pass.file.layout.bytes_of(pass.file.share(s));
        match pass.own.as_mut() {
            Some(Own { share, bytes: got @ None, .. })
                if *share == s && bytes.len() as u64 == want.end - want.start =>
            {
                *got = Some(bytes);
                Ok(())
            }
            _ => Err(Error::invalid(format!("share {s} was not asked for, or its bytes are short"))),
        }
    }

    /// The next share nobody reads yet, for another thread.
    pub(in crate::analysis) fn hand_out_share(&mut self) -> Option<super::super::HandOut> {
        let pass = self.pass.as_mut()?;
        let s = pass.claims.iter().position(|&c| c == Claim::Free)?;
        pass.claims[s] = Claim::Out;
        let mut controls = self.inputs.controls().clone();
        controls.score.scores_are = pass.reading;
        let query = UrlState::with_controls(controls).to_query();
        let request = share_request(s, pass.file.share(s), &query);
        Some(super::super::HandOut { part: s, request, work: super::super::Work::Share })
    }

    /// Takes a share's rows, as [`crate::analysis::ShareRequest::score`] gave them.
    pub(in crate::analysis) fn supply_share(&mut self, s: usize, bytes: &[u8]) -> Result<()> {
        let pass = self.pass.as_mut().ok_or_else(|| Error::invalid("no file is being read"))?;
        let (_, m, k) = pass.file.layout.shape();
        let (index, rows) = read_block_rows(bytes, m, k)?;
        let fits = rows.summaries.n == pass.file.share(s).len()
            && rows.cp_r.is_some() == rvalues_per_item(self.inputs.opts())
            && rows.probabilities.is_some() == pass.baselines();
        if index != s || pass.claims.get(s) != Some(&Claim::Out) || !fits {
            return Err(Error::invalid(format!(
                "share {s} was not handed out, is back already, or is garbled"
            )));
        }
        pass.place(s, pass.file.share(s).start, rows)?;
        self.share_done(s)
    }

    /// Gives share `s` back (its thread failed).
    pub(in crate::analysis) fn hand_back_share(&mut self, s: usize) {
        if let Some(c @ Claim::Out) = self.pass.as_mut().and_then(|p| p.claims.get_mut(s)) {
            *c = Claim::Free;
        }
    }

    /// Share `s` is in place; after the last, the part is made from the rows.
    fn share_done(&mut self, s: usize) -> Result<()> {
        let pass = self.pass.as_mut().ok_or_else(|| internal("no pass"))?;
        pass.claims[s] = Claim::Job;
        pass.done += 1;
        if pass.done < pass.claims.len() || pass.read_again() {
            return Ok(());
        }
        let mut pass = self.pass.take().ok_or_else(|| internal("no pass"))?;
        let file = pass.file.clone();
        let ranked = pass.ranked()?;
        let (rows, summaries) = pass.into_rows();
        self.streamed_part(&file, rows, Arc::new(summaries), ranked)
    }

    /// Keeps a streamed part's rows with its file, for the next analysis with these options.
    pub(in crate::analysis) fn keep_rows(&self, part: &Part) {
        let (Source::Streamed(file), [Some(_), Some(_), c]) = (self.inputs.source(), part.all_rows()) else {
            return;
        };
        // Rows that came from the file's kept ones stay as they were (another kind's CP_r too).
        let (baselines, opts) = (self.baseline.any(), *self.inputs.opts());
        if (c.is_none() && opts.kind != RvalueKind::Pooled) || file.scored_for(&opts, baselines).is_some() {
            return;
        }
        let (rows, summaries, ranked) =
            (part.all_rows().clone(), part.summaries().clone(), self.baseline.streamed().cloned());
        file.keep(Arc::new(Scored { opts, rows, summaries, ranked }));
    }
}
