//! The page's state and its loop: controls in, one analysis job stepped across animation
//! frames, panels out. All maths is the core's ([`rvalue_model`]); this file decides what to
//! recompute when a control moves (via [`Controls::impact`]) and what to redraw.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlCanvasElement, HtmlProgressElement};

use super::canvas;
use super::device::{self, Device, JobGpu};
use super::dom::{
    self, by_id, checked, esc, number, select, set_checked, set_hidden, set_html, set_text, set_value,
};
use super::figure::{Figure, Frame, Layer};
use super::panels::{self, RankingColumn};
use super::permalink::{self, Link};
use super::workers::{self, Pool};
use super::{embed, files};
use rvalue_core::conformal::pool::TruePool;
use rvalue_core::conformal::RvalueKind;
use rvalue_core::io::Dataset;
use rvalue_core::{Error, Result};
use rvalue_model::scales::{self, short};
use rvalue_model::url::{DataRef, Panel, UrlState};
use rvalue_model::{
    default_score_xs, inclusion_curves, panel_betas, score_densities, threshold_curves,
    threshold_curves_with, threshold_inputs, AlphaView, Analysis, AnalysisJob, Controls, DataSummary,
    InclusionInputs, Mode, Progress, Source,
};

mod export;

/// Work per animation frame: the page stays responsive between slices.
const FRAME_BUDGET_MS: f64 = 30.0;
/// Histogram bins of panel 8.
const VARIANCE_BINS: usize = 40;
/// Points per curve of panels 1, 2 and 5.
const CURVE_POINTS: usize = 200;

struct Loaded {
    name: String,
    data: Arc<Dataset>,
    /// Calibration units given as their true label's draws alone: the analysis calibrates on
    /// them, and `data`'s items are all test items.
    pool: Option<Arc<TruePool>>,
    summary: DataSummary,
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
    /// When the progress bar and status line were last written, and for which analysis on show.
    progress_written: Option<(f64, u64)>,
}

/// How often a running toy analysis refreshes the panels with the repeats done so far.
const PARTIAL_EVERY_MS: f64 = 400.0;
/// How often a running job's progress bar and status line are written.
const PROGRESS_EVERY_MS: f64 = 100.0;

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
    /// The address kept in step with the state (none when started by a test).
    link: Option<Link>,
    /// The item a link asked for, applied once its file (sample or upload) is loaded.
    pending_item: Option<usize>,
    /// Where CP_r's ranks are computed (GPU or CPU).
    device: Device,
    /// The Web Workers that compute toy repeats beside the page's thread.
    pool: Pool,
    /// Jobs started so far.
    jobs: u64,
    /// This app, for the callbacks of what arrives later: the GPU's answers, workers' replies.
    me: std::rc::Weak<RefCell<App>>,
    /// Each canvas' figure as last drawn, by canvas id (what its SVG export draws again).
    figures: RefCell<std::collections::HashMap<&'static str, Figure>>,
}

fn empty_alpha_views() -> [Vec<Option<AlphaView>>; 2] {
    let n = (scales::ALPHA_POSITIONS.1 - scales::ALPHA_POSITIONS.0 + 1) as usize;
    [vec![None; n], vec![None; n]]
}

pub type Shared = Rc<RefCell<App>>;

/// Starts the explorer on the current page with the settings in its address (defaults for
/// what it does not say), and keeps the address in step.
pub fn start() -> Result<Shared> {
    let restored = permalink::read();
    let link = Some(Link::new(permalink::search()));
    launch(restored.state, &restored.warnings, link, restored.gpu_switch, restored.workers_switch)
}

/// Starts the explorer on the current page with `controls` (checked first).
pub fn start_with(controls: Controls) -> Result<Shared> {
    launch(UrlState::with_controls(controls), &[], None, None, None)
}

/// Starts the explorer with `state`, showing `warnings` about the address it came from.
/// `gpu_switch`: the address' GPU test switch (`explorer::url::Restored::gpu_switch`).
fn launch(
    state: UrlState,
    warnings: &[String],
    link: Option<Link>,
    gpu_switch: Option<String>,
    workers_switch: Option<String>,
) -> Result<Shared> {
    let UrlState { controls, item, data, embed, large_text } = state;
    controls.validate()?;
    mark_start();
    install_panic_hook();
    let doc = dom::document()?;
    let app = Rc::new(RefCell::new(App {
        doc: doc.clone(),
        controls,
        data: None,
        analysis: None,
        analysis_what: String::new(),
        previous: None,
        running: None,
        item,
        dirty: Dirty::ALL,
        frame_requested: false,
        large_text,
        status: String::new(),
        state: "idle",
        generation: 0,
        alpha_views: empty_alpha_views(),
        alpha_frames: [None, None],
        theorem3_frame: None,
        inspector: Vec::new(),
        first_panel: std::cell::Cell::new(false),
        first_frame_done: false,
        pending_item: (data != DataRef::None).then_some(item),
        data_ref: data.clone(),
        embed,
        link,
        device: Device::new(),
        pool: Pool::new(workers_switch),
        jobs: 0,
        me: std::rc::Weak::new(),
        figures: Default::default(),
    }));
    {
        let mut a = app.borrow_mut();
        a.me = Rc::downgrade(&app);
        if let Some(p) = embed {
            // Before anything is drawn: hidden panels then draw nothing.
            embed::apply(&doc, p);
        }
        a.show_link_notes(warnings);
        set_checked(&doc, "large-text", large_text);
        if let Some(b) = doc.body().filter(|_| large_text) {
            let _ = b.class_list().add_1("large");
        }
        a.write_controls();
        a.show_mode();
        a.start_job();
    }
    let me = Rc::downgrade(&app);
    device::open(gpu_switch, move |opened| {
        if let Some(app) = me.upgrade() {
            with(&app, |a| {
                a.device.opened(opened);
                a.dirty.device = true;
            });
        }
    });
    wire(&app)?;
    if let Some(p) = embed {
        embed::post_heights(&doc, p);
    }
    if let DataRef::Sample(name) = data {
        files::load_named(&file_sink(&app), name);
    }
    request_frame(&app);
    Ok(app)
}

/// For the benchmark's cold load: the wasm is loaded and the app starts.
fn mark_start() {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark("rvalue:start");
    }
}

