"""calibrate(...).predict(...) gives the sets of `rvalue predict`, and of `rvalue sets` on the split
labelled | new where no other item enters an item's set."""

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, csv_rows, run_cli

N_CAL = 600

CASES = [
    ("cp-r", {"rvalue": "pooled"}, ["--rvalue", "pooled"]),
    ("cp-r", {"rvalue": "pooled", "ties": "index", "seed": 5}, ["--rvalue", "pooled", "--ties", "index", "--seed", "5"]),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled"}, ["--rvalue", "parametric", "--prior", "pooled"]),
    ("cp-r", {"rvalue": "nonparametric"}, ["--rvalue", "nonparametric"]),
    ("cp", {"cp_draw": 2}, ["--cp-draw", "2"]),
    ("cp-avg", {"never_empty": True}, ["--never-empty"]),
]


def cli_masks(tmp_path, method, flags, scores, labels):
    """`rvalue predict` calibrated on the digits' first N_CAL items, the rest new, as a mask."""
    np.save(tmp_path / "cal.npy", scores[:N_CAL])
    np.save(tmp_path / "y.npy", labels[:N_CAL])
    np.save(tmp_path / "new.npy", scores[N_CAL:])
    run_cli("predict", "--calibration", tmp_path / "cal.npy", "--calibration-labels", tmp_path / "y.npy",
            "--test", tmp_path / "new.npy", "--alpha", "0.1", "--method", method,
            "--output", tmp_path / "sets.npy", "--device", "cpu", *flags)
    return np.load(tmp_path / "sets.npy")


def sets_masks(tmp_path, method, flags, n, k):
    """`rvalue sets` on the digits with the first N_CAL items calibrating, as a mask."""
    split = np.arange(n) < N_CAL
    np.save(tmp_path / "split.npy", split)
    run_cli("sets", "--scores", ASSETS / "digits_wbb.npz", "--split", tmp_path / "split.npy",
            "--alpha", "0.1", "--method", method, "--output", tmp_path / "sets.csv", "--device", "cpu", *flags)
    mask = np.zeros((n - N_CAL, k), dtype=bool)
    rows = csv_rows((tmp_path / "sets.csv").read_text())
    assert {r["item"] for r in rows} == set(range(N_CAL, n)), "every test item has a row"
    for row in rows:
        if row["candidate"] is not None:
            mask[row["item"] - N_CAL, row["candidate"]] = True
    return mask


@pytest.mark.parametrize("method, kwargs, flags", CASES)
def test_predict_is_rvalue_predict_for_every_scoring(digits, tmp_path, method, kwargs, flags):
    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.1, method=method, **kwargs)
    got = cal.predict(scores[N_CAL:])
    want = cli_masks(tmp_path, method, flags, scores, labels)
    assert got.dtype == np.bool_ and got.shape == want.shape
    assert np.array_equal(got, want)


# Methods whose sets look at no other new item and no item's place: a prediction is then
# `rvalue sets` on the joined split (pooled exchangeable ties and a pooled prior differ there:
# a prediction keys ties by content and fits the prior on the labelled items alone).
@pytest.mark.parametrize("method, kwargs, flags", [CASES[1], *CASES[3:]])
def test_predict_is_rvalue_sets_on_the_joined_split(digits, tmp_path, method, kwargs, flags):
    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.1, method=method, **kwargs)
    want = sets_masks(tmp_path, method, flags, len(labels), scores.shape[2])
    assert np.array_equal(cal.predict(scores[N_CAL:]), want)


@pytest.mark.parametrize("method, kwargs", [("cp-r", {}), ("cp", {}), ("cp-r", {"rvalue": "parametric"})])
def test_sets_are_the_scores_at_most_the_threshold(digits, method, kwargs):
    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.2, method=method, **kwargs)
    assert cal.threshold is None and cal.scores is None
    mask = cal.predict(scores[N_CAL:])
    q = cal.threshold
    if cal.per_item_threshold:
        assert isinstance(q, np.ndarray) and q.shape == (len(labels) - N_CAL,)
        q = q[:, None]
    else:
        assert isinstance(q, float)
    assert np.array_equal(mask, cal.scores <= q)
    assert cal.predicted_alpha == 0.2
    # Another α from the same calibration.
    wider = cal.predict(scores[N_CAL:], alpha=0.05)
    assert cal.predicted_alpha == 0.05 and np.all(wider >= mask)


def test_attributes_and_repr(digits):
    scores, labels = digits
    cal = rx.calibrate(scores[:100], labels[:100], 0.1, threads=2, rvalue="pooled")
    assert (cal.method, cal.rvalue, cal.ties, cal.alpha) == ("cp-r", "pooled", "exchangeable", 0.1)
    assert (cal.n_calibration, cal.m, cal.k, cal.threads, cal.seed) == (100, 30, 10, 2, 0)
    assert cal.per_item_threshold
    r = repr(cal)
    assert r.startswith("Calibration(method='cp-r', rvalue='pooled'") and "n_calibration=100" in r
    assert "no prediction yet" in r
    cal.predict(scores[100:110])
    assert "last prediction: 10 items at alpha=0.1" in repr(cal)


def test_the_calibration_keeps_its_own_copy(digits):
    scores, labels = digits
    own = scores[:300].copy()
    cal = rx.calibrate(own, labels[:300], method="cp")
    before = cal.predict(scores[300:400])
    own[:] = 0.0
    assert np.array_equal(cal.predict(scores[300:400]), before)


def test_new_items_of_another_shape_are_a_value_error(digits):
    scores, labels = digits
    cal = rx.calibrate(scores[:100], labels[:100])
    with pytest.raises(ValueError, match="K = 9 candidates"):
        cal.predict(scores[100:, :, :9])
    with pytest.raises(ValueError, match="M = 1 draws"):
        cal.predict(scores[100:, 0, :])


@pytest.mark.parametrize("method, kwargs, flags", [
    ("cp-r", {"rvalue": "pooled", "seed": 2}, ["--rvalue", "pooled", "--seed", "2"]),
    ("cp-r", {"rvalue": "parametric"}, ["--rvalue", "parametric"]),
    ("cp", {"never_empty": True}, ["--never-empty"]),
])
def test_predict_is_rvalue_predict(digits, tmp_path, method, kwargs, flags):
    scores, labels = digits
    np.savez(tmp_path / "cal.npz", scores=scores[:N_CAL], labels=labels[:N_CAL])
    np.save(tmp_path / "new.npy", scores[N_CAL:])
    run_cli("predict", "--calibration", tmp_path / "cal.npz", "--test", tmp_path / "new.npy", "--alpha", "0.1",
            "--method", method, "--device", "cpu", "--output", tmp_path / "mask.npy", *flags)
    want = np.load(tmp_path / "mask.npy")
    got = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.1, method=method, **kwargs).predict(scores[N_CAL:])
    assert want.dtype == np.bool_ and np.array_equal(got, want)
