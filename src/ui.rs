//! The web page (wasm only): reads the controls, runs the explorer's analysis in slices across
//! animation frames, and draws the panels with plotters on `<canvas>`.
//!
//! - [`app`]: the state, and in `app/` the start-up, the controls, the job, the frame loop, the
//!   events, the replies, each panel's drawing (`app/draw/`) and the export buttons;
//! - [`canvas`]: the canvas backend (text measured and drawn by the canvas), figure sizing and
//!   the current-value markers drawn on overlay canvases; what a panel shows is
//!   `rvalue_model::figure`'s, and `rvalue_plot` draws it;
//! - [`theme`]: `?theme=` and `?background=` on the page, and the figures' palette;
//! - [`files`]: file picker, drag and drop, bundled samples and `?src=`, wired to the reads of
//!   `rvalue_web`, which also holds the GPU device and the Web Workers;
//! - [`permalink`]: the state in the address, and the Copy link button;
//! - [`report`]: a saved report's embedded data and settings;
//! - [`embed`]: one panel alone in an iframe (`?embed=`), its height posted to the parent;
//! - [`print`]: figures redrawn at their printed size when the page is printed;
//! - [`dom`]: typed `web-sys` helpers.
//!
//! Only [`app`] knows the `App`: the other modules take callbacks (or return values) that
//! `app` builds from its `Shared` and applies, so no module here imports `app`.

pub mod app;
pub mod canvas;
pub mod dom;
mod embed;
mod files;
mod permalink;
mod print;
mod report;
pub mod theme;

pub use app::{start, start_with};

#[cfg(test)]
mod tests;
