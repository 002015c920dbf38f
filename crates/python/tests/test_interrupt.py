"""Long calls answer Ctrl-C and show progress.

SIGINT to a process inside `conformal`, `calibrate` (a file, streamed) or `Calibration.predict` raises KeyboardInterrupt in that
call before its work is done, and the process goes on (its next call works). `progress=` shows a
tqdm bar, a line on stderr, or calls a function with (done, total)."""

import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import rvalue_explorer as rx

from conftest import assert_rows_equal, sparse_npy

CHILD = r"""
import signal, sys, time
import numpy as np
import rvalue_explorer as rx

# Python's own Ctrl-C handling, even if the test runner was started with SIGINT ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
rng = np.random.default_rng(0)
scores = rng.normal(size=(2000, 10, 10)).astype(np.float32)
labels = rng.integers(0, 10, size=2000)
seen = []

def progress(done, total):
    seen.append((done, total))
    if len(seen) == 2:  # the first call is (0, total), before the work starts
        print("running", flush=True)

try:
    if sys.argv[1] == "conformal":
        rx.conformal(scores, labels, methods=["cp-r"], rvalue="pooled", splits=500, threads=1, progress=progress)
    elif sys.argv[1] == "calibrate":
        rx.calibrate(sys.argv[2], np.zeros(20000, int), rvalue="nonparametric", threads=1, progress=progress)
    else:
        cal = rx.calibrate(scores[:1000], labels[:1000], threads=1, rvalue="pooled")
        cal.predict(np.concatenate([scores] * 4), progress=progress)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", repr(time.monotonic()), *seen[-1], flush=True)
    print("after", rx.conformal(scores[:100], labels[:100], splits=2)[0]["splits"], flush=True)
"""


@pytest.mark.parametrize("call", ["conformal", "calibrate", "predict"])
def test_sigint_raises_keyboard_interrupt_inside_the_call(call, tmp_path):
    # For `calibrate`: 20,000 items of 700 × 20 zeros, a sparse file of many blocks.
    big = sparse_npy(tmp_path / "big.npy", (20_000, 700, 20))
    child = subprocess.Popen([sys.executable, "-c", CHILD, call, big], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "running\n"
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=120)
    finally:
        child.kill()
    lines = out.splitlines()
    assert lines[0].startswith("interrupted "), out
    _, at, done, total = lines[0].split()
    assert int(done) < int(total), "stopped before the work was done"
    assert lines[1] == "after 2", "the process goes on"
    # Not asserted (timing): printed for `pytest -s`.
    print(f"{call}: KeyboardInterrupt {float(at) - sent:.3f} s after SIGINT, at {done}/{total} items")


@pytest.fixture(scope="module")
def data(digits):
    scores, labels = digits
    return scores, labels, np.arange(len(labels)) % 2 == 0


def test_a_callback_sees_every_count_up_to_the_total(data):
    scores, labels, _ = data
    seen = []
    rows = rx.conformal(scores, labels, splits=4, progress=lambda done, total: seen.append((done, total)))
    # Bit for bit (a row holds NaN, e.g. an empty stratum's coverage, which == would refuse).
    assert_rows_equal(rows, rx.conformal(scores, labels, splits=4))  # progress changes no number
    total = 3 * 4 * (len(labels) - round(len(labels) * 0.5))
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert all(a[0] < b[0] and b[1] == total for a, b in zip(seen, seen[1:]))


def test_sets_and_predict_count_their_test_items(data):
    scores, labels, split = data
    seen = []
    rx.sets(scores, labels, split, methods=["cp", "cp-r"], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (2 * 450, 2 * 450)
    seen.clear()
    cal = rx.calibrate(scores[:600], labels[:600])
    cal.predict(scores[600:], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (300, 300)


def test_an_exception_in_the_callback_stops_the_call(data):
    scores, labels, _ = data
    calls = []

    def fail(done, total):
        calls.append(done)
        if done > 0:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        rx.conformal(scores, labels, methods=["cp-r"], rvalue="pooled", splits=200, threads=1, progress=fail)
    assert 0 < calls[-1] < 200 * 450


def test_progress_true_draws_a_tqdm_bar(data, capsys):
    pytest.importorskip("tqdm", reason="tqdm is pinned in the Makefile's venv")
    scores, labels, _ = data
    rx.conformal(scores, labels, splits=3, progress=True)
    err = capsys.readouterr().err
    assert "conformal: 100%" in err and f"{3 * 3 * 450}/{3 * 3 * 450}" in err, err


def test_progress_true_without_tqdm_writes_a_line_to_stderr(data, capsys, monkeypatch):
    # `None` in sys.modules is Python's way of saying a module cannot be imported.
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    scores, labels, _ = data
    rx.conformal(scores, labels, splits=2, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rconformal 0/2700") and err.endswith("\rconformal 2700/2700\n"), repr(err)


def test_progress_is_off_by_default_and_checked(data, capsys):
    scores, labels, _ = data
    rx.conformal(scores, labels, splits=2)
    rx.conformal(scores, labels, splits=2, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be"):
        rx.conformal(scores, labels, splits=2, progress="yes")
