//! Coverage and mean set size against α (panels 3 and 4), summed over splits as they finish.

use super::SWEEP_POINTS;
use rvalue_core::conformal::alpha_grid;

/// Coverage and mean set size against α for each method (panels 3 and 4).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepCurves {
    /// [`SWEEP_POINTS`] values evenly spaced on the α slider's range.
    pub alphas: Vec<f64>,
    /// `1 − α`, the target line.
    pub target: Vec<f64>,
    /// `coverage[method][j]`, methods in the analysis' order ([`Analysis::methods`](super::Analysis::methods)).
    pub coverage: Vec<Vec<f64>>,
    /// `size[method][j]`.
    pub size: Vec<Vec<f64>>,
    pub never_empty: bool,
}

impl SweepCurves {
    /// The curves of the first `methods` methods alone.
    pub(in crate::analysis) fn truncate(&mut self, methods: usize) {
        self.coverage.truncate(methods);
        self.size.truncate(methods);
    }

    pub(in crate::analysis) fn mean_over(&mut self, splits: usize) {
        let r = splits.max(1) as f64;
        for v in self.coverage.iter_mut().chain(self.size.iter_mut()).flatten() {
            *v /= r;
        }
    }

    /// Zero sums of `methods` methods.
    pub(in crate::analysis) fn zero(never_empty: bool, methods: usize) -> Self {
        let alphas = alpha_grid(crate::ALPHA_RANGE.0, crate::ALPHA_RANGE.1, SWEEP_POINTS);
        let zero = || vec![0.0; SWEEP_POINTS];
        SweepCurves {
            target: alphas.iter().map(|a| 1.0 - a).collect(),
            alphas,
            coverage: (0..methods).map(|_| zero()).collect(),
            size: (0..methods).map(|_| zero()).collect(),
            never_empty,
        }
    }
}
