//! `scoring_fn!`: one spelling of the keywords that `conformal`, `sets` and `calibrate` share.
//!
//! Each of the three takes every scoring option of the command line by name, so each Python
//! signature is long; pyo3 needs each written out. The macro writes the shared runs once, with
//! their defaults: `rvalue` … `ties` after the function's own leading parameters, and the
//! baselines' `scores_are` … `randomized` last. What lies between (`never_empty`, `threads`,
//! `cal_true`, …) differs a little between the three and is given by each. The body gets the
//! options as one [`Scoring`](crate::options::Scoring); Python sees the signature as written
//! before (`tests/test_stubs.py` compares it with the stubs).

/// Defines `pub fn $name` as a `#[pyfunction]` whose signature is `[$head]` (the function's own
/// leading parameters), the shared `rvalue` … `ties`, `[$mid]`, then the shared baselines'
/// options. In `$body`, `$scoring` is the [`Scoring`](crate::options::Scoring) of them all,
/// `$coverage` (one of `$mid`'s parameters) included.
macro_rules! scoring_fn {
    (
        $(#[$attr:meta])*
        fn $name:ident<$py:lifetime>([$($head_sig:tt)*] $($head:ident: $head_ty:ty),* $(,)?)
        [$($mid_sig:tt)*] ($($mid:ident: $mid_ty:ty),* $(,)?) -> $ret:ty;
        |$scoring:ident, $coverage:ident| $body:block
    ) => {
        $(#[$attr])*
        #[pyo3::pyfunction]
        #[pyo3(signature = (
            $($head_sig)*, rvalue=$crate::options::default_rvalue(), variance="per-draw",
            prior=$crate::options::default_prior(), algorithm="exact", lambda_rule="model", cp_draw=0,
            ties="exchangeable", $($mid_sig)*, scores_are="auto", raps_lambda=0.01, raps_kreg=5.0,
            saps_lambda=0.2, randomized=true
        ))]
        #[allow(clippy::too_many_arguments)] // the command line's options, by name
        pub fn $name<$py>(
            $($head: $head_ty,)*
            rvalue: &str,
            variance: &str,
            prior: &str,
            algorithm: &str,
            lambda_rule: &str,
            cp_draw: usize,
            ties: &str,
            $($mid: $mid_ty,)*
            scores_are: &str,
            raps_lambda: f64,
            raps_kreg: f64,
            saps_lambda: f64,
            randomized: bool,
        ) -> $ret {
            let baselines =
                $crate::options::Baselines { scores_are, raps_lambda, raps_kreg, saps_lambda, randomized };
            let $scoring = $crate::options::Scoring {
                rvalue,
                variance,
                prior,
                algorithm,
                lambda_rule,
                cp_draw,
                ties,
                coverage: $coverage,
                baselines,
            };
            $body
        }
    };
}

pub(crate) use scoring_fn;
