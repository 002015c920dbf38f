//! The exact model rule (docs/method.md §2): `z(q)` solves the marginal selection constraint
//! `F(q, z) = β(q)`, tabulated on a fixed `q` grid and interpolated, and each unit's infimum is
//! where its line crosses `z`: polished per unit by Halley and Brent for few units, read from the
//! certified table ([`super::table`]) for many.

use super::halley::{halley_root, halley_step, Stop};
use super::sums::{far_tail, model_sums, Coefs};
use super::table::{self, Knot};
use super::{Cut, Units};
use crate::eb;
use crate::normal;
use crate::rvalue::brent::zeroin;

/// `q` range tabulated before polishing: `β` from about 3e-7 to where it rounds to 1. Units
/// selected already at the top are found by Brent above it.
pub(super) const Q_HI: f64 = 5.0;
pub(super) const Q_LO: f64 = -8.5;
/// Node spacing of the `z(q)` table. Quintic Hermite interpolation (values, first and second
/// derivatives, all from one pass over the units) is accurate to ~1e-7 at this spacing, so a
/// unit's seed lands close enough for one Halley step.
pub(super) const TABLE_STEP: f64 = 0.5;
/// How far Brent's fallback widens a bracket per step.
const Q_STEP: f64 = 0.25;
/// Far enough that `β = 1 − Φ(q)` is below the smallest normal double.
pub(super) const Q_FAR: f64 = 37.5;

/// A node of [`ZTable`]'s fixed `q` grid with what its solve needs of `q` alone, computed once:
/// a table is built per item, and these cost an `erfc`, an `exp` and a `log` per node.
struct Node {
    q: f64,
    beta: f64,
    ln_beta: f64,
    phi: f64,
}

fn nodes() -> &'static [Node] {
    static NODES: std::sync::OnceLock<Vec<Node>> = std::sync::OnceLock::new();
    NODES.get_or_init(|| {
        (0..ZTable::len())
            .map(|k| {
                let q = Q_HI - TABLE_STEP * k as f64;
                let beta = normal::sf(q);
                Node { q, beta, ln_beta: libm::log(beta), phi: normal::pdf(q) }
            })
            .collect()
    })
}

/// `z(q)` of the model rule tabulated on a `q` grid with its first two derivatives, for quintic
/// Hermite interpolation: cheap first guesses of where each unit's line crosses it.
pub(super) struct ZTable {
    pub(super) z: Vec<f64>,
    pub(super) dz: Vec<f64>,
    pub(super) d2z: Vec<f64>,
}

impl ZTable {
    pub(super) fn new() -> Self {
        // Room for every node at once: growing the Vecs node by node cost more than the nodes'
        // bookkeeping (a table is built per item).
        let n = Self::len();
        ZTable { z: Vec::with_capacity(n), dz: Vec::with_capacity(n), d2z: Vec::with_capacity(n) }
    }

    /// The `q` of node `j` (the grid is fixed: [`nodes`]).
    pub(super) fn q(j: usize) -> f64 {
        nodes()[j].q
    }

    /// Number of grid points down to `Q_LO`.
    pub(super) fn len() -> usize {
        ((Q_HI - Q_LO) / TABLE_STEP).round() as usize + 1
    }

    /// Tabulates down to point `j` (points are computed only as far as some unit needs them).
    pub(super) fn ensure(&mut self, j: usize, ss: &[f64], c: &Coefs) {
        while self.z.len() <= j {
            let k = self.z.len();
            let Some(&Node { q: qk, beta, ln_beta, phi }) = nodes().get(k) else {
                return;
            };
            let guess = match k {
                0 => c.start(qk),
                // Taylor from the previous node (q decreases by one step).
                _ => {
                    let h = TABLE_STEP;
                    self.z[k - 1] - h * self.dz[k - 1] + 0.5 * h * h * self.d2z[k - 1]
                }
            };
            // The first node starts far off (no previous node to extrapolate from): solve it
            // tightly, so that its sums, moved along a last step of ~1e-6, are exact too.
            let tol = if k == 0 { 1e-6 } else { 1e-3 };
            // Halley converges cubically: the error after a step d is about C·d³, with C of the
            // order of the squared inverse scale on which ln F bends: (ln F)''/(ln F)', or up to
            // b_max where a noisy unit's steep step sits near an inflection. A step below 1e-3
            // on the larger of those scales leaves ~1e-11, plenty for a table that only seeds.
            let seeded =
                |step: f64, g1: f64, g2: f64, _: f64| step.abs() * (1.0 + (g2 / g1).abs() + c.b_max) <= tol;
            let stop =
                Stop { iterations: 64, positive: false, settled: seeded, bracket: 1e-12, fresh: false };
            let (zk, sums) = match halley_root(qk, beta, ln_beta, guess, c, &stop) {
                Some(found) => found,
                None => {
                    let prev = if k == 0 { 0.0 } else { self.z[k - 1] };
                    let z = eb::z_model_from(beta, qk, ss, prev).unwrap_or(f64::NAN);
                    (z, model_sums(qk, z, c))
                }
            };
            // Implicit derivatives of F(q, z(q)) = 1 − Φ(q), once and twice.
            let dz = (-phi - sums.fq) / sums.fz;
            let d2z = (qk * phi - sums.fqq - 2.0 * sums.fqz * dz - sums.fzz * dz * dz) / sums.fz;
            self.z.push(zk);
            self.dz.push(dz);
            self.d2z.push(d2z);
        }
    }

