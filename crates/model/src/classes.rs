//! Coverage by class and by set size (panel 9) at one α: each class's coverage pooled over the
//! splits (covered test items of the class over its appearances among test items), the worst
//! classes, each method's per-class coverages sorted (when there are too many classes for
//! bars), and coverage per set-size stratum. Everything here is read from the tallies that
//! [`crate::Analysis::at_alpha`] makes in the same pass as panel 6's numbers, so an α move
//! recomputes no split.

use rvalue_core::conformal::Method;

use crate::{AlphaView, SummaryRow};
use rvalue_core::conformal::Tally;

/// The set-size strata (inclusive bounds) of the size-stratified coverage: the core's.
pub use rvalue_core::conformal::SIZE_STRATA;

/// Up to this many classes the panel draws a group of bars per class; above, sorted curves.
pub const MAX_BARS: usize = 30;

/// How many of the worst classes the panel lists.
pub const WORST_LISTED: usize = 5;

/// What the panel says in the toy, where the classes are not classes.
pub const TOY_NOTE: &str = "In the toy every item's true label is candidate 0 and the false \
    candidates are exchangeable, so there is one class and its coverage is the marginal coverage \
    (per-class thresholds only put the other candidates, never a calibration item's label, in \
    every set); the set-size strata below still apply.";

/// `covered / count`, `None` for no item.
fn share(covered: u64, count: u64) -> Option<f64> {
    (count > 0).then(|| covered as f64 / count as f64)
}

/// A row's per-class tallies (pooled over splits).
fn classes(r: &SummaryRow) -> &[Tally] {
    &r.conditional.class_tallies
}

/// How the per-class coverages are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A group of bars per class (K ≤ [`MAX_BARS`]).
    Bars,
    /// Each method's coverages sorted ascending, one curve per method.
    Sorted,
}

/// One method's per-class coverages.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodClasses {
    pub method: Method,
    /// Per class; `None` for a class with no test item.
    pub coverage: Vec<Option<f64>>,
    /// The coverages of the classes present, ascending.
    pub sorted: Vec<f64>,
    /// Classes present whose coverage is below 1 − α.
    pub below: usize,
}

/// A class among the worst covered.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstClass {
    pub class: usize,
    /// Its appearances among the test items, over all splits.
    pub count: u64,
    /// Per method, in the view's order.
    pub coverage: Vec<f64>,
}

/// One set-size stratum's row: each method's coverage and item count.
#[derive(Debug, Clone, PartialEq)]
pub struct StratumRow {
    /// "0–1", "2–3", …
    pub label: String,
    /// Per method, in the view's order.
    pub coverage: Vec<Option<f64>>,
    pub count: Vec<u64>,
}

/// Panel 9 at one α.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassView {
    pub alpha: f64,
    /// 1 − α, the line the coverages are read against.
    pub target: f64,
    pub k: usize,
    /// Each class's appearances among the test items, over all splits.
    pub counts: Vec<u64>,
    pub layout: Layout,
    /// The methods run (the paper's three, then the baselines that are on).
    pub methods: Vec<MethodClasses>,
    /// The worst covered classes (lowest coverage over the methods first, then the lower
    /// index), at most [`WORST_LISTED`].
    pub worst: Vec<WorstClass>,
    /// Strata with at least one item under some method.
    pub strata: Vec<StratumRow>,
    /// A sentence that replaces the per-class view where classes mean nothing (the toy).
    pub note: Option<&'static str>,
    /// Per-class thresholds: the most classes of a split with a threshold of `+∞`, over the
    /// methods; `None` when marginal.
    pub unbounded: Option<usize>,
}

