"""Saved calibrations: `Calibration.save` / `rvalue_explorer.load` and pickling go through one
plain, versioned, checksummed file format; a round trip predicts the same sets bit for bit, and a
damaged, truncated, edited or foreign file raises ValueError saying what is wrong."""

import os
import pickle
import struct
import zlib

import numpy as np
import pytest

import rvalue_explorer as rx

N_CAL = 600

CASES = [
    ("cp-r", {"rvalue": "pooled", "ties": "index", "seed": 5}),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled", "algorithm": "grid", "lambda_rule": "empirical"}),
    ("cp-r", {"rvalue": "nonparametric"}),
    ("cp", {"cp_draw": 2, "never_empty": True}),
    ("cp-avg", {}),
]


def same_prediction(a: rx.Calibration, b: rx.Calibration, test) -> None:
    """The same sets, threshold and scores, to the last bit."""
    ma, mb = a.predict(test), b.predict(test)
    assert np.array_equal(ma, mb)
    assert np.array_equal(np.asarray(a.threshold).view(np.uint64), np.asarray(b.threshold).view(np.uint64))
    assert np.array_equal(a.scores.view(np.uint64), b.scores.view(np.uint64))


def settings(c: rx.Calibration) -> tuple:
    return (c.method, c.rvalue, c.variance, c.prior, c.algorithm, c.lambda_rule, c.cp_draw, c.ties,
            c.alpha, c.never_empty, c.seed, c.n_calibration, c.m, c.k)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("method, kwargs", CASES)
def test_save_load_and_pickle_predict_the_same_bits(digits, tmp_path, method, kwargs, dtype):
    scores, labels = digits
    scores = scores.astype(dtype)
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], 0.15, method=method, **kwargs)
    path = tmp_path / "cal.rvcal"
    cal.save(path)
    loaded = rx.load(path)
    unpickled = pickle.loads(pickle.dumps(cal))
    for other in (loaded, unpickled):
        assert isinstance(other, rx.Calibration)
        assert settings(other) == settings(cal)
        same_prediction(cal, other, scores[N_CAL:])
    assert os.listdir(tmp_path) == ["cal.rvcal"], "no temporary file left beside it"


def test_the_file_is_plain_data(digits, tmp_path):
    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], method="cp-r", rvalue="pooled")
    cal.save(str(tmp_path / "cal.rvcal"))  # a str path as well as a pathlib.Path
    data = (tmp_path / "cal.rvcal").read_bytes()
    head = data[: data.index(b"\nend\n") + 5].decode()
    assert head.startswith("rvalue-explorer calibration\nformat 5\n")
    assert head.endswith("\ncoverage marginal\nscores-are auto\nraps-lambda 0.01\nraps-kreg 5\nsaps-lambda 0.2\nrandomized true\nend\n")
    assert f"written-by rvalue-explorer {rx.__version__}\n" in head
    assert "method cp-r\nrvalue pooled\n" in head and "items 600\n" in head
    n, m, k = scores[:N_CAL].shape
    width = scores.dtype.itemsize
    assert len(data) == len(head) + 8 * n + width * n * m * k + 4
    # A pickle carries the same bytes (no Python objects of ours inside).
    assert data in pickle.dumps(cal)


def rewrite(data: bytes, old: bytes, new: bytes) -> bytes:
    """`data` with `old` replaced in its header and the checksum made valid again: a file edited
    on purpose rather than damaged."""
    body = data[:-4].replace(old, new, 1)
    assert body != data[:-4]
    return body + struct.pack("<I", zlib.crc32(body))


def with_first_label(data: bytes, label: int) -> bytes:
    """`data` with the first calibration item's label changed, the checksum valid again."""
    at = data.index(b"\nend\n") + 5
    body = data[:at] + struct.pack("<Q", label) + data[at + 8 : -4]
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.fixture
def saved(digits, tmp_path):
    scores, labels = digits
    path = tmp_path / "cal.rvcal"
    rx.calibrate(scores[:N_CAL], labels[:N_CAL]).save(path)
    return path, path.read_bytes()


