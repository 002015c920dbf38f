//! The rvalues 0.7.1 grid algorithm: `r_i` is the first point of a fixed log-spaced grid of `β`
//! at which unit `i` is selected, found with one pass over the units per grid point.

use super::sums::Coefs;
use super::table;
use super::{LambdaRule, Limit, Units};
use crate::eb;
use crate::normal;

/// The grid size of rvalues 0.7.1: `U` up to 1000 units, then slowly more.
pub fn grid_size(u: usize) -> usize {
    if u <= 1000 {
        u
    } else {
        let e = (u - 1000) as f64;
        1000 + ((5.0 * libm::pow(e, 0.2) * libm::log(e)).ceil() as usize).min(4000)
    }
}

/// `exp(seq(log(1/U), log(1 − 1/U), length.out = G))` exactly as R's `seq` computes it.
pub fn log_grid(u: usize) -> Vec<f64> {
    let g = grid_size(u);
    let from = libm::log(1.0 / u as f64);
    let to = libm::log(1.0 - 1.0 / u as f64);
    match g {
        0 => Vec::new(),
        1 => vec![libm::exp(from)],
        _ => {
            let n1 = (g - 1) as f64;
            let by = (to - from) / n1;
            (0..g)
                .map(|j| match j {
                    0 => from,
                    j if j == g - 1 => to,
                    j => from + j as f64 * by,
                })
                .map(libm::exp)
                .collect()
        }
    }
}

/// The grid algorithm: `r_i = β_j` for the first grid point with `V_j(i) > λ_j` (strict), else
/// the last. Per grid point one pass over the lines finds `λ_j`'s line `T` (an order statistic
/// for the empirical rule, `z_β` for the model rule); `V > λ` is then `L < T`, confirmed on the
/// tail probabilities themselves where they could round to equality (so ties behave as in R).
/// Memory is `O(U)`: the `U × G` matrix of `V` that rvalues builds is never formed.
///
/// With the model rule and from [`table::TABULATE_FROM`] units on, `z_β` comes from the exact
/// rule's certified table (see [`ModelThresholds`]).
pub(super) fn grid(u: &Units, rule: LambdaRule) -> Vec<f64> {
    grid_by(u, rule, u.m.len() >= table::TABULATE_FROM)
}

/// [`grid`], its model rule's thresholds from the table (`tabulate`) or solved per grid point.
pub(super) fn grid_by(u: &Units, rule: LambdaRule, tabulate: bool) -> Vec<f64> {
    let betas = log_grid(u.m.len());
    if let Some(l) = &u.limit {
        return grid_limit(l, rule, &betas);
    }
    let coefs =
        (rule == LambdaRule::Model && tabulate && u.ss.iter().any(|&s| s > 0.0)).then(|| Coefs::new(&u.ss));
    let mut zs = ModelThresholds::new(&u.ss, coefs.as_ref());
    let mut g = GridPass::new(u, *betas.last().unwrap_or(&1.0));
    // The previous grid point's threshold is applied inside the next point's pass (its line
    // recomputed from its q), so each grid point costs one pass over the units.
    let mut pending: Option<Pending> = None;
    for &beta in &betas {
        let q = normal::upper_quantile(beta);
        let below = g.pass(u, pending.as_mut(), q);
        let (t, lambda, near) = match rule {
            LambdaRule::Empirical => g.empirical_threshold(u, beta, q, below),
            LambdaRule::Model => zs.at(beta, q),
        };
        let clear = (-8.0..=37.0).contains(&t);
        pending = Some(Pending { beta, q, t, lambda, clear, near });
    }
    if let Some(p) = &mut pending {
        g.settle_rest(u, p);
    }
    g.r
}

