//! The saved-calibration file: what Python's `Calibration.save` and the JS API's `save` write,
//! `rvalue_explorer.load` and the JS API's `loadCalibration` read and pickling carries. Plain data, so that opening a file runs no code:
//!
//! ```text
//! rvalue-explorer calibration        magic line
//! format 5                           this layout's version: a reader refuses any other
//! written-by rvalue-explorer 0.1.0   the package that wrote it (informative)
//! method cp-r                        then the options, spelt as the CLI spells them,
//! …                                  one `key value` line each, in a fixed order
//! calibrated-on items                what is kept of the items (the table below)
//! items 1000                         the items' shape: items, draws, candidates
//! …
//! dtype float32                      the scores' type
//! coverage marginal                  or per-class (format 4)
//! scores-are auto                    the baselines' reading and parameters (format 5):
//! raps-lambda 0.01                   scores-are, raps-lambda, raps-kreg, saps-lambda,
//! …                                  randomized
//! end
//! labels: items × u64, little-endian
//! scores: float16, float32 or float64, little-endian, row-major (the table below)
//! CRC-32 of every byte before it, u32 little-endian
//! ```
//!
//! | `calibrated-on`     | kept for                                | labels | scores                |
//! |---------------------|-----------------------------------------|--------|-----------------------|
//! | `items`             | every method (an array in memory)       | labels | items × draws × cand. |
//! | `true-label-draws`  | CP, CP_avg, pooled CP_r                 | all 0  | items × draws         |
//! | `true-label-scores` | nonparametric, per-item parametric CP_r | all 0  | items, float64        |
//! | `summaries`         | parametric CP_r, pooled prior           | labels | means, variances (1)  |
//!
//! (1) Items × candidates means, then as many sample variances, float64.
//!
//! Under `coverage per-class`, true-label draws and scores are saved with each unit's class in
//! place of the 0 labels (per-class thresholds need them).
//!
//! True-label draws `[n_cal, M]` are saved as items with one candidate (the true label, so every
//! label is 0): `candidates 1`. The last two rows are what a calibration streamed from a file
//! keeps (`predict::from_blocks`): their header gives the items' shape (the candidates a
//! prediction must have). Format 4 (without the baselines' keys: their defaults), format 3
//! (without `coverage`: marginal), format 2 (the first two rows
//! alone) and format 1 (without `calibrated-on`, always items) are still read.
//!
//! The checksum catches a truncated or damaged file; every value is checked as `calibrate`
//! checks its arguments, so a file edited by hand (checksum fixed) still gives a valid
//! calibration or a `ValueError` naming what is wrong.

use crate::conformal::{Baseline, Coverage, Method, ScoreOptions};
use crate::tensor::{ScoreTensor, Scores, Summaries};
use crate::{Error, Result};

const MAGIC: &str = "rvalue-explorer calibration\n";
/// The layout above. A change to it (a key, the payload) takes a new number.
pub const FORMAT: u32 = 5;
/// The older layouts this reader still reads.
const READS: [u32; 5] = [1, 2, 3, 4, 5];
/// A header is a few hundred bytes; a file without `end` in this many is not one.
const MAX_HEADER: usize = 4096;

/// What a calibration was made on.
pub enum Basis {
    /// Labelled items `[n, M, K]`, every candidate's draws, and their labels.
    Items { cal: ScoreTensor, labels: Vec<usize> },
    /// The true label's draws alone, `[n_cal, M]` held as a tensor `[n_cal, 1, M]` (as a
    /// two-dimensional array is read).
    TrueDraws(ScoreTensor),
    /// Each item's score at its true label under the method (`m` draws, `k` candidates).
    TrueScores { scores: Vec<f64>, m: usize, k: usize },
    /// Each item's summaries `[n, K]` and its label.
    Summaries { summaries: Summaries, labels: Vec<usize> },
}

