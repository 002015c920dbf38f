//! The model rule's selected fraction `F(q, z)` (docs/method.md §2) and its partial derivatives
//! up to third order, one pass over the units: what every solver of `F(q, z) = β(q)` evaluates.

use crate::normal;

/// The per-unit constants of the model rule's sums: `a_j = √(1 + s'_j)`, `b_j = √s'_j`.
pub(super) struct Coefs {
    pub(super) a: Vec<f64>,
    pub(super) b: Vec<f64>,
    /// The largest `b_j`: `F` can change on a scale of `1/b_max` in `z`.
    pub(super) b_max: f64,
    /// [`normal::FAR_TAIL`] where every `a_j`, `b_j` is below 1e100, else `∞`: a unit whose
    /// `|A_j|` is beyond it (and below [`normal::FAR_TAIL_MAX`]) adds `±0` to every sum but `F`
    /// (the products of `φ = 0` with `a_j`, `b_j` and `A_j` stay finite), so the sums skip it.
    pub(super) far: f64,
}

impl Coefs {
    pub(super) fn new(ss: &[f64]) -> Self {
        let b: Vec<f64> = ss.iter().map(|s| s.sqrt()).collect();
        let b_max = b.iter().fold(0.0f64, |m, &x| m.max(x));
        let a: Vec<f64> = ss.iter().map(|s| (1.0 + s).sqrt()).collect();
        let tame = a.iter().chain(&b).all(|&v| v < 1e100);
        Coefs { a, b, b_max, far: if tame { normal::FAR_TAIL } else { f64::INFINITY } }
    }

    /// A first `z` at `q`: where the noisiest unit alone has `A = q` (the exact root when every
    /// unit has the same noise), so that `F ≥ β/U` is far from underflow however noisy it is.
    pub(super) fn start(&self, q: f64) -> f64 {
        let Some((j, &b)) = self.b.iter().enumerate().max_by(|x, y| x.1.total_cmp(y.1)) else {
            return 0.0;
        };
        if b > 0.0 {
            q * (self.a[j] - 1.0) / b
        } else {
            0.0
        }
    }
}

/// The model rule's selected fraction `F(q, z) = (1/U) Σ 1 − Φ(A_j)`, `A_j = q a_j − z b_j`, its
/// first and second partial derivatives, and the third ones with at least one `z`, all from one
/// tail evaluation per unit (higher derivatives only need `φ(A_j)` times a polynomial in `A_j`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ModelSums {
    pub(super) f: f64,
    pub(super) fq: f64,
    pub(super) fz: f64,
    pub(super) fqq: f64,
    pub(super) fqz: f64,
    pub(super) fzz: f64,
    pub(super) fqqz: f64,
    pub(super) fqzz: f64,
    pub(super) fzzz: f64,
}

impl ModelSums {
    /// The derivatives at `z + d` to first order in `d` (`f` itself is not moved).
    pub(super) fn moved(&self, d: f64) -> ModelSums {
        ModelSums {
            fq: self.fq + self.fqz * d,
            fz: self.fz + self.fzz * d,
            fqq: self.fqq + self.fqqz * d,
            fqz: self.fqz + self.fqzz * d,
            fzz: self.fzz + self.fzzz * d,
            ..*self
        }
    }
}

/// Whether unit `j`'s terms are all `±0` but its tail, which is `[x < 0]` (see [`Coefs::far`]).
/// A sum that starts at `+0` and only adds is never `−0`, so adding `±0` leaves it as it is.
#[inline(always)]
pub(super) fn far_tail(x: f64, c: &Coefs) -> bool {
    let ax = x.abs();
    ax > c.far && ax < normal::FAR_TAIL_MAX
}

pub(super) fn model_sums(q: f64, z: f64, c: &Coefs) -> ModelSums {
    let mut s = ModelSums::default();
    for (&aj, &bj) in c.a.iter().zip(&c.b) {
        let x = q * aj - z * bj;
        if far_tail(x, c) {
            if x < 0.0 {
                s.f += 1.0;
            }
            continue;
        }
        let (sf, p) = normal::sf_pdf_fast(x);
        let xp = x * p;
        // ∂/∂z (A φ(A)) = −b φ(A)(1 − A²).
        let w = bj * p * (1.0 - x * x);
        s.f += sf;
        s.fq -= aj * p;
        s.fz += bj * p;
        s.fqq += aj * aj * xp;
        s.fqz -= aj * bj * xp;
        s.fzz += bj * bj * xp;
        s.fqqz -= aj * aj * w;
        s.fqzz += aj * bj * w;
        s.fzzz -= bj * bj * w;
    }
    let n = c.a.len() as f64;
    ModelSums {
        f: s.f / n,
        fq: s.fq / n,
        fz: s.fz / n,
        fqq: s.fqq / n,
        fqz: s.fqz / n,
        fzz: s.fzz / n,
        fqqz: s.fqqz / n,
        fqzz: s.fqzz / n,
        fzzz: s.fzzz / n,
    }
}
