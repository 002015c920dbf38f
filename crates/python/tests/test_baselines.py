"""APS, RAPS and SAPS (docs/method.md §5, "Baselines"): each deterministic definition written
here in numpy gives the package's sets on a fixed split; MAPIE 1.6, where it computes the same
thing, agrees; the randomized variants cover 1 − alpha on average over many splits."""

import math

import numpy as np
import pytest
import rvalue_explorer as rx

ALPHA = 0.1
RAPS_LAMBDA, RAPS_KREG, SAPS_LAMBDA = 0.05, 2.0, 0.3


def reading(x):
    """`--scores-are auto`: probabilities, log-probabilities or logits, within 1e-2."""
    if (x >= 0).all() and (np.abs(x.sum(axis=2) - 1) <= 1e-2).all():
        return "probabilities"
    top = x.max(axis=2, keepdims=True)
    lse = top[..., 0] + np.log(np.exp(x - top).sum(axis=2))
    if (x <= 0).all() and (np.abs(lse) <= 1e-2).all():
        return "log-probabilities"
    return "logits"


def probabilities(scores):
    """Each item's mean over draws of each draw's probabilities (a stable softmax unless the
    scores are probabilities), summed in draw order."""
    x = np.asarray(scores, dtype=np.float64)
    if reading(x) == "probabilities":
        p = x
    else:
        e = np.exp(x - x.max(axis=2, keepdims=True))
        p = e / e.sum(axis=2, keepdims=True)
    acc = np.zeros((x.shape[0], x.shape[2]))
    for d in range(x.shape[1]):
        acc += p[:, d, :]
    return acc / x.shape[1]


def deterministic_scores(pi, method):
    """E(k) with u = 1: π sorted descending, ties to the lower index; o(k) the 1-based rank."""
    n, k = pi.shape
    order = np.argsort(-pi, axis=1, kind="stable")
    sorted_pi = np.take_along_axis(pi, order, axis=1)
    o = np.arange(1, k + 1, dtype=np.float64)[None, :]
    if method == "saps":
        e_sorted = np.where(o == 1, sorted_pi[:, :1], sorted_pi[:, :1] + (o - 1) * SAPS_LAMBDA)
    else:
        e_sorted = np.cumsum(sorted_pi, axis=1)
        if method == "raps":
            e_sorted = e_sorted + RAPS_LAMBDA * np.maximum(0.0, o - RAPS_KREG)
    e = np.empty_like(e_sorted)
    np.put_along_axis(e, order, e_sorted, axis=1)
    return e


def split_sets(e, labels, mask, alpha):
    """{(item, k) : E(k) ≤ q̂} of the test items, q̂ the ⌈(n + 1)(1 − α)⌉-th smallest true-label E."""
    cal = np.flatnonzero(mask)
    n = len(cal)
    k_star = math.ceil((n + 1) * (1 - alpha) - 1e-12)
    q = np.inf if k_star > n else np.sort(e[cal, labels[cal]])[k_star - 1]
    return {(int(i), int(c)) for i in np.flatnonzero(~mask) for c in np.flatnonzero(e[i] <= q)}


def package_sets(scores, labels, mask, method, **kwargs):
    got = rx.sets(scores, labels, mask, ALPHA, methods=[method], randomized=False, raps_lambda=RAPS_LAMBDA,
                  raps_kreg=RAPS_KREG, saps_lambda=SAPS_LAMBDA, **kwargs)
    return {(int(i), int(c)) for i, c in zip(got["item"], got["candidate"])}, got


@pytest.mark.parametrize("method", ["aps", "raps", "saps"])
def test_each_deterministic_definition_gives_the_packages_sets(digits, method):
    scores, labels = digits
    mask = np.random.default_rng(5).random(len(labels)) < 0.5
    e = deterministic_scores(probabilities(scores), method)
    got, rows = package_sets(scores, labels, mask, method)
    assert got == split_sets(e, labels, mask, ALPHA) and len(got) > 0
    for i, c, s in zip(rows["item"], rows["candidate"], rows["score"]):
        assert abs(s - e[i, c]) < 1e-12


def test_readings_of_the_same_ensemble_agree(digits):
    scores, labels = digits
    mask = np.random.default_rng(6).random(len(labels)) < 0.5
    x = np.asarray(scores, dtype=np.float64)
    e = np.exp(x - x.max(axis=2, keepdims=True))
    p = e / e.sum(axis=2, keepdims=True)
    a, _ = package_sets(scores, labels, mask, "aps")
    b, _ = package_sets(p, labels, mask, "aps", scores_are="probabilities")
    c, _ = package_sets(np.log(p), labels, mask, "aps", scores_are="log-probabilities")
    assert a == b == c
    with pytest.raises(ValueError, match="scores read as probabilities: item 0"):
        package_sets(p * 1.5, labels, mask, "aps", scores_are="probabilities")
    with pytest.raises(ValueError, match="RAPS's λ must be a finite number ≥ 0"):
        rx.sets(scores, labels, mask, ALPHA, methods=["raps"], raps_lambda=-0.1)
    with pytest.raises(ValueError, match="RAPS's k_reg must be a finite number ≥ 0"):
        rx.conformal(scores, labels, ALPHA, methods=["raps"], raps_kreg=-1.0, splits=2)


