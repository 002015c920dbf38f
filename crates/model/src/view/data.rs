//! Panel 8: the loaded score file's statistics and its variance histogram, shown in the scores
//! mode only.

use crate::edits::Edits;
use crate::figure::stats::{data_stats, streamed_stats};
use crate::figure::{panels, Figure};
use crate::page::Stats;
use crate::{ids, Mode};

/// What panel 8 shows, from [`data_view`].
#[derive(Clone, Debug, PartialEq)]
pub struct DataView {
    pub edits: Edits,
    /// The variance histogram; with none, `blank` says whether the canvas is cleared (a
    /// streamed file has no histogram) or left as it is (a file whose summary is not made yet).
    pub figure: Option<Figure>,
    pub blank: bool,
}

/// Panel 8 for the file `name` with `stats` under the controls' `mode`.
pub fn data_view(name: &str, stats: &Stats<'_>, mode: Mode) -> DataView {
    let mut edits = Edits::new();
    edits.hidden(ids::PANEL_DATA, mode != Mode::Scores);
    let (figure, blank) = match stats {
        Stats::Summary(s) => {
            edits.html(ids::DATA_STATS, data_stats(name, s));
            (Some(panels::variances(s)), false)
        }
        Stats::Streamed(shape) => {
            edits.html(ids::DATA_STATS, streamed_stats(name, *shape));
            (None, true)
        }
        Stats::None => (None, false),
    };
    DataView { edits, figure, blank }
}
