"""Seeded stratified cross-validation with the metrics the project reports.

Used by the CLI (``python -m orangecontrib.rules``) and by ``benchmarks/``:
every learner sees the same folds. A learner entry may expand one fitted
model into several *variants* (e.g. one rule set scored by each Fawcett
strategy), so the expensive fit is done once per fold.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

from Orange.data import Table

from .tables import usable_rows


@dataclass
class Entry:
    """A learner under evaluation. ``variants(model)`` maps a fitted model to
    ``{name: model}``; by default the model itself under ``name``."""

    name: str
    learner: Callable
    variants: Callable | None = None

    def expand(self, model):
        if self.variants is None:
            return {self.name: model}
        return self.variants(model)


@dataclass
class Scores:
    ca: list = field(default_factory=list)
    auc: list = field(default_factory=list)
    logloss: list = field(default_factory=list)
    brier: list = field(default_factory=list)
    n_rules: list = field(default_factory=list)
    n_terms: list = field(default_factory=list)
    fit_s: list = field(default_factory=list)
    predict_s: list = field(default_factory=list)
    failed: str | None = None

    def mean(self, key):
        values = getattr(self, key)
        return float(np.mean(values)) if values else float("nan")

    def std(self, key):
        values = getattr(self, key)
        return float(np.std(values)) if values else float("nan")


def weighted_auc(y, probs, n_classes, w=None) -> float:
    """Binary: AUC of class 1. Multi-class: one-vs-rest AUC of each class
    present, weighted by its prevalence (Fawcett 2001; Provost & Domingos).
    ``w``: example weights (a row of weight ``k`` counts as ``k`` rows)."""
    y = np.asarray(y)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    present = np.unique(y[w > 0])
    if len(present) < 2:
        return float("nan")
    if n_classes == 2:
        return float(roc_auc_score(y, probs[:, 1], sample_weight=w))
    total, acc = 0.0, 0.0
    for c in present:
        prevalence = w[y == c].sum() / w.sum()
        acc += prevalence * roc_auc_score(y == c, probs[:, c], sample_weight=w)
        total += prevalence
    return float(acc / total)


def fold_metrics(y, probs, n_classes, w=None):
    """CA, AUC, log loss and Brier score of probability rows ``probs``,
    each row counted by its weight in ``w`` (default 1)."""
    probs = np.asarray(probs, dtype=float)
    if probs.shape[1] < n_classes:  # Orange pads narrower outputs
        probs = np.hstack([probs, np.zeros((len(probs), n_classes - probs.shape[1]))])
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float).reshape(-1)
    ca = float(np.average(np.argmax(probs, axis=1) == y, weights=w))
    p_true = np.clip(probs[np.arange(len(y)), y], 1e-15, 1)
    logloss = float(-np.average(np.log(p_true), weights=w))
    onehot = np.eye(n_classes)[y]
    brier = float(np.average(np.sum((probs - onehot) ** 2, axis=1), weights=w))
    return ca, weighted_auc(y, probs, n_classes, w), logloss, brier


def weights_of(data: Table) -> np.ndarray:
    """The example weights of ``data`` (1 where it has none)."""
    return (np.asarray(data.W, dtype=float).reshape(-1) if data.has_weights()
            else np.ones(len(data)))


def stratified_folds(data: Table, k=10, seed=0):
    """The same seeded stratified folds for every learner."""
    y = data.Y.astype(int)
    k = max(2, min(k, np.bincount(y).max()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # classes smaller than k
        skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        return list(skf.split(np.zeros(len(y)), y))


def count_rules(model) -> float:
    """The rules the model's predictions read (:attr:`RuleModel.size`: LR
    with rules' rules of non-zero weight, SLIPPER's default rules too), else
    (Orange's models) its rules with conditions."""
    size = getattr(model, "size", None)
    if size is not None:
        return float(size[0])
    for attr in ("rule_list", "rules"):
        rules = getattr(model, attr, None)
        if rules is not None:
            return float(sum(1 for r in rules if getattr(r, "selectors", r)))
    return float("nan")


def cross_validate(data: Table, entries, k=10, seed=0, progress=None):
    """Cross-validate ``entries`` on ``data``; returns ``{name: Scores}``.
    Rows count by their weight, and a row of weight 0 is no row, in the
    folds as in the scores (:func:`tables.usable_rows`)."""
    data = usable_rows(data)
    folds = stratified_folds(data, k, seed)
    n_classes = len(data.domain.class_var.values)
    results: dict[str, Scores] = {}
    for f, (train_idx, test_idx) in enumerate(folds):
        train, test = data[train_idx], data[test_idx]
        y_test, w_test = test.Y.astype(int), weights_of(test)
        for entry in entries:
            t0 = time.perf_counter()
            try:
                model = entry.learner(train)
            except Exception as exc:  # noqa: BLE001 - report, keep the others
                results.setdefault(entry.name, Scores()).failed = repr(exc)
                continue
            fit_s = time.perf_counter() - t0
            variants = entry.expand(model)
            for name, variant in variants.items():
                s = results.setdefault(name, Scores())
                t0 = time.perf_counter()
                probs = variant(test, variant.Probs)
                s.predict_s.append(time.perf_counter() - t0)
                s.fit_s.append(fit_s)  # the fit every variant needs
                ca, auc, ll, br = fold_metrics(y_test, probs, n_classes, w_test)
                s.ca.append(ca)
                s.auc.append(auc)
                s.logloss.append(ll)
                s.brier.append(br)
                s.n_rules.append(count_rules(variant))
                s.n_terms.append(float(getattr(variant, "attribute_terms", 0)))
        if progress:
            progress((f + 1) / len(folds))
    return results


def markdown_table(results, columns=("ca", "auc", "logloss", "brier",
                                     "n_rules", "fit_s", "predict_s")):
    """Results as a markdown table, one row per learner."""
    labels = {"ca": "CA", "auc": "AUC", "logloss": "log loss", "brier": "Brier",
              "n_rules": "rules", "n_terms": "attribute weights", "fit_s": "fit s",
              "predict_s": "predict s"}
    lines = ["| learner | " + " | ".join(labels[c] for c in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for name, s in results.items():
        if s.failed and not s.ca:
            lines.append(f"| {name} | failed: {s.failed} |")
            continue
        cells = [f"{s.mean(c):.1f}" if c in ("n_rules", "n_terms") else f"{s.mean(c):.3f}"
                 for c in columns]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: the budgets :func:`size_curve` tries by default (``None``: no budget)
BUDGETS = (5, 10, 25, 50, 100, None)


def size_curve(learner, data: Table, budgets=BUDGETS, n_folds=3, random_state=0,
               progress=None) -> list[dict]:
    """The size-accuracy curve of a rule learner: for each ``max_rules``
    budget in ``budgets`` (``None``: the learner's default), the mean rules
    and conditions of its models (:attr:`RuleModel.size`) and their
    accuracy, AUC and log loss in an internal stratified ``n_folds``-fold
    cross-validation of ``data`` (seeded by ``random_state``, the same folds
    for every budget; rows count by their weight and a row of weight 0 is
    no row, :func:`tables.usable_rows`), so a user can choose a budget by what it
    costs.

    Parameters
    ----------
    learner : RuleLearner
        Any learner of the add-on (it takes ``max_rules``).
    data : Orange.data.Table
    budgets : sequence of int or None
    n_folds : int
    random_state : int
    progress : callable, optional
        Called with the fraction done, also from within each fit (so an
        exception it raises, such as a widget's cancel, stops the curve).

    Returns
    -------
    list of dict
        Per budget: ``budget``, ``rules``, ``conditions``, ``attribute_terms``
        (LR with rules' non-zero attribute weights; 0 elsewhere), ``accuracy``,
        ``auc``, ``logloss``.
    """
    data = usable_rows(data)
    folds = stratified_folds(data, n_folds, random_state)
    n_classes = len(data.domain.class_var.values)
    out = []
    n_fits = len(budgets) * len(folds)
    for b, budget in enumerate(budgets):
        # the learner's own preprocessors too (a widget's Preprocessor input)
        budgeted = type(learner)(**dict(learner.params, max_rules=budget),
                                 preprocessors=learner.preprocessors)
        scores, sizes, terms = [], [], []
        for f, (train, test) in enumerate(folds):
            done = b * len(folds) + f
            within = None if progress is None else \
                (lambda p, *_, done=done: progress((done + p) / n_fits))
            model = budgeted(data[train], progress_callback=within)
            y = data.Y[test].astype(int)
            scores.append(fold_metrics(y, model(data[test], model.Probs), n_classes,
                                       weights_of(data[test]))[:3])
            sizes.append(model.size)
            terms.append(model.attribute_terms)
            if progress:
                progress((done + 1) / n_fits)
        ca, auc, ll = np.nanmean(scores, axis=0)
        rules, conds = np.mean(sizes, axis=0)
        out.append(dict(budget=budget, rules=float(rules), conditions=float(conds),
                        attribute_terms=float(np.mean(terms)), accuracy=float(ca),
                        auc=float(auc), logloss=float(ll)))
    return out
