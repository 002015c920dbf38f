//! The nested greedy for one test item counted only near its frontier: the same picks, bit for
//! bit, as [`super::greedy`], which counts all `M·U` entries of the merged rankings.
//!
//! A step's pick needs the exact counts of the units that can be its best, and nothing of the
//! rest. [`super::picks::Counts`]' floor already separates them: a pick at or above the floor
//! needs exact counts only at or above it. Here a calibration unit whose count is below the floor
//! *sleeps*: it is not counted at all, and is woken at the first step its count could reach the
//! floor, which its ranks ([`super::lists`]) and the item's shifts ([`super::shifts`]) bound
//! without looking at the draws. Woken, its count is found from its ranks in one search and a
//! few exact places, and its draws' next entries are *scheduled*: each becomes an increment at
//! the step it enters its draw's top, a horizon of steps at a time. Candidates (`K` units) are
//! always counted. So the increments are those of units near the best (and candidates), not
//! every unit's every draw.
//!
//! Each of a unit's draws is counted once while it is awake: found in the wake's search or
//! window, or scheduled. A unit falls asleep again only at a refill, when its count is below the
//! floor and every increment it has scheduled falls before its next wake; those increments then
//! land on a count that cannot win, and the wake counts afresh. A fall of the floor can wake it
//! sooner, with some of them still to land: the wake then counts those as scheduled.

use super::lists::{draw, rank, UnitList, UnitLists};
use super::picks::{Counts, TiePick, BLOCK, CHOSEN};
use super::shifts::Shifts;
use super::{greedy::Workspace, PooledItem, PooledSplit};

/// Steps of a unit's draws scheduled at a wake or refill.
const HORIZON: u32 = 64;

/// Steps ahead whose controls' lines are asked for.
const AHEAD: usize = 6;

/// Units ahead, of those a fall of the floor rechecks, whose lines are asked for.
const REFRESH_AHEAD: usize = 16;

/// Draws still needed up to which a sleeping unit's wake is found from exact places.
const EXACT_NEED: usize = 8;

/// No pending control.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
enum State {
    #[default]
    Asleep,
    Awake,
    Chosen,
}

/// A calibration unit's record: its pending wake or refill (`control_at`, `NONE` if none; a
/// unit is on the calendar's list of that step, linked by `link`), the last step it has an
/// increment scheduled at, the first of its ranks not yet counted or scheduled (awake), and
/// its state. One record of 16 bytes: a control reads and writes all of it, from one line.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Unit {
    control_at: u32,
    last: u32,
    link: u32,
    next: u16,
    state: State,
}

impl Default for Unit {
    fn default() -> Self {
        Unit { control_at: NONE, last: 0, link: NONE, next: 0, state: State::Asleep }
    }
}

/// The frontier greedy's scratch, reused across test items.
#[derive(Debug, Default)]
pub struct FrontierWork {
    shifts: Shifts,
    units: Vec<Unit>,
    /// `[step % len]` awake units whose count goes up at that step: a ring longer than any
    /// increment is scheduled ahead, so that its buckets stay in the caches.
    bumps: Vec<Vec<u32>>,
    /// The candidates entering a draw's top, as `draw << 16 | rank`, by step: those of step `j`
    /// at `cands[cand_at[j]..cand_at[j + 1]]`, read in order, so the hardware prefetches them.
    cands: Vec<u32>,
    cand_at: Vec<u32>,
    /// Per draw, the candidates in its top so far: its calibration ranks below `j − in_top[d]`
    /// are in at step `j`.
    in_top: Vec<u32>,
    /// `[step]` the first unit to wake or refill after that step's increments, the rest
    /// linked through their records: lists in two arrays that stay in the caches (a vector a
    /// step would scatter the pushes over memory, each a miss).
    head: Vec<u32>,
    /// One wake's window of places not yet in its tops.
    window: Vec<u32>,
    /// `[unit]` the floor a sleeping unit's wake was found against: its count cannot reach
    /// that floor before the wake, so a fall of the floor to it or above moves no wake.
    slept: Vec<i16>,
    /// The units a fall of the floor rechecks.
    moved: Vec<u32>,
    /// `[step]` a floor under the best count ([`super::bounds`]).
    best_floor: Vec<i16>,
}

