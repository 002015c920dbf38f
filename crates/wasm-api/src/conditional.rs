//! `conformal()`'s conditional coverage fields (docs/method.md §5, conditional coverage) of one
//! method's summary.

use js_sys::Float64Array;
use wasm_bindgen::JsValue;

use rvalue_core::conformal::{Conditional, Stratum};

/// A number, or `null` where it is undefined (NaN).
fn number(x: f64) -> JsValue {
    if x.is_nan() {
        JsValue::NULL
    } else {
        x.into()
    }
}

/// `{lo, hi, coverage, count}` of the strata, each a Float64Array (coverage NaN when empty).
fn strata(all: &[Stratum]) -> JsValue {
    let column =
        |f: &dyn Fn(&Stratum) -> f64| Float64Array::from(&all.iter().map(f).collect::<Vec<f64>>()[..]);
    super::object(&[
        ("lo", column(&|s| s.lo as f64).into()),
        ("hi", column(&|s| s.hi as f64).into()),
        ("coverage", column(&|s| s.coverage()).into()),
        ("count", column(&|s| s.count as f64).into()),
    ])
}

/// Sets the conditional fields on `entry`: each metric's mean over splits (`macroCoverage`,
/// `worstClassCoverage`, `covgap` (percent), `violatedClasses`, `sscv`, `dsv`) and its sd
/// (`…Sd`), `null` where undefined; per class over all splits `classCoverage` (NaN for a class
/// with no test item) and `classCount`; `sizeStrata` and `difficultyStrata`.
pub(super) fn set_fields(entry: &JsValue, s: &Conditional) {
    let fields: [(&str, f64); 12] = [
        ("macroCoverage", s.macro_coverage_mean),
        ("macroCoverageSd", s.macro_coverage_sd),
        ("worstClassCoverage", s.worst_class_coverage_mean),
        ("worstClassCoverageSd", s.worst_class_coverage_sd),
        ("covgap", s.covgap_mean),
        ("covgapSd", s.covgap_sd),
        ("violatedClasses", s.violated_classes_mean),
        ("violatedClassesSd", s.violated_classes_sd),
        ("sscv", s.sscv_mean),
        ("sscvSd", s.sscv_sd),
        ("dsv", s.dsv_mean),
        ("dsvSd", s.dsv_sd),
    ];
    let o = entry;
    for (key, x) in fields {
        super::set_field(o, key, number(x));
    }
    let coverage: Vec<f64> = s.class_tallies.iter().map(|t| t.coverage()).collect();
    let count: Vec<f64> = s.class_tallies.iter().map(|t| t.count as f64).collect();
    super::set_field(o, "classCoverage", Float64Array::from(&coverage[..]).into());
    super::set_field(o, "classCount", Float64Array::from(&count[..]).into());
    super::set_field(o, "sizeStrata", strata(&s.size_strata));
    super::set_field(o, "difficultyStrata", strata(&s.difficulty_strata));
}
