//! Bytes of a streamed file read ahead of a step (one asynchronous read into one reused
//! buffer), from which the step's synchronous reads are answered.

use std::ops::Range;

/// Bytes `range` of a file, read ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadAhead {
    range: Range<u64>,
    bytes: Vec<u8>,
}

impl ReadAhead {
    /// `bytes`, the file's bytes `range` (as many as it holds).
    pub fn new(range: Range<u64>, bytes: Vec<u8>) -> ReadAhead {
        ReadAhead { range, bytes }
    }

    /// Bytes `r`, if they were read ahead; `None` for anything else, read as it comes.
    pub fn get(&self, r: &Range<u64>) -> Option<Vec<u8>> {
        let at = r.start.checked_sub(self.range.start)?;
        let end = r.end.checked_sub(self.range.start)?;
        (r.end <= self.range.end && at <= end)
            .then(|| self.bytes.get(at as usize..end as usize))
            .flatten()
            .map(<[u8]>::to_vec)
    }
}
