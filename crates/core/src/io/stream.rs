//! Score files of any size, read a block of items at a time.
//!
//! [`ScoreFile::open`] reads a C-order `.npy`'s header, or an `.npz`'s directory and its
//! `scores` member's header, and checks the data's size against the file's before any score is
//! read: a header that claims more than the file holds is refused at once, whatever the file's
//! size. The labels (`labels` member) are read then too. Scores are read only when a pass asks
//! for them ([`ScoreBlocks::for_each_block`]), one block at a time, so memory is bounded by the
//! block size and never by a header's claim. Natively a thread reads the next block while the
//! caller works on this one. Files the stream does not take (CSV, Fortran order) are read whole
//! by [`super::read_scores_file`], under its element limit.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::direct;
use super::npy::{dtype_label, format_shape, parse_npy_with, read_header, Header, Kind};
use super::npz::{self, Entry};
use super::{labels_from_array, place, read_scores_file, score_shape, shown, BlockLayout, Dataset};
use super::{MAX_ELEMENTS, NPY_MAGIC, ZIP_MAGIC};
use crate::blocks::ScoreBlocks;
use crate::tensor::ScoreTensor;
use crate::{Error, Result};

/// A score file opened: streamed, or read whole when the stream does not take its format.
#[derive(Debug)]
pub enum Opened {
    Streamed(ScoreFile),
    Whole(Dataset),
}

/// A `.npy` file, or an `.npz`'s `scores` member, whose scores are read a block at a time.
#[derive(Debug)]
pub struct ScoreFile {
    path: PathBuf,
    /// The scores' type, shape and place (the member's `.npy` bytes, for an `.npz`).
    layout: BlockLayout,
    /// The `.npz` member holding the scores; `None` for a `.npy`.
    member: Option<Entry>,
    len: u64,
    labels: Option<Vec<usize>>,
}

/// The directory of an `.npz` is read from this many bytes at the file's end.
const TAIL: u64 = 1 << 20;

impl ScoreFile {
    /// Opens the score file at `path` (`.npy`, `.npz` or long-form CSV, by content).
    pub fn open(path: &Path) -> Result<Opened> {
        let file = path.display().to_string();
        let io = |e: std::io::Error| cannot_read(&file, &e);
        let mut f = File::open(path).map_err(io)?;
        let len = f.metadata().map_err(io)?.len();
        let mut magic = Vec::with_capacity(NPY_MAGIC.len());
        f.by_ref().take(NPY_MAGIC.len() as u64).read_to_end(&mut magic).map_err(io)?;
        f.rewind().map_err(io)?;
        let at = Place { path, file: file.clone(), len };
        if magic == NPY_MAGIC {
            let h = read_header(&mut BufReader::new(f), &file, "")?;
            let have = len.saturating_sub(h.data_offset as u64);
            at.scores(h, "", have, None, None)
        } else if magic.starts_with(ZIP_MAGIC) {
            at.npz(f)
        } else {
            Ok(Opened::Whole(read_scores_file(path)?))
        }
    }

    /// Items `N`, draws `M`, candidates `K`.
    pub fn shape(&self) -> (usize, usize, usize) {
        self.layout.shape
    }

    /// The array had shape `[N, K]` and is read as `M = 1`.
    pub fn single_draw(&self) -> bool {
        self.layout.single_draw
    }

    /// The labels the file carried (an `.npz`'s `labels` member), taken out of it.
    pub fn take_labels(&mut self) -> Option<Vec<usize>> {
        self.labels.take()
    }

    /// The `.npy` bytes from the start of the data on.
    fn data(&self) -> Result<Box<dyn Read + Send>> {
        let io = |e: std::io::Error| cannot_read(&self.layout.file, &e);
        let mut f = File::open(&self.path).map_err(io)?;
        match &self.member {
            None => {
                if self.len >= direct::DIRECT_MIN {
                    if let Some(d) = direct::open(&self.path, self.layout.data_offset as u64) {
                        return Ok(Box::new(d));
                    }
                }
                f.seek(SeekFrom::Start(self.layout.data_offset as u64)).map_err(io)?;
                Ok(Box::new(f))
            }
            Some(e) => {
                let mut r =
                    npz::member_reader(BufReader::with_capacity(1 << 16, f), self.len, e, &self.layout.file)?;
                std::io::copy(&mut r.by_ref().take(self.layout.data_offset as u64), &mut std::io::sink())
                    .map_err(io)?;
                Ok(Box::new(r))
            }
        }
    }
}

