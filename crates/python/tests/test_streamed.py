"""Scores given as a path or a numpy.memmap are streamed a block of items at a time: the same
numbers as an array in memory, and files past 2^28 elements in bounded memory (a sparse file:
a .npy header and a truncate, so it costs no disk)."""

import subprocess
import sys

import numpy as np
import pytest
import rvalue_explorer as rx

from conftest import ASSETS, assert_rows_equal, peak_mb, rvalue_bin, sparse_npy

OPTIONS = [
    {},
    {"rvalue": "nonparametric"},
    {"rvalue": "pooled", "ties": "exchangeable"},
    {"rvalue": "pooled", "ties": "index"},
    {"rvalue": "parametric", "prior": "pooled"},
]


@pytest.mark.parametrize("kwargs", OPTIONS)
def test_a_path_is_the_array_in_memory(digits, kwargs):
    scores, labels = digits
    want = rx.conformal(scores, labels, 0.1, splits=4, **kwargs)
    for path in (str(ASSETS / "digits_wbb.npz"), ASSETS / "digits_wbb.npz"):
        assert_rows_equal(rx.conformal(path, alpha=0.1, splits=4, **kwargs), want)
    got = rx.conformal(ASSETS / "digits_wbb_scores.npy", np.load(ASSETS / "digits_wbb_labels.npy"), 0.1,
                       splits=4, **kwargs)
    assert_rows_equal(got, want)


@pytest.mark.parametrize("kwargs", OPTIONS)
def test_a_memmap_is_the_array_in_memory(digits, tmp_path, kwargs):
    scores, labels = digits
    path = tmp_path / "scores.npy"
    np.save(path, scores.astype(np.float32))
    mm = np.load(path, mmap_mode="r")
    assert isinstance(mm, np.memmap)
    want = rx.conformal(np.array(mm), labels, 0.1, splits=3, per_split=True, **kwargs)
    got = rx.conformal(mm, labels, 0.1, splits=3, per_split=True, **kwargs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.keys() == w.keys()
        assert all(float(g[k]).hex() == float(w[k]).hex() for k in ("coverage", "size", "empty_rate"))


def test_sets_of_a_path_are_those_of_the_array(digits):
    scores, labels = digits
    mask = np.arange(len(labels)) % 2 == 0
    want = rx.sets(scores, labels, mask, 0.1, rvalue="pooled")
    got = rx.sets(ASSETS / "digits_wbb.npz", None, mask, 0.1, rvalue="pooled")
    assert got["method"] == want["method"]
    for key in ("item", "candidate", "score", "position"):
        assert np.array_equal(got[key], want[key])


def test_a_path_without_labels_says_what_is_missing():
    with pytest.raises(ValueError, match="no labels"):
        rx.conformal(ASSETS / "digits_wbb_scores.npy", alpha=0.1)
    with pytest.raises(ValueError, match="digits_wbb_nothing.npy"):
        rx.conformal(ASSETS / "digits_wbb_nothing.npy", alpha=0.1)


# 400,000 items × 700 draws × 1 candidate: 2.8·10^8 scores (1.12 GB), past the old 2^28 limit.
BIG = (400_000, 700, 1)
PEAK_MB = 600


def test_the_cli_scores_a_file_past_the_old_limit_in_bounded_memory(tmp_path):
    scores = sparse_npy(tmp_path / "big.npy", BIG)
    labels = tmp_path / "labels.npy"
    np.save(labels, np.zeros(BIG[0], dtype=np.int64))
    cmd = [rvalue_bin(), "conformal", "--scores", scores, "--labels", labels, "--alpha", "0.1",
           "--method", "cp,cp-avg", "--splits", "2", "--device", "cpu"]
    out = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].startswith("cp,0.1,1,0,1,0,")
    assert peak_mb(*cmd) < PEAK_MB


def test_python_scores_a_path_past_the_old_limit_in_bounded_memory(tmp_path):
    scores = sparse_npy(tmp_path / "big.npy", BIG)
    code = ("import sys, numpy as np, rvalue_explorer as rx\n"
            "rows = rx.conformal(sys.argv[1], np.zeros(400000, dtype=np.int64), 0.1, methods=['cp'], splits=2)\n"
            "assert rows[0]['coverage_mean'] == 1.0, rows\n")
    assert peak_mb(sys.executable, "-c", code, scores) < PEAK_MB
