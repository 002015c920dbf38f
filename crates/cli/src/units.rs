//! The `units.csv` of `rvalue rank`: a header naming an `estimate` and an `se` column (any order,
//! other columns ignored), then one numeric row per unit.
//!
//! Deliberately small: no quoting inside data rows (numbers need none), fields trimmed, `\r\n`
//! accepted, blank lines skipped. Every error names the file, the line and the column.

use rvalue_core::{Error, Result};

/// The units of a `units.csv`, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Units {
    pub estimate: Vec<f64>,
    /// Standard errors (finite, ≥ 0).
    pub se: Vec<f64>,
}

/// A header name without surrounding blanks, quotes or a UTF-8 byte-order mark, lower-cased.
fn header_name(raw: &str) -> String {
    let t = raw.trim().trim_start_matches('\u{feff}').trim();
    let t = t.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(t);
    t.trim().to_ascii_lowercase()
}

/// Parses a `units.csv` (`file` is used only in messages).
pub fn parse_units(file: &str, bytes: &[u8]) -> Result<Units> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Error::parse(file, format!("byte {}", e.valid_up_to()), "invalid UTF-8; expected a plain-text CSV")
    })?;
    // Line numbers count blank lines too, so that messages match what an editor shows.
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((header_line, header)) = lines.next() else {
        return Err(Error::parse(
            file,
            "line 1",
            "the file is empty; expected a header with 'estimate' and 'se' columns",
        ));
    };
    let names: Vec<String> = header.split(',').map(header_name).collect();
    let columns =
        (find_column(file, header_line, &names, "estimate")?, find_column(file, header_line, &names, "se")?);
    let mut units = Units { estimate: Vec::new(), se: Vec::new() };
    for (line, text) in lines {
        let (e, s) = parse_row(file, &names, columns, line, text)?;
        units.estimate.push(e);
        units.se.push(s);
    }
    if units.estimate.is_empty() {
        return Err(Error::parse(
            file,
            format!("line {}", header_line + 1),
            "no data rows after the header; expected one row per unit",
        ));
    }
    Ok(units)
}

/// The one column named `want`: missing or repeated, the file does not say which numbers to use.
fn find_column(file: &str, header_line: usize, names: &[String], want: &str) -> Result<usize> {
    let hits: Vec<usize> = (0..names.len()).filter(|&i| names[i] == want).collect();
    match hits.as_slice() {
        [i] => Ok(*i),
        [] => Err(Error::parse(
            file,
            format!("line {header_line} (header)"),
            format!(
                "no '{want}' column; expected a header with 'estimate' and 'se' columns, found [{}]",
                names.join(", ")
            ),
        )),
        [a, b, ..] => Err(Error::parse(
            file,
            format!("line {header_line} (header)"),
            format!("'{want}' appears twice (columns {} and {}); expected it once", a + 1, b + 1),
        )),
    }
}

/// One unit's estimate and standard error, from the columns `(ie, is)` of data line `line`.
fn parse_row(
    file: &str,
    names: &[String],
    (ie, is): (usize, usize),
    line: usize,
    text: &str,
) -> Result<(f64, f64)> {
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() != names.len() {
        return Err(Error::parse(
            file,
            format!("line {line}"),
            format!("{} fields; expected {} as in the header", fields.len(), names.len()),
        ));
    }
    let num = |col: usize| {
        number(file, || format!("line {line}, column {} ({})", col + 1, names[col]), fields[col])
    };
    let (e, s) = (num(ie)?, num(is)?);
    if s < 0.0 {
        return Err(Error::parse(
            file,
            format!("line {line}, column {} (se)", is + 1),
            format!("'{}' is negative; expected a standard error ≥ 0", fields[is]),
        ));
    }
    Ok((e, s))
}

/// A finite number; `place` names the field, formatted only for an error.
fn number(file: &str, place: impl Fn() -> String, f: &str) -> Result<f64> {
    let v: f64 = f.parse().map_err(|_| {
        Error::parse(file, place(), format!("'{f}' is not a number; expected a decimal number"))
    })?;
    if !v.is_finite() {
        return Err(Error::parse(file, place(), format!("'{f}' is not finite; expected a finite number")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(bytes: &[u8]) -> String {
        parse_units("u.csv", bytes).unwrap_err().to_string()
    }

    #[test]
    fn columns_in_any_order_with_crlf_and_extra_columns() {
        let u = parse_units("u.csv", b"\xef\xbb\xbfname, SE ,\"estimate\"\r\na, 0.5 ,1\r\n\r\nb,0,-2e-3\r\n")
            .unwrap();
        assert_eq!(u.estimate, [1.0, -2e-3]);
        assert_eq!(u.se, [0.5, 0.0]);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = err(b"estimate,sd\n1,2\n");
        assert!(
            e.contains("u.csv: line 1 (header)") && e.contains("no 'se' column") && e.contains("sd"),
            "{e}"
        );
        let e = err(b"estimate,se,se\n1,2,3\n");
        assert!(e.contains("'se' appears twice"), "{e}");
        let e = err(b"estimate,se\n1,2\n3\n");
        assert!(e.contains("u.csv: line 3") && e.contains("1 fields; expected 2"), "{e}");
        let e = err(b"estimate,se\n1,x\n");
        assert!(e.contains("line 2, column 2 (se)") && e.contains("'x' is not a number"), "{e}");
        let e = err(b"se,estimate\n1,NaN\n");
        assert!(e.contains("line 2, column 2 (estimate)") && e.contains("not finite"), "{e}");
        let e = err(b"estimate,se\n1,-0.5\n");
        assert!(e.contains("line 2, column 2 (se)") && e.contains("negative"), "{e}");
        let e = err(b"estimate,se\n");
        assert!(e.contains("no data rows"), "{e}");
        let e = err(b"");
        assert!(e.contains("empty"), "{e}");
        let e = err(b"estimate,se\n1,\xff\n");
        assert!(e.contains("byte 14") && e.contains("UTF-8"), "{e}");
    }
}
