//! What the page redraws: a flag per group of panels, set by events and cleared by a render.

use crate::controls::{Controls, Impact};

/// What to redraw at the next render.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Dirty {
    /// Panels 1 and 2 (toy parameters, β, σ², the analysis' data).
    pub curves: bool,
    /// Panel 5's figure (β, σ², the analysis), and its front layer.
    pub theorem3: bool,
    /// Panel 5's front layer: CP's curve, which moves with α.
    pub theorem3_front: bool,
    /// The figures of panels 3 and 4 (the analysis' sweep, never-empty sets, size, font).
    pub sweep: bool,
    /// What α moves: the α markers over panels 3 and 4, panel 6's cells, panel 7.
    pub alpha: bool,
    /// Panel 8 (the file's statistics).
    pub data: bool,
    /// The sliders' value readouts.
    pub sliders: bool,
    /// The address (what a link holds: controls, item, data, large text).
    pub address: bool,
    /// The "Compute:" line (the GPU opened or not, a job's GPU failure).
    pub device: bool,
}

impl Dirty {
    pub const ALL: Dirty = Dirty {
        curves: true,
        theorem3: true,
        theorem3_front: true,
        sweep: true,
        alpha: true,
        data: true,
        sliders: true,
        address: true,
        device: true,
    };

    pub fn any(self) -> bool {
        self != Dirty::default()
    }

    /// Whether this render may change the page's layout: anything but an α move, the sliders'
    /// readouts and the address (panel 9's canvas must then be sized to its box again).
    pub fn moves_layout(self) -> bool {
        self.curves || self.sweep || self.data || self.theorem3 || self.device
    }

    /// What the controls changing from `old` to `new` (with `impact`, `old.impact(new)`) redraws.
    pub fn for_change(old: &Controls, new: &Controls, impact: &Impact) -> Dirty {
        // α moves only panel 5 among the closed forms: panel 2's z_β is a root over every
        // candidate of a score file, too slow to redo under the α slider.
        // "Whole curve" only frames panel 2 anew.
        let moved = impact.reanalyse || old.beta != new.beta || old.sigma2 != new.sigma2;
        let curves = (impact.curves && moved) || old.whole_curve != new.whole_curve;
        Dirty {
            curves,
            theorem3: curves || old.cut != new.cut,
            theorem3_front: impact.curves,
            sweep: old.never_empty != new.never_empty,
            alpha: impact.alpha,
            data: false,
            sliders: true,
            address: true,
            device: false,
        }
    }

    /// Both sets of flags.
    pub fn or(self, o: Dirty) -> Dirty {
        Dirty {
            curves: self.curves || o.curves,
            theorem3: self.theorem3 || o.theorem3,
            theorem3_front: self.theorem3_front || o.theorem3_front,
            sweep: self.sweep || o.sweep,
            alpha: self.alpha || o.alpha,
            data: self.data || o.data,
            sliders: self.sliders || o.sliders,
            address: self.address || o.address,
            device: self.device || o.device,
        }
    }
}

#[cfg(test)]
mod tests;
