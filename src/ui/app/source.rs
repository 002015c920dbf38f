//! The data source ([`rvalue_model::page::DataSource`]) over the page's streamed files.

use std::sync::Arc;

use crate::ui::streamed::Streamed;
use rvalue_model::page::StreamedHandle;
use rvalue_model::StreamedFile;

pub(super) type DataSource = rvalue_model::page::DataSource<Streamed>;
pub(super) type Loaded = rvalue_model::page::Loaded<Streamed>;

impl StreamedHandle for Streamed {
    fn info(&self) -> &Arc<StreamedFile> {
        &self.info
    }
}
