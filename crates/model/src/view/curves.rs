//! Panels 1, 2 and 5: the closed-form curves of the controls, with the analysis' data where it
//! has any, or the sentence saying why there is no figure.

use super::{PanelView, CURVE_POINTS};
use crate::figure::panels::{scores, theorem3};
use crate::figure::placeholder;
use crate::figure::threshold::{threshold, threshold_cut};
use crate::figure::Figure;
use crate::ids;
use crate::message::sentence;
use crate::page::readouts::{pqp, theorem3_cuts, theorem3_note, threshold_note};
use crate::{
    default_score_xs, fitted_threshold, inclusion_curves, panel_betas, prior_source, score_densities,
    sigma2_grid, theorem3_held, theorem3_readout, threshold_curves, threshold_curves_with, threshold_inputs,
    Analysis, Controls, Mode,
};

/// Panel 1 (the toy's score densities and P(q > p)); `None` unless the controls are the toy's.
pub fn scores_view(c: &Controls) -> Option<PanelView> {
    if c.mode != Mode::Toy {
        return None;
    }
    let p = c.toy_params();
    Some(match score_densities(&p, &default_score_xs(&p, CURVE_POINTS)) {
        Ok(s) => PanelView {
            texts: vec![(ids::PQP, pqp(s.prob_q_exceeds_p)), (ids::PQP_NOTE, s.note.clone())],
            figure: Some(scores(&s)),
        },
        Err(e) => PanelView::without(vec![(ids::PQP_NOTE, sentence(&e))]),
    })
}

/// Panel 2: the threshold curves against σ², zoomed on their dip unless "Whole curve" is
/// ticked, with the analysis' data points, and its note; or why there are none.
pub fn threshold_view(c: &Controls, analysis: Option<&Analysis>, loaded: bool) -> PanelView {
    match threshold_figure(c, analysis, loaded) {
        Ok((fig, note)) => PanelView { texts: vec![(ids::THRESHOLD_NOTE, note)], figure: Some(fig) },
        Err(why) => PanelView::without(vec![(ids::THRESHOLD_NOTE, why)]),
    }
}

fn threshold_figure(
    c: &Controls,
    analysis: Option<&Analysis>,
    loaded: bool,
) -> Result<(Figure, String), String> {
    let grid = sigma2_grid(CURVE_POINTS);
    let points = analysis.map(|a| a.data_points()).unwrap_or_default();
    let betas = panel_betas(c.beta);
    let curves = match (c.mode, analysis) {
        (Mode::Scores, None) => return Err(placeholder::waiting(loaded, false).into()),
        (Mode::Scores, Some(a)) => match a.hyper() {
            None => return Err(placeholder::THRESHOLD_NO_PRIOR.into()),
            Some(h) => threshold_curves_with(Some(h), |b| a.z_model(b), &betas, &grid, c.sigma2),
        },
        _ => threshold_inputs(c, analysis)
            .and_then(|(h, s)| threshold_curves(Some(h), &s, &betas, &grid, c.sigma2)),
    };
    let t = curves.map_err(|e| sentence(&e))?;
    let (Some(h), Some(s)) = (t.hyper, t.series.first()) else { return Err(String::new()) };
    if s.t.iter().all(Option::is_none) {
        let spread = h.tau2 > 0.0;
        let why = if spread { placeholder::THRESHOLD_NO_VARIANCE } else { placeholder::THRESHOLD_FLAT_PRIOR };
        return Err(why.into());
    }
    // The toy draws its true prior's curves; the r-values use the prior fitted to its data.
    let fitted = analysis.filter(|_| c.mode == Mode::Toy).and_then(|a| fitted_threshold(a, s.beta, &grid));
    let fig = threshold(&t, &points, (c.sigma2, c.whole_curve), fitted.as_ref());
    let mut note = threshold_note(h, &prior_source(c.mode, fitted.as_ref().map(|f| f.hyper)), s);
    if let Some(cut) = threshold_cut(&fig, &t) {
        note = format!("{note} {cut}");
    }
    Ok((fig, note))
}

/// Panel 5: Theorem 3's inclusion curves at the controls' α and β from the analysis on show,
/// the cuts, the readout at the σ² marker and what the curves hold; or why there are none
/// (the readout then "–").
pub fn theorem3_view(c: &Controls, analysis: Option<&Analysis>, loaded: bool) -> PanelView {
    theorem3_figure(c, analysis, loaded).unwrap_or_else(|why| {
        PanelView::without(vec![(ids::THEOREM3_NOTE, why), (ids::THEOREM3_READOUT, "–".into())])
    })
}

fn theorem3_figure(c: &Controls, analysis: Option<&Analysis>, loaded: bool) -> Result<PanelView, String> {
    let Some(a) = analysis else {
        return Err(match c.mode {
            Mode::Toy => placeholder::THEOREM3_TOY_WAITING,
            Mode::Scores => placeholder::waiting(loaded, true),
        }
        .into());
    };
    let grid = sigma2_grid(CURVE_POINTS);
    let toy = a.toy.as_ref().map(|_| a.controls.toy_params());
    let inc = a
        .inclusion_inputs(c.alpha, c.beta, c.cut)
        .and_then(|i| inclusion_curves(&i, &grid))
        .map_err(|e| sentence(&e))?;
    let readout = theorem3_readout(&inc.inputs, c.sigma2, toy.as_ref()).text();
    let held = theorem3_held(&inc.inputs, c.alpha, toy.as_ref().map(|p| p.sigma2), c.sigma2);
    let (calibrated, beta) = theorem3_cuts(a.r_hat(c.alpha), c.beta);
    let texts = vec![
        (ids::CUT_CALIBRATED, calibrated),
        (ids::CUT_BETA, beta),
        (ids::THEOREM3_READOUT, readout),
        (ids::THEOREM3_NOTE, theorem3_note(c.alpha, c.beta, c.sigma2, &held)),
    ];
    Ok(PanelView { texts, figure: Some(theorem3(&inc, c.sigma2)) })
}
