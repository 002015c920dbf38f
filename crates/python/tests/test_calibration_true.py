"""cal_true: calibration given as the true label's draws alone [n_cal, M] gives what the joined
array [calibration items; test items] gives with its first items calibrating, bit for bit."""

import pickle

import numpy as np
import pytest
import rvalue_explorer as rx

from conftest import assert_rows_equal


def true_draws_and_test(scores, labels, n_cal):
    """The first n_cal items as true-label draws; the rest as test items."""
    cal_true = scores[np.arange(n_cal), :, labels[:n_cal]]
    return cal_true, scores[n_cal:], labels[n_cal:]


@pytest.mark.parametrize("ties", ["exchangeable", "index"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_true_draws_is_the_joined_split(digits, ties, dtype):
    scores, labels = digits[0][:300].astype(dtype), digits[1][:300]
    n_cal = 180
    cal_true, test, test_labels = true_draws_and_test(scores, labels, n_cal)
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


def test_true_draws_splits_are_seeded_and_sized(digits):
    scores, labels = digits
    cal_true, test, test_labels = true_draws_and_test(scores, labels, 500)
    kwargs = dict(cal_true=cal_true, cal_size=200, test_size=100, splits=3, rvalue="pooled")
    a = rx.conformal(test, test_labels, 0.1, **kwargs)
    assert_rows_equal(a, rx.conformal(test, test_labels, 0.1, **kwargs))
    assert all(row["splits"] == 3 for row in a)


def test_what_true_draws_cannot_do_raises(digits):
    scores, labels = digits
    cal_true, test, test_labels = true_draws_and_test(scores, labels, 100)
    with pytest.raises(ValueError, match="needs every candidate"):
        rx.conformal(test, test_labels, 0.1, cal_true=cal_true)
    with pytest.raises(ValueError, match="cal_size and test_size together"):
        rx.conformal(test, test_labels, 0.1, cal_true=cal_true, cal_size=10, rvalue="pooled")
    with pytest.raises(ValueError, match=r"\[n_cal, M\]"):
        rx.conformal(test, test_labels, 0.1, cal_true=scores, rvalue="pooled")


POOL_METHODS = [("cp", {"cp_draw": 3}), ("cp-avg", {}), ("cp-r", {"ties": "exchangeable", "seed": 7}),
                ("cp-r", {"ties": "index"})]


def same_bits_prediction(a: rx.Calibration, b: rx.Calibration):
    assert np.array_equal(np.asarray(a.threshold).view(np.uint64), np.asarray(b.threshold).view(np.uint64))
    assert np.array_equal(a.scores.view(np.uint64), b.scores.view(np.uint64))


@pytest.mark.parametrize("method, kwargs", POOL_METHODS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_calibrating_on_true_draws_predicts_what_the_items_would(digits, method, kwargs, dtype):
    scores, labels = digits[0][:400].astype(dtype), digits[1][:400]
    cal_true, test, _ = true_draws_and_test(scores, labels, 250)
    on_items = rx.calibrate(scores[:250], labels[:250], 0.1, method=method, rvalue="pooled", **kwargs)
    on_true_draws = rx.calibrate(cal_true=cal_true, alpha=0.1, method=method, rvalue="pooled", **kwargs)
    assert on_true_draws.calibrated_on == "true-label-draws" and on_true_draws.k is None
    assert (on_true_draws.n_calibration, on_true_draws.m) == (250, scores.shape[1])
    assert np.array_equal(on_true_draws.predict(test), on_items.predict(test))
    same_bits_prediction(on_true_draws, on_items)
    if kwargs.get("ties") == "exchangeable":
        return  # `sets` is an evaluation: it keys ties by place, a prediction by content
    # And what `sets` gives for the same true draws.
    got = rx.sets(test, np.zeros(len(test), int), None, 0.1, methods=[method], rvalue="pooled",
                  cal_true=cal_true, **kwargs)
    mask = np.zeros(on_true_draws.scores.shape, bool)
    mask[got["item"], got["candidate"]] = True
    assert np.array_equal(mask, on_true_draws.predict(test))


def test_true_draws_calibration_streams_files_and_memmaps(digits, tmp_path):
    scores, labels = digits
    cal_true, test, _ = true_draws_and_test(scores.astype(np.float16), labels, 500)
    np.save(tmp_path / "cal_true.npy", cal_true)
    np.save(tmp_path / "test.npy", test)
    from_array = rx.calibrate(cal_true=cal_true, method="cp-r", rvalue="pooled")
    from_file = rx.calibrate(cal_true=tmp_path / "cal_true.npy", method="cp-r", rvalue="pooled")
    want = from_array.predict(test)
    assert np.array_equal(from_file.predict(str(tmp_path / "test.npy")), want)
    same_bits_prediction(from_file, from_array)
    memmap = np.load(tmp_path / "test.npy", mmap_mode="r")
    assert np.array_equal(from_array.predict(memmap), want)
    # A calibration on items takes paths too (streamed: it keeps the true-label draws).
    on_items = rx.calibrate(scores[:500], labels[:500], rvalue="pooled")
    np.savez(tmp_path / "items.npz", scores=scores[:500], labels=labels[:500])
    from_npz = rx.calibrate(tmp_path / "items.npz", rvalue="pooled")
    assert from_npz.n_calibration == 500
    assert np.array_equal(from_npz.predict(tmp_path / "test.npy"), on_items.predict(test))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_true_draws_calibration_saves_and_pickles(digits, tmp_path, dtype):
    scores, labels = digits
    cal_true, test, _ = true_draws_and_test(scores.astype(dtype), labels, 500)
    cal = rx.calibrate(cal_true=cal_true, method="cp-r", rvalue="pooled", ties="index", alpha=0.2)
    cal.save(tmp_path / "true_draws.rvcal")
    data = (tmp_path / "true_draws.rvcal").read_bytes()
    head = data[: data.index(b"\nend\n") + 5].decode()
    assert "calibrated-on true-label-draws\n" in head and "candidates 1\n" in head
    n, m = cal_true.shape
    assert len(data) == len(head) + 8 * n + np.dtype(dtype).itemsize * n * m + 4, "stored in its own width"
    want = cal.predict(test)
    for other in (rx.load(tmp_path / "true_draws.rvcal"), pickle.loads(pickle.dumps(cal))):
        assert other.calibrated_on == "true-label-draws" and other.alpha == 0.2
        assert np.array_equal(other.predict(test), want)
        same_bits_prediction(other, cal)


def test_what_true_draws_calibration_refuses(digits):
    scores, labels = digits
    cal_true, test, _ = true_draws_and_test(scores, labels, 100)
    with pytest.raises(ValueError, match="parametric CP_r needs every candidate"):
        rx.calibrate(cal_true=cal_true, rvalue="parametric")
    with pytest.raises(ValueError, match="nonparametric CP_r needs every candidate"):
        rx.calibrate(cal_true=cal_true, rvalue="nonparametric")
    with pytest.raises(ValueError, match="give no labels"):
        rx.calibrate(labels=labels[:100], cal_true=cal_true)
    with pytest.raises(ValueError, match="one of them"):
        rx.calibrate()
    with pytest.raises(ValueError, match=r"\[n_cal, M\]"):
        rx.calibrate(cal_true=scores)
    with pytest.raises(ValueError, match="draw 99 does not exist"):
        rx.calibrate(cal_true=cal_true, method="cp", cp_draw=99)
    with pytest.raises(ValueError, match="parametric CP_r needs every candidate"):
        rx.calibrate(cal_true=cal_true)  # the default r-value needs every candidate
    cal = rx.calibrate(cal_true=cal_true, rvalue="pooled")
    with pytest.raises(ValueError, match="M = "):
        cal.predict(test[:, :5])
