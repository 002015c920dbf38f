//! The JavaScript API: functions a documentation page imports to compute with the core, without
//! the explorer's UI. Two builds use this one definition: the explorer's page module exports it
//! (on its page as `window.wasmBindings`), and `scripts/api_module.pl` builds this crate alone
//! into `dist/api/rvalue.js` and `dist/api/rvalue_bg.wasm`, a module with fixed names that holds
//! no UI, plotters or DOM code. wasm only: natively the crate is empty.
//!
//! Each function but `readScores(bytes, name)` takes one plain object. Arrays of numbers may be
//! typed arrays or plain arrays; names are camelCase; an unknown field is an error (a misspelt
//! option must not be ignored silently). Results are plain objects whose arrays are typed
//! arrays. Every failure, bad input included, is a thrown JS `Error` with the core's message:
//! nothing here panics on input (a panic in wasm would kill the module for the whole page).
//!
//! ```js
//! import init, { rvalues } from './api/rvalue.js';
//! await init(); // fetches and instantiates rvalue_bg.wasm, next to rvalue.js
//! // Elsewhere: init({ module_or_path: url }); in Node also a path, a file: URL or the bytes,
//! // and a plain init() reads the file beside rvalue.js (scripts/api_module.pl adds this).
//! const r = rvalues({ x: [0.1, 3.1, -2.7], se: [1.4, 1.6, 1.2] });
//! r.rvalue;   // Float64Array
//! r.hyper.mu; // the estimated prior mean
//! ```

#![cfg(target_arch = "wasm32")]

use std::str::FromStr;

mod calibrate;
mod conditional;
mod files;
mod qhat;
mod splits;

pub use calibrate::{calibrate, load_calibration, Calibration};
pub use files::read_scores;
pub use splits::split_masks;

use js_sys::{Array, ArrayBuffer, BigInt64Array, BigUint64Array, DataView, Float64Array, Object, Reflect};
use js_sys::{Uint32Array, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use rvalue_core::conformal::warnings::{self, Facts};
use rvalue_core::conformal::{self, Baseline, Method, ScoreOptions, Split, SplitPlan};
use rvalue_core::eb::Hyper;
use rvalue_core::probability::{self, ScoresAre};
use rvalue_core::rvalue::{self, HyperChoice};
use rvalue_core::tensor::ScoreTensor;
use rvalue_core::{toy, Error, Result};

/// Arguments of [`rvalues`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RvalueArgs {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    x: JsValue,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    s: JsValue,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    se: JsValue,
    #[serde(default)]
    algorithm: Option<String>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    hyper: Option<HyperArg>,
}

#[derive(Deserialize)]
struct HyperArg {
    mu: f64,
    tau2: f64,
}

/// Arguments of [`conformal`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConformalArgs {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    scores: JsValue,
    shape: Vec<usize>,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    labels: JsValue,
    alpha: f64,
    #[serde(default)]
    methods: Option<Vec<String>>,
    /// `calibrate`'s one method (not a field of `conformal`).
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    prior: Option<String>,
    #[serde(default)]
    variance: Option<String>,
    #[serde(default)]
    algorithm: Option<String>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    cp_draw: Option<usize>,
    #[serde(default)]
    ties: Option<String>,
    #[serde(default)]
    coverage: Option<String>,
    #[serde(default)]
    never_empty: bool,
    #[serde(default)]
    splits: Option<usize>,
    #[serde(default)]
    cal_fraction: Option<f64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    mask: JsValue,
    #[serde(default)]
    sets: bool,
    #[serde(default)]
    scores_are: Option<String>,
    #[serde(default)]
    raps_lambda: Option<f64>,
    #[serde(default)]
    raps_kreg: Option<f64>,
    #[serde(default)]
    saps_lambda: Option<f64>,
    #[serde(default)]
    randomized: Option<bool>,
}

/// The data both `conformal` and `calibrate` take, first in their fields.
const DATA_FIELDS: &[&str] = &["scores", "shape", "labels", "alpha"];

/// The score options both take, after the method(s).
const SCORING_FIELDS: &[&str] =
    &["kind", "prior", "variance", "algorithm", "rule", "cpDraw", "ties", "coverage", "neverEmpty"];

/// The baselines' options both take, last.
const BASELINE_FIELDS: &[&str] = &["scoresAre", "rapsLambda", "rapsKreg", "sapsLambda", "randomized"];

