//! Long-form CSV scores: one row per `(item, draw, candidate)` with an optional per-item label.
//! No quoting rules beyond stripping a pair of surrounding double quotes: numbers never need them.
//!
//! Read in named steps: the text, the header's columns, the rows, the grid they must fill
//! exactly once, and the labels (one per item).

use super::{shown, MAX_ELEMENTS};
use crate::tensor::{not_finite, ScoreTensor};
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
    let mut lines = numbered_lines(text_of(file, bytes)?);
    let header = Header::read(file, lines.next())?;
    let mut rows = read_rows(file, &header, lines)?;
    let grid = Grid::spanned_by(file, &rows)?;
    grid.sort_and_check(file, &mut rows)?;
    let labels = match header.label {
        None => None,
        Some(c) => Some(item_labels(file, &header, c, &rows, grid)?),
    };
    let data: Vec<f64> = rows.iter().map(|r| r.score).collect();
    let scores = ScoreTensor::new(grid.n, grid.m, grid.k, data)
        .map_err(|e| Error::parse(file, "rows", e.to_string()))?;
    Ok(LongCsv { scores, labels })
}

/// The file as text, without the byte-order mark spreadsheets put in front.
fn text_of<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::parse(
            file,
            format!("byte {}", e.valid_up_to()),
            "not UTF-8 text; expected a long-form CSV (item,draw,candidate,score[,label]), a .npy \
             or a .npz",
        )
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// The non-blank lines with their 1-based numbers (kept for messages), `\r\n` accepted.
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
}

/// The header: where each known column is, and the names that messages quote.
struct Header {
    line: usize,
    names: Vec<String>,
    /// The columns of item, draw, candidate and score, in that order.
    cols: [usize; 4],
    label: Option<usize>,
}

impl Header {
    /// Reads the first non-blank line; the four score columns must each appear once.
    fn read(file: &str, first: Option<(usize, &str)>) -> Result<Header> {
        let Some((line, header)) = first else {
            return Err(Error::parse(
                file,
                "line 1",
                "empty file; expected a CSV header with columns item,draw,candidate,score and \
                 optionally label",
            ));
        };
        let names: Vec<String> = header.split(',').map(|f| field(f).to_ascii_lowercase()).collect();
        let mut cols = [0usize; 4];
        for (slot, want) in cols.iter_mut().zip(COLUMNS) {
            *slot = find_column(file, line, &names, want)?.ok_or_else(|| {
                Error::parse(
                    file,
                    format!("line {line} (header)"),
                    format!(
                        "missing column '{want}'; expected a header with columns \
                         item,draw,candidate,score and optionally label, found '{}'",
                        shown(header.trim())
                    ),
                )
            })?;
        }
        let label = find_column(file, line, &names, "label")?;
        Ok(Header { line, names, cols, label })
    }

    /// Where a field is, for messages: line, column number and the header's name for it.
    fn place(&self, line: usize, c: usize) -> String {
        format!("line {line}, column {} ({})", c + 1, self.names[c])
    }
}

/// The column named `want`, `None` if there is none; twice is an error, since either reading
/// would be a guess.
fn find_column(file: &str, line: usize, names: &[String], want: &str) -> Result<Option<usize>> {
    let mut hits = names.iter().enumerate().filter(|(_, n)| n.as_str() == want);
    let first = hits.next().map(|(i, _)| i);
    if let Some((j, _)) = hits.next() {
        return Err(Error::parse(
            file,
            format!("line {line}, column {}", j + 1),
            format!("column '{want}' appears twice in the header; expected it once"),
        ));
    }
    Ok(first)
}

/// Every data row, in file order; at least one.
fn read_rows<'a>(
    file: &str,
    header: &Header,
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> Result<Vec<Row>> {
    let nfields = header.names.len();
    let mut rows: Vec<Row> = Vec::new();
    // One buffer for the fields of every line: a large file has millions of rows.
    let mut fields: Vec<&str> = Vec::with_capacity(nfields);
    for (line, text) in lines {
        fields.clear();
        fields.extend(text.split(',').map(field));
        if fields.len() != nfields {
            return Err(Error::parse(
                file,
                format!("line {line}"),
                format!(
                    "found {} fields, expected {nfields} as in the header (line {})",
                    fields.len(),
                    header.line
                ),
            ));
        }
        rows.push(parse_row(file, header, line, &fields)?);
    }
    if rows.is_empty() {
        return Err(Error::parse(
            file,
            format!("line {}", header.line + 1),
            "no data rows; expected at least one row after the header",
        ));
    }
    Ok(rows)
}

/// One row's indices, score and label (0 when there is no label column).
fn parse_row(file: &str, header: &Header, line: usize, fields: &[&str]) -> Result<Row> {
    let at = Field { file, header, line };
    let mut index = [0u32; 3];
    for (slot, &c) in index.iter_mut().zip(&header.cols[..3]) {
        *slot = at.index(c, fields[c])?;
    }
    let [item, draw, cand] = index;
    let c = header.cols[3];
    let s = fields[c];
    let score: f64 = s.parse().map_err(|_| at.err(c, format!("expected a number, found '{}'", shown(s))))?;
    if !score.is_finite() {
        return Err(
            at.err(c, not_finite(&format!("[{item}][{draw}][{cand}]"), &format!("'{}'", shown(s)), score))
        );
    }
    let label = match header.label {
        None => 0,
        Some(c) => at.label(c, fields[c])?,
    };
    Ok(Row { item, draw, cand, label, line, score })
}

