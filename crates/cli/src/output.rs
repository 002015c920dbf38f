//! Output helpers: the summary rows as CSV or JSON, and a progress line on a terminal.

use std::io::{IsTerminal, Write};

use rvalue_core::conformal::{Method, Stratum, Summary, CONDITIONAL_COLUMNS};
use rvalue_core::probability::ScoresAre;

/// The columns of `rvalue conformal` (docs/method.md §9).
pub const SUMMARY_COLUMNS: [&str; 9] = [
    "method",
    "alpha",
    "coverage_mean",
    "coverage_sd",
    "size_mean",
    "size_sd",
    "position_mean",
    "empty_rate",
    "splits",
];

/// The numeric fields of a summary row, in column order after `method`.
fn numbers(s: &Summary) -> [f64; 7] {
    [s.alpha, s.coverage_mean, s.coverage_sd, s.size_mean, s.size_sd, s.position_mean, s.empty_rate]
}

/// Summary rows as CSV: a header line, then one line per row. Numbers use Rust's shortest
/// round-trip form; a missing value (no covered item for the position) is `NaN`.
pub fn summary_csv(rows: &[Summary]) -> String {
    let mut out = SUMMARY_COLUMNS.join(",");
    out.push_str(&format!(",{}\n", CONDITIONAL_COLUMNS.join(",")));
    for s in rows {
        out.push_str(s.method.name());
        for x in numbers(s) {
            out.push_str(&format!(",{x}"));
        }
        out.push_str(&format!(",{}", s.splits));
        for x in s.conditional.numbers() {
            out.push_str(&format!(",{x}"));
        }
        out.push('\n');
    }
    out
}

/// A JSON number, `null` for NaN and infinities (JSON has neither).
pub fn json_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

/// Per class: a warning when `count` of the `k` classes enter every set at α for too few
/// calibration items (`where_`: in which splits, or empty).
pub(crate) fn warn_unbounded(method: Method, count: usize, k: usize, alpha: f64, where_: &str) {
    if count > 0 {
        eprintln!(
            "rvalue: warning: {method}: {count} of {k} classes have too few calibration items for per-class \
             coverage at α = {alpha}{where_}: their threshold is +∞, so they enter every set"
        );
    }
}

/// Summary rows as a JSON array of objects with the CSV's keys, per class `"coverage":
/// "per-class"` and `"unbounded_classes"` (the most over splits), and the tallies pooled over
/// splits: per class, per set-size and per difficulty stratum.
pub fn summary_json(rows: &[Summary], reading: Option<ScoresAre>) -> String {
    let mut out = String::from("[");
    for (i, s) in rows.iter().enumerate() {
        out.push_str(if i == 0 { "\n  {" } else { ",\n  {" });
        out.push_str(&format!("\"method\": \"{}\"", s.method.name()));
        for (key, x) in SUMMARY_COLUMNS[1..8].iter().zip(numbers(s)) {
            out.push_str(&format!(", \"{key}\": {}", json_number(x)));
        }
        if let Some(n) = s.unbounded_classes {
            out.push_str(&format!(", \"coverage\": \"per-class\", \"unbounded_classes\": {n}"));
        }
        out.push_str(&format!(", \"splits\": {}", s.splits));
        if let Some(r) = reading.filter(|_| s.method.is_baseline()) {
            out.push_str(&format!(", \"scores_are\": \"{r}\""));
        }
        for (key, x) in CONDITIONAL_COLUMNS.iter().zip(s.conditional.numbers()) {
            out.push_str(&format!(", \"{key}\": {}", json_number(x)));
        }
        out.push_str(&tallies_json(s));
        out.push('}');
    }
    out.push_str(if rows.is_empty() { "]\n" } else { "\n]\n" });
    out
}

/// `, "class_coverage": [..], "class_count": [..], "size_strata": [..], "difficulty_strata": [..]`.
fn tallies_json(s: &Summary) -> String {
    let list = |xs: Vec<String>| format!("[{}]", xs.join(", "));
    let coverage = list(s.conditional.class_tallies.iter().map(|t| json_number(t.coverage())).collect());
    let count = list(s.conditional.class_tallies.iter().map(|t| t.count.to_string()).collect());
    let strata = |all: &[Stratum]| {
        list(
            all.iter()
                .map(|t| {
                    let cov = json_number(t.coverage());
                    format!(
                        "{{\"lo\": {}, \"hi\": {}, \"coverage\": {cov}, \"count\": {}}}",
                        t.lo, t.hi, t.count
                    )
                })
                .collect(),
        )
    };
    format!(
        ", \"class_coverage\": {coverage}, \"class_count\": {count}, \"size_strata\": {}, \"difficulty_strata\": {}",
        strata(&s.conditional.size_strata),
        strata(&s.conditional.difficulty_strata)
    )
}