/// What [`conformal`] takes, in the order an unknown field's message lists them.
fn conformal_fields() -> Vec<&'static str> {
    let splits: &[&str] = &["splits", "calFraction", "seed", "mask", "sets"];
    [DATA_FIELDS, &["methods"], SCORING_FIELDS, splits, BASELINE_FIELDS].concat()
}

/// Arguments of [`toy_probability`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToyArgs {
    mu_p: f64,
    sigma2_p: f64,
    mu_q: f64,
    sigma2_q: f64,
}

/// Parametric r-values (docs/method.md §2) of units with estimates `x` and either noise variances `s` or
/// standard errors `se`.
///
/// Options: `algorithm` (`'exact'`, default, or `'grid'`: the rvalues R package's), `rule`
/// (`'model'`, default, or `'empirical'`: the R package's λ), `hyper` (`{mu, tau2}`; estimated
/// by maximum likelihood when left out).
///
/// Returns `{rvalue, postMean, postSd}` (Float64Arrays, one value per unit) and
/// `hyper: {mu, tau2}`.
#[wasm_bindgen]
pub fn rvalues(args: JsValue) -> std::result::Result<JsValue, JsError> {
    rvalues_of(args).map_err(js_error)
}

fn rvalues_of(args: JsValue) -> Result<JsValue> {
    let a: RvalueArgs = parse(args, &["x", "s", "se", "algorithm", "rule", "hyper"])?;
    let x = numbers(&a.x, "x")?;
    let s = match (a.s.is_undefined(), a.se.is_undefined()) {
        (false, true) => numbers(&a.s, "s")?,
        (true, false) => numbers(&a.se, "se")?.iter().map(|se| se * se).collect(),
        _ => return Err(Error::invalid("give exactly one of s (noise variances) and se (standard errors)")),
    };
    let hyper = match a.hyper {
        Some(h) => HyperChoice::Fixed(Hyper::fixed(h.mu, h.tau2)?),
        None => HyperChoice::Estimate,
    };
    let p = rvalue::parametric(&x, &s, hyper, option(a.algorithm.as_deref())?, option(a.rule.as_deref())?)?;
    Ok(object(&[
        ("rvalue", Float64Array::from(&p.rvalue[..]).into()),
        ("postMean", Float64Array::from(&p.post_mean[..]).into()),
        ("postSd", Float64Array::from(&p.post_sd[..]).into()),
        ("hyper", hyper_object(p.hyper)),
    ]))
}

/// Split conformal prediction (docs/method.md §5) on a score tensor `scores` (`n·m·k` numbers, row-major,
/// candidate fastest; higher is better) of `shape: [n, m, k]` with true `labels` (`n` integers),
/// at miscoverage `alpha`.
///
/// Options: `methods` (any of `'cp'`, `'cp-avg'`, `'cp-r'`, the paper's three by default, and
/// the baselines `'aps'`, `'raps'`, `'saps'`, which take `scoresAre` (`'auto'`, `'logits'`,
/// `'log-probabilities'`, `'probabilities'`), `rapsLambda` (0.01), `rapsKreg` (5),
/// `sapsLambda` (0.2) and `randomized` (true; false: u = 1)), `kind` of CP_r's r-value
/// (`'parametric'`, the default of every face, `'nonparametric'`, `'pooled'`), `prior`
/// (`'pooled'`, the default, or `'per-item'`), `variance` (`'per-draw'`, `'of-mean'`), `algorithm`, `rule` (as for
/// [`rvalues`]), `cpDraw` (CP's draw, 0), `ties` (pooled r-values' tie order: `'exchangeable'`,
/// the default, or the authors' `'index'`), `coverage` (`'marginal'`, the default, or
/// `'per-class'`: a threshold per class from its own calibration items), `neverEmpty` (false); the splits: `splits` random
/// splits (1) with `calFraction` (0.5), or one `mask` (n booleans, true = calibration); `seed`
/// (0) seeds the random splits and the exchangeable tie order; `sets: true` adds the first
/// split's prediction sets.
///
/// Returns `{alpha, methods: [...], warnings}` (and `scoresAre`, the reading chosen, when a
/// baseline runs): `warnings` holds the sentences the CLI prints as
/// warnings (docs/method.md §8: labels that use few of K, α below `1/(n_cal + 1)`, coarse
/// rank-based r-values, `M = 1`, `K = 1`). One entry per method: `{method, coverage, coverageSd,
/// size, sizeSd, position (null when no set holds its label), emptyRate, splits, qhat}`
/// (`qhat`: the first split's threshold, `Infinity` when `k* > n_cal`; a number, or per test item
/// of that split a Float64Array for pooled CP_r, per test item and candidate per class), the
/// conditional metrics (docs/method.md §5, conditional coverage): `macroCoverage`,
/// `worstClassCoverage`, `covgap` (percent), `violatedClasses`, `sscv`, `dsv`, each with its `…Sd` (null where undefined),
/// `classCoverage` and `classCount` (Float64Array per class, over all splits), `sizeStrata`
/// and `difficultyStrata` (`{lo, hi, coverage, count}`, Float64Arrays); per class also
/// `unboundedClasses` (the most classes in a split whose threshold was +∞ for too few
/// calibration items, also said in `warnings`); and with
/// `sets`: `sets: {items, labels (Uint32Array), covered (Uint8Array, 0/1), candidates (an
/// Array of Uint32Array, each set in the method's order)}`.
#[wasm_bindgen]
pub fn conformal(args: JsValue) -> std::result::Result<JsValue, JsError> {
    conformal_of(args).map_err(js_error)
}

