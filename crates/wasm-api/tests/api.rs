//! The API in headless Chromium (`make test-wasm`): its numbers are the core's to the last bit,
//! it reads every typed array of numbers, and bad input comes back as a thrown `Error`, after
//! which the module still works. The built module and its example page are tested by
//! e2e/api.test.mjs.

#![cfg(target_arch = "wasm32")]
// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, BigInt64Array, Float32Array, Float64Array, Int32Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::wasm_bindgen_test as test;

use rvalue_core::rvalue::{self, Algorithm, HyperChoice, LambdaRule};
use rvalue_wasm_api::{conformal, rvalues, toy_probability};

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const R_UNITS: &str = include_str!("../../../tests/data/reference/rvalues_R_12_units.csv");

/// The rvalues R package's 12 example units: estimates and standard errors.
fn units() -> (Vec<f64>, Vec<f64>) {
    R_UNITS
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split(',').map(|v| v.trim().parse::<f64>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .unzip()
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (name, value) in fields {
        Reflect::set(&o, &JsValue::from_str(name), value).unwrap();
    }
    o.into()
}

fn field(o: &JsValue, name: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(name)).unwrap()
}

fn float64s(v: &JsValue) -> Vec<f64> {
    v.dyn_ref::<Float64Array>().expect("a Float64Array").to_vec()
}

fn plain(values: &[f64]) -> JsValue {
    values.iter().map(|&v| JsValue::from_f64(v)).collect::<Array>().into()
}

