//! Long-form CSV scores: one row per `(item, draw, candidate)` with an optional per-item label.
//! No quoting rules beyond stripping a pair of surrounding double quotes: numbers never need them.

use super::{shown, MAX_ELEMENTS};
use crate::tensor::ScoreTensor;
use crate::{Error, Result};

/// Scores and optional labels read from a long-form CSV.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LongCsv {
    pub scores: ScoreTensor,
    pub labels: Option<Vec<usize>>,
}

const COLUMNS: [&str; 4] = ["item", "draw", "candidate", "score"];

#[derive(Clone, Copy)]
struct Row {
    item: u32,
    draw: u32,
    cand: u32,
    label: i64,
    line: usize,
    score: f64,
}

fn field(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"').and_then(|t| t.strip_suffix('"')).map(str::trim).unwrap_or(s)
}

/// Parses `item,draw,candidate,score[,label]` rows (any column order, extra columns ignored).
pub(crate) fn parse_long_csv(file: &str, bytes: &[u8]) -> Result<LongCsv> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::parse(
            file,
            format!("byte {}", e.valid_up_to()),
            "not UTF-8 text; expected a long-form CSV (item,draw,candidate,score[,label]), a .npy \
             or a .npz",
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty());

    let Some((hline, header)) = lines.next() else {
        return Err(Error::parse(
            file,
            "line 1",
            "empty file; expected a CSV header with columns item,draw,candidate,score and \
             optionally label",
        ));
    };
    let names: Vec<String> = header.split(',').map(|f| field(f).to_ascii_lowercase()).collect();
    let find = |want: &str| -> Result<Option<usize>> {
        let mut hits = names.iter().enumerate().filter(|(_, n)| n.as_str() == want);
        let first = hits.next().map(|(i, _)| i);
        if let Some((j, _)) = hits.next() {
            return Err(Error::parse(
                file,
                format!("line {hline}, column {}", j + 1),
                format!("column '{want}' appears twice in the header; expected it once"),
            ));
        }
        Ok(first)
    };
    let mut idx = [0usize; 4];
    for (slot, want) in idx.iter_mut().zip(COLUMNS) {
        *slot = find(want)?.ok_or_else(|| {
            Error::parse(
                file,
                format!("line {hline} (header)"),
                format!(
                    "missing column '{want}'; expected a header with columns \
                     item,draw,candidate,score and optionally label, found '{}'",
                    shown(header.trim())
                ),
            )
        })?;
    }
    let label_col = find("label")?;
    let nfields = names.len();

    let col_place = |line: usize, c: usize| format!("line {line}, column {} ({})", c + 1, names[c]);
    let mut rows: Vec<Row> = Vec::new();
    let mut fields: Vec<&str> = Vec::with_capacity(nfields);
    let (mut max_i, mut max_d, mut max_c) = (0u32, 0u32, 0u32);
    for (line, text) in lines {
        fields.clear();
        fields.extend(text.split(',').map(field));
        if fields.len() != nfields {
            return Err(Error::parse(
                file,
                format!("line {line}"),
                format!("found {} fields, expected {nfields} as in the header (line {hline})", fields.len()),
            ));
        }
        let mut index = [0u32; 3];
        for (slot, &c) in index.iter_mut().zip(&idx[..3]) {
            let s = fields[c];
            let v: usize = s.parse().map_err(|_| {
                Error::parse(
                    file,
                    col_place(line, c),
                    format!("expected a non-negative integer index, found '{}'", shown(s)),
                )
            })?;
            if v >= MAX_ELEMENTS {
                return Err(Error::parse(
                    file,
                    col_place(line, c),
                    format!("index {v} exceeds the limit of {MAX_ELEMENTS} elements"),
                ));
            }
            *slot = v as u32; // fits: MAX_ELEMENTS < 2^32
        }
        let [item, draw, cand] = index;
        let s = fields[idx[3]];
        let score: f64 = s.parse().map_err(|_| {
            Error::parse(file, col_place(line, idx[3]), format!("expected a number, found '{}'", shown(s)))
        })?;
        if !score.is_finite() {
            return Err(Error::parse(
                file,
                col_place(line, idx[3]),
                format!("score [{item}][{draw}][{cand}] is '{}'; expected a finite number", shown(s)),
            ));
        }
        let label = match label_col {
            None => 0,
            Some(c) => {
                let s = fields[c];
                s.parse::<i64>().map_err(|_| {
                    Error::parse(
                        file,
                        col_place(line, c),
                        format!(
                            "expected an integer label, found '{}' (when the label column \
                             exists every row needs one)",
                            shown(s)
                        ),
                    )
                })?
            }
        };
        max_i = max_i.max(item);
        max_d = max_d.max(draw);
        max_c = max_c.max(cand);
        rows.push(Row { item, draw, cand, label, line, score });
    }
    if rows.is_empty() {
        return Err(Error::parse(
            file,
            format!("line {}", hline + 1),
            "no data rows; expected at least one row after the header",
        ));
    }
    let (n, m, k) = (max_i as usize + 1, max_d as usize + 1, max_c as usize + 1);
    let cells =
        n.checked_mul(m).and_then(|x| x.checked_mul(k)).filter(|&c| c <= MAX_ELEMENTS).ok_or_else(|| {
            Error::parse(
                file,
                "rows",
                format!(
                    "N×M×K = {n}×{m}×{k} exceeds the limit of {MAX_ELEMENTS} elements \
                     (N, M, K are the largest item, draw and candidate plus one)"
                ),
            )
        })?;
    let lin = |r: &Row| (r.item as usize * m + r.draw as usize) * k + r.cand as usize;
    // Stable sort keeps file order among duplicates, so the first line named is the earlier one.
    rows.sort_by_key(|r| lin(r));
    for w in rows.windows(2) {
        if lin(&w[0]) == lin(&w[1]) {
            return Err(Error::parse(
                file,
                format!("line {}", w[1].line),
                format!(
                    "duplicate row for (item {}, draw {}, candidate {}), already given on line {}; \
                     expected each combination exactly once",
                    w[1].item, w[1].draw, w[1].cand, w[0].line
                ),
            ));
        }
    }
    if rows.len() != cells {
        let missing = rows.iter().enumerate().find(|(j, r)| lin(r) != *j).map_or(rows.len(), |(j, _)| j);
        let (item, rest) = (missing / (m * k), missing % (m * k));
        return Err(Error::parse(
            file,
            "rows",
            format!(
                "missing row for (item {item}, draw {}, candidate {}); expected every combination \
                 of items 0..{n}, draws 0..{m} and candidates 0..{k} exactly once ({} rows, need \
                 {cells})",
                rest / k,
                rest % k,
                rows.len()
            ),
        ));
    }
    let labels = match label_col {
        None => None,
        Some(c) => {
            let mut labels = Vec::with_capacity(n);
            // Rows are sorted by item, so each item's rows are contiguous.
            for chunk in rows.chunks(m * k) {
                let first = chunk[0];
                for r in chunk {
                    if r.label != first.label {
                        let (a, b) = if r.line < first.line { (r, &first) } else { (&first, r) };
                        return Err(Error::parse(
                            file,
                            col_place(b.line, c),
                            format!(
                                "label {} for item {} differs from label {} on line {}; expected \
                                 one label per item",
                                b.label, b.item, a.label, a.line
                            ),
                        ));
                    }
                }
                if first.label < 0 || first.label as u64 >= k as u64 {
                    return Err(Error::parse(
                        file,
                        col_place(first.line, c),
                        format!(
                            "label {} for item {} is out of range; expected 0 <= label < K = {k} \
                             (the number of candidates)",
                            first.label, first.item
                        ),
                    ));
                }
                labels.push(first.label as usize);
            }
            Some(labels)
        }
    };
    let data: Vec<f64> = rows.iter().map(|r| r.score).collect();
    let scores = ScoreTensor::new(n, m, k, data).map_err(|e| Error::parse(file, "rows", e.to_string()))?;
    Ok(LongCsv { scores, labels })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn err(text: &str) -> String {
        match parse_long_csv("s.csv", text.as_bytes()) {
            Ok(_) => panic!("expected an error for {text:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn parses_any_column_order_with_labels() {
        let text = "\u{feff}note, score ,candidate,item,draw,label\r\n\
                    x,0.5,0,0,0,1\r\n\
                    y,1.5,1,0,0,1\r\n\
                    z,2.5,0,1,0,0\r\n\
                    w,-3e-1,1,1,0,0\r\n\
                    \r\n";
        let c = parse_long_csv("s.csv", text.as_bytes()).unwrap();
        assert_eq!((c.scores.n(), c.scores.m(), c.scores.k()), (2, 1, 2));
        assert_eq!(*c.scores.data(), [0.5, 1.5, 2.5, -0.3]);
        assert_eq!(c.labels, Some(vec![1, 0]));
    }

    #[test]
    fn shuffled_rows_without_labels() {
        let mut text = String::from("item,draw,candidate,score\n");
        let mut rows = Vec::new();
        for i in 0..3 {
            for d in 0..2 {
                for c in 0..4 {
                    rows.push(format!("{i},{d},{c},{}\n", i * 100 + d * 10 + c));
                }
            }
        }
        rows.reverse();
        rows.swap(3, 17);
        text.extend(rows);
        let c = parse_long_csv("s.csv", text.as_bytes()).unwrap();
        assert_eq!(c.labels, None);
        assert_eq!((c.scores.n(), c.scores.m(), c.scores.k()), (3, 2, 4));
        assert_eq!(c.scores.get(2, 1, 3), 213.0);
        assert_eq!(c.scores.get(1, 0, 2), 102.0);
    }

    #[test]
    fn error_messages_name_line_column_and_expectation() {
        let e = err("item,draw,score\n0,0,1\n");
        assert!(e.contains("s.csv: line 1") && e.contains("missing column 'candidate'"), "{e}");
        let e = err("item,draw,candidate,score\n0,0,0,1\n0,0,1\n");
        assert!(e.contains("s.csv: line 3") && e.contains("found 3 fields, expected 4"), "{e}");
        let e = err("item,draw,candidate,score\n0,0,0,1\n0,0,0,2\n");
        assert!(e.contains("line 3") && e.contains("duplicate") && e.contains("line 2"), "{e}");
        assert!(e.contains("(item 0, draw 0, candidate 0)"), "{e}");
        let e = err("item,draw,candidate,score\n0,0,0,1\n1,0,1,2\n");
        assert!(e.contains("missing row for (item 0, draw 0, candidate 1)"), "{e}");
        let e = err("item,draw,candidate,score\n0,0,0,1\n0,0,1,abc\n");
        assert!(
            e.contains("line 3, column 4 (score)") && e.contains("'abc'") && e.contains("expected a number"),
            "{e}"
        );
        let e = err("item,draw,candidate,score\n0,0,0,1\n0,0,1,NaN\n");
        assert!(
            e.contains("line 3, column 4 (score)") && e.contains("score [0][0][1]") && e.contains("finite"),
            "{e}"
        );
        let e = err("item,draw,candidate,score\n0,0,0,inf\n");
        assert!(e.contains("finite"), "{e}");
        let e = err("item,draw,candidate,score\n-1,0,0,1\n");
        assert!(e.contains("line 2, column 1 (item)") && e.contains("non-negative integer"), "{e}");
        let e = err("item,draw,candidate,score,label\n0,0,0,1,2\n0,0,1,1,2\n");
        assert!(e.contains("column 5 (label)") && e.contains("out of range") && e.contains("K = 2"), "{e}");
        let e = err("item,draw,candidate,score,label\n0,0,0,1,0\n0,0,1,1,1\n");
        assert!(
            e.contains("line 3, column 5 (label)") && e.contains("differs") && e.contains("line 2"),
            "{e}"
        );
        let e = err("item,draw,candidate,score,label\n0,0,0,1,\n");
        assert!(e.contains("line 2, column 5 (label)") && e.contains("integer label"), "{e}");
        let e = err("item,draw,candidate,score,label\n0,0,0,1,-1\n");
        assert!(e.contains("out of range"), "{e}");
        let e = err("item,draw,candidate,score\n");
        assert!(e.contains("no data rows"), "{e}");
        let e = err("");
        assert!(e.contains("line 1") && e.contains("empty"), "{e}");
        let e = err("item,draw,candidate,score\n100000,100000,0,1\n");
        assert!(e.contains("limit") && e.contains(&MAX_ELEMENTS.to_string()), "{e}");
        let e = err("item,item,draw,candidate,score\n");
        assert!(e.contains("twice"), "{e}");
        let e = parse_long_csv("b.csv", b"item,draw\xff").unwrap_err().to_string();
        assert!(e.contains("b.csv: byte 9") && e.contains("UTF-8"), "{e}");
    }
}
