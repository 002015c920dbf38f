//! What the panels read from an [`Analysis`] at one α: the summary table (panel 6) and the
//! item inspector (panel 7).

use std::ops::Range;

use super::{finite, internal, Analysis, PartTensor, CP_R};
pub use rvalue_core::conformal::Conditional;
use rvalue_core::conformal::{self, check_alpha, Coverage, Method, SplitMetrics, SplitTallies, Summary};
use rvalue_core::rvalue::DrawOrder;
use rvalue_core::rvalue::Workspace;
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

/// CP_avg's place in the methods (its positions are the difficulty ranks).
const CP_AVG: usize = 1;

/// One row of the summary table (panel 6) at one α.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub method: Method,
    pub coverage_mean: f64,
    pub coverage_sd: f64,
    pub size_mean: f64,
    pub size_sd: f64,
    /// Mean 0-based position of the true label in its set; `None` when no set holds it.
    pub position_mean: Option<f64>,
    pub empty_rate: f64,
    pub splits: usize,
    /// `histogram[s]` = number of test sets of size `s`, over all splits.
    pub size_histogram: Vec<u64>,
    /// The conditional metrics' means and sds over splits (the core's [`Summary`]'s; `NaN`
    /// where undefined in every split) and the tallies pooled over splits.
    pub conditional: Conditional,
    /// Per-class thresholds: the most classes in a split whose threshold was `+∞` (too few
    /// calibration items), which enter every set; `None` when marginal.
    pub unbounded_classes: Option<usize>,
}

/// Everything that depends on α (panels 3/4 markers, 6).
#[derive(Debug, Clone, PartialEq)]
pub struct AlphaView {
    pub alpha: f64,
    pub never_empty: bool,
    /// CP, CP_avg, CP_r.
    pub rows: Vec<SummaryRow>,
    /// `100 (size_CP − size_CPr) / size_CP` in %; `None` when CP's mean size is 0.
    pub reduction_vs_cp: Option<f64>,
    /// The same against CP_avg.
    pub reduction_vs_cp_avg: Option<f64>,
}

/// One candidate of an inspected item, in a method's order.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedCandidate {
    pub candidate: usize,
    /// The method's nonconformity score (CP: `−S[m0]`, CP_avg: `−X`, CP_r: the r-value).
    pub score: f64,
    pub in_set: bool,
    pub is_true: bool,
}

/// One method's view of an inspected item.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodRanking {
    pub method: Method,
    /// `q̂` at α for this item; `None` when it is ±∞ (every or no candidate passes).
    pub threshold: Option<f64>,
    /// All K candidates by score (ties to the lower candidate), the set's members first.
    pub ranked: Vec<RankedCandidate>,
}

/// The item inspector (panel 7): test item `t` of the first split (or repeat).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemView {
    /// Position among the first split's test items.
    pub test_index: usize,
    /// The item's index in the data set.
    pub item: usize,
    pub label: usize,
    /// CP, CP_avg, CP_r.
    pub methods: Vec<MethodRanking>,
}

