//! The page's nine panels: their names in `?embed=`, numbers, element ids, the sliders each
//! depends on and the mode each belongs to.

use crate::Mode;

rvalue_core::options! {
    /// One panel of the page, as named in `?embed=` (in the page's order).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Panel("panel") {
        Scores = "scores",
        Threshold = "threshold",
        Coverage = "coverage",
        Size = "size",
        Theorem3 = "theorem3",
        Summary = "summary",
        Inspector = "inspector",
        Data = "data",
        Classes = "classes",
    }
}

/// The sliders a panel's view depends on (what an embedded panel shows with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sliders {
    pub alpha: bool,
    pub beta: bool,
    pub sigma2: bool,
}

impl Panel {
    /// The panel's number on the page (1 to 9, the order of [`Panel::ALL`]).
    pub fn number(self) -> usize {
        Panel::ALL.iter().position(|&p| p == self).map_or(0, |i| i + 1)
    }

    /// The id of the panel's element in index.html.
    pub fn element_id(self) -> String {
        format!("panel-{}", self.name())
    }

    pub fn sliders(self) -> Sliders {
        let (alpha, beta, sigma2) = match self {
            Panel::Scores => (false, false, true),
            Panel::Threshold => (false, true, true),
            Panel::Coverage | Panel::Size | Panel::Summary | Panel::Inspector | Panel::Classes => {
                (true, false, false)
            }
            Panel::Theorem3 => (true, true, true),
            Panel::Data => (false, false, false),
        };
        Sliders { alpha, beta, sigma2 }
    }

    /// Whether the panel shows anything from an analysis in `mode`. Panel 1 of the toy is a
    /// closed form: an iframe showing only it need not simulate anything. Panel 5 draws CP_r at
    /// the analysis's calibrated threshold and fitted prior.
    pub fn needs_analysis(self, mode: Mode) -> bool {
        mode == Mode::Scores || self != Panel::Scores
    }

    /// Whether the page shows the panel in `mode` (panel 1 is the toy's, panel 8 a file's).
    pub fn shown_in(self, mode: Mode) -> bool {
        match self {
            Panel::Scores => mode == Mode::Toy,
            Panel::Data => mode == Mode::Scores,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests;