impl ClassView {
    /// The panel's view of `v` for `k` classes; `toy`: the analysis is the toy's.
    pub fn new(v: &AlphaView, k: usize, toy: bool) -> Self {
        let target = 1.0 - v.alpha;
        let methods: Vec<MethodClasses> = v
            .rows
            .iter()
            .map(|r| {
                let coverage: Vec<Option<f64>> =
                    classes(r).iter().map(|c| share(c.covered, c.count)).collect();
                let mut sorted: Vec<f64> = coverage.iter().flatten().copied().collect();
                sorted.sort_unstable_by(f64::total_cmp);
                let below = sorted.partition_point(|&c| c < target);
                MethodClasses { method: r.method, coverage, sorted, below }
            })
            .collect();
        ClassView {
            alpha: v.alpha,
            target,
            k,
            counts: v.rows.first().map_or_else(Vec::new, |r| classes(r).iter().map(|c| c.count).collect()),
            layout: if k <= MAX_BARS { Layout::Bars } else { Layout::Sorted },
            worst: worst(v),
            strata: strata(v),
            note: toy.then_some(TOY_NOTE),
            unbounded: v.rows.iter().filter_map(|r| r.unbounded_classes).max(),
            methods,
        }
    }

    /// The x of each sorted coverage on the curves: the share of the classes present at or
    /// below it, so the curve meets 1 − α at the share of classes under it.
    pub fn sorted_x(n: usize) -> Vec<f64> {
        (1..=n).map(|i| i as f64 / n as f64).collect()
    }
}

/// The classes present, lowest coverage over the methods first (ties to the lower index).
fn worst(v: &AlphaView) -> Vec<WorstClass> {
    let Some(first) = v.rows.first() else { return Vec::new() };
    let worst: Vec<WorstClass> = (0..classes(first).len())
        .filter(|&c| classes(first)[c].count > 0)
        .map(|c| {
            let coverage = v
                .rows
                .iter()
                .map(|r| classes(r).get(c).and_then(|t| share(t.covered, t.count)).unwrap_or(f64::NAN))
                .collect();
            WorstClass { class: c, count: classes(first)[c].count, coverage }
        })
        .collect();
    // Each class' key once, then only the listed few sorted: this runs on every α move.
    let lowest = |w: &WorstClass| w.coverage.iter().copied().fold(f64::INFINITY, f64::min);
    let mut keyed: Vec<(f64, WorstClass)> = worst.into_iter().map(|w| (lowest(&w), w)).collect();
    let order =
        |a: &(f64, WorstClass), b: &(f64, WorstClass)| a.0.total_cmp(&b.0).then(a.1.class.cmp(&b.1.class));
    if keyed.len() > WORST_LISTED {
        keyed.select_nth_unstable_by(WORST_LISTED - 1, order);
        keyed.truncate(WORST_LISTED);
    }
    keyed.sort_unstable_by(order);
    keyed.into_iter().map(|(_, w)| w).collect()
}

fn strata(v: &AlphaView) -> Vec<StratumRow> {
    SIZE_STRATA
        .iter()
        .enumerate()
        .filter_map(|(s, &(lo, hi))| {
            let mut coverage = vec![None; v.rows.len()];
            let mut count = vec![0; v.rows.len()];
            for (m, r) in v.rows.iter().enumerate() {
                let Some(st) = r.conditional.size_strata.get(s) else { continue };
                coverage[m] = share(st.covered, st.count);
                count[m] = st.count;
            }
            (count.iter().any(|&c| c > 0)).then(|| StratumRow {
                label: format!("{lo}–{hi}"),
                coverage,
                count,
            })
        })
        .collect()
}

/// The class's name: its name when the file names the classes, else its index.
pub fn class_label(names: Option<&[String]>, class: usize) -> String {
    names.and_then(|n| n.get(class)).cloned().unwrap_or_else(|| class.to_string())
}

/// The header of [`classes_csv`] with the paper's three methods.
pub const CLASSES_HEADER: &str = "class,name,count,alpha,cp_coverage,cp_avg_coverage,cp_r_coverage";

/// The header of [`classes_csv`] of `view`: a coverage column per method (`aps_coverage`, …).
pub fn classes_header(view: &ClassView) -> String {
    let methods = view.methods.iter().map(|m| format!("{}_coverage", m.method.label().to_lowercase()));
    ["class", "name", "count", "alpha"]
        .map(String::from)
        .into_iter()
        .chain(methods)
        .collect::<Vec<_>>()
        .join(",")
}

