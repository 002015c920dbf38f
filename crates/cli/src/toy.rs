//! `rvalue toy`: the paper's simulation, each method's rows over repeats.

use rvalue_core::conformal::{
    self, Method, Prepared, ScoreOptions, Split, SplitMetrics, SplitTallies, Summary,
};
use rvalue_core::probability::ScoresAre;
use rvalue_core::toy::{self, ToyParams};

use crate::args::ToyArgs;
use crate::inputs::{facts, methods_of, warn_data};
use crate::output::{self, Progress};
use crate::{print_stdout, CliResult};

pub(crate) fn run_toy(a: &ToyArgs) -> CliResult<()> {
    let methods = methods_of(&a.methods.list)?;
    let params = ToyParams {
        k: a.k,
        m: a.m,
        n_cal: a.n_cal,
        n_test: a.n_test,
        repeats: a.repeats,
        mu_p: a.mu_p,
        sigma2_p: a.sigma2_p,
        mu_q: a.mu_q,
        sigma2: a.sigma2,
        high_var_fraction: a.high_var_fraction,
        seed: a.seed,
    };
    params.validate()?;
    // The toy's draws are scores on no probability scale: the baselines read them as logits.
    let opts = ScoreOptions { scores_are: ScoresAre::Logits, ..a.method.options() };
    warn_data(&facts((a.m, a.k), &[], Some(a.n_cal), (a.alpha, &methods, opts.kind)));

    let p = toy::prob_q_exceeds_p(a.mu_p, a.sigma2_p, a.mu_q, a.sigma2);
    let mut out = format!(
        "P(q > p) = {:.2} % ({p})   [p ~ N({}, {}), q ~ N({}, {})]\n",
        100.0 * p,
        a.mu_p,
        a.sigma2_p,
        a.mu_q,
        a.sigma2
    );
    out.push_str(&format!("Note: {}\n", toy::NOTE_ON_PAPER));
    out.push_str(&format!(
        "Simulated conformal experiment: K = {}, M = {}, n_cal = {}, n_test = {}, repeats = {}, \
         h = {}, seed = {}, alpha = {}\n\n",
        a.k, a.m, a.n_cal, a.n_test, a.repeats, a.high_var_fraction, a.seed, a.alpha
    ));
    print_stdout(&out)?;

    let mask: Vec<bool> = (0..params.n()).map(|i| i < params.n_cal).collect();
    let split = Split::from_mask(&mask)?;
    let mut measured: Vec<Measured> = methods.iter().map(|_| Measured::default()).collect();
    let mut progress = Progress::new();
    for r in 0..params.repeats {
        progress.count("toy: repeats", r, params.repeats);
        let (t, labels) = toy::simulate(&params, r)?;
        let prep = Prepared::new(&t, &labels, conformal::needs_draw_orders(&methods, &opts))?;
        let ranks = conformal::difficulty_ranks(&prep.summaries.mean, t.k(), &labels);
        // Repeat r's tie order is split r of the toy's seed, as in the explorer.
        let split = split.clone().keyed(params.seed, r as u64);
        for (j, &method) in methods.iter().enumerate() {
            for c in prep.calibrate(method, &opts, std::slice::from_ref(&split))? {
                measured[j].add(c.measure(a.alpha, a.method.never_empty, &ranks));
            }
        }
    }
    progress.clear();
    let rows: Vec<Summary> =
        methods.iter().enumerate().map(|(j, &method)| measured[j].summary(method, a.alpha, a.k)).collect();
    print_stdout(&output::summary_csv(&rows))
}

/// A method's repeats measured so far (each repeat a data set of its own, with its own
/// difficulty ranks).
#[derive(Default)]
struct Measured {
    metrics: Vec<SplitMetrics>,
    sizes: Vec<Vec<usize>>,
    tallies: Vec<SplitTallies>,
}

impl Measured {
    fn add(&mut self, (m, sizes, tallies): (SplitMetrics, Vec<usize>, SplitTallies)) {
        self.metrics.push(m);
        self.sizes.push(sizes);
        self.tallies.push(tallies);
    }

    fn summary(&self, method: Method, alpha: f64, k: usize) -> Summary {
        conformal::summarize_with(method, alpha, &self.metrics, &self.sizes, k, &self.tallies)
    }
}
