"""`from_estimators`: a fitted scikit-learn ensemble or list of classifiers as scores [N, M, K],
then the quick start of the README, end to end."""

import numpy as np
import pytest

import rvalue_explorer as rx

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402


@pytest.fixture(scope="module")
def digits_xy():
    X, y = load_digits(return_X_y=True)
    return X[:600], y[:600], X[600:900], y[600:900]


def test_a_forests_trees_are_its_draws(digits_xy):
    X, y, Xt, _ = digits_xy
    forest = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    p = rx.from_estimators(forest, Xt, log=False)
    assert p.shape == (300, 6, 10)
    # The forest's own prediction is the mean of its trees' probabilities.
    assert np.allclose(p.mean(axis=1), forest.predict_proba(Xt), rtol=0, atol=1e-12)
    s = rx.from_estimators(forest, Xt)
    assert np.isfinite(s).all() and s.min() == np.log(1e-12), "log(0) clipped"


def test_bagging_members_see_their_own_features(digits_xy):
    X, y, Xt, _ = digits_xy
    bag = BaggingClassifier(GaussianNB(), n_estimators=4, max_features=0.5, random_state=1).fit(X, y)
    p = rx.from_estimators(bag, Xt, log=False)
    assert np.allclose(p.mean(axis=1), bag.predict_proba(Xt), rtol=0, atol=1e-12)


def test_a_list_of_classifiers_shares_one_class_order():
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.array(["a", "b", "c"] * 20)
    models = [LogisticRegression().fit(X, y), LogisticRegression().fit(X[y != "c"], y[y != "c"])]
    s, classes = rx.from_estimators(models, X, return_classes=True)
    assert list(classes) == ["a", "b", "c"] and s.shape == (60, 2, 3)
    assert (s[:, 1, 2] == np.log(1e-12)).all(), "a class a member never saw: probability 0"
    assert np.allclose(np.exp(s[:, 0]), models[0].predict_proba(X))
    with pytest.raises(ValueError, match="not among the classes"):
        rx.from_estimators(models, X, classes=["a", "b"])
    with pytest.raises(ValueError, match="estimators is empty"):
        rx.from_estimators([], X)
    with pytest.raises(ValueError, match=r"estimators\[0\] has no classes_"):
        rx.from_estimators([object()], X)


def test_the_quick_start_runs(digits_xy):
    X, y, Xt, yt = digits_xy
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X[:300], y[:300])
    scores = rx.from_estimators(forest, np.vstack([X[300:], Xt]))
    labels = np.concatenate([y[300:], yt])
    cal = rx.calibrate(scores[:300], labels[:300], 0.1)
    sets = cal.predict(scores[300:])
    assert sets.shape == (300, 10)
    coverage = sets[np.arange(300), labels[300:]].mean()
    assert 0.75 < coverage <= 1.0, coverage
