"""A new item's set is its own: the same alone, in any batch, at any place and repeated, for
every method, r-value kind, prior and tie order (docs/method.md §5), on data with many ties."""

import pickle

import numpy as np
import pytest

import rvalue_explorer as rx

SCORINGS = [
    ("cp", {}),
    ("cp-avg", {}),
    ("cp-r", {"rvalue": "pooled"}),
    ("cp-r", {"rvalue": "pooled", "ties": "index"}),
    ("cp-r", {"rvalue": "nonparametric"}),
    ("cp-r", {"rvalue": "parametric", "prior": "per-item"}),
    ("cp-r", {"rvalue": "parametric", "prior": "pooled"}),
]


def tied(seed, n=60, m=4, k=5):
    """Scores from three values: ties in every draw and in the pooled counts."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, (n, m, k)).astype(np.float64), rng.integers(0, k, n)


@pytest.mark.parametrize("method, kwargs", SCORINGS)
@pytest.mark.parametrize("seed", [0, 1])
def test_alone_in_a_batch_shuffled_and_repeated(method, kwargs, seed):
    scores, labels = tied(seed)
    n_cal = 40
    cal = rx.calibrate(scores[:n_cal], labels[:n_cal], 0.2, method=method, seed=seed, **kwargs)
    new = scores[n_cal:]
    batch = cal.predict(new)
    order = np.random.default_rng(seed + 10).permutation(len(new))
    shuffled = cal.predict(np.concatenate([new[order], new[order[:3]]]))
    assert np.array_equal(shuffled[: len(new)], batch[order])
    assert np.array_equal(shuffled[len(new):], batch[order[:3]])
    for j in range(len(new)):
        assert np.array_equal(cal.predict(new[j : j + 1])[0], batch[j]), f"item {j} alone"
    # The same calibration pickled (the saved format) and read back predicts the same sets.
    assert np.array_equal(pickle.loads(pickle.dumps(cal)).predict(new[::-1]), batch[::-1])
