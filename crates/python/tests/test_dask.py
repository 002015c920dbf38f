"""examples/dask_splits.py on a LocalCluster of two worker processes gives the rows of one
process, bit for bit."""

import importlib.util
import sys

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ROOT, assert_rows_equal

distributed = pytest.importorskip("dask.distributed")


def example():
    spec = importlib.util.spec_from_file_location("dask_splits", ROOT / "examples" / "dask_splits.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["dask_splits"] = module
    spec.loader.exec_module(module)
    return module


def test_a_local_cluster_gives_the_rows_of_one_process(digits, tmp_path):
    scores, labels = digits
    np.save(tmp_path / "scores.npy", scores[:300])
    np.save(tmp_path / "labels.npy", labels[:300])
    options = {"alpha": 0.1, "rvalue": "pooled", "seed": 3, "methods": ["cp", "cp-r"], "threads": 1}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        got = example().run(client, tmp_path / "scores.npy", tmp_path / "labels.npy", splits=9, chunk=2, timeout=120,
                            **options)
        assert len(client.scheduler_info()["workers"]) == 2
    mapped = np.load(tmp_path / "scores.npy", mmap_mode="r")
    assert_rows_equal(got, rx.conformal(mapped, labels[:300], splits=9, **options))


def test_synthetic_logits_are_seeded(tmp_path):
    ex = example()
    ex.synthetic(tmp_path / "a.npy", tmp_path / "y.npy", 1500, 3, 7, seed=1)
    ex.synthetic(tmp_path / "b.npy", tmp_path / "z.npy", 1500, 3, 7, seed=1)
    a, b = np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy")
    assert a.shape == (1500, 3, 7) and a.dtype == np.float32 and np.array_equal(a, b)
    labels = np.load(tmp_path / "y.npy")
    assert np.mean(a.mean(axis=1).argmax(axis=1) == labels) > 0.5
