//! What panels 2 and 5 say in place of a figure: plain sentences for a reader, never an error
//! kind. `e2e/explorer.test.mjs` lists them.

pub const THRESHOLD_NO_FILE: &str =
    "Load a score file to see its threshold curve: drop one on the page, choose one, or pick a sample.";
pub const THRESHOLD_WAITING: &str = "The threshold curve appears when the score file's analysis is done.";
pub const THRESHOLD_NO_PRIOR: &str = "These scores give no prior to draw a threshold curve with: the \
    candidates' mean scores do not spread more than their noise explains.";
pub const THRESHOLD_FLAT_PRIOR: &str = "No threshold curve to draw: every candidate has the same \
    latent mean here (τ² = 0), so no threshold can tell them apart.";
pub const THRESHOLD_NO_VARIANCE: &str = "No threshold curve to draw: every candidate's \
    variance is 0, so the r-value ranks by the mean score alone.";
pub const THEOREM3_NO_FILE: &str =
    "Load a score file to see how likely a false candidate is to enter each method's set.";
pub const THEOREM3_WAITING: &str = "The inclusion curves appear when the score file's analysis is done.";
pub const THEOREM3_TOY_WAITING: &str =
    "The inclusion curves appear when the toy's first repeat is analysed: they use its calibrated threshold.";

/// What panel 2 (`theorem3` false) or panel 5 (`theorem3` true) says while no score file's
/// analysis is on show: without a file, to load one; with one, that its curves are on the way.
pub fn waiting(loaded: bool, theorem3: bool) -> &'static str {
    match (loaded, theorem3) {
        (false, false) => THRESHOLD_NO_FILE,
        (true, false) => THRESHOLD_WAITING,
        (false, true) => THEOREM3_NO_FILE,
        (true, true) => THEOREM3_WAITING,
    }
}
