"""Shared fixtures: the bundled samples and the `rvalue` binary of this workspace.

`make test-python` builds the binary and names it in RVALUE_BIN; without it the tests look for
target/release/rvalue and fail (not skip) when it is missing, since agreement with the CLI is
what they check.
"""

import csv
import importlib.util
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
ASSETS = ROOT / "assets"


def rvalue_bin() -> Path:
    path = Path(os.environ.get("RVALUE_BIN", ROOT / "target" / "release" / "rvalue"))
    if not path.is_file():
        pytest.fail(f"no rvalue binary at {path}: run `cargo build --release --bin rvalue` or set RVALUE_BIN")
    return path


def run_cli(*args, stderr: bool = False) -> str:
    """The CLI's stdout (its stderr with `stderr=True`); a non-zero exit fails the test with its
    message."""
    done = subprocess.run([str(rvalue_bin()), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stderr if stderr else done.stdout


def csv_rows(text: str) -> list[dict]:
    """CSV rows with numbers as Python floats (the CLI prints each f64 in its shortest
    round-trip form, so parsing gives back the same bits) and `splits` as an int. An empty
    field (an empty set's candidate, score and position in `sets` rows) reads as None."""
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        out = {}
        for key, value in row.items():
            if key == "method":
                out[key] = value
            elif value == "":
                out[key] = None
            elif key in ("splits", "item", "candidate", "position"):
                out[key] = int(value)
            else:
                out[key] = float(value)
        rows.append(out)
    return rows


def same_bits(a, b) -> bool:
    """Equal to the last bit (NaN equals NaN, 0.0 differs from -0.0), in lists and dicts too."""
    if isinstance(a, float) or isinstance(b, float):
        return float(a).hex() == float(b).hex()
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_bits(a[k], b[k]) for k in a)
    return a == b


# A summary row's keys after the CSV's columns: its tallies over splits (the JSON's).
TALLY_KEYS = ["class_coverage", "class_count", "size_strata", "difficulty_strata"]


def assert_rows_equal(got: list[dict], want: list[dict]):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        # A CSV row lacks the tallies; a row of the package has them.
        extra = TALLY_KEYS if "splits" in w and "class_count" not in w else []
        assert list(g) == list(w) + extra, "the same keys in the same order"
        for key in w:
            assert same_bits(g[key], w[key]), f"{w['method']} {key}: {g[key]!r} != {w[key]!r}"


def read_long_csv(path: Path):
    """A long-form CSV (item,draw,candidate,score,label) as scores [N, M, K] and labels."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    n = 1 + max(int(r["item"]) for r in rows)
    m = 1 + max(int(r["draw"]) for r in rows)
    k = 1 + max(int(r["candidate"]) for r in rows)
    scores = np.zeros((n, m, k))
    labels = np.zeros(n, dtype=np.int64)
    for r in rows:
        i = int(r["item"])
        scores[i, int(r["draw"]), int(r["candidate"])] = float(r["score"])
        labels[i] = int(r["label"])
    return scores, labels


@pytest.fixture(scope="session")
def digits():
    d = np.load(ASSETS / "digits_wbb.npz")
    return d["scores"], d["labels"]


@pytest.fixture(scope="session")
def clip_like():
    """The CLIP-like file of the findings (`scripts/clip_classes.py`: 2000 items, 20 prompt
    draws, 50 classes of probabilities, seed 1), made by its generator, not stored."""
    spec = importlib.util.spec_from_file_location("clip_classes", ROOT / "scripts" / "clip_classes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scores, labels, _ = module.generate(2000, 20, 50, 1)
    return scores, labels


@pytest.fixture(scope="session")
def toy():
    d = np.load(ASSETS / "toy_default.npz")
    return d["scores"], d["labels"]


@pytest.fixture(scope="session")
def small_long():
    return read_long_csv(ASSETS / "small_long.csv")


def sparse_npy(path: Path, shape) -> Path:
    """A float32 .npy of `shape`, all zeros, written as a header and a truncate."""
    header = np.lib.format
    with open(path, "wb") as f:
        header.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": shape})
        f.truncate(f.tell() + int(np.prod(shape)) * 4)
    return path


def peak_mb(*argv) -> int:
    """Peak resident memory of a fresh process running `argv`, in MB (Linux reports kB)."""
    probe = ("import resource, subprocess, sys\n"
             "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", probe, *map(str, argv)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip()) // 1000
