"""Data and settings that are accepted but limit what results mean: Python warns with the CLI's
words (the core's `conformal::warnings`), and labels read alike in every face."""

import warnings

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, assert_rows_equal, run_cli


def messages(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_ordinary_data_gets_no_warning(digits):
    scores, labels = digits
    assert messages(lambda: rx.conformal(scores, labels, 0.1, splits=3)) == []


def test_a_transposed_tensor_is_suspected_as_the_cli_does(tmp_path):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 6, 120)
    # [N, K = 6, M = 20], stacked the wrong way round: read as M = 6 draws of K = 20 candidates.
    stacked = rng.normal(size=(120, 6, 20))
    got = messages(lambda: rx.conformal(stacked, labels, 0.1, splits=2))
    assert len(got) == 1 and "is the tensor [N, M, K]?" in got[0], got
    np.save(tmp_path / "s.npy", stacked)
    np.save(tmp_path / "y.npy", labels)
    cli = run_cli("conformal", "--scores", tmp_path / "s.npy", "--labels", tmp_path / "y.npy",
                  "--alpha", "0.1", "--splits", "2", "--device", "cpu", stderr=True)
    assert f"rvalue: warning: {got[0]}" in cli


def test_alpha_below_one_over_n_cal_plus_one_warns(digits):
    scores, labels = digits
    got = messages(lambda: rx.conformal(scores[:500], labels[:500], 0.001, splits=2))
    assert len(got) == 1 and "every prediction set is full" in got[0], got
    mask = np.arange(500) < 250
    got = messages(lambda: rx.sets(scores[:500], labels[:500], mask, 0.001))
    assert len(got) == 1 and "with 250 calibration items" in got[0], got


def test_coarse_nonparametric_r_values_warn():
    rng = np.random.default_rng(2)
    scores, labels = rng.normal(size=(200, 15, 6)), rng.integers(0, 6, 200)
    got = messages(lambda: rx.conformal(scores, labels, 0.1, splits=2, rvalue="nonparametric"))
    assert len(got) == 1 and "only 7 sizes" in got[0], got
    assert messages(lambda: rx.conformal(scores, labels, 0.1, splits=2, methods=["cp"],
                                         rvalue="nonparametric")) == []


def test_whole_number_float_labels_read_as_the_cli_reads_them(digits):
    scores, labels = digits
    want = rx.conformal(scores, labels, 0.1, splits=3)
    assert_rows_equal(rx.conformal(scores, labels.astype(np.float32), 0.1, splits=3), want)
    with pytest.raises(ValueError, match=r"labels\[0\] is NaN; expected an integer class index"):
        rx.conformal(scores, np.where(np.arange(len(labels)) == 0, np.nan, labels), 0.1)


def test_minus_infinity_comes_with_a_hint(digits):
    scores, labels = digits
    bad = scores.copy()
    bad[0, 1, 1] = -np.inf
    with pytest.raises(ValueError, match="log of a probability of 0 is -inf"):
        rx.conformal(bad, labels, 0.1)