fn message(e: JsError) -> String {
    JsValue::from(e).dyn_into::<js_sys::Error>().expect("a JS Error").message().into()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn rvalues_are_the_cores_bit_for_bit() {
    let (x, se) = units();
    let s: Vec<f64> = se.iter().map(|e| e * e).collect();
    for (algorithm, rule) in [("exact", "model"), ("grid", "empirical"), ("exact", "empirical")] {
        let args = object(&[
            ("x", plain(&x)),
            ("se", Float64Array::from(&se[..]).into()),
            ("algorithm", algorithm.into()),
            ("rule", rule.into()),
        ]);
        let got = rvalues(args).map_err(message).unwrap();
        let a: Algorithm = algorithm.parse().unwrap();
        let r: LambdaRule = rule.parse().unwrap();
        let want = rvalue::parametric(&x, &s, HyperChoice::Estimate, a, r).unwrap();
        assert_eq!(bits(&float64s(&field(&got, "rvalue"))), bits(&want.rvalue), "{algorithm}/{rule}");
        assert_eq!(bits(&float64s(&field(&got, "postMean"))), bits(&want.post_mean));
        assert_eq!(bits(&float64s(&field(&got, "postSd"))), bits(&want.post_sd));
        let hyper = field(&got, "hyper");
        assert_eq!(field(&hyper, "mu").as_f64(), Some(want.hyper.mu));
        assert_eq!(field(&hyper, "tau2").as_f64(), Some(want.hyper.tau2));
    }
}

#[test]
fn every_typed_array_of_numbers_reads_as_the_plain_array() {
    let (x, s) = ([1.0, 2.0, -1.0, 4.0, 0.0], [1.0, 1.0, 2.0, 1.0, 3.0]);
    let run = |x: JsValue| rvalues(object(&[("x", x), ("s", plain(&s))])).map_err(message);
    let want = float64s(&field(&run(plain(&x)).unwrap(), "rvalue"));
    let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let xi: Vec<i32> = x.iter().map(|&v| v as i32).collect();
    for typed in [JsValue::from(Float32Array::from(&x32[..])), Int32Array::from(&xi[..]).into()] {
        assert_eq!(bits(&float64s(&field(&run(typed).unwrap(), "rvalue"))), bits(&want));
    }
    // BigInt arrays hold no plain numbers.
    let big = BigInt64Array::new_with_length(5);
    assert!(run(big.into()).unwrap_err().contains("x must be an array of numbers"));
}

#[test]
fn bad_input_throws_and_the_module_keeps_working() {
    let scores: JsValue = Float64Array::new_with_length(2 * 3 * 4).into();
    let shape = |dims: &[f64]| plain(dims);
    let cases: Vec<(Result<JsValue, JsError>, &str)> = vec![
        (rvalues(object(&[("x", plain(&[1.0, f64::NAN])), ("s", plain(&[1.0, 1.0]))])), "is NaN"),
        (
            rvalues(object(&[("x", plain(&[1.0])), ("s", plain(&[1.0])), ("rul", "model".into())])),
            "unknown field `rul`",
        ),
        (rvalues(JsValue::UNDEFINED), "bad arguments"),
        (
            conformal(object(&[
                ("scores", scores.clone()),
                ("shape", shape(&[2.0, 3.0])),
                ("labels", plain(&[0.0, 1.0])),
                ("alpha", 0.1.into()),
            ])),
            "shape must be [n, m, k]",
        ),
        (
            conformal(object(&[
                ("scores", scores),
                ("shape", shape(&[2.0, 3.0, 4.0])),
                ("labels", plain(&[0.0, 9.0])),
                ("alpha", 0.1.into()),
            ])),
            "but K = 4",
        ),
    ];
    for (i, (result, expected)) in cases.into_iter().enumerate() {
        let e = message(result.expect_err(expected));
        assert!(e.contains(expected), "case {i}: {e}");
    }
    let toy = |sigma2_q: f64| {
        toy_probability(object(&[
            ("muP", 1.0.into()),
            ("sigma2P", 1.0.into()),
            ("muQ", 0.0.into()),
            ("sigma2Q", sigma2_q.into()),
        ]))
    };
    assert!(message(toy(-1.0).unwrap_err()).contains("variances ≥ 0"));
    assert_eq!(
        toy(1000.0).map_err(message).unwrap(),
        rvalue_core::toy::prob_q_exceeds_p(1.0, 1.0, 0.0, 1000.0)
    );
}

/// `coverage: 'per-class'`: the first split's sets are the core's per-class sets, the metrics
/// its per-class metrics, and a class absent from calibration is counted and warned about.
#[test]
fn per_class_coverage_is_the_cores() {
    use rvalue_core::conformal::{self as core, Coverage, Method, ScoreOptions, Split};
    let (t, _) = rvalue_core::samples::logits(60, 4, 5, 3).unwrap();
    // Class 4 only among the test items (the mask's false entries).
    let labels: Vec<usize> = (0..60).map(|i| if i % 2 == 0 { (i / 2) % 4 } else { i % 5 }).collect();
    let mask: Vec<bool> = (0..60).map(|i| i % 2 == 0).collect();
    let r = conformal(object(&[
        ("scores", Float64Array::from(&t.data()[..]).into()),
        ("shape", plain(&[60.0, 4.0, 5.0])),
        ("labels", plain(&labels.iter().map(|&y| y as f64).collect::<Vec<_>>())),
        ("alpha", 0.2.into()),
        ("methods", ["cp"].iter().map(|&s| JsValue::from(s)).collect::<Array>().into()),
        ("coverage", "per-class".into()),
        ("mask", mask.iter().map(|&b| JsValue::from(b)).collect::<Array>().into()),
        ("sets", true.into()),
    ]))
    .map_err(message)
    .unwrap();
    assert_eq!(field(&r, "coverage").as_string().unwrap(), "per-class");
    let warnings: Array = field(&r, "warnings").dyn_into().unwrap();
    assert_eq!(warnings.length(), 1);
    assert!(warnings.get(0).as_string().unwrap().contains("1 of 5 classes"));
    let cp = Array::from(&field(&r, "methods")).get(0);
    assert_eq!(field(&cp, "unboundedClasses").as_f64(), Some(1.0));
    let opts = ScoreOptions { coverage: Coverage::PerClass, ..ScoreOptions::default() };
    let prepared = core::Prepared::new(&t, &labels, false).unwrap();
    let split = Split::from_mask(&mask).unwrap();
    let c = prepared.calibrate(Method::Cp, &opts, &[split]).unwrap().remove(0);
    assert_eq!(field(&cp, "coverage").as_f64().unwrap().to_bits(), c.metrics(0.2, false).coverage.to_bits());
    let sets = Array::from(&field(&field(&cp, "sets"), "candidates"));
    for pos in 0..c.test.len() {
        let want: Vec<u32> = c.set(pos, 0.2, false).members.iter().map(|&(m, _)| m as u32).collect();
        let got = sets.get(pos as u32).dyn_into::<js_sys::Uint32Array>().unwrap().to_vec();
        assert_eq!(got, want, "test item {pos}");
    }
}

/// `splitMasks` gives the core's seeded splits (those `conformal` runs), by count or by number.
#[test]
fn split_masks_are_the_seeded_splits() {
    use rvalue_core::conformal::Split;
    use rvalue_wasm_api::split_masks;
    let args =
        object(&[("n", 37.into()), ("splits", 3.into()), ("seed", 5.into()), ("calFraction", 0.4.into())]);
    let masks: Array = field(&split_masks(args).unwrap(), "masks").dyn_into().unwrap();
    assert_eq!(masks.length(), 3);
    for r in 0..3 {
        let got = js_sys::Uint8Array::new(&masks.get(r)).to_vec();
        let want: Vec<u8> =
            Split::random(37, 0.4, 5, r as usize).unwrap().mask(37).into_iter().map(u8::from).collect();
        assert_eq!(got, want, "split {r}");
    }
    let picked = object(&[("n", 20.into()), ("indices", Array::of1(&7.into()).into())]);
    let one: Array = field(&split_masks(picked).unwrap(), "masks").dyn_into().unwrap();
    let want: Vec<u8> = Split::random(20, 0.5, 0, 7).unwrap().mask(20).into_iter().map(u8::from).collect();
    assert_eq!(js_sys::Uint8Array::new(&one.get(0)).to_vec(), want);
    assert!(message(split_masks(object(&[("n", 1.into())])).unwrap_err()).contains("too few"));
    assert!(message(split_masks(object(&[("n", 9.into()), ("split", 1.into())])).unwrap_err())
        .contains("unknown field"));
}

/// The baselines: their options reach the core (the first split's sets are the core's), the
/// reading is reported, and a bad parameter throws the core's sentence.
#[test]
fn baselines_are_the_cores() {
    use rvalue_core::conformal::{self as core, Baseline, Method, ScoreOptions, Split};
    let (t, labels) = rvalue_core::samples::logits(60, 4, 5, 3).unwrap();
    let mask: Vec<bool> = (0..60).map(|i| i % 3 != 0).collect();
    let call = |method: &str, lambda: f64| {
        conformal(object(&[
            ("scores", Float64Array::from(&t.data()[..]).into()),
            ("shape", plain(&[60.0, 4.0, 5.0])),
            ("labels", plain(&labels.iter().map(|&y| y as f64).collect::<Vec<_>>())),
            ("alpha", 0.2.into()),
            ("methods", [method].iter().map(|&s| JsValue::from(s)).collect::<Array>().into()),
            ("rapsLambda", lambda.into()),
            ("rapsKreg", 1.0.into()),
            ("randomized", false.into()),
            ("mask", mask.iter().map(|&b| JsValue::from(b)).collect::<Array>().into()),
            ("sets", true.into()),
        ]))
        .map_err(message)
    };
    let r = call("raps", 0.1).unwrap();
    assert_eq!(field(&r, "scoresAre").as_string().unwrap(), "logits");
    let baseline = Baseline { raps_lambda: 0.1, raps_kreg: 1.0, randomized: false, ..Baseline::default() };
    let opts = ScoreOptions { baseline, ..ScoreOptions::default() };
    let c = core::Prepared::new(&t, &labels, false)
        .unwrap()
        .calibrate(Method::Raps, &opts, &[Split::from_mask(&mask).unwrap()])
        .unwrap()
        .remove(0);
    let sets = Array::from(&field(&field(&Array::from(&field(&r, "methods")).get(0), "sets"), "candidates"));
    for pos in 0..c.test.len() {
        let want: Vec<u32> = c.set(pos, 0.2, false).members.iter().map(|&(m, _)| m as u32).collect();
        assert_eq!(sets.get(pos as u32).dyn_into::<js_sys::Uint32Array>().unwrap().to_vec(), want);
    }
    assert!(call("raps", -1.0).unwrap_err().contains("RAPS's λ must be a finite number ≥ 0"));
}
