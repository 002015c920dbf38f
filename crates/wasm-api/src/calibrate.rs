//! Calibrate once on labelled items, then predict sets for new ones, as Python's `calibrate`
//! and `Calibration.predict` do (docs/method.md §5): a prediction is the split whose
//! calibration items are the labelled ones and whose test items are the new ones.

use js_sys::{Array, Float64Array, Uint32Array, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use rvalue_core::conformal::warnings::{self, Facts};
use rvalue_core::conformal::{self, Coverage, Method};
use rvalue_core::predict::saved::{self, Basis, Settings};
use rvalue_core::predict::{self, Prediction};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{Error, Result};

use crate::files::bytes_of;
use crate::{
    indices, js_error, object, options_for, parse, tensor_of, ConformalArgs, BASELINE_FIELDS, DATA_FIELDS,
    SCORING_FIELDS,
};

/// What [`calibrate`] takes: `conformal`'s data and score options, one `method`, no splits.
fn calibrate_fields() -> Vec<&'static str> {
    [DATA_FIELDS, &["method"], SCORING_FIELDS, &["seed"], BASELINE_FIELDS].concat()
}

/// Labelled items and the settings to predict with ([`calibrate`], [`load_calibration`]).
#[wasm_bindgen]
pub struct Calibration {
    cal: ScoreTensor,
    labels: Vec<usize>,
    settings: Settings,
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
    let a: ConformalArgs = parse(args, &calibrate_fields())?;
    let cal = tensor_of(&a.scores, &a.shape)?;
    let labels = indices(&a.labels, "labels")?;
    conformal::check_data(&cal, &labels)?;
    conformal::check_alpha(a.alpha)?;
    let method: Method = a.method.as_deref().unwrap_or("cp-r").parse()?;
    let (opts, _) = options_for(&a, &cal, &[method])?;
    let (seed, alpha, never_empty) = (a.seed.unwrap_or(0), a.alpha, a.never_empty);
    Ok(Calibration::new(cal, labels, Settings { method, opts, alpha, never_empty, seed }))
}

/// A calibration from the bytes `save` (or Python's `Calibration.save`) wrote; `name` names
/// them in messages. Only calibrations on labelled items (an array, in Python) load: the others
/// keep what a file streamed through Python left, which this API does not predict from.
#[wasm_bindgen(js_name = loadCalibration)]
pub fn load_calibration(bytes: JsValue, name: &str) -> std::result::Result<Calibration, JsError> {
    let (settings, basis, _) = saved::decode(&bytes_of(&bytes).map_err(js_error)?, name).map_err(js_error)?;
    match basis {
        Basis::Items { cal, labels } => Ok(Calibration::new(cal, labels, settings)),
        other => Err(js_error(Error::invalid(format!(
            "{name}: calibrated on {}; the JS API loads calibrations on labelled items only",
            other.name()
        )))),
    }
}

impl Calibration {
    fn new(cal: ScoreTensor, labels: Vec<usize>, settings: Settings) -> Calibration {
        let (m, k, n) = (cal.m(), cal.k(), cal.n());
        let s = &settings;
        let methods = [s.method];
        let facts = Facts {
            m,
            k,
            labels: &labels,
            n_cal: Some(n),
            alpha: s.alpha,
            methods: &methods,
            kind: s.opts.kind,
        };
        let warnings = warnings::check(&facts).iter().map(ToString::to_string).collect();
        Calibration { cal, labels, settings, warnings }
    }
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

    /// The calibration as bytes in the saved-calibration format, which Python's
    /// `rvalue_explorer.load` reads (written to a file) and [`load_calibration`] reads back.
    pub fn save(&self) -> Uint8Array {
        let basis = Basis::Items { cal: self.cal.clone(), labels: self.labels.clone() };
        Uint8Array::from(&saved::encode(&self.settings, &basis, None)[..])
    }

    /// The sentences the CLI prints as warnings for this calibration.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Array {
        self.warnings.iter().map(|w| JsValue::from(w.as_str())).collect()
    }

    fn predict_of(&self, args: JsValue) -> Result<JsValue> {
        let a: PredictArgs = parse(args, &["scores", "shape", "alpha"])?;
        let test = tensor_of(&a.scores, &a.shape)?;
        let s = &self.settings;
        let (alpha, never_empty) = (a.alpha.unwrap_or(s.alpha), s.never_empty);
        conformal::check_alpha(alpha)?;
        let p = predict::predict(&self.cal, &self.labels, &test, s.method, &s.opts, s.seed, 1)?;
        let mask: Vec<u8> = p.mask(alpha, never_empty).into_iter().map(u8::from).collect();
        let sets: Array = (0..p.n_test())
            .map(|j| {
                let members: Vec<u32> =
                    p.set(j, alpha, never_empty).members.iter().map(|&(c, _)| c as u32).collect();
                JsValue::from(Uint32Array::from(&members[..]))
            })
            .collect();
        Ok(object(&[
            ("mask", Uint8Array::from(&mask[..]).into()),
            ("sets", sets.into()),
            ("qhat", qhat(&p, alpha, s.opts.coverage)),
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