impl Analysis {
    /// The core's [`Summary`] of a method at α in the slider's range ([`crate::ALPHA_RANGE`]):
    /// equal to `conformal::evaluate` on [`Analysis::calibrated`], in `O(log K)` per test item
    /// (the true label's score and position are α-independent and stored). Smaller α are
    /// refused: the toy repeats after the first keep exact r-values only up to the range's
    /// highest threshold (`+∞` above it). The conditional metrics' difficulty ranks are CP_avg's
    /// positions of the true labels plus one (its order is the mean score's), equal to
    /// `conformal::evaluate_with`'s with `difficulty_ranks` of the summaries' means.
    pub fn summary(&self, method: Method, alpha: f64, never_empty: bool) -> Result<Summary> {
        let (lo, hi) = crate::ALPHA_RANGE;
        if !(lo..=hi).contains(&alpha) {
            return Err(Error::invalid(format!("α = {alpha} is outside the explorer's range [{lo}, {hi}]")));
        }
        let Some(mi) = self.slot(method) else {
            return Err(Error::invalid(format!("{} is not on", method.label())));
        };
        let cals = &self.calibrated[mi];
        let mut per_split = Vec::with_capacity(cals.len());
        let mut sizes = Vec::with_capacity(cals.len());
        let mut tallies = Vec::with_capacity(cals.len());
        for (r, (c, info)) in cals.iter().zip(&self.label_info[mi]).enumerate() {
            let ranks = self.label_info[CP_AVG].get(r).map_or(&[][..], |i| &i.pos[..]);
            if c.coverage() == Coverage::PerClass {
                // A set per class is no prefix of the row: the core's per-item pass places the
                // true label in it.
                let (m, sz, tally) = c.measure(alpha, never_empty, &by_item(c, ranks));
                per_split.push(m);
                sizes.push(sz);
                tallies.push(tally);
                continue;
            }
            let mut tally = SplitTallies::new(self.k);
            let sz = c.sizes(alpha, never_empty);
            let per_item = c.per_item_threshold();
            let q0 = c.threshold(0, alpha);
            let (mut covered, mut pos_sum, mut empty, mut size) = (0usize, 0usize, 0usize, 0usize);
            for (t, &s) in sz.iter().enumerate() {
                size += s;
                empty += usize::from(s == 0);
                let q = if per_item { c.threshold(t, alpha) } else { q0 };
                let p = info.pos[t];
                let is_covered = info.score[t] <= q || (never_empty && p == 0);
                if is_covered {
                    covered += 1;
                    pos_sum += p as usize;
                }
                let rank = ranks.get(t).map_or(0, |&p| p + 1);
                tally.add(c.label(t), s, is_covered, rank);
            }
            let nt = sz.len() as f64;
            let metrics = SplitMetrics {
                coverage: covered as f64 / nt,
                size: size as f64 / nt,
                position: if covered > 0 { pos_sum as f64 / covered as f64 } else { f64::NAN },
                empty_rate: empty as f64 / nt,
                unbounded_classes: None,
            };
            per_split.push(metrics);
            sizes.push(sz);
            tallies.push(tally);
        }
        Ok(conformal::summarize_with(method, alpha, &per_split, &sizes, self.k, &tallies))
    }

    /// The summary table at α (panel 6).
    pub fn at_alpha(&self, alpha: f64, never_empty: bool) -> Result<AlphaView> {
        let mut rows = Vec::with_capacity(self.methods.len());
        for &m in &self.methods {
            let s = self.summary(m, alpha, never_empty)?;
            rows.push(SummaryRow {
                method: m,
                coverage_mean: s.coverage_mean,
                coverage_sd: s.coverage_sd,
                size_mean: s.size_mean,
                size_sd: s.size_sd,
                position_mean: finite(s.position_mean),
                empty_rate: s.empty_rate,
                splits: s.splits,
                conditional: s.conditional,
                unbounded_classes: s.unbounded_classes,
                size_histogram: s.size_histogram,
            });
        }
        let reduction = |base: f64, r: f64| if base > 0.0 { finite(100.0 * (base - r) / base) } else { None };
        let size_r = rows[2].size_mean;
        Ok(AlphaView {
            alpha,
            never_empty,
            reduction_vs_cp: reduction(rows[0].size_mean, size_r),
            reduction_vs_cp_avg: reduction(rows[1].size_mean, size_r),
            rows,
        })
    }

    /// Number of test items of the first split (the inspector's range).
    pub fn n_inspectable(&self) -> usize {
        self.calibrated[0].first().map_or(0, |c| c.test.len())
    }

    /// Pooled CP_r's r-values of item `item`: `Calibrated` keeps none, so this item's greedy
    /// runs again, once per item (an α move re-inspects the same item). A streamed file's item
    /// must have been read first ([`Analysis::item_bytes`]).
    fn pooled_rvalues(&self, item: usize) -> Result<Vec<f64>> {
        if let Some((_, r)) = self.inspected.borrow().as_ref().filter(|(i, _)| *i == item) {
            return Ok(r.clone());
        }
        let part = &self.first;
        if let PartTensor::Streamed(f) = part.data() {
            return Err(Error::invalid(format!("item {item} of {} has not been read yet", f.name)));
        }
        let r = self.greedy_of(part.tensor()?, item, self.key_offset, part.order())?;
        *self.inspected.borrow_mut() = Some((item, r.clone()));
        Ok(r)
    }

    /// The pooled greedy of item `at` of `t` against the first split's units, `t`'s item 0
    /// keyed (its tie order) as item `key`.
    fn greedy_of(
        &self,
        t: &ScoreTensor,
        at: usize,
        key: usize,
        order: Option<&DrawOrder>,
    ) -> Result<Vec<f64>> {
        let ps = self.pooled_first.as_ref().ok_or_else(|| internal("no pooled split kept for CP_r"))?;
        let mut work = Workspace::default();
        let got = ps.items_at(t, &[at], key, order, &mut work);
        Ok(got.first().map(|it| it.rvalues()).unwrap_or_default())
    }

