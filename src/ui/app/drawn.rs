//! The page as drawn: what is dirty, the frame loop's flags, each figure's frame and figure as
//! last drawn, and what the α tables and the inspector show (so that an α move rewrites only
//! what changed).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::draw::table::ShownTables;
use rvalue_model::figure::inspector::RankingColumn;
use rvalue_model::figure::Figure;
use rvalue_model::page::Dirty;
use rvalue_plot::Frame;

pub(super) struct Drawn {
    dirty: Dirty,
    frame_requested: bool,
    /// Whether the first animation frame (which only draws) has run.
    first_frame_done: bool,
    /// Whether a figure has been drawn yet (the `rvalue:first-panel` performance mark).
    first_panel: Cell<bool>,
    /// Panels 3 and 4's frames as last drawn (what their α overlays are drawn against).
    alpha_frames: [Option<Frame>; 2],
    /// Panel 5's frame as last drawn.
    theorem3_frame: Option<Frame>,
    /// Panel 7's columns as on the page, so an α move rewrites only what changed.
    inspector: Vec<RankingColumn>,
    /// The α tables of panels 6 and 9 as last written (an α move rewrites what changed).
    tables: ShownTables,
    /// Panel 9's canvas between renders.
    classes_canvas: ClassesCanvas,
    /// Each canvas' figure as last drawn, by canvas id (what its SVG export draws again).
    figures: RefCell<HashMap<&'static str, Figure>>,
}

impl Drawn {
    pub(super) fn new() -> Drawn {
        Drawn {
            dirty: Dirty::ALL,
            frame_requested: false,
            first_frame_done: false,
            first_panel: Cell::new(false),
            alpha_frames: [None, None],
            theorem3_frame: None,
            inspector: Vec::new(),
            tables: ShownTables::default(),
            classes_canvas: ClassesCanvas::default(),
            figures: RefCell::default(),
        }
    }

    /// What to redraw, to be changed by an event.
    pub(super) fn dirty(&mut self) -> &mut Dirty {
        &mut self.dirty
    }

    /// What is to be redrawn.
    pub(super) fn pending(&self) -> Dirty {
        self.dirty
    }

    pub(super) fn is_dirty(&self) -> bool {
        self.dirty.any()
    }

    /// Everything is to be redrawn.
    pub(super) fn all_dirty(&mut self) {
        self.dirty = Dirty::ALL;
    }

    /// What is dirty, taken for a render (nothing is after).
    pub(super) fn take_dirty(&mut self) -> Dirty {
        std::mem::take(&mut self.dirty)
    }

    /// Asks for a frame; false if one is already asked for.
    pub(super) fn request_frame(&mut self) -> bool {
        !std::mem::replace(&mut self.frame_requested, true)
    }

    /// The frame asked for runs; whether it is the first.
    pub(super) fn frame_runs(&mut self) -> bool {
        self.frame_requested = false;
        !std::mem::replace(&mut self.first_frame_done, true)
    }

    pub(super) fn frame_pending(&self) -> bool {
        self.frame_requested
    }

    /// A figure is drawn: whether it is the page's first.
    pub(super) fn first_figure(&self) -> bool {
        !self.first_panel.replace(true)
    }

    pub(super) fn alpha_frame(&self, i: usize) -> Option<&Frame> {
        self.alpha_frames[i].as_ref()
    }

    pub(super) fn set_alpha_frame(&mut self, i: usize, frame: Option<Frame>) {
        self.alpha_frames[i] = frame;
    }

    pub(super) fn theorem3_frame(&self) -> Option<&Frame> {
        self.theorem3_frame.as_ref()
    }

    pub(super) fn set_theorem3_frame(&mut self, frame: Option<Frame>) {
        self.theorem3_frame = frame;
    }

    /// Panel 7's columns as on the page.
    pub(super) fn inspector(&self) -> &[RankingColumn] {
        &self.inspector
    }

    pub(super) fn set_inspector(&mut self, columns: Vec<RankingColumn>) {
        self.inspector = columns;
    }

    pub(super) fn tables(&self) -> &ShownTables {
        &self.tables
    }

    pub(super) fn classes_canvas(&self) -> &ClassesCanvas {
        &self.classes_canvas
    }

    /// Keeps `fig`, as drawn on the canvas `id`, for the SVG export.
    pub(super) fn keep(&self, id: &'static str, fig: Figure) {
        self.figures.borrow_mut().insert(id, fig);
    }

    /// Forgets the canvas `id`'s figure.
    pub(super) fn forget(&self, id: &str) {
        self.figures.borrow_mut().remove(id);
    }

    /// The canvas `id`'s figure as last drawn.
    pub(super) fn figure(&self, id: &str) -> Option<Figure> {
        self.figures.borrow().get(id).cloned()
    }

    /// Calls `f` with the canvas `id`'s figure as last drawn, if any.
    pub(super) fn with_figure(&self, id: &str, f: impl FnOnce(&Figure)) {
        if let Some(fig) = self.figures.borrow().get(id) {
            f(fig);
        }
    }

    pub(super) fn has_figure(&self, id: &str) -> bool {
        self.figures.borrow().contains_key(id)
    }
}

/// What an α move needs to know of panel 9's canvas to redraw it without reading the layout.
#[derive(Default)]
pub(super) struct ClassesCanvas {
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
    pub(super) fn sized(&self) -> bool {
        self.sized.get()
    }

    pub(super) fn set_sized(&self, sized: bool) {
        self.sized.set(sized);
    }

    pub(super) fn skipped(&self) -> bool {
        self.skipped.get()
    }

    pub(super) fn set_skipped(&self, skipped: bool) {
        self.skipped.set(skipped);
    }

    pub(super) fn set_stale(&self, stale: bool) {
        self.stale.set(stale);
    }

    /// Whether it showed an older figure (it is then drawn, so no longer does).
    pub(super) fn take_stale(&self) -> bool {
        self.stale.replace(false)
    }
}
