"""Orange base classes every learner of the add-on uses.

:class:`RuleLearner` checks the data (discrete class required, rows with an
unknown class removed, weights read), encodes it once and hands it to the
algorithm; it returns a sensible default model for data it cannot learn rules
from (one class, no attributes). :class:`RuleModel` keeps the rules in order,
says which fire on each instance and pickles.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from Orange.classification import Learner
from Orange.data import Domain, Table
from Orange.data.filter import HasClass
from Orange.util import dummy_callback, wrap_callback

try:  # the CN2 Rule Viewer accepts only subclasses of this (private) class
    from Orange.classification.rules import _RuleClassifier as _ModelBase
except ImportError:  # pragma: no cover - Orange without the CN2 module
    from Orange.classification import Model as _ModelBase

from .encoding import EncodedData, dense_X, encode_table
from .rules import Rule, covering, format_rules


class Interrupted(Exception):
    """Raised from a progress callback to stop a fit (widget's Cancel)."""


class RuleModel(_ModelBase):
    """A model made of rules (``rule_list``, in the order the model uses).

    ``class_distribution`` is the weighted training class distribution.
    Subclasses implement :meth:`predict` returning ``(n, n_classes)``
    probabilities whose rows sum to 1.
    """

    def __init__(self, domain, rule_list, class_distribution):
        super().__init__(domain, list(rule_list))
        self.class_distribution = np.asarray(class_distribution, dtype=float)

    @property
    def rules(self) -> list[Rule]:
        return self.rule_list

    @property
    def n_classes(self) -> int:
        return len(self.domain.class_var.values)

    @property
    def prior(self) -> np.ndarray:
        """Training class prevalence (uniform if there was no weight)."""
        total = self.class_distribution.sum()
        if total <= 0:
            return np.full(self.n_classes, 1 / self.n_classes)
        return self.class_distribution / total

    def __call__(self, data, ret=_ModelBase.Value):
        """Orange's prediction call. An array is read in the columns of the
        training data (``original_domain``) when the learner's preprocessing
        changed them (ROCCER's and SLS's discretisation), so ``model(data.X)``
        gives what ``model(data)`` gives; :meth:`predict` takes the model's own
        columns."""
        if (isinstance(data, np.ndarray) or sp.issparse(data)) \
                and self.original_domain.attributes != self.domain.attributes:
            one_d = data.ndim == 1
            X = dense_X(data).reshape(1, -1) if one_d else dense_X(data)
            attrs = self.original_domain.attributes
            if X.shape[1] != len(attrs):
                raise ValueError(f"X has {X.shape[1]} columns; the model was "
                                 f"trained on {len(attrs)}")
            out = super().__call__(Table.from_numpy(Domain(attrs), X), ret)
            if one_d:
                return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]
            return out
        return super().__call__(data, ret)

    def _model_X(self, data) -> np.ndarray:
        if isinstance(data, Table):
            data = self.data_to_model_domain(data)
            return dense_X(data.X)
        X = dense_X(data)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        if X.shape[1] != len(self.domain.attributes):
            raise ValueError(f"X has {X.shape[1]} columns; the model expects "
                             f"{len(self.domain.attributes)}")
        return X

    def covering(self, data) -> np.ndarray:
        """Boolean ``(n, n_rules)``: which rules fire on each instance of ``data``
        (a Table in any compatible domain, or an array in the model's domain)."""
        return covering(self.rule_list, self._model_X(data))

    def set_rule_distributions(self, data: Table, enc: EncodedData):
        """Set each rule's ``class_distribution`` to the weighted class counts
        of the training examples it covers (``data`` in the model's domain,
        ``enc`` its encoding), for learners whose search does not keep them."""
        if not self.rule_list:
            return
        cover = covering(self.rule_list, dense_X(data.X)).astype(float)
        onehot = np.zeros((len(enc.y), self.n_classes))
        onehot[np.arange(len(enc.y)), enc.y] = enc.w
        for rule, dist in zip(self.rule_list, cover.T @ onehot):
            rule.class_distribution = dist

    def __str__(self):
        head = f"{type(self).__name__}: {len(self.rule_list)} rules"
        return head + ("\n" + format_rules(self.rule_list, self.domain)
                       if self.rule_list else "")

    def __repr__(self):
        return f"<{type(self).__name__} with {len(self.rule_list)} rules>"


class PriorRuleModel(RuleModel):
    """No rules: predicts the training class distribution (the default rule)."""

    def predict(self, X):
        X = self._model_X(X)
        return np.tile(self.prior, (X.shape[0], 1))


class RuleLearner(Learner):
    """Base learner: discrete class, rows with unknown class removed, weights.

    Subclasses implement :meth:`fit_rules` on the encoded data and call
    :meth:`progress` to report progress (a callback the widget passes through
    ``__call__``). Subclasses set ``self.params`` to their constructor
    arguments (read by Orange's widgets and Parameter Fitter).
    """

    preprocessors = [HasClass()]
    supports_weights = True
    __returns__ = RuleModel

    def __init__(self, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.params = {}

    # --- data checks -----------------------------------------------------
    def incompatibility_reason(self, domain):
        if domain.class_var is None:
            if len(domain.class_vars) > 1:
                return "Rule learners support only one target variable."
            return "Rule learners need a categorical class variable; " \
                   "the data has none."
        if len(domain.class_vars) > 1:
            return "Rule learners support only one target variable."
        if not domain.class_var.is_discrete:
            return "Rule learners need a categorical class variable " \
                   f"('{domain.class_var.name}' is numeric)."
        return None

    # --- progress ----------------------------------------------------------
    def __call__(self, data, progress_callback=None):
        self._progress_cb = wrap_callback(progress_callback or dummy_callback,
                                          start=0.1, end=0.99)
        try:
            return super().__call__(data, progress_callback)
        finally:
            del self._progress_cb

    def progress(self, fraction: float, status: str = ""):
        """Report progress in [0, 1] of the fit; may raise :class:`Interrupted`."""
        cb = getattr(self, "_progress_cb", dummy_callback)
        cb(float(min(max(fraction, 0.0), 1.0)), status)

    # --- fitting -------------------------------------------------------------
    def fit_storage(self, data: Table):
        if len(data) == 0:
            raise ValueError("Cannot learn rules from empty data "
                             "(no instances with a known class).")
        enc = encode_table(data)
        dist = enc.class_distribution()
        if np.count_nonzero(dist > 0) < 2 or not len(data.domain.attributes):
            return PriorRuleModel(data.domain, [], dist)
        return self.fit_rules(data, enc)

    def fit_rules(self, data: Table, enc: EncodedData) -> RuleModel:
        raise NotImplementedError

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"
