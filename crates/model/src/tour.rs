//! The guided tour: the paper's argument in steps, each a few sentences beside the live panels
//! it is about, with one thing for the reader to try.
//!
//! A step's state is an ordinary link: [`Step::query`] says how it differs from the page's
//! defaults, and a link holding `tour=N` is read against step `N`'s state (see
//! [`crate::url::UrlState::base_controls`]), so `?tour=4` opens step 4 as the tour set it up,
//! and moving a slider there writes only what the reader changed. Each step's "try this" is a
//! predicate on the page's state, false at the step's own state and true once the reader has
//! done what it proposes ([`Step::action`], as link keys, is that action).

mod card;
mod moves;
mod stage;

pub use card::{card, per_class_step, tried, Card, Outcome};
pub use moves::{after, count, ends, key_move, marks, newly_tried, KeyTarget, Move};

use crate::panel::Panel;
use crate::url::{DataRef, UrlState};
use rvalue_core::conformal::Coverage;
use rvalue_core::rvalue::TieOrder;

/// One step of the tour.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub title: &'static str,
    /// A few sentences (at most 80 words), plain text.
    pub text: &'static str,
    /// How the step's state differs from the page's defaults, as link keys (no `tour`).
    pub query: &'static str,
    /// The panels the step is about, first the one it is most about.
    pub panels: &'static [Panel],
    /// The id of the control the step asks the reader to use (kept in an embedded step).
    pub control: &'static str,
    /// What to try, one sentence.
    pub try_this: &'static str,
    /// The confirmation shown once the reader has done it.
    pub done: &'static str,
    /// Whether the page's state shows the reader has done it.
    pub tried: fn(&UrlState) -> bool,
    /// What the reader is asked to do, as link keys laid over the step's query (for tests).
    pub action: &'static str,
}