/// A panic shows a banner instead of leaving a dead page. Installed once: `set_hook` itself
/// panics when called after a panic.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = info.to_string();
            web_sys::console::error_1(&format!("rvalue-explorer panicked: {msg}").into());
            if let Ok(doc) = dom::document() {
                set_text(
                    &doc,
                    "panic",
                    &format!(
                    "The explorer hit an internal error and stopped ({msg}). Reload the page to start again; \
                     no data left this page."
                ),
                );
                set_hidden(&doc, "panic", false);
            }
        }))
    });
}

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

    /// What a link to the page as it is now holds.
    pub(super) fn url_state(&self) -> UrlState {
        UrlState {
            controls: self.controls.clone(),
            item: self.item,
            data: self.data_ref.clone(),
            embed: self.embed,
            large_text: self.large_text,
        }
    }

    /// The address of the page as it is now, written into the address bar at once.
    pub(super) fn link_now(&mut self) -> String {
        let query = self.url_state().to_query();
        match &mut self.link {
            Some(l) => l.now(query),
            None => permalink::url_with(&query),
        }
    }

    /// What was wrong in the address, and the note that a file from the author's machine must
    /// be loaded again.
    fn show_link_notes(&self, warnings: &[String]) {
        let mut notes: Vec<String> = warnings.iter().map(|w| format!("{w}.")).collect();
        if self.data_ref == DataRef::Upload {
            notes.push(
                "This link was made with a score file from its author's computer. Files are never put \
                 in links: load the same file (drop it on the page or choose it) to see this view."
                    .to_string(),
            );
        }
        set_text(&self.doc, "url-notes", &notes.join(" "));
        set_hidden(&self.doc, "url-notes", notes.is_empty());
    }

    /// The controls as the inputs show them.
    fn read_controls(&self) -> Result<Controls> {
        let d = &self.doc;
        let mut c = self.controls.clone();
        // A slider left where it is keeps its value: the value need not be one of its positions
        // (β = 0.1 sits at the position of 0.0988), and moving α must not change β.
        let slider = |id: &str, what: &str, value: f64, at: fn(u32) -> f64, position: fn(f64) -> u32| {
            number(d, id, what).map(|p: u32| if p == position(value) { value } else { at(p) })
        };
        c.alpha = slider("alpha", "α", c.alpha, scales::alpha_at, scales::alpha_position)?;
        c.beta = slider("beta", "β", c.beta, scales::beta_at, scales::beta_position)?;
        c.sigma2 = slider("sigma2", "σ²", c.sigma2, scales::sigma2_at, scales::sigma2_position)?;
        c.score.kind = select(d, "kind")?.value().parse()?;
        c.score.prior = select(d, "prior")?.value().parse()?;
        c.score.variance = select(d, "variance")?.value().parse()?;
        c.score.cp_draw = number(d, "cp-draw", "CP's draw")?;
        c.score.ties = select(d, "ties")?.value().parse()?;
        c.never_empty = checked(d, "never-empty")?;
        c.toy.k = number(d, "toy-k", "K")?;
        c.toy.m = number(d, "toy-m", "M")?;
        c.toy.n_cal = number(d, "toy-ncal", "n_cal")?;
        c.toy.n_test = number(d, "toy-ntest", "n_test")?;
        c.toy.repeats = number(d, "toy-repeats", "repeats")?;
        c.toy.mu_p = number(d, "toy-mup", "μp")?;
        c.toy.sigma2_p = number(d, "toy-sigma2p", "σp²")?;
        c.toy.mu_q = number(d, "toy-muq", "μq")?;
        c.toy.high_var_fraction = number(d, "toy-frac", "high-variance fraction")?;
        c.toy.seed = number(d, "toy-seed", "seed")?;
        c.splits = number(d, "splits", "random splits")?;
        c.cal_fraction = number(d, "cal-fraction", "calibration fraction")?;
        c.seed = number(d, "split-seed", "split seed")?;
        Ok(c)
    }

    /// Shows `self.controls` in the inputs.
    fn write_controls(&self) {
        let (d, c) = (&self.doc, &self.controls);
        set_value(d, "alpha", &scales::alpha_position(c.alpha).to_string());
        set_value(d, "beta", &scales::beta_position(c.beta).to_string());
        set_value(d, "sigma2", &scales::sigma2_position(c.sigma2).to_string());
        set_value(d, "kind", c.score.kind.name());
        set_value(d, "prior", c.score.prior.name());
        set_value(d, "variance", c.score.variance.name());
        set_value(d, "cp-draw", &c.score.cp_draw.to_string());
        set_value(d, "ties", c.score.ties.name());
        set_checked(d, "never-empty", c.never_empty);
        let t = &c.toy;
        for (id, v) in [
            ("toy-k", t.k.to_string()),
            ("toy-m", t.m.to_string()),
            ("toy-ncal", t.n_cal.to_string()),
            ("toy-ntest", t.n_test.to_string()),
            ("toy-repeats", t.repeats.to_string()),
            ("toy-mup", t.mu_p.to_string()),
            ("toy-sigma2p", t.sigma2_p.to_string()),
            ("toy-muq", t.mu_q.to_string()),
            ("toy-frac", t.high_var_fraction.to_string()),
            ("toy-seed", t.seed.to_string()),
            ("splits", c.splits.to_string()),
            ("cal-fraction", c.cal_fraction.to_string()),
            ("split-seed", c.seed.to_string()),
        ] {
            set_value(d, id, &v);
        }
        set_checked(d, "mode-toy", c.mode == Mode::Toy);
        set_checked(d, "mode-scores", c.mode == Mode::Scores);
        self.write_slider_values();
    }

    fn write_slider_values(&self) {
        let (d, c) = (&self.doc, &self.controls);
        set_text(d, "alpha-value", &short(c.alpha));
        set_text(d, "beta-value", &short(c.beta));
        set_text(d, "sigma2-value", &short(c.sigma2));
        for (id, v) in [("alpha", c.alpha), ("beta", c.beta), ("sigma2", c.sigma2)] {
            if let Ok(i) = dom::input(d, id) {
                let text = short(v);
                if i.get_attribute("aria-valuetext").as_deref() != Some(text.as_str()) {
                    let _ = i.set_attribute("aria-valuetext", &text);
                }
            }
        }
    }

    fn show_mode(&self) {
        let toy = self.controls.mode == Mode::Toy;
        set_hidden(&self.doc, "toy-params", !toy);
        set_hidden(&self.doc, "scores-params", toy);
        set_hidden(&self.doc, "panel-scores", !toy);
        set_hidden(&self.doc, "panel-data", toy || self.data.is_none());
        let label =
            if toy { "σ², false candidates' variance" } else { "σ², marked on the threshold curve" };
        if let Some(l) = self.doc.query_selector("label[for=sigma2]").ok().flatten() {
            l.set_text_content(Some(label));
        }
    }

    fn show_error(&self, msg: Option<&str>) {
        match msg {
            Some(m) => {
                set_text(&self.doc, "error", m);
                set_hidden(&self.doc, "error", false);
                // The message sits under the controls, below the fold of the sidebar when the toy's
                // parameters are open: bring it into view, to the middle, since the status lines
                // above it can still grow in the same frame (at the nearest edge that pushed it
                // partly out of view). Not in an embedded panel, whose frame fills its height and
                // must not scroll the host page.
                if self.embed.is_none() {
                    if let Some(e) = self.doc.get_element_by_id("error") {
                        let opts = web_sys::ScrollIntoViewOptions::new();
                        opts.set_block(web_sys::ScrollLogicalPosition::Center);
                        e.scroll_into_view_with_scroll_into_view_options(&opts);
                    }
                }
            }
            None => set_hidden(&self.doc, "error", true),
        }
    }

    /// Applies the inputs' settings: recompute what they change, redraw what depends on them.
    fn controls_changed(&mut self) {
        let new = match self.read_controls().and_then(|c| c.validate().map(|()| c)) {
            Ok(c) => c,
            Err(e) => {
                return self
                    .show_error(Some(&format!("{e}. The results shown are for the previous settings.")))
            }
        };
        self.show_error(None);
        let impact = self.controls.impact(&new);
        let never_empty_changed = self.controls.never_empty != new.never_empty;
        // α moves only panel 5 among the closed forms: panel 2's z_β is a root over every
        // candidate of a score file, too slow to redo under the α slider.
        let curves = impact.curves
            && (impact.reanalyse || self.controls.beta != new.beta || self.controls.sigma2 != new.sigma2);
        self.controls = new;
        // Written at the end of the render: a canvas' text drawing (panel 5's legend) resolves
        // style, which would be recalculated first if the page had been written to.
        self.dirty.sliders = true;
        self.dirty.address = true;
        if impact.reanalyse {
            self.start_job();
        }
        self.dirty.curves |= curves;
        self.dirty.theorem3 |= curves;
        self.dirty.theorem3_front |= impact.curves;
        self.dirty.alpha |= impact.alpha;
        self.dirty.sweep |= never_empty_changed;
    }

    fn set_mode(&mut self, mode: Mode) {
        self.controls = self.controls.for_mode(mode);
        self.write_controls();
        self.show_mode();
        self.start_job();
        self.dirty = Dirty::ALL;
    }

    /// Starts (or restarts) the analysis for the current controls; the shown one stays until
    /// it finishes. A job already running is dropped, which cancels it.
    fn start_job(&mut self) {
        self.running = None;
        if self.embed.is_some_and(|p| !p.needs_analysis(self.controls.mode)) {
            self.status.clear();
            self.state = "idle";
            return;
        }
        let data = self.data.as_ref().map(|l| l.data.clone());
        if self.controls.mode == Mode::Scores && data.is_none() {
            self.status =
                "Load a score file: drop one on the page, choose one, or pick a sample.".to_string();
            self.state = "note";
            return;
        }
        let pool =
            self.data.as_ref().and_then(|l| l.pool.clone()).filter(|_| self.controls.mode == Mode::Scores);
        if let Some(note) = pool.as_ref().and_then(|_| needs_all_candidates(self.controls.score.kind)) {
            self.status = note;
            self.state = "note";
            return;
        }
        let what = self.job_what(pool.as_deref());
        let source = Source::from_controls(&self.controls, data).map(|s| s.with_pool(pool.clone()));
        match source.and_then(|s| AnalysisJob::new(s, &self.controls)) {
            Ok(job) => {
                // Toy repeats and a score file's pooled splits can run in workers (a pool's
                // splits run in the page).
                let shared = match self.controls.mode {
                    Mode::Toy => self.controls.toy.repeats > 1,
                    Mode::Scores => {
                        self.controls.score.kind == RvalueKind::Pooled
                            && self.controls.splits > 1
                            && pool.is_none()
                    }
                };
                if shared {
                    let me = self.me.clone();
                    let on_reply: workers::OnReply = Rc::new(move |i, reply| {
                        if let Some(app) = me.upgrade() {
                            worker_replied(&app, i, reply);
                        }
                    });
                    self.pool.start(&on_reply);
                }
                self.jobs += 1;
                self.running = Some(Running {
                    job,
                    started: dom::now_ms(),
                    what,
                    shown_parts: 0,
                    shown_at: 0.0,
                    progress_written: None,
                    gpu: self.device.new_job(),
                    serial: self.jobs,
                    from_workers: 0,
                })
            }
            Err(e) => {
                self.state = "failed";
                self.show_error(Some(&format!("{e}. The results shown are for the previous settings.")))
            }
        }
    }

    /// What an analysis of the current controls is of, for the status line.
    fn job_what(&self, pool: Option<&TruePool>) -> String {
        let c = &self.controls;
        let Some(l) = self.data.as_ref().filter(|_| c.mode == Mode::Scores) else {
            return format!("toy, {} repeats", c.toy.repeats);
        };
        match pool {
            None => format!("{}, {} splits", l.name, c.splits),
            Some(p) => {
                let (cal, test) = c.pool_sizes(p.n(), l.data.scores.n());
                format!(
                    "{}, {} splits, each calibrated on {cal} of the pool's {} true-label draws and \
                     tested on all {test} items",
                    l.name,
                    c.splits,
                    p.n()
                )
            }
        }
    }

    /// Stops the running job and puts back the settings of the results on show.
    fn cancel(&mut self) {
        if self.running.take().is_none() {
            return;
        }
        if let Some((a, what)) = self.previous.take() {
            self.show_analysis(a, what);
        }
        if let Some(a) = &self.analysis {
            let (alpha, beta) = (self.controls.alpha, self.controls.beta);
            let sigma2 = if a.controls.mode == Mode::Toy { a.controls.sigma2 } else { self.controls.sigma2 };
            self.controls = Controls { alpha, beta, sigma2, ..a.controls.clone() };
            self.write_controls();
            self.show_mode();
            self.dirty = Dirty::ALL;
        }
        self.status = format!("Cancelled. Showing {}.", self.analysis_what);
        self.state = "cancelled";
    }

    /// Puts `a` on show; returns what was shown before.
    fn show_analysis(&mut self, a: Analysis, what: String) -> Option<(Analysis, String)> {
        self.generation += 1;
        self.alpha_views = empty_alpha_views();
        self.dirty = Dirty::ALL;
        let old_what = std::mem::replace(&mut self.analysis_what, what);
        self.analysis.replace(a).map(|old| (old, old_what))
    }

    /// Shows the toy repeats done so far: the first at once, then at most every
    /// [`PARTIAL_EVERY_MS`], but not when the rest should take less than half that (at the
    /// pace so far): repainting every panel then only delays the finished analysis.
    fn show_partial(&mut self, now: f64) {
        let Some(run) = self.running.as_mut() else { return };
        let (done, total) = run.job.parts();
        let left_ms = (now - run.started) * (total - done) as f64 / done.max(1) as f64;
        let due = done > run.shown_parts
            && (run.shown_parts == 0
                || (now - run.shown_at > PARTIAL_EVERY_MS && left_ms > 0.5 * PARTIAL_EVERY_MS));
        let Some(p) = due.then(|| run.job.partial()).flatten() else { return };
        let first = run.shown_parts == 0;
        (run.shown_parts, run.shown_at) = (done, now);
        let old = self.show_analysis(p, format!("toy, {done} of {total} repeats so far"));
        // The first partial result replaces a finished one: keep that for Cancel.
        if first && self.previous.is_none() {
            self.previous = old;
        }
    }

    /// Steps the job for up to one frame's budget.
    fn advance(&mut self) {
        let t0 = dom::now_ms();
        if let Some(run) = self.running.as_mut() {
            self.pool.feed(&mut run.job, run.serial);
        }
        loop {
            let Some(run) = self.running.as_mut() else { return };
            let me = self.me.clone();
            let answered = move |serial, part, answer| {
                if let Some(app) = me.upgrade() {
                    offloaded(&app, serial, part, answer);
                }
            };
            if device::offload(&self.device, &mut run.gpu, || run.job.offload(), answered) {
                self.status = format!(
                    "{} on the GPU – {:.0} %. Showing {}.",
                    run.job.describe(),
                    100.0 * run.job.fraction_done_offloaded(run.gpu.progress().unwrap_or(0.0)),
                    self.analysis_what
                );
                return;
            }
            match run.job.step() {
                // Waiting: only workers' repeats are left, and their replies come between frames.
                Ok(p @ (Progress::Working(_) | Progress::Waiting(_))) => {
                    let now = dom::now_ms();
                    self.show_partial(now);
                    let Some(run) = self.running.as_ref() else { return };
                    let working = matches!(p, Progress::Working(_));
                    if working && now - t0 < FRAME_BUDGET_MS && !self.dirty.alpha {
                        continue;
                    }
                    self.status = format!(
                        "{} – {:.0} %. Showing {}.",
                        run.job.describe(),
                        100.0 * run.job.fraction_done(),
                        self.analysis_what
                    );
                    return;
                }
                Ok(Progress::Done) => break,
                Err(e) => {
                    let what = run.what.clone();
                    self.running = None;
                    self.status = format!("Showing {}.", self.analysis_what);
                    self.state = "failed";
                    return self.show_error(Some(&format!(
                        "{what}: {e}. The results shown are for the previous settings."
                    )));
                }
            }
        }
        let Some(run) = self.running.take() else { return };
        let secs = (dom::now_ms() - run.started) / 1000.0;
        let note = match run.from_workers {
            0 => self.device.note(&run.gpu).to_string(),
            n => {
                let what = if run.job.data().is_some() { "splits" } else { "repeats" };
                format!("{}; {n} of the {what} in worker threads", self.device.note(&run.gpu))
            }
        };
        match run.job.finish() {
            Ok(a) => {
                self.item = self.item.min(a.n_inspectable().saturating_sub(1));
                self.dirty.address = true;
                self.show_analysis(a, run.what);
                self.previous = None;
                self.status = format!("Showing {} (computed in {secs:.2} s{note}).", self.analysis_what);
                self.state = "ready";
            }
            Err(e) => {
                self.state = "failed";
                self.show_error(Some(&e.to_string()));
            }
        }
    }

    fn show_progress(&mut self) {
        let generation = self.generation;
        if let Some(run) = self.running.as_mut() {
            // While a job runs its percentage changes every frame, and each write costs the
            // frame a style, layout and paint pass on a page that is all canvases: writing it
            // a few times a second frees that time for the job (and, on two cores, the
            // compositor's share for a worker). A new analysis on show is written at once.
            let now = dom::now_ms();
            if let Some((at, g)) = run.progress_written {
                if g == generation && now - at < PROGRESS_EVERY_MS {
                    return;
                }
            }
            run.progress_written = Some((now, generation));
        }
        let d = &self.doc;
        // Unchanged values are not written again (a write invalidates style).
        if let Ok(p) = by_id::<HtmlProgressElement>(d, "progress") {
            let v =
                self.running.as_ref().map_or(if self.analysis.is_some() { 1.0 } else { 0.0 }, |r| {
                    match r.gpu.progress() {
                        Some(done) => r.job.fraction_done_offloaded(done),
                        None => r.job.fraction_done(),
                    }
                });
            if p.value() != v {
                p.set_value(v);
            }
        }
        if let Ok(b) = by_id::<web_sys::HtmlButtonElement>(d, "cancel") {
            if b.disabled() != self.running.is_none() {
                b.set_disabled(self.running.is_none());
            }
        }
        set_text(d, "status", &self.status);
        dom::set_attr(d, "status", "data-state", if self.running.is_some() { "running" } else { self.state });
        // How many analyses have been put on show, so that a script can wait for a newer one.
        dom::set_attr(d, "status", "data-shown", &self.generation.to_string());
    }

    /// The "Compute:" line: the device in use, and why when it is the CPU.
    fn show_device(&self) {
        let (device, why) = self.device.describe();
        set_text(&self.doc, "device", &device);
        let threads = match self.pool.ready() {
            0 => String::new(),
            n => format!(" · repeats and pooled splits on {} threads", n + 1),
        };
        set_text(&self.doc, "threads", &threads);
        if let Some(e) = self.doc.get_element_by_id("device") {
            let _ = e.set_attribute("title", &why);
        }
    }

    /// Draws what is dirty. Figures first: drawing one afresh reads its canvas' box, which
    /// forces a layout if the DOM was written before. An α move alone draws no figure and reads
    /// no layout: it redraws the overlays of panels 3, 4 and 5 and the text that changed.
    fn render(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        if dirty.curves {
            self.render_curves();
        }
        if dirty.sweep {
            self.render_sweep();
        }
        if dirty.data {
            self.render_data();
        }
        if dirty.theorem3 || dirty.theorem3_front {
            self.render_theorem3(dirty.theorem3);
        }
        if dirty.alpha {
            self.render_alpha();
        }
        if dirty.sliders {
            self.write_slider_values();
        }
        self.show_progress();
        if dirty.device {
            self.show_device();
        }
        if dirty.address {
            let query = self.link.is_some().then(|| self.url_state().to_query());
            if let (Some(link), Some(q)) = (&mut self.link, query) {
                link.update(q);
            }
        }
    }

    fn font(&self) -> f64 {
        if self.large_text {
            19.0
        } else {
            13.0
        }
    }

    /// Draws `fig` (or one layer of it) on the canvas `id` sized to its box; its frame.
    fn draw_sized(&self, id: &str, fig: &Figure, layer: Layer) -> Option<Frame> {
        match canvas::draw_figure(&self.doc, id, fig, layer, self.font()) {
            Ok(frame) => {
                if frame.is_some() && !self.first_panel.replace(true) {
                    // For the benchmark's cold load: the first figure is on its canvas.
                    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
                        let _ = p.mark("rvalue:first-panel");
                    }
                }
                frame
            }
            Err(e) => {
                web_sys::console::warn_1(&format!("#{id}: {e}").into());
                None
            }
        }
    }

    /// Draws `fig` whole on the canvas `id` and keeps it for the SVG export.
    fn draw(&self, id: &'static str, fig: Figure) {
        if self.draw_sized(id, &fig, Layer::Whole).is_some() {
            self.keep(id, fig);
        }
    }

    /// Keeps `fig`, as drawn on the canvas `id`, for the SVG export (moved, not copied: this
    /// runs on slider moves).
    fn keep(&self, id: &'static str, fig: Figure) {
        self.figures.borrow_mut().insert(id, fig);
    }

    /// Panels 1 and 2: closed forms of the controls (and the analysis' data points).
    fn render_curves(&self) {
        let c = &self.controls;
        let d = &self.doc;
        if c.mode == Mode::Toy {
            let p = c.toy_params();
            match score_densities(&p, &default_score_xs(&p, CURVE_POINTS)) {
                Ok(s) => {
                    set_text(d, "pqp", &format!("{} %", scales::fixed(100.0 * s.prob_q_exceeds_p, 2)));
                    set_text(d, "pqp-note", &s.note);
                    self.draw("plot-scores", panels::scores(&s));
                }
                Err(e) => set_text(d, "pqp-note", &panels::sentence(&e)),
            }
        }
        self.render_threshold();
    }

    /// Panel 2: the threshold curves, zoomed on their dip unless "Whole curve" is ticked, or a
    /// sentence saying why there is none.
    fn render_threshold(&self) {
        let (c, d) = (&self.controls, &self.doc);
        let grid = panels::sigma2_axis(CURVE_POINTS);
        let analysis = self.analysis.as_ref().filter(|a| a.controls.mode == c.mode);
        let points = analysis.map(|a| a.data_points()).unwrap_or_default();
        let betas = panel_betas(c.beta);
        let curves = match (c.mode, analysis) {
            (Mode::Scores, None) => return self.no_threshold(self.waiting_for_scores(false)),
            (Mode::Scores, Some(a)) => match a.hyper() {
                None => return self.no_threshold(panels::placeholder::THRESHOLD_NO_PRIOR),
                Some(h) => threshold_curves_with(Some(h), |b| a.z_model(b), &betas, &grid, c.sigma2),
            },
            _ => threshold_inputs(c, analysis)
                .and_then(|(h, s)| threshold_curves(Some(h), &s, &betas, &grid, c.sigma2)),
        };
        let t = match curves {
            Ok(t) => t,
            Err(e) => return self.no_threshold(&panels::sentence(&e)),
        };
        let (Some(h), Some(s)) = (t.hyper, t.series.first()) else { return self.no_threshold("") };
        if s.t.iter().all(Option::is_none) {
            let why = if h.tau2 > 0.0 {
                panels::placeholder::THRESHOLD_NO_VARIANCE
            } else {
                panels::placeholder::THRESHOLD_FLAT_PRIOR
            };
            return self.no_threshold(why);
        }
        let whole = checked(d, "threshold-whole").unwrap_or(false);
        let fig = panels::threshold(&t, &points, c.sigma2, whole);
        let mut note = format!(
            "Prior μ = {}, τ² = {}; β = {}: s* = {}, s0 = {}.",
            scales::fixed(h.mu, 3),
            scales::fixed(h.tau2, 4),
            short(s.beta),
            s.s_star.map_or("none (the curve only rises)".to_string(), |m| short(m.sigma2)),
            s.s0.map_or("none".to_string(), |m| short(m.sigma2)),
        );
        if let Some(cut) = panels::threshold_cut(&fig, &t) {
            note = format!("{note} {cut}");
        }
        set_text(d, "threshold-note", &note);
        self.draw("plot-threshold", fig);
    }

    /// Panel 2 without a figure: `why` in its note, the canvas blank.
    fn no_threshold(&self, why: &str) {
        set_text(&self.doc, "threshold-note", why);
        self.blank("plot-threshold");
    }

    /// Clears the canvas `id` and forgets its figure: a placeholder's panel shows no figure of
    /// earlier settings, and exports none.
    fn blank(&self, id: &str) {
        if let Ok(c) = by_id::<HtmlCanvasElement>(&self.doc, id) {
            if let Ok(ctx) = canvas::context(&c) {
                ctx.clear_rect(0.0, 0.0, f64::from(c.width()), f64::from(c.height()));
            }
        }
        self.figures.borrow_mut().remove(id);
    }

    /// What panel 2 (or, `theorem3`, panel 5) says in score mode before its analysis exists:
    /// load a file, or wait for the one loaded.
    fn waiting_for_scores(&self, theorem3: bool) -> &'static str {
        use panels::placeholder::*;
        match (self.data.is_some(), theorem3) {
            (false, false) => THRESHOLD_NO_FILE,
            (true, false) => THRESHOLD_WAITING,
            (false, true) => THEOREM3_NO_FILE,
            (true, true) => THEOREM3_WAITING,
        }
    }

    /// Panel 5: Theorem 3's curves at the current α and β.
    /// Panel 5: Theorem 3's curves at the current α and β. `whole`: the figure (axes, CP_r's
    /// curve, the σ² marker) and its front layer (CP's curve, which alone moves with α, and the
    /// legend); else only the front layer, on the overlay canvas.
    fn render_theorem3(&mut self, whole: bool) {
        let c = &self.controls;
        let grid = panels::sigma2_axis(CURVE_POINTS);
        let analysis = self.analysis.as_ref().filter(|a| a.controls.mode == c.mode);
        let inputs = match (c.mode, analysis) {
            (Mode::Toy, _) => InclusionInputs::toy(&c.toy_params(), c.alpha, c.beta),
            (Mode::Scores, Some(a)) => a.inclusion_inputs(c.alpha, c.beta),
            (Mode::Scores, None) => return self.no_theorem3(self.waiting_for_scores(true)),
        };
        let note = format!("α = {}, β = {}; σ² = {} marked.", short(c.alpha), short(c.beta), short(c.sigma2));
        match inputs.and_then(|i| inclusion_curves(&i, &grid)) {
            Ok(inc) => {
                let fig = panels::theorem3(&inc, c.sigma2);
                if whole || self.theorem3_frame.is_none() {
                    self.theorem3_frame = self.draw_sized("plot-theorem3", &fig, Layer::Back);
                }
                if let Some(frame) = &self.theorem3_frame {
                    if let Err(e) = canvas::draw_front(&self.doc, THEOREM3_FRONT, &fig, frame) {
                        web_sys::console::warn_1(&format!("#{THEOREM3_FRONT}: {e}").into());
                    }
                    if let Some(e) = self.doc.get_element_by_id(THEOREM3_FRONT) {
                        let _ = e.set_attribute("data-alpha", &short(self.controls.alpha));
                    }
                    self.keep("plot-theorem3", fig);
                }
                set_text(&self.doc, "theorem3-note", &note);
            }
            Err(e) => self.no_theorem3(&panels::sentence(&e)),
        }
    }

    /// Panel 5 without a figure: `why` in its note, both canvases blank.
    fn no_theorem3(&mut self, why: &str) {
        set_text(&self.doc, "theorem3-note", why);
        self.blank("plot-theorem3");
        self.blank(THEOREM3_FRONT);
        self.theorem3_frame = None;
    }

    /// The table at α: from the store when α is a slider position (computed and kept on a
    /// first visit), else computed.
    fn alpha_view(&mut self, alpha: f64, never_empty: bool) -> Result<AlphaView> {
        let p = scales::alpha_position(alpha);
        let slot = (scales::alpha_at(p) == alpha).then(|| (p - scales::ALPHA_POSITIONS.0) as usize);
        let ne = usize::from(never_empty);
        if let Some(v) = slot.and_then(|p| self.alpha_views[ne][p].clone()) {
            return Ok(v);
        }
        let a = self.analysis.as_ref().ok_or_else(|| Error::invalid("no analysis yet"))?;
        let v = a.at_alpha(alpha, never_empty)?;
        if let Some(p) = slot {
            self.alpha_views[ne][p] = Some(v.clone());
        }
        Ok(v)
    }

    /// While idle, computes the table at one more α slider position; true if one was computed.
    fn warm_alpha_views(&mut self) -> bool {
        if self.running.is_some() || self.analysis.is_none() {
            return false;
        }
        let ne = self.controls.never_empty;
        let Some(p) = self.alpha_views[usize::from(ne)].iter().position(Option::is_none) else {
            return false;
        };
        self.alpha_view(scales::alpha_at(p as u32 + scales::ALPHA_POSITIONS.0), ne).is_ok()
    }

    /// The figures of panels 3 and 4 (curves against α), without the current α.
    fn render_sweep(&mut self) {
        let never_empty = self.controls.never_empty;
        for (i, (id, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let frame = self.analysis.as_ref().and_then(|a| {
                let fig = panels::against_alpha(a.sweep(never_empty), coverage);
                let frame = self.draw_sized(id, &fig, Layer::Whole);
                if frame.is_some() {
                    self.keep(id, fig);
                }
                frame
            });
            if frame.is_none() {
                // Nothing drawn (no analysis, or hidden): no marker either.
                if let Ok(c) = by_id::<HtmlCanvasElement>(&self.doc, overlay) {
                    c.set_width(0);
                    c.set_height(0);
                }
            }
            self.alpha_frames[i] = frame;
        }
    }

    /// What α moves, from the stored analysis: the α markers over panels 3 and 4, their
    /// readouts, panel 6's cells and panel 7. Writes only what changed, and reads no layout.
    fn render_alpha(&mut self) {
        if self.analysis.is_none() {
            return;
        }
        let (alpha, never_empty) = (self.controls.alpha, self.controls.never_empty);
        let view = match self.alpha_view(alpha, never_empty) {
            Ok(v) => Some(v),
            Err(e) => {
                self.show_error(Some(&e.to_string()));
                None
            }
        };
        let d = &self.doc;
        let view = view.as_ref();
        let label = short(alpha);
        for (i, (_, overlay, coverage)) in ALPHA_PLOTS.into_iter().enumerate() {
            let Some(frame) = &self.alpha_frames[i] else { continue };
            let marker = panels::alpha_marker(view, alpha, coverage);
            if let Err(e) = canvas::draw_marker(d, overlay, frame, Some(&marker)) {
                web_sys::console::warn_1(&format!("#{overlay}: {e}").into());
            }
            if let Some(e) = d.get_element_by_id(overlay) {
                let _ = e.set_attribute("data-alpha", &label);
            }
        }
        if let Some(v) = view {
            set_text(d, "coverage-readout", &panels::readout(v, true));
            set_text(d, "size-readout", &panels::readout(v, false));
            show_summary(d, v);
            set_text(d, "reduction", &panels::reduction_text(v));
        }
        self.render_item();
    }

    fn render_item(&mut self) {
        let Some(a) = &self.analysis else { return };
        let d = &self.doc;
        let n = a.n_inspectable();
        set_value(d, "item-index", &self.item.to_string());
        if let Ok(i) = dom::input(d, "item-index") {
            let max = n.saturating_sub(1).to_string();
            if i.max() != max {
                i.set_max(&max);
            }
        }
        match a.inspect(self.item, self.controls.alpha, self.controls.never_empty) {
            Ok(v) => {
                set_text(
                    d,
                    "item-info",
                    &format!(
                        "of {n}: data item {}, true label #{} (α = {})",
                        v.item,
                        v.label,
                        short(self.controls.alpha)
                    ),
                );
                let columns = panels::inspector_columns(&v, a.single_draw);
                show_inspector(d, &self.inspector, &columns);
                self.inspector = columns;
            }
            Err(e) => {
                set_html(d, "inspector", &format!("<p class=\"muted\">{}</p>", esc(&panels::sentence(&e))));
                self.inspector.clear();
            }
        }
    }

    fn render_data(&self) {
        let d = &self.doc;
        let Some(l) = &self.data else { return };
        set_html(d, "data-stats", &panels::data_stats(&l.name, &l.summary));
        set_hidden(d, "panel-data", self.controls.mode != Mode::Scores);
        self.draw("plot-variance", panels::variances(&l.summary));
    }

    fn step_item(&mut self, to: ItemMove) {
        let n = self.analysis.as_ref().map_or(0, |a| a.n_inspectable());
        if n == 0 {
            return;
        }
        self.item = match to {
            ItemMove::Prev => (self.item + n - 1) % n,
            ItemMove::Next => (self.item + 1) % n,
            ItemMove::Random => ((js_sys::Math::random() * n as f64) as usize).min(n - 1),
            ItemMove::To(i) => i.min(n - 1),
        };
        self.dirty.address = true;
        self.render_item();
    }

    /// Shows a data set read from a file or generated in the page, or why it cannot be used.
    fn install(&mut self, name: String, data: Result<Dataset>, pool: Option<Arc<TruePool>>, origin: DataRef) {
        let result = data.and_then(|d| {
            if d.labels.is_none() {
                return Err(Error::invalid(format!(
                    "{name} has no labels: conformal prediction needs the true label of every item \
                     (an .npz member 'labels', a CSV column 'label', or a second .npy named *labels*)"
                )));
            }
            let summary = DataSummary::of(&d, self.controls.score.variance, VARIANCE_BINS)?;
            Ok((d, summary))
        });
        match result {
            Ok((d, summary)) => {
                self.show_error(None);
                set_text(&self.doc, "data-name", &format!("Loaded {name}: the data stays in this page."));
                self.data = Some(Loaded { name, data: Arc::new(d), pool, summary });
                if self.data_ref == DataRef::Upload {
                    // The file the link asked for (or another): its note has done its job.
                    set_hidden(&self.doc, "url-notes", true);
                }
                self.data_ref = origin;
                self.item = self.pending_item.take().unwrap_or(0);
                if self.controls.mode == Mode::Scores {
                    self.start_job();
                    self.dirty = Dirty::ALL;
                } else {
                    self.set_mode(Mode::Scores);
                }
            }
            Err(e) => self.show_error(Some(&format!("{e}. The results shown are unchanged."))),
        }
    }
}

