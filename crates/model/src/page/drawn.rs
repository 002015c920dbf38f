//! The page as drawn: what is dirty, the frame loop's flags, each figure's frame (`F`, the
//! drawing layer's data-to-pixel mapping) and figure as last drawn, and what the α tables and
//! the inspector show (so that an α move rewrites only what changed).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::Dirty;
use crate::figure::inspector::RankingColumn;
use crate::figure::tables::TableRow;
use crate::figure::Figure;

pub struct Drawn<F> {
    dirty: Dirty,
    frame_requested: bool,
    /// Whether the first animation frame (which only draws) has run.
    first_frame_done: bool,
    /// Whether a figure has been drawn yet (the `rvalue:first-panel` performance mark).
    first_panel: Cell<bool>,
    /// Panels 3 and 4's frames as last drawn (what their α overlays are drawn against).
    alpha_frames: [Option<F>; 2],
    /// Panel 5's frame as last drawn.
    theorem3_frame: Option<F>,
    /// Panel 7's columns as on the page, so an α move rewrites only what changed.
    inspector: Vec<RankingColumn>,
    /// The α tables of panels 6 and 9 as last written (an α move rewrites what changed).
    tables: Tables,
    /// Panel 9's canvas between renders.
    classes_canvas: ClassesCanvas,
    /// Each canvas' figure as last drawn, by canvas id (what its SVG export draws again).
    figures: RefCell<HashMap<&'static str, Figure>>,
}

impl<F> Default for Drawn<F> {
    fn default() -> Drawn<F> {
        Drawn::new()
    }
}

impl<F> Drawn<F> {
    pub fn new() -> Drawn<F> {
        Drawn {
            dirty: Dirty::ALL,
            frame_requested: false,
            first_frame_done: false,
            first_panel: Cell::new(false),
            alpha_frames: [None, None],
            theorem3_frame: None,
            inspector: Vec::new(),
            tables: Tables::default(),
            classes_canvas: ClassesCanvas::default(),
            figures: RefCell::default(),
        }
    }

    /// What to redraw, to be changed by an event.
    pub fn dirty(&mut self) -> &mut Dirty {
        &mut self.dirty
    }

    /// What is to be redrawn.
    pub fn pending(&self) -> Dirty {
        self.dirty
    }

    pub fn is_dirty(&self) -> bool {
        self.dirty.any()
    }

    /// Everything is to be redrawn.
    pub fn all_dirty(&mut self) {
        self.dirty = Dirty::ALL;
    }

    /// What is dirty, taken for a render (nothing is after).
    pub fn take_dirty(&mut self) -> Dirty {
        std::mem::take(&mut self.dirty)
    }

    /// Asks for a frame; false if one is already asked for.
    pub fn request_frame(&mut self) -> bool {
        !std::mem::replace(&mut self.frame_requested, true)
    }

    /// The frame asked for runs; whether it is the first.
    pub fn frame_runs(&mut self) -> bool {
        self.frame_requested = false;
        !std::mem::replace(&mut self.first_frame_done, true)
    }

    pub fn frame_pending(&self) -> bool {
        self.frame_requested
    }

    /// A figure is drawn: whether it is the page's first.
    pub fn first_figure(&self) -> bool {
        !self.first_panel.replace(true)
    }

    pub fn alpha_frame(&self, i: usize) -> Option<&F> {
        self.alpha_frames[i].as_ref()
    }

    pub fn set_alpha_frame(&mut self, i: usize, frame: Option<F>) {
        self.alpha_frames[i] = frame;
    }

    pub fn theorem3_frame(&self) -> Option<&F> {
        self.theorem3_frame.as_ref()
    }

    pub fn set_theorem3_frame(&mut self, frame: Option<F>) {
        self.theorem3_frame = frame;
    }

    /// Panel 7's columns as on the page.
    pub fn inspector(&self) -> &[RankingColumn] {
        &self.inspector
    }

    pub fn set_inspector(&mut self, columns: Vec<RankingColumn>) {
        self.inspector = columns;
    }

    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    pub fn classes_canvas(&self) -> &ClassesCanvas {
        &self.classes_canvas
    }

    /// Keeps `fig`, as drawn on the canvas `id`, for the SVG export (moved, not copied: this
    /// runs on slider moves).
    pub fn keep(&self, id: &'static str, fig: Figure) {
        self.figures.borrow_mut().insert(id, fig);
    }

    /// Forgets the canvas `id`'s figure.
    pub fn forget(&self, id: &str) {
        self.figures.borrow_mut().remove(id);
    }

    /// The canvas `id`'s figure as last drawn.
    pub fn figure(&self, id: &str) -> Option<Figure> {
        self.figures.borrow().get(id).cloned()
    }

    /// Calls `f` with the canvas `id`'s figure as last drawn, if any.
    pub fn with_figure(&self, id: &str, f: impl FnOnce(&Figure)) {
        if let Some(fig) = self.figures.borrow().get(id) {
            f(fig);
        }
    }

    pub fn has_figure(&self, id: &str) -> bool {
        self.figures.borrow().contains_key(id)
    }
}

/// What the page last wrote in one place, kept so that a redraw compares in memory rather than
/// reading the page back.
#[derive(Default)]
pub struct Written<T>(RefCell<T>);

impl<T: PartialEq> Written<T> {
    /// Calls `write(old, new)` when `new` differs from what was last written (`old`), then
    /// keeps `new`; a `new` equal to it writes nothing.
    pub fn update(&self, new: T, write: impl FnOnce(&T, &T)) {
        let mut shown = self.0.borrow_mut();
        if *shown != new {
            write(&shown, &new);
            *shown = new;
        }
    }
}

/// What the page's α tables show: panel 6's two, panel 9's set-size strata (its head too) and
/// its worst classes, as (class, line).
#[derive(Default)]
pub struct Tables {
    pub summary: Written<Vec<TableRow>>,
    pub conditional: Written<Vec<TableRow>>,
    pub strata: Written<Vec<TableRow>>,
    pub strata_head: Written<String>,
    pub worst: Written<Vec<(usize, String)>>,
}

/// What an α move needs to know of panel 9's canvas to redraw it without reading the layout.
#[derive(Default)]
pub struct ClassesCanvas {
    /// Whether it is sized to its box as laid out now: set when a render sized it, cleared by any
    /// render that may change the layout (anything but an α move).
    sized: Cell<bool>,
    /// Whether the panel is off screen, not rendered by the browser (its content-visibility):
    /// then an α move keeps its figure for later instead of drawing it.
    skipped: Cell<bool>,
    /// Whether it shows an older figure than the one kept for it.
    stale: Cell<bool>,
}

impl ClassesCanvas {
    pub fn sized(&self) -> bool {
        self.sized.get()
    }

    pub fn set_sized(&self, sized: bool) {
        self.sized.set(sized);
    }

    pub fn skipped(&self) -> bool {
        self.skipped.get()
    }

    pub fn set_skipped(&self, skipped: bool) {
        self.skipped.set(skipped);
    }

    pub fn set_stale(&self, stale: bool) {
        self.stale.set(stale);
    }

    /// Whether it showed an older figure (it is then drawn, so no longer does).
    pub fn take_stale(&self) -> bool {
        self.stale.replace(false)
    }
}

#[cfg(test)]
mod tests;
