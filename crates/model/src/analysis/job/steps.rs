//! The job's steps: loading a part, its split-independent scores, its calibrations, and
//! recording finished parts in order.

use std::sync::Arc;

use super::{AnalysisJob, Claim, Phase};
use crate::analysis::{
    highest_threshold, internal, item_cost, pool_split_list, pooled_items_per_step, LabelInfo, Part,
    PartTensor, Source, SweepCurves, CP_R,
};
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::conformal::{
    self, item_scores, pooled_hyper, Calibrated, Coverage, Method, Need, PooledBuilder, Prior, RvalueKind,
    ScoreOptions, ScoreRows, Split,
};
use rvalue_core::eb::Hyper;
use rvalue_core::rvalue::nonparametric::nonparametric_from_order;
use rvalue_core::rvalue::{DrawOrder, HyperChoice};
use rvalue_core::tensor::Summaries;
use rvalue_core::toy::{self};
use rvalue_core::{Error, Result};

impl AnalysisJob {
    pub(in crate::analysis) fn load(&mut self) -> Result<()> {
        if let Source::Streamed(f) = &self.source {
            return self.load_streamed(&f.clone());
        }
        let need_order = self.opts.kind != RvalueKind::Parametric;
        let (tensor, labels, splits) = match &self.source {
            Source::Toy(p) => {
                let (t, y) = toy::simulate(p, self.part_index)?;
                // Repeat r's tie order is split r of the toy's seed: independent across repeats.
                let split = Split::new((0..p.n_cal).collect(), (p.n_cal..p.n()).collect())
                    .keyed(p.seed, self.part_index as u64);
                (PartTensor::Owned(Arc::new(t)), y, vec![split])
            }
            Source::Data(d) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = self.controls.split_plan().splits(d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
            Source::Pool(d, pool) => {
                let labels = d.labels.clone().unwrap_or_default();
                let splits = pool_split_list(&self.controls, pool, d.scores.n())?;
                (PartTensor::Shared(d.clone()), labels, splits)
            }
            Source::Streamed(_) => return Err(internal("a streamed file is loaded by its pass")),
        };
        let t = tensor.get()?;
        // A pool's pooled CP_r ranks its test items as the command line's streamed path does,
        // without draw orders (the same results, bit for bit).
        let need_order = need_order && !matches!(self.source, Source::Pool(..));
        let order = if need_order { Some(DrawOrder::of(t)?) } else { None };
        let summaries = Arc::new(Summaries::of(t));
        let only = conformal::needed_candidates(&labels, &splits);
        self.part = Some(Part {
            tensor,
            labels,
            summaries,
            order,
            splits,
            scores: [None, None, None],
            only,
            bound: None,
            rows: [None, None, None],
            units: None,
        });
        self.phase = Phase::Scores { method: 0, next: 0 };
        self.split_next = 0;
        Ok(())
    }

    /// Item scores: CP and CP_avg in one step each, CP_r's r-values in chunks of items.
    pub(in crate::analysis) fn scores(&mut self, method: usize, next: usize) -> Result<()> {
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the scores phase"))?;
        let (n, draws, k) = part.shape();
        let m = Method::PAPER[method];
        let advance = |method: usize| {
            if method + 1 < 3 {
                Phase::Scores { method: method + 1, next: 0 }
            } else {
                Phase::Calibrate { next: 0, method: 0 }
            }
        };
        if m != Method::CpR || self.opts.kind == RvalueKind::Pooled {
            part.scores[method] =
                item_scores(part.tensor.get()?, &part.summaries, part.order.as_ref(), m, &self.opts)?;
            self.phase = advance(method);
            return Ok(());
        }
        let mut end = (next + (self.budget / item_cost(self.opts.kind, draws, k)).max(1)).min(n);
        let out = part.scores[method].get_or_insert_with(|| Vec::with_capacity(n * k));
        match self.opts.kind {
            RvalueKind::Nonparametric => {
                let order =
                    part.order.as_ref().ok_or_else(|| internal("no draw orders for a rank-based r-value"))?;
                for i in next..end {
                    out.extend(nonparametric_from_order(order, i));
                }
            }
            _ => {
                // As `conformal::item_scores`, one chunk of items at a time.
                let hyper = chunk_hyper(&self.opts, &mut self.part_hyper, &part.summaries, next)?;
                let n_cal = bounded_n_cal(&self.source, self.part_index, self.full_rows);
                if let Some(c) = n_cal.filter(|&c| next < c) {
                    end = end.min(c);
                }
                let need = n_cal
                    .filter(|&c| next >= c)
                    .map(|c| *part.bound.get_or_insert_with(|| highest_threshold(out, k, &part.labels, c)));
                let only = &part.only;
                conformal::parametric_scores(
                    &part.summaries,
                    &self.opts,
                    hyper,
                    next..end,
                    |i| match (only[i], need) {
                        (None, Some(bound)) => Need::UpTo(bound),
                        (only, _) => only.into(),
                    },
                    out,
                )?;
            }
        }
        self.phase = if end < n { Phase::Scores { method, next: end } } else { advance(method) };
        Ok(())
    }

    /// Calibrates one method on one split and adds the split to that method's α sweep.
    pub(in crate::analysis) fn calibrate(&mut self, next: usize, mi: usize) -> Result<()> {
        let part = self.part.as_mut().ok_or_else(|| internal("no part loaded in the calibration phase"))?;
        let k = part.shape().2;
        // Rows several calibrations share are sorted once; the scores move into them.
        let shared = part.splits.len() > 1 || !matches!(self.source, Source::Toy(_) | Source::Data(_));
        if shared && part.rows[mi].is_none() {
            part.rows[mi] = part.scores[mi].take().map(|s| ScoreRows::new(s, k));
        }
        let split = &part.splits[next];
        let per_class = self.opts.coverage == Coverage::PerClass;
        let c = match (&part.rows[mi], &part.scores[mi]) {
            (Some(rows), _) if matches!(self.source, Source::Pool(..)) => {
                let Source::Pool(_, pool) = &self.source else { return Err(internal("not a pool")) };
                let cal = match &mut self.unit_scores[mi] {
                    Some(c) => c,
                    slot => slot.insert(pool.scores(Method::PAPER[mi], &self.opts)?),
                };
                Calibrated::of_units_with(rows, k, &part.labels, split, pool_classes(pool, per_class)?, |j| {
                    cal[j]
                })
            }
            (Some(rows), _) => Calibrated::shared_with(rows, k, &part.labels, split, self.opts.coverage),
            (None, Some(s)) => Calibrated::fixed_with(s, k, &part.labels, split, self.opts.coverage),
            (None, None) => {
                let t = part.tensor.get()?;
                // Pooled CP_r: the greedy per test item is the heavy part; a chunk per step.
                let b = match (self.pooled.as_mut(), &self.source) {
                    (Some(b), _) => b,
                    (None, Source::Pool(_, pool)) => {
                        let b = PooledBuilder::of_true_draws(pool, k, split, self.opts.ties)?;
                        let b = match pool_classes(pool, per_class)? {
                            Some(classes) => b.by_class(classes, split),
                            None => b,
                        };
                        self.pooled.insert(b)
                    }
                    (None, _) => {
                        let b = PooledBuilder::new(t, &part.labels, split, self.opts.ties)?;
                        self.pooled.insert(if per_class { b.by_class(&part.labels, split) } else { b })
                    }
                };
                let items = pooled_items_per_step(self.budget, t, split);
                if !b.step(t, part.order.as_ref(), split, items) {
                    return Ok(());
                }
                let b = self.pooled.take().ok_or_else(|| internal("the pooled builder is gone"))?;
                b.finish(&part.labels, split)
            }
        };
        self.record(next, mi, c);
        Ok(())
    }

    /// Keeps method `mi`'s calibration of split `next` and moves on to the next method, split,
    /// part, or the end.
    pub(in crate::analysis) fn record(&mut self, next: usize, mi: usize, c: Calibrated) {
        // The part next in order is recorded as it goes (a score file's hundred splits would
        // otherwise all be summed in its last step). A part started ahead of its turn is kept
        // whole, even when its turn comes meanwhile (the part before it supplied).
        let whole = self.alone || self.part_index != self.recorded || !self.current.is_empty();
        if mi == CP_R && !self.split_claims.is_empty() {
            self.by_split.insert(next, vec![c]);
            self.take_splits_in_order();
        } else if whole {
            self.current.push(c);
        } else {
            self.take_in(mi, c);
        }
        match self.next_in_part(next, mi) {
            Some(phase) => self.phase = phase,
            // Splits handed out, or (a streamed file's) not yet.
            None if self.split_claims.iter().any(|&c| c != Claim::Job) => self.phase = Phase::Waiting,
            None => self.end_part(whole),
        }
    }

    /// The calibration after method `mi` of split `next`: the next method, CP_r of a split
    /// handed back after the job passed it, or the next split; `None` at the part's end.
    pub(in crate::analysis) fn next_in_part(&mut self, next: usize, mi: usize) -> Option<Phase> {
        if mi == 0 {
            return Some(Phase::Calibrate { next, method: 1 });
        }
        if mi == 1 {
            self.split_next = next + 1;
            if self.claim_split(next) {
                return Some(Phase::Calibrate { next, method: CP_R });
            }
        }
        let free = |r: &usize| self.split_claims.get(*r) == Some(&Claim::Free) && !self.streamed_pooled();
        if let Some(r) = (0..self.split_next).find(free) {
            self.split_claims[r] = Claim::Job;
            return Some(Phase::Calibrate { next: r, method: CP_R });
        }
        let splits = self.part.as_ref().map_or(0, |p| p.splits.len());
        (self.split_next < splits).then_some(Phase::Calibrate { next: self.split_next, method: 0 })
    }

    /// Whether the job calibrates CP_r on split `r` itself (no other thread has it).
    pub(in crate::analysis) fn claim_split(&mut self, r: usize) -> bool {
        if self.streamed_pooled() {
            return false;
        }
        match self.split_claims.get_mut(r) {
            None => true,
            Some(c @ Claim::Free) => {
                *c = Claim::Job;
                true
            }
            Some(c) => {
                *c == Claim::Job && !self.by_split.contains_key(&r) && self.calibrated[CP_R].len() <= r
            }
        }
    }

    /// Records pooled CP_r's splits that are next in split order.
    pub(in crate::analysis) fn take_splits_in_order(&mut self) {
        while let Some(c) = self.by_split.remove(&self.calibrated[CP_R].len()) {
            c.into_iter().for_each(|c| self.take_in(CP_R, c));
        }
    }

    /// The current part is calibrated: keeps it, and moves to the next part or the end.
    pub(in crate::analysis) fn end_part(&mut self, whole: bool) {
        let done = self.part.take();
        if let Some(p) = &done {
            self.keep_rows(p);
        }
        if self.part_index == 0 {
            self.first_part = done;
        }
        if whole {
            self.finished.insert(self.part_index, std::mem::take(&mut self.current));
        } else {
            self.recorded += 1;
        }
        if self.alone {
            self.phase = Phase::Done;
            return;
        }
        self.flush();
        self.next_part();
    }

    /// Records the finished parts that are next in part order, so that every sum over parts
    /// adds them in the same order wherever they were computed.
    pub(in crate::analysis) fn flush(&mut self) {
        while let Some(out) = self.finished.remove(&self.recorded) {
            for (j, c) in out.into_iter().enumerate() {
                self.take_in(j % 3, c);
            }
            self.recorded += 1;
        }
    }

    /// Adds method `mi`'s calibration of the next split in order to the results and sums.
    pub(in crate::analysis) fn take_in(&mut self, mi: usize, c: Calibrated) {
        let info = LabelInfo::of(&c);
        Self::add_to_sweeps(&mut self.sweeps, mi, &c);
        self.calibrated[mi].push(c);
        self.label_info[mi].push(info);
    }

    /// Moves to the first part nobody computes yet; else waits for parts handed out; else ends.
    pub(in crate::analysis) fn next_part(&mut self) {
        if let Some(p) = self.claims.iter().position(|&c| c == Claim::Free) {
            self.claims[p] = Claim::Job;
            self.part_index = p;
            self.phase = Phase::Load;
        } else if self.recorded < self.parts_total {
            self.phase = Phase::Waiting;
        } else {
            self.after_parts();
        }
    }

    /// Adds one split of one method to the coverage and size sums (both never-empty settings),
    /// in split order exactly as `conformal::sweep` sums them.
    pub(in crate::analysis) fn add_to_sweeps(sweeps: &mut [SweepCurves; 2], mi: usize, c: &Calibrated) {
        for sw in sweeps.iter_mut() {
            let per = c.sweep(&sw.alphas, sw.never_empty);
            for (j, (cov, size)) in per.into_iter().enumerate() {
                sw.coverage[mi][j] += cov;
                sw.size[mi][j] += size;
            }
        }
    }

    /// Splits of CP recorded so far (for tests: a score file's are recorded one by one).
    #[cfg(test)]
    pub(crate) fn recorded_splits(&self) -> usize {
        self.calibrated[0].len()
    }
}

/// A pool's units' classes when a threshold per class is asked for (`None`: marginal); a pool
/// without them cannot have one.
fn pool_classes(pool: &TrueDraws, per_class: bool) -> Result<Option<&[usize]>> {
    match (per_class, pool.classes()) {
        (false, _) => Ok(None),
        (true, Some(c)) => Ok(Some(c)),
        (true, None) => Err(Error::invalid(
            "per-class coverage needs each calibration unit's class, which a pool of true-label \
             draws does not carry: choose marginal coverage for this pool",
        )),
    }
}

/// The prior for a chunk of CP_r's items: a pooled one is estimated on the part's first chunk
/// and kept, so every chunk of the part shares it.
fn chunk_hyper(
    opts: &ScoreOptions,
    part_hyper: &mut Option<Hyper>,
    summaries: &Summaries,
    next: usize,
) -> Result<HyperChoice> {
    Ok(match opts.prior {
        Prior::PerItem => HyperChoice::Estimate,
        Prior::Pooled => HyperChoice::Fixed(match *part_hyper {
            Some(h) if next > 0 => h,
            _ => *part_hyper.insert(pooled_hyper(summaries, opts.variance)?),
        }),
    })
}

/// A toy repeat other than the one on show: its test items, after its n_cal calibration items,
/// need exact r-values only up to the highest threshold an α in the slider's range can pick,
/// known once the calibration scores are in (a chunk stops there). `None` for every other part.
fn bounded_n_cal(source: &Source, part_index: usize, full_rows: bool) -> Option<usize> {
    match source {
        Source::Toy(p) if part_index > 0 && !full_rows => Some(p.n_cal),
        _ => None,
    }
}
