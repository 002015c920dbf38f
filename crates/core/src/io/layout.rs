//! Where a C-order `.npy`'s items lie, for a reader that fetches byte ranges itself: the page
//! reads a dropped file with `File.slice`, a range at a time, and never holds it whole.
//!
//! [`BlockLayout::of_npy_head`] checks the header against the file's length before any score is
//! read (a header that claims more than the file holds is refused at once, whatever its size);
//! [`BlockLayout::block`] turns one range's bytes into a block of items, refusing non-finite
//! scores with their place in the whole file. [`super::ScoreFile`] reads its blocks the same way.

use std::ops::Range;

use super::npy::{check_data_len, decode, format_shape, read_header, Kind, NpyData};
use super::{non_finite, place, score_shape, tensor_of, NPY_MAGIC};
use crate::tensor::ScoreTensor;
use crate::{Error, Result};

/// A score array's type, shape and place in its file: what a block's bytes mean.
#[derive(Debug, Clone)]
pub struct BlockLayout {
    /// The file's name in messages, and the member's place prefix (empty for a `.npy`).
    pub(super) file: String,
    pub(super) ctx: String,
    pub(super) kind: Kind,
    /// Where the data starts in the `.npy` bytes.
    pub(super) data_offset: usize,
    pub(super) shape: (usize, usize, usize),
    pub(super) single_draw: bool,
}

impl BlockLayout {
    /// The layout of the C-order `.npy` named `file` whose first bytes are `head` (its header at
    /// least) and whose length is `len`. A Fortran-order array, an array of bools or data of
    /// another size than the header says is refused in one line naming the place.
    pub fn of_npy_head(file: &str, head: &[u8], len: u64) -> Result<BlockLayout> {
        if !head.starts_with(NPY_MAGIC) {
            return Err(Error::parse(file, "byte 0", "not a .npy file (no \\x93NUMPY magic)"));
        }
        let h = read_header(&mut &head[..], file, "")?;
        if h.fortran_order {
            return Err(Error::parse(
                file,
                "header",
                format!(
                    "shape {} is in Fortran order; save it in C order \
                     (np.save(f, np.ascontiguousarray(a))) to read it a block at a time",
                    format_shape(&h.shape)
                ),
            ));
        }
        let have = len.saturating_sub(h.data_offset as u64);
        Self::of_header(file, "", h, have)
    }

    /// The layout of header `h` (of `file`, in member `ctx`), with `have` bytes after its header.
    pub(super) fn of_header(file: &str, ctx: &str, h: super::npy::Header, have: u64) -> Result<BlockLayout> {
        let (n, m, k, single_draw) = score_shape(file, ctx, &h.shape)?;
        if h.kind == Kind::B1 {
            return Err(Error::parse(
                file,
                place(ctx, "header"),
                "scores are bool; expected float16/float32/float64 scores",
            ));
        }
        check_data_len(file, ctx, &h, have)?;
        Ok(BlockLayout {
            file: file.to_string(),
            ctx: ctx.to_string(),
            kind: h.kind,
            data_offset: h.data_offset,
            shape: (n, m, k),
            single_draw,
        })
    }

    /// Items `N`, draws `M`, candidates `K`.
    pub fn shape(&self) -> (usize, usize, usize) {
        self.shape
    }

    /// The array had shape `[N, K]` and is read as `M = 1`.
    pub fn single_draw(&self) -> bool {
        self.single_draw
    }

    /// Bytes one item takes in the file.
    pub fn item_bytes(&self) -> usize {
        self.shape.1 * self.shape.2 * self.kind.size()
    }

    /// Bytes of the whole file's scores.
    pub fn data_bytes(&self) -> u64 {
        self.shape.0 as u64 * self.item_bytes() as u64
    }

    /// Where items `items` lie in the `.npy` bytes.
    pub fn bytes_of(&self, items: Range<usize>) -> Range<u64> {
        let at = |i: usize| self.data_offset as u64 + i as u64 * self.item_bytes() as u64;
        at(items.start)..at(items.end)
    }

