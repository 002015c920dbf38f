//! The model rule for many units in `O(U·G)` (docs/method.md §2).
//!
//! Unit `i` is selected at `q` iff its line `L_i(q)` is at or below `z(q)`, the root of the
//! model's selected fraction `F(q, z) = β(q)`. `z` depends on the units only through their noise,
//! the same for every unit: solving it once per unit and step (as the per-unit polish does, each
//! solve a pass over all `U` units) makes the r-values quadratic in `U`. Here `z` is solved at
//! `G` knots in `q` instead (a few hundred, each one pass over the units: `O(U·G)`), and every
//! unit's crossing comes from a quintic Hermite interpolant of `z` between two knots (`O(G)` per
//! unit for the knot scan, `O(1)` for the crossing).
//!
//! Why it stays exact: the knots are roots of `F = β` to rounding (Halley on `ln F`, stopped only
//! once a step is below `1e-7`, so the next one would be below rounding), with `z'` and `z''`
//! from the implicit function theorem on the sums at the root. A cell's interpolation error is
//! `z⁽⁶⁾(ξ)/720 · (x − a)³(x − b)³`, largest at the midpoint: every cell is checked there against
//! a solved knot and halved until the check passes, and the check's knot then splits it, so the
//! cells in use are about 64 times more accurate than the check's `1e-11`. A crossing's error in
//! `β` is `φ(q)·δz/|L_i' − z'|`, far below `1e-9`. Where `z` is ill-conditioned (`β` rounding
//! towards 1, where only `1 − β` matters) the tolerance grows with `1/(1 − β)`, and a cell whose
//! whole span in `β` is below `1e-12` needs no check at all. A cell that does not pass within
//! [`MAX_DEPTH`] halvings (steep steps of a very noisy unit) is marked, and a crossing inside it
//! is polished on the exact `g_i` as for few units.
//!
//! The knots depend only on the units and a fixed sequence of cells, never on which unit asked
//! for them first, so a table built lazily (as deep as one unit or a cut needs) is a prefix of the
//! full one, and every r-value it gives has the same bits.

use super::halley::{halley_root, Stop};
use super::model::{crossing_by_brent, halley_crossing, Q_FAR, Q_HI, Q_LO, TABLE_STEP};
use super::sums::{model_sums, Coefs};
use super::{Cut, Units};
use crate::eb;
use crate::normal;
use crate::rvalue::brent::zeroin;

/// From this many units on, [`super::exact_model`] and the grid's model rule use the table.
/// Below, the per-unit polish on the exact `g_i` (three passes over the units per unit) costs
/// less than the table's few hundred passes, and keeps the explorer's items (at most a few hundred
/// candidates) on the results they always had.
pub(super) const TABULATE_FROM: usize = 512;

/// The interpolation check: a cell passes when its midpoint is within this of the solved knot
/// (relative to `1 + |z|`).
const TOL: f64 = 1e-11;
/// How often a cell may be halved: `0.5/2¹⁴ ≈ 3e-5` in `q`.
const MAX_DEPTH: u32 = 14;
/// A cell spanning less than this in `β` is exact enough whatever its interpolant.
const BETA_SPAN: f64 = 1e-12;
/// Halley on `ln F` stops once a step is below this (relative to `1 + |z|`): the error left is
/// about the cube of it, and the sums, moved along the step to first order, its square.
const SETTLED: f64 = 1e-7;

/// `z` and its first two derivatives at one `q`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Knot {
    pub q: f64,
    pub z: f64,
    pub dz: f64,
    pub d2z: f64,
}

impl Knot {
    fn finite(&self) -> bool {
        self.z.is_finite() && self.dz.is_finite() && self.d2z.is_finite()
    }
}

