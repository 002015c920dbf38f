//! The page's downloads (which, and their names: [`FIGURES`], [`TABLES`]) and its CSV: the summary table (panel 6) and the per-item prediction sets of the
//! first split (or repeat), as text. Numbers are written at full precision (Rust's shortest
//! representation that reads back to the same f64), not as the table rounds them.

mod files;

pub use files::{
    alpha_marker_of, button_groups, file_name, ButtonGroup, FigureExport, Save, Table, FIGURES,
    SPLIT_MASK_FILE, TABLES,
};

use super::{AlphaView, Analysis};
use crate::classes::{classes_csv, ClassView};
use crate::page::Shown;
use rvalue_core::conformal::{Split, CONDITIONAL_COLUMNS};
use rvalue_core::{Error, Result};

/// The CSV of `table` at α for the analysis on show (its α tables kept in `shown`); `names`:
/// the file's class names, if it gives them (a toy's classes have none).
pub fn table_csv(
    table: Table,
    shown: &mut Shown,
    (alpha, never_empty): (f64, bool),
    names: Option<&[String]>,
) -> Result<String> {
    let no_analysis = || Error::invalid("no analysis yet");
    match table {
        Table::Summary => Ok(summary_csv(&shown.alpha_view(alpha, never_empty)?)),
        Table::Sets => sets_csv(shown.get().ok_or_else(no_analysis)?, alpha, never_empty),
        Table::Classes => {
            let v = shown.alpha_view(alpha, never_empty)?;
            let a = shown.get().ok_or_else(no_analysis)?;
            let toy = a.toy.is_some();
            Ok(classes_csv(&ClassView::new(&v, a.k, toy), if toy { None } else { names }))
        }
    }
}

/// The header of [`summary_csv`]: the command line's columns, with `never_empty` after `alpha`.
pub fn summary_header() -> String {
    let first = "method,alpha,never_empty,coverage_mean,coverage_sd,size_mean,size_sd,position_mean,empty_rate,splits";
    format!("{first},{}", CONDITIONAL_COLUMNS.join(","))
}

/// The header of [`sets_csv`]: `rvalue sets`' columns (docs/method.md §8).
pub const SETS_HEADER: &str = "method,item,candidate,score,position";

/// Panel 6 at `view.alpha`: one row per method, with `rvalue conformal`'s conditional columns
/// after `splits` (`NaN` where undefined, as the command line writes). `position_mean` is empty
/// where the table shows "–" (no set holds its true label).
pub fn summary_csv(view: &AlphaView) -> String {
    let mut out = format!("{}\n", summary_header());
    for r in &view.rows {
        let position = r.position_mean.map_or(String::new(), |p| p.to_string());
        let conditional: String = r.conditional.numbers().iter().map(|x| format!(",{x}")).collect();
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{}{conditional}\n",
            r.method.name(),
            view.alpha,
            view.never_empty,
            r.coverage_mean,
            r.coverage_sd,
            r.size_mean,
            r.size_sd,
            position,
            r.empty_rate,
            r.splits
        );
    }
    out
}

/// The first split's prediction sets at α, in the format of `rvalue sets` (docs/method.md §8),
/// byte for byte what it writes for the same file, split and settings: a row per method, test
/// item and candidate in the set (methods in the page's order, items ascending, candidates in
/// set order, `position` from 0, `score` the method's own score in Rust's shortest round-trip
/// form); an empty set is one row with the last three fields empty.
pub fn sets_csv(analysis: &Analysis, alpha: f64, never_empty: bool) -> Result<String> {
    rvalue_core::conformal::check_alpha(alpha)?;
    let mut out = format!("{SETS_HEADER}\n");
    for &m in analysis.methods() {
        let Some(c) = analysis.calibrated(m).first() else { continue };
        for t in 0..c.test.len() {
            let set = c.set(t, alpha, never_empty);
            if set.members.is_empty() {
                out += &format!("{},{},,,\n", m.name(), set.item);
            }
            for (position, (cand, score)) in set.members.iter().enumerate() {
                out += &format!("{},{},{cand},{score},{position}\n", m.name(), set.item);
            }
        }
    }
    Ok(out)
}

/// The first split's mask as a `.npy` of `bool` `[N]` (`true` = calibration), the file
/// `rvalue sets --split` reads and `--save-split` writes: split 0 of the split seed at the
/// calibration fraction. A toy repeat is simulated, not split from a file, and a split of
/// calibration-true draws draws their units, not items: neither has one.
pub fn split_mask_npy(analysis: &Analysis) -> Result<Vec<u8>> {
    if has_split_mask(analysis) {
        let c = &analysis.controls;
        let split = Split::random(analysis.n, c.cal_fraction, c.seed, 0)?;
        return Ok(rvalue_core::io::write_npy_bool(&[analysis.n], &split.mask(analysis.n)));
    }
    if analysis.toy.is_some() {
        return Err(Error::invalid("the toy's repeats are simulated, not split from a file"));
    }
    Err(Error::invalid(
        "a calibration pool calibrates on pool units and tests every item: no item is split off",
    ))
}

/// Whether the analysis' first split has a mask ([`split_mask_npy`]): a file's, split in two.
pub fn has_split_mask(analysis: &Analysis) -> bool {
    analysis.toy.is_none() && analysis.true_draws.is_none()
}

#[cfg(test)]
mod tests;