    /// The block of items `first..first + len` from its bytes (`len` whole items), refusing
    /// non-finite scores with the place and the item's index in the whole file.
    pub fn block(&self, first: usize, raw: &[u8]) -> Result<ScoreTensor> {
        let (_, m, k) = self.shape;
        if !raw.len().is_multiple_of(self.item_bytes().max(1)) {
            return Err(self.at_byte(first * m * k, format!("{} bytes are not whole items", raw.len())));
        }
        let n = raw.len() / self.item_bytes().max(1);
        let data = decode(self.kind, raw).map_err(|(i, msg)| self.at_byte(first * m * k + i, msg))?;
        if let Some((i, x)) = non_finite(&data) {
            let g = first * m * k + i;
            let (item, rest) = (g / (m * k), g % (m * k));
            let idx = if self.single_draw {
                format!("[{item}][{}]", rest % k)
            } else {
                format!("[{item}][{}][{}]", rest / k, rest % k)
            };
            return Err(self.at_byte(g, crate::tensor::not_finite(&idx, &x.to_string(), x)));
        }
        match data {
            // Scanned above: the most common type is not scanned again.
            NpyData::F32(v) => ScoreTensor::from_finite_f32(n, m, k, v),
            data => tensor_of(n, m, k, data).unwrap_or_else(|| {
                Err(self.at_byte(0, "scores are bool; expected float16/float32/float64 scores".into()))
            }),
        }
    }

    pub(super) fn at_byte(&self, element: usize, msg: String) -> Error {
        let byte = self.data_offset.saturating_add(element.saturating_mul(self.kind.size()));
        Error::parse(&self.file, place(&self.ctx, &format!("byte {byte}")), msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{read_scores, write_npy_f32};

    fn file() -> Vec<u8> {
        let data: Vec<f32> = (0..5 * 2 * 3).map(|i| (i % 7) as f32 / 4.0 - 0.5).collect();
        write_npy_f32(&[5, 2, 3], &data)
    }

    #[test]
    fn blocks_read_by_range_are_the_whole_files_items() {
        let bytes = file();
        let whole = read_scores("s.npy", &bytes).unwrap().scores;
        let l =
            BlockLayout::of_npy_head("s.npy", &bytes[..bytes.len().min(200)], bytes.len() as u64).unwrap();
        assert_eq!(l.shape(), (5, 2, 3));
        assert_eq!(l.data_bytes(), 5 * 2 * 3 * 4);
        let r = l.bytes_of(1..4);
        let block = l.block(1, &bytes[r.start as usize..r.end as usize]).unwrap();
        assert_eq!(block, whole.items(1..4));
    }

    #[test]
    fn a_header_claiming_more_than_the_file_is_refused_at_once() {
        let bytes = file();
        let e = BlockLayout::of_npy_head("s.npy", &bytes, bytes.len() as u64 - 4).unwrap_err().to_string();
        assert!(e.contains("truncated data") && e.contains("s.npy"), "{e}");
        let e = BlockLayout::of_npy_head("s.npy", b"PK\x03\x04", 10).unwrap_err().to_string();
        assert!(e.contains("not a .npy file"), "{e}");
    }

    #[test]
    fn a_non_finite_score_is_refused_with_its_place_in_the_file() {
        let mut data: Vec<f32> = vec![0.5; 5 * 2 * 3];
        data[4 * 6 + 5] = f32::NAN;
        let bytes = write_npy_f32(&[5, 2, 3], &data);
        let l = BlockLayout::of_npy_head("s.npy", &bytes, bytes.len() as u64).unwrap();
        let r = l.bytes_of(3..5);
        let e = l.block(3, &bytes[r.start as usize..r.end as usize]).unwrap_err().to_string();
        assert!(e.contains("score [4][1][2] is NaN"), "{e}");
    }
}
