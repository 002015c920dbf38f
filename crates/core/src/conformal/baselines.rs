//! The adaptive baselines APS, RAPS and SAPS (docs/method.md §5, "Baselines"): scores from an
//! item's class probabilities sorted once ([`Ranked`]), `u` keyed by (seed, split, item,
//! candidate), and their calibration on a split as for CP.
//!
//! Along an item's order every score is non-decreasing: `E(k)` lies between the probability
//! mass before `k` and that up to `k`, and rounding is monotone, so a row's scores come sorted
//! from its order and no split sorts an item again.

use std::sync::Arc;

use super::calibrated::{Calibrated, ScoreRows};
use super::chunks::in_chunks;
use super::{Coverage, Method, Split};
use crate::rng::{key_of, philox4x32_10};
use crate::rvalue::ties::{mix64, GOLDEN};
use crate::{Error, Result};

/// The baselines' parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baseline {
    /// RAPS's λ (≥ 0).
    pub raps_lambda: f64,
    /// RAPS's `k_reg` (≥ 0): ranks beyond it are penalised.
    pub raps_kreg: f64,
    /// SAPS's λ (≥ 0): the score's step per rank after the first.
    pub saps_lambda: f64,
    /// `u` uniform in [0, 1) (the randomized variants), else `u = 1`.
    pub randomized: bool,
}

impl Default for Baseline {
    /// RAPS λ = 0.01 and `k_reg` = 5, the values the RAPS paper reports for ImageNet; SAPS
    /// λ = 0.2; randomized.
    fn default() -> Self {
        Baseline { raps_lambda: 0.01, raps_kreg: 5.0, saps_lambda: 0.2, randomized: true }
    }
}

impl Baseline {
    /// One clear error for a parameter out of range.
    pub fn check(&self) -> Result<()> {
        let bad =
            |name: &str, v: f64| Err(Error::invalid(format!("{name} must be a finite number ≥ 0 (got {v})")));
        for (name, v) in
            [("RAPS's λ", self.raps_lambda), ("RAPS's k_reg", self.raps_kreg), ("SAPS's λ", self.saps_lambda)]
        {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, v);
            }
        }
        Ok(())
    }
}

/// Counter word that keeps the baselines' `u` apart from the other Philox uses of a seed
/// ("base" in ASCII).
const TAG: u32 = 0x6261_7365;

/// `u ∈ [0, 1)` of candidate `c` of item `i` on split `split` of `seed` ([`ItemU`]).
pub fn uniform(seed: u64, split: u64, item: usize, c: usize) -> f64 {
    ItemU::new(seed, split, item).at(c)
}

/// One item's `u` on one split: a Philox block keyed by (seed, split, item) seeds a SplitMix64
/// sequence, and candidate `c` takes its element `c + 1`, so every `u` is addressable by its
/// key (the same on every thread count) while a row costs one block, as the pooled r-values'
/// tie orders do.
#[derive(Debug, Clone, Copy)]
pub struct ItemU(u64);

impl ItemU {
    #[inline]
    pub fn new(seed: u64, split: u64, item: usize) -> Self {
        let w = philox4x32_10([item as u32, ((item as u64) >> 32) as u32, split as u32, TAG], key_of(seed));
        ItemU(u64::from(w[0]) << 32 | u64::from(w[1]))
    }

    /// An item's `u` keyed by `key`, a hash of what the item is (its probabilities), not by its
    /// place: a prediction's, whose sets must not depend on the batch (docs/method.md §4).
    #[inline]
    pub fn of_content(seed: u64, key: u64) -> Self {
        let w = philox4x32_10([key as u32, (key >> 32) as u32, u32::MAX, TAG], key_of(seed));
        ItemU(u64::from(w[0]) << 32 | u64::from(w[1]))
    }