BAD = {
    "flipped score byte": (lambda d: d[:-100] + bytes([d[-100] ^ 1]) + d[-99:], "checksum: the CRC-32 does not match"),
    "flipped header byte": (lambda d: d.replace(b"pooled", b"pooleD", 1), "checksum: the CRC-32 does not match"),
    "truncated": (lambda d: d[: len(d) // 2], "data: truncated"),
    "truncated header": (lambda d: d[:60], "header: it has no end"),
    "trailing bytes": (lambda d: d + b"\0", "1 bytes follow the end"),
    "another format": (lambda d: rewrite(d, b"format 5\n", b"format 6\n"), "format: the file has format '6'"),
    "unknown coverage": (lambda d: rewrite(d, b"coverage marginal", b"coverage mondrian"), "unknown coverage 'mondrian'"),
    "unknown basis": (lambda d: rewrite(d, b"calibrated-on items", b"calibrated-on guesses"), "calibrated-on 'guesses'"),
    "unknown option": (lambda d: rewrite(d, b"ties exchangeable", b"ties randomly"), "unknown tie order 'randomly'"),
    "alpha out of range": (lambda d: rewrite(d, b"alpha 0.1\n", b"alpha 1.5\n"), "1.5"),
    "a label beyond K": (lambda d: with_first_label(d, 99), "data: invalid argument: label of item 0 is 99"),
    "other dimensions": (lambda d: rewrite(d, b"draws ", b"draws 1"), "data: truncated"),
    "missing key": (lambda d: rewrite(d, b"seed 0\n", b""), "header: line 14 is 'calibrated-on items', expected 'seed"),
    "a pickle": (lambda d: pickle.dumps({"not": "a calibration"}), "does not start with"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_file_raises_value_error_saying_what_is_wrong(saved, case):
    path, data = saved
    change, message = BAD[case]
    path.write_bytes(change(data))
    with pytest.raises(ValueError, match="cal.rvcal") as e:
        rx.load(path)
    assert message in str(e.value), str(e.value)
    with pytest.raises(ValueError):
        rx._from_bytes(change(data))


def test_loading_a_pickle_runs_no_code(tmp_path):
    class Marker:
        def __reduce__(self):
            return (open, (str(tmp_path / "ran"), "w"))

    (tmp_path / "cal.rvcal").write_bytes(pickle.dumps(Marker()))
    with pytest.raises(ValueError, match="does not start with"):
        rx.load(tmp_path / "cal.rvcal")
    assert not (tmp_path / "ran").exists()


def test_save_is_whole_or_nothing(saved, tmp_path):
    path, data = saved
    cal = rx.load(path)
    with pytest.raises(OSError, match="no-such-dir"):
        cal.save(tmp_path / "no-such-dir" / "cal.rvcal")
    # Saving over an older file replaces it whole.
    path.write_bytes(b"an older file")
    cal.save(path)
    assert path.read_bytes() == data
    assert sorted(os.listdir(tmp_path)) == ["cal.rvcal"]
    with pytest.raises(OSError):
        rx.load(tmp_path / "missing.rvcal")


def test_load_takes_threads(saved, digits):
    path, _ = saved
    scores, _ = digits
    one, many = rx.load(path, threads=1), rx.load(path)
    assert one.threads == 1
    same_prediction(one, many, scores[N_CAL:])


def test_dask_serialises_it(digits):
    """What Dask does to a task's arguments and results (pickle, cloudpickle for closures)."""
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is pinned in the Makefile's venv")
    import cloudpickle

    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], rvalue="nonparametric")
    header, frames = distributed.protocol.serialize(cal)
    same_prediction(cal, distributed.protocol.deserialize(header, frames), scores[N_CAL:])
    same_prediction(cal, cloudpickle.loads(cloudpickle.dumps(cal)), scores[N_CAL:])


def test_a_format_1_file_still_loads(saved, digits):
    """Format 1 (before calibrations on true-label draws) had no `calibrated-on` line."""
    path, data = saved
    old = rewrite(rewrite(data, b"format 5\n", b"format 1\n"), b"calibrated-on items\n", b"")
    old = rewrite(rewrite(old, b"coverage marginal\n", b""), b"scores-are auto\nraps-lambda 0.01\nraps-kreg 5\nsaps-lambda 0.2\nrandomized true\n", b"")
    path.write_bytes(old)
    scores, _ = digits
    loaded = rx.load(path)
    assert loaded.calibrated_on == "items"
    same_prediction(rx._from_bytes(data), loaded, scores[N_CAL:])


def test_a_format_4_file_loads_with_the_baselines_defaults(saved, digits):
    """Format 4 (before the baselines) had no baseline keys: their defaults."""
    path, data = saved
    old = rewrite(rewrite(data, b"format 5\n", b"format 4\n"), b"scores-are auto\nraps-lambda 0.01\nraps-kreg 5\nsaps-lambda 0.2\nrandomized true\n", b"")
    path.write_bytes(old)
    scores, _ = digits
    same_prediction(rx._from_bytes(data), rx.load(path), scores[N_CAL:])


def test_a_baselines_calibration_round_trips(digits, tmp_path):
    scores, labels = digits
    cal = rx.calibrate(scores[:N_CAL], labels[:N_CAL], method="raps", raps_lambda=0.02, raps_kreg=3.0,
                       randomized=False, scores_are="log-probabilities")
    cal.save(tmp_path / "raps.rvcal")
    head = (tmp_path / "raps.rvcal").read_bytes()
    assert b"method raps\n" in head and b"scores-are log-probabilities\nraps-lambda 0.02\nraps-kreg 3\n" in head
    loaded = rx.load(tmp_path / "raps.rvcal")
    assert repr(loaded).split(";")[0] == repr(cal).split(";")[0]
    same_prediction(cal, loaded, scores[N_CAL:])
