//! The page's state and its loop: controls in, one analysis job stepped across animation
//! frames, panels out. All maths is the core's ([`rvalue_model`]); the app decides what to
//! recompute when a control moves (via [`Controls::impact`]) and what to redraw.
//!
//! - `startup`: start-up, the panic banner;
//! - `form`: the controls ↔ the inputs, and what a change recomputes;
//! - `job`: the analysis job, its progress and status;
//! - `frame`: the frame loop, and how an event's change reaches the page;
//! - `wiring`: the page's events;
//! - `replies`: what arrives between frames (files, the GPU's answers, workers' replies);
//! - `panels`: each panel's drawing;
//! - `export`: the panels' export buttons;
//! - `tour`: the guided tour's card, its steps and keys.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use web_sys::Document;

use crate::ui::device::{Device, JobGpu};
use crate::ui::figure::{Figure, Frame};
use crate::ui::panels::RankingColumn;
use crate::ui::permalink::Link;
use crate::ui::streamed::Streamed;
use crate::ui::workers::Pool;
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::Dataset;
use rvalue_model::panel::Panel;
use rvalue_model::url::{DataRef, View};
use rvalue_model::{scales, AlphaView, Analysis, AnalysisJob, Controls, DataSummary};

mod draw;
mod export;
mod form;
mod frame;
mod job;
mod long;
mod replies;
mod shares;
mod startup;
mod tour;
mod wiring;

// The tests deliver files as the page does.
#[cfg(test)]
pub(super) use replies::file_sink;
pub use startup::{start, start_with};

struct Loaded {
    name: String,
    data: Held,
    /// Calibration units given as their true label's draws alone: the analysis calibrates on
    /// them, and `data`'s items are all test items.
    pool: Option<Arc<TrueDraws>>,
    /// Panel 8's statistics (of a file the page holds).
    summary: Option<DataSummary>,
    /// The names an `.npz` gives its classes (member `class_names`).
    class_names: Option<Vec<String>>,
}

/// A score file as the page has it: held whole, or read a block at a time.
enum Held {
    Whole(Arc<Dataset>),
    Streamed(Streamed),
}

impl Held {
    /// Items `N`.
    fn n(&self) -> usize {
        match self {
            Held::Whole(d) => d.scores.n(),
            Held::Streamed(s) => s.info.layout.shape().0,
        }
    }
}

struct Running {
    job: AnalysisJob,
    started: f64,
    what: String,
    /// Toy repeats shown so far as a partial analysis, and when.
    shown_parts: usize,
    shown_at: f64,
    gpu: JobGpu,
    /// Numbers jobs for the workers: a repeat that comes back after its job was replaced is
    /// dropped.
    serial: u64,
    /// Repeats computed by workers.
    from_workers: usize,
    /// The time the page said the job would take, when it said one (seconds).
    estimate: Option<f64>,
    /// When the progress bar and status line were last written, and for which analysis on show.
    progress_written: Option<(f64, u64)>,
}

#[derive(Default, Clone, Copy)]
struct Dirty {
    /// Panels 1 and 2 (toy parameters, β, σ², the analysis' data).
    curves: bool,
    /// Panel 5's figure (β, σ², the analysis), and its front layer.
    theorem3: bool,
    /// Panel 5's front layer: CP's curve, which moves with α.
    theorem3_front: bool,
    /// The figures of panels 3 and 4 (the analysis' sweep, never-empty sets, size, font).
    sweep: bool,
    /// What α moves: the α markers over panels 3 and 4, panel 6's cells, panel 7.
    alpha: bool,
    data: bool,
    /// The sliders' value readouts.
    sliders: bool,
    /// The address (what a link holds: controls, item, data, large text).
    address: bool,
    /// The "Compute:" line (the GPU opened or not, a job's GPU failure).
    device: bool,
}

