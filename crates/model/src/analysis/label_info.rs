//! What the metrics need of each test item's true label, once per split ([`LabelInfo`]).

use rvalue_core::conformal::Calibrated;

/// α-independent facts of each test item of one split, for metrics in `O(log K)` per item.
#[derive(Debug, Clone)]
pub(in crate::analysis) struct LabelInfo {
    /// The true label's score.
    pub(in crate::analysis) score: Vec<f64>,
    /// Its 0-based position in the method's order (score, then candidate index).
    pub(in crate::analysis) pos: Vec<u32>,
}

impl LabelInfo {
    pub(in crate::analysis) fn of(c: &Calibrated) -> Self {
        let (n, k) = (c.test.len(), c.k);
        let mut score = Vec::with_capacity(n);
        let mut pos = Vec::with_capacity(n);
        for t in 0..n {
            let row = c.row(t);
            let y = c.label(t);
            let s = row[y];
            score.push(s);
            pos.push((0..k).filter(|&c| row[c] < s || (row[c] == s && c < y)).count() as u32);
        }
        LabelInfo { score, pos }
    }
}