@pytest.mark.parametrize("data", ["digits", "clip_like"])
def test_randomized_coverage_is_one_minus_alpha_over_many_splits(data, request):
    scores, labels = request.getfixturevalue(data)
    records = rx.conformal(scores, labels, ALPHA, methods=["aps", "raps", "saps"], splits=300, per_split=True)
    n_cal = round(len(labels) * 0.5)
    for method in ("aps", "raps", "saps"):
        cov = np.array([r["coverage"] for r in records if r["method"] == method])
        assert len(cov) == 300
        se = cov.std() / math.sqrt(len(cov))
        # Exact randomized scores cover 1 − α up to the rank's rounding, below 1/(n + 1).
        assert 1 - ALPHA - 3 * se < cov.mean() < 1 - ALPHA + 1 / (n_cal + 1) + 3 * se, (method, cov.mean(), se)


def test_calibrate_predicts_the_sets_of_the_joined_split(digits):
    scores, labels = digits
    cal = rx.calibrate(scores[:600], labels[:600], ALPHA, method="raps", randomized=False,
                       raps_lambda=RAPS_LAMBDA, raps_kreg=RAPS_KREG)
    assert "raps_lambda=0.05" in repr(cal) and "randomized=False" in repr(cal)
    mask = cal.predict(scores[600:])
    joined_mask = np.arange(len(labels)) < 600
    pi = probabilities(scores)
    want = split_sets(deterministic_scores(pi, "raps"), labels, joined_mask, ALPHA)
    got = {(600 + j, int(c)) for j, row in enumerate(mask) for c in np.flatnonzero(row)}
    assert got == want


def test_mapie_agrees_where_it_computes_the_same_thing(digits):
    """MAPIE 1.6's randomized APS: `SplitConformalClassifier(conformity_score="aps",
    prefit=True)`, fed the same mean probabilities through a prefit estimator, predicting with
    `include_last_label="randomized"`. It computes the same scores in law: its calibration score
    is the mass through the true label minus u·π_y (u' = 1 − u here), its prediction drops the
    last label at random as E(k) ≤ q̂ with a fresh u does, and its quantile (`higher` at level
    ⌈(n + 1)(1 − α)⌉/n) is the same order statistic. Conventions that differ: MAPIE always draws
    u, from numpy's generator (so no deterministic variant and no bit-for-bit match: the sets are
    compared as averages over splits, paired by split), and breaks ties among equal
    probabilities by numpy's argsort, not by the lower index. RAPS (MAPIE tunes λ and k_reg) and
    SAPS (absent from MAPIE) are not compared."""
    mapie = pytest.importorskip("mapie")
    assert mapie.__version__.startswith("1.6")
    from mapie.classification import SplitConformalClassifier
    from sklearn.base import BaseEstimator, ClassifierMixin

    scores, labels = digits
    pi = probabilities(scores)
    k = pi.shape[1]

    class Fixed(ClassifierMixin, BaseEstimator):
        def fit(self, x, y):
            self.classes_ = np.arange(k)
            return self

        def predict_proba(self, x):
            return pi[np.asarray(x, dtype=np.int64).ravel()]

        def predict(self, x):
            return self.predict_proba(x).argmax(axis=1)

    clf = Fixed().fit(np.zeros((1, 1)), labels)
    diffs = {"coverage": [], "size": []}
    for r in range(60):
        mask = np.random.default_rng(100 + r).random(len(labels)) < 0.5
        cal, test = np.flatnonzero(mask), np.flatnonzero(~mask)
        m = SplitConformalClassifier(estimator=clf, confidence_level=1 - ALPHA, conformity_score="aps",
                                     prefit=True, random_state=r)
        m.conformalize(cal[:, None], labels[cal])
        _, sets = m.predict_set(test[:, None], conformity_score_params={"include_last_label": "randomized"})
        theirs = sets[:, :, 0]
        ours = rx.conformal(scores, labels, ALPHA, methods=["aps"], split=mask, seed=r)[0]
        diffs["coverage"].append(theirs[np.arange(len(test)), labels[test]].mean() - ours["coverage_mean"])
        diffs["size"].append(theirs.sum(axis=1).mean() - ours["size_mean"])
    for key, d in diffs.items():
        d = np.array(d)
        assert abs(d.mean()) < 3 * d.std() / math.sqrt(len(d)) + 1e-12, (key, d.mean(), d.std())


def test_rows_say_how_the_draws_were_read(digits, clip_like):
    scores, labels = digits
    rows = rx.conformal(scores, labels, methods=["cp", "aps"], splits=2)
    assert "scores_are" not in rows[0]
    assert rows[1]["scores_are"] == reading(np.asarray(scores, dtype=np.float64))
    scores, labels = clip_like
    assert rx.conformal(scores, labels, methods=["raps"], splits=2)[0]["scores_are"] == "probabilities"
    given = rx.conformal(scores, labels, methods=["saps"], splits=2, scores_are="logits")
    assert given[0]["scores_are"] == "logits"