/// The fields of one data line, as messages name them. The place is formatted only for an
/// error: a large file has millions of fields.
struct Field<'a> {
    file: &'a str,
    header: &'a Header,
    line: usize,
}

impl Field<'_> {
    fn err(&self, c: usize, message: String) -> Error {
        Error::parse(self.file, self.header.place(self.line, c), message)
    }

    /// An item, draw or candidate index, below the element limit so that it fits a `u32`.
    fn index(&self, c: usize, s: &str) -> Result<u32> {
        let v: usize = s.parse().map_err(|_| {
            self.err(c, format!("expected a non-negative integer index, found '{}'", shown(s)))
        })?;
        if v >= MAX_ELEMENTS {
            return Err(self.err(c, format!("index {v} exceeds the limit of {MAX_ELEMENTS} elements")));
        }
        Ok(v as u32) // fits: MAX_ELEMENTS < 2^32
    }

    /// A label as written; its range is checked once the number of candidates is known.
    fn label(&self, c: usize, s: &str) -> Result<i64> {
        s.parse::<i64>().map_err(|_| {
            self.err(
                c,
                format!(
                    "expected an integer label, found '{}' (when the label column exists every row \
                     needs one)",
                    shown(s)
                ),
            )
        })
    }
}

/// The `N × M × K` grid the rows span: each side is the largest index plus one.
#[derive(Clone, Copy)]
struct Grid {
    n: usize,
    m: usize,
    k: usize,
    cells: usize,
}

impl Grid {
    fn spanned_by(file: &str, rows: &[Row]) -> Result<Grid> {
        let largest = |f: fn(&Row) -> u32| rows.iter().map(f).max().unwrap_or(0) as usize;
        let (n, m, k) = (largest(|r| r.item) + 1, largest(|r| r.draw) + 1, largest(|r| r.cand) + 1);
        let cells =
            n.checked_mul(m).and_then(|x| x.checked_mul(k)).filter(|&c| c <= MAX_ELEMENTS).ok_or_else(
                || {
                    Error::parse(
                        file,
                        "rows",
                        format!(
                            "N×M×K = {n}×{m}×{k} exceeds the limit of {MAX_ELEMENTS} elements \
                         (N, M, K are the largest item, draw and candidate plus one)"
                        ),
                    )
                },
            )?;
        Ok(Grid { n, m, k, cells })
    }

    /// A row's place in the tensor's item-major order.
    fn at(&self, r: &Row) -> usize {
        (r.item as usize * self.m + r.draw as usize) * self.k + r.cand as usize
    }

    /// Puts the rows in tensor order and checks that they fill the grid exactly once.
    fn sort_and_check(&self, file: &str, rows: &mut [Row]) -> Result<()> {
        // Stable sort keeps file order among duplicates, so the first line named is the earlier one.
        rows.sort_by_key(|r| self.at(r));
        if let Some(w) = rows.windows(2).find(|w| self.at(&w[0]) == self.at(&w[1])) {
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
        if rows.len() != self.cells {
            return Err(self.missing(file, rows));
        }
        Ok(())
    }

    /// Names the first cell no row fills (sorted rows without duplicates, fewer than cells).
    fn missing(&self, file: &str, rows: &[Row]) -> Error {
        let Grid { n, m, k, cells } = *self;
        let missing = rows.iter().enumerate().find(|(j, r)| self.at(r) != *j).map_or(rows.len(), |(j, _)| j);
        let (item, rest) = (missing / (m * k), missing % (m * k));
        Error::parse(
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
        )
    }
}

/// One label per item from the label column `c`, read off rows in tensor order.
fn item_labels(file: &str, header: &Header, c: usize, rows: &[Row], grid: Grid) -> Result<Vec<usize>> {
    // Rows are sorted by item, so each item's rows are contiguous.
    rows.chunks(grid.m * grid.k).map(|chunk| item_label(file, header, c, chunk, grid.k)).collect()
}

/// The label every row of one item gives, in `0..k`.
fn item_label(file: &str, header: &Header, c: usize, chunk: &[Row], k: usize) -> Result<usize> {
    let first = chunk[0];
    if let Some(r) = chunk.iter().find(|r| r.label != first.label) {
        // Name the later line as the culprit, the earlier as what it contradicts.
        let (a, b) = if r.line < first.line { (r, &first) } else { (&first, r) };
        return Err(Error::parse(
            file,
            header.place(b.line, c),
            format!(
                "label {} for item {} differs from label {} on line {}; expected one label per item",
                b.label, b.item, a.label, a.line
            ),
        ));
    }
    if first.label < 0 || first.label as u64 >= k as u64 {
        return Err(Error::parse(
            file,
            header.place(first.line, c),
            format!(
                "label {} for item {} is out of range; expected 0 <= label < K = {k} (the number of \
                 candidates)",
                first.label, first.item
            ),
        ));
    }
    Ok(first.label as usize)
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