    /// Quintic Hermite value of `z` at `x` in the cell `[q[j], q[j − 1]]`.
    pub(super) fn interpolate(&self, j: usize, x: f64) -> f64 {
        let knot = |j: usize| Knot { q: Self::q(j), z: self.z[j], dz: self.dz[j], d2z: self.d2z[j] };
        table::interpolate(&knot(j), &knot(j - 1), x)
    }
}

/// Model rule: unit `i` is selected at `q` iff `L_i(q) ≤ z(q)`, i.e. iff
/// `g_i(q) = F(L_i(q); q) − β(q) ≤ 0` with `F` the model's selected fraction. The tabulated `z`
/// brackets the first selection and its interpolant gives a first guess; for few units, Halley
/// on `g_i` (with its exact first and second derivatives) polishes it, and Brent takes over if
/// Halley misbehaves. Each polish step is a pass over all units, quadratic in all: from
/// [`table::TABULATE_FROM`] units on, a finer, certified table gives the crossings instead (see
/// [`table`]).
///
/// Every unit, or unit `only` alone (the others NaN: not computed); `+∞` for the units that
/// `cut` shows to be above its bound.
pub(super) fn exact_model(u: &Units, only: Option<usize>, cut: Option<Cut>) -> Vec<f64> {
    exact_model_by(u, only, cut, u.m.len() >= table::TABULATE_FROM)
}

/// [`exact_model`] from the certified table (`tabulate`) or by the per-unit polish.
pub(super) fn exact_model_by(u: &Units, only: Option<usize>, cut: Option<Cut>, tabulate: bool) -> Vec<f64> {
    let skip = |i: usize| only.is_some_and(|o| o != i);
    if let Some(l) = &u.limit {
        return l
            .w
            .iter()
            .enumerate()
            .map(|(i, &w)| match cut {
                _ if skip(i) => f64::NAN,
                Some(c) if l.exceeds(w, c.bound) => f64::INFINITY,
                _ => l.e(w),
            })
            .collect();
    }
    let n = u.m.len();
    if u.ss.iter().all(|&s| s == 0.0) {
        // Every V_β is a step: selected iff m ≥ q_β, i.e. β ≥ 1 − Φ(m).
        return u.m.iter().map(|&m| normal::sf(m)).collect();
    }
    if tabulate {
        return table::exact_model(u, only, cut);
    }
    let c = Coefs::new(&u.ss);
    let mut table = ZTable::new();
    (0..n)
        .map(|i| {
            if skip(i) {
                return f64::NAN;
            }
            if u.sd[i] == 0.0 {
                return normal::sf(u.m[i]);
            }
            polished_unit(u, i, cut, &c, &mut table)
        })
        .collect()
}

/// One unit's exact selection by the per-unit polish, so the table walk and the root search
/// read apart from the cases [`exact_model_by`] settles without them.
fn polished_unit(u: &Units, i: usize, cut: Option<Cut>, c: &Coefs, table: &mut ZTable) -> f64 {
    let mut first = None;
    for j in 0..ZTable::len() {
        table.ensure(j, &u.ss, c);
        if u.line(i, ZTable::q(j)) <= table.z[j] {
            first = Some(j);
            break;
        }
        if cut.is_some_and(|cut| ZTable::q(j) < cut.q) && unselected(u, i, c, table, j) {
            return f64::INFINITY;
        }
    }
    let q = match first {
        None => return 1.0,
        Some(0) => crossing_by_brent(u, i, c, Q_HI, Q_FAR),
        Some(j) => {
            let (lo, hi) = (ZTable::q(j), ZTable::q(j - 1));
            let h = |x: f64| u.line(i, x) - table.interpolate(j, x);
            let guess = zeroin(lo, hi, h(lo), h(hi), 1e-13, h);
            halley_crossing(u, i, c, guess, lo, hi).unwrap_or_else(|| crossing_by_brent(u, i, c, lo, hi))
        }
    };
    if q.is_nan() {
        1.0
    } else {
        normal::sf(q)
    }
}

