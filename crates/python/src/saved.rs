//! The saved-calibration file: what `Calibration.save` writes, `rvalue_explorer.load` reads and
//! pickling carries. Plain data, so that opening a file runs no code:
//!
//! ```text
//! rvalue-explorer calibration        magic line
//! format 1                           this layout's version: a reader refuses any other
//! written-by rvalue-explorer 0.1.0   the package that wrote it (informative)
//! method cp-r                        then the options, spelt as the CLI spells them,
//! …                                  one `key value` line each, in a fixed order
//! dtype float32                      the scores' type
//! end
//! labels: items × u64, little-endian
//! scores: items × draws × candidates, float32 or float64, little-endian, row-major
//! CRC-32 of every byte before it, u32 little-endian
//! ```
//!
//! The checksum catches a truncated or damaged file; every value is checked as `calibrate`
//! checks its arguments, so a file edited by hand (checksum fixed) still gives a valid
//! calibration or a `ValueError` naming what is wrong.

use rvalue_core::conformal::{Method, ScoreOptions};
use rvalue_core::tensor::{ScoreTensor, Scores};
use rvalue_core::{Error, Result};

const MAGIC: &str = "rvalue-explorer calibration\n";
/// The layout above. A change to it (a key, the payload) takes a new number.
pub const FORMAT: u32 = 1;
/// A header is a few hundred bytes; a file without `end` in this many is not one.
const MAX_HEADER: usize = 4096;

/// The settings of a calibration (its scores and labels travel beside them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub method: Method,
    pub opts: ScoreOptions,
    pub alpha: f64,
    pub never_empty: bool,
    pub seed: u64,
}

/// The header keys after `format` and `written-by`, in order.
const KEYS: [&str; 15] = [
    "method",
    "rvalue",
    "variance",
    "prior",
    "algorithm",
    "lambda-rule",
    "cp-draw",
    "ties",
    "alpha",
    "never-empty",
    "seed",
    "items",
    "draws",
    "candidates",
    "dtype",
];

/// The header's values in [`KEYS`] order (numbers in Rust's shortest round-trip form).
fn values(s: &Settings, cal: &ScoreTensor) -> [String; 15] {
    let o = &s.opts;
    let dtype = match cal.scores() {
        Scores::F16(_) => "float16",
        Scores::F32(_) => "float32",
        Scores::F64(_) => "float64",
    };
    [
        s.method.name().into(),
        o.kind.name().into(),
        o.variance.name().into(),
        o.prior.name().into(),
        o.algorithm.name().into(),
        o.lambda.name().into(),
        o.cp_draw.to_string(),
        o.ties.name().into(),
        s.alpha.to_string(),
        s.never_empty.to_string(),
        s.seed.to_string(),
        cal.n().to_string(),
        cal.m().to_string(),
        cal.k().to_string(),
        dtype.into(),
    ]
}

