//! A faster `1 − Φ` for the inner loops of the exact r-value's root finders.
//!
//! Below `|x| = 8` the tail is `φ(|x|)` times the Mills ratio, read from a table of Taylor
//! polynomials built once from libm's `erfc` (one exponential, one polynomial, no division).
//! Beyond, it is adapted from FreeBSD's `s_erf.c` (via the `libm` crate), whose notice follows,
//! with one `exp(−t² − 0.5625 + R/S)` instead of msun's two-exponential split. Either way the
//! relative error is about `x² · 2⁻⁵³` (under 1e-14 where `Φ` is above the smallest double).
//! Only root finders use it; reported probabilities use [`super::sf`].
//!
//! ====================================================
//! Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//!
//! Developed at SunPro, a Sun Microsystems, Inc. business.
//! Permission to use, copy, modify, and distribute this
//! software is freely granted, provided that this notice
//! is preserved.
//! ====================================================

#![allow(clippy::excessive_precision, clippy::unreadable_literal)]

const ERX: f64 = 8.45062911510467529297e-01;
const PP0: f64 = 1.28379167095512558561e-01;
const PP1: f64 = -3.25042107247001499370e-01;
const PP2: f64 = -2.84817495755985104766e-02;
const PP3: f64 = -5.77027029648944159157e-03;
const PP4: f64 = -2.37630166566501626084e-05;
const QQ1: f64 = 3.97917223959155352819e-01;
const QQ2: f64 = 6.50222499887672944485e-02;
const QQ3: f64 = 5.08130628187576562776e-03;
const QQ4: f64 = 1.32494738004321644526e-04;
const QQ5: f64 = -3.96022827877536812320e-06;
const PA0: f64 = -2.36211856075265944077e-03;
const PA1: f64 = 4.14856118683748331666e-01;
const PA2: f64 = -3.72207876035701323847e-01;
const PA3: f64 = 3.18346619901161753674e-01;
const PA4: f64 = -1.10894694282396677476e-01;
const PA5: f64 = 3.54783043256182359371e-02;
const PA6: f64 = -2.16637559486879084300e-03;
const QA1: f64 = 1.06420880400844228286e-01;
const QA2: f64 = 5.40397917702171048937e-01;
const QA3: f64 = 7.18286544141962662868e-02;
const QA4: f64 = 1.26171219808761642112e-01;
const QA5: f64 = 1.36370839120290507362e-02;
const QA6: f64 = 1.19844998467991074170e-02;
const RA0: f64 = -9.86494403484714822705e-03;
const RA1: f64 = -6.93858572707181764372e-01;
const RA2: f64 = -1.05586262253232909814e+01;
const RA3: f64 = -6.23753324503260060396e+01;
const RA4: f64 = -1.62396669462573470355e+02;
const RA5: f64 = -1.84605092906711035994e+02;
const RA6: f64 = -8.12874355063065934246e+01;
const RA7: f64 = -9.81432934416914548592e+00;
const SA1: f64 = 1.96512716674392571292e+01;
const SA2: f64 = 1.37657754143519042600e+02;
const SA3: f64 = 4.34565877475229228821e+02;
const SA4: f64 = 6.45387271733267880336e+02;
const SA5: f64 = 4.29008140027567833386e+02;
const SA6: f64 = 1.08635005541779435134e+02;
const SA7: f64 = 6.57024977031928170135e+00;
const SA8: f64 = -6.04244152148580987438e-02;
const RB0: f64 = -9.86494292470009928597e-03;
const RB1: f64 = -7.99283237680523006574e-01;
const RB2: f64 = -1.77579549177547519889e+01;
const RB3: f64 = -1.60636384855821916062e+02;
const RB4: f64 = -6.37566443368389627722e+02;
const RB5: f64 = -1.02509513161107724954e+03;
const RB6: f64 = -4.83519191608651397019e+02;
const SB1: f64 = 3.03380607434824582924e+01;
const SB2: f64 = 3.25792512996573918826e+02;
const SB3: f64 = 1.53672958608443695994e+03;
const SB4: f64 = 3.19985821950859553908e+03;
const SB5: f64 = 2.55305040643316442583e+03;
const SB6: f64 = 4.74528541206955367215e+02;
const SB7: f64 = -2.24409524465858183362e+01;

