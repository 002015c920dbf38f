//! A run's stop flag and progress count, for a caller that runs the numerics on one thread and
//! watches them from another (the Python package: the watching thread answers Ctrl-C and draws
//! a progress bar while the GIL is released).
//!
//! The run installs its [`Watch`] on the thread that computes ([`Watch::within`]); the numerics
//! reach it through [`checkpoint`] and [`advance`] between units of work (a split, a round of
//! pooled test items, a block of items), so that no signature has to carry it. Without an
//! installed watch both do nothing, and nothing computed depends on it: a watched run gives the
//! same bits as an unwatched one, or stops with [`Error::Stopped`].

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::{Error, Result};

/// Shared between the thread that computes and the one that watches.
#[derive(Debug, Default)]
pub struct Watch {
    stop: AtomicBool,
    done: AtomicU64,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Watch>>> = const { RefCell::new(None) };
}

impl Watch {
    pub fn new() -> Arc<Watch> {
        Arc::new(Watch::default())
    }

    /// Asks the run to stop at its next checkpoint.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Units of work done so far: test items whose scores are known, summed over splits and
    /// methods.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Runs `f` with this watch installed on the current thread (the previous one, if any, is
    /// put back afterwards).
    pub fn within<T>(self: &Arc<Self>, f: impl FnOnce() -> T) -> T {
        let previous = CURRENT.with(|c| c.replace(Some(self.clone())));
        let out = f();
        CURRENT.with(|c| *c.borrow_mut() = previous);
        out
    }
}

/// The watch installed on this thread, to hand to threads the run spawns.
pub fn current() -> Option<Arc<Watch>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// [`Error::Stopped`] if `watch` (the one installed on this thread when `None`) asks to stop.
pub fn checkpoint_of(watch: Option<&Watch>) -> Result<()> {
    match watch {
        Some(w) if w.stopped() => Err(Error::Stopped),
        Some(_) => Ok(()),
        None => checkpoint(),
    }
}

/// [`Error::Stopped`] if the watch installed on this thread asks to stop; else nothing.
pub fn checkpoint() -> Result<()> {
    let stopped = CURRENT.with(|c| c.borrow().as_ref().is_some_and(|w| w.stopped()));
    if stopped {
        Err(Error::Stopped)
    } else {
        Ok(())
    }
}

/// Counts `units` more units of work done on the installed watch, if any.
pub fn advance(units: usize) {
    CURRENT.with(|c| {
        if let Some(w) = c.borrow().as_ref() {
            w.done.fetch_add(units as u64, Ordering::Relaxed);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn checkpoints_see_only_the_installed_watch() {
        assert_eq!(checkpoint(), Ok(()));
        advance(3);
        let w = Watch::new();
        w.within(|| {
            advance(2);
            assert_eq!(checkpoint(), Ok(()));
            w.stop();
            assert_eq!(checkpoint(), Err(Error::Stopped));
            let inner = Watch::new();
            inner.within(|| assert_eq!(checkpoint(), Ok(())));
            assert_eq!(checkpoint(), Err(Error::Stopped), "the outer watch is back");
        });
        assert_eq!(w.done(), 2);
        assert_eq!(checkpoint(), Ok(()), "uninstalled after the run");
        assert_eq!(checkpoint_of(Some(&w)), Err(Error::Stopped));
    }

    use crate::conformal::{Method, Prepared, RvalueKind, ScoreOptions, SplitMetrics, SplitPlan};
    use crate::toy::{simulate, ToyParams};

    /// Every split's metrics of CP_r with `kind` r-values on a toy on `threads` threads.
    fn metrics(kind: RvalueKind, threads: usize) -> Result<Vec<SplitMetrics>> {
        let p = ToyParams { n_cal: 300, n_test: 2000, m: 4, k: 5, ..ToyParams::default() };
        let (t, _) = simulate(&p, 0)?;
        let labels: Vec<usize> = (0..t.n()).map(|i| i % t.k()).collect();
        let splits = SplitPlan::Random { count: 3, cal_fraction: 0.5, seed: 7 }.splits(t.n())?;
        let opts = ScoreOptions { kind, ..ScoreOptions::default() };
        let prep = Prepared::new(&t, &labels, true)?;
        let mut out = Vec::new();
        prep.calibrate_each_threads(Method::CpR, &opts, &splits, threads, |_, c| {
            out.push(c.metrics(0.1, false))
        })?;
        Ok(out)
    }

    #[test]
    fn a_watched_run_gives_the_same_bits_and_counts_its_test_items() {
        for kind in [RvalueKind::Pooled, RvalueKind::Parametric, RvalueKind::Nonparametric] {
            for threads in [1, 2] {
                let plain = metrics(kind, threads).unwrap();
                let w = Watch::new();
                let watched = w.within(|| metrics(kind, threads)).unwrap();
                assert_eq!(format!("{plain:?}"), format!("{watched:?}"), "{kind:?} on {threads}");
                assert_eq!(w.done(), 3 * 1150, "{kind:?}: three splits of 1150 test items");
            }
        }
    }

    #[test]
    fn a_stopped_run_ends_with_stopped() {
        for kind in [RvalueKind::Pooled, RvalueKind::Parametric, RvalueKind::Nonparametric] {
            for threads in [1, 2] {
                let w = Watch::new();
                w.stop();
                assert_eq!(w.within(|| metrics(kind, threads)), Err(Error::Stopped), "{kind:?}");
            }
        }
    }
}
