"""`calibrate` given a path or a memmap streams the items a block at a time and keeps only what
`predict` needs of them (true-label draws, true-label scores or summaries; APS, RAPS and SAPS
their true-label scores): its predictions are
those of the array held whole, bit for bit, its saved files round-trip, and a file past 2^28
scores calibrates in bounded memory. (Blocks of one item, so that every pass spans many, are
forced in the core's tests, `predict::from_blocks`.)"""

import pickle
import struct
import sys
import zlib

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, peak_mb, sparse_npy

N_CAL = 600

# (method, options, what a streamed calibration keeps)
CASES = [
    ("cp", {"cp_draw": 2}, "true-label-draws"),
    ("cp-avg", {"never_empty": True}, "true-label-draws"),
    ("cp-r", {"rvalue": "pooled"}, "true-label-draws"),
    ("cp-r", {"rvalue": "pooled", "ties": "index", "seed": 5}, "true-label-draws"),
    ("cp-r", {"rvalue": "nonparametric"}, "true-label-scores"),
    ("cp-r", {"rvalue": "parametric", "prior": "per-item"}, "true-label-scores"),
    ("cp-r", {"rvalue": "parametric", "prior": "per-item", "variance": "of-mean", "algorithm": "grid"}, "true-label-scores"),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled"}, "summaries"),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled", "lambda_rule": "empirical"}, "summaries"),
    ("aps", {}, "true-label-scores"),
    ("raps", {"randomized": False, "raps_kreg": 2.0, "seed": 3}, "true-label-scores"),
    ("saps", {"coverage": "per-class", "scores_are": "log-probabilities"}, "true-label-scores"),
]
IDS = [f"{m}-{'-'.join(map(str, k.values()))}" for m, k, _ in CASES]


def same_prediction(a: rx.Calibration, b: rx.Calibration, test) -> None:
    """The same sets, thresholds and scores, to the last bit."""
    ma, mb = a.predict(test), b.predict(test)
    assert np.array_equal(ma, mb)
    assert np.array_equal(np.asarray(a.threshold).view(np.uint64), np.asarray(b.threshold).view(np.uint64))
    assert np.array_equal(a.scores.view(np.uint64), b.scores.view(np.uint64))


@pytest.fixture(scope="module")
def files(digits, tmp_path_factory):
    """The first N_CAL digits as float32 and float64 .npy files, an .npz carrying the labels."""
    scores, labels = digits
    d = tmp_path_factory.mktemp("cal")
    for dtype in ("float32", "float64"):
        np.save(d / f"cal_{dtype}.npy", scores[:N_CAL].astype(dtype))
    np.save(d / "labels.npy", labels[:N_CAL])
    np.savez(d / "cal.npz", scores=scores[:N_CAL], labels=labels[:N_CAL])
    return d


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method, kwargs, keeps", CASES, ids=IDS)
def test_a_streamed_calibration_predicts_the_arrays_bits(digits, files, method, kwargs, keeps, dtype):
    scores, labels = digits
    scores = scores.astype(dtype)
    held = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.1, method=method, **kwargs)
    assert held.calibrated_on == "items"
    path = files / f"cal_{dtype}.npy"
    sources = [(path, labels[:N_CAL]), (str(path), np.load(files / "labels.npy")), (np.load(path, mmap_mode="r"), labels[:N_CAL])]
    if dtype == "float32":
        sources.append((files / "cal.npz", None))
    test = scores[N_CAL:]
    for src, y in sources:
        streamed = rx.calibrate(src, y, 0.1, method=method, **kwargs)
        assert streamed.calibrated_on == keeps
        assert (streamed.n_calibration, streamed.m) == (N_CAL, scores.shape[1])
        assert streamed.k == (None if keeps == "true-label-draws" else scores.shape[2])
        same_prediction(streamed, held, test)
    # The new items streamed as well.
    np.save(files / "test.npy", test)
    same_prediction(streamed, held, files / "test.npy")


@pytest.mark.parametrize("method, kwargs, keeps", CASES[1:], ids=IDS[1:])
def test_a_streamed_calibration_saves_and_pickles(digits, files, tmp_path, method, kwargs, keeps):
    scores, labels = digits
    cal = rx.calibrate(files / "cal_float32.npy", labels[:N_CAL], 0.2, method=method, **kwargs)
    fresh = repr(cal)
    cal.save(tmp_path / "cal.rvcal")
    data = (tmp_path / "cal.rvcal").read_bytes()
    head = data[: data.index(b"\nend\n") + 5].decode()
    assert head.startswith("rvalue-explorer calibration\nformat 5\n")
    assert f"calibrated-on {keeps}\n" in head
    n, m, k = N_CAL, scores.shape[1], scores.shape[2]
    payload = {"true-label-draws": 4 * n * m, "true-label-scores": 8 * n, "summaries": 2 * 8 * n * k}[keeps]
    assert len(data) == len(head) + 8 * n + payload + 4
    for other in (rx.load(tmp_path / "cal.rvcal"), pickle.loads(pickle.dumps(cal))):
        assert other.calibrated_on == keeps and other.alpha == 0.2 and other.k == cal.k
        assert repr(other) == fresh
        same_prediction(other, cal, scores[N_CAL:])


