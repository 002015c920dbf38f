"""r-value conformal prediction on numpy arrays.

Scores are ``[N, M, K]`` (items × draws × candidates, higher is better) or ``[N, K]`` (read as
M = 1), float16, float32 or float64 in any memory order, or anything ``numpy.asarray`` accepts (memmaps,
CPU torch tensors, lists). Labels are integers in ``0..K``. Every number comes from the same
Rust core as the ``rvalue`` command line, through the same calls, so results equal the CLI's
bit for bit. Work runs with the GIL released, on ``threads`` threads (default: every core);
the results are the same for any count. Bad input raises ``ValueError`` with the core's message.

Options are spelt as the CLI spells them: ``rvalue`` ("parametric", "nonparametric",
"pooled"), ``variance`` ("per-draw", "of-mean"), ``prior`` ("per-item", "pooled"),
``algorithm`` ("exact", "grid"), ``lambda_rule`` ("model", "empirical"; the CLI's
``--lambda``, a Python keyword), ``cp_draw``, ``ties`` ("exchangeable", "index"),
``never_empty``, ``seed``, ``threads``. Methods are "cp", "cp-avg" and "cp-r"; ``methods``
takes one name or a sequence of them. CP_r's default r-value is every face's (the CLI's, the
JS API's, the explorer's): ``rvalue="parametric"`` with ``prior="pooled"``, chosen from measured
coverage, set size and speed (docs/method.md §5; the README's "Which r-value?" table says when
another kind suits). A prediction's sets do not depend on the batch: an item's set is the same
alone, in any batch, at any place and repeated.

Copies: ``conformal``, ``sets`` and ``Calibration.predict`` (its new items) use the scores only
while they run, so they read a C-ordered, aligned, native-endian float16, float32 or float64
array in place, without a copy (a memmap's pages, a CPU torch tensor's buffer). Changing such an
array from another Python thread during the call is not allowed (as for numpy's own functions
that release the GIL). Any other layout (Fortran order, strided views) is copied once into the
core's row-major tensor, float16 and float32 kept as they are (every float16 is exactly a
float32: the same results); integer or big-endian scores are first converted to float64 by
numpy (a second copy). ``calibrate`` always copies what it keeps, so a
:class:`Calibration` is a snapshot: changing the array afterwards changes nothing. After a
calibration on an array, ``predict`` joins the calibration and new items into one tensor (a copy
of both), as the core computes a prediction as a split of the joined items.

Long calls (``conformal``, ``sets``, ``calibrate`` on a file or memmap, ``Calibration.predict``) run on a thread of their own while
the calling thread waits: Ctrl-C raises ``KeyboardInterrupt`` within about a second (the work
stops between splits, rounds of pooled test items or blocks of items, and nothing half-made is
returned). ``progress=True`` shows a bar (``tqdm.auto`` when installed, so notebooks get their
widget; a line on ``sys.stderr`` otherwise); ``progress=callable`` calls ``callable(done,
total)`` with test items scored, summed over methods and splits (``calibrate``: items read),
from the calling thread (an exception it raises stops the call). Default: no progress.

A :class:`Calibration` saves to a file (``save``, :func:`load`) and pickles (so joblib and Dask
can carry it) through one plain data format: a text header (the format number, the package version,
the options, what is kept, the shape and dtype), then the labels, what is kept of the
calibration items and a CRC-32.
Reading one runs no code; a truncated, damaged, hand-edited or other-format file raises
``ValueError`` saying what is wrong.
"""

import os

from typing import Any, Callable, Iterable, Literal, Sequence, TypedDict

from typing_extensions import NotRequired

import numpy as np
import numpy.typing as npt

__version__: str

Method = Literal["cp", "cp-avg", "cp-r", "aps", "raps", "saps"]
ScoresAre = Literal["auto", "logits", "log-probabilities", "probabilities"]
RvalueKind = Literal["parametric", "nonparametric", "pooled"]
Variance = Literal["per-draw", "of-mean"]
Prior = Literal["per-item", "pooled"]
Algorithm = Literal["exact", "grid"]
LambdaRule = Literal["model", "empirical"]
Ties = Literal["exchangeable", "index"]
Coverage = Literal["marginal", "per-class"]

Progress = bool | Callable[[int, int], object] | None

