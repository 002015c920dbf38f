"""cal_true: calibration given as the true label's draws alone [n_cal, M] gives what the joined
array [calibration items; test items] gives with its first items calibrating, bit for bit."""

import numpy as np
import pytest
import rvalue_explorer as rx

from conftest import assert_rows_equal


def pool_and_test(scores, labels, n_cal):
    """The first n_cal items as a pool of true-label draws; the rest as test items."""
    cal_true = scores[np.arange(n_cal), :, labels[:n_cal]]
    return cal_true, scores[n_cal:], labels[n_cal:]


@pytest.mark.parametrize("ties", ["exchangeable", "index"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_pool_is_the_joined_split(digits, ties, dtype):
    scores, labels = digits[0][:300].astype(dtype), digits[1][:300]
    n_cal = 180
    cal_true, test, test_labels = pool_and_test(scores, labels, n_cal)
    assert cal_true.shape == (n_cal, scores.shape[1])
    mask = np.arange(300) < n_cal
    kwargs = dict(methods=["cp", "cp-avg", "cp-r"], rvalue="pooled", ties=ties, seed=4)
    want = rx.conformal(scores, labels, 0.1, split=mask, **kwargs)
    got = rx.conformal(test, test_labels, 0.1, cal_true=cal_true, **kwargs)
    assert_rows_equal(got, want)
    want_sets = rx.sets(scores, labels, mask, 0.1, **kwargs)
    got_sets = rx.sets(test, test_labels, None, 0.1, cal_true=cal_true, **kwargs)
    assert got_sets["method"] == want_sets["method"]
    assert np.array_equal(got_sets["item"] + n_cal, want_sets["item"])
    for key in ("candidate", "score", "position"):
        assert np.array_equal(got_sets[key], want_sets[key])


def test_pool_splits_are_seeded_and_sized(digits):
    scores, labels = digits
    cal_true, test, test_labels = pool_and_test(scores, labels, 500)
    kwargs = dict(cal_true=cal_true, cal_size=200, test_size=100, splits=3, rvalue="pooled")
    a = rx.conformal(test, test_labels, 0.1, **kwargs)
    assert_rows_equal(a, rx.conformal(test, test_labels, 0.1, **kwargs))
    assert all(row["splits"] == 3 for row in a)


def test_what_a_pool_cannot_do_raises(digits):
    scores, labels = digits
    cal_true, test, test_labels = pool_and_test(scores, labels, 100)
    with pytest.raises(ValueError, match="needs every candidate"):
        rx.conformal(test, test_labels, 0.1, cal_true=cal_true)
    with pytest.raises(ValueError, match="cal_size and test_size together"):
        rx.conformal(test, test_labels, 0.1, cal_true=cal_true, cal_size=10, rvalue="pooled")
    with pytest.raises(ValueError, match=r"\[n_cal, M\]"):
        rx.conformal(test, test_labels, 0.1, cal_true=scores, rvalue="pooled")
