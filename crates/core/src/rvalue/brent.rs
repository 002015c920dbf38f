//! Brent's root finder (zeroin), for the exact r-value's one-dimensional crossings.

/// A root of `f` in `[a, b]` where `f(a)` and `f(b)` differ in sign, to within `tol` in `x`.
pub fn zeroin(mut a: f64, mut b: f64, mut fa: f64, mut fb: f64, tol: f64, f: impl Fn(f64) -> f64) -> f64 {
    if fa == 0.0 {
        return a;
    }
    if fb == 0.0 {
        return b;
    }
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    for _ in 0..200 {
        if (fb > 0.0) == (fc > 0.0) {
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol1 = 2.0 * f64::EPSILON * b.abs() + 0.5 * tol;
        let xm = 0.5 * (c - b);
        if xm.abs() <= tol1 || fb == 0.0 {
            return b;
        }
        (d, e) = next_step([a, b, c], [fa, fb, fc], xm, tol1, d, e);
        a = b;
        fa = fb;
        b += if d.abs() > tol1 { d } else { tol1.copysign(xm) };
        fb = f(b);
    }
    b
}

/// Brent's choice of the next step `(d, e)`: interpolation when it is trusted to converge
/// faster than halving the bracket `[b, c]`, else bisection.
fn next_step([a, b, c]: [f64; 3], [fa, fb, fc]: [f64; 3], xm: f64, tol1: f64, d: f64, e: f64) -> (f64, f64) {
    if e.abs() >= tol1 && fa.abs() > fb.abs() {
        // Inverse quadratic interpolation, or secant when only two points are distinct.
        let s = fb / fa;
        let (mut p, mut q);
        if a == c {
            p = 2.0 * xm * s;
            q = 1.0 - s;
        } else {
            let qq = fa / fc;
            let r = fb / fc;
            p = s * (2.0 * xm * qq * (qq - r) - (b - a) * (r - 1.0));
            q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
        }
        if p > 0.0 {
            q = -q;
        }
        p = p.abs();
        if 2.0 * p < (3.0 * xm * q - (tol1 * q).abs()).min((e * q).abs()) {
            (p / q, d)
        } else {
            (xm, xm)
        }
    } else {
        (xm, xm)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    #[test]
    fn finds_roots() {
        let f = |x: f64| x * x * x - 2.0;
        let r = super::zeroin(0.0, 2.0, f(0.0), f(2.0), 1e-14, f);
        assert!((r - 2f64.cbrt()).abs() < 1e-13);
        let g = |x: f64| (x - 0.3).signum();
        let r = super::zeroin(0.0, 1.0, g(0.0), g(1.0), 1e-12, g);
        assert!((r - 0.3).abs() < 1e-11);
    }
}
