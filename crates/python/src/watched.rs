//! A call's work on a thread of its own, watched from the calling thread: it waits in short
//! slices with the GIL released, and between slices checks for signals (Ctrl-C raises
//! `KeyboardInterrupt`) and draws the progress the caller asked for.
//!
//! On a signal (or an exception from a progress callback) the work is asked to stop through the
//! core's [`Watch`] and the call waits for it to end, at its next unit of work (a split, a round
//! of pooled test items, a block of items), before the exception is raised: the work holds the
//! caller's arrays, so it must not outlive the call, and what it half-made is dropped.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use rvalue_core::watch::Watch;

use crate::arrays::value_error;

/// How often the calling thread looks up from waiting: the delay before Ctrl-C is seen (plus
/// the unit of work in progress), and the rate of progress updates.
const SLICE: Duration = Duration::from_millis(100);

/// What `progress=` asked for.
#[derive(Clone)]
pub enum Progress<'py> {
    Off,
    /// `progress=callable`: called as `callable(done, total)`.
    Callback(Bound<'py, PyAny>),
    /// `progress=True`: a `tqdm.auto` bar when tqdm is installed, else a line on `sys.stderr`.
    Bar,
}

impl<'py> Progress<'py> {
    /// `None`/`False`, `True` or a callable; anything else is a `TypeError`.
    pub fn of(obj: Option<&Bound<'py, PyAny>>) -> PyResult<Progress<'py>> {
        let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(Progress::Off) };
        if obj.is_instance_of::<PyBool>() {
            return Ok(if obj.extract::<bool>()? { Progress::Bar } else { Progress::Off });
        }
        if obj.is_callable() {
            return Ok(Progress::Callback(obj.clone()));
        }
        Err(PyTypeError::new_err(format!(
            "progress must be True, False, None or a callable(done, total), got {}",
            obj.get_type().name()?
        )))
    }
}

/// Where progress goes while a call runs.
enum Shown<'py> {
    Off,
    Callback(Bound<'py, PyAny>),
    Tqdm(Bound<'py, PyAny>),
    /// `desc done/total` rewritten with `\r` on `sys.stderr` (where notebooks capture it).
    Line(Bound<'py, PyAny>),
}

/// Progress of one call: `total` units (test items to score), `done` so far.
struct Display<'py> {
    shown: Shown<'py>,
    desc: String,
    total: u64,
    done: u64,
}

impl<'py> Display<'py> {
    fn start(py: Python<'py>, progress: Progress<'py>, desc: &str, total: u64) -> PyResult<Display<'py>> {
        let shown = match progress {
            Progress::Off => Shown::Off,
            Progress::Callback(f) => Shown::Callback(f),
            Progress::Bar => match py.import("tqdm.auto") {
                Ok(m) => {
                    let kw = PyDict::new(py);
                    kw.set_item("total", total)?;
                    kw.set_item("desc", desc)?;
                    kw.set_item("unit", "item")?;
                    Shown::Tqdm(m.getattr("tqdm")?.call((), Some(&kw))?)
                }
                Err(_) => Shown::Line(py.import("sys")?.getattr("stderr")?),
            },
        };
        let mut d = Display { shown, desc: desc.to_string(), total, done: 0 };
        d.show(0, true)?;
        Ok(d)
    }

    /// Shows `done` if it moved (or `always`); a callback's exception is returned.
    fn show(&mut self, done: u64, always: bool) -> PyResult<()> {
        let done = done.min(self.total);
        if done == self.done && !always {
            return Ok(());
        }
        let delta = done.saturating_sub(self.done);
        self.done = done;
        match &self.shown {
            Shown::Off => {}
            Shown::Callback(f) => {
                f.call1((done, self.total))?;
            }
            Shown::Tqdm(bar) => {
                bar.call_method1("update", (delta,))?;
            }
            Shown::Line(err) => {
                err.call_method1("write", (format!("\r{} {done}/{}", self.desc, self.total),))?;
                err.call_method0("flush")?;
            }
        }
        Ok(())
    }

    /// Ends the bar or line (the callback has seen the last count).
    fn close(&self) -> PyResult<()> {
        match &self.shown {
            Shown::Tqdm(bar) => {
                bar.call_method0("close")?;
            }
            Shown::Line(err) => {
                err.call_method1("write", ("\n",))?;
            }
            Shown::Off | Shown::Callback(_) => {}
        }
        Ok(())
    }
}

/// Runs `work` on a thread of its own, `total` units long (for progress, labelled `desc`), and
/// returns its result; Ctrl-C stops it and raises `KeyboardInterrupt` (see the module's notes).
pub fn run<'py, T: Send>(
    py: Python<'py>,
    progress: Progress<'py>,
    desc: &str,
    total: usize,
    work: impl FnOnce() -> rvalue_core::Result<T> + Send,
) -> PyResult<T> {
    let mut display = Display::start(py, progress, desc, total as u64)?;
    let watch = Watch::new();
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        let on_thread = watch.clone();
        s.spawn(move || {
            let _ = tx.send(on_thread.within(work));
        });
        let mut rx = rx;
        loop {
            let (back, got) = wait(py, rx);
            rx = back;
            match got {
                Ok(result) => {
                    let result = result.map_err(value_error)?;
                    display.show(watch.done(), false)?;
                    display.close()?;
                    return Ok(result);
                }
                Err(RecvTimeoutError::Timeout) => {}
                // The thread ended without a result: it panicked, and the scope re-raises that.
                Err(RecvTimeoutError::Disconnected) => return Err(value_error(rvalue_core::Error::Stopped)),
            }
            if let Err(e) = py.check_signals().and_then(|()| display.show(watch.done(), false)) {
                return Err(stop(py, &watch, rx, &display, e));
            }
        }
    })
}

/// Waits up to a slice for the result with the GIL released (the receiver goes to the waiting
/// closure and back: a shared reference to it cannot cross threads).
fn wait<T: Send>(py: Python<'_>, rx: Receiver<T>) -> (Receiver<T>, Result<T, RecvTimeoutError>) {
    py.detach(move || {
        let got = rx.recv_timeout(SLICE);
        (rx, got)
    })
}

/// Asks the work to stop, waits for it to end (its result is dropped) and returns `e`.
fn stop<T: Send>(
    py: Python<'_>,
    watch: &Arc<Watch>,
    rx: Receiver<T>,
    display: &Display<'_>,
    e: PyErr,
) -> PyErr {
    watch.stop();
    py.detach(move || drop(rx.recv()));
    let _ = display.close();
    e
}