/// Why a pool of true-label draws cannot calibrate CP_r with r-values of `kind`, in a
/// sentence for the status line; `None` for pooled r-values, which it calibrates.
fn needs_all_candidates(kind: RvalueKind) -> Option<String> {
    let name = match kind {
        RvalueKind::Pooled => return None,
        RvalueKind::Parametric => "Parametric",
        RvalueKind::Nonparametric => "Nonparametric",
    };
    Some(format!(
        "{name} CP_r needs every candidate's draws of each calibration item, and the pool holds only \
         the true label's: choose the pooled r-value for CP_r. The results shown are unchanged."
    ))
}

/// Panel 6: the cells' text where the table has its three rows, else the rows afresh.
fn show_summary(d: &Document, v: &AlphaView) {
    let Some(body) = d.query_selector("#summary-table tbody").ok().flatten() else { return };
    let cells = panels::summary_cells(v);
    let rows = body.children();
    let in_place = rows.length() as usize == cells.len()
        && (0..rows.length()).all(|r| rows.item(r).is_some_and(|row| row.children().length() == 5));
    if !in_place {
        body.set_inner_html(&panels::summary_rows(v));
        return;
    }
    for (r, texts) in cells.iter().enumerate() {
        let Some(row) = rows.item(r as u32) else { continue };
        let tds = row.children();
        for (c, text) in texts.iter().enumerate() {
            if let Some(td) = tds.item(c as u32 + 1) {
                if td.text_content().as_deref() != Some(text.as_str()) {
                    td.set_text_content(Some(text));
                }
            }
        }
    }
}

