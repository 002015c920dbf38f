"""The package's numbers are the CLI's, to the last bit, on the bundled samples."""

import re

import numpy as np
import pytest

import rvalue_explorer as rx
from conftest import ASSETS, ROOT, assert_rows_equal, csv_rows, run_cli, same_bits

# (CLI flags, keyword arguments): option sets that reach every scoring path.
OPTION_SETS = [
    ([], {}),
    (["--rvalue", "pooled", "--splits", "8"], {"rvalue": "pooled", "splits": 8}),
    (["--rvalue", "pooled", "--ties", "index", "--splits", "5", "--seed", "3"],
     {"rvalue": "pooled", "ties": "index", "splits": 5, "seed": 3}),
    (["--rvalue", "nonparametric", "--splits", "20", "--never-empty"],
     {"rvalue": "nonparametric", "splits": 20, "never_empty": True}),
    (["--prior", "pooled", "--variance", "of-mean", "--splits", "30", "--cal-fraction", "0.3"],
     {"prior": "pooled", "variance": "of-mean", "splits": 30, "cal_fraction": 0.3}),
    (["--algorithm", "grid", "--lambda", "empirical", "--splits", "10", "--cp-draw", "3", "--seed", "11"],
     {"algorithm": "grid", "lambda_rule": "empirical", "splits": 10, "cp_draw": 3, "seed": 11}),
]


@pytest.mark.parametrize("flags, kwargs", OPTION_SETS)
@pytest.mark.parametrize("alpha", [0.1, 0.05])
def test_conformal_on_digits_is_the_cli(digits, flags, kwargs, alpha):
    scores, labels = digits
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "digits_wbb.npz", "--alpha", alpha,
                            "--device", "cpu", *flags))
    got = rx.conformal(scores, labels, alpha, **kwargs)
    assert_rows_equal(got, want)


def test_conformal_on_the_toy_is_the_cli(toy):
    scores, labels = toy
    flags = ["--method", "cp-r,cp", "--rvalue", "pooled", "--splits", "3", "--alpha", "0.2"]
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "toy_default.npz", "--device", "cpu", *flags))
    got = rx.conformal(scores, labels, 0.2, methods=["cp-r", "cp"], rvalue="pooled", splits=3)
    assert_rows_equal(got, want)
    assert [r["method"] for r in got] == ["cp-r", "cp"]


def test_conformal_on_the_long_csv_is_the_cli(small_long):
    scores, labels = small_long
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "small_long.csv", "--alpha", "0.1"))
    assert_rows_equal(rx.conformal(scores, labels, 0.1), want)


def test_a_given_split_mask_is_the_cli(digits, tmp_path):
    scores, labels = digits
    mask = np.random.default_rng(5).random(len(labels)) < 0.4
    np.save(tmp_path / "mask.npy", mask)
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "digits_wbb.npz", "--alpha", "0.1",
                            "--split", tmp_path / "mask.npy", "--rvalue", "pooled", "--seed", "9",
                            "--device", "cpu"))
    got = rx.conformal(scores, labels, 0.1, split=mask, rvalue="pooled", seed=9)
    assert_rows_equal(got, want)
    assert got[0]["splits"] == 1


