"""Scores read in place: which arrays are (C-ordered, aligned, native float16/32/64), that
they give the bits of a copied layout, that a Calibration keeps a snapshot, and that a call
on a large array does not grow the process by the array's size."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import assert_rows_equal

KINDS = [{"rvalue": "pooled", "splits": 3}, {"rvalue": "parametric", "splits": 3}]


@pytest.fixture(scope="module")
def small(digits):
    scores, labels = digits
    return np.ascontiguousarray(scores[:300]), labels[:300]


def unaligned(a):
    """A C-ordered copy of `a` one byte off its type's alignment."""
    raw = bytearray(a.nbytes + 1)
    out = np.frombuffer(raw, dtype=a.dtype, offset=1, count=a.size).reshape(a.shape)
    out[...] = a
    return out


def test_only_c_ordered_native_floats_are_read_in_place(small, tmp_path):
    scores, _ = small
    for dtype in (np.float16, np.float32, np.float64):
        a = scores.astype(dtype)
        assert rx._borrows(a) and rx._borrows(a[:, 0, :].copy()) and rx._borrows(a.tolist()) is True
        assert not rx._borrows(np.asfortranarray(a))
        assert not rx._borrows(a[:, :, ::2])
        assert not rx._borrows(a[:, 0, :]), "a strided [N, K] view"
        assert not rx._borrows(np.moveaxis(np.ascontiguousarray(np.moveaxis(a, 1, 0)), 0, 1))
        assert not rx._borrows(a.astype(a.dtype.newbyteorder(">")))
        b = unaligned(a)
        assert b.flags.c_contiguous and not b.flags.aligned and not rx._borrows(b)
    for dtype in (np.int32, np.uint8):
        assert not rx._borrows(scores.astype(dtype)), "converted by numpy, then copied"
    # A read-only memmap of a C-ordered .npy (what examples/dask_splits.py maps).
    np.save(tmp_path / "s.npy", scores)
    mapped = np.load(tmp_path / "s.npy", mmap_mode="r")
    assert not mapped.flags.writeable and rx._borrows(mapped)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("kwargs", KINDS, ids=["pooled", "parametric"])
def test_read_in_place_and_copied_give_the_same_bits(small, dtype, kwargs):
    scores, labels = small
    shared = scores.astype(dtype)
    copied = np.asfortranarray(shared)
    assert rx._borrows(shared) and not rx._borrows(copied)
    assert_rows_equal(rx.conformal(shared, labels, **kwargs), rx.conformal(copied, labels, **kwargs))
    pieces = dict(split_indices=range(1, 3), per_split=True)
    kw = {k: v for k, v in kwargs.items() if k != "splits"}
    assert_rows_equal(rx.conformal(shared, labels, **kw, **pieces), rx.conformal(copied, labels, **kw, **pieces))
    split = np.arange(len(labels)) < 150
    kw = {"rvalue": kwargs["rvalue"]}
    a, b = rx.sets(shared, labels, split, **kw), rx.sets(copied, labels, split, **kw)
    assert a["method"] == b["method"]
    for key in ("item", "candidate", "score", "position"):
        assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key
    cal = rx.calibrate(shared[:150], labels[:150], **kw)
    assert np.array_equal(cal.predict(shared[150:]), cal.predict(copied[150:]))
    assert np.array_equal(cal.predict(shared[150:]), cal.predict(np.ascontiguousarray(copied[150:])))


def test_a_calibration_keeps_its_own_copy(small):
    scores, labels = small
    mine = scores[:150].copy()
    cal = rx.calibrate(mine, labels[:150], rvalue="parametric")
    want = cal.predict(scores[150:]), cal.threshold
    mine[:] = -mine
    got = cal.predict(scores[150:]), cal.threshold
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]
    # The changed array does calibrate differently: the check above can fail.
    other = rx.calibrate(mine, labels[:150], rvalue="parametric")
    other.predict(scores[150:])
    assert other.threshold != want[1]


PEAK = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import rvalue_explorer as rx
    # Filled a block at a time: a whole float32 array first would raise the peak beyond what a
    # call on a float16 array (half its size) could grow it by.
    rng = np.random.default_rng(0)
    scores = np.empty((2000, 50, 500), dtype=sys.argv[2])
    for i in range(0, 2000, 100):
        scores[i:i + 100] = rng.standard_normal((100, 50, 500), dtype=np.float32)
    if sys.argv[1] == "fortran":
        # The C-ordered array stays alive: freed, its pages would leave room for the copy below
        # the peak already reached.
        kept, scores = scores, np.asfortranarray(scores)
    labels = np.arange(2000) % 500
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rx.conformal(scores, labels, methods=["cp"], splits=1, threads=1)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * 1024 / scores.nbytes)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kibibytes on Linux only")
def test_a_call_does_not_copy_a_large_array():
    """Peak memory of a process, each in its own: a call on a 200 MB C-ordered float32 array
    grows it by well under the array's size; the same call on the Fortran-ordered array (copied)
    by more. A float16 array (100 MB) too: read in place, not widened."""
    def growth(layout, dtype):
        done = subprocess.run([sys.executable, "-c", PEAK, layout, dtype], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return float(done.stdout)
    assert growth("c", "float32") < 0.5  # 0.16 measured: the summaries and the split's scores
    assert growth("fortran", "float32") > 0.9  # 1.16 measured
    assert growth("c", "float16") < 0.6
    assert growth("fortran", "float16") > 0.9
