"""One split, carried between faces: `split_masks` gives the seeded splits that `conformal` runs
and that `rvalue conformal --save-splits` and `rvalue sets --split-index` write."""

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, assert_rows_equal, csv_rows, run_cli


def test_masks_are_the_clis_saved_splits(digits, tmp_path):
    scores, labels = digits
    run_cli("conformal", "--scores", ASSETS / "digits_wbb.npz", "--alpha", "0.1", "--splits", "3",
            "--seed", "6", "--cal-fraction", "0.3", "--save-splits", tmp_path, "--device", "cpu")
    masks = rx.split_masks(len(labels), 3, seed=6, cal_fraction=0.3)
    assert masks.shape == (3, len(labels)) and masks.dtype == np.bool_
    for r in range(3):
        assert np.array_equal(np.load(tmp_path / f"split_{r}.npy"), masks[r])
    assert np.array_equal(rx.split_masks(len(labels), seed=6, cal_fraction=0.3, indices=[2, 0]),
                          masks[[2, 0]])


def test_a_mask_reruns_its_split_of_the_series(digits):
    scores, labels = digits
    records = rx.conformal(scores, labels, 0.1, splits=4, seed=2, per_split=True)
    mask = rx.split_masks(len(labels), seed=2, indices=[3])[0]
    # A mask is keyed as split 0 of its seed: CP and CP_avg need no tie order, so split 3's rows.
    again = rx.conformal(scores, labels, 0.1, split=mask, seed=2, methods=["cp", "cp-avg"])
    want = [r for r in records if r["split"] == 3 and r["method"] != "cp-r"]
    for w, g in zip(want, again):
        assert w["coverage"] == g["coverage_mean"] and w["size"] == g["size_mean"]


def test_the_sets_of_split_index_are_those_of_the_mask(digits, tmp_path):
    scores, labels = digits
    run_cli("sets", "--scores", ASSETS / "digits_wbb.npz", "--alpha", "0.1", "--split-index", "1",
            "--seed", "5", "--output", tmp_path / "sets.csv", "--device", "cpu")
    rows = csv_rows((tmp_path / "sets.csv").read_text())
    mask = rx.split_masks(len(labels), seed=5, indices=[1])[0]
    assert {r["item"] for r in rows} == set(np.flatnonzero(~mask))
    got = rx.sets(scores, labels, mask, 0.1, seed=5)
    assert len(got["item"]) == sum(r["candidate"] is not None for r in rows)


def test_bad_requests_say_why():
    with pytest.raises(ValueError, match="no split asked for"):
        rx.split_masks(10, 0)
    with pytest.raises(ValueError, match="too few for a split"):
        rx.split_masks(1, 1)
    with pytest.raises(ValueError, match="calibration fraction"):
        rx.split_masks(10, cal_fraction=1.5)