class Stratum(TypedDict):
    """A set-size or difficulty stratum ``lo..=hi`` over all splits."""

    lo: int
    hi: int
    coverage: float  # NaN when the stratum is empty
    count: int

class SummaryRow(TypedDict):
    """One row of ``rvalue conformal``: the keys are its CSV columns, then the tallies over all
    splits of its JSON output (docs/method.md §5, conditional coverage)."""

    method: str
    alpha: float
    coverage_mean: float
    coverage_sd: float
    size_mean: float
    size_sd: float
    position_mean: float  # NaN when no set holds its item's label
    empty_rate: float
    splits: int
    # Conditional coverage: mean and population sd over splits (NaN where undefined in every split).
    macro_coverage_mean: float
    macro_coverage_sd: float
    worst_class_coverage_mean: float
    worst_class_coverage_sd: float
    covgap_mean: float  # percent
    covgap_sd: float
    violated_classes_mean: float
    violated_classes_sd: float
    sscv_mean: float
    sscv_sd: float
    dsv_mean: float
    dsv_sd: float
    class_coverage: list[float]  # per class: covered / appearances among test items, all splits
    class_count: list[int]  # per class: appearances among test items, all splits
    size_strata: list[Stratum]  # set sizes 0–1, 2–3, 4–10, 11–100, 101–1000
    difficulty_strata: list[Stratum]  # true label's rank 1, 2–3, 4–6, 7–10, 11–100, 101–1000
    # With coverage="per-class" only: "per-class", and the most classes in one split whose
    # threshold was inf for too few calibration items (they enter every set).
    coverage: NotRequired[str]
    unbounded_classes: NotRequired[int]
    # APS, RAPS and SAPS only: how their draws were read ("auto" decided on the data).
    scores_are: NotRequired[str]

class SplitRecord(TypedDict):
    """One method's metrics on one split (``conformal(..., per_split=True)``)."""

    method: str
    alpha: float
    split: int  # the split's index in its seeded series (0 for a given mask)
    coverage: float
    size: float
    position: float  # NaN when no set holds its item's label
    empty_rate: float
    macro_coverage: float
    worst_class_coverage: float
    covgap: float  # percent
    violated_classes: int
    sscv: float  # NaN when every set is larger than 1000
    dsv: float
    # The split's tallies, which summarize() adds up: covered and count per class and stratum.
    class_covered: list[int]
    class_count: list[int]
    size_covered: list[int]
    size_count: list[int]
    difficulty_covered: list[int]
    difficulty_count: list[int]

class SetColumns(TypedDict):
    """The columns of ``rvalue sets``: one entry per (method, test item, candidate in its set),
    by method, item and position. ``pandas.DataFrame(sets(...))`` makes the CSV's table."""

    method: list[str]
    item: npt.NDArray[np.int64]
    candidate: npt.NDArray[np.int64]
    score: npt.NDArray[np.float64]  # the method's own score: the r-value for CP_r
    position: npt.NDArray[np.int64]

class Hyper(TypedDict):
    mu: float
    tau2: float

class RankColumns(TypedDict):
    """The columns of ``rvalue rank`` and the prior's hyperparameters."""

    estimate: npt.NDArray[np.float64]
    se: npt.NDArray[np.float64]
    post_mean: npt.NDArray[np.float64]
    post_sd: npt.NDArray[np.float64]
    rvalue: npt.NDArray[np.float64]
    hyper: Hyper