def test_a_format_2_file_still_loads_and_the_new_kinds_need_format_3(digits, files, tmp_path):
    """Format 3 added `true-label-scores` and `summaries`; format 2's two kinds read as before."""
    scores, labels = digits

    def as_format_2(path):
        body = path.read_bytes()[:-4].replace(b"format 5\n", b"format 2\n", 1)
        body = body.replace(b"coverage marginal\n", b"", 1)
        body = body.replace(b"scores-are auto\nraps-lambda 0.01\nraps-kreg 5\nsaps-lambda 0.2\nrandomized true\n", b"", 1)
        path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))

    for name, cal in [("items", rx.calibrate(scores[:N_CAL], labels[:N_CAL], rvalue="pooled")),
                      ("true-label-draws", rx.calibrate(files / "cal_float32.npy", labels[:N_CAL], rvalue="pooled"))]:
        cal.save(tmp_path / "old.rvcal")
        as_format_2(tmp_path / "old.rvcal")
        old = rx.load(tmp_path / "old.rvcal")
        assert old.calibrated_on == name
        same_prediction(old, cal, scores[N_CAL:])
    new = rx.calibrate(files / "cal_float32.npy", labels[:N_CAL], rvalue="nonparametric")
    new.save(tmp_path / "new.rvcal")
    as_format_2(tmp_path / "new.rvcal")
    with pytest.raises(ValueError, match="calibrated-on 'true-label-scores' is not a valid value"):
        rx.load(tmp_path / "new.rvcal")


def test_a_file_the_core_reads_whole_calibrates_on_items(digits, tmp_path):
    """CSV and Fortran-order files are read whole (under 2^28 scores), as `conformal` reads them."""
    scores, labels = digits
    np.save(tmp_path / "fortran.npy", np.asfortranarray(scores[:N_CAL]))
    cal = rx.calibrate(tmp_path / "fortran.npy", labels[:N_CAL], rvalue="nonparametric")
    assert cal.calibrated_on == "items"
    same_prediction(cal, rx.calibrate(scores[:N_CAL], labels[:N_CAL], rvalue="nonparametric"), scores[N_CAL:])
    assert rx.calibrate(ASSETS / "small_long.csv", rvalue="nonparametric").calibrated_on == "items"


def test_a_mismatched_prediction_is_refused(digits, files):
    scores, labels = digits
    for kwargs in ({"rvalue": "nonparametric"}, {"rvalue": "parametric", "prior": "pooled"}):
        cal = rx.calibrate(files / "cal_float32.npy", labels[:N_CAL], **kwargs)
        with pytest.raises(ValueError, match="K = 9 candidates"):
            cal.predict(scores[N_CAL:, :, :9])
    with pytest.raises(ValueError, match="label of item 0 is"):
        rx.calibrate(files / "cal_float32.npy", labels[:N_CAL] + 10, rvalue="nonparametric")
    with pytest.raises(ValueError, match="labels"):
        rx.calibrate(files / "cal_float32.npy", labels[:10], rvalue="parametric", prior="pooled")


def test_a_streamed_calibration_counts_its_items(digits, files):
    _, labels = digits
    for kwargs in ({"rvalue": "pooled"}, {"rvalue": "nonparametric"}, {"rvalue": "parametric", "prior": "pooled"}):
        seen = []
        rx.calibrate(files / "cal_float32.npy", labels[:N_CAL], progress=lambda d, t: seen.append((d, t)), **kwargs)
        assert seen[0] == (0, N_CAL) and seen[-1] == (N_CAL, N_CAL), kwargs


# 20,000 items × 100 draws × 140 candidates: 2.8·10^8 scores (1.12 GB), past the old 2^28 limit.
# (Pooled CP_r's tables grow with n_cal × M, the calibration the method reads; not with K.)
BIG = (20_000, 100, 140)
FILE_MB = int(np.prod(BIG)) * 4 // 1_000_000

CHILD = """
import sys, numpy as np, rvalue_explorer as rx
scores, labels = sys.argv[1], np.load(sys.argv[2])
cal = rx.calibrate(scores, labels, 0.1, method="cp-r", **eval(sys.argv[3]))
assert cal.n_calibration == 20000, cal
test = np.load(scores, mmap_mode="r")[:50]
mask = cal.predict(test)
assert mask.shape == (50, 140), mask.shape
"""


@pytest.mark.parametrize("kwargs", [{"rvalue": "nonparametric"}, {"rvalue": "pooled"},
                                    {"rvalue": "parametric", "prior": "pooled"}])
def test_a_file_past_the_old_limit_calibrates_in_bounded_memory(tmp_path, kwargs):
    scores = sparse_npy(tmp_path / "big.npy", BIG)
    np.save(tmp_path / "labels.npy", np.arange(BIG[0]) % BIG[2])
    peak = peak_mb(sys.executable, "-c", CHILD, scores, tmp_path / "labels.npy", repr(kwargs))
    assert peak < FILE_MB / 3, f"peak {peak} MB for a {FILE_MB} MB file"
    print(f"{kwargs}: peak {peak} MB for a {FILE_MB} MB file")  # for `pytest -s`
