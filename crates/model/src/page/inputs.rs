//! The form's inputs as plain values: what the page reads of each control ([`Read`]) becomes
//! [`Controls`], and what a change of them recomputes and redraws ([`change`]); the controls
//! become what each input shows ([`writes`], [`readouts`]). The page reads and writes the DOM
//! in one place each; every choice is here.

use rvalue_core::{Error, Result};

use super::load::streamed_kind;
use super::status::PREVIOUS_SETTINGS;
use super::Dirty;
use crate::controls::table::{Control, Input, CONTROLS};
use crate::edits::Edits;
use crate::message::failure;
use crate::scales::short;
use crate::{Controls, Mode};

/// What the page read of a control's input.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    /// A slider's position.
    Position(u32),
    /// A number input's or a select's value.
    Text(String),
    Checked(bool),
}

/// The controls as the inputs show them: `c` with each control `read` gives (by its key and
/// input) set; `read` answers `None` for the mode (its radio buttons switch the mode at once)
/// and for settings only a link can make.
pub fn read(
    c: &Controls,
    mut read: impl FnMut(&'static Control) -> Result<Option<Read>>,
) -> Result<Controls> {
    let mut new = c.clone();
    for control in CONTROLS.iter() {
        let Some(text) = read(control)?.map(|r| text(control, &new, r)) else { continue };
        control
            .set(&mut new, &text)
            .map_err(|p| Error::invalid(format!("{}: '{text}' {p}", control.name)))?;
    }
    Ok(new)
}

/// The control's text for what was read of it.
fn text(control: &Control, c: &Controls, read: Read) -> String {
    match (read, control.input) {
        // A slider left where it is keeps its value: the value need not be one of its
        // positions (a link's β = 0.13 lies between two), and moving α must not change β.
        (Read::Position(p), Input::Slider { at, position, .. }) => {
            let value = control.real(c).unwrap_or(f64::NAN);
            if p == position(value) { value } else { at(p) }.to_string()
        }
        (Read::Position(p), _) => p.to_string(),
        (Read::Text(t), Input::Number) => t.trim().to_string(),
        (Read::Text(t), _) => t,
        (Read::Checked(on), _) => String::from(if on { "1" } else { "0" }),
    }
}

/// What the inputs show of `c`: sliders their positions, number inputs and selects their
/// values, checkboxes and radio buttons (`{key}-{name}`) whether checked; then the sliders'
/// readouts ([`readouts`]).
pub fn edits(c: &Controls) -> Edits {
    let mut e = Edits::new();
    for control in CONTROLS.iter() {
        let (id, text) = (control.key, control.text(c));
        match control.input {
            Input::Slider { position, .. } => {
                e.value(id, position(control.real(c).unwrap_or(f64::NAN)).to_string())
            }
            Input::Number | Input::Select => e.value(id, text),
            Input::Checkbox => e.checked(id, text == "1"),
            Input::Radio => {
                for name in control.names() {
                    e.checked(format!("{id}-{name}"), name == text);
                }
                &mut e
            }
            Input::LinkOnly => &mut e,
        };
    }
    e.extend(readouts(c));
    e
}

/// The sliders' readouts (`{key}-value`) and their spoken values (`aria-valuetext`).
pub fn readouts(c: &Controls) -> Edits {
    let mut e = Edits::new();
    for control in CONTROLS.iter().filter(|c| matches!(c.input, Input::Slider { .. })) {
        let text = short(control.real(c).unwrap_or(f64::NAN));
        e.text(format!("{}-value", control.key), text.clone()).attr(control.key, "aria-valuetext", text);
    }
    e
}

/// The slider position a key takes a slider at `value` (its position's text) to, by the
/// scale's big steps (`page(position, up)`): PageUp and PageDown, unless `modified` (Alt, Ctrl,
/// Meta or Shift held); `None` leaves the key to the browser.
pub fn page_key(key: &str, modified: bool, value: &str, page: fn(u32, bool) -> u32) -> Option<u32> {
    let up = match key {
        _ if modified => return None,
        "PageUp" => true,
        "PageDown" => false,
        _ => return None,
    };
    Some(page(value.parse().ok()?, up))
}

/// A change of the controls from `old` to what the inputs hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub controls: Controls,
    /// What to redraw.
    pub dirty: Dirty,
    /// Whether the analysis is to run again.
    pub reanalyse: bool,
    /// Whether the σ² marker starts again at the file's median variance.
    pub sigma2_from_data: bool,
}

/// The change from `old` to `read` (the inputs' controls) with a file `loaded`, or the message
/// saying what is wrong with them (nothing then changes).
pub fn change(old: &Controls, read: Result<Controls>, loaded: bool) -> std::result::Result<Change, String> {
    let new = read.and_then(|c| c.validate().map(|()| c)).map_err(|e| failure(&e, PREVIOUS_SETTINGS))?;
    let impact = old.impact(&new);
    let dirty = Dirty::for_change(old, &new, &impact);
    let sigma2_from_data = impact.sigma2_from_data && loaded;
    Ok(Change { controls: new, dirty, reanalyse: impact.reanalyse, sigma2_from_data })
}

/// The controls in `mode` from `c`, with a file `loaded` (`streamed`: read a block at a time),
/// and whether σ² starts again at its median variance (back on a loaded file).
pub fn for_mode(c: &Controls, mode: Mode, loaded: bool, streamed: bool) -> (Controls, bool) {
    let mut new = c.for_mode(mode);
    if let Some(kind) = streamed_kind(&new, streamed) {
        new.score.kind = kind;
    }
    (new, mode == Mode::Scores && loaded)
}

#[cfg(test)]
mod tests;