impl Dirty {
    const ALL: Dirty = Dirty {
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

    fn any(self) -> bool {
        self.curves
            || self.theorem3
            || self.theorem3_front
            || self.sweep
            || self.alpha
            || self.data
            || self.sliders
            || self.address
            || self.device
    }
}

/// Panel 5's overlay canvas (its figure's front layer).
const THEOREM3_FRONT: &str = "plot-theorem3-alpha";

/// Panels 3 and 4: the figure's canvas and the α overlay stacked on it.
const ALPHA_PLOTS: [(&str, &str, bool); 2] =
    [("plot-coverage", "plot-coverage-alpha", true), ("plot-size", "plot-size-alpha", false)];

pub struct App {
    doc: Document,
    controls: Controls,
    data: Option<Loaded>,
    analysis: Option<Analysis>,
    /// What the shown analysis is of, for the status line.
    analysis_what: String,
    /// The last finished analysis while a partial one is shown (what cancelling brings back).
    previous: Option<(Analysis, String)>,
    running: Option<Running>,
    /// A long analysis (pooled CP_r on a streamed file) said and waiting for the reader's Start
    /// or Cancel, with what it is of.
    awaiting: Option<(AnalysisJob, String)>,
    /// The inspector's item being read from a streamed file: `(analysis generation, item)`.
    reading_item: Option<(u64, usize)>,
    item: usize,
    dirty: Dirty,
    frame_requested: bool,
    large_text: bool,
    status: String,
    /// What the status line says, for scripts and tests (`#status`'s `data-state`), unless a job
    /// runs ("running"): "ready" (the analysis asked for is on show), "note" (none can be run:
    /// no file, or a choice the data cannot take), "cancelled", "failed" (the previous results
    /// stay on show, the error says why) or "idle" (an embedded panel with nothing to compute).
    state: &'static str,
    /// Counts the analyses shown, so a caller can tell whether one was replaced.
    generation: u64,
    /// The table at each α slider position (`[never_empty][position − 1]`) for the analysis on
    /// show: filled in idle frames, so that moving α is a lookup.
    alpha_views: [Vec<Option<AlphaView>>; 2],
    /// Panels 3 and 4's frames as last drawn (what their α overlays are drawn against).
    alpha_frames: [Option<Frame>; 2],
    /// Panel 5's frame as last drawn.
    theorem3_frame: Option<Frame>,
    /// Panel 7's columns as on the page, so an α move rewrites only what changed.
    inspector: Vec<RankingColumn>,
    /// Whether a figure has been drawn yet (the `rvalue:first-panel` performance mark).
    first_panel: std::cell::Cell<bool>,
    /// Whether the first animation frame (which only draws) has run.
    first_frame_done: bool,
    /// Where the score file came from (what a link can say about it).
    data_ref: DataRef,
    /// The one panel shown (`?embed=`).
    embed: Option<Panel>,
    /// The guided tour's step on show, from 1 (`?tour=N`).
    tour: Option<usize>,
    /// The tour's step alone in a frame (`?embed=tour`).
    tour_alone: bool,
    /// The look the link asked for: theme, background, a figure-only embed and its sliders.
    view: View,
    /// Whether the reader has done what the step proposes.
    tour_tried: bool,
    /// Whether the state the step opened with had it done already (a link can), once known: then
    /// no confirmation is due.
    tour_done_on_arrival: Option<bool>,
    /// The per-class step: the marginal analysis' view at α, what per-class thresholds are
    /// compared with.
    tour_baseline: Option<AlphaView>,
    /// The address kept in step with the state (none when started by a test).
    link: Option<Link>,
    /// The item a link asked for, applied once its file (sample or upload) is loaded.
    pending_item: Option<usize>,
    /// Where the σ² marker starts on a file.
    sigma2: Sigma2Start,
    /// Where CP_r's ranks are computed (GPU or CPU).
    device: Device,
    /// The Web Workers that compute toy repeats beside the page's thread.
    pool: Pool,
    /// Jobs started so far.
    jobs: u64,
    /// This app, for the callbacks of what arrives later: the GPU's answers, workers' replies.
    me: std::rc::Weak<RefCell<App>>,
    /// The α tables of panels 6 and 9 as last written (an α move rewrites what changed).
    tables: draw::table::ShownTables,
    /// Panel 9's canvas between renders.
    classes_canvas: ClassesCanvas,
    /// Each canvas' figure as last drawn, by canvas id (what its SVG export draws again).
    figures: RefCell<std::collections::HashMap<&'static str, Figure>>,
}

/// What an α move needs to know of panel 9's canvas to redraw it without reading the layout.
#[derive(Default)]
struct ClassesCanvas {
    /// Whether it is sized to its box as laid out now: set when a render sized it, cleared by any
    /// render that may change the layout (anything but an α move).
    sized: std::cell::Cell<bool>,
    /// Whether the panel is off screen, not rendered by the browser (its content-visibility):
    /// then an α move keeps its figure for later instead of drawing it.
    skipped: std::cell::Cell<bool>,
    /// Whether it shows an older figure than the one kept for it.
    stale: std::cell::Cell<bool>,
}

fn empty_alpha_views() -> [Vec<Option<AlphaView>>; 2] {
    let n = (scales::ALPHA_POSITIONS.1 - scales::ALPHA_POSITIONS.0 + 1) as usize;
    [vec![None; n], vec![None; n]]
}

pub type Shared = Rc<RefCell<App>>;

impl App {
    pub fn controls(&self) -> &Controls {
        &self.controls
    }

    /// The analysis on show (possibly a partial one of a running toy job).
    pub fn analysis(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// Changes whenever another analysis is put on show.
    pub fn analysis_id(&self) -> u64 {
        self.generation
    }

    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Whether a frame is scheduled (something still to draw).
    pub fn frame_pending(&self) -> bool {
        self.frame_requested
    }
}

/// Where the σ² marker starts on a score file: at the data's median variance, unless a link set it.
#[derive(Debug, Clone, Copy, Default)]
struct Sigma2Start {
    /// A link's σ², kept for the file the link names (its first load) instead of the data's.
    from_link: bool,
    /// Move the marker to the data's median variance when this file's analysis is done.
    from_data: bool,
}