@pytest.mark.parametrize("flags, kwargs", [
    ([], {}),
    (["--rvalue", "pooled", "--seed", "4"], {"rvalue": "pooled", "seed": 4}),
    (["--rvalue", "nonparametric", "--never-empty", "--method", "cp-r"],
     {"rvalue": "nonparametric", "never_empty": True, "methods": ["cp-r"]}),
])
def test_sets_are_the_cli(digits, tmp_path, flags, kwargs):
    scores, labels = digits
    mask = np.random.default_rng(1).random(len(labels)) < 0.5
    np.save(tmp_path / "mask.npy", mask)
    run_cli("sets", "--scores", ASSETS / "digits_wbb.npz", "--split", tmp_path / "mask.npy",
            "--alpha", "0.1", "--output", tmp_path / "sets.csv", "--device", "cpu", *flags)
    rows = csv_rows((tmp_path / "sets.csv").read_text())
    # The CLI gives an empty set one row with no candidate; the columns hold set members only.
    assert {r["item"] for r in rows} == set(np.flatnonzero(~mask))
    want = [r for r in rows if r["candidate"] is not None]
    got = rx.sets(scores, labels, mask, 0.1, **kwargs)
    assert list(got) == ["method", "item", "candidate", "score", "position"]
    assert len(got["method"]) == len(want) > 0
    for j, w in enumerate(want):
        assert got["method"][j] == w["method"]
        for key in ("item", "candidate", "position"):
            assert int(got[key][j]) == w[key]
        assert same_bits(float(got["score"][j]), w["score"])


@pytest.mark.parametrize("flags, kwargs", [
    ([], {}),
    (["--algorithm", "grid"], {"algorithm": "grid"}),
    (["--algorithm", "exact", "--lambda", "empirical"], {"algorithm": "exact", "lambda_rule": "empirical"}),
    (["--hyper", "0.5,2"], {"hyper": (0.5, 2.0)}),
])
def test_rvalues_are_rvalue_rank(flags, kwargs):
    units = ROOT / "tests" / "data" / "reference" / "rvalues_R_12_units.csv"
    want = csv_rows(run_cli("rank", "--input", units, *flags))
    x = [w["estimate"] for w in want]
    se = [w["se"] for w in want]
    got = rx.rvalues(x, se, **kwargs)
    for key in ("estimate", "se", "post_mean", "post_sd", "rvalue"):
        assert len(got[key]) == len(want)
        for g, w in zip(got[key], want):
            assert same_bits(float(g), w[key]), key


def test_rvalues_from_variances_are_those_from_standard_errors():
    se = np.array([1.4, 1.6, 1.2, 0.0, 2.5])
    x = np.array([0.1, 3.1, -2.7, 0.4, 1.0])
    a, b = rx.rvalues(x, se), rx.rvalues(x, s=se * se)
    assert np.array_equal(a["rvalue"], b["rvalue"]) and a["hyper"] == b["hyper"]


def toy_line_probability(*flags) -> float:
    """The exact P(q > p) of `rvalue toy`'s first line: `P(q > p) = 48.74 % (0.48739…)   […]`."""
    first = run_cli("toy", "--repeats", "1", "--n-cal", "10", "--n-test", "10", *flags).splitlines()[0]
    return float(re.search(r"% \(([^)]+)\)", first).group(1))


def test_toy_probability_is_the_cli():
    assert same_bits(rx.toy_probability(), toy_line_probability())
    assert round(100 * rx.toy_probability(), 2) == 48.74
    want = toy_line_probability("--sigma2", "30", "--mu-p", "2")
    assert same_bits(rx.toy_probability(mu_p=2.0, sigma2_q=30.0), want)


def test_several_alphas_are_the_single_runs_and_the_cli(digits):
    scores, labels = digits
    alphas = [0.05, 0.2, 0.1]
    kwargs = dict(methods=["cp", "cp-r"], splits=3, seed=2)
    got = rx.conformal(scores, labels, alphas, **kwargs)
    assert [(r["alpha"], r["method"]) for r in got] == [(a, m) for a in alphas for m in ("cp", "cp-r")]
    assert_rows_equal(got, [row for a in alphas for row in rx.conformal(scores, labels, a, **kwargs)])
    want = csv_rows(run_cli("conformal", "--scores", ASSETS / "digits_wbb.npz", "--alpha", "0.05,0.2,0.1",
                            "--method", "cp,cp-r", "--splits", "3", "--seed", "2", "--device", "cpu"))
    assert_rows_equal(got, want)
    with pytest.raises(TypeError, match="alpha"):
        rx.conformal(scores, labels, [], **kwargs)
