#!/usr/bin/env python3
"""Write assets/clip_paraphrases.npz: a synthetic sample shaped like the paper's CLIP setting.

Run from anywhere:  python3 scripts/make_clip_sample.py [OUT.npz]
(needs numpy, pinned in scripts/requirements-samples.txt; about a second).

Each item is an image, each candidate one of K classes, each draw one paraphrase of the class
descriptions; a score is CLIP's logit, 100 times the cosine similarity of image and text. The
structure is the one the paper's CLIP experiments rest on:

* many classes (K = 100, as CIFAR-100), a true class that is usually but not always on top;
* a few confusable classes per image (a semantic neighbour of the true class) whose mean logit
  comes close to the true class's, or above it on hard images;
* paraphrase sensitivity: how much a class's logit moves from one paraphrase to the next. The
  true class's description matches the image in any wording, so its logit moves little; a false
  class fits only under some wordings, where its logit jumps up (a confuser often, another class
  rarely), so its logit varies more and its mean is pulled up by a few paraphrases.

That last point is what the r-value uses: at the same mean, a class whose logit jumps between
paraphrases is less likely to be the stable answer, which CP_avg (the mean alone) cannot see.
assets/README.md describes the file and what `rvalue conformal` gives on it.

Scores are stored as float16 (spacing 1/64 for logits in [16, 32)), labels as int64, in a
plain ("stored") zip with fixed timestamps, so a rerun gives a byte-identical file.
"""

from __future__ import annotations

import io
import pathlib
import sys
import zipfile

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "assets" / "clip_paraphrases.npz"

SEED = 20260405
N = 280             # images: 140 + 140 per half split; each more costs 1.4 kB gzipped
M = 10              # paraphrases (draws); pooled r-values warn below 10
K = 100             # classes
CONFUSERS = 6       # confusable classes per image
BASE = 24.0         # typical logit of a matching class (CLIP: 100 x cosine 0.24)
BASE_SD = 0.5       # image-to-image spread of that level
MARGIN = (2.0, 1.5)  # true class above the base: mean, sd (hard images fall below a confuser)
CONFUSER_GAP = (2.0, 1.0)  # a confuser's usual logit below the base: mean, sd
FAR_GAP = (4.0, 1.5)       # other false classes below the base: gamma shape, scale
TRUE_SD = 0.35             # paraphrase sd of the true class
FALSE_SD = 0.5             # paraphrase sd of a false class, between its spikes
SPIKE = (4.0, 1.0)         # a wording that happens to fit a false class: jump mean, sd
SPIKE_P = (0.02, 0.25)     # how often, per paraphrase: other false classes, confusers
QUANTUM = 1 / 32           # logits are rounded to this grid (exact in float16 below 64)


def latent(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels, each (image, class)'s mean logit and its paraphrase sd."""
    labels = rng.permutation(np.arange(N) % K)
    rows = np.arange(N)[:, None]
    base = BASE + BASE_SD * rng.standard_normal(N)
    mean = base[:, None] - rng.gamma(FAR_GAP[0], FAR_GAP[1], (N, K))
    spike_p = np.full((N, K), SPIKE_P[0])
    # Confusers: CONFUSERS classes other than the true one, chosen per image.
    others = np.argsort(rng.random((N, K)) + (np.arange(K)[None, :] == labels[:, None]), axis=1)
    conf = others[:, :CONFUSERS]
    mean[rows, conf] = base[:, None] - (CONFUSER_GAP[0] + CONFUSER_GAP[1] * rng.standard_normal((N, CONFUSERS)))
    spike_p[rows, conf] = SPIKE_P[1]
    mean[np.arange(N), labels] = base + MARGIN[0] + MARGIN[1] * rng.standard_normal(N)
    spike_p[np.arange(N), labels] = 0.0
    return labels, mean, spike_p


def generate(seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Scores float16 [N, M, K] and labels int64 [N]; deterministic for a seed."""
    rng = np.random.default_rng(seed)
    labels, mean, spike_p = latent(rng)
    sd = np.full((N, 1, K), FALSE_SD)
    sd[np.arange(N), 0, labels] = TRUE_SD
    spikes = rng.random((N, M, K)) < spike_p[:, None, :]
    jump = SPIKE[0] + SPIKE[1] * rng.standard_normal((N, M, K))
    scores = mean[:, None, :] + sd * rng.standard_normal((N, M, K)) + spikes * jump
    return (np.round(scores / QUANTUM) * QUANTUM).astype(np.float16), labels.astype(np.int64)


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An uncompressed npz with a fixed timestamp, so equal arrays give equal bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, a in arrays.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(a), allow_pickle=False)
            z.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), member.getvalue())
    return buf.getvalue()


def describe(scores: np.ndarray, labels: np.ndarray) -> None:
    """The figures assets/README.md quotes."""
    s = scores.astype(np.float64)
    mean = s.mean(axis=1)
    var = s.var(axis=1, ddof=1)
    is_true = np.zeros(mean.shape, bool)
    is_true[np.arange(len(labels)), labels] = True
    rank = (mean > mean[np.arange(len(labels)), labels][:, None]).sum(axis=1)
    print(f"shape {scores.shape}, labels {labels.shape}, {len(np.unique(labels))} classes")
    print(f"accuracy of the mean logit {np.mean(rank == 0):.3f}, of draw 0 "
          f"{np.mean(s[:, 0].argmax(1) == labels):.3f}")
    print(f"true class ranked 1st/2nd/3rd/lower by the mean: {[int(np.sum(rank == r)) for r in (0, 1, 2)]}"
          f" / {int(np.sum(rank > 2))}")
    print(f"mean per-draw variance: true {var[is_true].mean():.3f}, false {var[~is_true].mean():.3f}")


def main() -> None:
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    scores, labels = generate()
    out.write_bytes(npz_bytes({"scores": scores, "labels": labels}))
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    describe(scores, labels)


if __name__ == "__main__":
    main()
