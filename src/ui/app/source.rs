//! The data source ([`rvalue_model::page::DataSource`]) over the page's streamed files.

use rvalue_web::streamed::Streamed;

pub(super) type DataSource = rvalue_model::page::DataSource<Streamed>;
pub(super) type Loaded = rvalue_model::page::Loaded<Streamed>;
