//! The exact empirical rule (docs/method.md §2): the Henderson–Newton `λ_β`, a sweep over the
//! points where lines cross and where the allowance `⌊Uβ⌋` steps up.

use super::Units;
use crate::normal;

/// Empirical rule: at `β` unit `i` is selected iff fewer than `⌊Uβ⌋ + 1` units have a strictly
/// higher `V_β`, i.e. a strictly lower line. Which units are above `i` changes only where lines
/// cross, and `⌊Uβ⌋` only at `β = k/U`: a sweep over those points in increasing β finds the
/// infimum exactly, in `O(U log U)` per unit.
pub(super) fn exact_empirical(u: &Units) -> Vec<f64> {
    let kq = empirical_quantiles(u.m.len());
    (0..u.m.len()).map(|i| exact_empirical_unit(u, i, &kq)).collect()
}

/// `q` at the points `β = k/U`, `k = 1, …, U − 1`, where the empirical rule's allowance steps up.
pub(super) fn empirical_quantiles(n: usize) -> Vec<f64> {
    (1..n).map(|k| normal::upper_quantile(k as f64 / n as f64)).collect()
}

/// One event of the sweep: at `q` (descending), either unit `Some(j)` may change side or the
/// allowance `⌊Uβ⌋` steps up (`None`).
#[derive(Clone, Copy)]
struct Event {
    q: f64,
    unit: Option<usize>,
}

pub(super) fn exact_empirical_unit(u: &Units, i: usize, kq: &[f64]) -> f64 {
    let n = u.m.len();
    let mut events: Vec<Event> = kq.iter().map(|&q| Event { q, unit: None }).collect();
    for j in (0..n).filter(|&j| j != i) {
        for q in crossings(u, i, j) {
            events.push(Event { q, unit: Some(j) });
        }
    }
    events.sort_by(|a, b| b.q.total_cmp(&a.q));
    let above = |j: usize, q: f64| u.line(j, q) < u.line(i, q);
    // Relations are constant between events: probe each interval at its midpoint.
    let probe = |a: usize| -> f64 {
        match (a.checked_sub(1).map(|p| events[p].q), events.get(a).map(|e| e.q)) {
            (None, Some(b)) => b + 1.0,
            (Some(a), None) => a - 1.0,
            (Some(a), Some(b)) => 0.5 * (a + b),
            (None, None) => 0.0,
        }
    };
    let q0 = probe(0);
    let mut count = (0..n).filter(|&j| j != i && above(j, q0)).count();
    let mut side: Vec<bool> = (0..n).map(|j| j != i && above(j, q0)).collect();
    let mut allowance = 0usize;
    if count <= allowance {
        return 0.0;
    }
    let mut a = 0;
    while a < events.len() {
        let q = events[a].q;
        let mut b = a;
        while b < events.len() && events[b].q == q {
            b += 1;
        }
        // Interval below this group of events is (events[b].q, q); probe its midpoint.
        let mid = probe(b);
        for e in &events[a..b] {
            match e.unit {
                None => allowance += 1,
                Some(j) => {
                    let now = above(j, mid);
                    if now != side[j] {
                        side[j] = now;
                        if now {
                            count += 1;
                        } else {
                            count -= 1;
                        }
                    }
                }
            }
        }
        if count <= allowance {
            return normal::sf(q);
        }
        a = b;
    }
    1.0
}

/// The `q` values where unit `j` may pass unit `i`'s line (at most two).
fn crossings(u: &Units, i: usize, j: usize) -> Vec<f64> {
    if u.limit.is_some() {
        return Vec::new();
    }
    let (si, sj) = (u.sd[i], u.sd[j]);
    match (si > 0.0, sj > 0.0) {
        (true, true) => {
            let (bi, bj) = (1.0 / si, 1.0 / sj);
            if bi == bj {
                Vec::new()
            } else {
                vec![(bi * u.m[i] - bj * u.m[j]) / (bi - bj)]
            }
        }
        (false, true) => vec![u.m[i]],
        (true, false) => vec![u.m[j]],
        (false, false) => vec![u.m[i], u.m[j]],
    }
    .into_iter()
    .filter(|q| q.is_finite())
    .collect()
}
