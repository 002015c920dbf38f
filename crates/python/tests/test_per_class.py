"""coverage="per-class": the CLI's numbers and sets, bit for bit; each class's threshold is its
own calibration items' quantile; calibrations (on items, streamed from files, on true-label draws with their
classes) predict alike and survive save, load and pickling; classes with too few calibration
items are warned about; true-label draws without their classes is refused."""

import pickle
import warnings

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import assert_rows_equal, csv_rows, run_cli, ASSETS

N_CAL = 600
DIGITS = ASSETS / "digits_wbb.npz"


def same_prediction(a: rx.Calibration, b: rx.Calibration, test) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ma, mb = a.predict(test), b.predict(test)
    assert np.array_equal(ma, mb)
    assert np.array_equal(np.asarray(a.threshold).view(np.uint64), np.asarray(b.threshold).view(np.uint64))


@pytest.mark.parametrize("rvalue", ["parametric", "nonparametric", "pooled"])
def test_conformal_and_sets_are_the_clis(digits, tmp_path, rvalue):
    scores, labels = digits
    got = rx.conformal(scores, labels, 0.1, splits=3, rvalue=rvalue, coverage="per-class")
    assert all(r["coverage"] == "per-class" and r["unbounded_classes"] == 0 for r in got)
    want = csv_rows(run_cli("conformal", "--scores", DIGITS, "--alpha", "0.1", "--splits", "3",
                            "--rvalue", rvalue, "--coverage", "per-class"))
    assert_rows_equal([{k: v for k, v in r.items() if k not in ("coverage", "unbounded_classes")} for r in got], want)
    mask = np.arange(len(labels)) % 3 != 0
    np.save(tmp_path / "mask.npy", mask)
    out = tmp_path / "sets.csv"
    run_cli("sets", "--scores", DIGITS, "--alpha", "0.1", "--split", tmp_path / "mask.npy", "--rvalue", rvalue,
            "--coverage", "per-class", "--output", out)
    s = rx.sets(scores, labels, mask, 0.1, rvalue=rvalue, coverage="per-class")
    # The CLI gives an empty set one row with no candidate; the columns hold set members only.
    rows = [r for r in csv_rows(out.read_text()) if r["candidate"] is not None]
    assert s["method"] == [r["method"] for r in rows]
    assert list(s["candidate"]) == [r["candidate"] for r in rows]
    assert np.array_equal(s["score"].view(np.uint64), np.array([r["score"] for r in rows]).view(np.uint64))


def test_each_class_threshold_is_its_quantile_and_an_absent_class_warns(digits):
    scores, labels = digits
    cal, test = scores[:N_CAL], scores[N_CAL:]
    cal_labels = labels[:N_CAL].copy()
    keep = cal_labels != 9  # class 9 calibrates nothing
    c = rx.calibrate(cal[keep], cal_labels[keep], 0.1, method="cp", coverage="per-class")
    assert c.coverage == "per-class" and "coverage='per-class'" in repr(c)
    with pytest.warns(UserWarning, match="1 of 10 classes have too few calibration items"):
        mask = c.predict(test)
    q = np.asarray(c.threshold)
    assert q.shape == (len(test), 10)
    s = -cal[keep][:, 0, :]
    for k in range(9):
        own = np.sort(s[cal_labels[keep] == k, k])
        rank = int(np.ceil((len(own) + 1) * 0.9 - 1e-9))
        assert np.all(q[:, k] == (own[rank - 1] if rank <= len(own) else np.inf))
    assert np.all(q[:, 9] == np.inf) and mask[:, 9].all()
    assert np.array_equal(mask, -test[:, 0, :] <= q)


@pytest.mark.parametrize("method, kwargs", [
    ("cp", {}),
    ("cp-r", {"rvalue": "pooled"}),
    ("cp-r", {"rvalue": "nonparametric"}),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled"}),
])
def test_calibrations_on_items_files_and_true_draws_agree_and_round_trip(digits, tmp_path, method, kwargs):
    scores, labels = digits
    cal, test = scores[:N_CAL].astype(np.float32), scores[N_CAL:]
    np.save(tmp_path / "cal.npy", cal)
    opts = dict(method=method, coverage="per-class", **kwargs)
    on_items = rx.calibrate(cal, labels[:N_CAL], 0.1, **opts)
    streamed = rx.calibrate(tmp_path / "cal.npy", labels[:N_CAL], 0.1, **opts)
    assert streamed.coverage == "per-class"
    same_prediction(on_items, streamed, test)
    if streamed.calibrated_on == "true-label-draws":
        truth = cal[np.arange(N_CAL), :, labels[:N_CAL]]
        on_true = rx.calibrate(cal_true=truth, cal_labels=labels[:N_CAL], alpha=0.1, **opts)
        same_prediction(on_items, on_true, test)
        with pytest.raises(ValueError, match="coverage='per-class' needs the class of every calibration item"):
            rx.calibrate(cal_true=truth, alpha=0.1, **opts)
    for c in (on_items, streamed):
        c.save(tmp_path / "c.rvcal")
        head = (tmp_path / "c.rvcal").read_bytes()
        assert b"\ncoverage per-class\nscores-are auto\nraps-lambda 0.01\nraps-kreg 5\nsaps-lambda 0.2\nrandomized true\nend\n" in head[: head.index(b"\nend\n") + 5]
        for other in (rx.load(tmp_path / "c.rvcal"), pickle.loads(pickle.dumps(c))):
            assert other.coverage == "per-class" and repr(other).split(";")[0] == repr(c).split(";")[0]
            same_prediction(other, c, test)


def test_true_draws_need_its_classes_for_conformal_and_sets(digits):
    scores, labels = digits
    truth = scores[np.arange(N_CAL), :, labels[:N_CAL]]
    test, test_labels = scores[N_CAL:], labels[N_CAL:]
    for fn in (rx.conformal, rx.sets):
        with pytest.raises(ValueError, match="give the pool's classes as cal_labels"):
            fn(test, test_labels, cal_true=truth, methods=["cp"], coverage="per-class")
    rows = rx.conformal(test, test_labels, cal_true=truth, cal_labels=labels[:N_CAL], methods=["cp"],
                        coverage="per-class")
    joined = rx.conformal(scores, labels, split=np.arange(len(labels)) < N_CAL, methods=["cp"],
                          coverage="per-class")
    assert rows[0]["coverage_mean"] == joined[0]["coverage_mean"]
