//! The page's CSV downloads: the summary table (panel 6) and the per-item prediction sets of the
//! first split (or repeat), as text. Numbers are written at full precision (Rust's shortest
//! representation that reads back to the same f64), not as the table rounds them.

use super::{AlphaView, Analysis};
use rvalue_core::conformal::{Method, CONDITIONAL_COLUMNS};
use rvalue_core::Result;

/// The header of [`summary_csv`]: the command line's columns, with `never_empty` after `alpha`.
pub fn summary_header() -> String {
    let first = "method,alpha,never_empty,coverage_mean,coverage_sd,size_mean,size_sd,position_mean,empty_rate,splits";
    format!("{first},{}", CONDITIONAL_COLUMNS.join(","))
}

/// The header of [`sets_csv`].
pub const SETS_HEADER: &str = "item,method,candidates,true_label,covered";

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

/// The first split's prediction sets at α: a row per test item and method, the set's candidates
/// in the method's order separated by spaces (an empty field for an empty set), the true label
/// and whether the set holds it (`true` / `false`).
pub fn sets_csv(analysis: &Analysis, alpha: f64, never_empty: bool) -> Result<String> {
    rvalue_core::conformal::check_alpha(alpha)?;
    let mut out = format!("{SETS_HEADER}\n");
    for t in 0..analysis.n_inspectable() {
        for m in Method::PAPER {
            let Some(c) = analysis.calibrated(m).first() else { continue };
            let set = c.set(t, alpha, never_empty);
            let label = c.label(t);
            let members: Vec<String> = set.members.iter().map(|(cand, _)| cand.to_string()).collect();
            let covered = set.contains(label);
            out += &format!("{},{},{},{label},{covered}\n", set.item, m.name(), members.join(" "));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Controls, Source};
    use rvalue_core::toy::ToyParams;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn analysis() -> Analysis {
        let controls = Controls {
            toy: ToyParams { k: 5, m: 6, n_cal: 20, n_test: 15, repeats: 2, ..ToyParams::default() },
            sigma2: 50.0,
            ..Controls::default()
        };
        Analysis::build(Source::from_controls(&controls, None).unwrap(), &controls).unwrap()
    }

    fn rows(csv: &str) -> Vec<Vec<&str>> {
        csv.lines().skip(1).map(|l| l.split(',').collect()).collect()
    }

    #[test]
    fn summary_csv_reads_back_to_the_tables_numbers() {
        let a = analysis();
        for (alpha, never_empty) in [(0.1, false), (0.005, true)] {
            let view = a.at_alpha(alpha, never_empty).unwrap();
            let csv = summary_csv(&view);
            assert_eq!(csv.lines().next(), Some(summary_header().as_str()));
            assert!(csv.ends_with('\n'));
            let rows = rows(&csv);
            assert_eq!(rows.len(), 3);
            let n_fields = summary_header().split(',').count();
            for (row, r) in rows.iter().zip(&view.rows) {
                assert_eq!(row.len(), n_fields);
                assert_eq!(row[0], r.method.name());
                assert_eq!(row[1].parse::<f64>().unwrap(), alpha);
                assert_eq!(row[2].parse::<bool>().unwrap(), never_empty);
                let num = |i: usize| row[i].parse::<f64>().unwrap();
                // Bit for bit: the download keeps every digit the table rounds away.
                assert_eq!(num(3).to_bits(), r.coverage_mean.to_bits());
                assert_eq!(num(4).to_bits(), r.coverage_sd.to_bits());
                assert_eq!(num(5).to_bits(), r.size_mean.to_bits());
                assert_eq!(num(6).to_bits(), r.size_sd.to_bits());
                match r.position_mean {
                    Some(p) => assert_eq!(num(7).to_bits(), p.to_bits()),
                    None => assert_eq!(row[7], ""),
                }
                assert_eq!(num(8).to_bits(), r.empty_rate.to_bits());
                assert_eq!(row[9].parse::<usize>().unwrap(), r.splits);
                for (j, want) in r.conditional.numbers().into_iter().enumerate() {
                    let got = num(10 + j);
                    assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "{j}");
                }
            }
        }
    }

    #[test]
    fn sets_csv_holds_every_first_split_set_and_agrees_with_the_metrics() {
        let a = analysis();
        let alpha = 0.2;
        let csv = sets_csv(&a, alpha, false).unwrap();
        assert_eq!(csv.lines().next(), Some(SETS_HEADER));
        let rows = rows(&csv);
        let nt = a.n_inspectable();
        assert_eq!(nt, 15);
        assert_eq!(rows.len(), 3 * nt);
        for (mi, m) in Method::PAPER.into_iter().enumerate() {
            let c = &a.calibrated(m)[0];
            let mine: Vec<&Vec<&str>> = rows.iter().filter(|r| r[1] == m.name()).collect();
            assert_eq!(mine.len(), nt);
            let (mut covered, mut size) = (0usize, 0usize);
            for (t, row) in mine.iter().enumerate() {
                assert_eq!(row.len(), 5);
                assert_eq!(row[0].parse::<usize>().unwrap(), c.test[t]);
                assert_eq!(rows[3 * t + mi], **row, "rows go item by item, methods in order");
                let cands: Vec<usize> = row[2].split_whitespace().map(|s| s.parse().unwrap()).collect();
                let want: Vec<usize> = c.set(t, alpha, false).members.iter().map(|&(k, _)| k).collect();
                assert_eq!(cands, want);
                let label: usize = row[3].parse().unwrap();
                assert_eq!(label, c.label(t));
                let is_covered: bool = row[4].parse().unwrap();
                assert_eq!(is_covered, cands.contains(&label));
                covered += usize::from(is_covered);
                size += cands.len();
            }
            let metrics = c.metrics(alpha, false);
            assert_eq!(covered as f64 / nt as f64, metrics.coverage);
            assert_eq!(size as f64 / nt as f64, metrics.size);
        }
        assert!(sets_csv(&a, 1.0, false).is_err());
    }
}