/// Panel 7: rewrites only what differs from `shown` (what the page shows): a threshold's text,
/// the rows that entered or left the set and the cut's place (an α move), a column's list (a
/// new item), or everything when the columns themselves changed.
fn show_inspector(d: &Document, shown: &[RankingColumn], columns: &[RankingColumn]) {
    let Some(root) = d.get_element_by_id("inspector") else { return };
    let same_shape = shown.len() == columns.len()
        && root.children().length() as usize == columns.len()
        && shown.iter().zip(columns).all(|(a, b)| a.title == b.title && a.what == b.what);
    let patched = same_shape
        && (|| {
            let qs = root.query_selector_all(".ranking .q").ok()?;
            let lists = root.get_elements_by_class_name("list");
            for (i, (old, new)) in shown.iter().zip(columns).enumerate() {
                if old.threshold != new.threshold {
                    qs.item(i as u32)?.set_text_content(Some(&new.threshold));
                }
                if old == new {
                    continue;
                }
                let list = lists.item(i as u32)?;
                if !(old.same_rows(new) && move_cut(&list, old, new).is_some()) {
                    list.set_inner_html(&panels::ranking_list(new));
                }
            }
            Some(())
        })()
        .is_some();
    if !patched {
        root.set_inner_html(&panels::inspector(columns));
    }
}

