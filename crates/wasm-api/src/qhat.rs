//! A method's threshold `q̂` on the first split, in the shape Python's `Calibration.threshold`
//! gives it: one number for a marginal threshold, one per test item for pooled r-values, one per
//! test item and candidate under per-class coverage.

use js_sys::Float64Array;
use rvalue_core::conformal::{Calibrated, Coverage};
use wasm_bindgen::JsValue;

/// `q̂` of the first split of `cals` at `alpha`: a number (`Infinity` when `k* > n_cal`), or a
/// Float64Array in the order of the split's test items (`sets.items`): `n_test` values for
/// pooled CP_r, `n_test·K` (row-major, candidate fastest) per class; null without a split.
pub fn of_first(cals: &[Calibrated], alpha: f64) -> JsValue {
    let Some(c) = cals.first() else { return JsValue::NULL };
    let n = c.test.len();
    if c.coverage() == Coverage::PerClass {
        let each: Vec<f64> = (0..n).flat_map(|t| c.thresholds(t, alpha)).collect();
        return Float64Array::from(&each[..]).into();
    }
    if c.per_item_threshold() {
        let each: Vec<f64> = (0..n).map(|t| c.threshold(t, alpha)).collect();
        return Float64Array::from(&each[..]).into();
    }
    c.threshold(0, alpha).into()
}