class Calibration:
    """A method calibrated on labelled items, or on true-label draws (made by :func:`calibrate`).

    ``predict(test_scores)`` gives the new items' prediction sets. A new item's set is its own:
    the same alone, in any batch, at any place in it and repeated. A prediction is the split
    whose calibration items are the labelled ones and whose test items are the new ones, with
    two rules that keep the batch out: a pooled prior is fitted on the labelled items alone, and
    pooled r-values order a new item's tied draws by a key of its own scores and ``seed``, not by
    its place. Without a pooled prior and exchangeable pooled ties, the sets equal ``sets(...)``
    (and ``rvalue sets``) on the joined items with that split, bit for bit. Pooled r-values are
    computed at ``predict``, so their thresholds are known only after a prediction.
    """

    alpha: float
    """The α of ``predict`` when none is given."""
    never_empty: bool
    seed: int
    """Keys, with each new item's scores, the pooled r-values' exchangeable tie order."""
    threads: int
    method: str
    rvalue: str
    variance: str
    prior: str
    algorithm: str
    lambda_rule: str
    cp_draw: int
    ties: str
    coverage: str
    """"marginal" (one threshold) or "per-class" (a threshold per class from its own calibration
    items)."""
    n_calibration: int
    """Labelled items (or true-label units) calibrated on."""
    m: int
    """Draws per item."""
    k: int | None
    """Candidates per item; None for a calibration on true-label draws (new items may have any K)."""
    calibrated_on: Literal["items", "true-label-draws", "true-label-scores", "summaries"]
    """What is kept of the calibration items: all of them (an array), their true label's draws
    (``cal_true``; or a file or memmap under CP, CP_avg, pooled CP_r), their true label's score
    (a file or memmap under nonparametric r-values, parametric ones with a per-item prior, or
    APS, RAPS and SAPS), or
    their summaries, means and variances per candidate (a file or memmap under a pooled prior)."""
    per_item_threshold: bool
    """True when each new item gets a threshold of its own (CP_r with pooled r-values)."""
    predicted_alpha: float | None
    """The α of the last prediction; None before one."""
    threshold: float | npt.NDArray[np.float64] | None
    """The last prediction's threshold q̂: a candidate is in the set when its score is ≤ q̂.
    A float for CP, CP_avg and per-item r-values; an array with one per new item for pooled
    r-values; per class, an array ``[n_test, K]`` of each candidate's class threshold; None
    before a prediction. ``inf`` when α is too small for the calibration items (every candidate
    is in)."""
    scores: npt.NDArray[np.float64] | None
    """The last prediction's scores ``[n_test, K]`` under the method (lower is more conforming:
    minus the score for CP and CP_avg, the r-value for CP_r); None before a prediction."""

    def predict(
        self, test_scores: Any, alpha: float | None = None, *, progress: Progress = None
    ) -> npt.NDArray[np.bool_]:
        """Prediction sets of new items as a boolean mask ``[n_test, K]`` (True = in the set).

        ``test_scores``: ``[n_test, M, K]`` or ``[n_test, K]``, the same M and K as the
        calibration; or a path. A path or a ``numpy.memmap`` is streamed a block of items at a
        time, as :func:`conformal` streams, unless the calibration is on an array's items (then
        a path is read whole, as the new items are joined to the calibration's). ``alpha``:
        default the calibration's. Updates ``threshold``, ``scores`` and
        ``predicted_alpha``. ``progress``: see the module's notes (total: ``n_test``).
        """

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the calibration (options, labels, scores; not the last prediction) to
        ``path``, whole or not at all: a temporary file beside it is renamed onto it when
        complete, so an older file there survives a failure. :func:`load` reads it back."""

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        """Pickles as the bytes ``save`` writes."""

def calibrate(
    scores: Any | None = None,
    labels: Any | None = None,
    alpha: float = 0.1,
    *,
    method: Method = "cp-r",
    rvalue: RvalueKind = "parametric",
    variance: Variance = "per-draw",
    prior: Prior = "pooled",
    algorithm: Algorithm = "exact",
    lambda_rule: LambdaRule = "model",
    cp_draw: int = 0,
    ties: Ties = "exchangeable",
    never_empty: bool = False,
    seed: int = 0,
    threads: int | None = None,
    cal_true: Any | None = None,
    progress: Progress = None,
    coverage: Coverage = "marginal",
    cal_labels: Any | None = None,
    scores_are: ScoresAre = "auto",
    raps_lambda: float = 0.01,
    raps_kreg: float = 5.0,
    saps_lambda: float = 0.2,
    randomized: bool = True,
) -> Calibration:
    """Calibrates ``method`` on labelled ``scores`` ``[N, M, K]`` and ``labels`` ``[N]`` at
    miscoverage ``alpha``; returns a :class:`Calibration` whose ``predict`` gives new items'
    sets. An array's scores are copied (whatever their layout): changing the array afterwards
    changes nothing.

    ``scores`` may be a path (an ``.npz`` may carry the labels) or a ``numpy.memmap``: then
    it is streamed a block of items at a time, as :func:`conformal` streams (any size, in
    bounded memory), and only what ``predict`` needs is kept (``calibrated_on``): each item's
    true-label draws ``[n_cal, M]`` for CP, CP_avg and pooled CP_r, its true label's score for
    nonparametric CP_r, parametric CP_r with a per-item prior and the baselines (whose reading
    of the draws is decided on the file), its summaries ``[n_cal, K]`` (means and variances)
    for a pooled prior. Predictions are those of the items held whole, bit
    for bit. ``progress``: see the module's notes (total: the items). A file the core cannot
    stream (CSV, Fortran order) is read whole, under 2^28 scores.

    ``cal_true`` instead of ``scores`` and ``labels``: the calibration items' true-label draws
    ``[n_cal, M]`` (an array or a path, float16/32/64), the layout of the paper's ImageNet
    true-label draws. CP, CP_avg and pooled CP_r need nothing more; other r-value kinds raise
    ``ValueError``.

    ``coverage="per-class"`` calibrates a threshold per class from that class's calibration
    items (Mondrian: coverage 1 − α within each class; docs/method.md §5), for every method; a
    class with too few calibration items enters every set, which ``predict`` warns about
    (``warnings.warn``). With ``cal_true``, ``cal_labels`` (``[n_cal]``) gives each unit's
    class, which per-class coverage needs. Saved and pickled calibrations keep the coverage and
    the classes."""

def load(path: str | os.PathLike[str], *, threads: int | None = None) -> Calibration:
    """A calibration saved by :meth:`Calibration.save`: the same predictions, bit for bit.
    ``threads``: as in :func:`calibrate` (not saved). A file that is not a whole, unchanged
    calibration of this format raises ``ValueError`` naming the file and what is wrong; a file
    that cannot be read, ``OSError``."""

def conformal(
    scores: Any,
    labels: Any | None = None,
    alpha: float | Sequence[float] = 0.1,
    *,
    methods: Method | Sequence[Method] = ("cp", "cp-avg", "cp-r"),
    splits: int = 100,
    seed: int = 0,
    cal_fraction: float = 0.5,
    split: Any | None = None,
    split_indices: Iterable[int] | None = None,
    per_split: bool = False,
    rvalue: RvalueKind = "parametric",
    variance: Variance = "per-draw",
    prior: Prior = "pooled",
    algorithm: Algorithm = "exact",
    lambda_rule: LambdaRule = "model",
    cp_draw: int = 0,
    ties: Ties = "exchangeable",
    never_empty: bool = False,
    threads: int | None = None,
    cal_true: Any | None = None,
    cal_size: int | None = None,
    test_size: int | None = None,
    progress: Progress = None,
    coverage: Coverage = "marginal",
    cal_labels: Any | None = None,
    scores_are: ScoresAre = "auto",
    raps_lambda: float = 0.01,
    raps_kreg: float = 5.0,
    saps_lambda: float = 0.2,
    randomized: bool = True,
) -> list[Any]:
    """Split-conformal coverage, set size, position and empty rate, as ``rvalue conformal``.

    ``scores`` is an array, a ``numpy.memmap`` or a path (``str`` or ``os.PathLike``) to a
    ``.npy``, ``.npz`` or CSV file; paths and memmaps are read a block of items at a time, so a
    file larger than memory is scored in bounded memory (the same numbers as in memory).
    ``labels`` may be left out when the file is an ``.npz`` with a ``labels`` member.

    Returns one :class:`SummaryRow` per method, in ``methods`` order: the CLI's CSV columns as
    keys, the same values bit for bit. ``alpha`` may be a sequence: one row per level (in that
    order) and method, every level on the same splits, as ``rvalue conformal --alpha A1,A2``.

    ``methods`` may add the baselines ``"aps"``, ``"raps"`` and ``"saps"`` (docs/method.md §5):
    scored from each item's mean class probabilities, the draws read as ``scores_are`` says
    (``"auto"`` decides from the data), with ``raps_lambda``, ``raps_kreg``, ``saps_lambda``
    (each ≥ 0) and ``randomized=False`` for u = 1; they cannot use ``cal_true``.

    The splits: ``splits`` random splits of the series keyed by ``seed``, each calibrating
    ``round(N * cal_fraction)`` items; or one ``split`` (a boolean mask ``[N]``, True =
    calibration; ``seed`` then keys only the pooled r-values' tie order); or ``split_indices``:
    those splits of the seeded series (``range(a, b)`` is the piece of a run from split a to
    b − 1; ``splits`` is then not used).

    ``per_split=True`` returns one :class:`SplitRecord` per method and split instead (methods
    in order, splits in the given order): pieces computed anywhere (Dask tasks, processes,
    machines) and gathered give, through :func:`summarize`, the rows of one call over all of
    them.

    ``cal_true`` (``[n_cal, M]``: each calibration item's true-label score in each draw)
    calibrates on those true-label draws instead of on a split of ``scores``, which then holds the test
    items: CP, CP_avg and pooled CP_r only. One split of everything, or with ``cal_size`` and
    ``test_size`` ``splits`` seeded random subsets of both. The results are those of the
    joined array ``[calibration items; test items]``, bit for bit.

    ``coverage="per-class"``: a threshold per class (see :func:`calibrate`); rows then add
    ``coverage`` and ``unbounded_classes``, and classes that enter every set are warned about.
    ``cal_labels``: the classes of ``cal_true``'s units, which per-class coverage needs.
    """

def summarize(records: Iterable[SplitRecord]) -> list[SummaryRow]:
    """The summary rows of per-split records gathered in any order from any number of
    ``conformal(..., per_split=True)`` calls, one row per method in the order the methods
    first appear. Each method's splits are taken in index order, so the rows equal those of one
    ``conformal`` call over the same splits, bit for bit. A split given twice, or records of one
    method at two α, raise ValueError."""

def sets(
    scores: Any,
    labels: Any | None = None,
    split: Any | None = None,
    alpha: float = 0.1,
    *,
    methods: Method | Sequence[Method] = ("cp", "cp-avg", "cp-r"),
    seed: int = 0,
    rvalue: RvalueKind = "parametric",
    variance: Variance = "per-draw",
    prior: Prior = "pooled",
    algorithm: Algorithm = "exact",
    lambda_rule: LambdaRule = "model",
    cp_draw: int = 0,
    ties: Ties = "exchangeable",
    never_empty: bool = False,
    threads: int | None = None,
    cal_true: Any | None = None,
    progress: Progress = None,
    coverage: Coverage = "marginal",
    cal_labels: Any | None = None,
    scores_are: ScoresAre = "auto",
    raps_lambda: float = 0.01,
    raps_kreg: float = 5.0,
    saps_lambda: float = 0.2,
    randomized: bool = True,
) -> SetColumns:
    """The prediction sets of one split, as ``rvalue sets``: ``split`` is a boolean mask
    ``[N]`` (True = calibration), or ``cal_true`` true-label draws ``[n_cal, M]``
    that calibrates every item of ``scores`` (as in :func:`conformal`); ``seed`` keys the pooled
    r-values' tie order (split 0 of it). ``scores`` may be a path or a memmap, streamed. Returns
    the CSV's columns (``method``, ``item``, ``candidate``, ``score``, ``position``), one entry
    per (method, test item, candidate in its set). An item whose set is empty has no entry here
    (the CLI's CSV gives it one row with no candidate). ``coverage``, ``cal_labels``: as in
    :func:`conformal`."""

def from_estimators(
    estimators: Any,
    X: Any,
    *,
    log: bool = True,
    clip: float = 1e-12,
    classes: Any | None = None,
    return_classes: bool = False,
) -> Any:
    """Stack each member's ``predict_proba(X)`` into scores ``[N, M, K]`` (member = draw).

    ``estimators`` is a list of fitted scikit-learn-style classifiers, or one fitted ensemble
    whose ``estimators_`` are its members (a random forest, extra trees, a ``BaggingClassifier``,
    whose members see only their ``estimators_features_``). Candidate ``k`` is ``classes[k]``:
    the ensemble's ``classes_``, or the sorted union of the members' ``classes_``, or the
    ``classes`` given. A class a member never saw gets probability 0 there. With ``log=True``
    (default) the scores are log-probabilities with probabilities clipped to ``[clip, 1]``
    first, so a hard 0 (common in trees) gives ``log(clip)`` instead of ``-inf``. Returns the
    float64 scores, and the classes too with ``return_classes=True``: labels for
    :func:`conformal` are each label's index in ``classes`` (``np.searchsorted(classes, y)``
    when they are sorted, as the defaults are).
    """

def save_html(
    path: str | os.PathLike[str],
    scores: Any,
    labels: Any | None = None,
    *,
    class_names: Sequence[str] | None = None,
    **settings: Any,
) -> None:
    """Write one self-contained HTML file: the explorer page with these scores and labels,
    opened with ``settings``, that a browser shows from disk with no network.

    ``settings`` are the page's link parameters with ``_`` for ``-`` (``alpha=0.05``,
    ``beta``, ``sigma2``, ``rvalue="pooled"``, ``splits=20``, ``cal_fraction``, ``split_seed``,
    ``item=3``, ``panel="coverage"`` for one panel alone, ``theme``, ``name=`` the name shown
    for the data, ...). ``class_names``: one name per class, shown as text (at most 200
    characters each, no control or bidirectional control characters). The page's wasm and
    JavaScript are inlined and its Content-Security-Policy kept; the data (as an ``.npz``) and
    the settings are base64 in blocks the browser never runs. The file is about 1.7 MB plus 4/3 of
    the data's bytes. Raises ``ValueError`` (and writes nothing) for bad scores, labels, class
    names or setting values and for data over 256 MiB, and ``TypeError`` naming unknown
    settings."""

def explore(
    scores: Any,
    labels: Any | None = None,
    *,
    class_names: Sequence[str] | None = None,
    **settings: Any,
) -> Any:
    """The explorer page on these scores and labels, inline in a notebook (Jupyter, JupyterLab,
    Notebook 7, VS Code): an anywidget (``pip install 'rvalue-explorer[notebook]'``).

    Takes what :func:`save_html` takes and raises as it does (``ValueError`` for bad data,
    ``TypeError`` naming unknown settings); ``panel="coverage"`` shows one panel. The page, its
    wasm and the data go to the browser in the widget's state: no file, no server, no network.
    The data goes as a binary buffer, whole, up to 512 MiB; more is refused (it is not
    streamed). A path to an ``.npy`` is mapped, sized, then read. ``w.alpha``, ``w.beta`` and ``w.sigma2`` follow the page's
    sliders both ways (a value set snaps to the slider's nearest position, as a link's does);
    ``w.summary`` is panel 6's rows as dicts keyed by its column heads, as shown;
    ``w.save_html(path)`` writes the page as :func:`save_html` does."""

def report_inputs(
    scores: Any,
    labels: Any | None = None,
    *,
    class_names: Sequence[str] | None = None,
    **settings: Any,
) -> tuple[bytes, str]:
    """What the page reads for a report: the data as ``.npz`` bytes and the settings as a
    link's query string, checked and raising as :func:`save_html` does."""

def split_masks(
    n: int,
    splits: int = 100,
    *,
    seed: int = 0,
    cal_fraction: float = 0.5,
    indices: Sequence[int] | None = None,
) -> np.ndarray:
    """The seeded random splits of ``n`` items as boolean masks ``[R, n]`` (True = calibration):
    row ``r`` is split ``r`` of ``seed``, the split :func:`conformal` runs as split ``r`` and
    ``rvalue sets --seed S --split-index r`` runs, so any of them can be passed on as
    ``split=`` (or saved for ``--split``). ``indices`` picks split numbers instead of
    ``0..splits``. Raises ``ValueError`` when a split would leave no calibration or test item.
    """

def rvalues(
    x: Any,
    se: Any | None = None,
    *,
    s: Any | None = None,
    algorithm: Algorithm = "exact",
    lambda_rule: LambdaRule | None = None,
    hyper: tuple[float, float] | None = None,
) -> RankColumns:
    """Parametric r-values (Normal–Normal empirical Bayes) of units with estimates ``x`` and
    standard errors ``se`` (or noise variances ``s = se²``), as ``rvalue rank``.

    ``algorithm``: "exact" (the infimum over β to 1e-9) or "grid" (the rvalues 0.7.1 R
    package's). ``lambda_rule``: "model" or "empirical"; default "model" with "exact" and
    "empirical" with "grid", which then gives the R package's r-values. ``hyper``: the prior
    ``(mu, tau2)``; estimated by marginal maximum likelihood when None. Returns the CLI's
    columns as float64 arrays and the prior used as ``hyper``.
    """

def toy_probability(
    mu_p: float = 1.0, sigma2_p: float = 1.0, mu_q: float = 0.0, sigma2_q: float = 1000.0
) -> float:
    """``P(q > p)`` for independent ``p ~ N(mu_p, sigma2_p)`` and ``q ~ N(mu_q, sigma2_q)``: how
    often a false candidate's single draw beats the true one's in the paper's toy. 0.4874 at the
    defaults (the toy's)."""