/// What is saved of a basis: the tensor whose type is the file's dtype, or plain numbers.
enum Payload<'a> {
    Tensor(&'a ScoreTensor),
    Numbers(Vec<&'a [f64]>),
}

impl Basis {
    /// What is saved (the table of the module's notes): the shape of the header, the labels and
    /// the scores. True-label units are `[n_cal, M, 1]` (the same values in the same order).
    fn saved(&self) -> ((usize, usize, usize), std::borrow::Cow<'_, [usize]>, Payload<'_>) {
        match self {
            Basis::Items { cal, labels } => {
                ((cal.n(), cal.m(), cal.k()), labels.into(), Payload::Tensor(cal))
            }
            Basis::TrueDraws(t) => ((t.n(), t.k(), 1), vec![0; t.n()].into(), Payload::Tensor(t)),
            Basis::TrueScores { scores, m, k } => {
                ((scores.len(), *m, *k), vec![0; scores.len()].into(), Payload::Numbers(vec![scores]))
            }
            Basis::Summaries { summaries: s, labels } => {
                ((s.n, s.m, s.k), labels.into(), Payload::Numbers(vec![&s.mean, &s.var]))
            }
        }
    }

    /// Calibration units: labelled items, or true-label units.
    pub fn units(&self) -> usize {
        match self {
            Basis::Items { cal, .. } => cal.n(),
            Basis::TrueDraws(t) => t.n(),
            Basis::TrueScores { scores, .. } => scores.len(),
            Basis::Summaries { summaries, .. } => summaries.n,
        }
    }

    /// Draws per unit (a true-label tensor is `[n_cal, 1, M]`).
    pub fn draws(&self) -> usize {
        match self {
            Basis::Items { cal, .. } => cal.m(),
            Basis::TrueDraws(t) => t.k(),
            Basis::TrueScores { m, .. } => *m,
            Basis::Summaries { summaries, .. } => summaries.m,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Basis::Items { .. } => "items",
            Basis::TrueDraws(_) => "true-label-draws",
            Basis::TrueScores { .. } => "true-label-scores",
            Basis::Summaries { .. } => "summaries",
        }
    }

    /// Candidates per item, where the calibration has a number of them (true-label draws
    /// predict any).
    pub fn candidates(&self) -> Option<usize> {
        match self {
            Basis::Items { cal, .. } => Some(cal.k()),
            Basis::TrueDraws(_) => None,
            Basis::TrueScores { k, .. } => Some(*k),
            Basis::Summaries { summaries, .. } => Some(summaries.k),
        }
    }
}

/// The settings of a calibration (its scores and labels travel beside them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub method: Method,
    pub opts: ScoreOptions,
    pub alpha: f64,
    pub never_empty: bool,
    pub seed: u64,
}

/// The header keys after `format` and `written-by`, in order (format 1 has no `calibrated-on`).
const KEYS: [&str; 22] = [
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
    "calibrated-on",
    "items",
    "draws",
    "candidates",
    "dtype",
    "coverage",
    "scores-are",
    "raps-lambda",
    "raps-kreg",
    "saps-lambda",
    "randomized",
];

/// Where each value is in [`KEYS`].
const CALIBRATED_ON: usize = 11;
const ITEMS: usize = 12;
const DTYPE: usize = 15;
const COVERAGE: usize = 16;
/// The baselines' keys (format 5) start here.
const BASELINE: usize = 17;

/// The header's values in [`KEYS`] order (numbers in Rust's shortest round-trip form).
fn values(s: &Settings, basis: &Basis) -> [String; 22] {
    let o = &s.opts;
    let ((n, m, k), _, payload) = basis.saved();
    let dtype = match payload {
        Payload::Tensor(t) => match t.scores() {
            Scores::F16(_) => "float16",
            Scores::F32(_) => "float32",
            Scores::F64(_) => "float64",
        },
        Payload::Numbers(_) => "float64",
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
        basis.name().into(),
        n.to_string(),
        m.to_string(),
        k.to_string(),
        dtype.into(),
        o.coverage.name().into(),
        o.scores_are.name().into(),
        o.baseline.raps_lambda.to_string(),
        o.baseline.raps_kreg.to_string(),
        o.baseline.saps_lambda.to_string(),
        o.baseline.randomized.to_string(),
    ]
}