/// The grid algorithm in the `τ² → 0` limit, where `V` depends on a unit's `w` alone.
fn grid_limit(l: &Limit, rule: LambdaRule, betas: &[f64]) -> Vec<f64> {
    let last = *betas.last().unwrap_or(&1.0);
    match rule {
        // V > λ ⇔ w_i > e(β) ⇔ E(w_i) < β.
        LambdaRule::Model => {
            l.w.iter()
                .map(|&w| {
                    let e = l.e(w);
                    betas.iter().copied().find(|&b| e < b).unwrap_or(last)
                })
                .collect()
        }
        LambdaRule::Empirical => grid_limit_empirical(&l.w, betas),
    }
}

/// One bit per unit: keeps the pass's working set (m, 1/sd: 16 bytes a unit) in L2.
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0u64; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }
}

/// What the grid algorithm keeps from one grid point to the next, with room for every unit
/// allocated once.
struct GridPass {
    /// `r_i` so far: the last grid point until an earlier one selects the unit.
    r: Vec<f64>,
    /// Units settled, or handled apart as noise-free.
    done: Bits,
    /// `1/sd` per unit (0 where noise-free), so that a line is a multiply.
    inv: Vec<f64>,
    /// Noise-free units have a step for V and ±∞ for a line: handled apart, and marked done
    /// for the main pass.
    noise_free: Vec<usize>,
    noise_free_done: Vec<bool>,
    candidates: Vec<u32>,
    window: Window,
    /// Every unit's line, for the rare grid point where the window misses.
    lines: Vec<f64>,
}

impl GridPass {
    fn new(u: &Units, last: f64) -> Self {
        let n = u.m.len();
        let inv: Vec<f64> = u.sd.iter().map(|&sd| if sd > 0.0 { 1.0 / sd } else { 0.0 }).collect();
        let noise_free: Vec<usize> = (0..n).filter(|&i| u.sd[i] == 0.0).collect();
        let mut done = Bits::new(n);
        for &i in &noise_free {
            done.set(i);
        }
        GridPass {
            r: vec![last; n],
            done,
            inv,
            noise_free_done: vec![false; noise_free.len()],
            noise_free,
            candidates: vec![0u32; n + 1],
            window: Window::new(),
            lines: Vec::new(),
        }
    }

    /// The pass at grid point `q`: settles the open units the pending threshold selects and
    /// fills the window for this point; returns how many lines lie below the window.
    fn pass(&mut self, u: &Units, mut pending: Option<&mut Pending>, q: f64) -> usize {
        let (lo, hi) = self.window.bounds(q);
        let (q_prev, t_prev) = pending.as_ref().map_or((q, f64::NEG_INFINITY), |p| (p.q, p.t));
        let bounds = [q_prev, t_prev, q, lo, hi];
        let buffer = self.window.buffer(u.m.len());
        let (nc, ni, below) = scan(&u.m, &self.inv, &self.done.0, bounds, &mut self.candidates, buffer);
        self.window.len = ni;
        if let Some(p) = pending.as_deref_mut() {
            for &i in &self.candidates[..nc] {
                let i = i as usize;
                if p.above(u, i, (q_prev - u.m[i]) * self.inv[i]) {
                    self.r[i] = p.beta;
                    self.done.set(i);
                }
            }
        }
        self.pass_noise_free(u, pending, q, (lo, hi), below)
    }

    /// The noise-free units' share of a pass: settled on their own lines, and their ±∞ lines
    /// (which the pass's formula took for 0) put right in `below` and the window.
    fn pass_noise_free(
        &mut self,
        u: &Units,
        mut pending: Option<&mut Pending>,
        q: f64,
        (lo, hi): (f64, f64),
        mut below: usize,
    ) -> usize {
        for (j, &i) in self.noise_free.iter().enumerate() {
            if let Some(p) = pending.as_deref_mut() {
                if !self.noise_free_done[j] && p.above(u, i, u.line(i, p.q)) {
                    self.r[i] = p.beta;
                    self.noise_free_done[j] = true;
                }
            }
            // Take back what the formula counted (a line of 0) and count the real ±∞.
            if 0.0 < lo {
                below -= 1;
            } else if 0.0 <= hi {
                self.window.remove(i);
            }
            below += usize::from(u.line(i, q) < lo);
        }
        below
    }