impl FrontierWork {
    /// Unit `x`'s control due at step `w`, put on that step's list. A unit is on one list at
    /// a time: only a fall of the floor sets a control while another is pending, and it then
    /// lists every unit again ([`FrontierWork::relist`]).
    #[inline]
    fn control(&mut self, x: usize, w: u32) {
        let unit = &mut self.units[x];
        unit.control_at = w;
        unit.link = std::mem::replace(&mut self.head[w as usize], x as u32);
    }

    /// Every pending control after step `j` listed afresh.
    #[cold]
    fn relist(&mut self, j: u32) {
        self.head[j as usize + 1..].fill(NONE);
        for x in 0..self.units.len() {
            let w = self.units[x].control_at;
            if w != NONE && w > j {
                self.control(x, w);
            }
        }
    }

    /// The candidates' entries into their draws' tops (entry points `entries`, ranks `ord`,
    /// `[draw][K]`) sorted by step, `1..=u`, by counting.
    fn sort_candidates(&mut self, entries: &[u32], ord: &[u16], u: usize, k: usize) {
        let at = &mut self.cand_at;
        at.clear();
        at.resize(u + 2, 0);
        // A draw's `c`-th candidate enters after `e` units: at step `e + c + 1`.
        for e in entries.chunks_exact(k) {
            for (c, &e) in e.iter().enumerate() {
                at[e as usize + c + 1] += 1;
            }
        }
        let mut sum = 0;
        for a in at.iter_mut() {
            (*a, sum) = (sum, sum + *a);
        }
        // Each step's start, moved on as it fills; then shifted back by one step below.
        let cands = &mut self.cands;
        cands.clear();
        cands.resize(entries.len(), 0);
        for (d, (e, r)) in entries.chunks_exact(k).zip(ord.chunks_exact(k)).enumerate() {
            for (c, (&e, &r)) in e.iter().zip(r).enumerate() {
                let s = &mut at[e as usize + c + 1];
                cands[*s as usize] = (d as u32) << 16 | u32::from(r);
                *s += 1;
            }
        }
        at.rotate_right(1);
        at[0] = 0;
    }
}

/// One item's run: the split, the item's entry points, and the frontier's state.
struct Run<'a> {
    split: &'a PooledSplit,
    lists: &'a UnitLists,
    entries: &'a [u32],
    counts: &'a mut Counts,
    f: &'a mut FrontierWork,
}

impl PooledSplit {
    /// [`PooledSplit::greedy`] for the `b`-th item of the last entry points, counting only
    /// near the frontier, with the split's unit lists.
    pub(super) fn greedy_frontier(&self, b: usize, work: &mut Workspace, lists: &UnitLists) -> PooledItem {
        let (n, m, k, cb) = (self.n, self.m, self.k, self.cb);
        let u = n + k;
        work.reset(n, cb, k, m);
        let Workspace { entries, ord, place, by_rank, counts, frontier, .. } = work;
        let entries = &entries[b * m * k..(b + 1) * m * k];
        let ord = &ord[b * m * k..(b + 1) * m * k];
        let first_block = if self.ties.is_index() { 0 } else { cb / BLOCK };
        let tie = TiePick { first_block, cb, places: &place[b * k..(b + 1) * k] };
        let by_rank = &by_rank[b * k..(b + 1) * k];
        let mut run = Run { split: self, lists, entries, counts, f: frontier };
        run.start(ord);
        let mut cand_step = vec![0u32; k];
        let (mut cal_steps, mut cal_units) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for j in 1..=u as u32 {
            run.step(j);
            let x = run.counts.pop_top(&tie);
            if x < n {
                run.f.units[x].state = State::Chosen;
                cal_steps.push(j);
                cal_units.push(x as u32);
            } else {
                cand_step[by_rank[x - cb] as usize] = j;
            }
        }
        PooledItem { units: u as u32, cand_step, cal_steps, cal_units }
    }
}

