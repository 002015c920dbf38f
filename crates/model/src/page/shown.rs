//! The analysis on show: what it is of, the finished one a partial analysis replaced, a count
//! of the analyses shown, its tables at each α slider position, and the item being read for
//! the inspector.

use super::{alpha_slot, alpha_slots, slot_alpha};
use crate::{AlphaView, Analysis};
use rvalue_core::{Error, Result};

pub struct Shown {
    analysis: Option<Analysis>,
    /// What the shown analysis is of, for the status line.
    what: String,
    /// The last finished analysis while a partial one is shown (what cancelling brings back).
    previous: Option<(Analysis, String)>,
    /// Counts the analyses shown, so a caller can tell whether one was replaced.
    generation: u64,
    /// The table at each α slider position (`[never_empty][slot]`) for the analysis on show:
    /// filled in idle frames, so that moving α is a lookup.
    alpha_views: [Vec<Option<AlphaView>>; 2],
    /// The inspector's item being read from a streamed file: `(generation, item)`.
    reading_item: Option<(u64, usize)>,
}

fn empty_alpha_views() -> [Vec<Option<AlphaView>>; 2] {
    [vec![None; alpha_slots()], vec![None; alpha_slots()]]
}

impl Default for Shown {
    fn default() -> Shown {
        Shown::new()
    }
}

impl Shown {
    pub fn new() -> Shown {
        Shown {
            analysis: None,
            what: String::new(),
            previous: None,
            generation: 0,
            alpha_views: empty_alpha_views(),
            reading_item: None,
        }
    }

    /// The analysis on show (possibly a partial one of a running toy job).
    pub fn get(&self) -> Option<&Analysis> {
        self.analysis.as_ref()
    }

    /// What it is of.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Changes whenever another analysis is put on show.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Puts `a` on show; returns what was shown before.
    pub fn show(&mut self, a: Analysis, what: String) -> Option<(Analysis, String)> {
        self.generation += 1;
        self.alpha_views = empty_alpha_views();
        let old_what = std::mem::replace(&mut self.what, what);
        self.analysis.replace(a).map(|old| (old, old_what))
    }

    /// Takes the analysis off show; whether there was one.
    pub fn forget(&mut self) -> bool {
        if self.analysis.take().is_none() {
            return false;
        }
        self.generation += 1;
        self.previous = None;
        self.alpha_views = empty_alpha_views();
        self.what.clear();
        true
    }

    /// The finished analysis a partial one replaced, taken back.
    pub fn take_previous(&mut self) -> Option<(Analysis, String)> {
        self.previous.take()
    }

    /// Keeps `old`, which a first partial analysis replaced, unless one is kept already.
    pub fn keep_previous(&mut self, old: Option<(Analysis, String)>) {
        if self.previous.is_none() {
            self.previous = old;
        }
    }

    /// Forgets the kept analysis: the one on show is finished.
    pub fn drop_previous(&mut self) {
        self.previous = None;
    }

    /// The table at α: from the store when α is a slider position (computed and kept on a
    /// first visit), else computed.
    pub fn alpha_view(&mut self, alpha: f64, never_empty: bool) -> Result<AlphaView> {
        let slot = alpha_slot(alpha);
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

    /// Computes the table at one more α slider position; true if one was computed.
    pub fn warm_alpha_view(&mut self, never_empty: bool) -> bool {
        let Some(a) = &self.analysis else { return false };
        let Some(p) = self.alpha_views[usize::from(never_empty)].iter().position(Option::is_none) else {
            return false;
        };
        let alpha = slot_alpha(p);
        // Panel 5's threshold rule at that α's r̂ too (remembered), so that an α move only
        // looks it up.
        if let Some(r) = a.r_hat(alpha) {
            a.cut_rule(r);
        }
        self.alpha_view(alpha, never_empty).is_ok()
    }

    /// Marks `item` as being read for the analysis on show; false if it is already.
    pub fn start_reading(&mut self, item: usize) -> bool {
        let key = Some((self.generation, item));
        if self.reading_item == key {
            return false;
        }
        self.reading_item = key;
        true
    }

    /// A read item arrived for the analysis of `generation`: false if that is no longer on show.
    pub fn item_read(&mut self, generation: u64) -> bool {
        if self.generation != generation {
            return false;
        }
        self.reading_item = None;
        true
    }
}

#[cfg(test)]
mod tests;
