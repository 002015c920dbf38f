//! `rvalue rank`: parametric r-values of a file of estimates and standard errors.

use rvalue_core::rvalue::{self, Algorithm, LambdaRule};

use crate::args::RankArgs;
use crate::{display, print_stdout, read_file, units, CliError, CliResult};

/// `rank`'s λ rule when `--lambda` is not given: who asks for the grid asks for the rvalues R
/// package's numbers, and the package uses the empirical rule (docs/method.md §9).
pub(crate) fn rank_lambda(algorithm: Algorithm, lambda: Option<LambdaRule>) -> LambdaRule {
    lambda.unwrap_or(match algorithm {
        Algorithm::Exact => LambdaRule::Model,
        Algorithm::Grid => LambdaRule::Empirical,
    })
}

pub(crate) fn run_rank(a: &RankArgs) -> CliResult<()> {
    let file = display(&a.input);
    let u = units::parse_units(&file, &read_file(&a.input)?)?;
    let s: Vec<f64> = u.se.iter().map(|se| se * se).collect();
    let lambda = rank_lambda(a.algorithm, a.lambda);
    let p = rvalue::parametric(&u.estimate, &s, a.hyper, a.algorithm, lambda)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let mut out = String::from("estimate,se,post_mean,post_sd,rvalue\n");
    for i in 0..u.estimate.len() {
        out.push_str(&format!(
            "{},{},{},{},{}\n",
            u.estimate[i], u.se[i], p.post_mean[i], p.post_sd[i], p.rvalue[i]
        ));
    }
    print_stdout(&out)
}
