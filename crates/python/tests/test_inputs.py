"""What the package accepts (dtypes, layouts, memmaps, torch), that threads change nothing, that
pieces of a run sum up to the run, and that bad input raises ValueError."""

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import assert_rows_equal

POOLED = {"rvalue": "pooled", "splits": 4}


@pytest.fixture(scope="module")
def small(digits):
    """400 digits items: quick, and float32 as the file holds them."""
    scores, labels = digits
    return scores[:400], labels[:400]


def test_float32_is_widened_exactly(small):
    scores, labels = small
    assert scores.dtype == np.float32
    assert_rows_equal(rx.conformal(scores, labels, **POOLED),
                      rx.conformal(scores.astype(np.float64), labels, **POOLED))


def test_every_memory_order_gives_the_same_rows(small):
    scores, labels = small
    want = rx.conformal(scores, labels, **POOLED)
    fortran = np.asfortranarray(scores)
    assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
    assert_rows_equal(rx.conformal(fortran, labels, **POOLED), want)
    # A strided view: every other candidate of a wider array.
    wide = np.zeros(scores.shape[:2] + (2 * scores.shape[2],), dtype=np.float32)
    wide[:, :, ::2] = scores
    assert_rows_equal(rx.conformal(wide[:, :, ::2], labels, **POOLED), want)
    # Draws moved to the front and back again: a permuted, non-contiguous layout.
    moved = np.ascontiguousarray(np.moveaxis(scores, 1, 0))
    assert_rows_equal(rx.conformal(np.moveaxis(moved, 0, 1), labels, **POOLED), want)
    # Big-endian doubles and plain lists go through numpy.
    assert_rows_equal(rx.conformal(scores.astype(">f8"), labels, **POOLED), want)
    assert_rows_equal(rx.conformal(scores.tolist(), labels.tolist(), **POOLED), want)


def test_a_memmap_gives_the_same_rows(small, tmp_path):
    scores, labels = small
    np.save(tmp_path / "s.npy", np.asfortranarray(scores))
    mapped = np.load(tmp_path / "s.npy", mmap_mode="r")
    assert isinstance(mapped, np.memmap) and not mapped.flags.writeable
    assert_rows_equal(rx.conformal(mapped, labels, **POOLED), rx.conformal(scores, labels, **POOLED))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64])
def test_labels_of_any_integer_dtype(small, dtype):
    scores, labels = small
    assert_rows_equal(rx.conformal(scores, labels.astype(dtype), splits=5),
                      rx.conformal(scores, labels, splits=5))


def test_two_dimensional_scores_are_one_draw(small):
    scores, labels = small
    one = scores[:, 4, :]
    assert_rows_equal(rx.conformal(one, labels, methods=["cp", "cp-avg"], splits=5),
                      rx.conformal(one[:, None, :], labels, methods=["cp", "cp-avg"], splits=5))


@pytest.mark.parametrize("kwargs", [POOLED, {"rvalue": "nonparametric", "splits": 5}, {"splits": 5}])
def test_one_thread_and_many_give_the_same_bits(small, kwargs):
    scores, labels = small
    want = rx.conformal(scores, labels, threads=1, **kwargs)
    for threads in (2, 3, 8):
        assert_rows_equal(rx.conformal(scores, labels, threads=threads, **kwargs), want)
    a = rx.calibrate(scores[:200], labels[:200], threads=1)
    b = rx.calibrate(scores[:200], labels[:200], threads=3)
    assert np.array_equal(a.predict(scores[200:]), b.predict(scores[200:]))
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.threshold, b.threshold)


def test_pieces_of_split_indices_summarise_to_the_run(small):
    scores, labels = small
    options = {"rvalue": "pooled", "seed": 7, "cal_fraction": 0.4}
    want = rx.conformal(scores, labels, 0.1, splits=7, **options)
    pieces = [rx.conformal(scores, labels, 0.1, split_indices=range(a, b), per_split=True, **options)
              for a, b in [(4, 7), (0, 2), (2, 4)]]
    records = [r for piece in pieces for r in piece]
    assert {r["split"] for r in records} == set(range(7))
    assert list(records[0])[:7] == ["method", "alpha", "split", "coverage", "size", "position", "empty_rate"]
    assert list(records[0])[7:10] == ["macro_coverage", "worst_class_coverage", "covgap"]
    assert_rows_equal(rx.summarize(records), want)
    # The records of the whole run, too, in any order of splits (methods keep their order).
    whole = rx.conformal(scores, labels, 0.1, splits=7, per_split=True, **options)
    assert_rows_equal(rx.summarize(sorted(whole, key=lambda r: -r["split"])), want)
    with pytest.raises(ValueError, match="split 4 appears twice"):
        rx.summarize(records + pieces[0])
    with pytest.raises(ValueError, match="no per-split records"):
        rx.summarize([])


