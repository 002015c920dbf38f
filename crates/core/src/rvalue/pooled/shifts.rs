//! How far one test item's candidates push each calibration rank down its draw's merged
//! ranking: the calibration unit at rank `p` of draw `d` stands at place `p + σ_d(p)`, `σ_d(p)`
//! being the number of the item's candidates entering draw `d` at or before rank `p`
//! (`entries ≤ p`), bounded over all draws per span of [`SPAN`] ranks, which is what lets the frontier greedy
//! ([`super::frontier`]) skip a unit's draws that are surely in, or surely not yet in, a step's
//! tops.

/// Ranks per span of the table.
pub(super) const SPAN: usize = 64;

/// One test item's shifts, bounded per span of ranks.
#[derive(Debug, Default)]
pub(super) struct Shifts {
    /// `[s]` the least over draws of the candidates entering before rank `s·SPAN`, at or
    /// below every `σ_d(p)` of span `s`.
    lo: Vec<u32>,
    /// `[s]` the largest over draws of the candidates entering before rank `(s + 1)·SPAN`, at
    /// or above every `σ_d(p)` of span `s`.
    hi: Vec<u32>,
    /// The largest `hi[s] − lo[s]`: how far a rank's places in two draws can differ.
    spread: u32,
    /// One draw's candidates up to each span that one enters.
    upto: Vec<u32>,
}

impl Shifts {
    /// The shifts of the item whose draws' entry points (`[draw][K]`, nondecreasing, at most `n`)
    /// are `entries`.
    pub(super) fn build(&mut self, entries: &[u32], n: usize, m: usize, k: usize) {
        let spans = n.div_ceil(SPAN) + 1;
        self.lo.clear();
        self.lo.resize(spans, u32::MAX);
        self.hi.clear();
        self.hi.resize(spans, 0);
        for e in entries.chunks_exact(k).take(m) {
            // `upto[s]`: the candidates entering in spans up to `s`, where one does; stores
            // alone, as the entries ascend (a count per span chained each increment on the
            // last, mostly the same span's).
            let upto = &mut self.upto;
            upto.clear();
            upto.resize(spans, 0);
            for (i, &x) in e.iter().enumerate() {
                upto[(x as usize / SPAN).min(spans - 1)] = i as u32 + 1;
            }
            // Those before span `s` are the most of `upto` before it.
            let mut before = 0;
            for ((l, h), &u) in self.lo.iter_mut().zip(self.hi.iter_mut()).zip(upto.iter()) {
                *l = (*l).min(before);
                before = before.max(u);
                *h = (*h).max(before);
            }
        }
        self.hi[spans - 1] = k as u32;
        self.spread = self.lo.iter().zip(&self.hi).map(|(l, h)| h - l).max().unwrap_or(0);
    }

    /// The largest difference between a rank's places in two draws.
    pub(super) fn spread(&self) -> u32 {
        self.spread
    }

    /// `p + σ` at its least over draws: nondecreasing in `p`.
    #[inline(always)]
    pub(super) fn lo_key(&self, p: u16) -> u32 {
        u32::from(p) + self.lo[usize::from(p) / SPAN]
    }

    /// `p + σ` at its largest over draws: nondecreasing in `p`.
    #[inline(always)]
    pub(super) fn hi_key(&self, p: u16) -> u32 {
        u32::from(p) + self.hi[usize::from(p) / SPAN]
    }
}
