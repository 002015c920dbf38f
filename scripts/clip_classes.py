"""CLIP-like synthetic scores whose classes differ in prompt sensitivity.

N items x M prompt draws x K classes of softmax probabilities (float32), labels, seeded.
Each class has its own sensitivity scale: the first fifth of the classes (the "unstable"
ones) vary across draws four times as much as the rest, as rare and fine-grained classes do
in real zero-shot models. Used for the per-class coverage finding in docs/method.md.

usage: python3 scripts/clip_classes.py OUTDIR N M K SEED   (numpy only)
"""
import os
import sys

import numpy as np


def generate(n, m, k, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    latent = rng.normal(0.0, 1.0, (n, k))
    latent[np.arange(n), y] += rng.normal(3.0, 1.2, n)
    unstable = np.arange(k) < max(1, k // 5)
    class_scale = np.where(unstable, 4.0, 1.0)
    sensitivity = rng.gamma(2.0, 0.25, (n, k)) * class_scale
    logits = 3.0 * (latent[:, None, :] + rng.normal(size=(n, m, k)) * sensitivity[:, None, :])
    p = np.exp(logits - logits.max(2, keepdims=True))
    p /= p.sum(2, keepdims=True)
    return p.astype(np.float32), y.astype(np.int64), unstable


def main(argv):
    out, n, m, k, seed = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5])
    os.makedirs(out, exist_ok=True)
    scores, labels, unstable = generate(n, m, k, seed)
    np.save(os.path.join(out, "scores.npy"), scores)
    np.save(os.path.join(out, "labels.npy"), labels)
    accuracy = (scores.mean(1).argmax(1) == labels).mean()
    print(f"wrote {out}: N={n} M={m} K={k}, unstable classes 0..{unstable.sum() - 1}, "
          f"mean-score accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main(sys.argv)