impl Run<'_> {
    /// Every calibration unit asleep, woken at the first step one of its draws could enter;
    /// the candidates' increments scheduled; the floor at one, below which a count of zero sleeps.
    fn start(&mut self, ord: &[u16]) {
        let (n, m, k) = (self.split.n, self.split.m, self.split.k);
        let f = &mut *self.f;
        f.shifts.build(self.entries, n, m, k);
        self.lists.bounds().curve(&f.shifts, n + k, &mut f.best_floor);
        f.units.clear();
        f.units.resize(n, Unit::default());
        f.slept.clear();
        f.slept.resize(n, 1);
        f.in_top.clear();
        f.in_top.resize(m, 0);
        f.head.clear();
        f.head.resize(n + k + 2, NONE);
        // An increment is scheduled at most the horizon and a rank's spread of places ahead.
        let ring = (HORIZON + f.shifts.spread() + 2).next_power_of_two() as usize;
        f.bumps.resize_with(ring, Vec::new);
        f.bumps.truncate(ring);
        f.bumps.iter_mut().for_each(Vec::clear);
        self.counts.count[..n].fill(CHOSEN);
        self.counts.set_floor(1);
        self.counts.refresh_tops();
        f.sort_candidates(self.entries, ord, n + k, k);
        for x in 0..n {
            let w = f.shifts.lo_key(self.lists.least(x)) + 1;
            f.control(x, w);
        }
    }

    /// Step `j`'s increments and controls, and the floor made good for its pick: first raised
    /// to the split's bound under the step's best count ([`super::bounds`]), so that fewer
    /// units stay awake.
    fn step(&mut self, j: u32) {
        self.counts.raise_floor(self.f.best_floor[j as usize]);
        self.prefetch_controls(j as usize + AHEAD);
        self.bump_candidates(j);
        self.bump_units(j);
        self.run_controls(j);
        self.make_best_good(j);
    }

    /// The increments of the candidates entering a top at step `j`.
    #[inline(never)]
    fn bump_candidates(&mut self, j: u32) {
        let cb = self.split.cb;
        let at = self.f.cand_at[j as usize] as usize..self.f.cand_at[j as usize + 1] as usize;
        for &c in &self.f.cands[at] {
            self.counts.bump(cb + (c & 0xffff) as usize);
            self.f.in_top[(c >> 16) as usize] += 1;
        }
    }

    /// The increments scheduled for step `j`.
    #[inline(never)]
    fn bump_units(&mut self, j: u32) {
        let at = j as usize & (self.f.bumps.len() - 1);
        let mut bumps = std::mem::take(&mut self.f.bumps[at]);
        for &x in &bumps {
            self.counts.bump(x as usize);
        }
        bumps.clear();
        self.f.bumps[at] = bumps;
    }

    /// The wakes and refills due at step `j`.
    #[inline(never)]
    fn run_controls(&mut self, j: u32) {
        let mut x = std::mem::replace(&mut self.f.head[j as usize], NONE);
        while x != NONE {
            let unit = &mut self.f.units[x as usize];
            let link = unit.link;
            if unit.control_at == j {
                unit.control_at = NONE;
                match unit.state {
                    State::Asleep => self.recheck(x as usize, j),
                    State::Awake => self.refill(x as usize, j),
                    State::Chosen => {}
                }
            }
            x = link;
        }
    }

    /// Asks for the cache lines the controls at step `s` will read: each unit's ranks at
    /// its last search, and at the floor.
    #[inline(never)]
    fn prefetch_controls(&self, s: usize) {
        if let Some(&first) = self.f.head.get(s) {
            let floor = (self.counts.floor().max(1) as usize - 1).min(self.split.m - 1);
            let mut x = first;
            while x != NONE {
                self.prefetch_entry(x as usize, floor);
                x = self.f.units[x as usize].link;
            }
        }
    }

    /// Asks for the cache line of unit `x`'s `i`-th entry (the last if fewer).
    #[inline(always)]
    fn prefetch_entry(&self, x: usize, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if x < self.split.n {
            use std::arch::x86_64::*;
            let list = self.lists.of(x);
            let at = i.min(list.len() - 1);
            // SAFETY: SSE is part of x86_64; a prefetch reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(list.ptr(at).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (x, i);
    }

    /// Where the best count has fallen below the floor, the floor drops below it and every
    /// sleeping unit whose wake was found against a floor above the new one is woken or
    /// rescheduled against it.
    fn make_best_good(&mut self, j: u32) {
        loop {
            let best = self.counts.top();
            if best >= self.counts.floor() && best >= 0 {
                return;
            }
            self.counts.refresh_tops();
            let best = self.counts.top();
            self.counts.set_floor(best.saturating_sub(self.counts.slack).max(0));
            if self.recheck_moved(j) {
                self.f.relist(j);
            }
        }
    }

    /// After a fall of the floor, the sleeping units whose wakes were found against a floor
    /// above the new one, rechecked against it; whether there were any. The others' wakes hold:
    /// a count that cannot reach a floor before its wake cannot reach a higher one. They are
    /// most units (all but about 150 of 40,000 on the authors' ImageNet layout, a fall), whose
    /// rechecks, each a likely miss, would be nearly all of a fall's time.
    fn recheck_moved(&mut self, j: u32) -> bool {
        let floor = self.counts.floor();
        let mut moved = std::mem::take(&mut self.f.moved);
        moved.clear();
        let (slept, units) = (&self.f.slept, &self.f.units);
        moved.extend(
            (0..self.split.n as u32)
                .filter(|&x| slept[x as usize] > floor && units[x as usize].state == State::Asleep),
        );
        let at = (floor.max(1) as usize - 1).min(self.split.m - 1);
        for (i, &x) in moved.iter().enumerate() {
            if let Some(&ahead) = moved.get(i + REFRESH_AHEAD) {
                self.prefetch_entry(ahead as usize, at);
            }
            self.recheck(x as usize, j);
        }
        let any = !moved.is_empty();
        self.f.moved = moved;
        any
    }

    /// A sleeping unit at its wake: asleep again, at the cost of one read, where the floor has
    /// risen so far since it fell asleep that its count still cannot reach it; else woken.
    fn recheck(&mut self, x: usize, j: u32) {
        let floor = self.counts.floor();
        if floor >= 1 {
            let w = self.f.shifts.lo_key(rank(self.lists.of(x)[floor as usize - 1])) + 1;
            if w > j {
                return self.sleep_until(x, j, w);
            }
        }
        self.wake(x, j);
    }

    /// Unit `x`'s count at the end of step `j`, found from its ranks: awake (with its next
    /// draws scheduled) if it reaches the floor, else asleep until it could.
    fn wake(&mut self, x: usize, j: u32) {
        let list = self.lists.of(x);
        let shifts = &self.f.shifts;
        let lim = j - 1;
        // Ranks whose every draw's place is at most `lim` are in; those whose least is above
        // it are out; only the draws between need their exact place.
        // Near the floor, whose line the wake's step asked for.
        let hint = (self.counts.floor().max(1) as usize - 1).min(list.len() - 1);
        let sure = search_from(list, hint, |p| shifts.hi_key(p) <= lim);
        let mut end = sure;
        while end < list.len() && shifts.lo_key(rank(list[end])) <= lim {
            end += 1;
        }
        let floor = self.counts.floor();
        if (end as i16) < floor {
            return self.sleep(x, j);
        }
        self.f.window.clear();
        // Draws scheduled before the unit last fell asleep whose increments are still to come.
        let pending = self.pending(x, j);
        let (mut c, mut held) = (sure, 0);
        for i in sure..end {
            let (d, p) = (draw(list[i]), rank(list[i]));
            if u32::from(p) + self.f.in_top[d] < j {
                c += 1;
            } else {
                let at = self.place(d, p);
                self.f.window.push(at);
                held += usize::from(i < pending);
            }
        }
        if (c as i16) < floor {
            // The window's places not yet in, with the later ranks' least places, bound the
            // step its count reaches the floor: the cheap bound alone wakes it every step once
            // that has passed.
            let need = floor as usize - c;
            let w = self.window_bound(list, end, need);
            let cheap = self.f.shifts.lo_key(rank(list[floor as usize - 1])) + 1;
            return self.sleep_until(x, j, w.max(cheap));
        }
        self.f.units[x].state = State::Awake;
        self.counts.set(x, c as i16);
        for i in held..self.f.window.len() {
            let at = self.f.window[i];
            self.schedule(x, at);
        }
        self.f.units[x].next = end.max(pending) as u16;
        self.extend(x, j);
    }

    /// How many of unit `x`'s ranks were counted or scheduled before it last fell asleep, if
    /// increments it scheduled then are still to land after step `j`, else none. A unit falls
    /// asleep with increments pending only where its wake comes after the last of them, but a
    /// fall of the floor can wake it before: those increments then count for the woken unit,
    /// and its draws among them must not be scheduled again.
    fn pending(&self, x: usize, j: u32) -> usize {
        let unit = &self.f.units[x];
        if unit.last > j {
            usize::from(unit.next)
        } else {
            0
        }
    }

    /// The step that enters the `need`-th smallest place of the unit's draws not yet in: the
    /// window's places, and those of `list[end..]`, found exactly while one of them could come
    /// before the `need`-th smallest found so far (a few, for a small `need`: the shifts' bounds
    /// are a few dozen places apart), else bounded by their least places.
    fn window_bound(&mut self, list: UnitList, end: usize, need: usize) -> u32 {
        let window = &mut self.f.window;
        window.sort_unstable();
        if need > EXACT_NEED {
            return self.least_bound(list, end, need);
        }
        let mut b = end;
        loop {
            let kth = self.f.window.get(need - 1).copied().unwrap_or(u32::MAX);
            match (b < list.len()).then(|| list[b]) {
                Some(e) if self.f.shifts.lo_key(rank(e)) < kth => {
                    let at = self.place(draw(e), rank(e));
                    let w = &mut self.f.window;
                    let i = w.partition_point(|&v| v <= at);
                    w.insert(i, at);
                    b += 1;
                }
                _ => return kth.saturating_add(1),
            }
        }
    }

    /// [`Run::window_bound`] with the later draws' least places alone.
    fn least_bound(&self, list: UnitList, end: usize, need: usize) -> u32 {
        let window = &self.f.window;
        let (mut a, mut b, mut at) = (0, end, 0);
        for _ in 0..need {
            let later = if b < list.len() { self.f.shifts.lo_key(rank(list[b])) } else { u32::MAX };
            if a < window.len() && window[a] <= later {
                at = window[a];
                a += 1;
            } else {
                at = later;
                b += 1;
            }
        }
        at.saturating_add(1)
    }

    /// Unit `x` asleep from step `j`, until the first step its count could reach the floor.
    fn sleep(&mut self, x: usize, j: u32) {
        let floor = self.counts.floor();
        debug_assert!(floor >= 1);
        let w = self.f.shifts.lo_key(rank(self.lists.of(x)[floor as usize - 1])) + 1;
        self.sleep_until(x, j, w);
    }

    /// Unit `x` asleep from step `j` until step `w` (or the next).
    fn sleep_until(&mut self, x: usize, j: u32, w: u32) {
        let w = w.max(j + 1);
        self.f.units[x].state = State::Asleep;
        self.f.slept[x] = self.counts.floor();
        self.counts.count[x] = CHOSEN;
        self.f.control(x, w);
    }

    /// Awake unit `x` at the end of its scheduled draws: asleep if its count is below the
    /// floor and nothing it scheduled would land after its wake, else its next draws scheduled.
    fn refill(&mut self, x: usize, j: u32) {
        let (c, floor) = (self.counts.count[x], self.counts.floor());
        if c < floor {
            let w = self.f.shifts.lo_key(rank(self.lists.of(x)[floor as usize - 1])) + 1;
            if w.max(j + 1) > self.f.units[x].last {
                return self.sleep(x, j);
            }
        }
        self.extend(x, j);
    }

    /// Schedules awake unit `x`'s draws from `next` whose places could fall within the horizon
    /// after step `j`, and a refill at the first step the next one could enter.
    fn extend(&mut self, x: usize, j: u32) {
        let list = self.lists.of(x);
        let lim = j - 1 + HORIZON;
        let mut i = usize::from(self.f.units[x].next);
        while i < list.len() && self.f.shifts.lo_key(rank(list[i])) <= lim {
            let at = self.place(draw(list[i]), rank(list[i]));
            self.schedule(x, at);
            i += 1;
        }
        self.f.units[x].next = i as u16;
        if i < list.len() {
            let at = self.f.shifts.lo_key(rank(list[i]));
            self.f.control(x, at);
        }
    }

    /// Unit `x`'s count to go up at the step that enters place `at`.
    #[inline]
    fn schedule(&mut self, x: usize, at: u32) {
        let ring = self.f.bumps.len();
        self.f.bumps[(at as usize + 1) & (ring - 1)].push(x as u32);
        let last = &mut self.f.units[x].last;
        *last = (*last).max(at + 1);
    }

    /// Draw `d`'s merged place of its calibration rank `p`, not yet in its top: after the
    /// candidates in the top so far, those entering at or before `p`.
    #[inline]
    fn place(&self, d: usize, p: u16) -> u32 {
        let k = self.split.k;
        let e = &self.entries[d * k..(d + 1) * k];
        let p = u32::from(p);
        // Galloping from the candidates already in: most places asked for are near the top.
        let (mut lo, mut step) = (self.f.in_top[d] as usize, 1);
        let hi = loop {
            let probe = lo + step - 1;
            if probe >= k || e[probe] > p {
                break probe.min(k);
            }
            lo = probe + 1;
            step *= 2;
        };
        p + (lo + e[lo..hi].partition_point(|&x| x <= p)) as u32
    }
}

