"""The per-class coverage finding of docs/method.md §11: CP, CP_avg and CP_r on the digits
ensemble and on a CLIP-like file whose classes differ in prompt sensitivity, with marginal and
per-class calibration, over 100 random half/half splits at alpha = 0.1.

usage: python3 scripts/per_class_finding.py RVALUE_BIN WORKDIR   (numpy; writes WORKDIR/clip)
Prints one Markdown table row per (data, rvalue kind, coverage, method).
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clip_classes  # noqa: E402  (the generator beside this script)
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rows(rvalue, scores, labels, kind, coverage, alpha="0.1", extra=()):
    args = [rvalue, "conformal", "--scores", scores, "--alpha", alpha, "--splits", "100",
            "--rvalue", kind, "--coverage", coverage, "--format", "json", "--device", "cpu", *extra]
    if labels:
        args += ["--labels", labels]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def datasets(work):
    """The findings' two files, by name: (scores, labels or None, unstable classes or None); the
    CLIP-like one written under WORKDIR/clip."""
    clip = os.path.join(work, "clip")
    os.makedirs(clip, exist_ok=True)
    scores, labels, unstable = clip_classes.generate(2000, 20, 50, 1)
    np.save(os.path.join(clip, "scores.npy"), scores)
    np.save(os.path.join(clip, "labels.npy"), labels)
    return {
        "digits": (os.path.join(ROOT, "assets", "digits_wbb.npz"), None, None),
        "CLIP-like": (os.path.join(clip, "scores.npy"), os.path.join(clip, "labels.npy"), unstable),
    }


def main(rvalue, work):
    data = datasets(work)
    print("| data | r-value | coverage | method | coverage | size | macro | worst class | CovGap % "
          "| violated | unstable classes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (s, y, mask) in data.items():
        for kind in ("pooled", "parametric"):
            for coverage in ("marginal", "per-class"):
                for r in rows(rvalue, s, y, kind, coverage):
                    per_class = np.array([np.nan if c is None else c for c in r["class_coverage"]])
                    weak = "–" if mask is None else f"{np.nanmean(per_class[mask]):.3f}"
                    print(f"| {name} | {kind} | {coverage} | {r['method']} | {r['coverage_mean']:.3f} "
                          f"| {r['size_mean']:.2f} | {r['macro_coverage_mean']:.3f} "
                          f"| {r['worst_class_coverage_mean']:.3f} | {r['covgap_mean']:.2f} "
                          f"| {r['violated_classes_mean']:.1f} | {weak} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