    /// The empirical rule's `(T, λ)` at `(β, q)`: λ is the k-th smallest V, i.e. the line of
    /// rank U − k + 1 from below; λ itself is that unit's V computed as R does.
    fn empirical_threshold(
        &mut self,
        u: &Units,
        beta: f64,
        q: f64,
        below: usize,
    ) -> (f64, f64, Option<Near>) {
        let n = u.m.len();
        let k = n - eb::type1_rank(n, 1.0 - beta) + 1;
        let lines = &mut self.lines;
        let (t, unit) = self.window.kth(below, k, move || {
            lines.clear();
            lines.extend((0..n).map(|i| u.line(i, q)));
            lines
        });
        self.window.follow(t, q, self.inv[unit]);
        (t, v_as_r(u, unit, q), None)
    }

    /// After the last grid point: its threshold applied to every unit still open.
    fn settle_rest(&mut self, u: &Units, p: &mut Pending) {
        for i in 0..u.m.len() {
            let line = u.line(i, p.q);
            let open = if u.sd[i] == 0.0 {
                self.noise_free.iter().position(|&j| j == i).is_some_and(|j| !self.noise_free_done[j])
            } else {
                !self.done.get(i)
            };
            if open && line < p.t && p.above(u, i, line) {
                self.r[i] = p.beta;
            }
        }
    }
}

/// One pass of the grid algorithm over the units, kept out of line so that its few values
/// stay in registers: collects the still-open units whose previous line `(q_prev − m)/sd` is
/// below the previous threshold, keeps the new lines `(q − m)/sd` that fall in `[lo, hi]`, and
/// returns how many of each there are and how many lines fall below `lo`. The buffers have room
/// for every unit (allocated once).
#[inline(never)]
fn scan(
    m: &[f64],
    inv: &[f64],
    done: &[u64],
    [q_prev, t_prev, q, lo, hi]: [f64; 5],
    candidates: &mut [u32],
    inside: &mut [(f64, u32)],
) -> (usize, usize, usize) {
    let (mut nc, mut ni, mut below) = (0usize, 0usize, 0usize);
    // 64 units at a time: the tests become bit masks in a branch-free loop, and only the few set
    // bits are visited.
    for (c, (mc, ic)) in m.chunks(64).zip(inv.chunks(64)).enumerate() {
        let (mut cand, mut win) = (0u64, 0u64);
        for (b, (&mi, &inv_i)) in mc.iter().zip(ic).enumerate() {
            let old = (q_prev - mi) * inv_i;
            let l = (q - mi) * inv_i;
            cand |= u64::from(old < t_prev) << b;
            below += usize::from(l < lo);
            win |= (u64::from(l >= lo) & u64::from(l <= hi)) << b;
        }
        cand &= !done[c];
        while cand != 0 {
            let i = c * 64 + cand.trailing_zeros() as usize;
            candidates[nc] = i as u32;
            nc += 1;
            cand &= cand - 1;
        }
        while win != 0 {
            let i = c * 64 + win.trailing_zeros() as usize;
            inside[ni] = ((q - m[i]) * inv[i], i as u32);
            ni += 1;
            win &= win - 1;
        }
    }
    (nc, ni, below)
}

/// The grid algorithm in the `τ² → 0` limit with the empirical rule: the lines are the constants
/// `−w_i`, so the order statistic per grid point comes from one sort, and `r_i` is the first
/// grid point whose threshold lies strictly above `−w_i`.
fn grid_limit_empirical(w: &[f64], betas: &[f64]) -> Vec<f64> {
    let n = w.len();
    let mut sorted: Vec<f64> = w.iter().map(|x| -x).collect();
    sorted.sort_unstable_by(f64::total_cmp);
    let last = *betas.last().unwrap_or(&1.0);
    w.iter()
        .map(|&wi| {
            betas
                .iter()
                .copied()
                .find(|&beta| {
                    let k = n - eb::type1_rank(n, 1.0 - beta) + 1;
                    -wi < sorted[k - 1]
                })
                .unwrap_or(last)
        })
        .collect()
}

