#!/usr/bin/env python3
"""Generate the sample data files in ``assets/`` for rvalue-explorer.

Run from anywhere:  python3 scripts/make_samples.py
(needs the packages pinned in scripts/requirements-samples.txt).

Writes, into ``assets/`` next to this script's parent directory:

* ``digits_wbb.npz``          -- ``scores`` float32 [N, M, K], ``labels`` int64 [N]
* ``digits_wbb_scores.npy``   -- the same scores, as a bare .npy
* ``digits_wbb_labels.npy``   -- the same labels, as a bare .npy
* ``toy_default.npz``         -- the toy setting of docs/method.md §6 (float64 scores, labels all 0)
* ``small_long.csv``          -- long-form CSV (item,draw,candidate,score,label), first
                                 12 items x 5 draws x 10 candidates of the digits sample

Score tensors are S[n][m][k]: item n, draw m (ensemble member / posterior sample),
candidate k (class); higher is better.  Everything is seeded, so a rerun gives the same
files (bit for bit on the same platform and library versions; the logistic-regression
fits may differ in the last float bits across BLAS builds).
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"

# ---- digits weighted-bootstrap ensemble --------------------------------------------------
DIGITS_TRAIN_FRACTION = 0.4   # fraction of the 1797 images used to fit the models
DIGITS_SPLIT_SEED = 0         # train/held-out split (stratified)
DIGITS_WEIGHT_SEED = 20250101 # Dirichlet weights of the Bayesian bootstrap
DIGITS_M = 30                 # ensemble members (draws)
DIGITS_C = 0.01               # inverse L2 regularisation strength (strong on purpose)
# Held-out items stored: the first 900 of 1079. The page's dist/ (app, API module, this sample)
# must stay within 1.5 MB gzipped, and the float32 scores compress little (~0.88 of raw).
DIGITS_KEEP = 900

# ---- toy setting (docs/method.md §6) ---------------------------------------------------------
TOY_SEED = 12345
TOY_N_CAL, TOY_N_TEST = 500, 500
TOY_K, TOY_M = 10, 30
TOY_MU_P, TOY_VAR_P = 1.0, 1.0      # true candidate 0
TOY_MU_Q, TOY_VAR_Q = 0.0, 1000.0   # false candidates 1..K-1

# ---- long-form CSV sample -----------------------------------------------------------------
CSV_ITEMS, CSV_DRAWS = 12, 5


def variance_summary(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Mean per-draw sample variance (divisor M-1) of true vs false candidates."""
    v = scores.astype(np.float64).var(axis=1, ddof=1)  # [N, K]
    is_true = np.zeros_like(v, dtype=bool)
    is_true[np.arange(len(labels)), labels] = True
    return float(v[is_true].mean()), float(v[~is_true].mean())


def make_digits() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, train_size=DIGITS_TRAIN_FRACTION, stratify=y, random_state=DIGITS_SPLIT_SEED
    )
    # Standardise pixels with training-split statistics (constant pixels left at 0).
    mu = X_tr.mean(axis=0)
    sd = X_tr.std(axis=0)
    sd[sd == 0] = 1.0
    X_tr = (X_tr - mu) / sd
    X_te = (X_te - mu) / sd

    n_tr = len(y_tr)
    rng = np.random.default_rng(DIGITS_WEIGHT_SEED)
    draws = []
    for _ in range(DIGITS_M):
        # Bayesian bootstrap: Dirichlet(1,...,1) weights scaled to sum to n_tr.
        w = rng.dirichlet(np.ones(n_tr)) * n_tr
        clf = LogisticRegression(C=DIGITS_C, max_iter=5000, tol=1e-8)
        clf.fit(X_tr, y_tr, sample_weight=w)
        assert list(clf.classes_) == list(range(10))
        draws.append(clf.predict_log_proba(X_te))  # [N, K], log-probabilities
    # Predicted on the whole held-out split, then cut, so each stored row is what it would be
    # in a sample of every held-out item.
    scores = np.stack(draws, axis=1).astype(np.float32)[:DIGITS_KEEP]  # [N, M, K]
    labels = y_te.astype(np.int64)[:DIGITS_KEEP]
    assert np.isfinite(scores).all()

    n, m, k = scores.shape
    acc_mean = float((scores.mean(axis=1).argmax(axis=1) == labels).mean())
    acc_draws = (scores.argmax(axis=2) == labels[:, None]).mean(axis=0)
    v_true, v_false = variance_summary(scores, labels)
    print(f"digits_wbb: train {n_tr} images, held out {len(y_te)}, stored N={n}, M={m}, K={k}")
    print(f"  accuracy of the mean score: {acc_mean:.4f}")
    print(f"  per-draw accuracy: mean {acc_draws.mean():.4f}, "
          f"min {acc_draws.min():.4f}, max {acc_draws.max():.4f}")
    print(f"  mean per-draw variance: true candidates {v_true:.5f}, "
          f"false candidates {v_false:.5f}")
    return scores, labels


def make_toy() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(TOY_SEED)
    n = TOY_N_CAL + TOY_N_TEST
    scores = np.empty((n, TOY_M, TOY_K), dtype=np.float64)
    scores[:, :, 0] = rng.normal(TOY_MU_P, np.sqrt(TOY_VAR_P), size=(n, TOY_M))
    scores[:, :, 1:] = rng.normal(TOY_MU_Q, np.sqrt(TOY_VAR_Q), size=(n, TOY_M, TOY_K - 1))
    labels = np.zeros(n, dtype=np.int64)
    acc_mean = float((scores.mean(axis=1).argmax(axis=1) == labels).mean())
    v_true, v_false = variance_summary(scores, labels)
    print(f"toy_default: N={n} (n_cal={TOY_N_CAL} + n_test={TOY_N_TEST}), M={TOY_M}, K={TOY_K}")
    print(f"  accuracy of the mean score: {acc_mean:.4f}")
    print(f"  mean per-draw variance: true {v_true:.4f}, false {v_false:.2f}")
    return scores, labels


def fmt(x: float) -> str:
    r = round(float(x), 5) + 0.0  # "+ 0.0" turns -0.0 into 0.0
    return f"{r:.5f}"


def write_csv(path: pathlib.Path, scores: np.ndarray, labels: np.ndarray) -> int:
    rows = 0
    with open(path, "w", newline="\n", encoding="ascii") as f:
        f.write("item,draw,candidate,score,label\n")
        for i in range(CSV_ITEMS):
            for m in range(CSV_DRAWS):
                for k in range(scores.shape[2]):
                    f.write(f"{i},{m},{k},{fmt(scores[i, m, k])},{int(labels[i])}\n")
                    rows += 1
    return rows


def main() -> int:
    ASSETS.mkdir(parents=True, exist_ok=True)

    scores, labels = make_digits()
    # np.savez stores members uncompressed ("stored"); readers need no deflate for these.
    np.savez(ASSETS / "digits_wbb.npz", scores=scores, labels=labels)
    np.save(ASSETS / "digits_wbb_scores.npy", scores)
    np.save(ASSETS / "digits_wbb_labels.npy", labels)
    rows = write_csv(ASSETS / "small_long.csv", scores, labels)
    print(f"small_long.csv: {rows} rows ({CSV_ITEMS} items x {CSV_DRAWS} draws x "
          f"{scores.shape[2]} candidates)")

    t_scores, t_labels = make_toy()
    np.savez(ASSETS / "toy_default.npz", scores=t_scores, labels=t_labels)

    for p in sorted(ASSETS.iterdir()):
        if p.suffix in {".npz", ".npy", ".csv"}:
            print(f"  {p.name:28s} {p.stat().st_size:>10d} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
