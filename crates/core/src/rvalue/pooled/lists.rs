//! Per calibration unit, its ranks in every draw's calibration order, ascending: what the
//! frontier greedy ([`super::frontier`]) reads to count a unit's draws at a step without
//! counting every draw's every step. Built once per split, with the split's floors under the
//! best count ([`BestBounds`]), which the frontier greedy reads beside them.

use super::bounds::BestBounds;

/// `[unit][i]` the `i`-th smallest of the unit's `M` ranks (0-based places in the draws'
/// calibration orders) and the draw it is in, packed as `draw << 16 | rank` ([`rank`],
/// [`draw`]): a wake reads a unit's few entries around its count from one or two cache lines.
/// Ranks are `u16`: splits of more units count every draw.
#[derive(Debug, Clone)]
pub(super) struct UnitLists {
    m: usize,
    packed: Vec<u32>,
    /// `[unit]` its least rank, apart: every test item's start reads all of them, which from
    /// the lists would be a cache line a unit.
    least: Vec<u16>,
    /// Floors under the best count at each step ([`BestBounds`]).
    bounds: BestBounds,
}

/// The rank of a packed entry.
#[inline(always)]
pub(super) fn rank(e: u32) -> u16 {
    e as u16
}

/// The draw of a packed entry.
#[inline(always)]
pub(super) fn draw(e: u32) -> usize {
    (e >> 16) as usize
}

/// One unit's entries, ascending by rank: `list[i]`.
#[derive(Clone, Copy)]
pub(super) struct UnitList<'a> {
    packed: &'a [u32],
}

impl UnitList<'_> {
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.packed.len()
    }

    /// Where entry `i` is stored, for a prefetch.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn ptr(&self, i: usize) -> *const u32 {
        self.packed[i..].as_ptr()
    }
}

impl std::ops::Index<usize> for UnitList<'_> {
    type Output = u32;
    #[inline(always)]
    fn index(&self, i: usize) -> &u32 {
        &self.packed[i]
    }
}

impl UnitLists {
    /// The lists of the `n` units whose draws' orders are `units` (`[draw][rank]`, `m` draws),
    /// with the bounds for items of `k` candidates.
    /// Walking the ranks in order, every draw at a rank at a time, appends each unit's ranks
    /// already sorted.
    pub(super) fn new(units: &[u32], n: usize, m: usize, k: usize) -> Self {
        assert!(m <= usize::from(u16::MAX) + 1 && n <= usize::from(u16::MAX) + 1 && units.len() >= n * m);
        let mut packed = vec![0u32; n * m];
        let mut fill: Vec<u32> = (0..n).map(|u| (u * m) as u32).collect();
        // A few ranks at a time across all draws: each draw's order is read a cache line at a
        // time instead of an entry a line.
        const RANKS: usize = 16;
        for p0 in (0..n).step_by(RANKS) {
            for p in p0..(p0 + RANKS).min(n) {
                for d in 0..m {
                    let u = units[d * n + p] as usize;
                    packed[fill[u] as usize] = (d as u32) << 16 | p as u32;
                    fill[u] += 1;
                }
            }
        }
        let least = packed.chunks_exact(m.max(1)).map(|l| rank(l[0])).collect();
        UnitLists { m, packed, least, bounds: BestBounds::new(units, n, m, k) }
    }

    /// Floors under the best count at each step, for any test item.
    pub(super) fn bounds(&self) -> &BestBounds {
        &self.bounds
    }

    /// Unit `u`'s least rank.
    #[inline(always)]
    pub(super) fn least(&self, u: usize) -> u16 {
        self.least[u]
    }

    /// Unit `u`'s entries.
    #[inline(always)]
    pub(super) fn of(&self, u: usize) -> UnitList<'_> {
        UnitList { packed: &self.packed[u * self.m..(u + 1) * self.m] }
    }
}