/// A grid point whose threshold is known but not yet applied.
struct Pending {
    beta: f64,
    q: f64,
    /// The threshold `T`, or with `near` an upper bound on it.
    t: f64,
    lambda: f64,
    /// Off the saturated tails, where a gap in the lines is a gap in V.
    clear: bool,
    /// The model rule's `T` known only near an interpolated value (see [`Near`]).
    near: Option<Near>,
}

/// `T` within `eps` of `t` (the table's interpolant), and `T` itself once a line came close
/// enough to need it.
struct Near {
    t: f64,
    eps: f64,
    exact: Option<(f64, f64)>,
}

impl Pending {
    /// `V(i) > λ` given `L_i < T`: a clear gap decides; near a tie or where V rounds to 0 or 1,
    /// compare the probabilities R would compare. With an interpolated threshold, `L_i < T` is
    /// not given: a line clearly below every `T` within its bound is decided on the lines as
    /// above, any other on `T` solved exactly (once per grid point, and only where a line comes
    /// within about 1e-9 of it: with `U` units that is rare, so the grid point costs no pass).
    #[cold]
    fn above(&mut self, u: &Units, i: usize, line: f64) -> bool {
        let Some(near) = &mut self.near else {
            return decide(self.t, self.lambda, self.clear, u, i, self.q, line);
        };
        let low = near.t - near.eps;
        if low >= -8.0 && near.t + near.eps <= 37.0 && (low - line) > 1e-9 * (1.0 + near.t.abs() + near.eps) {
            return true;
        }
        let (beta, q, guess) = (self.beta, self.q, near.t);
        let (t, lambda) = *near.exact.get_or_insert_with(|| exact_threshold(beta, q, &u.ss, guess));
        line < t && decide(t, lambda, (-8.0..=37.0).contains(&t), u, i, q, line)
    }
}

/// [`Pending::above`] with `T` and `λ` known.
fn decide(t: f64, lambda: f64, clear: bool, u: &Units, i: usize, q: f64, line: f64) -> bool {
    if clear {
        (t - line) > 1e-9 * (1.0 + t.abs()) || v_as_r(u, i, q) > lambda
    } else {
        // λ = 1 (the threshold's V rounded to 1): no V is larger, skip the tail probability.
        lambda < 1.0 && v_as_r(u, i, q) > lambda
    }
}

/// The model rule's `T = z_β` and `λ = 1 − Φ(z_β)` at one grid point, solved from `guess`.
fn exact_threshold(beta: f64, q: f64, ss: &[f64], guess: f64) -> (f64, f64) {
    match eb::z_model_from(beta, q, ss, guess) {
        Some(z) => (z, normal::sf(z)),
        // No noisy unit: V ∈ {0, 1} and the threshold is q itself (λ = 0 selects V = 1).
        None => (f64::INFINITY, 0.0),
    }
}

