//! A split's test rows for several baselines at once: per item, `u` drawn once by rank and
//! the scores of each method made along the item's order, already sorted.

use std::sync::Arc;

use super::{Baseline, Method, Ranked, Split};
use crate::conformal::calibrated::ScoreRows;
use crate::conformal::chunks::in_chunks;
use crate::Result;

/// Scores a split's rows on one thread below this many: a thread's start costs more.
const PARALLEL_MIN: usize = 1 << 20;

/// One method's rows being made: scores in each row's order, and each candidate's place.
type Made = (Vec<f64>, Vec<u32>);

impl Ranked {
    /// Each of `methods`' rows of `items` (`[items][K]`, ascending, with each candidate's
    /// place): `u` of `split` (`None`: `u = 1`); large runs a chunk of items per thread.
    pub(super) fn rows_of(
        &self,
        methods: &[Method],
        p: &Baseline,
        split: Option<&Split>,
        items: &[usize],
        threads: usize,
    ) -> Result<Vec<Arc<ScoreRows>>> {
        let k = self.k;
        let made: Vec<Made> = if threads <= 1 || items.len() * k < PARALLEL_MIN {
            self.fill(methods, p, split, items)
        } else {
            let parts =
                in_chunks(items.len(), threads, |part| Ok(vec![self.fill(methods, p, split, &items[part])]))?;
            let mut joined: Vec<Made> = methods.iter().map(|_| Made::default()).collect();
            for part in parts {
                for ((sorted, place), (s, pl)) in joined.iter_mut().zip(part) {
                    sorted.extend(s);
                    place.extend(pl);
                }
            }
            joined
        };
        Ok(made.into_iter().map(|(sorted, place)| ScoreRows::from_sorted(sorted, &place, k)).collect())
    }

    /// [`Ranked::rows_of`] on this thread.
    fn fill(&self, methods: &[Method], p: &Baseline, split: Option<&Split>, items: &[usize]) -> Vec<Made> {
        let k = self.k;
        let mut made: Vec<Made> = methods
            .iter()
            .map(|_| (Vec::with_capacity(items.len() * k), vec![0u32; items.len() * k]))
            .collect();
        let mut u = Vec::with_capacity(k);
        for (t, &i) in items.iter().enumerate() {
            let order = &self.order[i * k..(i + 1) * k];
            if let Some(s) = split {
                let item_u = self.item_u(s, i);
                u.clear();
                u.extend(order.iter().map(|&c| item_u.at(c as usize)));
            }
            for (&m, (sorted, place)) in methods.iter().zip(made.iter_mut()) {
                let row = sorted.len();
                self.push_row(m, p, i, split.map(|_| u.as_slice()), sorted);
                order_row(&mut sorted[row..], order, &mut place[t * k..(t + 1) * k]);
            }
        }
        made
    }
}

/// Puts a row's scores, made in rank order (non-decreasing), in `ScoreRows`' order: by score,
/// equal scores by candidate; `place[c]` gets candidate `c`'s position. A row that is not
/// non-decreasing (no finite input gives one) is sorted in full.
fn order_row(scores: &mut [f64], by_rank: &[u32], place: &mut [u32]) {
    if scores.windows(2).all(|w| w[0] < w[1]) {
        for (at, &c) in by_rank.iter().enumerate() {
            place[c as usize] = at as u32;
        }
        return;
    }
    let mut pairs: Vec<(f64, u32)> = scores.iter().copied().zip(by_rank.iter().copied()).collect();
    if pairs.windows(2).all(|w| w[0].0 <= w[1].0) {
        let mut start = 0;
        while start < pairs.len() {
            let end = start + pairs[start..].iter().take_while(|x| x.0 == pairs[start].0).count();
            if end - start > 1 {
                pairs[start..end].sort_unstable_by_key(|x| x.1);
            }
            start = end;
        }
    } else {
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }
    for (at, (s, c)) in pairs.into_iter().enumerate() {
        scores[at] = s;
        place[c as usize] = at as u32;
    }
}