/// Updates a column's list in place when only the set changed: the classes of the rows that
/// entered or left it, and the cut moved before the first row out of it.
fn move_cut(list: &web_sys::Element, old: &RankingColumn, new: &RankingColumn) -> Option<()> {
    let ol = list.first_element_child()?;
    let items = ol.children();
    let mut rows = Vec::with_capacity(new.rows.len());
    let mut cut = None;
    for i in 0..items.length() {
        let li = items.item(i)?;
        match li.class_name().as_str() {
            "cut" => cut = Some(li),
            "more" => {}
            _ => rows.push(li),
        }
    }
    if rows.len() != new.rows.len() {
        return None;
    }
    for ((li, o), n) in rows.iter().zip(&old.rows).zip(&new.rows) {
        if o.in_set != n.in_set {
            li.set_class_name(n.class());
        }
    }
    match (new.rows.iter().position(|r| !r.in_set), cut) {
        (Some(j), Some(cut)) => {
            if cut.next_element_sibling().as_ref() != Some(&rows[j]) {
                ol.insert_before(&cut, Some(&rows[j])).ok()?;
            }
        }
        (Some(j), None) => {
            rows[j].insert_adjacent_html("beforebegin", panels::CUT_HTML).ok()?;
        }
        (None, Some(cut)) => cut.remove(),
        (None, None) => {}
    }
    Some(())
}

