//! A floor under the greedy's best count at every step, for any test item, from the split
//! alone: what lets the frontier greedy ([`super::frontier`]) put a unit to sleep against more
//! than the count it last picked less a slack.
//!
//! At step `j` (before its pick) at most `j − 1` units have been picked, so among any `j`
//! calibration units one is left, and the best count is at least the `j`-th largest of any lower
//! bounds on the units' counts. A calibration rank `p` of draw `d` stands at place
//! `p + σ_d(p)` ([`super::shifts`]), at most `p + H` where `H` bounds the test item's shifts up to
//! rank `j − 1`; so every rank at or below `t = j − 1 − H` is in the top `j` places, and a unit's
//! count is at least `P_x(t)`, its ranks at or below `t`. The `j`-th largest of `P_x(t)` is the
//! split's, but `t` is the item's: the split keeps the `(t + 1 + h)`-th largest of `P_x(t)` for a
//! few lags `h`, and an item's step takes the least lag at or above its `H` (a larger order
//! statistic is a lower one, so the bound stays a bound). Being at most a count, it is at most
//! `M`, as the floor must be.
//!
//! On the authors' ImageNet layout it is above the floor the greedy keeps without it (the last
//! pick's count less the slack) in more than half the steps, by one to four, and falls behind in
//! the last tenth. There it cuts the frontier's refills by 30 % and its scheduled increments by
//! 4 %: about 1 % of a test item's time.

use super::shifts::{Shifts, SPAN};

/// The lags `h` kept below a split's `K` (which is kept too): about √2 apart, so that an item's
/// `H` is rounded up by at most two fifths of itself, a few places in the order statistic.
const LAGS: [usize; 20] = [0, 1, 2, 3, 4, 6, 8, 11, 16, 22, 32, 45, 64, 90, 128, 181, 256, 362, 512, 724];

/// `[lag][t]` the `(t + 1 + h)`-th largest of the units' counts of ranks at or below `t`
/// (0 where there are fewer units), for each lag `h` of `lags`.
#[derive(Debug, Clone)]
pub(super) struct BestBounds {
    n: usize,
    lags: Vec<usize>,
    by_lag: Vec<i16>,
}

impl BestBounds {
    /// The bounds of the `n` units whose draws' orders are `units` (`[draw][rank]`, `m` draws),
    /// for items of `k` candidates: the ranks are added one at a time across all draws, the
    /// units' counts kept as a histogram that each order statistic is read from.
    pub(super) fn new(units: &[u32], n: usize, m: usize, k: usize) -> Self {
        let lags: Vec<usize> = LAGS.iter().copied().filter(|&h| h < k).chain([k]).collect();
        let mut by_lag = vec![0i16; lags.len() * n];
        let mut count = vec![0u16; n];
        let mut hist = vec![0usize; m + 1];
        hist[0] = n;
        for t in 0..n {
            for x in units[t..].iter().step_by(n).take(m) {
                let c = &mut count[*x as usize];
                hist[usize::from(*c)] -= 1;
                *c += 1;
                hist[usize::from(*c)] += 1;
            }
            // Down the histogram from the largest count, each lag's order statistic in turn.
            let (mut c, mut above) = (m, hist[m]);
            for (l, h) in lags.iter().enumerate() {
                let rank = t + 1 + h;
                if rank > n {
                    break;
                }
                while above < rank {
                    c -= 1;
                    above += hist[c];
                }
                by_lag[l * n + t] = c as i16;
            }
        }
        BestBounds { n, lags, by_lag }
    }

    /// `[j]` for steps `1..=u` (`[0]` unused) a floor under the best count at step `j` of the
    /// test item whose shifts are `shifts`: 0 where the split gives none. `H` is the same
    /// across a span of ranks, so its lag is found once a span.
    pub(super) fn curve(&self, shifts: &Shifts, u: usize, out: &mut Vec<i16>) {
        let n = self.n;
        out.clear();
        out.resize(u + 1, 0);
        for q0 in (0..n).step_by(SPAN) {
            let h = (shifts.hi_key(q0 as u16) - q0 as u32) as usize;
            // The last lag is `K`, at or above every shift.
            let l = self.lags.partition_point(|&lag| lag < h).min(self.lags.len() - 1);
            let row = &self.by_lag[l * n..(l + 1) * n];
            for q in q0..(q0 + SPAN).min(n) {
                if let Some(t) = q.checked_sub(h) {
                    out[q + 1] = row[t];
                }
            }
        }
    }

    /// The lags kept, `K` last.
    #[cfg(test)]
    pub(super) fn lags(&self) -> &[usize] {
        &self.lags
    }

    /// The order statistic kept for lag `l` at rank `t`.
    #[cfg(test)]
    pub(super) fn at(&self, l: usize, t: usize) -> i16 {
        self.by_lag[l * self.n + t]
    }
}
