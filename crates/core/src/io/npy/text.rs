//! One-dimensional `.npy` arrays of text (numpy's `<U{n}`: UTF-32 little-endian, and `|S{n}`:
//! bytes read as UTF-8), each element padded with zeros to `n` code units: the names a file
//! may give its classes. Only what `np.array(["a", "b"])` and its `astype("S")` write.

use super::literal::{whole, Lit};

/// The text elements of a `.npy` file, or why it is not a one-dimensional array of text; the
/// message says what was found (`Err(message)`, placed by the caller).
pub(crate) fn parse_text_npy(bytes: &[u8]) -> std::result::Result<Vec<String>, String> {
    let (dict, data) = header(bytes)?;
    let Lit::Dict(items) = dict else { return Err("the header is not a dictionary".into()) };
    let get = |key: &str| items.iter().find(|(k, _)| *k == Lit::Str(key.into())).map(|(_, v)| v);
    let Some(Lit::Str(descr)) = get("descr") else { return Err("the header has no dtype".into()) };
    let (wide, width) = match (descr.get(..2), descr.get(2..).and_then(|w| w.parse::<usize>().ok())) {
        (Some("<U"), Some(w)) => (true, w),
        (Some("|S"), Some(w)) => (false, w),
        _ => return Err(format!("dtype '{descr}' is not text; expected an array of strings ('<U…')")),
    };
    if get("fortran_order") != Some(&Lit::Bool(false)) && get("fortran_order") != Some(&Lit::Bool(true)) {
        return Err("the header's 'fortran_order' is not True or False".into());
    }
    let count = match get("shape") {
        Some(Lit::Seq(d)) if d.len() == 1 => match d[0] {
            Lit::Int(n) => usize::try_from(n).map_err(|_| "the shape is too large".to_string())?,
            _ => return Err("the shape holds a non-integer".into()),
        },
        _ => return Err("the shape is not one-dimensional; expected one name per class".into()),
    };
    let unit = if wide { 4 } else { 1 };
    let item = width.checked_mul(unit).ok_or("the dtype's width overflows")?;
    let need = item.checked_mul(count).ok_or("the shape is too large")?;
    if data.len() != need {
        return Err(format!("holds {} bytes of text, the header says {need}", data.len()));
    }
    if item == 0 {
        return Ok(vec![String::new(); count]);
    }
    data.chunks(item).map(|c| if wide { utf32(c) } else { utf8(c) }).collect()
}

/// The header's dictionary and the data after it.
fn header(bytes: &[u8]) -> std::result::Result<(Lit, &[u8]), String> {
    if bytes.len() < 10 || &bytes[..6] != super::NPY_MAGIC {
        return Err("is not a .npy array".into());
    }
    let (len, start) = match bytes[6] {
        1 => (super::read_u16(bytes, 8).map(usize::from), 10),
        2 | 3 => (super::read_u32(bytes, 8).and_then(|l| usize::try_from(l).ok()), 12),
        v => return Err(format!("has .npy version {v}, expected 1, 2 or 3")),
    };
    let end = len.and_then(|l| l.checked_add(start)).ok_or("ends inside its header")?;
    let text = bytes.get(start..end).ok_or("ends inside its header")?;
    let text = std::str::from_utf8(text).map_err(|_| "has a header that is not text".to_string())?;
    let dict = whole(text).map_err(|(_, m)| m)?;
    Ok((dict, &bytes[end..]))
}

/// One `<U` element: code points, the zeros at its end dropped.
fn utf32(c: &[u8]) -> std::result::Result<String, String> {
    let mut s = String::new();
    for u in c.chunks_exact(4) {
        let v = u32::from_le_bytes([u[0], u[1], u[2], u[3]]);
        s.push(char::from_u32(v).ok_or_else(|| format!("holds {v:#x}, which is not a character"))?);
    }
    Ok(s.trim_end_matches('\0').to_string())
}

/// One `|S` element, as UTF-8, the zeros at its end dropped.
fn utf8(c: &[u8]) -> std::result::Result<String, String> {
    let end = c.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    String::from_utf8(c[..end].to_vec()).map_err(|_| "holds bytes that are not UTF-8 text".to_string())
}