#[derive(Clone, Copy)]
enum ItemMove {
    Prev,
    Next,
    Random,
    To(usize),
}

fn request_frame(app: &Shared) {
    {
        let mut a = app.borrow_mut();
        if a.frame_requested {
            return;
        }
        a.frame_requested = true;
    }
    let app2 = app.clone();
    let cb = Closure::once_into_js(move || on_frame(&app2));
    if let Some(w) = web_sys::window() {
        let _ = w.request_animation_frame(cb.unchecked_ref());
    }
}

fn on_frame(app: &Shared) {
    let more = {
        let mut a = app.borrow_mut();
        a.frame_requested = false;
        if !a.first_frame_done {
            // The first frame draws the closed-form panels and computes nothing, so that they
            // are painted at once; the analysis starts in the next frame.
            a.first_frame_done = true;
            a.render();
            true
        } else {
            a.advance();
            a.render();
            a.warm_alpha_views_for_a_frame()
        }
    };
    if more {
        request_frame(app);
    }
}

impl App {
    /// An idle frame's filling of the α tables (a few milliseconds); whether another frame is
    /// wanted (a job runs, or tables are left to fill).
    fn warm_alpha_views_for_a_frame(&mut self) -> bool {
        let a = self;
        // Idle frames fill the α tables, a few milliseconds at a time.
        let t0 = dom::now_ms();
        let mut warmed = false;
        while dom::now_ms() - t0 < 8.0 && a.warm_alpha_views() {
            warmed = true;
        }
        // For benchmarks and tests: whether every α position is a lookup now.
        if let Some(b) = a.doc.body() {
            let state = if warmed || a.running.is_some() { "filling" } else { "ready" };
            if b.get_attribute("data-alpha-tables").as_deref() != Some(state) {
                let _ = b.set_attribute("data-alpha-tables", state);
            }
        }
        a.running.is_some() || warmed
    }
}