/// The first index where `pred` fails, `pred` holding on a prefix of `list`: galloping from
/// `hint` up or down, so that a hint near the answer reads only its own cache lines.
#[inline]
fn search_from(list: UnitList, hint: usize, pred: impl Fn(u16) -> bool) -> usize {
    if pred(rank(list[hint])) {
        return gallop(list, hint + 1, pred);
    }
    // Down: the answer is at most `hint`.
    let (mut hi, mut step) = (hint, 1);
    let lo = loop {
        if hi < step {
            break 0;
        }
        let probe = hi - step;
        if pred(rank(list[probe])) {
            break probe + 1;
        }
        hi = probe;
        step *= 2;
    };
    partition(list, lo, hi, pred)
}

/// The first index from `from` on where `pred` fails, `pred` holding on a prefix of `ranks`
/// that reaches at least `from`: doubling steps, then a binary search.
#[inline]
fn gallop(list: UnitList, from: usize, pred: impl Fn(u16) -> bool) -> usize {
    let (mut lo, mut step) = (from, 1);
    let hi = loop {
        let probe = lo + step - 1;
        if probe >= list.len() || !pred(rank(list[probe])) {
            break probe.min(list.len());
        }
        lo = probe + 1;
        step *= 2;
    };
    partition(list, lo, hi, pred)
}

/// The first index in `lo..hi` where `pred` fails (`hi` if none), `pred` holding on a prefix.
#[inline]
fn partition(list: UnitList, mut lo: usize, mut hi: usize, pred: impl Fn(u16) -> bool) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(rank(list[mid])) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
