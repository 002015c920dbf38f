//! What the page says about what it computes: the core's warnings on the data and settings
//! (`conformal::warnings`, in the words every face uses), which r-value the panels and formulas
//! describe, and where the σ² marker starts on a score file.

use rvalue_core::conformal::{warnings, Method, Prior, RvalueKind};

use crate::message::capitalised;
use crate::{scales, Analysis, Controls};

impl Analysis {
    /// The smallest calibration size of the analysis' splits: a toy repeat's `n_cal`, true-label
    /// draws' units per split, or the file's calibration fraction of its items.
    pub fn n_cal(&self) -> usize {
        match (&self.toy, self.true_draws) {
            (Some(p), _) => p.n_cal,
            (None, Some((per_split, _))) => per_split,
            (None, None) => (self.n as f64 * self.controls.cal_fraction).round() as usize,
        }
    }

    /// The core's warnings on this analysis at `alpha`, each as a sentence (docs/method.md §8):
    /// what the command line prints on stderr and Python warns of, for the page's note.
    pub fn warnings(&self, alpha: f64) -> Vec<String> {
        let facts = warnings::Facts {
            m: self.m,
            k: self.k,
            labels: self.first_part().labels(),
            n_cal: Some(self.n_cal()),
            alpha,
            methods: &Method::PAPER,
            kind: self.controls.score.kind,
        };
        warnings::check(&facts).iter().map(|w| capitalised(&w.to_string())).collect()
    }

    /// Where the σ² marker starts on a score file: the median of the candidates' variances (the
    /// variance choice) to three significant digits, so that it sits among the data's candidates
    /// in panel 2 rather than at the toy's 1000. Not snapped to a slider position: the slider's
    /// smallest positive value, 0.1, is above many files' variances. `None` for the toy, whose
    /// σ² is a parameter of the simulation.
    pub fn sigma2_start(&self) -> Option<f64> {
        if self.toy.is_some() {
            return None;
        }
        let mut v: Vec<f64> = self.variances().into_iter().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        let median = if v.len() % 2 == 1 { v[mid] } else { 0.5 * (v[mid - 1] + v[mid]) };
        Some(scales::round3(median))
    }
}

/// Which r-value the page's panels 2 and 5 and its formulas describe, for the r-value CP_r
/// uses under `controls`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindNotes {
    /// Panel 2's note on what its curve is (empty: nothing to add).
    pub threshold: String,
    /// Panel 5's note.
    pub theorem3: String,
    /// The formulas' first line: which definition CP_r uses.
    pub formulas: String,
    /// Show the nonparametric and pooled r-values' definitions.
    pub nonparametric: bool,
    pub pooled: bool,
}

/// The notes for `controls`: the parametric panels are labelled as a parametric view whenever
/// CP_r uses another r-value, and the formulas then show that r-value's definition.
pub fn kind_notes(controls: &Controls) -> KindNotes {
    let kind = controls.score.kind;
    let (name, defined) = match kind {
        RvalueKind::Parametric => ("the parametric r-value", "defined below"),
        RvalueKind::Nonparametric => {
            ("nonparametric r-values (each item's candidates ranked in every draw)", "see Formulas")
        }
        RvalueKind::Pooled => {
            ("pooled r-values (candidates ranked with the calibration items' true labels)", "see Formulas")
        }
    };
    let (threshold, theorem3) = if kind == RvalueKind::Parametric {
        let prior = match (controls.score.prior, controls.mode) {
            (Prior::PerItem, crate::Mode::Scores) => {
                " CP_r fits a prior per item; the curve is drawn with one prior pooled over all candidates."
            }
            _ => "",
        };
        (format!("CP_r uses this parametric r-value.{prior}"), String::new())
    } else {
        (
            format!(
                "Parametric view only: CP_r here uses {name} ({defined}), which have no threshold \
                 curve. The curve shows what the parametric r-value would require of these candidates."
            ),
            format!(
                "Parametric view only: Theorem 3's CP_r curve is the parametric r-value's; CP_r's \
                 sets here come from {name}."
            ),
        )
    };
    let formulas = match kind {
        RvalueKind::Parametric => "CP_r uses the parametric r-value (below).".to_string(),
        _ => format!(
            "CP_r uses {} (defined last); the parametric r-value below is what panels 2 and 5 draw.",
            if kind == RvalueKind::Pooled { "the pooled r-value" } else { "the nonparametric r-value" }
        ),
    };
    KindNotes {
        threshold,
        theorem3,
        formulas,
        nonparametric: kind == RvalueKind::Nonparametric,
        pooled: kind == RvalueKind::Pooled,
    }
}

#[cfg(test)]
mod tests;