/// Where the grid's model rule takes `z_β` from: solved per grid point, each from the last (for
/// few units), or interpolated in the table of [`table::Table`] (for many: a solve is a few passes
/// over the units, the table a few hundred in all however many grid points there are).
enum ModelThresholds<'a> {
    Solve { ss: &'a [f64], guess: f64 },
    Table { table: table::Table<'a>, from: usize },
}

impl<'a> ModelThresholds<'a> {
    /// The table where `coefs` are given (the caller's choice: many units, model rule).
    fn new(ss: &'a [f64], coefs: Option<&'a Coefs>) -> Self {
        match coefs {
            Some(c) => ModelThresholds::Table { table: table::Table::new(ss, c), from: 0 },
            None => ModelThresholds::Solve { ss, guess: 0.0 },
        }
    }

    /// `(T, λ, near)` at grid point `(β, q)`, for `q` decreasing from call to call: `T` and `λ`
    /// exact, or with `near` an upper bound on `T` (and no `λ`).
    fn at(&mut self, beta: f64, q: f64) -> (f64, f64, Option<Near>) {
        match self {
            ModelThresholds::Solve { ss, guess } => {
                let (t, lambda) = exact_threshold(beta, q, ss, *guess);
                if t.is_finite() {
                    *guess = t;
                }
                (t, lambda, None)
            }
            ModelThresholds::Table { table, from } => match table.z_at(q, from) {
                Ok((t, eps)) if eps.is_finite() => (t + eps, f64::NAN, Some(Near { t, eps, exact: None })),
                Ok((t, _)) => {
                    let (t, lambda) = exact_threshold(beta, q, table.ss(), t);
                    (t, lambda, None)
                }
                Err(guess) => {
                    let guess = if guess.is_finite() { guess } else { 0.0 };
                    let (t, lambda) = exact_threshold(beta, q, table.ss(), guess);
                    (t, lambda, None)
                }
            },
        }
    }
}

/// The k-th smallest line per grid point, fast because lines move little between points: the
/// pass over the units counts those below a window around the predicted answer and keeps those
/// inside; a selection among those few finds it, a full selection only when the window misses.
struct Window {
    center: f64,
    width: f64,
    /// Where the last answer's unit moves per unit of `q` (its `1/sd`), and at which `q`.
    slope: f64,
    q: f64,
    /// Room for every unit; the first `len` are the lines inside the window.
    inside: Vec<(f64, u32)>,
    len: usize,
}

impl Window {
    fn new() -> Self {
        Window { center: f64::NAN, width: 0.25, slope: 0.0, q: 0.0, inside: Vec::new(), len: 0 }
    }

    /// The window for the grid point at `q`, centred where the last answer's unit has moved.
    fn bounds(&self, q: f64) -> (f64, f64) {
        if self.center.is_finite() {
            let c = self.center + (q - self.q) * self.slope;
            (c - self.width, c + self.width)
        } else {
            (f64::INFINITY, f64::NEG_INFINITY)
        }
    }

    /// The buffer for a pass over `n` units.
    fn buffer(&mut self, n: usize) -> &mut [(f64, u32)] {
        if self.inside.len() < n + 1 {
            self.inside.resize(n + 1, (0.0, 0));
        }
        &mut self.inside
    }

    fn remove(&mut self, i: usize) {
        if let Some(p) = self.inside[..self.len].iter().position(|&(_, j)| j as usize == i) {
            self.inside.swap(p, self.len - 1);
            self.len -= 1;
        }
    }

    /// The k-th smallest (1-based) line and its unit, given `below` lines under the window;
    /// `lines` gives them all when the window missed.
    fn kth<'a>(&mut self, below: usize, k: usize, lines: impl FnOnce() -> &'a [f64]) -> (f64, usize) {
        if below < k && k <= below + self.len {
            if self.len > 2048 {
                self.width *= 0.5;
            }
            return pick(&mut self.inside[..self.len], k - below - 1);
        }
        if self.center.is_finite() {
            self.width *= 4.0;
        }
        let all = lines();
        let buf = self.buffer(all.len());
        for (i, (slot, &v)) in buf.iter_mut().zip(all).enumerate() {
            *slot = (v, i as u32);
        }
        pick(&mut buf[..all.len()], k - 1)
    }

    /// Remembers the answer `t` at `q`, whose unit moves by `slope` per unit of `q`.
    fn follow(&mut self, t: f64, q: f64, slope: f64) {
        self.center = t;
        self.q = q;
        self.slope = slope;
    }
}

/// The `idx`-th smallest of `(value, unit)` pairs (ties by unit), and its unit.
fn pick(pairs: &mut [(f64, u32)], idx: usize) -> (f64, usize) {
    let (_, &mut (v, i), _) =
        pairs.select_nth_unstable_by(idx, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    (v, i as usize)
}

/// `V_β(i)` computed as the rvalues package does, `1 − Φ((q − m)/sd)`.
fn v_as_r(u: &Units, i: usize, q: f64) -> f64 {
    eb::v_beta(q, u.m[i], u.sd[i] * u.sd[i])
}
