"""Adapters to Orange's CN2 family (its rules become this add-on's
:class:`Rule` s in :mod:`orangecontrib.rules.base_rules`): CN2 searches
restricted to the conditions a :class:`Rule` holds, a weighted imputation
for CN2's preprocessing, and progress reports from CN2's rule finder (Rule
Scoring's ``base``, the Rule Viewer's CN2 models)."""
from __future__ import annotations

import numpy as np

from Orange.classification import CN2UnorderedLearner
from Orange.classification.rules import TopDownSearchStrategy
from Orange.data import Domain
from Orange.data.filter import HasClass
from Orange.preprocess import RemoveNaNColumns
from Orange.preprocess.impute import Average
from Orange.preprocess.preprocess import Preprocess




class WeightedImpute(Preprocess):
    """Orange's ``Impute`` (column mean / mode) with example weights.

    CN2's default preprocessor, ``Impute()``, fails on any weighted table with
    a numeric column in Orange 3.40 (``Table._compute_basic_stats`` evaluates
    ``W and W[:, [c]]`` on an array); the weighted mean and mode are computed
    here and handed to Orange's ``Average`` as its value.
    """

    def __call__(self, data):
        w = data.W if data.has_weights() else np.ones(len(data))
        attrs = []
        for var in data.domain.attributes:
            col = data.get_column(var).astype(float)
            known = ~np.isnan(col)
            wk = w[known]
            if not known.any() or wk.sum() <= 0:
                value = 0.0
            elif var.is_discrete:
                value = float(np.argmax(np.bincount(col[known].astype(int), weights=wk,
                                                    minlength=len(var.values))))
            else:
                size = np.abs(col[known]).max()  # no overflow near 1e308
                value = float(np.average(col[known] / size, weights=wk) * size) \
                    if size > 0 else 0.0
            attrs.append(Average()(data, var, value))
        return data.transform(Domain(attrs, data.domain.class_vars, data.domain.metas))



class EqualityOnlySearch(TopDownSearchStrategy):
    """Orange's top-down CN2 search without ``A != v`` conditions: what
    ``restrict_equality=True`` does in Orange 3.40, for 3.38 and 3.39."""

    def find_new_selectors(self, *args, **kwargs):
        return [s for s in super().find_new_selectors(*args, **kwargs) if s.op != "!="]



def cn2_unordered_equality(preprocessors=None) -> CN2UnorderedLearner:
    """``CN2UnorderedLearner`` whose discrete conditions are equalities only
    (the rules this add-on's ``Rule`` can hold), on any Orange from 3.38."""
    try:
        return CN2UnorderedLearner(restrict_equality=True, preprocessors=preprocessors)
    except TypeError:  # Orange 3.38 and 3.39: no restrict_equality
        base = CN2UnorderedLearner(preprocessors=preprocessors)
        base.rule_finder.search_strategy = EqualityOnlySearch()
        return base



def cn2_base(beam_width=5, min_covered_examples=1, max_rule_length=5):
    """Orange's ``CN2UnorderedLearner(restrict_equality=True)`` with the given
    search settings and a weighted imputation (Orange 3.40's ``Impute``
    fails on weighted tables): a ``base`` for :class:`RuleScoringLearner`
    that scores Orange's CN2 rules."""
    base = cn2_unordered_equality(
        preprocessors=[RemoveNaNColumns(), HasClass(), WeightedImpute()])
    finder = base.rule_finder
    finder.search_algorithm.beam_width = int(beam_width)
    finder.general_validator.min_covered_examples = int(min_covered_examples)
    finder.general_validator.max_rule_length = int(max_rule_length)
    return base



class ProgressFinder:
    """Wraps the ``rule_finder`` of an Orange CN2 learner, which reports no
    progress: before each rule search it reports the share of the current
    class's examples already covered (CN2 removes them as it goes), so the
    widget's bar moves per rule and per class, and Cancel (the callback
    raising :class:`~orangecontrib.rules.base.Interrupted`) stops the fit
    between two rules."""

    def __init__(self, finder, progress, enc):
        self.finder, self.report = finder, progress
        self.n_classes = enc.n_classes
        self.totals = np.bincount(enc.y, enc.w, minlength=enc.n_classes)
        self.total = float(enc.w.sum())

    def __call__(self, X, Y, W, target_class, *args, **kwargs):
        y = np.asarray(Y, dtype=float).reshape(len(Y), -1)[:, 0] if len(Y) else np.zeros(0)
        w = np.ones(len(y)) if W is None else np.asarray(W, dtype=float).reshape(-1)
        if target_class is None:  # a decision list: all classes at once
            done = 1 - w.sum() / self.total if self.total > 0 else 1.0
            self.report(0.9 * done, f"learning rules ({100 * done:.0f}% covered)")
        else:
            c = int(target_class)
            left = w[y == c].sum()
            done = 1 - left / self.totals[c] if self.totals[c] > 0 else 1.0
            self.report(0.9 * (c + done) / self.n_classes,
                        f"learning rules for class {c + 1} of {self.n_classes}")
        return self.finder(X, Y, W, target_class, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.finder, name)