/// The steps, in order; a link's `tour=N` is `STEPS[N - 1]`.
pub const STEPS: [Step; 10] = [
    Step {
        title: "Conformal prediction in one picture",
        text: "A model scores each candidate answer of an item, higher is better. Split conformal \
               prediction turns it into a nonconformity score, −score, takes the true answers' on \
               calibration items and cuts at their ⌈(n + 1)(1 − α)⌉-th smallest, q̂. A new item's set \
               holds every candidate whose −score is at most q̂, and on exchangeable data it holds the \
               true answer with probability at least 1 − α. Panel 3 shows that \
               coverage, panel 6 the set sizes.",
        query: "",
        panels: &[Panel::Coverage, Panel::Summary],
        control: "alpha",
        try_this: "Move α to 0.2 and watch every method's coverage follow 1 − α down to about 0.8.",
        done: "Coverage followed 1 − α: that is the guarantee, whatever the score.",
        tried: |s| s.controls.alpha >= 0.2,
        action: "alpha=0.2",
    },
    Step {
        title: "One draw is not the model",
        text: "A model that can be sampled (an ensemble, adapters, posterior draws, paraphrased prompts) \
               gives each candidate M scores, not one. CP scores with a single draw, so an item's set \
               depends on which draw was taken. Panel 7 inspects one test item: each column ranks its \
               candidates by one method, the line marks the set, the true label is in blue. Here \
               CP_r's set is empty: α allows that.",
        query: "",
        panels: &[Panel::Inspector],
        control: "cp-draw",
        try_this: "Set CP's draw (under Method) to 1 and watch the CP column of panel 7 reorder.",
        done: "Same item, same model, another draw: CP's ranking changed. CP_avg and CP_r use every \
               draw, so theirs did not.",
        tried: |s| s.controls.score.cp_draw != 0,
        action: "cp-draw=1",
    },
    Step {
        title: "A wide false candidate beats the true one",
        text: "The toy: the true candidate's draws are p ~ N(1, 1), a false candidate's q ~ N(0, σ²). With \
               σ² = 1000 the false candidate is worse on average, yet beats the true one on 48.74 % of \
               draws (panel 1): close to a coin toss. Each item here has one true and nine such false \
               candidates, with 30 draws each.",
        query: "",
        panels: &[Panel::Scores],
        control: "sigma2",
        try_this: "Move σ² down to 10 and watch P(q > p) fall.",
        done: "P(q > p) fell below 40 % (38 % at σ² = 10): a narrower false candidate still wins \
               often, but less; its width, not its merit, made it win near half the time.",
        tried: |s| s.controls.sigma2 <= 10.0,
        action: "sigma2=10",
    },
    Step {
        title: "Averaging helps, only partly",
        text: "CP_avg scores each candidate by its mean over the M draws. The mean of a wide candidate \
               still varies, with variance σ²/M, so it still beats the true one often: at the defaults \
               CP_avg's sets hold about 4.9 of 10 candidates against CP's 5.4 (panel 6), at the same \
               coverage. Panel 4 shows the sizes at every α.",
        query: "",
        panels: &[Panel::Size, Panel::Summary],
        control: "sigma2",
        try_this: "Move σ² up to 5000 and watch CP_avg's sets grow back towards CP's.",
        done: "Wider draws, noisier means: averaging divides the variance by M, it does not remove it.",
        tried: |s| s.controls.sigma2 >= 5000.0,
        action: "sigma2=5000",
    },
    Step {
        title: "The r-value and its threshold curve",
        text: "CP_r scores a candidate by its r-value: empirical Bayes shrinks its mean towards a \
               prior learnt from all, more the wider it is; the r-value is the smallest β \
               at which it ranks in the top fraction β. Panel 2 draws the bar t*_β(σ²) under the \
               toy's true prior: it dips to s*, is back at its start at s0, then rises. Dashed: the \
               bar under the fitted prior the r-values use (at the defaults τ̂² = 0: no dip).",
        query: "",
        panels: &[Panel::Threshold],
        control: "beta",
        try_this: "Move β up to 0.25 and watch the bar come down: a larger top fraction admits more.",
        done: "A larger β lowers the bar; a candidate's r-value is the smallest β at which it clears \
               it.",
        tried: |s| s.controls.beta >= 0.25,
        action: "beta=0.25",
    },
    Step {
        title: "Theorem 3: CP_r drops wide false candidates",
        text: "Theorem 3 of the paper (Zeng, Prabhu, Zeng, Newton and Singh, Empirical Bayes Conformal \
               Prediction for Vision and Language Models): as a false candidate's variance σ² grows, its \
               chance to enter CP's set tends to one half; under CP_r it tends to zero, as the threshold \
               rises faster than the draws spread. Panel 5 follows one false candidate at CP_r's \
               calibrated r̂, its fitted prior fixed: the mean of 30 draws never clears it, one \
               draw (dashed) soon stops.",
        query: "sigma2=10",
        panels: &[Panel::Theorem3],
        control: "sigma2",
        try_this: "Move σ² up to 1000 and read the readout under panel 5: CP stays near one half, CP_r at \
                   0.",
        done: "At σ² = 1000 CP keeps each wide false candidate about half the time, about 4.5 per set, \
               and CP_r none: panel 6's CP sets hold 5.4 candidates, CP_r's 0.90, the true one alone.",
        tried: |s| s.controls.sigma2 >= 1000.0,
        action: "sigma2=1000",
    },
    Step {
        title: "Same coverage, smaller sets",
        text: "Panel 6 sums up the current α in the form of the paper's Table 1, whose published \
               rows it quotes below. CP_r covers as CP does (about 0.90 at α = \
               0.1) with sets of 0.9 candidates instead of 5.4: the wide false candidates are gone, and \
               about 10 % of its sets are empty, which α allows. Panels 3 and 4 show the same at every \
               α.",
        query: "",
        panels: &[Panel::Summary, Panel::Coverage, Panel::Size],
        control: "alpha",
        try_this: "Move α down to 0.05 and read the table again.",
        done: "Every method's sets grow with the coverage asked for; CP_r's stay the smallest.",
        tried: |s| s.controls.alpha <= 0.05,
        action: "alpha=0.05",
    },
    Step {
        title: "Pooled r-values need a fair tie order",
        text: "With few draws, rank-based r-values often tie, and ties need an order. The pooled r-value \
               ranks an item's candidates together with the calibration items' true labels. The \
               authors' code gives every tie to a calibration unit, so the true label loses them all; \
               this page breaks ties in a seeded random order, which keeps the guarantee. Here (K = 5, \
               M = 10, 100 + 100 items) CP_r's sets are larger than CP_avg's, by what panel 6's last \
               line says.",
        query: "kind=pooled&sigma2=30&k=5&m=10&n-cal=100&n-test=100&high-var=0.5",
        panels: &[Panel::Summary, Panel::Coverage],
        control: "ties",
        try_this: "Switch the tie order (under Method) to index (authors') and watch CP_r's coverage.",
        done: "CP_r's coverage fell from about 0.90 to about 0.80, below 1 − α: the tie order alone \
               broke the guarantee.",
        tried: |s| s.controls.score.ties == TieOrder::Index,
        action: "ties=index",
    },
    Step {
        title: "Your own scores",
        text: "Everything here works on your model's scores: a tensor S[n][m][k] of items, draws and \
               candidates (higher is better) with true labels, as .npz, .npy or long .csv, kept in this \
               page. Panel 8 asks whether the true labels' scores vary less than the false \
               candidates'; the tour uses pooled r-values, as the paper does. Beside \
               the digits, a synthetic CLIP-like sample (100 classes, 10 paraphrases) shows the \
               paper's effect: at α = 0.05, CP_r's sets are smaller than CP_avg's.",
        query: "mode=scores&kind=pooled",
        panels: &[Panel::Data, Panel::Summary],
        control: "scores-params",
        try_this: "Load the digits or the CLIP-like sample (or drop a file of yours) and read panels 6 \
                   and 8; for the CLIP-like one, set α to 0.05.",
        done: "Loaded: every panel now shows these scores, and Copy link shares the view.",
        tried: |s| s.data != DataRef::None,
        action: "sample=digits_wbb.npz",
    },
    Step {
        title: "Marginal coverage can hide a class",
        text: "The guarantee is on average over items. On the digits ensemble at α = 0.1 every method \
               covers about 0.91 of the test items, yet panel 9 shows CP_avg and CP_r covering the digit \
               8 under 0.8: the average hides a hard class. Per-class (Mondrian) calibration cuts each \
               class at the quantile of its own calibration items, so each class is covered at 1 − α; \
               the price is larger sets where the model hesitates.",
        query: "mode=scores&kind=pooled&splits=20",
        panels: &[Panel::Classes, Panel::Summary],
        control: "coverage",
        try_this: "With the digits loaded (step 9), set Coverage (under Method) to per-class and watch the \
                   digit 8 rise to 1 − α in panel 9, and the set sizes in panel 6.",
        done: "Per class, every digit is covered at about 1 − α.",
        tried: |s| s.controls.score.coverage == Coverage::PerClass,
        action: "coverage=per-class",
    },
];

/// The step whose confirmation adds what per-class thresholds changed, computed from the
/// analyses before and after ([`crate::classes::per_class_outcome`]).
pub const PER_CLASS_STEP: usize = 10;

/// Step `number` (counted from 1, as in links), if there is one.
pub fn step(number: usize) -> Option<&'static Step> {
    number.checked_sub(1).and_then(|i| STEPS.get(i))
}

impl Step {
    /// The step's own state, as a link opens it (`tour=N` alone).
    pub fn state(&self, number: usize) -> UrlState {
        let mut s = UrlState::from_query(self.query).state;
        s.tour = Some(number);
        s
    }
}

#[cfg(test)]
mod tests;
