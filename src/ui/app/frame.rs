//! The frame loop: one job slice and a render per animation frame, idle frames filling the
//! α tables, and `with`/`with_now`, how an event's change reaches the page.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use super::{App, Shared};
use crate::ui::dom;
use rvalue_model::page::readouts::alpha_tables;

pub(super) fn request_frame(app: &Shared) {
    {
        if !app.borrow_mut().drawn.request_frame() {
            return;
        }
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
        if a.drawn.frame_runs() {
            // The first frame draws the closed-form panels and computes nothing, so that they
            // are painted at once; the analysis starts in the next frame.
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
            let state = alpha_tables(warmed, a.compute.is_running());
            if b.get_attribute("data-alpha-tables").as_deref() != Some(state) {
                let _ = b.set_attribute("data-alpha-tables", state);
            }
        }
        a.compute.is_running() || warmed
    }
}

/// Runs `f` on the app, then schedules a frame to show the result.
pub(super) fn with(app: &Shared, f: impl FnOnce(&mut App)) {
    f(&mut app.borrow_mut());
    request_frame(app);
}

/// Runs `f` on the app and draws what it changed at once, in the event's own task: the change
/// is then in the very next frame the browser paints, and that frame has only its paint to do.
/// A frame is still requested while a job runs or the α tables are being filled.
pub(super) fn with_now(app: &Shared, f: impl FnOnce(&mut App)) {
    let more = {
        let mut a = app.borrow_mut();
        f(&mut a);
        a.render();
        a.compute.is_running() || a.drawn.is_dirty()
    };
    if more {
        request_frame(app);
    }
}