/// Quintic Hermite value at `x` of the cell between knots `a` and `b` (in either order).
pub(super) fn interpolate(a: &Knot, b: &Knot, x: f64) -> f64 {
    let h = b.q - a.q;
    let t = (x - a.q) / h;
    let (t2, t3) = (t * t, t * t * t);
    let (t4, t5) = (t3 * t, t3 * t2);
    let h00 = 1.0 - 10.0 * t3 + 15.0 * t4 - 6.0 * t5;
    let h10 = t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5;
    let h20 = 0.5 * (t2 - 3.0 * t3 + 3.0 * t4 - t5);
    let h21 = 0.5 * (t3 - 2.0 * t4 + t5);
    let h11 = -4.0 * t3 + 7.0 * t4 - 3.0 * t5;
    let h01 = 10.0 * t3 - 15.0 * t4 + 6.0 * t5;
    h00 * a.z + h * (h10 * a.dz + h11 * b.dz) + h * h * (h20 * a.d2z + h21 * b.d2z) + h01 * b.z
}

/// One direction of the table from the knot at `Q_HI`: knots in the order they are met, and per
/// cell (between knots `k − 1` and `k`) its error bound in `z`, or `None` where the interpolant
/// is not certified.
struct Side {
    knots: Vec<Knot>,
    bound: Vec<Option<f64>>,
    /// `±TABLE_STEP`: the coarse cells are those of the per-unit polish's table.
    step: f64,
    /// The last coarse knot's `q`.
    end: f64,
    coarse: usize,
}

impl Side {
    fn new(first: Knot, step: f64, end: f64) -> Self {
        Side { knots: vec![first], bound: vec![None], step, end, coarse: 0 }
    }
}

/// `z(q)` tabulated lazily, downwards to `Q_LO` and upwards to `Q_FAR` from `Q_HI`.
pub(super) struct Table<'a> {
    c: &'a Coefs,
    ss: &'a [f64],
    down: Side,
    up: Side,
    /// Knots solved in all (a cap on a pathological table: its cells stop being halved).
    solved: usize,
}

/// Where a unit is first selected, scanning from the top: the cell between two knots, with its
/// error bound (`None`: use the exact `g_i`), `Above` for every knot up to `Q_FAR`, `Never` for
/// none down to `Q_LO`, `Cut` for none down to a cut.
enum Found {
    Cell(Knot, Knot, Option<f64>),
    Above,
    Never,
    Cut,
}

impl<'a> Table<'a> {
    pub(super) fn new(ss: &'a [f64], c: &'a Coefs) -> Self {
        let mut solved = 0;
        let first = knot(Q_HI, c.start(Q_HI), ss, c, &mut solved);
        Table {
            c,
            ss,
            down: Side::new(first, -TABLE_STEP, Q_LO),
            up: Side::new(first, TABLE_STEP, Q_FAR),
            solved,
        }
    }

    /// Knot `k` downwards (0 at `Q_HI`), growing the table as needed; `None` past `Q_LO`.
    pub(super) fn down(&mut self, k: usize) -> Option<(Knot, Option<f64>)> {
        while self.down.knots.len() <= k {
            if !grow(&mut self.down, self.ss, self.c, &mut self.solved) {
                return None;
            }
        }
        Some((self.down.knots[k], self.down.bound[k]))
    }

    fn up(&mut self, k: usize) -> Option<(Knot, Option<f64>)> {
        while self.up.knots.len() <= k {
            if !grow(&mut self.up, self.ss, self.c, &mut self.solved) {
                return None;
            }
        }
        Some((self.up.knots[k], self.up.bound[k]))
    }

    /// The first knot from the top where unit `i` is selected (`L_i ≤ z`, as the per-unit path
    /// decides it on its own table), and the cell above it.
    fn find(&mut self, u: &Units, i: usize, cut: Option<Cut>) -> Found {
        let selected = |k: &Knot| k.z.is_finite() && u.line(i, k.q) <= k.z;
        let mut prev: Option<Knot> = None;
        let mut k = 0;
        while let Some((knot, bound)) = self.down(k) {
            if selected(&knot) {
                return match prev {
                    Some(p) => Found::Cell(p, knot, bound),
                    None => self.find_up(u, i),
                };
            }
            if cut.is_some_and(|cut| knot.q < cut.q) {
                return Found::Cut;
            }
            prev = Some(knot);
            k += 1;
        }
        Found::Never
    }