    /// Candidate `c`'s `u`: 53 bits of SplitMix64's output.
    #[inline]
    pub fn at(self, c: usize) -> f64 {
        let z = mix64(self.0.wrapping_add((c as u64).wrapping_add(1).wrapping_mul(GOLDEN)));
        (z >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Every item's class probabilities sorted once: per item, by rank (descending probability,
/// ties to the lower candidate), the candidate, its probability and the mass before it.
#[derive(Debug)]
pub struct Ranked {
    k: usize,
    order: Vec<u32>,
    prob: Vec<f64>,
    before: Vec<f64>,
    rank: Vec<u32>,
}

impl Ranked {
    /// From class probabilities `[N][K]`, the items sorted on `threads` threads.
    pub fn of(probs: &[f64], k: usize, threads: usize) -> Result<Ranked> {
        let k = k.max(1);
        let n = probs.len() / k;
        let sorted =
            in_chunks(n, threads, |items| Ok(sort_items(&probs[items.start * k..items.end * k], k)))?;
        let mut r =
            Ranked { k, order: Vec::new(), prob: Vec::new(), before: Vec::new(), rank: vec![0; n * k] };
        r.order.reserve(n * k);
        r.prob.reserve(n * k);
        r.before.reserve(n * k);
        for (c, p, b) in sorted {
            r.order.push(c);
            r.prob.push(p);
            r.before.push(b);
        }
        for (at, &c) in r.order.iter().enumerate() {
            r.rank[at - at % k + c as usize] = (at % k) as u32;
        }
        Ok(r)
    }

    /// Items `N`.
    pub fn n(&self) -> usize {
        self.order.len() / self.k
    }

    /// Item `i`'s score at rank `r` (0-based) under `method` with `u`.
    #[inline]
    fn score(&self, method: Method, p: &Baseline, i: usize, r: usize, u: f64) -> f64 {
        self.place(i, r).score(method, p, u)
    }

    /// Item `i`'s rank `r`: what its score there is made of.
    #[inline]
    fn place(&self, i: usize, r: usize) -> Place {
        let at = i * self.k + r;
        Place { rank: r, before: self.before[at], prob: self.prob[at], top: self.prob[i * self.k] }
    }

    /// Each item's place of its label, gathered once for a run of splits: a split's
    /// calibration scores then read one entry per unit instead of three arrays at random.
    fn label_places(&self, labels: &[usize]) -> Vec<Place> {
        let k = self.k;
        labels.iter().enumerate().map(|(i, &y)| self.place(i, self.rank[i * k + y] as usize)).collect()
    }

    /// Item `i`'s `u` on `split`: keyed by its place in the data set, or in a prediction by its
    /// content, so that a new item's set is the same in any batch.
    fn item_u(&self, split: &Split, i: usize) -> ItemU {
        if split.is_prediction() {
            ItemU::of_content(split.seed, self.content_key(i))
        } else {
            ItemU::new(split.seed, split.index, i)
        }
    }

    /// A hash of item `i`'s sorted probabilities and their candidates: equal for equal items.
    fn content_key(&self, i: usize) -> u64 {
        let k = self.k;
        let mut h = 0x6A09_E667_F3BC_C909_u64;
        let bits = self.prob[i * k..(i + 1) * k].iter().map(|&x| (x + 0.0).to_bits());
        for x in bits.chain(self.order[i * k..(i + 1) * k].iter().map(|&c| u64::from(c))) {
            h = mix64((h ^ x).wrapping_add(GOLDEN));
        }
        h
    }

    /// Item `i`'s score of candidate `c` on `split`.
    pub(crate) fn score_of(&self, method: Method, p: &Baseline, split: &Split, i: usize, c: usize) -> f64 {
        let u = if p.randomized { self.item_u(split, i).at(c) } else { 1.0 };
        self.score(method, p, i, self.rank[i * self.k + c] as usize, u)
    }

    /// Item `i`'s scores in rank order onto `out`, as [`Ranked::score`] gives them: the method
    /// is chosen once per row rather than once per score, the row's hot loop.
    fn push_row(&self, method: Method, p: &Baseline, i: usize, u: Option<&[f64]>, out: &mut Vec<f64>) {
        let (lambda, kreg) = (p.raps_lambda, p.raps_kreg);
        match method {
            Method::Raps => self.push_with(i, u, out, |r, before, prob, u| {
                (before + u * prob) + lambda * ((r + 1) as f64 - kreg).max(0.0)
            }),
            Method::Saps => {
                let (top, lambda) = (self.prob[i * self.k], p.saps_lambda);
                self.push_with(i, u, out, |r, _, prob, u| match r {
                    0 => u * prob,
                    _ => top + ((r + 1) as f64 - 2.0 + u) * lambda,
                })
            }
            _ => self.push_with(i, u, out, |_, before, prob, u| before + u * prob),
        }
    }

    /// `score(rank, mass before, probability, u)` along item `i`'s ranks, `u` by rank; two
    /// loops, so that `u = 1` reads nothing and the randomized loop tests nothing.
    #[inline(always)]
    fn push_with(
        &self,
        i: usize,
        u: Option<&[f64]>,
        out: &mut Vec<f64>,
        score: impl Fn(usize, f64, f64, f64) -> f64,
    ) {
        let at = i * self.k..(i + 1) * self.k;
        let (before, prob) = (&self.before[at.clone()], &self.prob[at]);
        match u {
            Some(u) => out.extend((0..self.k).map(|r| score(r, before[r], prob[r], u[r]))),
            None => out.extend((0..self.k).map(|r| score(r, before[r], prob[r], 1.0))),
        }
    }

    /// `method` calibrated on each of `splits` in turn ([`Ranked::calibrate_many`] for one).
    pub fn calibrate_each(
        &self,
        method: Method,
        p: &Baseline,
        labels: &[usize],
        how: (Coverage, usize),
        splits: &[Split],
        mut each: impl FnMut(usize, Calibrated) -> Result<()>,
    ) -> Result<()> {
        self.calibrate_many(&[method], p, labels, how, splits, |_, r, c| each(r, c))
    }

    /// Each of `methods` calibrated on each of `splits`, `each(method, split index,
    /// calibrated)` split by split (each method sees its splits in order). With `u = 1` each
    /// method's rows are made once and shared; randomized, a split's test rows are made for
    /// every method in one pass over its items (one `u` per candidate, one read of its order),
    /// `threads` splits at a time (a split's rows are too few to share among threads, a group
    /// of splits is not).
    pub fn calibrate_many(
        &self,
        methods: &[Method],
        p: &Baseline,
        labels: &[usize],
        (coverage, threads): (Coverage, usize),
        splits: &[Split],
        mut each: impl FnMut(Method, usize, Calibrated) -> Result<()>,
    ) -> Result<()> {
        p.check()?;
        let places = self.label_places(labels);
        let on = Calibrating { ranked: self, methods, p, labels, places: &places, coverage };
        if !p.randomized {
            let all: Vec<usize> = (0..self.n()).collect();
            let rows = self.rows_of(methods, p, None, &all, threads)?;
            for (r, split) in splits.iter().enumerate() {
                crate::watch::checkpoint()?;
                crate::watch::advance(split.test.len());
                for (c, &m) in on.split(split, &rows, true).into_iter().zip(methods) {
                    each(m, r, c)?;
                }
            }
            return Ok(());
        }
        let one = |split: &Split, threads: usize| -> Result<Vec<Calibrated>> {
            let rows = self.rows_of(methods, p, Some(split), &split.test, threads)?;
            Ok(on.split(split, &rows, false))
        };
        let group = threads.max(1);
        for (g, splits) in splits.chunks(group).enumerate() {
            crate::watch::checkpoint()?;
            crate::watch::advance(splits.iter().map(|s| s.test.len()).sum());
            let made = if splits.len() == 1 {
                vec![one(&splits[0], threads)?]
            } else {
                in_chunks(splits.len(), threads, |at| at.map(|j| one(&splits[j], 1)).collect())?
            };
            for (j, calibrated) in made.into_iter().enumerate() {
                for (c, &m) in calibrated.into_iter().zip(methods) {
                    each(m, g * group + j, c)?;
                }
            }
        }
        Ok(())
    }
}

/// What [`Ranked::calibrate_many`] calibrates with, besides a split and its rows.
struct Calibrating<'a> {
    ranked: &'a Ranked,
    methods: &'a [Method],
    p: &'a Baseline,
    labels: &'a [usize],
    places: &'a [Place],
    coverage: Coverage,
}

impl Calibrating<'_> {
    /// Every method's calibration on `split` from its test rows `rows` (one per method, by
    /// item when `by_item`, else by test position): the calibration units' `u` drawn once
    /// for all methods.
    fn split(&self, split: &Split, rows: &[Arc<ScoreRows>], by_item: bool) -> Vec<Calibrated> {
        let (r, p, k) = (self.ranked, self.p, self.ranked.k);
        let u: Vec<f64> = if p.randomized {
            split.cal.iter().map(|&j| r.item_u(split, j).at(self.labels[j])).collect()
        } else {
            vec![1.0; split.cal.len()]
        };
        let classes = (self.coverage == Coverage::PerClass).then_some(self.labels);
        let one = |(&m, rows): (&Method, &Arc<ScoreRows>)| {
            let cal = |t: usize| self.places[split.cal[t]].score(m, p, u[t]);
            Calibrated::global(rows, by_item, k, self.labels, split, classes, cal)
        };
        self.methods.iter().zip(rows).map(one).collect()
    }
}

impl Ranked {
    /// The new items of a prediction `split` (these items, in `split.test`'s order) calibrated
    /// on its units' true-label scores `cal` (indexed by `split.cal`'s values), with their
    /// classes `unit_classes` per class: [`Ranked::calibrate_each`] on the items held whole, as
    /// `u` is keyed by each item's content.
    pub fn calibrate_on_scores(
        &self,
        method: Method,
        p: &Baseline,
        split: &Split,
        unit_classes: Option<&[usize]>,
        cal: &[f64],
        threads: usize,
    ) -> Result<Calibrated> {
        p.check()?;
        let rows = self.rows_of(&[method], p, p.randomized.then_some(split), &split.test, threads)?;
        let labels = vec![0; self.n()];
        let rows = rows.first().ok_or_else(|| Error::invalid("no rows for the method"))?;
        Ok(Calibrated::global(rows, false, self.k, &labels, split, unit_classes, |t| cal[split.cal[t]]))
    }
}

/// An item's candidate at rank `rank` (0-based): the mass before it, its probability and the
/// item's largest, all its score needs.
#[derive(Debug, Clone, Copy)]
struct Place {
    rank: usize,
    before: f64,
    prob: f64,
    top: f64,
}

impl Place {
    /// The score under `method` with `u`.
    #[inline]
    fn score(self, method: Method, p: &Baseline, u: f64) -> f64 {
        let o = (self.rank + 1) as f64;
        match method {
            Method::Raps => (self.before + u * self.prob) + p.raps_lambda * (o - p.raps_kreg).max(0.0),
            Method::Saps if self.rank == 0 => u * self.prob,
            Method::Saps => self.top + (o - 2.0 + u) * p.saps_lambda,
            _ => self.before + u * self.prob,
        }
    }
}

/// One item's sort: `(candidate, probability, mass before)` by descending probability, ties to
/// the lower candidate (`total_cmp`, so the order is total).
fn sort_items(probs: &[f64], k: usize) -> Vec<(u32, f64, f64)> {
    let mut out = Vec::with_capacity(probs.len());
    let mut idx: Vec<u32> = Vec::with_capacity(k);
    for row in probs.chunks_exact(k) {
        idx.clear();
        idx.extend(0..k as u32);
        idx.sort_by(|&a, &b| row[b as usize].total_cmp(&row[a as usize]).then(a.cmp(&b)));
        let mut mass = 0.0;
        for &c in &idx {
            let p = row[c as usize];
            out.push((c, p, mass));
            mass += p;
        }
    }
    out
}

mod rows;
#[cfg(test)]
mod tests;