// msun's `e_exp.c` constants (via the `libm` crate), for [`exp_nonpositive`]; its `invln2` is
// the bits of `LOG2_E`.
const LN2HI: f64 = 6.93147180369123816490e-01;
const LN2LO: f64 = 1.90821492927058770002e-10;
const P1: f64 = 1.66666666666666019037e-01;
const P2: f64 = -2.77777777770155933842e-03;
const P3: f64 = 6.61375632143793436117e-05;
const P4: f64 = -1.65339022054652515390e-06;
const P5: f64 = 4.13813679705723846039e-08;

/// Below this `exp` leaves the normal range and `libm::exp` scales in two steps.
const EXP_NORMAL_MIN: f64 = -708.39641853226410622;

/// `libm::exp(x)` for `x ≤ 0`, bit for bit: the `libm` crate's own steps (msun's reduction,
/// rational kernel and scaling by `2^k`) without its checks for arguments the root finders never
/// pass, inlined into their loops. Other arguments go to `libm::exp` itself.
#[inline]
pub fn exp_nonpositive(x: f64) -> f64 {
    if !(EXP_NORMAL_MIN..=0.0).contains(&x) {
        return libm::exp(x);
    }
    let hx = (x.to_bits() >> 32) as u32 & 0x7fff_ffff;
    let (k, hi, lo) = if hx > 0x3fd6_2e42 {
        // |x| > ln2/2: x = k ln2 + r with |r| ≤ ln2/2 (k ln2hi is exact).
        let k = if hx >= 0x3ff0_a2b2 { (std::f64::consts::LOG2_E * x - 0.5) as i32 } else { -1 };
        (k, x - k as f64 * LN2HI, k as f64 * LN2LO)
    } else if hx > 0x3e30_0000 {
        (0, x, 0.0)
    } else {
        return 1.0 + x;
    };
    let r = hi - lo;
    let rr = r * r;
    let c = r - rr * (P1 + rr * (P2 + rr * (P3 + rr * (P4 + rr * P5))));
    let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
    if k == 0 {
        y
    } else {
        // libm's scalbn for −1022 ≤ k: one multiplication by 2^k.
        y * f64::from_bits(((k + 1023) as u64) << 52)
    }
}

/// `e^{c0}` for the Taylor expansion in [`sf_pdf_fast`].
const EXP_C0: f64 = 0.509_156_420_607_549_2;
const C0: f64 = -0.675;

/// `exp(c)` for `c ∈ [−0.78, −0.57]` (the range of msun's `−0.5625 + R/S`): Taylor to degree 10
/// about `−0.675`, truncation below `4e-19` relative.
#[inline]
fn exp_near_c0(c: f64) -> f64 {
    // Horner on Σ dᵏ/k! with the reciprocal factorials as constants (no divisions).
    const INV_FACT: [f64; 11] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
    ];
    let d = c - C0;
    let mut sum = INV_FACT[10];
    for k in (0..10).rev() {
        sum = sum * d + INV_FACT[k];
    }
    EXP_C0 * sum
}

const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// Cells of the Mills ratio table: width 1/4, centred on `0, 1/4, …, 8`.
const MILLS_CELLS: usize = 33;
const MILLS_PER_UNIT: f64 = 4.0;
/// Taylor coefficients per cell: degree 11 at half-width 1/8 is within 1e-16 relative (degree 9
/// is not: tested).
const MILLS_TERMS: usize = 12;

/// Taylor coefficients of the Mills ratio `M(x) = (1 − Φ(x))/φ(x)` about each cell's centre.
/// `M' = xM − 1` gives them all from `M(x0)`: `(n + 1) m_{n+1} = x0 m_n + m_{n−1} − [n = 0]`.
/// `M(x0)` comes from libm's `erfc` and `exp`, so the table is the same bits natively and in wasm.
fn mills_table() -> &'static [[f64; MILLS_TERMS]; MILLS_CELLS] {
    static TABLE: std::sync::OnceLock<[[f64; MILLS_TERMS]; MILLS_CELLS]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [[0.0; MILLS_TERMS]; MILLS_CELLS];
        for (i, m) in table.iter_mut().enumerate() {
            let x0 = i as f64 / MILLS_PER_UNIT;
            let sf = 0.5 * libm::erfc(x0 * std::f64::consts::FRAC_1_SQRT_2);
            m[0] = sf / (FRAC_1_SQRT_2PI * libm::exp(-0.5 * x0 * x0));
            m[1] = x0 * m[0] - 1.0;
            for n in 1..MILLS_TERMS - 1 {
                m[n + 1] = (x0 * m[n] + m[n - 1]) / (n + 1) as f64;
            }
        }
        table
    })
}

