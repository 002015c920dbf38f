//! The web page (wasm only): reads the controls, runs the explorer's analysis in slices across
//! animation frames, and draws the panels with plotters on `<canvas>`.
//!
//! - [`app`]: the state, the frame loop and what each control change recomputes, and (in
//!   `app/export.rs`) the panels' export buttons;
//! - [`panels`]: what each panel shows (figures and HTML) from the explorer's results;
//! - [`figure`]: one plotters drawing routine for every line figure;
//! - [`canvas`]: the canvas backend (text measured by the canvas), figure sizing and the
//!   current-value markers drawn on overlay canvases;
//! - [`files`]: file picker, drag and drop, bundled samples;
//! - [`dom`]: typed `web-sys` helpers.

pub mod app;
pub mod canvas;
pub mod dom;
pub mod figure;
mod files;
pub mod panels;

pub use app::{start, start_with};

#[cfg(test)]
mod tests;