/// `label i/total` rewritten in place with `\r`, only when stderr is a terminal.
pub struct Progress {
    enabled: bool,
    width: usize,
}

impl Progress {
    pub fn new() -> Self {
        Progress { enabled: std::io::stderr().is_terminal(), width: 0 }
    }

    /// Replaces the progress line by `text`.
    pub fn show(&mut self, text: &str) {
        if !self.enabled {
            return;
        }
        let len = text.chars().count();
        let pad = self.width.saturating_sub(len);
        self.width = self.width.max(len);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{text}{}", " ".repeat(pad));
        let _ = err.flush();
    }

    /// `label done/total`.
    pub fn count(&mut self, label: &str, done: usize, total: usize) {
        if self.enabled {
            self.show(&format!("{label} {done}/{total}"));
        }
    }

    /// Erases the line, so that what follows starts clean.
    pub fn clear(&mut self) {
        if self.enabled && self.width > 0 {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{}\r", " ".repeat(self.width));
            let _ = err.flush();
            self.width = 0;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvalue_core::conformal::{summarize_with, SplitMetrics, SplitTallies};

    fn row(method: Method, position: f64) -> Summary {
        let mut tallies = SplitTallies::new(2);
        tallies.add(0, 1, true, 1);
        tallies.add(1, 2, false, 2);
        let one = SplitMetrics {
            coverage: 0.5,
            size: 1.5,
            position: 0.0,
            empty_rate: 0.0,
            unbounded_classes: None,
        };
        Summary {
            method,
            alpha: 0.1,
            coverage_mean: 0.9,
            coverage_sd: 0.0125,
            size_mean: 1.5,
            size_sd: 1.0 / 3.0,
            position_mean: position,
            empty_rate: 0.0,
            splits: 7,
            size_histogram: vec![],
            ..summarize_with(method, 0.1, &[one], &[], 2, &[tallies])
        }
    }

    #[test]
    fn csv_and_json_rows() {
        let rows = [row(Method::Cp, 0.25), row(Method::CpR, f64::NAN)];
        let csv = summary_csv(&rows);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "method,alpha,coverage_mean,coverage_sd,size_mean,size_sd,position_mean,empty_rate,splits,\
             macro_coverage_mean,macro_coverage_sd,worst_class_coverage_mean,worst_class_coverage_sd,\
             covgap_mean,covgap_sd,violated_classes_mean,violated_classes_sd,sscv_mean,sscv_sd,dsv_mean,dsv_sd"
        );
        // One split: classes covered 1 and 0 at 1 − α = 0.9; sizes 1 and 2, ranks 1 and 2.
        let conditional = "0.5,0,0,0,50,0,1,0,0.9,0,0.9,0";
        assert_eq!(lines[1], format!("cp,0.1,0.9,0.0125,1.5,0.3333333333333333,0.25,0,7,{conditional}"));
        assert_eq!(lines[2], format!("cp-r,0.1,0.9,0.0125,1.5,0.3333333333333333,NaN,0,7,{conditional}"));
        let json = summary_json(&rows, None);
        assert!(json.contains("\"method\": \"cp-r\", \"alpha\": 0.1,"), "{json}");
        assert!(
            json.contains("\"position_mean\": null, \"empty_rate\": 0, \"splits\": 7, \"macro_"),
            "{json}"
        );
        assert!(json.contains("\"class_coverage\": [1, 0], \"class_count\": [1, 1]"), "{json}");
        assert!(json.contains("{\"lo\": 2, \"hi\": 3, \"coverage\": 0, \"count\": 1}"), "{json}");
        assert!(json.contains("{\"lo\": 4, \"hi\": 6, \"coverage\": null, \"count\": 0}"), "{json}");
        assert_eq!(summary_json(&[], None), "[]\n");
    }
}