/// Runs `f` on the app, then schedules a frame to show the result.
fn with(app: &Shared, f: impl FnOnce(&mut App)) {
    f(&mut app.borrow_mut());
    request_frame(app);
}

/// Runs `f` on the app and draws what it changed at once, in the event's own task: the change
/// is then in the very next frame the browser paints, and that frame has only its paint to do.
/// A frame is still requested while a job runs or the α tables are being filled.
fn with_now(app: &Shared, f: impl FnOnce(&mut App)) {
    let more = {
        let mut a = app.borrow_mut();
        f(&mut a);
        a.render();
        a.running.is_some() || a.dirty.any()
    };
    if more {
        request_frame(app);
    }
}

fn wire(app: &Shared) -> Result<()> {
    let doc = app.borrow().doc.clone();
    // Sliders follow the pointer ("input") and draw in the event; other inputs apply when
    // committed ("change").
    for id in ["alpha", "beta", "sigma2"] {
        let a = app.clone();
        dom::listen_id(&doc, id, "input", move |_| with_now(&a, App::controls_changed))?;
    }
    for id in [
        "kind",
        "prior",
        "variance",
        "cp-draw",
        "ties",
        "never-empty",
        "toy-k",
        "toy-m",
        "toy-ncal",
        "toy-ntest",
        "toy-repeats",
        "toy-mup",
        "toy-sigma2p",
        "toy-muq",
        "toy-frac",
        "toy-seed",
        "splits",
        "cal-fraction",
        "split-seed",
    ] {
        let a = app.clone();
        dom::listen_id(&doc, id, "change", move |_| with(&a, App::controls_changed))?;
    }
    for (id, mode) in [("mode-toy", Mode::Toy), ("mode-scores", Mode::Scores)] {
        let a = app.clone();
        dom::listen_id(&doc, id, "change", move |_| with(&a, |app| app.set_mode(mode)))?;
    }
    let a = app.clone();
    dom::listen_id(&doc, "threshold-whole", "change", move |_| with_now(&a, |app| app.dirty.curves = true))?;
    let a = app.clone();
    dom::listen_id(&doc, "cancel", "click", move |_| with(&a, App::cancel))?;
    let a = app.clone();
    dom::listen_id(&doc, "large-text", "change", move |_| {
        with(&a, |app| {
            app.large_text = checked(&app.doc, "large-text").unwrap_or(false);
            if let Some(b) = app.doc.body() {
                let _ = b.class_list().toggle_with_force("large", app.large_text);
            }
            app.dirty = Dirty::ALL;
        })
    })?;
    for (id, to) in
        [("item-prev", ItemMove::Prev), ("item-next", ItemMove::Next), ("item-random", ItemMove::Random)]
    {
        let a = app.clone();
        dom::listen_id(&doc, id, "click", move |_| with(&a, |app| app.step_item(to)))?;
    }
    let a = app.clone();
    dom::listen_id(&doc, "item-index", "change", move |_| {
        with(&a, |app| match number::<usize>(&app.doc, "item-index", "test item") {
            Ok(i) => app.step_item(ItemMove::To(i)),
            Err(e) => app.show_error(Some(&e.to_string())),
        })
    })?;
    if let Some(w) = web_sys::window() {
        let a = app.clone();
        dom::listen(&w, "resize", move |_| with(&a, |app| app.dirty = Dirty::ALL));
    }
    files::wire(&file_sink(app), &doc)?;
    let a = app.clone();
    permalink::wire(&doc, move || a.borrow_mut().link_now())?;
    export::wire(app, &doc)?;
    Ok(())
}

