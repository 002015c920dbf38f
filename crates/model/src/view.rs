//! What each panel shows, decided from plain inputs: the controls as read from the page, the
//! analysis on show (already matched to the controls' mode by the caller), whether a file is
//! loaded. The page writes a [`PanelView`]'s texts in their elements and draws its figure; a
//! panel without a figure has its canvas blanked.

mod alpha;
mod curves;
mod data;
mod inspector;
mod notes;

pub use alpha::{alpha_cleared, alpha_edits, classes_view, worst_html, ClassesView, ALPHA_READOUTS};
pub use curves::{scores_view, theorem3_view, threshold_view};
pub use data::{data_view, DataView};
pub use inspector::{
    inspector_cleared, inspector_patch, inspector_view, ColumnPatch, InspectorBody, InspectorView, ListPatch,
};
pub use notes::{data_notes, kind_edits, DataNotes};

use crate::edits::Edits;
use crate::figure::Figure;

/// Points per curve of panels 1, 2 and 5.
pub const CURVE_POINTS: usize = 200;

/// A panel's texts, as (element id, text) in the order they are written, and its figure:
/// `None` when it has none to draw (its texts then say why).
#[derive(Clone, Debug, PartialEq)]
pub struct PanelView {
    pub texts: Vec<(&'static str, String)>,
    pub figure: Option<Figure>,
}

impl PanelView {
    fn without(texts: Vec<(&'static str, String)>) -> PanelView {
        PanelView { texts, figure: None }
    }

    /// The panel's texts as the page writes them.
    pub fn edits(&self) -> Edits {
        let mut e = Edits::new();
        for (id, text) in &self.texts {
            e.text(*id, text.as_str());
        }
        e
    }

    /// The text written in the element `id`, if any.
    pub fn text(&self, id: &str) -> Option<&str> {
        self.texts.iter().find(|(i, _)| *i == id).map(|(_, t)| t.as_str())
    }
}

#[cfg(test)]
mod tests;