impl ScoreBlocks for ScoreFile {
    fn shape(&self) -> (usize, usize, usize) {
        self.layout.shape
    }

    fn for_each_block(
        &self,
        items: usize,
        each: &mut dyn FnMut(usize, &ScoreTensor) -> Result<()>,
    ) -> Result<()> {
        let (n, m, k) = self.layout.shape;
        let items = items.max(1);
        let item_bytes = m * k * self.layout.kind.size();
        let mut source = self.data()?;
        // The blocks, then an empty read at the end: an `.npz` member's size and CRC-32 are
        // checked once the byte after its last is asked for.
        let sizes = (0..n).step_by(items).map(move |first| (first, (n - first).min(items) * item_bytes));
        let sizes = sizes.chain(std::iter::once((n, 0)));
        let io = |e: std::io::Error| cannot_read(&self.layout.file, &e);
        // The reading thread decodes and checks each block too, so that the caller's threads
        // only compute; the buffer is filled as read, without zeroing it first.
        // One buffer for every block's bytes: a fresh one a block cost a page fault a page.
        let mut raw = Vec::new();
        let read = move |first: usize, len: usize| -> Result<Option<ScoreTensor>> {
            if len == 0 {
                source.read(&mut [0u8; 1]).map_err(io)?;
                return Ok(None);
            }
            // Zeroed once as it grows, not once a block (`read_to_end` zeroes what it reads into).
            raw.resize(len, 0);
            source.read_exact(&mut raw).map_err(io)?;
            self.layout.block(first, &raw).map(Some)
        };
        read_ahead(sizes, read, &mut |first, block| match block {
            None => Ok(()),
            Some(block) => each(first, &block),
        })
    }
}

/// Calls `read(first, len)` for each `(first, len)` of `sizes` and `work(first, got)` with what
/// it gave, in order. Natively the next block is read on a thread of its own while `work` runs.
fn read_ahead<T: Send>(
    sizes: impl Iterator<Item = (usize, usize)> + Send,
    mut read: impl FnMut(usize, usize) -> Result<T> + Send,
    work: &mut dyn FnMut(usize, T) -> Result<()>,
) -> Result<()> {
    if cfg!(target_arch = "wasm32") {
        for (first, len) in sizes {
            work(first, read(first, len)?)?;
        }
        return Ok(());
    }
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(usize, Result<T>)>(1);
        s.spawn(move || {
            for (first, len) in sizes {
                let got = read(first, len);
                let failed = got.is_err();
                // The receiver is gone when `work` failed: stop reading.
                if tx.send((first, got)).is_err() || failed {
                    return;
                }
            }
        });
        for (first, got) in rx {
            work(first, got?)?;
        }
        Ok(())
    })
}

/// What [`ScoreFile::open`] knows of the file while it reads the headers.
struct Place<'a> {
    path: &'a Path,
    file: String,
    len: u64,
}

