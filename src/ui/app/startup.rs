//! Start-up: the explorer on the page with the address' settings (or a test's), the panic
//! banner, and the performance mark of a cold load.

use std::cell::RefCell;
use std::rc::Rc;

use super::compute::Compute;
use super::frame::{request_frame, with};
use super::replies::file_sink;
use super::source::DataSource;
use super::wiring::wire;
use super::{App, Shared};
use crate::ui::dom;
use crate::ui::permalink::{self, Link};
use crate::ui::{embed, files, theme};
use rvalue_core::Result;
use rvalue_model::page::form;
use rvalue_model::page::readouts::panicked;
use rvalue_model::page::{Drawn, Framing, Shown};
use rvalue_model::url::{DataRef, UrlState};
use rvalue_model::Controls;
use rvalue_web::device::{self, Device};

/// Starts the explorer on the current page with the settings in its address (defaults for
/// what it does not say), and keeps the address in step.
pub fn start() -> Result<Shared> {
    let restored = crate::ui::report::settings().map_or_else(permalink::read, |(r, _)| r);
    rvalue_web::streamed::set_stream_switch(restored.stream_switch.as_deref());
    let link = Some(Link::new(permalink::search()));
    let switches = (restored.gpu_switch, restored.workers_switch, restored.sigma2_given);
    launch(restored.state, &restored.warnings, link, switches)
}

/// Starts the explorer on the current page with `controls` (checked first).
pub fn start_with(controls: Controls) -> Result<Shared> {
    launch(UrlState::with_controls(controls), &[], None, (None, None, false))
}

/// Starts the explorer with `state`, showing `warnings` about the address it came from.
/// `gpu_switch`, `workers_switch`, `sigma2_given`: the address' GPU and worker switches and
/// whether it set σ² (`explorer::url::Restored`).
fn launch(
    state: UrlState,
    warnings: &[String],
    link: Option<Link>,
    (gpu_switch, workers_switch, sigma2_given): (Option<String>, Option<String>, bool),
) -> Result<Shared> {
    let UrlState { controls, item, data, embed, large_text, tour, tour_alone, view } = state;
    controls.validate()?;
    // For the benchmark's cold load: the wasm is loaded and the app starts.
    dom::mark("rvalue:start");
    install_panic_hook();
    let app = Rc::new(RefCell::new(App {
        doc: dom::document()?,
        controls,
        item,
        source: DataSource::new(data.clone(), item, sigma2_given),
        shown: Shown::new(),
        compute: Compute::new(workers_switch),
        framing: Framing::new(embed, view, large_text, (tour, tour_alone)),
        drawn: Drawn::new(),
        link,
        me: std::rc::Weak::new(),
    }));
    first_show(&app, warnings, gpu_switch)?;
    load_named_data(&app, data);
    request_frame(&app);
    Ok(app)
}

/// Fetches the data a link names (a bundled sample or a file hosted on the page's site) or a
/// saved report holds.
fn load_named_data(app: &Shared, data: DataRef) {
    match data {
        DataRef::Sample(name) => files::load_named(&file_sink(app), name),
        DataRef::Hosted { src, labels, name } => files::load_hosted(&file_sink(app), src, labels, name),
        DataRef::Report => crate::ui::report::load(&file_sink(app)),
        DataRef::None | DataRef::Upload => {}
    }
}

/// The app on the page before its first frame: what the page embeds, the tour, the address'
/// warnings and the controls, the first job; then the GPU opening and the page's events wired.
fn first_show(app: &Shared, warnings: &[String], gpu_switch: Option<String>) -> Result<()> {
    let mut a = app.borrow_mut();
    a.me = Rc::downgrade(app);
    let f = &a.framing;
    let (doc, embed, tour, tour_alone, large_text) =
        (a.doc.clone(), f.embed(), f.step(), f.tour_alone(), f.large_text());
    // Before anything is drawn: hidden panels then draw nothing, and figures take the theme.
    theme::mark(&doc, a.framing.view());
    embed::mark(&doc, embed, tour.filter(|_| tour_alone).and_then(rvalue_model::tour::step));
    let view = a.framing.view();
    embed::mark_figure_only(&doc, embed.filter(|_| view.figure_only), &view.sliders);
    a.show_tour();
    a.show_link_notes(warnings);
    dom::apply(&doc, &form::large_text(large_text));
    a.write_controls();
    a.show_mode();
    let open_gpu = match embed {
        Some(_) => {
            *a.compute.device_mut() = Device::later(gpu_switch);
            None
        }
        None => Some(gpu_switch),
    };
    a.start_job();
    drop(a);
    if let Some(switch) = open_gpu {
        open_device(app, switch);
    }
    wire(app)?;
    super::tour::wire(app)?;
    let me = Rc::downgrade(app);
    let view = app.borrow().framing.view().clone();
    theme::on_change(&doc, &view, move || {
        if let Some(app) = me.upgrade() {
            with(&app, |a| a.drawn.all_dirty());
        }
    });
    embed::post(&doc, embed, tour_alone);
    Ok(())
}

/// Opens the GPU (or learns there is none) and tells the app when it knows.
pub(super) fn open_device(app: &Shared, gpu_switch: Option<String>) {
    let me = Rc::downgrade(app);
    device::open(gpu_switch, move |opened| {
        if let Some(app) = me.upgrade() {
            with(&app, |a| {
                a.compute.device_mut().opened(opened);
                a.drawn.dirty().device = true;
            });
        }
    });
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
                dom::apply(&doc, &panicked(&msg));
            }
        }))
    });
}