/// Where [`super::files`] delivers what it loaded: into the app, then a frame.
pub(super) fn file_sink(app: &Shared) -> files::Sink {
    let app = app.clone();
    Rc::new(move |got| {
        with(&app, |a| match got {
            files::Got::Dataset { name, data, pool, origin } => a.install(name, data, pool, origin),
            files::Got::Failed(msg) => {
                a.show_error(Some(&format!("{msg}. The results shown are unchanged.")))
            }
        })
    })
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code, unused_variables))]
/// The GPU's answer for part `part` of job `serial`.
fn offloaded(app: &Shared, serial: u64, part: usize, answer: Result<device::Answer>) {
    with(app, |a| {
        let Some(run) = a.running.as_mut() else { return };
        #[cfg(feature = "gpu")]
        let supply = |ans: device::Answer| match ans {
            device::Answer::Rvalues(r) => run.job.supply_rvalues(part, r),
            device::Answer::Pooled { index, calibrated } => run.job.supply_pooled(part, index, calibrated),
        };
        #[cfg(not(feature = "gpu"))]
        let supply = |ans: device::Answer| -> Result<()> { match ans {} };
        run.gpu.take(&mut a.device, serial, answer, supply);
        a.dirty.device = true;
    });
}

/// Worker `i`'s reply: started, or a repeat (of the running job, or of one since replaced).
fn worker_replied(app: &Shared, i: usize, reply: workers::Reply) {
    with(app, |a| {
        let ready = a.pool.ready();
        if let Some(run) = a.running.as_mut() {
            run.from_workers += usize::from(a.pool.replied(i, reply, Some((&mut run.job, run.serial))));
            a.pool.feed(&mut run.job, run.serial);
        } else {
            a.pool.replied(i, reply, None);
        }
        a.dirty.device |= a.pool.ready() != ready;
    });
}