impl Place<'_> {
    /// The scores array of header `h` (in member `member` of an `.npz`, `ctx` naming it), with
    /// `have` bytes of data after its header, and the labels.
    fn scores(
        self,
        h: Header,
        ctx: &str,
        have: u64,
        member: Option<Entry>,
        labels: Option<Vec<usize>>,
    ) -> Result<Opened> {
        // The shape and type are judged before the order, as the whole-file reader does.
        score_shape(&self.file, ctx, &h.shape)?;
        if h.fortran_order && h.kind != Kind::B1 {
            if h.count <= MAX_ELEMENTS {
                return Ok(Opened::Whole(read_scores_file(self.path)?));
            }
            return Err(Error::parse(
                &self.file,
                place(ctx, "header"),
                format!(
                    "shape {} in Fortran order has {} elements, more than the limit of {MAX_ELEMENTS} \
                     for Fortran-order files; save it in C order (np.save(f, np.ascontiguousarray(a))) \
                     to stream it",
                    format_shape(&h.shape),
                    h.count
                ),
            ));
        }
        let layout = BlockLayout::of_header(&self.file, ctx, h, have)?;
        Ok(Opened::Streamed(ScoreFile {
            path: self.path.to_path_buf(),
            layout,
            member,
            len: self.len,
            labels,
        }))
    }

    /// An `.npz`: its directory from the file's end, then the `scores` member's header and the
    /// `labels` member. An archive whose directory is not where np.savez puts it is read whole.
    fn npz(self, mut f: File) -> Result<Opened> {
        let io = |e: std::io::Error| cannot_read(&self.file, &e);
        let base = self.len.saturating_sub(TAIL);
        f.seek(SeekFrom::Start(base)).map_err(io)?;
        let mut bytes = Vec::with_capacity((self.len - base) as usize);
        f.read_to_end(&mut bytes).map_err(io)?;
        let len =
            usize::try_from(self.len).map_err(|_| Error::invalid("file too large for this platform"))?;
        let tail = npz::Tail { base: base as usize, bytes: &bytes, missed: std::cell::Cell::new(false) };
        let entries = npz::entries_in(&self.file, &tail, len);
        let scores = match &entries {
            Ok(es) if !tail.missed.get() => npz::find_member(&self.file, es, "scores")?.cloned(),
            _ => None,
        };
        let (Ok(entries), Some(se)) = (&entries, scores) else {
            // Read whole: the established reader's message, under its size limits.
            return Ok(Opened::Whole(read_scores_file(self.path)?));
        };
        let ctx = format!("member '{}'", shown(&se.name));
        let mut r =
            npz::member_reader(BufReader::new(f.try_clone().map_err(io)?), self.len, &se, &self.file)?;
        let h = read_header(&mut r, &self.file, &ctx)?;
        let nbytes = (h.count * h.kind.size()) as u64; // no overflow: checked by the header's parse
        if (h.data_offset as u64).checked_add(nbytes) != Some(se.size()) {
            return Err(Error::parse(
                &self.file,
                place(&ctx, "header"),
                format!(
                    "member claims {} bytes uncompressed; its header says shape {} of {} = {} bytes \
                     after a {}-byte header",
                    se.size(),
                    format_shape(&h.shape),
                    dtype_label(h.kind),
                    nbytes,
                    h.data_offset
                ),
            ));
        }
        let have = nbytes;
        let (n, _, k, _) = score_shape(&self.file, &ctx, &h.shape)?;
        let labels = match npz::find_member(&self.file, entries, "labels")? {
            Some(le) => Some(self.labels(f, le, n, k)?),
            None => None,
        };
        self.scores(h, &ctx, have, Some(se), labels)
    }

    /// The `labels` member `le`: `N` labels in `0..K`, read whole (a few bytes per item).
    fn labels(&self, f: File, le: &Entry, n: usize, k: usize) -> Result<Vec<usize>> {
        let ctx = format!("member '{}'", shown(&le.name));
        if le.size() > (n as u64).saturating_mul(8).saturating_add(1 << 20) {
            return Err(Error::parse(
                &self.file,
                place(&ctx, "header"),
                format!("the labels member claims {} bytes; {n} labels need at most {}", le.size(), n * 8),
            ));
        }
        let mut r = npz::member_reader(BufReader::new(f), self.len, le, &self.file)?;
        let mut bytes = Vec::new();
        r.read_to_end(&mut bytes).map_err(|e| cannot_read(&self.file, &e))?;
        let (a, layout) = parse_npy_with(&self.file, &ctx, &bytes)?;
        labels_from_array(&self.file, &ctx, &a, &layout, n, k)
    }
}

fn cannot_read(file: &str, e: &std::io::Error) -> Error {
    Error::Io { file: file.to_string(), message: format!("cannot read: {e}") }
}
