//! The page's state and its loop: controls in, one analysis job stepped across animation
//! frames, panels out. All maths is the core's and every decision the model's
//! ([`rvalue_model::page`]: what a change recomputes and redraws, how a job starts and steps);
//! the app holds the browser's handles and applies them.
//!
//! The state is in owned parts, each in its own file, whose fields only it sees:
//! - `source`: the model's data source over the page's streamed files;
//! - `shown`: the analysis on show, its α tables;
//! - `compute`: the model's jobs (running or awaiting, the status line), the GPU, the workers;
//! - `framing`: the embed, the look, large text, the tour's step;
//! - `drawn`: what is dirty, the frames, figures and tables as drawn.
//!
//! What the app does with them:
//! - `startup`: start-up, the panic banner;
//! - `form`: the controls ↔ the inputs, read and written through the model's `inputs`;
//! - `job`: the analysis job started, sliced per frame, finished; its progress and status;
//! - `shares`: a streamed file's shares the page reads itself;
//! - `frame`: the frame loop, and how an event's change reaches the page;
//! - `wiring`: the page's events;
//! - `replies`: what arrives between frames (files, the GPU's answers, workers' replies);
//! - `panels`: each panel's drawing;
//! - `export`: the panels' export buttons;
//! - `tour`: the guided tour's card, its steps and keys.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::Document;

use crate::ui::permalink::Link;
use rvalue_model::ids;
use rvalue_model::page::{Drawn, Framing, Shown};
use rvalue_model::{Analysis, Controls};
use rvalue_plot::Frame;

mod compute;
mod draw;
mod export;
mod form;
mod frame;
mod job;
mod replies;
mod shares;
mod source;
mod startup;
mod tour;
mod wiring;

pub use startup::{start, start_with};

/// Panel 5's overlay canvas (its figure's front layer).
const THEOREM3_FRONT: &str = ids::PLOT_THEOREM3_ALPHA;

/// Panels 3 and 4: the figure's canvas and the α overlay stacked on it.
const ALPHA_PLOTS: [(&str, &str, bool); 2] =
    [(ids::PLOT_COVERAGE, ids::PLOT_COVERAGE_ALPHA, true), (ids::PLOT_SIZE, ids::PLOT_SIZE_ALPHA, false)];

pub struct App {
    doc: Document,
    controls: Controls,
    /// The inspector's test item.
    item: usize,
    source: source::DataSource,
    shown: Shown,
    compute: compute::Compute,
    framing: Framing,
    drawn: Drawn<Frame>,
    /// The address kept in step with the state (none when started by a test).
    link: Option<Link>,
    /// This app, for the callbacks of what arrives later: the GPU's answers, workers' replies.
    me: std::rc::Weak<RefCell<App>>,
}

pub type Shared = Rc<RefCell<App>>;

impl App {
    pub fn controls(&self) -> &Controls {
        &self.controls
    }

    /// The analysis on show (possibly a partial one of a running toy job).
    pub fn analysis(&self) -> Option<&Analysis> {
        self.shown.get()
    }

    /// Changes whenever another analysis is put on show.
    pub fn analysis_id(&self) -> u64 {
        self.shown.generation()
    }

    pub fn is_running(&self) -> bool {
        self.compute.is_running()
    }

    /// Whether a frame is scheduled (something still to draw).
    pub fn frame_pending(&self) -> bool {
        self.drawn.frame_pending()
    }
}