/// The file's bytes.
pub fn encode(s: &Settings, cal: &ScoreTensor, labels: &[usize]) -> Vec<u8> {
    let mut header =
        format!("{MAGIC}format {FORMAT}\nwritten-by rvalue-explorer {}\n", env!("CARGO_PKG_VERSION"));
    for (key, value) in KEYS.iter().zip(values(s, cal)) {
        header.push_str(&format!("{key} {value}\n"));
    }
    header.push_str("end\n");
    let width = match cal.scores() {
        Scores::F16(_) => 2,
        Scores::F32(_) => 4,
        Scores::F64(_) => 8,
    };
    let mut out = Vec::with_capacity(header.len() + 8 * labels.len() + width * cal.scores().len() + 4);
    out.extend_from_slice(header.as_bytes());
    for &y in labels {
        out.extend_from_slice(&(y as u64).to_le_bytes());
    }
    match cal.scores() {
        Scores::F16(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        Scores::F32(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        Scores::F64(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// What a file holds (`name` names it in errors), every value checked; an error says what is
/// wrong. The size and checksum are checked before any value is read, so a damaged file is
/// reported as damaged, and an edited one by the value that is wrong.
pub fn decode(bytes: &[u8], name: &str) -> Result<(Settings, ScoreTensor, Vec<usize>)> {
    let bad = |place: &str, msg: String| Error::parse(name, place, msg);
    let (header, payload) = split_header(bytes).map_err(|m| bad("header", m))?;
    let lines: Vec<&str> = header.lines().collect();
    check_format(&lines).map_err(|m| bad("format", m))?;
    let fields = fields(lines.get(2..).unwrap_or_default()).map_err(|m| bad("header", m))?;
    let get = |i: usize| fields[i];
    let value = |i: usize| bad("header", format!("{} '{}' is not a valid value", KEYS[i], get(i)));
    let number = |i: usize| get(i).parse::<usize>().map_err(|_| value(i));
    let (n, m, k) = (number(11)?, number(12)?, number(13)?);
    let width = match get(14) {
        "float16" => 2,
        "float32" => 4,
        "float64" => 8,
        _ => return Err(bad("header", format!("dtype '{}': expected float16, float32 or float64", get(14)))),
    };
    let body = checked_body(bytes, payload, (n, m, k), width).map_err(|(place, m)| bad(place, m))?;
    let option = |e: Error| bad("header", e.to_string());
    let settings = Settings {
        method: get(0).parse().map_err(option)?,
        opts: ScoreOptions {
            kind: get(1).parse().map_err(option)?,
            variance: get(2).parse().map_err(option)?,
            prior: get(3).parse().map_err(option)?,
            algorithm: get(4).parse().map_err(option)?,
            lambda: get(5).parse().map_err(option)?,
            cp_draw: number(6)?,
            ties: get(7).parse().map_err(option)?,
        },
        alpha: get(8).parse().map_err(|_| value(8))?,
        never_empty: get(9).parse().map_err(|_| value(9))?,
        seed: get(10).parse().map_err(|_| value(10))?,
    };
    let (labels, scores) = body.split_at(8 * n);
    let labels = labels
        .chunks_exact(8)
        .map(|b| usize::try_from(u64::from_le_bytes(b.try_into().unwrap_or_default())))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| bad("labels", "a label does not fit this machine's integers".into()))?;
    let cal = if width == 2 {
        let v = scores.chunks_exact(2).map(|b| u16::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::from_f16_bits(n, m, k, v.collect())
    } else if width == 4 {
        let v = scores.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::from_f32(n, m, k, v.collect())
    } else {
        let v = scores.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::new(n, m, k, v.collect())
    };
    Ok((settings, cal.map_err(|e| bad("scores", e.to_string()))?, labels))
}

/// The header's text (through `end\n`) and the bytes after it.
fn split_header(bytes: &[u8]) -> std::result::Result<(&str, &[u8]), String> {
    if !bytes.starts_with(MAGIC.as_bytes()) {
        return Err(format!("not a saved calibration: it does not start with '{}'", MAGIC.trim_end()));
    }
    let head = &bytes[..bytes.len().min(MAX_HEADER)];
    let end = head
        .windows(5)
        .position(|w| w == b"\nend\n")
        .ok_or("it has no end (the file is truncated or damaged)")?;
    let (header, payload) = bytes.split_at(end + 5);
    let header = std::str::from_utf8(header).map_err(|_| "it is not text (the file is damaged)")?;
    Ok((header, payload))
}

/// `format N` as this reader's: a file of another layout is refused before anything else is read.
fn check_format(lines: &[&str]) -> std::result::Result<(), String> {
    let format = lines.get(1).and_then(|l| l.strip_prefix("format ")).unwrap_or("");
    let writer = lines.get(2).and_then(|l| l.strip_prefix("written-by ")).unwrap_or("an unknown writer");
    if format.parse::<u32>().ok() != Some(FORMAT) {
        return Err(format!(
            "the file has format '{format}' (written by {writer}); rvalue-explorer {} reads format {FORMAT}",
            env!("CARGO_PKG_VERSION")
        ));
    }
    Ok(())
}

/// The values of [`KEYS`], which must come in order, once each, after `written-by`.
fn fields<'a>(lines: &[&'a str]) -> std::result::Result<[&'a str; 15], String> {
    let mut out = [""; 15];
    let body = lines.get(1..).unwrap_or_default();
    for (i, key) in KEYS.iter().enumerate() {
        let line = body.get(i).copied().unwrap_or("end");
        out[i] = line
            .strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(' '))
            .ok_or_else(|| format!("line {} is '{line}', expected '{key} …'", i + 4))?;
    }
    if body.len() != KEYS.len() + 1 {
        return Err(format!("{} lines, expected {}", lines.len() + 2, KEYS.len() + 4));
    }
    Ok(out)
}

/// The labels and scores, once the payload has the size the header gives and the checksum
/// holds; else the place and what is wrong.
fn checked_body<'a>(
    bytes: &[u8],
    payload: &'a [u8],
    (n, m, k): (usize, usize, usize),
    width: usize,
) -> std::result::Result<&'a [u8], (&'static str, String)> {
    let shape = format!("{n} items × {m} draws × {k} candidates");
    let want = n
        .checked_mul(m)
        .and_then(|x| x.checked_mul(k))
        .and_then(|x| x.checked_mul(width))
        .and_then(|x| x.checked_add(8 * n + 4))
        .ok_or_else(|| ("header", format!("{shape} is too large")))?;
    if payload.len() < want {
        let got = payload.len();
        return Err((
            "data",
            format!("truncated: {got} bytes after the header, expected {want} for {shape}"),
        ));
    }
    if payload.len() > want {
        return Err(("data", format!("{} bytes follow the end of the data", payload.len() - want)));
    }
    let (covered, crc) = bytes.split_at(bytes.len() - 4);
    let crc = u32::from_le_bytes(crc.try_into().unwrap_or_default());
    if crc32fast::hash(covered) != crc {
        let msg = "the CRC-32 does not match: the file was changed or damaged after it was saved";
        return Err(("checksum", msg.into()));
    }
    Ok(&payload[..want - 4])
}
