//! The explorer's state model, independent of any UI: the settings ([`Controls`]), an
//! incremental analysis ([`AnalysisJob`] → [`Analysis`]) and pure curve functions for the panels.
//!
//! Nothing here touches the browser: the web page calls these functions natively compiled to wasm,
//! and the same code runs (and is tested) natively. Every number handed to a plot or table is
//! finite or an explicit `None`; failures are [`rvalue_core::Error`]s.
//!
//! Live behaviour the model supports:
//! - α changes: [`Analysis::at_alpha`] and [`Analysis::inspect`] answer from the stored
//!   [`rvalue_core::conformal::Calibrated`] scores; no r-value is recomputed. The coverage and size
//!   curves against α ([`Analysis::sweep`]) are computed once per analysis.
//! - β and σ² changes: [`threshold_curves`] and [`inclusion_curves`] are closed forms, cheap
//!   enough to redraw on every slider event.
//! - Toy parameters, the r-value kind, the variance, the prior, CP's draw or the splits change
//!   the scores: build a new [`AnalysisJob`] and step it across animation frames; the previous
//!   [`Analysis`] stays valid until the job finishes, and dropping the job cancels it.
//!   [`Controls::impact`] tells which of these a change of settings needs.
//!
//! A page's loop, in short:
//!
//! ```
//! use rvalue_model::*;
//! use rvalue_core::toy::ToyParams;
//!
//! let controls = Controls {
//!     toy: ToyParams { n_cal: 40, n_test: 40, repeats: 2, ..ToyParams::default() },
//!     ..Controls::default()
//! };
//! // Panels 1, 2 and 5 need no analysis.
//! let p = controls.toy_params();
//! let densities = score_densities(&p, &default_score_xs(&p, 200))?;
//! let (prior, variances) = threshold_inputs(&controls, None)?;
//! let curves = threshold_curves(Some(prior), &variances, &panel_betas(controls.beta),
//!                               &sigma2_grid(200), controls.sigma2)?;
//! let theorem3 = inclusion_curves(&InclusionInputs::toy(&p, controls.alpha, controls.beta)?,
//!                                 &sigma2_grid(200))?;
//! // The analysis runs a step per slice of an animation frame; dropping the job cancels it.
//! let mut job = AnalysisJob::new(Source::from_controls(&controls, None)?, &controls)?;
//! while let Progress::Working(_fraction) = job.step()? {}
//! let analysis = job.finish()?;
//! // α moves: no r-value is recomputed.
//! let table = analysis.at_alpha(0.05, controls.never_empty)?;
//! let item = analysis.inspect(0, 0.05, controls.never_empty)?;
//! let curves_3_4 = analysis.sweep(controls.never_empty);
//! # assert!(densities.prob_q_exceeds_p > 0.48 && curves.series.len() == 4 && theorem3.cp.len() == 200);
//! # assert!(table.rows.len() == 3 && item.methods.len() == 3 && curves_3_4.alphas.len() == 100);
//! # Ok::<(), rvalue_core::Error>(())
//! ```

mod analysis;
pub mod classes;
pub mod controls;
mod curves;
pub mod device;
pub mod edits;
pub mod embed;
pub mod export;
pub mod figure;
pub mod files;
pub mod ids;
pub mod message;
mod notes;
pub mod page;
pub mod panel;
pub mod samples;
pub mod scales;
mod summary;
pub mod theme;
mod theorem3;
pub mod tour;
pub mod url;
pub mod view;
pub mod workers;

#[cfg(test)]
mod tests;

pub use analysis::{
    compute_part, limit_slope, AlphaView, Analysis, AnalysisJob, Conditional, HandOut, HeldData, ItemView,
    LongRun, MethodRanking, Offload, OffloadRequest, PartTensor, Progress, RankedCandidate, ShareRequest,
    Source, StreamedFile, StreamedSplits, SummaryRow, SweepCurves, Work, DEFAULT_STEP_BUDGET, GROUP_BYTES,
    MAX_CURVE_CANDIDATES, SHARE_BYTES, STEP_BYTES, SWEEP_POINTS,
};
pub use controls::{Controls, Impact, Mode, ALPHA_RANGE, BETA_RANGE, SIGMA2_RANGE};
pub use curves::{
    cut_threshold, data_points, default_score_xs, fitted_threshold, inclusion_curves, panel_betas,
    prior_source, score_densities, sigma2_grid, threshold_curves, threshold_curves_with, threshold_inputs,
    toy_design, CutFrom, CutRule, DataPoint, FittedThreshold, InclusionCurves, InclusionInputs, Marker,
    ScoreDensities, ThresholdCurves, ThresholdSeries, MAX_DATA_POINTS,
};
pub use notes::{kind_notes, KindNotes};
pub use summary::{DataSummary, VarianceDistribution};
pub use theorem3::{theorem3_held, theorem3_readout, Theorem3Readout};
