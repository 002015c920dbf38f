//! The column walk both rank-count greedies make at every step: one entry per draw, `stride`
//! apart, four draws a turn so that the loop's own bookkeeping is a small share of the work.

/// Calls `f(col + d·stride)` for `d` in `0..m`, in that order.
#[inline(always)]
pub(super) fn each_draw(col: usize, stride: usize, m: usize, mut f: impl FnMut(usize)) {
    let mut p = col;
    for _ in 0..m / 4 {
        f(p);
        f(p + stride);
        f(p + 2 * stride);
        f(p + 3 * stride);
        p += 4 * stride;
    }
    for _ in 0..m % 4 {
        f(p);
        p += stride;
    }
}
