//! Class probabilities from a draw's scores (docs/method.md §5, "Baselines"): how the scores
//! are read (`ScoresAre`, with `auto` deciding from the data), a stable softmax, and an item's
//! probabilities as the mean over its draws (a deep ensemble's prediction).

use crate::tensor::ScoreTensor;
use crate::{Error, Result};

crate::options! {
    /// How a draw's scores become class probabilities.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
    pub enum ScoresAre("scores-are") {
        /// Decided from the data ([`detect`]).
        #[default]
        Auto = "auto",
        /// Unnormalised log-probabilities: softmax.
        Logits = "logits",
        /// Log-probabilities: softmax too (it only undoes their rounding), checked `≤ 0`.
        LogProbabilities = "log-probabilities",
        /// Probabilities as given, checked non-negative and summing to 1.
        Probabilities = "probabilities",
    }
}

/// How far a row's sum (probabilities) or log-sum-exp (log-probabilities) may be from 1 or 0.
/// A float16 value is off by at most 2⁻¹¹ of itself, so a row of probabilities sums to 1 within
/// 2⁻¹¹ and log-probabilities' log-sum-exp is off by at most 2⁻¹¹ times the row's entropy
/// (≤ ln K): 10⁻² leaves room for float16 rows of 10⁴ classes and catches rows that are not
/// normalised at all.
pub const TOLERANCE: f64 = 1e-2;

/// Which readings every row seen so far allows: `auto`'s rule, a block at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detector {
    probabilities: bool,
    log_probabilities: bool,
}

impl Default for Detector {
    fn default() -> Self {
        Detector { probabilities: true, log_probabilities: true }
    }
}

impl Detector {
    /// Takes in every draw's row of `t`.
    pub fn see(&mut self, t: &ScoreTensor) {
        let mut buf = Vec::new();
        for i in 0..t.n() {
            for d in 0..t.m() {
                if !self.probabilities && !self.log_probabilities {
                    return;
                }
                let row = t.draw(i, d, &mut buf);
                self.probabilities &= probability_row(row).is_ok();
                self.log_probabilities &= log_probability_row(row).is_ok();
            }
        }
    }

    /// Whether the rows seen already decide the choice (`logits`): no row can undo that.
    pub fn decided(&self) -> bool {
        !self.probabilities && !self.log_probabilities
    }

    /// Takes in what `other` saw (another block's rows): the readings both allow, so blocks
    /// seen apart and merged decide as one pass over all of them.
    pub fn merge(&mut self, other: Detector) {
        self.probabilities &= other.probabilities;
        self.log_probabilities &= other.log_probabilities;
    }

    /// The readings allowed as one byte (bit 0 probabilities, bit 1 log-probabilities), for a
    /// block seen in another thread; [`Detector::from_byte`] reads it back.
    pub fn to_byte(self) -> u8 {
        u8::from(self.probabilities) | u8::from(self.log_probabilities) << 1
    }

    /// A [`Detector::to_byte`] byte; `None` for any other.
    pub fn from_byte(b: u8) -> Option<Detector> {
        (b < 4).then_some(Detector { probabilities: b & 1 != 0, log_probabilities: b & 2 != 0 })
    }

    /// `probabilities` when every row is non-negative and sums to 1, `log-probabilities` when
    /// every value is ≤ 0 and each row's log-sum-exp is 0 (both within [`TOLERANCE`]), else
    /// `logits`.
    pub fn choice(&self) -> ScoresAre {
        match (self.probabilities, self.log_probabilities) {
            (true, _) => ScoresAre::Probabilities,
            (false, true) => ScoresAre::LogProbabilities,
            _ => ScoresAre::Logits,
        }
    }
}

/// `auto`'s reading of `t` ([`Detector::choice`]).
pub fn detect(t: &ScoreTensor) -> ScoresAre {
    let mut d = Detector::default();
    d.see(t);
    d.choice()
}

/// The reading of `t` under `asked`: `auto` decided, an explicit choice checked (every row of
/// probabilities sums to 1, log-probabilities are ≤ 0 with log-sum-exp 0); the first row that
/// fails is named.
pub fn resolve(t: &ScoreTensor, asked: ScoresAre) -> Result<ScoresAre> {
    if asked == ScoresAre::Auto {
        return Ok(detect(t));
    }
    check(t, asked, 0)?;
    Ok(asked)
}

