"""The baselines finding of docs/method.md §11: CP_r against APS, RAPS and SAPS (and CP,
CP_avg) on the digits ensemble and on the CLIP-like file of `clip_classes.py`, with marginal
calibration and CP_r's default r-value (parametric, prior pooled over items), over 100 random half/half splits at alpha = 0.05 and 0.1; the baselines
randomized, with their default parameters.

usage: python3 scripts/baselines_finding.py RVALUE_BIN WORKDIR   (numpy; writes WORKDIR/clip)
Prints one Markdown table row per (data, alpha, method).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from per_class_finding import datasets, rows  # noqa: E402  (the script beside this one)

METHODS = "cp,cp-avg,cp-r,aps,raps,saps"


def main(rvalue, work):
    data = datasets(work)
    print("| data | α | method | coverage (± SE) | size | worst class | CovGap % | SSCV | unstable classes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, (s, y, mask) in data.items():
        for alpha in ("0.05", "0.1"):
            for r in rows(rvalue, s, y, "parametric", "marginal", alpha, ("--method", METHODS)):
                per_class = np.array([np.nan if c is None else c for c in r["class_coverage"]])
                weak = "–" if mask is None else f"{np.nanmean(per_class[mask]):.3f}"
                se = r["coverage_sd"] / np.sqrt(r["splits"])
                print(f"| {name} | {alpha} | {r['method']} | {r['coverage_mean']:.3f} ± "
                      f"{se:.3f} | {r['size_mean']:.2f} | {r['worst_class_coverage_mean']:.3f} "
                      f"| {r['covgap_mean']:.2f} | {r['sscv_mean']:.3f} | {weak} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
