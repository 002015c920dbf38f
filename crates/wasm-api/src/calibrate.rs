//! Calibrate once on labelled items, then predict sets for new ones, as Python's `calibrate`
//! and `Calibration.predict` do (docs/method.md §5): a prediction is the split whose
//! calibration items are the labelled ones and whose test items are the new ones.

use js_sys::{Array, Float64Array, Uint32Array, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use rvalue_core::conformal::warnings::{self, Facts};
use rvalue_core::conformal::{self, Coverage, Method, ScoreOptions};
use rvalue_core::predict::{self, Prediction};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::Result;

use crate::{indices, js_error, numbers, object, options_for, parse, shape3, ConformalArgs};

/// What [`calibrate`] takes: `conformal`'s data and score options, one `method`, no splits.
const CALIBRATE_FIELDS: &[&str] = &[
    "scores",
    "shape",
    "labels",
    "alpha",
    "method",
    "kind",
    "prior",
    "variance",
    "algorithm",
    "rule",
    "cpDraw",
    "ties",
    "coverage",
    "neverEmpty",
    "seed",
    "scoresAre",
    "rapsLambda",
    "rapsKreg",
    "sapsLambda",
    "randomized",
];

/// Labelled items and the settings to predict with ([`calibrate`]).
#[wasm_bindgen]
pub struct Calibration {
    cal: ScoreTensor,
    labels: Vec<usize>,
    method: Method,
    opts: ScoreOptions,
    seed: u64,
    alpha: f64,
    never_empty: bool,
    warnings: Vec<String>,
}

/// Arguments of [`Calibration::predict`].
#[derive(Deserialize)]
struct PredictArgs {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    scores: JsValue,
    shape: Vec<usize>,
    #[serde(default)]
    alpha: Option<f64>,
}

/// Calibrates one method on labelled items: `scores` (`n·m·k` numbers), `shape: [n, m, k]`,
/// `labels`, `alpha` (predict's default), `method` (`'cp-r'` by default; any of `conformal`'s)
/// and `conformal`'s score options (`kind`, `prior`, `variance`, `algorithm`, `rule`, `cpDraw`,
/// `ties`, `coverage`, `neverEmpty`, `seed`, the baselines'). Returns a `Calibration`, whose
/// `predict({scores, shape, alpha})` gives new items' sets and whose `warnings` are the CLI's.
#[wasm_bindgen]
pub fn calibrate(args: JsValue) -> std::result::Result<Calibration, JsError> {
    calibrate_of(args).map_err(js_error)
}

fn calibrate_of(args: JsValue) -> Result<Calibration> {
    let a: ConformalArgs = parse(args, CALIBRATE_FIELDS)?;
    let (n, m, k) = shape3(&a.shape)?;
    let cal = ScoreTensor::new(n, m, k, numbers(&a.scores, "scores")?)?;
    let labels = indices(&a.labels, "labels")?;
    conformal::check_data(&cal, &labels)?;
    conformal::check_alpha(a.alpha)?;
    let method: Method = a.method.as_deref().unwrap_or("cp-r").parse()?;
    let (opts, _) = options_for(&a, &cal, &[method])?;
    let facts =
        Facts { m, k, labels: &labels, n_cal: Some(n), alpha: a.alpha, methods: &[method], kind: opts.kind };
    let warnings = warnings::check(&facts).iter().map(ToString::to_string).collect();
    let (seed, alpha, never_empty) = (a.seed.unwrap_or(0), a.alpha, a.never_empty);
    Ok(Calibration { cal, labels, method, opts, seed, alpha, never_empty, warnings })
}

#[wasm_bindgen]
impl Calibration {
    /// Sets for new items `scores` of `shape: [n, m, k]` (the calibration's `m` and `k`) at
    /// `alpha` (the calibration's when left out): `{mask, sets, qhat}`, with `mask` a Uint8Array
    /// `n·k` (row-major, 1 = in the set, as Python's boolean mask), `sets` an Array of Uint32Array
    /// (each in the method's order) and `qhat` as `conformal`'s, per new item.
    pub fn predict(&self, args: JsValue) -> std::result::Result<JsValue, JsError> {
        self.predict_of(args).map_err(js_error)
    }

    /// The sentences the CLI prints as warnings for this calibration.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Array {
        self.warnings.iter().map(|w| JsValue::from(w.as_str())).collect()
    }

    fn predict_of(&self, args: JsValue) -> Result<JsValue> {
        let a: PredictArgs = parse(args, &["scores", "shape", "alpha"])?;
        let (n, m, k) = shape3(&a.shape)?;
        let test = ScoreTensor::new(n, m, k, numbers(&a.scores, "scores")?)?;
        let alpha = a.alpha.unwrap_or(self.alpha);
        conformal::check_alpha(alpha)?;
        let p = predict::predict(&self.cal, &self.labels, &test, self.method, &self.opts, self.seed, 1)?;
        let mask: Vec<u8> = p.mask(alpha, self.never_empty).into_iter().map(u8::from).collect();
        let sets: Array = (0..p.n_test())
            .map(|j| {
                let members: Vec<u32> =
                    p.set(j, alpha, self.never_empty).members.iter().map(|&(c, _)| c as u32).collect();
                JsValue::from(Uint32Array::from(&members[..]))
            })
            .collect();
        Ok(object(&[
            ("mask", Uint8Array::from(&mask[..]).into()),
            ("sets", sets.into()),
            ("qhat", qhat(&p, alpha, self.opts.coverage)),
        ]))
    }
}

/// `q̂` as [`crate::qhat`] gives it for a split: one number, per new item, or per new item and
/// candidate.
fn qhat(p: &Prediction, alpha: f64, coverage: Coverage) -> JsValue {
    let n = p.n_test();
    if coverage == Coverage::PerClass {
        let each: Vec<f64> = (0..n * p.k()).map(|u| p.class_threshold(u / p.k(), u % p.k(), alpha)).collect();
        return Float64Array::from(&each[..]).into();
    }
    if !p.per_item_threshold() {
        return p.threshold(0, alpha).into();
    }
    let each: Vec<f64> = (0..n).map(|j| p.threshold(j, alpha)).collect();
    Float64Array::from(&each[..]).into()
}