/// The file's bytes; `classes`, true-label units' classes, are saved as their labels.
pub fn encode(s: &Settings, basis: &Basis, classes: Option<&[usize]>) -> Vec<u8> {
    let (_, labels, payload) = basis.saved();
    let labels = classes.map_or(labels, |c| c.into());
    let mut header =
        format!("{MAGIC}format {FORMAT}\nwritten-by rvalue-explorer {}\n", env!("CARGO_PKG_VERSION"));
    for (key, value) in KEYS.iter().zip(values(s, basis)) {
        header.push_str(&format!("{key} {value}\n"));
    }
    header.push_str("end\n");
    let mut out = Vec::with_capacity(header.len() + 8 * labels.len() + 4);
    out.extend_from_slice(header.as_bytes());
    for &y in labels.iter() {
        out.extend_from_slice(&(y as u64).to_le_bytes());
    }
    match payload {
        Payload::Tensor(t) => match t.scores() {
            Scores::F16(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            Scores::F32(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            Scores::F64(x) => x.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        },
        Payload::Numbers(parts) => {
            parts.iter().flat_map(|p| p.iter()).for_each(|v| out.extend_from_slice(&v.to_le_bytes()))
        }
    }
    let crc = crate::io::crc32(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// What a file holds (`name` names it in errors), every value checked; an error says what is
/// wrong. The size and checksum are checked before any value is read, so a damaged file is
/// reported as damaged, and an edited one by the value that is wrong.
pub fn decode(bytes: &[u8], name: &str) -> Result<(Settings, Basis, Option<Vec<usize>>)> {
    let bad = |place: &str, msg: String| Error::parse(name, place, msg);
    let (header, payload) = split_header(bytes).map_err(|m| bad("header", m))?;
    let lines: Vec<&str> = header.lines().collect();
    let format = check_format(&lines).map_err(|m| bad("format", m))?;
    let fields = fields(lines.get(2..).unwrap_or_default(), format).map_err(|m| bad("header", m))?;
    let get = |i: usize| fields[i];
    let value = |i: usize| bad("header", format!("{} '{}' is not a valid value", KEYS[i], get(i)));
    let number = |i: usize| get(i).parse::<usize>().map_err(|_| value(i));
    let shape = (number(ITEMS)?, number(ITEMS + 1)?, number(ITEMS + 2)?);
    let width = match get(DTYPE) {
        "float16" => 2,
        "float32" => 4,
        "float64" => 8,
        _ => {
            return Err(bad(
                "header",
                format!("dtype '{}': expected float16, float32 or float64", get(DTYPE)),
            ))
        }
    };
    let kind = Kind::of(get(CALIBRATED_ON), format).ok_or_else(|| value(CALIBRATED_ON))?;
    if kind.numbers() && width != 8 {
        return Err(bad(
            "header",
            format!("{} are saved as float64, not {}", get(CALIBRATED_ON), get(DTYPE)),
        ));
    }
    let body = checked_body(bytes, payload, shape, kind, width).map_err(|(place, m)| bad(place, m))?;
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
            coverage: get(COVERAGE).parse().map_err(option)?,
            scores_are: get(BASELINE).parse().map_err(option)?,
            baseline: Baseline {
                raps_lambda: get(BASELINE + 1).parse().map_err(|_| value(BASELINE + 1))?,
                raps_kreg: get(BASELINE + 2).parse().map_err(|_| value(BASELINE + 2))?,
                saps_lambda: get(BASELINE + 3).parse().map_err(|_| value(BASELINE + 3))?,
                randomized: get(BASELINE + 4).parse().map_err(|_| value(BASELINE + 4))?,
            },
        },
        alpha: get(8).parse().map_err(|_| value(8))?,
        never_empty: get(9).parse().map_err(|_| value(9))?,
        seed: get(10).parse().map_err(|_| value(10))?,
    };
    let per_class = settings.opts.coverage == Coverage::PerClass;
    let (basis, classes) = basis(body, shape, width, kind, per_class).map_err(|(place, m)| bad(place, m))?;
    Ok((settings, basis, classes))
}

/// What a file's `calibrated-on` says it keeps (the table of the module's notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Items,
    TrueDraws,
    TrueScores,
    Summaries,
}

impl Kind {
    /// The kind named `name` in a file of `format` (the last two came with format 3).
    fn of(name: &str, format: u32) -> Option<Kind> {
        match name {
            "items" => Some(Kind::Items),
            "true-label-draws" => Some(Kind::TrueDraws),
            "true-label-scores" if format >= 3 => Some(Kind::TrueScores),
            "summaries" if format >= 3 => Some(Kind::Summaries),
            _ => None,
        }
    }

    /// Whether its scores are plain float64 numbers rather than a tensor of the file's dtype.
    fn numbers(self) -> bool {
        matches!(self, Kind::TrueScores | Kind::Summaries)
    }

    /// How many scores follow the labels for items of shape `(n, m, k)`.
    fn values(self, (n, m, k): (usize, usize, usize)) -> Option<usize> {
        match self {
            Kind::Items | Kind::TrueDraws => n.checked_mul(m)?.checked_mul(k),
            Kind::TrueScores => Some(n),
            Kind::Summaries => n.checked_mul(k)?.checked_mul(2),
        }
    }
}

/// The labels and scores of a checked payload as a calibration's basis.
/// A basis and, per class, its true-label units' classes.
type WithClasses = (Basis, Option<Vec<usize>>);

/// With `per_class`, true-label units' labels are their classes, given back beside the basis.
fn basis(
    body: &[u8],
    (n, m, k): (usize, usize, usize),
    width: usize,
    kind: Kind,
    per_class: bool,
) -> std::result::Result<WithClasses, (&'static str, String)> {
    let (labels, scores) = body.split_at(8 * n);
    let labels = labels
        .chunks_exact(8)
        .map(|b| usize::try_from(u64::from_le_bytes(b.try_into().unwrap_or_default())))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| ("labels", "a label does not fit this machine's integers".to_string()))?;
    // Per class, true-label units keep their classes where their labels (all 0) were.
    let (labels, classes) = match (per_class, kind) {
        (true, Kind::TrueDraws | Kind::TrueScores) => (vec![0; n], Some(labels)),
        _ => (labels, None),
    };
    match kind {
        Kind::Items => {
            let cal = tensor(scores, (n, m, k), width).map_err(|e| ("scores", e.to_string()))?;
            return Ok((Basis::Items { cal, labels }, None));
        }
        Kind::TrueScores | Kind::Summaries => return Ok((kept(scores, (n, m, k), labels, kind)?, classes)),
        Kind::TrueDraws => {}
    }
    // True-label units have one candidate, the true label: held as `[n_cal, 1, M]`.
    if k != 1 || labels.iter().any(|&y| y != 0) {
        let msg = format!("true-label draws have 1 candidate and every label 0, not {k} candidates");
        return Err(("header", msg));
    }
    let draws = tensor(scores, (n, 1, m), width).map_err(|e| ("scores", e.to_string()))?;
    Ok((Basis::TrueDraws(draws), classes))
}