/// `(1 − Φ(x), φ(x))` with one exponential. For `|x| < 8` (where the root finders spend their
/// time) the tail is `φ(|x|)` times the Mills ratio from a table of Taylor polynomials: one
/// exponential and one polynomial, no division. Beyond, msun's tail is `exp(−x²/2)` times
/// `exp(−0.5625 + R/S)`, whose argument stays in a narrow range.
#[inline(always)]
pub fn sf_pdf_fast(x: f64) -> (f64, f64) {
    // 1.5·2^52: adding it rounds to an integer held in the low mantissa bits.
    const ROUND: f64 = 6_755_399_441_055_744.0;
    let ax = x.abs();
    if ax < 8.0 {
        let pdf = FRAC_1_SQRT_2PI * exp_nonpositive(-0.5 * x * x);
        // The nearest cell centre: |t| ≤ 1/8.
        let r = ax * MILLS_PER_UNIT + ROUND;
        let i = (r.to_bits() & 63) as usize;
        let t = ax - (r - ROUND) / MILLS_PER_UNIT;
        let m = mills_table()[i].iter().rev().fold(0.0, |acc, &c| acc * t + c);
        let tail = pdf * m;
        return (if x < 0.0 { 1.0 - tail } else { tail }, pdf);
    }
    let t = x * std::f64::consts::FRAC_1_SQRT_2;
    let at = t.abs();
    if !(1.25..28.0).contains(&at) {
        let e = exp_nonpositive(-0.5 * x * x);
        return (0.5 * erfc_fast(t), FRAC_1_SQRT_2PI * e);
    }
    let e = exp_nonpositive(-at * at);
    let tail = 0.5 * e * exp_near_c0(-0.5625 + tail_ratio(at)) / at;
    (if t < 0.0 { 1.0 - tail } else { tail }, FRAC_1_SQRT_2PI * e)
}

/// msun's `R/S` for `1.25 ≤ |x| < 28`: `erfc(x) = exp(−x² − 0.5625 + R/S)/x`.
#[inline]
fn tail_ratio(ax: f64) -> f64 {
    let s = 1.0 / (ax * ax);
    let (r, big_s) = if ax < 1.0 / 0.35 {
        (
            RA0 + s * (RA1 + s * (RA2 + s * (RA3 + s * (RA4 + s * (RA5 + s * (RA6 + s * RA7)))))),
            1.0 + s * (SA1 + s * (SA2 + s * (SA3 + s * (SA4 + s * (SA5 + s * (SA6 + s * (SA7 + s * SA8))))))),
        )
    } else {
        (
            RB0 + s * (RB1 + s * (RB2 + s * (RB3 + s * (RB4 + s * (RB5 + s * RB6))))),
            1.0 + s * (SB1 + s * (SB2 + s * (SB3 + s * (SB4 + s * (SB5 + s * (SB6 + s * SB7)))))),
        )
    };
    r / big_s
}

