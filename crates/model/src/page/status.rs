//! What the status line says of the analysis: its state for scripts (`#status`'s
//! `data-state`) and its sentences, from a job's progress, pace and estimate.

use rvalue_core::conformal::RvalueKind;

use crate::edits::Edits;
use crate::ids;
use crate::message::capitalised;
use crate::{Controls, Mode};

/// What follows a failure whose previous results stay on show.
pub const PREVIOUS_SETTINGS: &str = "The results shown are for the previous settings.";

/// Score mode before a file.
pub const NO_FILE: &str = "Load a score file: drop one on the page, choose one, or pick a sample.";

/// How often a running toy analysis refreshes the panels with the repeats done so far (ms).
pub const PARTIAL_EVERY_MS: f64 = 400.0;

/// How often a running job's progress bar and status line are written (ms).
pub const PROGRESS_EVERY_MS: f64 = 100.0;

/// The status line's state (`#status`'s `data-state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A job runs.
    Running,
    /// The analysis asked for is on show.
    Ready,
    /// None can be run: no file, or a choice the data cannot take.
    Note,
    /// A long analysis is described, waiting for Start or Cancel.
    Confirm,
    Cancelled,
    /// The previous results stay on show; the error says why.
    Failed,
    /// An embedded panel with nothing to compute.
    Idle,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Ready => "ready",
            State::Note => "note",
            State::Confirm => "confirm",
            State::Cancelled => "cancelled",
            State::Failed => "failed",
            State::Idle => "idle",
        }
    }
}

/// What an analysis of `c` is of: the toy, or the file `name` of `n` items, calibrated on
/// `true_draws` true-label draws when a pool of them is given.
pub fn job_what(c: &Controls, file: Option<(&str, usize)>, true_draws: Option<usize>) -> String {
    let Some((name, n)) = file.filter(|_| c.mode == Mode::Scores) else {
        return format!("toy, {} repeats", c.toy.repeats);
    };
    match true_draws {
        None => format!("{name}, {} splits", c.splits),
        Some(p) => {
            let (cal, test) = c.true_draws_sizes(p, n);
            format!(
                "{name}, {} splits, each calibrated on {cal} of the pool's {p} true-label draws and \
                 tested on all {test} items",
                c.splits
            )
        }
    }
}

/// What a partial toy analysis is of.
pub fn partial_what(done: usize, total: usize) -> String {
    format!("toy, {done} of {total} repeats so far")
}