    /// Unit `i` is selected at `Q_HI`: the first knot above where it is not, and the cell below.
    fn find_up(&mut self, u: &Units, i: usize) -> Found {
        let mut prev = self.up.knots[0];
        let mut k = 1;
        while let Some((knot, bound)) = self.up(k) {
            if !(knot.z.is_finite() && u.line(i, knot.q) <= knot.z) {
                return Found::Cell(knot, prev, bound);
            }
            prev = knot;
            k += 1;
        }
        Found::Above
    }

    /// `z` at `q` with its error bound (infinite where a cell is thin in `β`), from the cell
    /// holding `q`, searched from knot `*from` down and left there for the next, lower `q`.
    /// `Err` with a guess for `z` where there is no certified cell (outside `[Q_LO, Q_HI]`, or
    /// not certified).
    pub(super) fn z_at(&mut self, q: f64, from: &mut usize) -> Result<(f64, f64), f64> {
        let top = self.down.knots[0];
        if !(q <= top.q && q >= Q_LO) {
            return Err(if q > top.q { top.z } else { 0.0 });
        }
        let mut k = (*from).max(1);
        loop {
            let Some((b, bound)) = self.down(k) else {
                return Err(0.0);
            };
            if b.q <= q {
                let a = self.down.knots[k - 1];
                *from = k;
                let z = interpolate(&a, &b, q);
                return bound.map(|e| (z, e)).ok_or(if z.is_finite() { z } else { b.z });
            }
            k += 1;
        }
    }

    pub(super) fn ss(&self) -> &'a [f64] {
        self.ss
    }

    /// Knots solved so far, and how many cells are not certified.
    #[cfg(test)]
    pub(super) fn size(&self) -> (usize, usize) {
        let open = self.down.bound.iter().chain(&self.up.bound).skip(1).filter(|b| b.is_none()).count();
        (self.solved, open - 1)
    }
}

/// Appends the next coarse cell to `side`, halved where its interpolant needs it; `false` when
/// the side is complete.
fn grow(side: &mut Side, ss: &[f64], c: &Coefs, solved: &mut usize) -> bool {
    let next = side.coarse + 1;
    let q = Q_HI + side.step * next as f64;
    if (side.step < 0.0 && q < side.end - 1e-9) || (side.step > 0.0 && q > side.end + 1e-9) {
        return false;
    }
    side.coarse = next;
    let a = side.knots[side.knots.len() - 1];
    // Taylor from the last knot: the coarse step is long, so Halley takes a few steps here.
    let h = q - a.q;
    let guess = if a.finite() { a.z + h * a.dz + 0.5 * h * h * a.d2z } else { a.z };
    let b = knot(q, guess, ss, c, solved);
    refine(side, a, b, 0, ss, c, solved);
    true
}

/// Checks the cell from knot `a` (already in `side`) to `b` at its midpoint, and appends its
/// knots: the midpoint and `b` if the check passes, else each half refined.
fn refine(side: &mut Side, a: Knot, b: Knot, depth: u32, ss: &[f64], c: &Coefs, solved: &mut usize) {
    // Below q = 0 β only nears 1: a cell this thin in β gives every crossing in it to 1e-12
    // whatever the interpolant (it has no bound in z, but needs none).
    if a.q.max(b.q) <= 0.0 && (normal::sf(a.q) - normal::sf(b.q)).abs() <= BETA_SPAN {
        push(side, b, Some(f64::INFINITY));
        return;
    }
    if !(a.finite() && b.finite()) {
        push(side, b, None);
        return;
    }
    let mq = 0.5 * (a.q + b.q);
    let guess = interpolate(&a, &b, mq);
    let m = knot(mq, guess, ss, c, solved);
    let tol = TOL * (1.0 + m.z.abs()) * conditioning(mq);
    if (m.z - guess).abs() <= tol {
        // The halves are each far more accurate than the whole (error ∝ width⁶), so `tol` bounds
        // them with room.
        push(side, m, Some(tol));
        push(side, b, Some(tol));
    } else if depth >= MAX_DEPTH || *solved >= MAX_KNOTS || !m.finite() {
        push(side, m, None);
        push(side, b, None);
    } else {
        refine(side, a, m, depth + 1, ss, c, solved);
        refine(side, m, b, depth + 1, ss, c, solved);
    }
}

