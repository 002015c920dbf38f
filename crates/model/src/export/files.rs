//! What each export button saves: the figure panels' canvases and overlays, the tables, and
//! the downloads' file names.

use crate::ids;
use crate::panel::Panel;

/// A figure panel's export: the panel, its canvas, the overlay stacked on the canvas (drawn
/// over it in the PNG), the file's name.
#[derive(Debug, Clone, Copy)]
pub struct FigureExport {
    pub panel: Panel,
    pub canvas: &'static str,
    pub overlay: Option<&'static str>,
    pub name: &'static str,
}

impl FigureExport {
    /// Why the figure cannot be exported: its panel has drawn none yet, or (`hidden`) it is
    /// hidden from view, which leaves no size to draw an SVG at.
    pub fn no_figure(&self, hidden: bool) -> rvalue_core::Error {
        let why = if hidden { "is hidden" } else { "has no figure yet" };
        rvalue_core::Error::invalid(format!("panel {} {why}", self.panel.number()))
    }
}

/// The figures with PNG and SVG buttons, in the page's order.
pub const FIGURES: [FigureExport; 7] = [
    FigureExport { panel: Panel::Scores, canvas: ids::PLOT_SCORES, overlay: None, name: "scores" },
    FigureExport { panel: Panel::Threshold, canvas: ids::PLOT_THRESHOLD, overlay: None, name: "threshold" },
    FigureExport {
        panel: Panel::Coverage,
        canvas: ids::PLOT_COVERAGE,
        overlay: Some(ids::PLOT_COVERAGE_ALPHA),
        name: "coverage",
    },
    FigureExport {
        panel: Panel::Size,
        canvas: ids::PLOT_SIZE,
        overlay: Some(ids::PLOT_SIZE_ALPHA),
        name: "size",
    },
    FigureExport {
        panel: Panel::Theorem3,
        canvas: ids::PLOT_THEOREM3,
        overlay: Some(ids::PLOT_THEOREM3_ALPHA),
        name: "theorem3",
    },
    FigureExport { panel: Panel::Data, canvas: ids::PLOT_VARIANCE, overlay: None, name: "variances" },
    FigureExport { panel: Panel::Classes, canvas: ids::PLOT_CLASSES, overlay: None, name: "classes" },
];

/// A table with a CSV button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Panel 6's summary at α ([`crate::export::summary_csv`]).
    Summary,
    /// Panel 7's sets of the first split ([`crate::export::sets_csv`]).
    Sets,
    /// Panel 9's coverage by class ([`crate::classes::classes_csv`]).
    Classes,
}

/// The tables with a CSV button: the panel it sits in, the table, the file's name.
pub const TABLES: [(Panel, Table, &str); 3] = [
    (Panel::Summary, Table::Summary, "summary"),
    (Panel::Inspector, Table::Sets, "sets"),
    (Panel::Classes, Table::Classes, "classes"),
];

/// The download's file name for `name` saved as `ext`.
pub fn file_name(name: &str, ext: &str) -> String {
    format!("rvalue-explorer-{name}.{ext}")
}

/// The first split's mask's file name (`rvalue sets --split` reads it).
pub const SPLIT_MASK_FILE: &str = "rvalue-explorer-split-0.npy";

/// What an export button saves.
#[derive(Debug, Clone, Copy)]
pub enum Save {
    Png(&'static FigureExport),
    Svg(&'static FigureExport),
    /// A table's CSV, and the file's name.
    Csv(Table, &'static str),
}

/// A labelled group of export buttons at the end of a panel.
#[derive(Debug, Clone)]
pub struct ButtonGroup {
    pub panel: Panel,
    /// Each button's text (its format) and what it saves.
    pub buttons: Vec<(&'static str, Save)>,
}

impl ButtonGroup {
    /// The group's accessible name.
    pub fn label(&self) -> String {
        format!("Export panel {}", self.panel.number())
    }

    /// The accessible name of the button saving `format`.
    pub fn button_label(&self, format: &str) -> String {
        format!("Download panel {} as {format}", self.panel.number())
    }

    /// The group as markup: a `div.export` labelled [`ButtonGroup::label`], holding a button
    /// per format in [`ButtonGroup::buttons`]' order, each named by `data-export`.
    pub fn html(&self) -> String {
        let buttons: String = self
            .buttons
            .iter()
            .map(|(f, _)| {
                let (lower, label) = (f.to_lowercase(), self.button_label(f));
                format!("<button type=\"button\" data-export=\"{lower}\" aria-label=\"{label}\">{f}</button>")
            })
            .collect();
        format!("<div class=\"export\" role=\"group\" aria-label=\"{}\">{buttons}</div>", self.label())
    }
}

/// The page's export buttons: a PNG and SVG group per figure ([`FIGURES`]), then a CSV group
/// per table ([`TABLES`]).
pub fn button_groups() -> Vec<ButtonGroup> {
    let figures = FIGURES
        .iter()
        .map(|f| ButtonGroup { panel: f.panel, buttons: vec![("PNG", Save::Png(f)), ("SVG", Save::Svg(f))] });
    let tables = TABLES
        .iter()
        .map(|&(panel, t, name)| ButtonGroup { panel, buttons: vec![("CSV", Save::Csv(t, name))] });
    figures.chain(tables).collect()
}

/// Whether `f`'s SVG carries the α marker, and whether it is the coverage one (panel 3) or the
/// set size one (panel 4): the figures behind the α overlays, which the SVG draws as one.
pub fn alpha_marker_of(f: &FigureExport) -> Option<bool> {
    match f.canvas {
        ids::PLOT_COVERAGE => Some(true),
        ids::PLOT_SIZE => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