fn conformal_of(args: JsValue) -> Result<JsValue> {
    let a: ConformalArgs = parse(args, &conformal_fields())?;
    let t = tensor_of(&a.scores, &a.shape)?;
    let (n, m, k) = (t.n(), t.m(), t.k());
    let labels = indices(&a.labels, "labels")?;
    conformal::check_alpha(a.alpha)?;
    let splits = split_plan(&a, n)?.splits(n)?;
    let methods = match &a.methods {
        Some(names) => names.iter().map(|s| s.parse::<Method>()).collect::<Result<Vec<_>>>()?,
        None => Method::PAPER.to_vec(),
    };
    let (opts, reading) = options_for(&a, &t, &methods)?;
    let n_cal = splits.iter().map(|s| s.cal.len()).min();
    let facts = Facts { m, k, labels: &labels, n_cal, alpha: a.alpha, methods: &methods, kind: opts.kind };
    let warnings: Array = warnings::check(&facts).iter().map(|w| JsValue::from(w.to_string())).collect();
    let prepared = conformal::Prepared::new(&t, &labels, conformal::needs_draw_orders(&methods, &opts))?;
    let ranks = conformal::difficulty_ranks(&prepared.summaries.mean, k, &labels);
    let out = Array::new();
    for method in methods {
        let cals = prepared.calibrate(method, &opts, &splits)?;
        let s = conformal::evaluate_with(&cals, method, a.alpha, a.never_empty, &ranks)?;
        let entry = object(&[
            ("method", method.name().into()),
            ("coverage", s.coverage_mean.into()),
            ("coverageSd", s.coverage_sd.into()),
            ("size", s.size_mean.into()),
            ("sizeSd", s.size_sd.into()),
            ("position", if s.position_mean.is_finite() { s.position_mean.into() } else { JsValue::NULL }),
            ("emptyRate", s.empty_rate.into()),
            ("splits", (s.splits as f64).into()),
        ]);
        conditional::set_fields(&entry, &s.conditional);
        set_field(&entry, "qhat", qhat::of_first(&cals, a.alpha));
        if let Some(count) = s.unbounded_classes {
            set_field(&entry, "unboundedClasses", (count as f64).into());
            if count > 0 {
                warnings.push(&JsValue::from(format!(
                    "{method}: {count} of {k} classes have too few calibration items for per-class coverage at \
                     α = {} in some split: their threshold is +∞, so they enter every set",
                    a.alpha
                )));
            }
        }
        if let (true, Some(first)) = (a.sets, cals.first()) {
            set_field(&entry, "sets", sets_object(first, &labels, a.alpha, a.never_empty));
        }
        out.push(&entry);
    }
    let result = object(&[("alpha", a.alpha.into()), ("methods", out.into()), ("warnings", warnings.into())]);
    if opts.coverage == conformal::Coverage::PerClass {
        set_field(&result, "coverage", opts.coverage.name().into());
    }
    if let Some(r) = reading {
        set_field(&result, "scoresAre", r.name().into());
    }
    Ok(result)
}