    /// Pooled CP_r on a streamed file: item `item` of test item `t`, and its bytes in the
    /// file, when the inspector needs them read (its r-values are not at hand); `None` when it
    /// does not.
    pub fn item_bytes(&self, t: usize) -> Option<(usize, Range<u64>)> {
        let PartTensor::Streamed(f) = self.first.data() else { return None };
        let item = *self.calibrated[0].first()?.test.get(t)?;
        let known =
            self.first.has_rows(2) || self.inspected.borrow().as_ref().is_some_and(|(i, _)| *i == item);
        (!known).then(|| (item, f.layout.bytes_of(item..item + 1)))
    }

    /// Takes the bytes of item `item` that [`Analysis::item_bytes`] named, and runs its greedy.
    pub fn supply_item(&self, item: usize, bytes: &[u8]) -> Result<()> {
        let PartTensor::Streamed(f) = self.first.data() else {
            return Err(Error::invalid("the file is held: no item needs reading"));
        };
        if item >= self.n {
            return Err(Error::invalid(format!("item {item} does not exist (N = {})", self.n)));
        }
        let want = f.layout.bytes_of(item..item + 1);
        if bytes.len() as u64 != want.end - want.start {
            return Err(Error::invalid(format!("{} bytes are not item {item}'s", bytes.len())));
        }
        let block = f.layout.block(item, bytes)?;
        let r = self.greedy_of(&block, 0, self.key_offset + item, None)?;
        *self.inspected.borrow_mut() = Some((item, r));
        Ok(())
    }

    /// The item inspector (panel 7) for test item `t` of the first split at α.
    pub fn inspect(&self, t: usize, alpha: f64, never_empty: bool) -> Result<ItemView> {
        check_alpha(alpha)?;
        let nt = self.n_inspectable();
        if t >= nt {
            return Err(Error::invalid(format!("test item {t} does not exist (the split has {nt})")));
        }
        let part = &self.first;
        let item = self.calibrated[0][0].test[t];
        let label = part.labels()[item];
        let k = self.k;
        let mut methods = Vec::with_capacity(self.methods.len());
        for (mi, &m) in self.methods.iter().enumerate() {
            let cal = &self.calibrated[mi][0];
            let scores: Vec<f64> = match part.item_row(mi, item) {
                // A baseline's scores are its split's (their `u` is the split's).
                _ if m.is_baseline() => cal.row(t).into_owned(),
                Some(s) => s,
                None => self.pooled_rvalues(item)?,
            };
            let set = cal.set(t, alpha, never_empty);
            let mut order: Vec<usize> = (0..k).collect();
            // Ties go to the lower index, so the order is total and an unstable sort exact.
            order.sort_unstable_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
            // Members first, each side in that order (a never-empty fallback is the best
            // candidate, already first).
            let (members, others): (Vec<usize>, Vec<usize>) =
                order.into_iter().partition(|&c| set.contains(c));
            let ranked = members
                .into_iter()
                .chain(others)
                .map(|c| RankedCandidate {
                    candidate: c,
                    score: scores[c],
                    in_set: set.contains(c),
                    is_true: c == label,
                })
                .collect();
            methods.push(MethodRanking { method: m, threshold: finite(cal.threshold(t, alpha)), ranked });
        }
        Ok(ItemView { test_index: t, item, label, methods })
    }
}

/// Difficulty ranks (1-based) by data-set item, as `Calibrated::measure` takes them, from the
/// 0-based ranks by test position `ranks` (empty: unknown).
fn by_item(c: &rvalue_core::conformal::Calibrated, ranks: &[u32]) -> Vec<u32> {
    if ranks.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0; c.test.iter().max().map_or(0, |&i| i + 1)];
    for (&i, &p) in c.test.iter().zip(ranks) {
        out[i] = p + 1;
    }
    out
}

impl Analysis {
    /// A test item of the first split whose true label is `class`, for the inspector: the first
    /// one CP_r's set misses at α, else the first one; `None` when the split tests none.
    pub fn test_item_of_class(&self, class: usize, alpha: f64, never_empty: bool) -> Option<usize> {
        let cal = self.calibrated[CP_R].first()?;
        let of_class: Vec<usize> = (0..cal.test.len()).filter(|&t| cal.label(t) == class).collect();
        let missed = of_class.iter().copied().find(|&t| !cal.set(t, alpha, never_empty).contains(class));
        missed.or_else(|| of_class.first().copied())
    }
}
