//! `rvalues` (as `rvalue rank`) and `toy_probability` (as the JavaScript API's `toyProbability`).

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rvalue_core::eb::Hyper;
use rvalue_core::rvalue::{self, Algorithm, HyperChoice, LambdaRule};
use rvalue_core::Error;

use crate::arrays::{self, value_error};
use crate::options;

/// Parametric r-values (docs/method.md §2) of units with estimates `x` and standard errors `se`
/// (or noise variances `s`): the columns of `rvalue rank` and the prior's `hyper`.
#[pyfunction]
#[pyo3(signature = (x, se=None, *, s=None, algorithm="exact", lambda_rule=None, hyper=None))]
pub fn rvalues<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    se: Option<&Bound<'py, PyAny>>,
    s: Option<&Bound<'py, PyAny>>,
    algorithm: &str,
    lambda_rule: Option<&str>,
    hyper: Option<(f64, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let x = arrays::numbers(x, "x")?;
    let (se, s) = match (se, s) {
        (Some(se), None) => {
            let se = arrays::numbers(se, "se")?;
            let s = se.iter().map(|e| e * e).collect();
            (se, s)
        }
        (None, Some(s)) => {
            let s = arrays::numbers(s, "s")?;
            (s.iter().map(|v| v.sqrt()).collect(), s)
        }
        _ => {
            return Err(value_error(Error::invalid(
                "give exactly one of se (standard errors) and s (noise variances)",
            )))
        }
    };
    if let Some(i) = se.iter().position(|e| *e < 0.0) {
        return Err(value_error(Error::invalid(format!("se[{i}] is {} (must be ≥ 0)", se[i]))));
    }
    let algorithm: Algorithm = options::parse(algorithm)?;
    let rule = match lambda_rule {
        Some(name) => options::parse(name)?,
        None => default_rule(algorithm),
    };
    let hyper = match hyper {
        Some((mu, tau2)) => HyperChoice::Fixed(Hyper::fixed(mu, tau2).map_err(value_error)?),
        None => HyperChoice::Estimate,
    };
    let p = py.detach(|| rvalue::parametric(&x, &s, hyper, algorithm, rule)).map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("estimate", PyArray1::from_vec(py, x))?;
    d.set_item("se", PyArray1::from_vec(py, se))?;
    d.set_item("post_mean", PyArray1::from_vec(py, p.post_mean))?;
    d.set_item("post_sd", PyArray1::from_vec(py, p.post_sd))?;
    d.set_item("rvalue", PyArray1::from_vec(py, p.rvalue))?;
    let h = PyDict::new(py);
    h.set_item("mu", p.hyper.mu)?;
    h.set_item("tau2", p.hyper.tau2)?;
    d.set_item("hyper", h)?;
    Ok(d)
}

/// `rvalue rank`'s λ rule when none is given: who asks for the grid asks for the rvalues R
/// package's numbers, and the package uses the empirical rule (docs/method.md §9).
fn default_rule(algorithm: Algorithm) -> LambdaRule {
    match algorithm {
        Algorithm::Exact => LambdaRule::Model,
        Algorithm::Grid => LambdaRule::Empirical,
    }
}

/// `P(q > p)` for independent `p ~ N(mu_p, sigma2_p)` and `q ~ N(mu_q, sigma2_q)` (docs/method.md
/// §6); the defaults are the toy's, where it is 48.74 %.
#[pyfunction]
#[pyo3(signature = (mu_p=1.0, sigma2_p=1.0, mu_q=0.0, sigma2_q=1000.0))]
pub fn toy_probability(mu_p: f64, sigma2_p: f64, mu_q: f64, sigma2_q: f64) -> PyResult<f64> {
    let all = [mu_p, sigma2_p, mu_q, sigma2_q];
    if !all.iter().all(|v| v.is_finite()) || sigma2_p < 0.0 || sigma2_q < 0.0 {
        return Err(value_error(Error::invalid(format!(
            "toy_probability needs finite means and variances ≥ 0 (got {all:?})"
        ))));
    }
    Ok(rvalue_core::toy::prob_q_exceeds_p(mu_p, sigma2_p, mu_q, sigma2_q))
}
