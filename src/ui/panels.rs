//! What each panel shows, as the model builds it ([`rvalue_model::figure`]): the figures, the
//! tables', inspector's and statistics' HTML, and the sentences shown instead of a figure. The
//! page's drawing code reaches them under this name.

pub use rvalue_model::figure::classes::{classes, strata_head, strata_table};
pub use rvalue_model::figure::inspector::{
    inspector, inspector_columns, ranking_list, RankingColumn, RankingRow, CUT_HTML, EMPTY_CUT_HTML,
};
pub use rvalue_model::figure::panels::{against_alpha, alpha_marker, readout, scores, theorem3, variances};
pub use rvalue_model::figure::placeholder;
pub use rvalue_model::figure::stats::{data_stats, streamed_stats};
pub use rvalue_model::figure::tables::{
    conditional_table, reduction_text, row_html, summary_table, TableRow, CONDITIONAL_COLUMNS,
    SUMMARY_COLUMNS,
};
pub use rvalue_model::figure::threshold::{threshold, threshold_cut};
pub use rvalue_model::figure::{method_html, method_label};
pub use rvalue_model::sigma2_grid as sigma2_axis;
