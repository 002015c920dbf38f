//! The page's element ids (`index.html`), one constant each, named as the id in upper snake
//! case. The controls' ids are their keys in [`crate::controls::table`] (with a slider's
//! `{key}-value` readout and a radio button's `{key}-{choice}`), not repeated here.

/// Declares the ids, and [`ALL`] holding them in the page's order.
macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident = $id:literal,)*) => {
        $($(#[$doc])* pub const $name: &str = $id;)*
        /// Every id above, with its constant's name.
        pub const ALL: &[(&str, &str)] = &[$((stringify!($name), $id)),*];
    };
}

ids! {
    /// The skip link from the top of the page to the tour card's Next.
    TOUR_SKIP = "tour-skip",
    /// The Tour button, pressed while the tour is on.
    TOUR_START = "tour-start",
    /// The Large text checkbox.
    LARGE_TEXT = "large-text",
    /// The banner an internal error shows.
    PANIC = "panic",
    /// The page's main element: the explorer starts only on a page holding it.
    APP = "app",
    /// The controls' column (scrolled to a tour step's controls).
    CONTROLS = "controls",
    /// The baselines' fieldset.
    BASELINES = "baselines",
    /// What the baselines are, under their fieldset's legend.
    BASELINES_HELP = "baselines-help",
    /// How the toy's draws are read by the baselines (toy mode only).
    TOY_READING = "toy-reading",
    /// The toy's parameters' fieldset (toy mode only).
    TOY_PARAMS = "toy-params",
    /// The score file's fieldset (score mode only).
    SCORES_PARAMS = "scores-params",
    /// Where a score file is dropped.
    DROP_ZONE = "drop-zone",
    /// The file input that chooses score files.
    FILE = "file",
    /// What files the file input takes.
    POOL_HELP = "pool-help",
    /// The bundled samples' buttons.
    SAMPLES = "samples",
    /// What file is loaded, or why none is.
    DATA_NAME = "data-name",
    /// How the baselines read the file's scores.
    SCORES_READING = "scores-reading",
    /// The running job's progress bar.
    PROGRESS = "progress",
    /// Start: runs a long analysis the status line has described.
    START_LONG = "start-long",
    /// Cancel: stops the running job, or declines a long one.
    CANCEL = "cancel",
    /// The status line (`data-state`, `data-shown` for scripts).
    STATUS = "status",
    /// The "Compute:" line's device.
    DEVICE = "device",
    /// The "Compute:" line's worker threads.
    THREADS = "threads",
    /// The error banner.
    ERROR = "error",
    /// The core's warnings on the data and settings.
    DATA_NOTES = "data-notes",
    /// What was wrong in the address a page opened with.
    URL_NOTES = "url-notes",
    /// The Copy link button.
    COPY_LINK = "copy-link",
    /// Whether the link was copied.
    COPY_STATUS = "copy-status",
    /// The link shown for copying by hand.
    LINK_TEXT = "link-text",
    /// The figures' section.
    PANELS = "panels",
    /// The tour's step card.
    TOUR = "tour",
    /// "Step n of N" on the card.
    TOUR_COUNT = "tour-count",
    /// The step's title.
    TOUR_TITLE = "tour-title",
    /// The step's sentences.
    TOUR_TEXT = "tour-text",
    /// What the step proposes to try.
    TOUR_TRY = "tour-try",
    /// The confirmation once the reader has tried it.
    TOUR_DONE = "tour-done",
    /// The card's Back button.
    TOUR_BACK = "tour-back",
    /// The card's Next button.
    TOUR_NEXT = "tour-next",
    /// The card's Leave tour button.
    TOUR_LEAVE = "tour-leave",
    /// Panel 1: the toy's score densities.
    PANEL_SCORES = "panel-scores",
    /// Panel 1: P(q > p).
    PQP = "pqp",
    /// Panel 1's canvas.
    PLOT_SCORES = "plot-scores",
    /// Panel 1's note.
    PQP_NOTE = "pqp-note",
    /// Panel 2: the r-value threshold against σ².
    PANEL_THRESHOLD = "panel-threshold",
    /// Panel 2: which r-value its curves describe.
    THRESHOLD_KIND = "threshold-kind",
    /// Panel 2's canvas.
    PLOT_THRESHOLD = "plot-threshold",
    /// Panel 2's note: the prior, s* and s0, or why there is no figure.
    THRESHOLD_NOTE = "threshold-note",
    /// Panel 3: coverage against α.
    PANEL_COVERAGE = "panel-coverage",
    /// Panel 3's canvas.
    PLOT_COVERAGE = "plot-coverage",
    /// Panel 3's overlay: the α marker.
    PLOT_COVERAGE_ALPHA = "plot-coverage-alpha",
    /// Panel 3's readout at α.
    COVERAGE_READOUT = "coverage-readout",
    /// Panel 4: set size against α.
    PANEL_SIZE = "panel-size",
    /// Panel 4's canvas.
    PLOT_SIZE = "plot-size",
    /// Panel 4's overlay: the α marker.
    PLOT_SIZE_ALPHA = "plot-size-alpha",
    /// Panel 4's readout at α.
    SIZE_READOUT = "size-readout",
    /// Panel 5: a false candidate's inclusion probability.
    PANEL_THEOREM3 = "panel-theorem3",
    /// Panel 5: which r-value its curves describe.
    THEOREM3_KIND = "theorem3-kind",
    /// Panel 5's canvas: the figure's back layer.
    PLOT_THEOREM3 = "plot-theorem3",
    /// Panel 5's overlay: the front layer, CP's curve that moves with α.
    PLOT_THEOREM3_ALPHA = "plot-theorem3-alpha",
    /// Panel 5's readout at the σ² marker.
    THEOREM3_READOUT = "theorem3-readout",
    /// Panel 5's threshold choice "calibrated r̂".
    CUT_CALIBRATED = "cut-calibrated",
    /// Panel 5's threshold choice "β".
    CUT_BETA = "cut-beta",
    /// Panel 5's note: α, β, σ² and what the curves hold, or why there is no figure.
    THEOREM3_NOTE = "theorem3-note",
    /// Panel 6: the summary at α.
    PANEL_SUMMARY = "panel-summary",
    /// Panel 6's table of coverage and set size.
    SUMMARY_TABLE = "summary-table",
    /// Panel 6's table of coverage by class.
    CONDITIONAL_TABLE = "conditional-table",
    /// Panel 6's readout: how much smaller CP_r's sets are.
    REDUCTION = "reduction",
    /// Panel 6's box on the paper's Table 1.
    PAPER_BOX = "paper-box",
    /// The paper box's heading.
    PAPER_HEADING = "paper-heading",
    /// The paper's Table 1.
    PAPER_TABLE = "paper-table",
    /// Panel 6's switch to the paper's per-item prior.
    PER_ITEM_PRIOR = "per-item-prior",
    /// Panel 7: the item inspector.
    PANEL_INSPECTOR = "panel-inspector",
    /// Panel 7's Previous item button.
    ITEM_PREV = "item-prev",
    /// Panel 7's Next item button.
    ITEM_NEXT = "item-next",
    /// Panel 7's Random item button.
    ITEM_RANDOM = "item-random",
    /// Panel 7's test item number.
    ITEM_INDEX = "item-index",
    /// Panel 7's line on the item: its data index, true label and α.
    ITEM_INFO = "item-info",
    /// Panel 7's button that downloads the first split's mask.
    SPLIT_MASK = "split-mask",
    /// Panel 7's rankings and sets.
    INSPECTOR = "inspector",
    /// Panel 8: the score file's statistics.
    PANEL_DATA = "panel-data",
    /// Panel 8's statistics.
    DATA_STATS = "data-stats",
    /// Panel 8's canvas: the variance histograms.
    PLOT_VARIANCE = "plot-variance",
    /// Panel 9: coverage by class and by set size.
    PANEL_CLASSES = "panel-classes",
    /// Panel 9's note when it has no classes to show.
    CLASSES_NOTE = "classes-note",
    /// Panel 9's canvas.
    PLOT_CLASSES = "plot-classes",
    /// Panel 9's readout.
    CLASSES_READOUT = "classes-readout",
    /// The heading of panel 9's worst classes.
    WORST_HEADING = "worst-heading",
    /// Panel 9's worst classes, a button each.
    WORST_CLASSES = "worst-classes",
    /// The heading of panel 9's table by set size.
    STRATA_HEADING = "strata-heading",
    /// Panel 9's table by set size.
    STRATA_TABLE = "strata-table",
    /// Panel 9's table head (one column per method).
    STRATA_HEAD = "strata-head",
    /// Panel 9's table body.
    STRATA_BODY = "strata-body",
    /// σ²'s label, which names the false candidates' variance in the toy and the candidates' in a
    /// file.
    SIGMA2_LABEL = "sigma2-label",
    /// The formulas' aside.
    FORMULAS = "formulas",
    /// Which r-value the formulas describe.
    FORMULAS_KIND = "formulas-kind",
    /// The nonparametric r-value's formula.
    FORMULA_NONPARAMETRIC = "formula-nonparametric",
    /// The pooled r-value's formula.
    FORMULA_POOLED = "formula-pooled",
}

#[cfg(test)]
mod tests;

/// The selector of the body of table `table` (an id above), whose rows the page rewrites.
pub fn table_body(table: &str) -> String {
    format!("#{table} tbody")
}
