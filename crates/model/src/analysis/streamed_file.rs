//! A score file too large to hold ([`Source::Streamed`](super::Source::Streamed)): the page reads
//! it with `File.slice`, a share of items at a time, and never holds it whole. The job hands the
//! shares out like toy repeats; whoever reads a share (a worker, or the page for the job's own)
//! scores it with [`ShareRequest::score`] or [`score_share`] (the core's `block_rows`, the in-memory
//! path's bits), and the job puts the rows in place ([`super::job::pass`]). The rows are kept
//! with the file ([`StreamedFile::scored_for`]): α, the splits and the seed re-use them; a score
//! option (the r-value kind, CP's draw, …) reads the file again. With a baseline on, a share
//! also carries its items' class probabilities, which the job sorts once and keeps with the
//! rows: the baselines' parameters re-use them, another reading reads the file again.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::hand_out::split_request;
use rvalue_core::conformal::streamed::{block_class_probabilities, block_rows, check_labels, BlockRows};
use rvalue_core::conformal::{write_block_rows, Baseline, Ranked, RvalueKind, ScoreOptions, ScoreRows};
use rvalue_core::io::BlockLayout;
use rvalue_core::probability::ScoresAre;
use rvalue_core::tensor::Summaries;
use rvalue_core::{Error, Result};

/// About how many bytes of the file a share holds: one read, and a few steps of the page's.
pub const SHARE_BYTES: usize = 8 << 20;

/// A score file read a block at a time: its name, where its items lie, and its labels.
#[derive(Debug)]
pub struct StreamedFile {
    pub name: String,
    pub layout: BlockLayout,
    pub labels: Vec<usize>,
    /// Items per share (about [`SHARE_BYTES`] of the file).
    share_items: usize,
    /// About the bytes a group of pooled splits holds in a pass ([`super::GROUP_BYTES`]).
    group_bytes: usize,
    /// The rows of the last analysis, for the next with the same score options.
    scored: Mutex<Option<Arc<Scored>>>,
}

/// A streamed file's split-independent rows for one set of score options.
#[derive(Debug)]
pub(in crate::analysis) struct Scored {
    pub(in crate::analysis) opts: ScoreOptions,
    /// CP, CP_avg and CP_r (none for pooled CP_r, calibrated per split).
    pub(in crate::analysis) rows: [Option<Arc<ScoreRows>>; 3],
    pub(in crate::analysis) summaries: Arc<Summaries>,
    /// The items' class probabilities sorted, when a baseline was on.
    pub(in crate::analysis) ranked: Option<ReadProbabilities>,
}

/// A streamed file's class probabilities, sorted once for every baseline and split.
#[derive(Debug, Clone)]
pub(in crate::analysis) struct ReadProbabilities {
    /// The reading asked for.
    pub(in crate::analysis) asked: ScoresAre,
    /// The reading made (`auto` decided over the whole file).
    pub(in crate::analysis) read_as: ScoresAre,
    pub(in crate::analysis) ranked: Arc<Ranked>,
}

impl ReadProbabilities {
    /// Whether these serve the reading `asked`: the one asked before, or the one `auto` chose
    /// (which every row passed, as the explicit reading's check asks).
    fn serves(&self, asked: ScoresAre) -> bool {
        self.asked == asked || self.read_as == asked
    }
}

/// `opts` with what the rows of CP, CP_avg and CP_r do not depend on (the baselines' reading
/// and parameters) set aside, to compare kept rows' options with.
fn rows_options(opts: &ScoreOptions) -> ScoreOptions {
    ScoreOptions { scores_are: ScoresAre::Auto, baseline: Baseline::default(), ..*opts }
}

impl StreamedFile {
    /// A file of `layout`'s shape with `labels`, checked against its `K`.
    pub fn new(name: String, layout: BlockLayout, labels: Vec<usize>) -> Result<Self> {
        let (n, _, k) = layout.shape();
        check_labels(&labels, n, k)?;
        let share_items = (SHARE_BYTES / layout.item_bytes().max(1)).max(1);
        let group_bytes = super::GROUP_BYTES;
        Ok(StreamedFile { name, layout, labels, share_items, group_bytes, scored: Mutex::new(None) })
    }

    /// The same file with pooled splits grouped within `bytes` (tests: so that a few small
    /// splits make several groups).
    pub fn with_group_bytes(mut self, bytes: usize) -> Self {
        self.group_bytes = bytes;
        self
    }

    /// About the bytes a group of pooled splits holds in a pass.
    pub fn group_bytes(&self) -> usize {
        self.group_bytes
    }

    /// The same file read `items` items a share (tests: so that a small file has many shares).
    pub fn with_share_items(mut self, items: usize) -> Self {
        self.share_items = items.max(1);
        self
    }