/// Whether unit `i` is surely not selected at node `j`, the table having said so: by a clear
/// gap between its line and the tabulated `z` (nodes are solved to about 1e-11), else by the
/// sign of `g_i` itself. Leaving out a unit there relies on it: the exact search's Brent fallback
/// widens a bracket upwards in steps that land on this node and stops where `g_i > 0`.
fn unselected(u: &Units, i: usize, c: &Coefs, table: &ZTable, j: usize) -> bool {
    let q = ZTable::q(j);
    u.line(i, q) > table.z[j] + 1e-6 || g_derivatives(u, i, c, q).0 > 0.0
}

/// `g_i(q)`, `g_i'(q)` and `g_i''(q)` in one pass over the units. `A_j = q a_j − L_i(q) b_j`
/// is linear in `q` with slope `c_j = a_j − b_j/√v_i`, so the second derivative needs no further
/// tail evaluation.
pub(super) fn g_derivatives(u: &Units, i: usize, c: &Coefs, q: f64) -> (f64, f64, f64) {
    let l = u.line(i, q);
    let dl = 1.0 / u.sd[i];
    let (mut f, mut df, mut d2f) = (0.0, 0.0, 0.0);
    for (&aj, &bj) in c.a.iter().zip(&c.b) {
        let x = q * aj - l * bj;
        let cj = aj - bj * dl;
        // `cj` finite too: `φ = 0` times it is then `±0`.
        if far_tail(x, c) && cj.is_finite() {
            if x < 0.0 {
                f += 1.0;
            }
            continue;
        }
        let (sf, p) = normal::sf_pdf_fast(x);
        f += sf;
        df -= p * cj;
        d2f += x * p * cj * cj;
    }
    let n = c.a.len() as f64;
    let phi = normal::pdf(q);
    (f / n - normal::sf(q), df / n + phi, d2f / n - q * phi)
}

/// Halley on `g_i` from `q`, kept inside `[lo, hi]`; `None` if it does not settle quickly.
pub(super) fn halley_crossing(u: &Units, i: usize, c: &Coefs, mut q: f64, lo: f64, hi: f64) -> Option<f64> {
    for _ in 0..8 {
        let (g, dg, d2g) = g_derivatives(u, i, c, q);
        if g == 0.0 {
            return Some(q);
        }
        if !(dg.abs() > 0.0) {
            return None;
        }
        let step = halley_step(g, dg, d2g);
        let next = q - step;
        if !(next >= lo - 1e-9 && next <= hi + 1e-9) {
            return None;
        }
        q = next;
        // Cubic convergence: the error after a step d is about C·d³ with C ~ (g''/g')², so a
        // step below 1e-4 on the scale of g''/g' leaves ~1e-12 in q, well inside the 1e-9 promised
        // in β.
        if step.abs() * (1.0 + (d2g / dg).abs()) < 1e-4 {
            return Some(q);
        }
    }
    None
}

/// The robust fallback: Brent on `g_i` over `[lo, hi]`, widened until `g_i` changes sign.
pub(super) fn crossing_by_brent(u: &Units, i: usize, c: &Coefs, mut lo: f64, mut hi: f64) -> f64 {
    let g = |q: f64| g_derivatives(u, i, c, q).0;
    let (mut glo, mut ghi) = (g(lo), g(hi));
    while glo > 0.0 && lo > Q_LO {
        hi = lo;
        ghi = glo;
        lo = (lo - Q_STEP).max(Q_LO);
        glo = g(lo);
    }
    if glo > 0.0 {
        return f64::NAN;
    }
    while ghi <= 0.0 && hi < Q_FAR {
        lo = hi;
        glo = ghi;
        hi = (hi + Q_STEP).min(Q_FAR);
        ghi = g(hi);
    }
    if ghi <= 0.0 {
        return f64::INFINITY;
    }
    zeroin(lo, hi, glo, ghi, 1e-12, g)
}
