"""Conditional coverage (docs/method.md §5) on one given split equals its definition, computed
here from that split's prediction sets (`rvalue sets`), the labels and the mean scores, in the
CLI's JSON, in `conformal` and in the per-split records that `summarize` adds up."""

import json

import numpy as np
import pytest
import rvalue_explorer as rx

from conftest import ASSETS, assert_rows_equal, csv_rows, run_cli, same_bits

SIZE_STRATA = [(0, 1), (2, 3), (4, 10), (11, 100), (101, 1000)]
DIFFICULTY_STRATA = [(1, 1), (2, 3), (4, 6), (7, 10), (11, 100), (101, 1000)]


def seq_sum(xs):
    """Left-to-right f64 sum (Python's sum() compensates since 3.12; the definition does not)."""
    acc = 0.0
    for x in xs:
        acc += x
    return acc


def welford_means(scores):
    """The mean over draws, `[N, K]`, with the summaries' arithmetic (Welford in draw order)."""
    x = np.asarray(scores, dtype=np.float64)
    mu = np.zeros((x.shape[0], x.shape[2]))
    for d in range(x.shape[1]):
        mu += (x[:, d, :] - mu) * (1.0 / (d + 1))
    return mu


def ranks(means, labels):
    """The true label's 1-based rank: higher mean first, ties to the lower candidate."""
    out = []
    for row, y in zip(means, labels):
        k = np.arange(len(row))
        out.append(1 + int(np.sum((row > row[y]) | ((row == row[y]) & (k < y)))))
    return out


def definition(items, labels, sets, rank, alpha):
    """The metrics and tallies of one split from its test items' sets."""
    target = 1.0 - alpha
    covered = {i: labels[i] in sets.get(i, ()) for i in items}
    size = {i: len(sets.get(i, ())) for i in items}
    classes = sorted({labels[i] for i in items})
    cov = [sum(covered[i] for i in items if labels[i] == c) / sum(1 for i in items if labels[i] == c)
           for c in classes]

    def strata(bounds, value):
        out = []
        for lo, hi in bounds:
            inside = [i for i in items if lo <= value[i] <= hi]
            out.append((lo, hi, sum(covered[i] for i in inside), len(inside)))
        return out

    def violation(st):
        gaps = [abs(c / n - target) for _, _, c, n in st if n > 0]
        return max(gaps) if gaps else float("nan")

    sizes, difficulty = strata(SIZE_STRATA, size), strata(DIFFICULTY_STRATA, rank)
    return {
        "macro_coverage": seq_sum(cov) / len(cov),
        "worst_class_coverage": min(cov),
        "covgap": 100.0 * (seq_sum(abs(c - target) for c in cov) / len(cov)),
        "violated_classes": float(sum(c < target for c in cov)),
        "sscv": violation(sizes),
        "dsv": violation(difficulty),
        "classes": {c: (sum(covered[i] for i in items if labels[i] == c), sum(1 for i in items if labels[i] == c))
                    for c in classes},
        "sizes": sizes,
        "difficulty": difficulty,
    }


def json_number(x):
    return float("nan") if x is None else float(x)


@pytest.mark.parametrize("flags, kwargs", [
    ([], {}),
    (["--rvalue", "pooled", "--seed", "3"], {"rvalue": "pooled", "seed": 3}),
    (["--never-empty"], {"never_empty": True}),
])
@pytest.mark.parametrize("alpha", [0.1, 0.3])
def test_one_split_has_its_definitions(digits, tmp_path, flags, kwargs, alpha):
    scores, labels = digits
    labels = [int(y) for y in labels]
    mask = np.random.default_rng(8).random(len(labels)) < 0.5
    np.save(tmp_path / "mask.npy", mask)
    common = ["--scores", ASSETS / "digits_wbb.npz", "--alpha", alpha, "--split", tmp_path / "mask.npy",
              "--device", "cpu", *flags]
    run_cli("sets", *common, "--output", tmp_path / "sets.csv")
    sets = {}
    for r in csv_rows((tmp_path / "sets.csv").read_text()):
        sets.setdefault(r["method"], {}).setdefault(r["item"], set()).add(r["candidate"])
    rows = json.loads(run_cli("conformal", *common, "--format", "json"))
    items = [i for i in range(len(labels)) if not mask[i]]
    rank = dict(enumerate(ranks(welford_means(scores), labels)))
    for row in rows:
        want = definition(items, labels, sets.get(row["method"], {}), rank, alpha)
        for key in ["macro_coverage", "worst_class_coverage", "covgap", "violated_classes", "sscv", "dsv"]:
            assert same_bits(json_number(row[f"{key}_mean"]), want[key]), (row["method"], key)
            assert same_bits(json_number(row[f"{key}_sd"]), 0.0 if want[key] == want[key] else float("nan"))
        for c, n in enumerate(row["class_count"]):
            got = (json_number(row["class_coverage"][c]), n)
            if c in want["classes"]:
                covered, count = want["classes"][c]
                assert same_bits(got[0], covered / count) and got[1] == count
            else:
                assert np.isnan(got[0]) and n == 0
        for key, strata in [("size_strata", want["sizes"]), ("difficulty_strata", want["difficulty"])]:
            assert [(s["lo"], s["hi"], s["count"]) for s in row[key]] == [(lo, hi, n) for lo, hi, _, n in strata]
            assert all(same_bits(json_number(s["coverage"]), c / n if n else float("nan"))
                       for s, (_, _, c, n) in zip(row[key], strata))
    # The package: the CLI's CSV row, and the same tallies as the JSON.
    got = rx.conformal(scores, labels, alpha, split=mask, **kwargs)
    assert_rows_equal(got, csv_rows(run_cli("conformal", *common)))
    for g, row in zip(got, rows):
        assert g["class_count"] == row["class_count"]
        assert [s["count"] for s in g["difficulty_strata"]] == [s["count"] for s in row["difficulty_strata"]]


def test_per_split_records_add_up_to_the_rows(digits):
    scores, labels = digits
    whole = rx.conformal(scores, labels, 0.1, splits=6, rvalue="pooled")
    pieces = [rx.conformal(scores, labels, 0.1, split_indices=range(a, a + 2), per_split=True, rvalue="pooled")
              for a in (4, 0, 2)]
    records = [r for piece in pieces for r in piece]
    assert all(0 <= r["violated_classes"] <= len(r["class_count"]) for r in records)
    assert_rows_equal(rx.summarize(records), whole)
    # Records without tallies still give the other columns; the conditional ones are NaN.
    bare = [{k: r[k] for k in ("method", "alpha", "split", "coverage", "size", "position", "empty_rate")}
            for r in records]
    rows = rx.summarize(bare)
    assert all(np.isnan(r["covgap_mean"]) and r["class_count"] == [] for r in rows)
    assert [r["coverage_mean"] for r in rows] == [r["coverage_mean"] for r in whole]
    broken = dict(records[0], size_count=[1, 2])
    with pytest.raises(ValueError, match="size_covered and size_count"):
        rx.summarize([broken])
