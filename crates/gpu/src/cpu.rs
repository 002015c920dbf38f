//! The CPU twins of the kernels (the pooled greedy itself is the core's, `PooledSplit`).
//!
//! Each function here computes exactly what one kernel computes, from the same [`Keys`], so
//! the tests can compare the two word for word; they also serve as the reference for the
//! kernels' definitions.

use super::keys::Keys;
use rvalue_core::rvalue::PooledSplit;
use rvalue_core::tensor::ScoreTensor;

/// Rank (0-based) of element `c` among `k` keys starting at `base`: descending score, ties to
/// the lower index (docs/method.md §3), i.e. the number of keys below it or equal at a lower index.
#[inline]
fn rank_in(keys: &Keys, base: usize, k: usize, c: usize) -> usize {
    let kc = keys.get(base + c);
    (0..c).filter(|&o| keys.get(base + o) <= kc).count()
        + (c + 1..k).filter(|&o| keys.get(base + o) < kc).count()
}

/// Cumulative rank counts of `items` items of `m` draws × `k` candidates:
/// `count[b][c][j] = #{draws : rank(c) ≤ j}` (0-based `j`), `items × k × k` values. The layout
/// of `rvalue::nonparametric::rank_counts`, one item after another.
pub fn rank_counts(keys: &Keys, items: usize, m: usize, k: usize) -> Vec<u32> {
    let mut count = vec![0u32; items * k * k];
    for b in 0..items {
        let out = &mut count[b * k * k..(b + 1) * k * k];
        for d in 0..m {
            let base = (b * m + d) * k;
            for c in 0..k {
                out[c * k + rank_in(keys, base, k, c)] += 1;
            }
        }
        for row in out.chunks_exact_mut(k) {
            for j in 1..k {
                row[j] += row[j - 1];
            }
        }
    }
    count
}

/// The shape of a pooled positions call: `n` calibration units, `m` draws, `k` candidates,
/// `words` key words a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PooledShape {
    pub n: usize,
    pub m: usize,
    pub k: usize,
    pub words: u32,
}

/// A group of draws' calibration keys and units (`[draws][n]` each), borrowed or built.
pub type CalDraws<'a> = (std::borrow::Cow<'a, [u32]>, std::borrow::Cow<'a, [u32]>);

/// A calibration set as the pooled kernel needs it (docs/method.md §4): per draw, the calibration units'
/// keys in ascending key order (descending score, ties to the lower unit) and their units.
#[derive(Debug, Clone)]
pub struct PooledCal {
    pub n: usize,
    pub m: usize,
    pub k: usize,
    /// `[draw][rank]` keys, `words` per key as in [`Keys`].
    pub keys: Keys,
    /// `[draw][rank]` calibration unit indices (unit `j` is the `j`-th calibration item).
    pub units: Vec<u32>,
}

impl PooledCal {
    /// From a tensor's keys (`keys` of `t.data()`), its labels and the calibration items.
    pub fn new(t: &ScoreTensor, keys: &Keys, labels: &[usize], cal_items: &[usize]) -> PooledCal {
        let (n, m, k) = (cal_items.len(), t.m(), t.k());
        let key_of = |j: usize, d: usize| keys.get((cal_items[j] * m + d) * k + labels[cal_items[j]]);
        let mut units = Vec::with_capacity(n * m);
        let mut sorted = Vec::with_capacity(n * m);
        let mut idx: Vec<u32> = Vec::with_capacity(n);
        for d in 0..m {
            idx.clear();
            idx.extend(0..n as u32);
            idx.sort_unstable_by_key(|&j| (key_of(j as usize, d), j));
            units.extend_from_slice(&idx);
            sorted.extend(idx.iter().map(|&j| key_of(j as usize, d)));
        }
        let data = if keys.words == 1 {
            sorted.iter().map(|&x| x as u32).collect()
        } else {
            sorted.iter().flat_map(|&x| [(x >> 32) as u32, x as u32]).collect()
        };
        PooledCal { n, m, k, keys: Keys { words: keys.words, data }, units }
    }
}

impl PooledCal {
    /// From a split's own sorted tables ([`PooledSplit::calibration_order`]: the order above,
    /// since keys ascend as scores descend and equal scores share a key), `words` per key; one
    /// word needs every calibration score to be an f32 ([`super::keys::all_f32`]).
    pub fn of_split(ps: &PooledSplit, words: u32) -> PooledCal {
        let (n, m, k) = (ps.n_cal(), ps.m(), ps.k());
        let (data, units) = Self::draws_of_split(ps, words, 0..m);
        PooledCal { n, m, k, keys: Keys { words, data: data.into_owned() }, units: units.into_owned() }
    }

    /// [`PooledCal::of_split`]'s keys and units of the draws `draws` alone (`[draws][n]` each).
    pub fn draws_of_split(ps: &PooledSplit, words: u32, draws: std::ops::Range<usize>) -> CalDraws<'_> {
        let n = ps.n_cal();
        let mut data = Vec::with_capacity(n * draws.len() * words as usize);
        let mut units = Vec::with_capacity(n * draws.len());
        for d in draws {
            let (s, u) = ps.calibration_order(d);
            data.extend(Keys::with_words(s, words).data);
            units.extend_from_slice(u);
        }
        (data.into(), units.into())
    }
}