/// A cap on the knots solved, far above the few hundred a table needs.
const MAX_KNOTS: usize = 1 << 14;

fn push(side: &mut Side, k: Knot, bound: Option<f64>) {
    side.knots.push(k);
    side.bound.push(bound);
}

/// How much the check's tolerance grows where `β` nears 1: there `F − β` is resolved only to
/// about `1e-16` against `1 − β`, so `z` is known only to a relative `1e-16/(1 − β)`. The
/// crossing's error in `β` still shrinks, as `φ(q) ≈ |q|(1 − β)`.
fn conditioning(q: f64) -> f64 {
    if q >= -2.0 {
        1.0
    } else {
        (1e-3 / normal::cdf(q)).max(1.0)
    }
}

/// The knot at `q`: `z` solved from `guess`, and its derivatives from the sums at the root.
fn knot(q: f64, guess: f64, ss: &[f64], c: &Coefs, solved: &mut usize) -> Knot {
    *solved += 1;
    let (beta, phi) = (normal::sf(q), normal::pdf(q));
    // Run until a step is below SETTLED, so that `z` is a root to rounding; `ln F` must exist.
    let settled = |step: f64, _: f64, _: f64, z: f64| step.abs() <= SETTLED * (1.0 + z.abs());
    let stop = Stop { iterations: 100, positive: true, settled, bracket: 1e-13, fresh: true };
    let (z, sums) = match halley_root(q, beta, libm::log(beta), guess, c, &stop) {
        Some(found) => found,
        None => {
            let z = eb::z_model_from(beta, q, ss, guess).unwrap_or(f64::NAN);
            (z, model_sums(q, z, c))
        }
    };
    // Implicit derivatives of F(q, z(q)) = 1 − Φ(q), once and twice.
    let dz = (-phi - sums.fq) / sums.fz;
    let d2z = (q * phi - sums.fqq - 2.0 * sums.fqz * dz - sums.fzz * dz * dz) / sums.fz;
    Knot { q, z, dz, d2z }
}

/// The model rule's r-values from the table: [`super::exact_model`] for many units (every
/// unit, or `only`; `+∞` where `cut` shows an r-value above its bound).
pub(super) fn exact_model(u: &Units, only: Option<usize>, cut: Option<Cut>) -> Vec<f64> {
    let c = Coefs::new(&u.ss);
    let mut table = Table::new(&u.ss, &c);
    (0..u.m.len())
        .map(|i| {
            if only.is_some_and(|o| o != i) {
                return f64::NAN;
            }
            if u.sd[i] == 0.0 {
                return normal::sf(u.m[i]);
            }
            match table.find(u, i, cut) {
                Found::Never => 1.0,
                Found::Cut => f64::INFINITY,
                Found::Above => 0.0,
                Found::Cell(a, b, bound) => crossing(u, i, &c, &a, &b, bound),
            }
        })
        .collect()
}

/// The r-value of unit `i`, whose line meets `z` in the cell from `a` (not selected) to `b`
/// (selected): on the interpolant where it is certified, else polished on the exact `g_i` from
/// there.
fn crossing(u: &Units, i: usize, c: &Coefs, a: &Knot, b: &Knot, bound: Option<f64>) -> f64 {
    let d = |x: f64| u.line(i, x) - interpolate(a, b, x);
    let (lo, hi) = if a.q < b.q { (a, b) } else { (b, a) };
    let (dlo, dhi) = (u.line(i, lo.q) - lo.z, u.line(i, hi.q) - hi.z);
    let q = if dlo.is_finite() && dhi.is_finite() { zeroin(lo.q, hi.q, dlo, dhi, 0.0, d) } else { lo.q };
    if bound.is_some() {
        return normal::sf(q.clamp(lo.q, hi.q));
    }
    let q = halley_crossing(u, i, c, q, lo.q, hi.q).unwrap_or_else(|| crossing_by_brent(u, i, c, lo.q, hi.q));
    if q.is_nan() {
        1.0
    } else {
        normal::sf(q)
    }
}