/// `erfc(x)`, see the module notes on accuracy.
pub fn erfc_fast(x: f64) -> f64 {
    let ax = x.abs();
    let neg = x < 0.0;
    let tail = if ax < 0.84375 {
        let z = x * x;
        let r = PP0 + z * (PP1 + z * (PP2 + z * (PP3 + z * PP4)));
        let s = 1.0 + z * (QQ1 + z * (QQ2 + z * (QQ3 + z * (QQ4 + z * QQ5))));
        let y = r / s;
        return if neg || ax < 0.25 { 1.0 - (x + x * y) } else { 0.5 - (x - 0.5 + x * y) };
    } else if ax < 1.25 {
        let s = ax - 1.0;
        let p = PA0 + s * (PA1 + s * (PA2 + s * (PA3 + s * (PA4 + s * (PA5 + s * PA6)))));
        let q = 1.0 + s * (QA1 + s * (QA2 + s * (QA3 + s * (QA4 + s * (QA5 + s * QA6)))));
        1.0 - ERX - p / q
    } else if ax < 28.0 {
        exp_nonpositive(-ax * ax - 0.5625 + tail_ratio(ax)) / ax
    } else if x.is_nan() {
        return x;
    } else {
        0.0
    };
    if neg {
        2.0 - tail
    } else {
        tail
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn exp_nonpositive_is_libm_exp_bit_for_bit() {
        let mut x = 0.0f64;
        // Every branch: tiny, |x| ≤ ln2/2, ≤ 1.5 ln2, beyond, the normal limit and past it.
        while x > -760.0 {
            for y in [x, -x, x * (1.0 + f64::EPSILON), -f64::MIN_POSITIVE, -1e-300, -3e-9] {
                assert_eq!(super::exp_nonpositive(y).to_bits(), libm::exp(y).to_bits(), "x {y}");
            }
            x = if x > -1e-6 { x - 1.3e-10 * (1.0 - x * 1e9) } else { x * 1.0007 - 1e-4 };
        }
        for y in [-708.39641853226410622, -708.3964185322641, -708.39, -709.0, -745.2, f64::NEG_INFINITY] {
            assert_eq!(super::exp_nonpositive(y).to_bits(), libm::exp(y).to_bits(), "x {y}");
        }
        assert!(super::exp_nonpositive(f64::NAN).is_nan());
    }

    #[test]
    fn far_tails_are_exactly_zero_density_and_a_zero_or_one_tail() {
        use crate::normal::{FAR_TAIL, FAR_TAIL_MAX};
        let mut x = FAR_TAIL * (1.0 + f64::EPSILON);
        while x < FAR_TAIL_MAX {
            for (y, tail) in [(x, 0.0f64), (-x, 1.0)] {
                let (sf, pdf) = super::sf_pdf_fast(y);
                assert_eq!((sf.to_bits(), pdf.to_bits()), (tail.to_bits(), 0u64), "x {y}");
            }
            x = if x < 100.0 { x + 1.3e-3 } else { x * 1.01 };
        }
        // Just inside, the density is not zero yet: the limit is not tight, only safe.
        assert!(super::sf_pdf_fast(38.0).1 > 0.0);
    }

    #[test]
    fn mills_ratio_tails_are_close_to_libm_everywhere_below_8() {
        // Densely over the table's range, including every cell edge (|t| = 1/8) and centre.
        for i in -16_000..=16_000 {
            let x = i as f64 * 5e-4;
            let (sf, pdf) = super::sf_pdf_fast(x);
            let (a, b) = (crate::normal::sf(x), crate::normal::pdf(x));
            assert!((sf - a).abs() <= (1e-15 + 4e-16 * x * x) * a, "sf x {x}: {sf} vs {a}");
            assert!((pdf - b).abs() <= (1e-15 + 4e-16 * x * x) * b, "pdf x {x}: {pdf} vs {b}");
        }
    }

    #[test]
    fn close_to_libm() {
        for i in -4000..4000 {
            let x = i as f64 * 0.0071;
            let (a, b) = (super::erfc_fast(x), libm::erfc(x));
            assert!((a - b).abs() <= (1e-15 + 4e-16 * x * x) * b, "x {x}: {a} vs {b}");
        }
        assert_eq!(super::erfc_fast(30.0), 0.0);
        for i in -5000..5000 {
            let x = i as f64 * 0.0074;
            let (sf, pdf) = super::sf_pdf_fast(x);
            let (a, b) = (crate::normal::sf(x), crate::normal::pdf(x));
            assert!((sf - a).abs() <= (1e-15 + 4e-16 * x * x) * a, "sf x {x}: {sf} vs {a}");
            assert!((pdf - b).abs() <= (1e-15 + 4e-16 * x * x) * b, "pdf x {x}: {pdf} vs {b}");
        }
        assert_eq!(super::erfc_fast(-30.0), 2.0);
    }
}
