//! The tiny subset of Python literals numpy writes in a `.npy` header (strings, booleans,
//! integers, `None`, tuples, lists and dictionaries), read by recursive descent.

/// A Python literal as it appears in a `.npy` header.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Lit {
    Str(String),
    Bool(bool),
    Int(u64),
    None,
    /// Tuple or list.
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

/// The literal `text` holds, alone but for white space around it; the error is the byte
/// position (in `text`) and what is wrong there.
pub(super) fn whole(text: &str) -> PResult<Lit> {
    let mut p = LitParser { s: text.as_bytes(), i: 0 };
    let lit = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err((p.i, "unexpected text after the header dictionary".into()));
    }
    Ok(lit)
}

/// A recursive-descent reader for the tiny subset of Python literals numpy writes.
struct LitParser<'a> {
    s: &'a [u8],
    i: usize,
}

type PResult<T> = std::result::Result<T, (usize, String)>;

impl LitParser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err((self.i, msg.into()))
    }

    fn value(&mut self, depth: usize) -> PResult<Lit> {
        if depth > 16 {
            return self.err("header literal nested too deeply");
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("header ends early; expected a value"),
            Some(b'\'' | b'"') => self.string(),
            Some(b'(') => self.seq(b')', depth),
            Some(b'[') => self.seq(b']', depth),
            Some(b'{') => self.dict(depth),
            Some(b) if b.is_ascii_digit() => self.int(),
            Some(b'-') => self.err("negative number in header; expected a non-negative size"),
            Some(_) => self.word(),
        }
    }

    fn string(&mut self) -> PResult<Lit> {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return self.err("unterminated string in header"),
                Some(&b) if b == quote => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    // Python's escapes, as numpy's `literal_eval` reads them: `'fortran_orde\r'`
                    // is not the key 'fortran_order'. numpy writes none; others are refused.
                    self.i += 1;
                    let b = match self.s.get(self.i) {
                        Some(&b @ (b'\\' | b'\'' | b'"')) => b,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'0') => 0,
                        Some(_) => return self.err("unsupported escape sequence in a header string"),
                        None => return self.err("unterminated string in header"),
                    };
                    out.push(b);
                    self.i += 1;
                }
                Some(&b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
        match String::from_utf8(out) {
            Ok(s) => Ok(Lit::Str(s)),
            Err(_) => self.err("string in header is not UTF-8"),
        }
    }

    fn int(&mut self) -> PResult<Lit> {
        let mut v: u64 = 0;
        while let Some(&b) = self.s.get(self.i) {
            if !b.is_ascii_digit() {
                break;
            }
            v = match v.checked_mul(10).and_then(|v| v.checked_add(u64::from(b - b'0'))) {
                Some(v) => v,
                None => return self.err("number in header is too large"),
            };
            self.i += 1;
        }
        // Python 2 era files wrote longs as `3L`.
        if matches!(self.s.get(self.i), Some(b'L' | b'l')) {
            self.i += 1;
        }
        Ok(Lit::Int(v))
    }

    fn word(&mut self) -> PResult<Lit> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            self.i += 1;
        }
        match &self.s[start..self.i] {
            b"True" => Ok(Lit::Bool(true)),
            b"False" => Ok(Lit::Bool(false)),
            b"None" => Ok(Lit::None),
            _ => {
                self.i = start;
                self.err("unexpected text in header; expected a string, number, True/False or tuple")
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> PResult<Lit> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&close) {
                self.i += 1;
                return Ok(Lit::Seq(items));
            }
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(&b) if b == close => {}
                _ => return self.err(format!("expected ',' or '{}' in header", close as char)),
            }
        }
    }

    fn dict(&mut self, depth: usize) -> PResult<Lit> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&b'}') {
                self.i += 1;
                return Ok(Lit::Dict(items));
            }
            let key = self.value(depth + 1)?;
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return self.err("expected ':' after a key in the header dictionary");
            }
            self.i += 1;
            let value = self.value(depth + 1)?;
            items.push((key, value));
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return self.err("expected ',' or '}' in the header dictionary"),
            }
        }
    }
}
