//! Raw deflate inflated as it is read, so that a compressed member is never held whole.

use std::io::Read;

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

/// Raw deflate, inflated as it is read.
pub(super) struct Inflate<R> {
    inner: R,
    state: Box<InflateState>,
    input: Vec<u8>,
    at: usize,
    end: usize,
    eof: bool,
    done: bool,
}

impl<R: Read> Inflate<R> {
    /// Inflates the `csize` compressed bytes of `inner`, in chunks no larger than they are.
    pub(super) fn new(inner: R, csize: u64) -> Self {
        let state = InflateState::new_boxed(DataFormat::Raw);
        let input = vec![0; csize.clamp(1, 1 << 15) as usize];
        Inflate { inner, state, input, at: 0, end: 0, eof: false, done: false }
    }
}

impl<R: Read> Read for Inflate<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while !self.done && !out.is_empty() {
            if self.at == self.end && !self.eof {
                self.end = self.inner.read(&mut self.input)?;
                self.at = 0;
                self.eof = self.end == 0;
            }
            let flush = if self.eof { MZFlush::Finish } else { MZFlush::None };
            let step = inflate(&mut self.state, &self.input[self.at..self.end], out, flush);
            self.at += step.bytes_consumed;
            let stuck =
                step.bytes_written == 0 && (self.eof || step.bytes_consumed == 0 && self.at < self.end);
            match step.status {
                Ok(MZStatus::StreamEnd) => self.done = true,
                Ok(MZStatus::Ok) | Err(MZError::Buf) if !stuck => {}
                _ => {
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "corrupt deflate data"))
                }
            }
            if step.bytes_written > 0 {
                return Ok(step.bytes_written);
            }
        }
        Ok(0)
    }
}