    /// Items per share: about [`SHARE_BYTES`] of the file (at least one item).
    pub fn share_items(&self) -> usize {
        self.share_items
    }

    /// The items of share `s`.
    pub fn share(&self, s: usize) -> Range<usize> {
        let (n, per) = (self.layout.shape().0, self.share_items());
        (s * per).min(n)..((s + 1) * per).min(n)
    }

    /// Shares in all.
    pub fn shares(&self) -> usize {
        self.layout.shape().0.div_ceil(self.share_items())
    }

    /// The rows kept that serve `opts`, if the last analysis made them: made with `opts` (but
    /// for the baselines' reading and parameters), or, for pooled CP_r (which has no rows), any
    /// with CP's draw (CP and CP_avg depend on no other option); with `baselines`, they must
    /// hold class probabilities of `opts`'s reading too.
    pub(in crate::analysis) fn scored_for(
        &self,
        opts: &ScoreOptions,
        baselines: bool,
    ) -> Option<Arc<Scored>> {
        let kept = self.scored.lock().ok()?;
        let serves = |s: &&Arc<Scored>| {
            let rows = rows_options(&s.opts) == rows_options(opts)
                || opts.kind == RvalueKind::Pooled && s.opts.cp_draw == opts.cp_draw;
            rows && (!baselines || s.ranked.as_ref().is_some_and(|r| r.serves(opts.scores_are)))
        };
        kept.as_ref().filter(serves).cloned()
    }

    /// Keeps `scored` for the next analysis (replacing the rows kept before, which would
    /// otherwise hold their memory).
    pub(in crate::analysis) fn keep(&self, scored: Arc<Scored>) {
        if let Ok(mut kept) = self.scored.lock() {
            *kept = Some(scored);
        }
    }

    /// Lets the kept rows go (before a pass that makes others, so both are never held).
    pub(in crate::analysis) fn forget(&self) {
        if let Ok(mut kept) = self.scored.lock() {
            *kept = None;
        }
    }
}

/// The request for share `s`, items `items`, of a file scored with the settings of `query` (a
/// link's): `"<s>:<first>-<end>\n<query>"`.
pub(in crate::analysis) fn share_request(s: usize, items: Range<usize>, query: &str) -> String {
    format!("{s}:{}-{}\n{query}", items.start, items.end)
}

/// A share's request, read: which share, its items, and the options they are scored with.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareRequest {
    pub share: usize,
    pub items: Range<usize>,
    opts: ScoreOptions,
    /// Whether a baseline is on: the items' class probabilities are made too.
    baselines: bool,
}

impl ShareRequest {
    /// Reads a request of [`share_request`]'s form for the file of `layout`, refusing items
    /// beyond it.
    pub fn parse(layout: &BlockLayout, request: &str) -> Result<ShareRequest> {
        let bad = || Error::invalid("a share's request must be '<share>:<first>-<end>\n<settings>'");
        let (head, controls) = split_request(request)?;
        let (s, items) = head.split_once(':').ok_or_else(bad)?;
        let (first, end) = items.split_once('-').ok_or_else(bad)?;
        let number = |x: &str| x.parse::<usize>().map_err(|_| bad());
        let (share, first, end) = (number(s)?, number(first)?, number(end)?);
        if first >= end || end > layout.shape().0 {
            return Err(bad());
        }
        let baselines = controls.methods().iter().any(|m| m.is_baseline());
        Ok(ShareRequest { share, items: first..end, opts: controls.score_options(), baselines })
    }

    /// The bytes of the file the share's items lie in.
    pub fn bytes(&self, layout: &BlockLayout) -> Range<u64> {
        layout.bytes_of(self.items.clone())
    }

    /// The share's rows from its bytes `raw`, for
    /// [`AnalysisJob::supply_part`](super::AnalysisJob::supply_part).
    pub fn score(&self, layout: &BlockLayout, raw: &[u8]) -> Result<Vec<u8>> {
        let rows = score_share(layout, self.items.start, raw, &self.opts, self.baselines)?;
        Ok(write_block_rows(self.share, &rows))
    }
}

/// Rows of the items `first..` whose bytes are `raw`, with their class probabilities under
/// `opts`'s reading when `baselines`.
pub(in crate::analysis) fn score_share(
    layout: &BlockLayout,
    first: usize,
    raw: &[u8],
    opts: &ScoreOptions,
    baselines: bool,
) -> Result<BlockRows> {
    let block = layout.block(first, raw)?;
    let mut rows = block_rows(&block, opts, 1)?;
    if baselines {
        rows.probabilities = Some(block_class_probabilities(&block, first, opts.scores_are, 1)?);
    }
    Ok(rows)
}