/// A streamed calibration's numbers: true-label scores (not NaN) or summaries (finite, variances
/// not negative).
fn kept(
    scores: &[u8],
    (n, m, k): (usize, usize, usize),
    labels: Vec<usize>,
    kind: Kind,
) -> std::result::Result<Basis, (&'static str, String)> {
    let v: Vec<f64> =
        scores.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default())).collect();
    if kind == Kind::TrueScores {
        if labels.iter().any(|&y| y != 0) {
            return Err(("labels", "true-label scores are saved with every label 0".into()));
        }
        if let Some(i) = v.iter().position(|x| x.is_nan()) {
            return Err(("scores", format!("the true-label score of item {i} is NaN")));
        }
        return Ok(Basis::TrueScores { scores: v, m, k });
    }
    let (mean, var) = v.split_at(n * k);
    if let Some(i) = mean.iter().chain(var).position(|x| !x.is_finite()) {
        return Err(("scores", format!("summary {i} is not finite")));
    }
    if let Some(i) = var.iter().position(|&x| x < 0.0) {
        return Err(("scores", format!("variance {i} is negative")));
    }
    let summaries = Summaries { n, k, m, mean: mean.to_vec(), var: var.to_vec() };
    Ok(Basis::Summaries { summaries, labels })
}

/// Little-endian scores of `width` bytes as a tensor of that width.
fn tensor(scores: &[u8], (n, m, k): (usize, usize, usize), width: usize) -> Result<ScoreTensor> {
    if width == 2 {
        let v = scores.chunks_exact(2).map(|b| u16::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::from_f16_bits(n, m, k, v.collect())
    } else if width == 4 {
        let v = scores.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::from_f32(n, m, k, v.collect())
    } else {
        let v = scores.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()));
        ScoreTensor::new(n, m, k, v.collect())
    }
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

