"""`from_estimators`: a fitted ensemble's class probabilities as scores `[N, M, K]`.

Part of the compiled module (its text is built in and run at import), so the wheel stays one
extension with no Python files beside it.
"""

import numpy as np


def from_estimators(estimators, X, *, log=True, clip=1e-12, classes=None, return_classes=False):
    """Stack each member's ``predict_proba(X)`` into scores ``[N, M, K]`` (member = draw).

    ``estimators`` is a list of fitted scikit-learn-style classifiers, or one fitted ensemble
    whose ``estimators_`` are its members (a random forest, extra trees, a ``BaggingClassifier``,
    whose members see only their ``estimators_features_``). Candidate ``k`` is ``classes[k]``:
    the ensemble's ``classes_``, or the sorted union of the members' ``classes_``, or the
    ``classes`` given. A class a member never saw gets probability 0 there. With ``log=True``
    (default) the scores are log-probabilities with probabilities clipped to ``[clip, 1]``
    first, so a hard 0 (common in trees) gives ``log(clip)`` instead of ``-inf``. Returns the
    float64 scores, and the classes too with ``return_classes=True``: labels for
    :func:`conformal` are each label's index in ``classes`` (``np.searchsorted(classes, y)``
    when they are sorted, as the defaults are).
    """
    members, features, member_classes, classes = _members(estimators, classes)
    X = np.asarray(X) if not hasattr(X, "iloc") else X
    n = X.shape[0]
    scores = np.zeros((n, len(members), len(classes)))
    for m, (member, cols) in enumerate(zip(members, features)):
        Xm = X if cols is None else _columns(X, cols)
        proba = np.asarray(_proba(member, Xm), dtype=float)
        where = _positions(member_classes[m], classes)
        if proba.shape != (n, len(where)):
            raise ValueError(f"estimator {m}: predict_proba gave shape {proba.shape}, "
                             f"expected ({n}, {len(where)}) for its classes_")
        scores[:, m, where] = proba
    if log:
        scores = np.log(np.clip(scores, clip, 1.0))
    return (scores, classes) if return_classes else scores


def _members(estimators, classes):
    """(members, feature columns or None, each member's classes, the candidates' classes)."""
    if hasattr(estimators, "estimators_"):
        members = list(estimators.estimators_)
        if not members:
            raise ValueError("the ensemble has no fitted estimators_")
        own = np.asarray(estimators.classes_)
        features = list(getattr(estimators, "estimators_features_", [None] * len(members)))
        # Ensembles fit their members on class indices 0..K-1, in the order of their classes_.
        member_classes = [own[np.asarray(e.classes_).astype(int)] for e in members]
        return members, features, member_classes, own if classes is None else np.asarray(classes)
    members = list(estimators)
    if not members:
        raise ValueError("estimators is empty; expected fitted classifiers or a fitted ensemble")
    for i, e in enumerate(members):
        if not hasattr(e, "classes_"):
            raise ValueError(f"estimators[{i}] has no classes_: is it a fitted classifier?")
    member_classes = [np.asarray(e.classes_) for e in members]
    union = np.unique(np.concatenate(member_classes)) if classes is None else np.asarray(classes)
    return members, [None] * len(members), member_classes, union


def _proba(member, X):
    if hasattr(member, "predict_proba"):
        return member.predict_proba(X)
    if hasattr(member, "predict_log_proba"):
        return np.exp(member.predict_log_proba(X))
    raise ValueError(f"{type(member).__name__} has neither predict_proba nor predict_log_proba")


def _columns(X, cols):
    return X.iloc[:, cols] if hasattr(X, "iloc") else X[:, cols]


def _positions(member_classes, classes):
    """Where each of a member's classes sits among the candidates' classes."""
    index = {c: i for i, c in enumerate(np.asarray(classes).tolist())}
    missing = [c for c in np.asarray(member_classes).tolist() if c not in index]
    if missing:
        raise ValueError(f"a member's class {missing[0]!r} is not among the classes {list(index)}")
    return np.array([index[c] for c in np.asarray(member_classes).tolist()], dtype=int)
