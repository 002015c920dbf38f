//! `splitMasks`: the seeded splits of `conformal` as masks, as Python's `split_masks` gives
//! them, so a split the page, the CLI or Python ran can be named and run again anywhere
//! (`mask`, `--split`).

use js_sys::{Array, Uint8Array};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use rvalue_core::conformal::Split;
use rvalue_core::{Error, Result};

/// Arguments of [`split_masks`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SplitArgs {
    n: usize,
    #[serde(default)]
    splits: Option<usize>,
    #[serde(default)]
    cal_fraction: Option<f64>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    indices: Option<Vec<usize>>,
}

/// Masks (`Uint8Array`s of `n` entries, 1 = calibration) of splits `0..splits` (100) of `seed`
/// (0) with `calFraction` (0.5), or of the split numbers in `indices`: mask `r` is the split
/// that `conformal({..., seed})` runs as split `r`, and `rvalue sets --split-index r` runs.
/// Returns `{masks: [Uint8Array, …]}`.
#[wasm_bindgen(js_name = splitMasks)]
pub fn split_masks(args: JsValue) -> std::result::Result<JsValue, JsError> {
    let fields = ["n", "splits", "calFraction", "seed", "indices"];
    masks(super::parse(args, &fields).map_err(super::js_error)?).map_err(super::js_error)
}

fn masks(a: SplitArgs) -> Result<JsValue> {
    let indices = a.indices.unwrap_or_else(|| (0..a.splits.unwrap_or(100)).collect());
    if indices.is_empty() {
        return Err(Error::invalid("no split asked for: splits = 0 or indices empty"));
    }
    let out = Array::new();
    for &r in &indices {
        let split = Split::random(a.n, a.cal_fraction.unwrap_or(0.5), a.seed.unwrap_or(0), r)?;
        let bytes: Vec<u8> = split.mask(a.n).into_iter().map(u8::from).collect();
        out.push(&Uint8Array::from(&bytes[..]));
    }
    let result: JsValue = js_sys::Object::new().into();
    super::set_field(&result, "masks", out.into());
    Ok(result)
}