/// The test `items`' tie orders under `ps`' ties (`rvalue::Ties::order`), `[B][2K]`: each
/// item's candidate places among the calibration units, then their ranks among the candidates
/// (the pooled kernel's second input).
pub fn tie_orders(ps: &PooledSplit, t: &ScoreTensor, items: &[u32]) -> Vec<u32> {
    tie_orders_keyed(ps, items.iter().map(|&i| ps.ties().item_key(t, i as usize, i as usize)))
}

/// [`tie_orders`] of test items keyed `keys` ([`rvalue_core::rvalue::Ties::item_key`]: an
/// item's place in the whole data set, or its content).
pub fn tie_orders_keyed(ps: &PooledSplit, keys: impl ExactSizeIterator<Item = u64>) -> Vec<u32> {
    let k = ps.k();
    let mut out = vec![0u32; keys.len() * 2 * k];
    let (mut by_rank, mut rank) = (vec![0u32; k], vec![0u16; k]);
    for (i, o) in keys.zip(out.chunks_exact_mut((2 * k).max(1))) {
        ps.ties().order(i, ps.n_cal(), &mut by_rank, &mut rank);
        // The kernel reads each candidate's own place.
        let (places, ranks) = o.split_at_mut(k);
        for ((p, r), &rc) in places.iter_mut().zip(ranks).zip(&rank) {
            (*p, *r) = (by_rank[rc as usize], u32::from(rc));
        }
    }
    out
}

/// Rank of candidate `c` among the item's `k` candidates (from `base`) under the tie order:
/// the candidates with a lower key, or an equal key and a lower tie rank.
#[inline]
fn rank_with_ties(keys: &Keys, base: usize, rank: &[u32], c: usize) -> usize {
    let kc = keys.get(base + c);
    (0..rank.len())
        .filter(|&o| {
            let ko = keys.get(base + o);
            ko < kc || (ko == kc && rank[o] < rank[c])
        })
        .count()
}

/// Positions (0-based) of test items' candidates among all `U = n + K` units of each draw,
/// `[B][M][K]` for the items `items` with tie orders `ties` (`[B][2K]`, from [`tie_orders`]):
/// the pooled kernel's output. A candidate with place `g` follows every calibration unit with a
/// higher score, those with an equal score and an index below `g`, and the item's candidates
/// before it (higher scores, or equal with a lower tie rank); under the index rule (`g = n`)
/// every calibration unit with a score at least its own.
pub fn pooled_positions(keys: &Keys, cal: &PooledCal, items: &[u32], ties: &[u32]) -> Vec<u32> {
    let (n, m, k) = (cal.n, cal.m, cal.k);
    let mut out = Vec::with_capacity(items.len() * m * k);
    for (b, &i) in items.iter().enumerate() {
        let (places, rank) = ties[2 * b * k..2 * (b + 1) * k].split_at(k);
        for d in 0..m {
            let base = (i as usize * m + d) * k;
            let cal_d = d * n;
            for c in 0..k {
                let (kc, g) = (keys.get(base + c), places[c]);
                // Calibration units before the candidate: a partition point of the units sorted
                // by (key, index).
                let (mut lo, mut hi) = (0, n);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    let key = cal.keys.get(cal_d + mid);
                    if key < kc || (key == kc && cal.units[cal_d + mid] < g) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                out.push((lo + rank_with_ties(keys, base, rank, c)) as u32);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvalue_core::conformal::Split;
    use rvalue_core::rvalue::{pooled_item_oracle, TieOrder, Ties};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_pooled_twin_equals_the_oracle() {
        // Ties everywhere: scores from five values, f32 and (scaled by 0.1) not f32.
        for scale in [1.0, 0.1] {
            let (n, m, k) = (24, 5, 4);
            let data: Vec<f64> = (0..n * m * k).map(|i| ((i * 7919) % 5) as f64 * scale).collect();
            let t = ScoreTensor::new(n, m, k, data).unwrap();
            let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
            let split = Split::random(n, 0.5, 3, 0).unwrap();
            let keys = Keys::of_tensor(&t);
            for order in TieOrder::ALL {
                let items = crate::pooled_items_cpu(&t, &keys, &labels, &split, order).unwrap();
                for (it, &i) in items.iter().zip(&split.test) {
                    assert_eq!(
                        it,
                        &pooled_item_oracle(&t, &labels, &split.cal, i, split.ties(order)).unwrap()
                    );
                }
            }
        }
    }

    #[test]
    fn positions_that_collide_are_a_gpu_error() {
        use rvalue_core::rvalue::pooled::PooledSplit;
        let t = ScoreTensor::new(3, 1, 2, vec![1.0, 0.0, 2.0, 0.5, 0.0, 3.0]).unwrap();
        let ps = PooledSplit::new(&t, &[0, 0, 0], &[0, 1], Ties::INDEX).unwrap();
        assert!(crate::greedy_all(&[0, 3], &ps, &t, &[2]).is_ok());
        for bad in [[1, 1], [0, 4]] {
            assert!(matches!(crate::greedy_all(&bad, &ps, &t, &[2]), Err(rvalue_core::Error::Gpu { .. })));
        }
    }
}