/// Why true-label draws alone cannot calibrate CP_r with r-values of `kind`, in a
/// sentence; `None` for pooled r-values, which it calibrates.
pub fn needs_all_candidates(kind: RvalueKind) -> Option<String> {
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

/// Why pooled CP_r on the streamed file `name` cannot run in a page without workers.
pub fn no_workers(name: &str) -> String {
    format!(
        "Pooled CP_r on {name}, read a block at a time, needs worker threads to read it, and this \
         page has none: choose the nonparametric or parametric r-value, or run \
         `rvalue conformal --rvalue pooled` on the file."
    )
}

/// A long analysis described (`cost`, [`crate::LongRun::describe`]), waiting for the reader.
pub fn confirm_long(cost: &str) -> String {
    format!("{cost} Start it, or Cancel to keep the results shown.")
}

/// A failure `e` of the running job; the previous results stay.
pub fn failed_running(e: &str) -> String {
    format!("{} {PREVIOUS_SETTINGS}", capitalised(e))
}

/// The results on show, `what` they are of.
pub fn showing(what: &str) -> String {
    format!("Showing {what}.")
}

/// A running job cancelled (or, `declined`, a long one not started).
pub fn cancelled(declined: bool, what: &str) -> String {
    let done = if declined { "Not started" } else { "Cancelled" };
    format!("{done}. Showing {what}.")
}

/// A finished analysis of `what`, computed in `secs` where `note` says.
pub fn finished(what: &str, secs: f64, note: &str) -> String {
    format!("Showing {what} (computed in {secs:.2} s{note}).")
}

/// Where a job's parts ran, after the device's note: `n` of them in workers, named by what
/// the job holds.
pub fn where_run(device_note: &str, n: usize, data: bool, streamed: bool, streamed_pooled: bool) -> String {
    if n == 0 {
        return device_note.to_string();
    }
    let what = match (data, streamed) {
        (true, _) => "splits",
        (_, true) if streamed_pooled => "file's shares and groups of splits",
        (_, true) => "file's shares",
        _ => "repeats",
    };
    format!("{device_note}; {n} of the {what} in worker threads")
}

/// The "Compute:" line's threads: the page's and `workers` more.
pub fn threads(workers: usize) -> String {
    match workers {
        0 => String::new(),
        n => format!(" · repeats and pooled splits on {} threads", n + 1),
    }
}

/// The "Compute:" line: the `device` in use, `why` (its title) and the workers `ready`.
pub fn compute_line(device: &str, why: &str, ready: usize) -> Edits {
    let mut e = Edits::new();
    e.text(ids::DEVICE, device).attr(ids::DEVICE, "title", why).text(ids::THREADS, threads(ready));
    e
}

/// ", about 40 s left by the estimate": what the estimate said, less the time spent.
pub fn estimate_left(secs: f64) -> String {
    let s = secs.max(1.0);
    match s {
        s if s < 60.0 => format!(", about {s:.0} s left by the estimate"),
        s if s < 3600.0 => format!(", about {:.0} min left by the estimate", s / 60.0),
        s => format!(", about {:.1} h left by the estimate", s / 3600.0),
    }
}

/// ", about 40 s left" once a job has run long enough (2 s and 5 %) for its pace so far to say
/// how long the rest takes; empty before.
pub fn time_left(elapsed_ms: f64, done: f64) -> String {
    if elapsed_ms < 2000.0 || !(0.05..1.0).contains(&done) {
        return String::new();
    }
    let secs = elapsed_ms / 1000.0 * (1.0 - done) / done;
    match secs {
        s if s < 60.0 => format!(", about {:.0} s left", s.max(1.0)),
        s if s < 3600.0 => format!(", about {:.0} min left", s / 60.0),
        s => format!(", about {:.1} h left", s / 3600.0),
    }
}

/// A job stepping on the page's thread, `describe`d, `done` of it after `elapsed_ms`: its share
/// and the time left, which before its pace says is the `estimate`'s (seconds) for a long job.
pub fn progress(describe: &str, done: f64, elapsed_ms: f64, estimate: Option<f64>, showing: &str) -> String {
    let left = match (time_left(elapsed_ms, done), estimate) {
        (l, Some(secs)) if l.is_empty() => estimate_left(secs - elapsed_ms / 1000.0),
        (l, _) => l,
    };
    format!("{describe} – {:.0} %{left}. Showing {showing}.", 100.0 * done)
}

/// A job whose ranks the GPU computes, `done` of it after `elapsed_ms`.
pub fn on_gpu(describe: &str, done: f64, elapsed_ms: f64, showing: &str) -> String {
    format!(
        "{describe} on the GPU – {:.0} %{}. Showing {showing}.",
        100.0 * done,
        time_left(elapsed_ms, done)
    )
}

/// Whether a running toy job shows its repeats so far as a partial analysis now: the first at
/// once, then at most every [`PARTIAL_EVERY_MS`], but not when the rest should take less than
/// half that at the pace so far (repainting every panel then only delays the finished one).
/// `(done, total)` repeats after `elapsed_ms`; `shown` repeats shown, `since_ms` ago.
pub fn partial_due((done, total): (usize, usize), elapsed_ms: f64, shown: usize, since_ms: f64) -> bool {
    let left_ms = elapsed_ms * (total - done) as f64 / done.max(1) as f64;
    done > shown && (shown == 0 || (since_ms > PARTIAL_EVERY_MS && left_ms > 0.5 * PARTIAL_EVERY_MS))
}

#[cfg(test)]
mod tests;