/// `format N`, one this reader reads: a file of another layout is refused before anything else
/// is read.
fn check_format(lines: &[&str]) -> std::result::Result<u32, String> {
    let format = lines.get(1).and_then(|l| l.strip_prefix("format ")).unwrap_or("");
    let writer = lines.get(2).and_then(|l| l.strip_prefix("written-by ")).unwrap_or("an unknown writer");
    match format.parse::<u32>() {
        Ok(f) if READS.contains(&f) => Ok(f),
        _ => Err(format!(
            "the file has format '{format}' (written by {writer}); rvalue-explorer {} reads formats \
             1 to {FORMAT}",
            env!("CARGO_PKG_VERSION")
        )),
    }
}

/// The values of [`KEYS`], which must come in order, once each, after `written-by`; format 1's
/// calibrations, without `calibrated-on`, are on items.
fn fields<'a>(lines: &[&'a str], format: u32) -> std::result::Result<[&'a str; 22], String> {
    let mut out = ["items"; 22];
    out[COVERAGE] = "marginal";
    // Before format 5: the baselines' defaults (no such calibration could be saved).
    out[BASELINE..].copy_from_slice(&["auto", "0.01", "5", "0.2", "true"]);
    let body = lines.get(1..).unwrap_or_default();
    let present = |i: usize| {
        (format > 1 || i != CALIBRATED_ON) && (format > 3 || i != COVERAGE) && (format > 4 || i < BASELINE)
    };
    let keys = (0..KEYS.len()).filter(|&i| present(i));
    for (line_no, i) in keys.enumerate() {
        let key = KEYS[i];
        let line = body.get(line_no).copied().unwrap_or("end");
        out[i] = line
            .strip_prefix(key)
            .and_then(|rest| rest.strip_prefix(' '))
            .ok_or_else(|| format!("line {} is '{line}', expected '{key} …'", line_no + 4))?;
    }
    let want = (0..KEYS.len()).filter(|&i| present(i)).count();
    if body.len() != want + 1 {
        return Err(format!("{} lines, expected {}", lines.len() + 2, want + 4));
    }
    Ok(out)
}

/// The labels and scores, once the payload has the size the header gives and the checksum
/// holds; else the place and what is wrong.
fn checked_body<'a>(
    bytes: &[u8],
    payload: &'a [u8],
    (n, m, k): (usize, usize, usize),
    kind: Kind,
    width: usize,
) -> std::result::Result<&'a [u8], (&'static str, String)> {
    let shape = format!("{n} items × {m} draws × {k} candidates");
    let want = kind
        .values((n, m, k))
        .and_then(|x| x.checked_mul(width))
        .and_then(|x| x.checked_add(n.checked_mul(8)?.checked_add(4)?))
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
    if crate::io::crc32(covered) != crc {
        let msg = "the CRC-32 does not match: the file was changed or damaged after it was saved";
        return Err(("checksum", msg.into()));
    }
    Ok(&payload[..want - 4])
}