def test_torch_tensors_are_read_through_numpy(small):
    torch = pytest.importorskip("torch")
    scores, labels = small
    got = rx.conformal(torch.from_numpy(scores), torch.from_numpy(labels), **POOLED)
    assert_rows_equal(got, rx.conformal(scores, labels, **POOLED))


@pytest.mark.parametrize("call, message", [
    (lambda s, y: rx.conformal(s, y, 1.5), r"α = 1.5 is not in \(0, 1\)"),
    (lambda s, y: rx.conformal(s, y + 10), "label of item 0 is"),
    (lambda s, y: rx.conformal(s, -y), "labels.* expected ≥ 0"),
    (lambda s, y: rx.conformal(s, y[:-1]), "shape mismatch: 399 labels"),
    (lambda s, y: rx.conformal(s, y.astype(float)), "labels must be integers"),
    (lambda s, y: rx.conformal(s[0], y), "shape mismatch"),
    (lambda s, y: rx.conformal(s[None], y), "4 dimensions"),
    (lambda s, y: rx.conformal(s.astype(complex), y), "must be real numbers"),
    (lambda s, y: rx.conformal(np.where(s == s[3, 2, 1], np.nan, s), y), r"score \[3\]\[2\]\[1\] is NaN"),
    (lambda s, y: rx.conformal(s, y, rvalue="pooled-ish"), "unknown r-value kind 'pooled-ish'"),
    (lambda s, y: rx.conformal(s, y, ties="random"), "unknown tie order"),
    (lambda s, y: rx.conformal(s, y, methods=["cp", "cp"]), "lists cp twice"),
    (lambda s, y: rx.conformal(s, y, methods=["lac"]), "unknown method 'lac'"),
    (lambda s, y: rx.conformal(s, y, methods=[]), "methods is empty"),
    (lambda s, y: rx.conformal(s, y, threads=0), "threads must be at least 1"),
    (lambda s, y: rx.conformal(s, y, splits=0), "at least 1"),
    (lambda s, y: rx.conformal(s, y, cal_fraction=1.0), "calibration fraction"),
    (lambda s, y: rx.conformal(s, y, cp_draw=30), "CP's draw 30 does not exist"),
    (lambda s, y: rx.conformal(s, y, split=np.ones(3, bool)), "3 entries for 400 items"),
    (lambda s, y: rx.conformal(s, y, split=np.ones(400, bool)), "0 test"),
    (lambda s, y: rx.conformal(s, y, split=np.ones(400)), "boolean mask"),
    (lambda s, y: rx.conformal(s, y, split=np.arange(400) < 9, split_indices=[0]), "not both"),
    (lambda s, y: rx.conformal(s, y, split_indices=[1, 1]), "split 1 twice"),
    (lambda s, y: rx.conformal(s, y, split_indices=[-1]), "expected ≥ 0"),
    (lambda s, y: rx.conformal(s, y, split_indices=[]), "split_indices is empty"),
    (lambda s, y: rx.sets(s, y, np.arange(400) < 200, 0.0), r"α = 0 is not in"),
    (lambda s, y: rx.calibrate(s, y, method="cp", cp_draw=99), "CP's draw 99"),
    (lambda s, y: rx.calibrate(s, y + 10), "label of item 0 is"),
    (lambda s, y: rx.calibrate(s, y, 0.1, rvalue="x"), "unknown r-value kind"),
    (lambda s, y: rx.calibrate(s, y).predict(s, alpha=2.0), r"α = 2 is not in"),
    (lambda s, y: rx.rvalues([1.0, 2.0], [1.0]), "2 estimates but 1 variances"),
    (lambda s, y: rx.rvalues([1.0, 2.0], [1.0, -1.0]), r"se\[1\] is -1"),
    (lambda s, y: rx.rvalues([1.0, np.inf], [1.0, 1.0]), "estimate 1 is inf"),
    (lambda s, y: rx.rvalues([1.0, 2.0]), "exactly one of se"),
    (lambda s, y: rx.rvalues([1.0, 2.0], [1.0, 1.0], hyper=(0.0, -1.0)), "τ²"),
    (lambda s, y: rx.rvalues([1.0, 2.0], [1.0, 1.0], algorithm="fast"), "unknown algorithm"),
    (lambda s, y: rx.toy_probability(sigma2_q=-1.0), "variances ≥ 0"),
    (lambda s, y: rx.summarize([{"method": "cp"}]), "lacks 'alpha'"),
])
def test_bad_input_is_a_value_error(small, call, message):
    scores, labels = small
    with pytest.raises(ValueError, match=message):
        call(scores, labels)
