//! The plain `O(U²)` pooled r-value, the test oracle and benchmark baseline of the fast path.

use super::{check_items, PooledItem};
use crate::rvalue::nonparametric::nested_greedy;
use crate::rvalue::ties::Ties;
use crate::tensor::ScoreTensor;
use crate::Result;
use std::cmp::Ordering;

/// The plain `O(U²)` pooled r-value for one test item: rank all units in every draw, count,
/// run the greedy, every tie broken by `ties`' order of the units. Kept as the test oracle and
/// the benchmark baseline.
pub fn pooled_item_oracle(
    t: &ScoreTensor,
    labels: &[usize],
    cal_items: &[usize],
    item: usize,
    ties: Ties,
) -> Result<PooledItem> {
    check_items(t, labels, cal_items)?;
    let (n, m, k) = (cal_items.len(), t.m(), t.k());
    let u = n + k;
    let (mut places, mut rank) = (vec![0u32; k], vec![0u16; k]);
    ties.order(ties.item_key(t, item, item), n, &mut places, &mut rank);
    let at = tie_positions(&places, &rank, n);
    let mut count = vec![0u32; u * u];
    let mut idx: Vec<usize> = (0..u).collect();
    for d in 0..m {
        let score = |x: usize| {
            if x < n {
                t.get(cal_items[x], d, labels[cal_items[x]])
            } else {
                t.get(item, d, x - n)
            }
        };
        idx.sort_by(|&a, &b| {
            score(b).partial_cmp(&score(a)).unwrap_or(Ordering::Equal).then(at[a].cmp(&at[b]))
        });
        for (rank, &x) in idx.iter().enumerate() {
            count[at[x] * u + rank] += 1;
        }
    }
    for row in count.chunks_exact_mut(u) {
        for j in 1..u {
            row[j] += row[j - 1];
        }
    }
    // The greedy breaks count ties by row: rows are in tie order.
    let by_position = nested_greedy(&count, u);
    let step: Vec<u32> = (0..u).map(|x| by_position[at[x]]).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&x| step[x]);
    Ok(PooledItem {
        units: u as u32,
        cand_step: step[n..].to_vec(),
        cal_steps: order.iter().map(|&x| step[x]).collect(),
        cal_units: order.iter().map(|&x| x as u32).collect(),
    })
}

/// Each unit's position in the tie order (units: calibration `0..n`, then candidates): before
/// calibration unit `j` come the candidates whose place is at most `j`, in rank order
/// (`places` by rank, as [`Ties::order`] gives them).
fn tie_positions(places: &[u32], rank: &[u16], n: usize) -> Vec<usize> {
    let k = places.len();
    let mut cands: Vec<usize> = (0..k).collect();
    cands.sort_by_key(|&c| rank[c]);
    let places: Vec<u32> = (0..k).map(|c| places[rank[c] as usize]).collect();
    let mut at = vec![0; n + k];
    let mut next = cands.iter().peekable();
    let mut pos = 0;
    for j in 0..=n {
        while let Some(&&c) = next.peek() {
            if places[c] as usize > j {
                break;
            }
            at[n + c] = pos;
            pos += 1;
            next.next();
        }
        if j < n {
            at[j] = pos;
            pos += 1;
        }
    }
    at
}