/// Checks every row of `t` (items numbered from `first`) against the reading `as_`.
pub fn check(t: &ScoreTensor, as_: ScoresAre, first: usize) -> Result<()> {
    let rule = match as_ {
        ScoresAre::Probabilities => probability_row,
        ScoresAre::LogProbabilities => log_probability_row,
        ScoresAre::Auto | ScoresAre::Logits => return Ok(()),
    };
    let mut buf = Vec::new();
    for i in 0..t.n() {
        for d in 0..t.m() {
            if let Err(why) = rule(t.draw(i, d, &mut buf)) {
                return Err(Error::invalid(format!(
                    "scores read as {as_}: item {}, draw {d}: {why}",
                    first + i
                )));
            }
        }
    }
    Ok(())
}

fn probability_row(row: &[f64]) -> std::result::Result<(), String> {
    if let Some(x) = row.iter().find(|x| **x < 0.0) {
        return Err(format!("a probability is negative ({x})"));
    }
    let sum: f64 = row.iter().sum();
    if (sum - 1.0).abs() > TOLERANCE {
        return Err(format!("the probabilities sum to {sum}, not 1 (tolerance {TOLERANCE})"));
    }
    Ok(())
}

fn log_probability_row(row: &[f64]) -> std::result::Result<(), String> {
    if let Some(x) = row.iter().find(|x| **x > 0.0) {
        return Err(format!("a log-probability is positive ({x})"));
    }
    let lse = log_sum_exp(row);
    if lse.abs() > TOLERANCE {
        return Err(format!("the log-sum-exp is {lse}, not 0 (tolerance {TOLERANCE})"));
    }
    Ok(())
}

/// `ln Σ exp(x_j)`, stable for any finite values: the maximum is taken out first, so no
/// exponential overflows and the largest term is exactly 1.
pub fn log_sum_exp(x: &[f64]) -> f64 {
    let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    let sum: f64 = x.iter().map(|&v| libm::exp(v - top)).sum();
    top + libm::log(sum)
}

/// `exp(x_j) / Σ exp(x)` into `out`, stable for any finite values (the maximum is subtracted:
/// every exponent is ≤ 0 and the sum is ≥ 1).
pub fn softmax_into(x: &[f64], out: &mut Vec<f64>) {
    let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    out.clear();
    out.extend(x.iter().map(|&v| libm::exp(v - top)));
    let sum: f64 = out.iter().sum();
    for p in out.iter_mut() {
        *p /= sum;
    }
}

/// Each item's class probabilities `[n][K]`: the mean over its draws of each draw's
/// probabilities under `as_` (not `auto`: [`resolve`] first), summed in draw order.
pub fn mean_probabilities(t: &ScoreTensor, as_: ScoresAre) -> Result<Vec<f64>> {
    mean_probabilities_of(t, as_, 0..t.n())
}

/// [`mean_probabilities`] of items `items` alone (`[items][K]`): each item's row is made on its
/// own, so chunks of items on threads join to the same rows.
pub fn mean_probabilities_of(
    t: &ScoreTensor,
    as_: ScoresAre,
    items: std::ops::Range<usize>,
) -> Result<Vec<f64>> {
    if as_ == ScoresAre::Auto {
        return Err(Error::invalid("the scores' reading must be decided before probabilities are made"));
    }
    let (m, k) = (t.m(), t.k());
    let mut out = vec![0.0; items.len() * k];
    let (mut buf, mut p) = (Vec::new(), Vec::new());
    for (i, row) in items.zip(out.chunks_exact_mut(k.max(1))) {
        for d in 0..m {
            let x = t.draw(i, d, &mut buf);
            let probs: &[f64] = if as_ == ScoresAre::Probabilities {
                x
            } else {
                softmax_into(x, &mut p);
                &p
            };
            for (o, v) in row.iter_mut().zip(probs) {
                *o += v;
            }
        }
        for o in row.iter_mut() {
            *o /= m as f64;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