/// The per-class table at full precision: a row per class (empty coverages for a class with
/// no test item). Names are quoted as CSV quotes (a name may hold a comma or a quote).
pub fn classes_csv(view: &ClassView, names: Option<&[String]>) -> String {
    let mut out = format!("{}\n", classes_header(view));
    for c in 0..view.k {
        let name =
            names.and_then(|n| n.get(c)).map_or(String::new(), |n| format!("\"{}\"", n.replace('"', "\"\"")));
        let count = view.count(c);
        let cells: Vec<String> = view
            .methods
            .iter()
            .map(|m| m.coverage.get(c).copied().flatten().map_or(String::new(), |x| x.to_string()))
            .collect();
        out += &format!("{c},{name},{count},{},{}\n", view.alpha, cells.join(","));
    }
    out
}

impl ClassView {
    /// Class `c`'s appearances among the test items over all splits.
    pub fn count(&self, c: usize) -> u64 {
        self.counts.get(c).copied().unwrap_or(0)
    }
}

/// Method names as the panels' text writes them.
fn method_name(m: Method) -> &'static str {
    m.label()
}

impl ClassView {
    /// The panel's readout: how many of the classes present each method leaves under 1 − α.
    pub fn readout(&self) -> String {
        let present = self.counts.iter().filter(|&&c| c > 0).count();
        let each: Vec<String> =
            self.methods.iter().map(|m| format!("{} {}", method_name(m.method), m.below)).collect();
        let mut text = format!(
            "Classes covered below 1 − α = {} (of {present} in the test items): {}.",
            crate::scales::short(self.target),
            each.join(", ")
        );
        if let Some(n) = self.unbounded.filter(|&n| n > 0) {
            text += &format!(
                " {n} of {} classes have too few calibration items for a threshold of their own in some \
                 split: there they enter every set.",
                self.k
            );
        }
        text
    }

    /// A worst class's line: its name, count and each method's coverage (3 decimals).
    pub fn worst_text(&self, w: &WorstClass, names: Option<&[String]>) -> String {
        let covs: Vec<String> = self
            .methods
            .iter()
            .zip(&w.coverage)
            .map(|(m, c)| format!("{} {}", method_name(m.method), crate::scales::fixed(*c, 3)))
            .collect();
        format!("class {} ({} test items): {}", class_label(names, w.class), w.count, covs.join(", "))
    }
}

impl ClassView {
    /// The class present that `method` covers least (ties to the lower index).
    pub fn weakest(&self, method: Method) -> Option<(usize, f64)> {
        let m = self.methods.iter().find(|m| m.method == method)?;
        m.coverage
            .iter()
            .enumerate()
            .filter_map(|(c, x)| Some((c, (*x)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
    }
}

/// What per-class thresholds did, for the tour: CP_r's weakest class under marginal
/// thresholds (`marginal`), its coverage before and now (`per_class`), and CP_r's mean set size
/// before and now. `None` when either view lacks CP_r or the class.
pub fn per_class_outcome(
    marginal: &AlphaView,
    per_class: &AlphaView,
    k: usize,
    names: Option<&[String]>,
) -> Option<String> {
    let (before, after) = (ClassView::new(marginal, k, false), ClassView::new(per_class, k, false));
    let (class, was) = before.weakest(Method::CpR)?;
    let now = after.methods.iter().find(|m| m.method == Method::CpR)?.coverage.get(class).copied()??;
    let size = |v: &AlphaView| v.rows.iter().find(|r| r.method == Method::CpR).map(|r| r.size_mean);
    let (s0, s1) = (size(marginal)?, size(per_class)?);
    let f = |x: f64| crate::scales::fixed(x, 3);
    Some(format!(
        "CP_r's weakest class ({}) was covered {} with one threshold and is covered {} with a \
         threshold per class (1 − α = {}); CP_r's sets grew from {} to {} candidates on average.",
        class_label(names, class),
        f(was),
        f(now),
        crate::scales::short(1.0 - per_class.alpha),
        crate::scales::fixed(s0, 2),
        crate::scales::fixed(s1, 2),
    ))
}

#[cfg(test)]
mod tests;