/// `P(q > p)` for independent `p ~ N(muP, sigma2P)` and `q ~ N(muQ, sigma2Q)`: how often a
/// false candidate's score beats the true one's in the toy setting (docs/method.md §6).
#[wasm_bindgen(js_name = toyProbability)]
pub fn toy_probability(args: JsValue) -> std::result::Result<f64, JsError> {
    let a: ToyArgs = parse(args, &["muP", "sigma2P", "muQ", "sigma2Q"]).map_err(js_error)?;
    let all = [a.mu_p, a.sigma2_p, a.mu_q, a.sigma2_q];
    if !all.iter().all(|v| v.is_finite()) || a.sigma2_p < 0.0 || a.sigma2_q < 0.0 {
        return Err(js_error(Error::invalid(format!(
            "toyProbability needs finite means and variances ≥ 0 (got {all:?})"
        ))));
    }
    Ok(toy::prob_q_exceeds_p(a.mu_p, a.sigma2_p, a.mu_q, a.sigma2_q))
}

fn js_error(e: Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Deserialises `args` after checking that it names only `fields`: serde-wasm-bindgen reads a
/// struct's fields by name and never sees any other key, so a misspelt option would pass
/// silently.
fn parse<T: for<'de> Deserialize<'de>>(args: JsValue, fields: &[&str]) -> Result<T> {
    if let Some(o) = args.dyn_ref::<Object>() {
        for key in Object::keys(o).iter().filter_map(|k| k.as_string()) {
            if !fields.contains(&key.as_str()) {
                return Err(Error::invalid(format!(
                    "unknown field `{key}`, expected one of {}",
                    fields.join(", ")
                )));
            }
        }
    }
    serde_wasm_bindgen::from_value(args).map_err(|e| Error::invalid(format!("bad arguments: {e}")))
}

/// The tensor of `scores` (`n·m·k` numbers) with `shape: [n, m, k]`.
fn tensor_of(scores: &JsValue, shape: &[usize]) -> Result<ScoreTensor> {
    let [n, m, k] = *shape else {
        return Err(Error::shape(format!("shape must be [n, m, k], got {} numbers", shape.len())));
    };
    ScoreTensor::new(n, m, k, numbers(scores, "scores")?)
}

/// The option named `name`, or its default when the field is absent.
fn option<T: FromStr<Err = Error> + Default>(name: Option<&str>) -> Result<T> {
    name.map_or(Ok(T::default()), str::parse)
}

fn score_options(a: &ConformalArgs) -> Result<ScoreOptions> {
    let prior = option(a.prior.as_deref())?;
    let variance = option(a.variance.as_deref())?;
    Ok(ScoreOptions {
        kind: option(a.kind.as_deref())?,
        variance,
        prior,
        algorithm: option(a.algorithm.as_deref())?,
        lambda: option(a.rule.as_deref())?,
        cp_draw: a.cp_draw.unwrap_or(0),
        ties: option(a.ties.as_deref())?,
        coverage: option(a.coverage.as_deref())?,
        scores_are: option(a.scores_are.as_deref())?,
        baseline: baseline_of(a)?,
    })
}

/// The run's options, with the baselines' reading of `t` decided once (reported when a
/// baseline runs).
fn options_for(
    a: &ConformalArgs,
    t: &ScoreTensor,
    methods: &[Method],
) -> Result<(ScoreOptions, Option<ScoresAre>)> {
    let opts = score_options(a)?;
    if !methods.iter().any(|m| m.is_baseline()) {
        return Ok((opts, None));
    }
    let reading = probability::resolve(t, opts.scores_are)?;
    Ok((ScoreOptions { scores_are: reading, ..opts }, Some(reading)))
}

/// The baselines' parameters: the core's defaults where a field is absent.
fn baseline_of(a: &ConformalArgs) -> Result<Baseline> {
    let d = Baseline::default();
    let b = Baseline {
        raps_lambda: a.raps_lambda.unwrap_or(d.raps_lambda),
        raps_kreg: a.raps_kreg.unwrap_or(d.raps_kreg),
        saps_lambda: a.saps_lambda.unwrap_or(d.saps_lambda),
        randomized: a.randomized.unwrap_or(d.randomized),
    };
    b.check()?;
    Ok(b)
}

fn split_plan(a: &ConformalArgs, n: usize) -> Result<SplitPlan> {
    if a.mask.is_undefined() {
        return Ok(SplitPlan::Random {
            count: a.splits.unwrap_or(1),
            cal_fraction: a.cal_fraction.unwrap_or(0.5),
            seed: a.seed.unwrap_or(0),
        });
    }
    if a.splits.is_some() || a.cal_fraction.is_some() {
        return Err(Error::invalid("give either mask or splits/calFraction, not both"));
    }
    let mask = booleans(&a.mask, "mask")?;
    if mask.len() != n {
        return Err(Error::shape(format!("mask has {} entries for {n} items", mask.len())));
    }
    // The seed still keys pooled r-values' tie order on the given split.
    Ok(SplitPlan::Fixed(Split::from_mask(&mask)?.keyed(a.seed.unwrap_or(0), 0)))
}

/// The first split's sets as typed arrays (see [`conformal`]).
fn sets_object(c: &conformal::Calibrated, labels: &[usize], alpha: f64, never_empty: bool) -> JsValue {
    let candidates = Array::new();
    let (mut items, mut truth, mut covered) = (Vec::new(), Vec::new(), Vec::new());
    for t in 0..c.test.len() {
        let set = c.set(t, alpha, never_empty);
        let label = labels[set.item];
        let members: Vec<u32> = set.members.iter().map(|&(cand, _)| cand as u32).collect();
        covered.push(u8::from(set.contains(label)));
        items.push(set.item as u32);
        truth.push(label as u32);
        candidates.push(&Uint32Array::from(&members[..]));
    }
    object(&[
        ("items", Uint32Array::from(&items[..]).into()),
        ("labels", Uint32Array::from(&truth[..]).into()),
        ("covered", Uint8Array::from(&covered[..]).into()),
        ("candidates", candidates.into()),
    ])
}

fn hyper_object(h: Hyper) -> JsValue {
    object(&[("mu", h.mu.into()), ("tau2", h.tau2.into())])
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o: JsValue = Object::new().into();
    for (name, value) in fields {
        set_field(&o, name, value.clone());
    }
    o
}

fn set_field(o: &JsValue, name: &str, value: JsValue) {
    // Setting a property of a fresh plain object cannot fail.
    let _ = Reflect::set(o, &JsValue::from_str(name), &value);
}

/// A typed array of numbers (no BigInt arrays or DataView, which do not hold plain numbers) or a
/// plain array whose every element is a number.
fn numbers(v: &JsValue, name: &str) -> Result<Vec<f64>> {
    if let Some(a) = v.dyn_ref::<Float64Array>() {
        return Ok(a.to_vec());
    }
    let bigint = v.is_instance_of::<BigInt64Array>() || v.is_instance_of::<BigUint64Array>();
    if ArrayBuffer::is_view(v) && !bigint && !v.is_instance_of::<DataView>() {
        return Ok(Float64Array::new(v).to_vec());
    }
    let Some(a) = v.dyn_ref::<Array>().filter(|_| Array::is_array(v)) else {
        return Err(Error::invalid(format!("{name} must be an array of numbers or a typed array")));
    };
    a.iter()
        .enumerate()
        .map(|(i, e)| e.as_f64().ok_or_else(|| Error::invalid(format!("{name}[{i}] is not a number"))))
        .collect()
}

/// Non-negative integers below 2³² (labels are candidate indices).
fn indices(v: &JsValue, name: &str) -> Result<Vec<usize>> {
    numbers(v, name)?
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if (0.0..4_294_967_296.0).contains(&x) && x.fract() == 0.0 {
                Ok(x as usize)
            } else {
                Err(Error::invalid(format!("{name}[{i}] = {x} is not an index (an integer ≥ 0)")))
            }
        })
        .collect()
}

fn booleans(v: &JsValue, name: &str) -> Result<Vec<bool>> {
    let Some(a) = v.dyn_ref::<Array>().filter(|_| Array::is_array(v)) else {
        return Err(Error::invalid(format!("{name} must be an array of booleans")));
    };
    a.iter()
        .enumerate()
        .map(|(i, e)| e.as_bool().ok_or_else(|| Error::invalid(format!("{name}[{i}] is not a boolean"))))
        .collect()
}
