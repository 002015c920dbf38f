//! Items on threads: a row-producing function over contiguous chunks of items, one thread each,
//! joined in item order so that every thread count gives the same rows, and a watched run
//! stopped between blocks.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{watch, Error, Result};

/// `rows(range)` over `0..n` cut into `threads` contiguous ranges, each on a thread of its own,
/// concatenated in order: the same as `rows(0..n)` whatever the count. One thread runs here.
pub fn in_chunks<T: Send>(
    n: usize,
    threads: usize,
    rows: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>> + Sync,
) -> Result<Vec<T>> {
    let size = n.div_ceil(threads.max(1)).max(1);
    let watch = watch::current();
    let rows = |range: std::ops::Range<usize>| match &watch {
        Some(w) => watched_rows(w, range, &rows),
        None => rows(range),
    };
    // wasm has one thread: the spawning code would only weigh on the page's download.
    if threads <= 1 || size >= n || cfg!(target_arch = "wasm32") {
        return rows(0..n);
    }
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|s| {
        let rows = &rows;
        let running: Vec<_> =
            (0..n).step_by(size).map(|a| s.spawn(move || rows(a..(a + size).min(n)))).collect();
        running.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(stopped()))).collect()
    });
    // The parts are freed as they are joined, the first grown in place, so that the rows are
    // not held twice (a large data set's scores are a good part of its memory).
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_else(|| Ok(Vec::new()))?;
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// The pieces one thread made, each with its place among all pieces.
type Pieces<T> = Result<Vec<(usize, Vec<T>)>>;

/// [`in_chunks`] with the items handed out `piece` at a time to whichever thread is free,
/// rather than one fixed range a thread: when other work shares the cores (a streamed pass's
/// reading and summaries), fixed ranges end at different times and the block waits for the
/// last with a core idle. The pieces are joined in item order, so the rows are the same.
pub(super) fn in_pieces<T: Send>(
    n: usize,
    threads: usize,
    piece: usize,
    rows: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>> + Sync,
) -> Result<Vec<T>> {
    let piece = piece.max(1);
    let pieces = n.div_ceil(piece);
    if threads <= 1 || pieces <= 1 || cfg!(target_arch = "wasm32") {
        return in_chunks(n, 1, rows);
    }
    let (watch, next) = (watch::current(), AtomicUsize::new(0));
    let work = || -> Pieces<T> {
        let mut got = Vec::new();
        loop {
            let p = next.fetch_add(1, Ordering::Relaxed);
            if p >= pieces {
                return Ok(got);
            }
            watch::checkpoint_of(watch.as_deref())?;
            got.push((p, rows(p * piece..((p + 1) * piece).min(n))?));
        }
    };
    let done: Vec<Pieces<T>> = std::thread::scope(|s| {
        let others: Vec<_> = (1..threads.min(pieces)).map(|_| s.spawn(work)).collect();
        let mine = work();
        let others = others.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(stopped())));
        std::iter::once(mine).chain(others).collect()
    });
    let mut all = Vec::with_capacity(pieces);
    for part in done {
        all.extend(part?);
    }
    all.sort_unstable_by_key(|(p, _)| *p);
    let mut out = Vec::new();
    for (_, part) in all {
        out.extend(part);
    }
    Ok(out)
}

/// Items between two checks of a watched run's stop flag in [`in_chunks`].
const WATCH_BLOCK: usize = 1024;

/// `rows(range)` a block of items at a time, stopping between blocks when `watch` asks: the same
/// rows, as each item's are its own.
fn watched_rows<T>(
    watch: &watch::Watch,
    range: std::ops::Range<usize>,
    rows: impl Fn(std::ops::Range<usize>) -> Result<Vec<T>>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    for start in range.clone().step_by(WATCH_BLOCK) {
        watch::checkpoint_of(Some(watch))?;
        let block = start..(start + WATCH_BLOCK).min(range.end);
        let part = rows(block.clone())?;
        if out.is_empty() {
            // Room for the whole range at the first block's rate, so the rows grow only once.
            out.reserve_exact(part.len() / block.len() * range.len());
        }
        out.extend(part);
    }
    Ok(out)
}

/// A worker thread that ended without a result (it panicked).
fn stopped() -> Error {
    Error::invalid("a worker thread stopped without a result")
}
