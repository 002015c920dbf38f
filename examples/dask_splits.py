"""Many conformal splits of a large memory-mapped score tensor across a Dask cluster.

Each task maps the scores file (`np.load(..., mmap_mode="r")`), computes a piece of the seeded
split series with `rvalue_explorer.conformal(..., split_indices=range(a, b), per_split=True)`,
and returns each split's metrics; `rvalue_explorer.summarize` turns the gathered metrics into
the rows one process gives with `conformal(..., splits=R)`, bit for bit.

    python examples/dask_splits.py SCORES.npy LABELS.npy --splits 1000 --chunk 25 --rvalue pooled
    python examples/dask_splits.py SCORES.npy LABELS.npy --scheduler tcp://HOST:8786 ...

Without --scheduler it starts a LocalCluster of --workers processes on this machine. Workers
must see the same paths (a shared file system on a real cluster). A C-ordered float32 or float64
file is read in place from the map (other layouts are copied); for rank-based r-values every
task holds the draw orders (4·N·M·K bytes).
`--synthetic N,M,K` first writes seeded random logits and labels to the two paths, to try it.
"""

import argparse
import csv
import sys
import time

import numpy as np

import rvalue_explorer as rx

COLUMNS = ["method", "alpha", "coverage_mean", "coverage_sd", "size_mean", "size_sd",
           "position_mean", "empty_rate", "splits"]


def piece(scores_path, labels_path, indices, options):
    """One task: the per-split records of splits `indices` (a range of the seeded series)."""
    scores = np.load(scores_path, mmap_mode="r")
    labels = np.load(labels_path)
    return rx.conformal(scores, labels, split_indices=indices, per_split=True, **options)


def run(client, scores_path, labels_path, splits, chunk, timeout=None, **options):
    """The summary rows of `splits` seeded splits, computed `chunk` splits per task on `client`'s
    cluster, within `timeout` seconds if given; `options` are `rvalue_explorer.conformal`'s
    (alpha, methods, rvalue, seed, …)."""
    # Run as a script, tasks carry `piece` by value; imported as a module, they name it, so the
    # workers get this file to import.
    if piece.__module__ != "__main__":
        client.upload_file(__file__)
    pieces = [range(a, min(a + chunk, splits)) for a in range(0, splits, chunk)]
    futures = client.map(piece, [str(scores_path)] * len(pieces), [str(labels_path)] * len(pieces),
                         pieces, [options] * len(pieces), pure=False)
    if timeout is not None:
        from dask.distributed import wait
        wait(futures, timeout=timeout)
    records = [r for done in client.gather(futures) for r in done]
    return rx.summarize(records)


def synthetic(scores_path, labels_path, n, m, k, seed=0):
    """Seeded logits [n, m, k] (float32) whose true class stands out a little, and labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    scores = np.lib.format.open_memmap(scores_path, mode="w+", dtype=np.float32, shape=(n, m, k))
    for a in range(0, n, 1000):
        b = min(a + 1000, n)
        block = rng.standard_normal((b - a, m, k), dtype=np.float32)
        block[np.arange(b - a), :, labels[a:b]] += 2.0
        scores[a:b] = block
    scores.flush()
    np.save(labels_path, labels)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scores", help="scores [N, M, K] (.npy, memory-mapped)")
    p.add_argument("labels", help="labels [N] (.npy)")
    p.add_argument("--splits", type=int, default=100)
    p.add_argument("--chunk", type=int, default=10, help="splits per task")
    p.add_argument("--alpha", type=float, default=0.1)
    p.add_argument("--methods", default="cp,cp-avg,cp-r")
    p.add_argument("--rvalue", default="pooled")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cal-fraction", type=float, default=0.5)
    p.add_argument("--task-threads", type=int, default=1,
                   help="threads per task (one task per worker thread by default)")
    p.add_argument("--scheduler", help="address of a running scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    p.add_argument("--check", action="store_true", help="also run one process and compare")
    p.add_argument("--synthetic", metavar="N,M,K", help="first write seeded logits of this shape")
    a = p.parse_args()
    if a.synthetic:
        synthetic(a.scores, a.labels, *map(int, a.synthetic.split(",")))
    options = {"alpha": a.alpha, "methods": a.methods.split(","), "rvalue": a.rvalue, "seed": a.seed,
               "cal_fraction": a.cal_fraction, "threads": a.task_threads}

    from dask.distributed import Client, LocalCluster
    if a.scheduler:
        client = Client(a.scheduler)
    else:
        client = Client(LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True))
    with client:
        start = time.perf_counter()
        rows = run(client, a.scores, a.labels, a.splits, a.chunk, **options)
        took = time.perf_counter() - start
    out = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
    out.writeheader()
    out.writerows(rows)
    print(f"{a.splits} splits in {took:.2f} s on the cluster", file=sys.stderr)
    if a.check:
        start = time.perf_counter()
        scores = np.load(a.scores, mmap_mode="r")
        one = rx.conformal(scores, np.load(a.labels), splits=a.splits,
                           **{**options, "threads": None})
        print(f"one process (all cores): {time.perf_counter() - start:.2f} s; "
              f"identical: {repr(one) == repr(rows)}", file=sys.stderr)


if __name__ == "__main__":
    main()
