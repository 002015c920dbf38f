"""float16 scores: read in place when C-ordered (kept as float16 by the core), and every number
equals that of the float32 array of the same values (numpy's own widening, exact) and the
CLI's on the float16 file, bit for bit."""

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, assert_rows_equal, csv_rows, run_cli

OPTIONS = [
    {"rvalue": rvalue, "ties": ties}
    for rvalue in ("parametric", "nonparametric", "pooled")
    for ties in ("exchangeable", "index")
] + [{"prior": "pooled", "variance": "of-mean"}]


def ids(kw):
    return "-".join(str(v) for v in kw.values())


@pytest.fixture(scope="module", params=["digits", "toy"])
def halves(request, digits, toy):
    """A bundled sample rounded to float16, and the float32 array of the same values."""
    scores, labels = {"digits": digits, "toy": toy}[request.param]
    f16 = scores.astype(np.float16)
    assert np.isfinite(f16).all()
    return f16, f16.astype(np.float32), labels, request.param


def test_float16_is_read_in_place_like_float32(digits):
    a = digits[0][:100].astype(np.float16)
    assert rx._borrows(a) and rx._borrows(a[:, 0, :].copy())
    assert not rx._borrows(np.asfortranarray(a))
    assert not rx._borrows(a[:, :, ::2])
    assert not rx._borrows(a.astype(a.dtype.newbyteorder(">"))), "big-endian: converted by numpy"


@pytest.mark.parametrize("kwargs", OPTIONS, ids=ids)
def test_float16_gives_the_float32_results(halves, kwargs):
    f16, f32, labels, _ = halves
    got = rx.conformal(f16, labels, 0.1, splits=3, **kwargs)
    assert_rows_equal(got, rx.conformal(f32, labels, 0.1, splits=3, **kwargs))
    # Copied (Fortran order) rather than read in place: the same bits.
    assert_rows_equal(rx.conformal(np.asfortranarray(f16), labels, 0.1, splits=3, **kwargs), got)
    split = np.arange(len(labels)) % 3 == 0
    a, b = rx.sets(f16, labels, split, **kwargs), rx.sets(f32, labels, split, **kwargs)
    assert a["method"] == b["method"] and len(a["item"]) > len(labels) // 2
    for key in ("item", "candidate", "score", "position"):
        assert a[key].tobytes() == b[key].tobytes(), key
    cal16 = rx.calibrate(f16[:400], labels[:400], 0.1, **kwargs)
    cal32 = rx.calibrate(f32[:400], labels[:400], 0.1, **kwargs)
    assert np.array_equal(cal16.predict(f16[400:]), cal32.predict(f32[400:]))
    assert np.array_equal(cal16.predict(f32[400:]), cal32.predict(f16[400:]))


def test_a_float16_file_is_the_cli(halves, tmp_path):
    """numpy's float16 .npy through the CLI: the package's numbers on the same array."""
    f16, _, labels, name = halves
    np.save(tmp_path / "s.npy", f16)
    np.save(tmp_path / "y.npy", labels)
    for flags, kwargs in [([], {}), (["--rvalue", "pooled", "--ties", "index"], {"rvalue": "pooled", "ties": "index"})]:
        want = csv_rows(run_cli("conformal", "--scores", tmp_path / "s.npy", "--labels", tmp_path / "y.npy",
                                "--alpha", "0.1", "--splits", "4", "--device", "cpu", *flags))
        assert_rows_equal(rx.conformal(f16, labels, 0.1, splits=4, **kwargs), want)
    # The same file as an .npz member.
    np.savez(tmp_path / "d.npz", scores=f16, labels=labels)
    want = csv_rows(run_cli("conformal", "--scores", tmp_path / "d.npz", "--alpha", "0.1", "--splits", "4",
                            "--device", "cpu"))
    assert_rows_equal(rx.conformal(f16, labels, 0.1, splits=4), want)


def test_non_finite_float16_is_refused(digits):
    scores, labels = digits
    for bad in (np.nan, np.inf, -np.inf):
        a = scores[:50].astype(np.float16)
        a[3, 2, 1] = bad
        with pytest.raises(ValueError, match=r"score \[3\]\[2\]\[1\] is (NaN|inf|-inf)"):
            rx.conformal(a, labels[:50], 0.1, splits=2)
