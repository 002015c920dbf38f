//! Score files too large to hold, read a byte range at a time ([`ByteSource`]): opened from
//! their header and labels ([`Streamed::open`]); their shares are read by the page and by the
//! workers ([`ByteSource::read`], `crate::worker`), and their pooled splits by the workers
//! alone. The file itself is never in memory; a share is about [`rvalue_model::SHARE_BYTES`].

use std::cell::Cell;
use std::sync::Arc;

use crate::byte_source::ByteSource;
use rvalue_core::Result;
use rvalue_model::files;
use rvalue_model::page::StreamedHandle;
use rvalue_model::StreamedFile;

thread_local! {
    /// The size from which score files are streamed, from the address the page started with
    /// (the address is then rewritten, and keeps no switch).
    static STREAM_FROM: Cell<f64> = const { Cell::new(files::STREAM_FROM_BYTES) };
}

/// Sets the size from which score files are streamed: the `stream` switch (megabytes), or the
/// default without one.
pub fn set_stream_switch(switch: Option<&str>) {
    STREAM_FROM.with(|s| s.set(files::stream_from(switch)));
}

/// The size from which score files are streamed.
pub fn stream_from() -> f64 {
    STREAM_FROM.with(|s| s.get())
}

/// A streamed file for the page: where its bytes are and what the model knows of it.
#[derive(Clone)]
pub struct Streamed {
    pub file: ByteSource,
    pub info: Arc<StreamedFile>,
}

impl Streamed {
    /// Opens the large `.npy` `file` from its header ([`files::open_streamed`]), with the
    /// labels `labels`. Nothing of the scores is read beyond its first [`files::HEAD_BYTES`],
    /// and not those either when `head` holds them already. `shown` replaces the file's name
    /// where the page shows it; the read's errors keep the file's own.
    pub async fn open(
        file: ByteSource,
        head: Option<Vec<u8>>,
        labels: Option<(String, Vec<u8>)>,
        shown: Option<&str>,
    ) -> Result<Streamed> {
        let size = file.size();
        let head = match head {
            Some(h) => h,
            None => file.read(0..size.min(files::HEAD_BYTES)).await?,
        };
        let mut info = files::open_streamed(&file.name(), size, &head, labels)?;
        if let Some(name) = shown {
            info.name = name.to_string();
        }
        Ok(Streamed { file, info: Arc::new(info) })
    }
}

/// The model's page holds the file as this handle.
impl StreamedHandle for Streamed {
    fn info(&self) -> &Arc<StreamedFile> {
        &self.info
    }
}
