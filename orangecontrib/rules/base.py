"""Orange base classes every learner of the add-on uses.

:class:`RuleLearner` checks the data (:mod:`orangecontrib.rules.tables`:
discrete class required, rows with an unknown class removed, weights
read), encodes it once (:mod:`orangecontrib.rules.features`) and hands it
to the algorithm; it returns a sensible default model for data it cannot learn rules
from (one class, no attributes). :class:`RuleModel` keeps the rules in order,
says which fire on each instance and pickles.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from Orange.classification import Learner
from Orange.data import Domain, Instance, Table
from Orange.data.filter import HasClass
from Orange.util import dummy_callback, wrap_callback

try:  # the CN2 Rule Viewer accepts only subclasses of this (private) class
    from Orange.classification.rules import _RuleClassifier as _ModelBase
except ImportError:  # pragma: no cover - Orange without the CN2 module
    from Orange.classification import Model as _ModelBase

from .features import EncodedData, encode_table, lent_encoding
from .parallel import in_process_backend, one_blas_thread
from .rules import (Rule, counted, covering, dense_X, format_rules, rule_class_weights,
                    spread)
from .tables import (check_sparse_memory, check_table, map_values_by_name, stratified_rows,
                     usable_rows)


class _Reporter:
    """A fit's progress callback and the progress last given to it: the
    fit's tasks in other threads of this process ask it whether to stop
    (:meth:`check`: the callback again with the same progress, which raises
    :class:`Interrupted` when the caller cancelled) without moving it."""

    def __init__(self, callback):
        self.callback = callback
        self.last = (0.0, "")

    def report(self, fraction, status):
        self.last = (fraction, status)
        self.callback(fraction, status)

    def check(self, *_):
        self.callback(*self.last)


def class_preference(class_distribution, values) -> np.ndarray:
    """Per class, its rank on a tie (higher wins), in ``(0, 1]``: the class
    more prevalent in training first, then the one whose value name sorts
    first. It depends on the classes, not on the order the class variable
    lists them in, so that order never changes a prediction."""
    dist = np.asarray(class_distribution, dtype=float)
    order = sorted(range(len(dist)), key=lambda c: (-dist[c], str(values[c])))
    pref = np.empty(len(dist))
    pref[order] = np.arange(len(dist), 0, -1) / max(len(dist), 1)
    return pref


def in_name_order(classes, values) -> list[int]:
    """``classes`` (indices) sorted by their value names: the order in
    which a learner hands out per-class seeds, so the model does not depend
    on the order the class variable lists its values in (Orange lists
    them sorted, so this is usually the index order)."""
    return sorted(classes, key=lambda c: (str(values[c]), c))


def argmax_with_ties(scores: np.ndarray, preference: np.ndarray,
                     eligible: np.ndarray | None = None) -> np.ndarray:
    """Per row, the column of the highest score; among scores equal to it
    (to 1e-12, relative and absolute) the class of the highest
    ``preference`` (:func:`class_preference`), then the lower index.
    ``eligible`` (boolean, the shape of ``scores``): only these columns may
    win (every row needs one)."""
    scores = np.asarray(scores, dtype=float)
    masked = scores if eligible is None else np.where(eligible, scores, -np.inf)
    best = masked.max(axis=1, keepdims=True)
    tied = np.isclose(masked, best, rtol=1e-12, atol=1e-12)
    if eligible is not None:
        tied &= eligible
    pref = np.asarray(preference, dtype=float)
    return np.argmax(np.where(tied, pref[None, :] + 1, 0), axis=1)


#: the model exporters by format (``"sql"``, ``"json"``), which
#: :meth:`RuleModel.to_sql` and :meth:`RuleModel.to_json` call: set by
#: :mod:`orangecontrib.rules.export` (imported with the package), which reads
#: every learner's models and so sits above them (doc/architecture.md)
EXPORTERS: dict = {}

#: the progress callback of each fit under way, by ``id`` of its learner
#: (a context variable: each thread, and each nested fit, sees its own)
_PROGRESS: ContextVar[dict] = ContextVar("orangecontrib_rules_progress", default={})


class Interrupted(Exception):
    """Raised from a progress callback to stop a fit (widget's Cancel)."""


@dataclass
class ViewerColumn:
    """A numeric column of the Rule Viewer's table: one value per rule."""

    name: str
    values: np.ndarray
    tooltip: str = ""
    decimals: int = 3


def _value_text(var, index: int) -> str:
    """A class value as explanations name it."""
    return str(var.values[int(index)])


@dataclass
class Reasons:
    """Why a row got its prediction, in the terms a reader checks
    (:meth:`Explanation.reasons`): the predicted class and its probability,
    the unit of the rules' moves, the supporting rules ``(rule index,
    move > 0)`` largest first, the opposing ones ``(rule index, move <
    0)`` largest first, and, when no rule supports the prediction, what
    decided it (``decided_by``); ``without``: on the log-odds scales, what
    the part without rules (``base_label``) adds to the predicted class
    over the runner-up."""

    predicted: int
    probability: float
    unit: str
    supporting: list
    opposing: list
    decided_by: str | None = None
    without: float | None = None
    base_label: str = "the part without rules"


@dataclass
class Explanation:
    """Why one row got its prediction: the rules that fire and matter
    (indices into the model's ``rule_list``), what each adds, and how the
    numbers make the probabilities (:meth:`probabilities`).

    ``combine``:

    * ``"softmax"``: ``p = softmax(base + sum of contributions)``, numbers on
      the log-odds scale (LR with rules, SLIPPER with two classes, ROCCER
      with more than two; ``base`` holds the intercepts and the attributes);
    * ``"sigmoids"``: ``p_c`` proportional to ``1 / (1 + exp(-(base_c +
      sum_c)))`` (LR with rules one-vs-rest, SLIPPER with more classes);
    * ``"sums"``: ``p`` proportional to ``base + sum of contributions``
      (SLS: each rule set's ``Q(r)`` times its region's estimate);
    * ``"winner"``: the class of ``winner`` gets ``score`` (the mean of the
      contributions of its rules; the strategy chose them), the other classes
      share ``1 - score`` by their prior (FIRST, LFPR and RAND of Rule Scoring
      and EVC rules, ROCCER with two classes); no rule: the prior;
    * ``"wvote"`` and ``"vote"``: every firing rule adds its confidence
      (WVOTE) or 1 (VOTE) to its class; ``winner`` gets the mean confidence
      of its rules (``counts``: the rules per class) or its share of the
      votes, the other classes share the rest by their sums plus their
      prior (Rule Scoring's and EVC rules' default WVOTE, and VOTE).
    """

    rules: np.ndarray          # indices into rule_list
    contributions: np.ndarray  # (len(rules), n_classes)
    base: np.ndarray           # (n_classes,)
    combine: str
    prior: np.ndarray
    winner: int = -1
    counts: np.ndarray = None  # "wvote": the firing rules of each class
    #: what ``base`` is, in words ("the intercept and the attribute terms",
    #: "the baseline (the default rule)", ...): named when it decides
    base_label: str = "the part without rules"

    def reasons(self, model) -> "Reasons":
        """The rules of this row as reasons for its prediction
        (:class:`Reasons`): per rule its *move*, how much it moves the
        predicted class ``c`` (positive: toward ``c``, supporting it;
        negative: against it), on the scale of the combination:

        * ``softmax``, ``sigmoids``: its log-odds of ``c`` minus its
          log-odds of the runner-up;
        * ``winner``: the chosen rule's confidence, toward ``c`` if its
          class is ``c``, else against;
        * ``wvote``, ``vote``: a rule of class ``c`` its confidence (or 1)
          toward ``c``; a rule of another class the same against ``c``;
        * ``sums`` (SLS): its share of the mass, ``m_c (1 - p_c) - p_c
          sum_{k != c} m_k`` with ``m`` the rule's mass on each class beyond
          an even split (two classes: its mass on ``c`` beyond one half).

        Supporting rules come first (largest move first), then the
        opposing ones (largest first); a rule that does not move ``c`` (on
        the log-odds scales, one that raises ``c`` and the runner-up alike)
        is neither. When no firing rule supports ``c``,
        :attr:`Reasons.decided_by` says what decided instead."""
        cv = model.domain.class_var
        p = self.probabilities()
        pref = model.class_preference
        c = int(argmax_with_ties(p[None, :], pref)[0])
        rest = np.arange(len(p)) != c
        second = (int(argmax_with_ties(p[None, :], pref, rest[None, :])[0])
                  if rest.any() else c)
        contrib = np.asarray(self.contributions, dtype=float).reshape(len(self.rules), len(p))
        name = _value_text(cv, c)
        without = None
        if self.combine in ("softmax", "sigmoids") and len(p) > 1:
            unit = f"log-odds of {name} over {_value_text(cv, second)}"
            if self.combine == "softmax":
                move = contrib[:, c] - contrib[:, second]
                with np.errstate(invalid="ignore"):
                    without = float(self.base[c] - self.base[second])
            else:
                move, without = self._sigmoid_moves(contrib, c, second)
        elif self.combine == "sums":
            others = contrib.sum(axis=1) - contrib[:, c]
            move = contrib[:, c] * (1 - p[c]) - p[c] * others
            unit = f"probability of {name}"
        elif self.combine in ("wvote", "vote", "winner"):
            heads = np.array([int(model.rule_list[k].head) for k in self.rules], dtype=int)
            values = contrib[np.arange(len(heads)), heads] if len(heads) else np.zeros(0)
            move = np.where(heads == c, values, -values)
            unit = {"vote": "votes", "wvote": "confidence",
                    "winner": "confidence"}[self.combine]
        else:
            move = contrib[:, c] if len(contrib) else np.zeros(0)
            unit = f"probability of {name}"
        move = np.asarray(move, dtype=float)
        pos = np.flatnonzero(move > 0)
        neg = np.flatnonzero(move < 0)  # a rule that does not move c is no reason
        supporting = [(int(self.rules[j]), float(move[j]))
                      for j in pos[np.argsort(-move[pos], kind="stable")]]
        opposing = [(int(self.rules[j]), float(move[j]))
                    for j in neg[np.argsort(move[neg], kind="stable")]]
        return Reasons(c, float(p[c]), unit, supporting, opposing,
                       None if supporting else self._decided_by(model, c, p, without),
                       without, self.base_label)

    def _sigmoid_moves(self, contrib, c, second):
        """Each rule's move and the part without rules on the log-odds of
        ``c`` over ``second`` when ``p_j`` is proportional to ``sigmoid(a_j)``,
        ``a_j = base_j + sum of the rules' numbers on j``: ``log(p_c / p_s) =
        log sigmoid(a_c) - log sigmoid(a_s)``, so the part without rules
        gives ``log sigmoid(base_c) - log sigmoid(base_s)`` and a rule's
        number ``x`` on class ``j`` moves it by ``x * g_j``, with ``g_j`` the
        mean slope of ``log sigmoid`` from ``base_j`` to ``a_j`` (in (0, 1):
        a move keeps its number's sign). The moves and the part without
        rules add up to the log-odds exactly (the numbers themselves do not:
        a sigmoid is not a line; on ROCCER's hulls they overstated it)."""
        from scipy.special import expit, log_expit
        base = np.asarray(self.base, dtype=float)
        slopes, ends = [], []
        for j in (c, second):
            b, n = base[j], float(contrib[:, j].sum())
            if not np.isfinite(b):  # a class absent (-inf) or certain (+inf)
                slopes.append(1.0 if b < 0 else 0.0)
            elif abs(n) > 1e-9:
                slopes.append(float((log_expit(b + n) - log_expit(b)) / n))
            else:
                slopes.append(float(1 - expit(b)))
            ends.append(float(log_expit(b)))
        move = contrib[:, c] * slopes[0] - contrib[:, second] * slopes[1]
        with np.errstate(invalid="ignore"):
            without = ends[0] - ends[1]
        return move, without

    def _decided_by(self, model, c, p, without) -> str:
        """What decided a prediction that no firing rule supports, in words."""
        cv = model.domain.class_var
        name = _value_text(cv, c)
        # "gives survived = yes a probability of 0.817": a value named "0"
        # or "1" must not read as a number beside the probability
        gives = f"gives {cv.name} = {name} a probability of {p[c]:.3f}"
        if self.combine in ("softmax", "sigmoids"):
            if without is not None and np.isfinite(without):
                second = np.argsort(-p, kind="stable")
                second = int(second[1] if second[0] == c else second[0])
                return (f"decided by {self.base_label}: {without:+.3f} log-odds of {name} "
                        f"over {_value_text(cv, second)}")
            return f"decided by {self.base_label}"
        if not len(self.rules):
            if self.combine == "sums" and not np.allclose(self.base, self.prior):
                return ("no rule fires: the rule sets' near misses (rows a rule of a set "
                        f"misses by one condition or more) give {cv.name} = {name} a "
                        f"probability of {p[c]:.3f}")
            return f"no rule fires: the training class distribution {gives}"
        if self.combine in ("winner", "wvote", "vote") and self.winner >= 0 \
                and self.winner != c:
            return (f"the rules' class {_value_text(cv, self.winner)} gets only "
                    f"{p[self.winner]:.3f}; the rest goes to the other classes by "
                    f"{'their votes and ' if self.combine != 'winner' else ''}prior, "
                    f"most to {name}")
        if self.combine == "sums":
            return f"decided by {self.base_label}, which {gives}"
        return f"the rules' masses on the other classes are smaller, which {gives}"

    def describe(self, model, top: int = 5, rule_text=None) -> list[str]:
        """Lines for a reader (:meth:`reasons`): the predicted class and its
        probability; the ``top`` rules that support it, each with its move
        toward it, then the rules that oppose it (marked ``against``), and
        what the part without rules adds, or, when no rule supports the
        prediction, what decided it. ``rule_text(k)``: the text of rule
        ``k`` of ``rule_list`` (default: :func:`rules.rule_text` with the
        class the rule favours; a caller describing many rows passes a
        cache)."""
        from .rules import rule_text as _rule_text
        cv = model.domain.class_var
        why = self.reasons(model)
        if rule_text is None:
            favours, against = model.rule_directions()
            counted = model.rule_counts()

            def rule_text(k):
                return _rule_text(model.rule_list[k], model.domain, int(favours[k]),
                                  bool(against[k]), dist=counted[k])
        lines = [f"{cv.name} = {_value_text(cv, why.predicted)} "
                 f"(probability {why.probability:.3f})"]
        listed = why.supporting[:top]
        listed += why.opposing[:max(0, top - len(listed))]
        for k, move in listed:
            side = "for" if move > 0 else "against"
            lines.append(f"  {side}: {move:+.3f} {why.unit}: rule {k + 1}, {rule_text(k)}")
        more = len(why.supporting) + len(why.opposing) - len(listed)
        if more > 0:
            lines.append(f"  ... and {more} more rule{'s' if more > 1 else ''}")
        if why.decided_by is not None:
            lines.append(f"  no firing rule supports it; {why.decided_by}")
        elif why.without is not None and np.isfinite(why.without):
            lines.append(f"  {why.base_label}: {why.without:+.3f} {why.unit}")
        return lines

    def effects(self, model):
        """``(c, p, effect, unit)``: the predicted class ``c``, the
        probabilities ``p``, per rule of :attr:`rules` its move toward
        ``c`` (:meth:`reasons`) in ``unit``."""
        why = self.reasons(model)
        moves = dict(why.supporting + why.opposing)
        effect = np.array([moves.get(int(k), 0.0) for k in self.rules], dtype=float)
        return why.predicted, self.probabilities(), effect, why.unit

    def probabilities(self) -> np.ndarray:
        """The class probabilities these numbers make."""
        from scipy.special import expit, softmax
        total = self.base + self.contributions.sum(axis=0)
        if self.combine == "softmax":  # a class absent from training: -inf, 0
            return softmax(total)
        if self.combine == "sigmoids":
            out = expit(total)
            return out / out.sum() if out.sum() > 0 else self.prior.copy()
        if self.combine == "sums":
            return total / total.sum() if total.sum() > 0 else self.prior.copy()
        if self.winner < 0:
            return self.prior.copy()
        if self.combine in ("wvote", "vote"):
            votes = self.contributions.sum(axis=0)
            w = self.winner
            score = (votes[w] / self.counts[w] if self.combine == "wvote"
                     else votes[w] / votes.sum())
            return spread(np.array([w]), np.array([score]), self.prior,
                          (votes + self.prior)[None, :])[0]
        score = self.contributions[:, self.winner].mean()
        return spread(np.array([self.winner]), np.array([score]), self.prior)[0]


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

    def set_apart(self) -> np.ndarray:
        """Per rule of ``rule_list``: does the Rule Viewer show it apart
        from the rules (in the summary) rather than in the table? (SLIPPER:
        its default rules.)"""
        return np.zeros(len(self.rule_list), dtype=bool)

    def explain(self, data) -> list[Explanation]:
        """Per row of ``data`` (a Table, an Instance, or an array in the
        training columns: :meth:`model_X`): the rules that fire, what each
        adds to the class probabilities, and how they combine
        (:class:`Explanation`; its ``probabilities()`` are the model's,
        ``model(data, model.Probs)``). Every model of the add-on
        implements it; a subclass of another add-on that does not says so."""
        raise NotImplementedError(f"{type(self).__name__} does not explain its "
                                  f"predictions")

    def used_rules(self) -> list[Rule]:
        """The rules the model's predictions read (LR with rules: those
        with a non-zero weight)."""
        return list(self.rule_list)

    def rule_directions(self) -> tuple[np.ndarray, np.ndarray]:
        """Per rule of ``rule_list``: the class its weight favours in this
        model, and whether it lowers that class rather than raising it
        (``against``; a negative weight on one class of many). Every view
        prints a rule's head as this class (``THEN c``, or ``THEN not c``
        when against), so a head never disagrees with the rule's sign. By
        default a rule favours its own head."""
        heads = np.array([int(r.head) for r in self.rule_list], dtype=int)
        return heads, np.zeros(len(heads), dtype=bool)

    def warnings(self) -> list[str]:
        """What a reader of this model must know before trusting it (e.g.
        that no rule reaches the predictions); the widgets show each as a
        warning, the viewer and the printout list them."""
        return []

    def rule_number(self) -> "ViewerColumn | None":
        """The model's principal number per rule, with its name (the first
        of :meth:`viewer_columns`): what printouts show beside each rule."""
        columns = self.viewer_columns()
        return columns[0] if columns else None

    def rule_number_texts(self) -> list[str]:
        """Per rule, its principal number with its name as printouts write
        it after the rule (:meth:`rule_number`: "confidence 0.984"); a model
        adds what a reader needs beside it."""
        from .rules import number_text
        column = self.rule_number()
        if column is None:
            return [""] * len(self.rule_list)
        return [number_text(column.name, v, column.decimals) for v in column.values]

    @property
    def size(self) -> tuple[int, int]:
        """``(rules, conditions)`` of the rules the model's predictions
        read: what a user reads."""
        rules = self.used_rules()
        return len(rules), sum(len(r.conditions) for r in rules)

    @property
    def attribute_terms(self) -> int:
        """How many weights on attributes the model has besides its rules
        (0 for a model of rules alone; LR with rules: its non-zero
        attribute weights): read beside :attr:`size`."""
        return 0

    def size_text(self) -> str:
        """``size`` in words, with the attribute weights where there are
        any: "12 rules and 20 attribute weights, 31 conditions"."""
        rules, conditions = self.size
        terms = self.attribute_terms
        return (counted(rules, "rules")
                + (f" and {counted(terms, 'attribute weights')}" if terms else "")
                + f", {counted(conditions, 'conditions')}")

    @property
    def class_preference(self) -> np.ndarray:
        """Which class wins a tie (:func:`class_preference`)."""
        return class_preference(self.class_distribution, self.domain.class_var.values)

    @property
    def prior(self) -> np.ndarray:
        """Training class prevalence (uniform if there was no weight)."""
        total = self.class_distribution.sum()
        if total <= 0:
            return np.full(self.n_classes, 1 / self.n_classes)
        return self.class_distribution / total

    def __call__(self, data, ret=_ModelBase.Value):
        """Orange's prediction call. An array is read in the columns of the
        training data (``original_domain``), which the learner's
        preprocessing may have changed (ROCCER's and SLS's discretisation),
        so ``model(data.X)`` gives what ``model(data)`` gives, checks
        included (:meth:`model_X` reads the same columns for :meth:`explain`
        and :meth:`covering`); :meth:`predict` takes the model's own
        columns. The predicted class is the most probable one, ties to the
        class more prevalent in training (:meth:`predict_storage`)."""
        if isinstance(data, np.ndarray) or sp.issparse(data):
            out = super().__call__(self._training_table(data), ret)
            if data.ndim == 1:
                return tuple(o[0] for o in out) if isinstance(out, tuple) else out[0]
            return out
        return super().__call__(data, ret)

    def _training_table(self, X) -> Table:
        """An array or sparse matrix (one row if one-dimensional) as a table
        in the columns of the training data (``original_domain``), after
        checking its width."""
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
        else:
            X = dense_X(X)
            X = X.reshape(1, -1) if X.ndim == 1 else X
        domain = self.original_domain
        if X.ndim != 2 or X.shape[1] != len(domain.attributes):
            raise ValueError(f"X has {X.shape[1] if X.ndim == 2 else X.size} columns; "
                             f"the model was trained on {len(domain.attributes)}")
        return Table.from_numpy(Domain(domain.attributes), X)

    def model_X(self, data):
        """The rows a model reads, in the model's own columns: the one
        notion of "the columns a model reads" that prediction (``model(x)``),
        :meth:`explain`, :meth:`covering` and the Rule Viewer share. ``data``
        is a Table in any compatible domain, an Orange ``Instance`` (its
        class value is not a column), or a numpy array (one row if
        one-dimensional) or sparse matrix in the columns of the training
        data (``original_domain``, before the learner's preprocessing, as
        ``model(X)`` reads it). Returns a float array (a sparse matrix stays
        sparse, CSR) in the columns of :attr:`domain`."""
        if isinstance(data, Instance):
            data = Table.from_list(data.domain, [data])
        elif isinstance(data, np.ndarray) or sp.issparse(data):
            data = self._training_table(data)
        elif not isinstance(data, Table):
            raise TypeError(f"expected a Table, an Instance or an array, not "
                            f"{type(data).__name__}")
        return self._model_X(data)

    def predict_storage(self, data):
        """``(values, probabilities)`` of the rows of ``data`` (in the
        model's domain): :meth:`predict`'s probabilities and, per row, the
        most probable class, a tie going to the class more prevalent in
        training, then to the value name that sorts first
        (:attr:`class_preference`; Orange's own argmax would give a tie to
        the first class listed, so the order of the class values would
        change the predictions: e.g. SLIPPER's 0.5 on a row no rule
        covers)."""
        X = data.X if isinstance(data, Table) else np.atleast_2d(data.x)
        probs = self.predict(X)
        return argmax_with_ties(probs, self.class_preference), probs

    def data_to_model_domain(self, data: Table, progress_callback=dummy_callback) -> Table:
        """Orange's transformation, after discrete values are mapped to the
        training variables' by name (:func:`map_values_by_name`); codes that
        are not values of their variable are an error (:func:`check_table`)."""
        check_table(data, fitting=False)
        data = map_values_by_name(data, self.original_domain)
        if data.domain.attributes == self.domain.attributes and data.domain != self.domain:
            # the model reads only X: the columns as they are (Orange's
            # transformation would build a dense copy of a sparse X)
            return Table.from_numpy(Domain(self.domain.attributes), data.X)
        return super().data_to_model_domain(data, progress_callback)

    def _model_X(self, data):
        """For :meth:`predict` and the models' own helpers: the rows of
        ``data`` (a Table in any compatible domain, or an array already in
        the model's own columns, as Orange hands :meth:`predict`) as a float
        array in the model's columns; a sparse ``X`` stays sparse (CSR), and
        the coverage kernels densify only the columns the rules test. An
        array from a user goes through :meth:`model_X`."""
        if isinstance(data, Table):
            data = self.data_to_model_domain(data)
            data = data.X
        if sp.issparse(data):
            X = sp.csr_matrix(data, dtype=np.float64)
        else:
            X = dense_X(data)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        if X.shape[1] != len(self.domain.attributes):
            raise ValueError(f"X has {X.shape[1]} columns; the model expects "
                             f"{len(self.domain.attributes)}")
        return X

    def covering(self, data) -> np.ndarray:
        """Boolean ``(n, n_rules)``: which rules fire on each instance of
        ``data`` (a Table, an Instance, or an array in the training
        columns: :meth:`model_X`)."""
        return covering(self.rule_list, self.model_X(data))

    def counted_cover(self, data) -> np.ndarray:
        """Boolean ``(n, n_rules)``: the rows each rule is counted on in every
        view (the Rule Viewer's Distribution and Covered columns and the rows
        selecting the rule outputs, the Rules output): the rows it covers
        (:meth:`covering`); a model that reads its rules as decision lists
        counts the rows each rule decides (ROCCER)."""
        return self.covering(data)

    def rule_counts(self) -> np.ndarray:
        """``(n_rules, n_classes)``: the weighted training rows each rule is
        counted on, per class (the ``[a/b]`` after a rule in printouts and
        explanations): by default its ``class_distribution``, the rows it
        covers (:meth:`counted_cover` on the training data)."""
        return np.array([np.asarray(r.class_distribution, dtype=float)
                         for r in self.rule_list]).reshape(-1, self.n_classes)

    def set_rule_distributions(self, data: Table, enc: EncodedData):
        """Set each rule's ``class_distribution`` to the weighted class counts
        of the training examples it covers (``data`` in the model's domain,
        ``enc`` its encoding), for learners whose search does not keep them."""
        if not self.rule_list:
            return
        dists = rule_class_weights(self.rule_list, data.X, enc.y, enc.w, self.n_classes)
        for rule, dist in zip(self.rule_list, dists):
            rule.class_distribution = dist

    # --- export (orangecontrib.rules.export) -----------------------------
    def to_sql(self, table="data", key=None, prediction="prediction") -> str:
        """The model as one SQL ``SELECT`` over ``table`` (a column per
        class value, its probability, and ``prediction``;
        :func:`orangecontrib.rules.export.to_sql`)."""
        return EXPORTERS["sql"](self, table, key, prediction)

    def to_json(self, indent=None) -> str:
        """The model as JSON text (:func:`orangecontrib.rules.export.to_json`;
        :func:`orangecontrib.rules.load_json` reads it)."""
        return EXPORTERS["json"](self, indent)

    # --- what the Rule Viewer shows (each model says it) ----------------
    #: the plot the Rule Viewer draws: ``"hull"``, ``"abstention"``, ``"evc"``
    plot_kind = None

    def quality_column(self) -> ViewerColumn:
        """The rules' ``quality`` as this model names it (a model whose rules
        another model reads, as LR with rules reads its rule learner's,
        lends it the name)."""
        return ViewerColumn("Quality", np.array([float(r.quality) for r in self.rule_list]),
                            "The rule's quality as its learner reports it.")

    def viewer_columns(self) -> list[ViewerColumn]:
        """The model's own numbers per rule for the Rule Viewer's table."""
        return [self.quality_column()]

    def rule_notes(self) -> list[str]:
        """Per rule of ``rule_list``, what a reader should know of where it
        comes from ("" for none): the tooltip of its number in the Rule
        Viewer."""
        return [""] * len(self.rule_list)

    def summary_lines(self) -> list[str]:
        """A few lines about the model for the Rule Viewer's info box."""
        return [f"{type(self).__name__}: {self.size_text()}"]

    def printout_head(self) -> str:
        """The printout's first line: the model and its size."""
        return f"{type(self).__name__}: {self.size_text()}"

    def __str__(self):
        head = self.printout_head()
        return head + ("\n" + format_rules(self.rule_list, self.domain, model=self)
                       if self.rule_list else "")

    def __repr__(self):
        return f"<{type(self).__name__} with {len(self.rule_list)} rules>"


class PriorRuleModel(RuleModel):
    """No rules: predicts the training class distribution (the default rule)."""

    def predict(self, X):
        X = self._model_X(X)
        return np.tile(self.prior, (X.shape[0], 1))

    def explain(self, data) -> list[Explanation]:
        """No rule: every row gets the prior."""
        C = self.n_classes
        return [Explanation(np.zeros(0, int), np.zeros((0, C)), self.prior.copy(), "sums",
                            self.prior.copy()) for _ in range(self.model_X(data).shape[0])]


_frozen_lock = threading.Lock()
_frozen_fits = 0
_froze = False  # whether the fits froze the objects (not the program before them)


@contextmanager
def heap_frozen():
    """While any fit runs, the objects that existed before the first of
    them are left out of the cyclic garbage collector's passes
    (:func:`gc.freeze`; :func:`gc.unfreeze` when the last fit ends, in
    any thread, also on an error). A fit makes tens of thousands of
    Python objects (rule sets, conditions, rules); each time they pass a
    quarter of the older objects the collector walks every object of the
    process, which in Orange (its widgets, scikit-learn, Qt) is hundreds
    of thousands (doc/architecture.md). The fit's own garbage is
    collected as usual. A program that froze
    objects itself keeps them frozen: then the fits leave the collector
    alone."""
    global _frozen_fits, _froze
    with _frozen_lock:
        if _frozen_fits == 0:
            _froze = gc.get_freeze_count() == 0
            if _froze:
                gc.freeze()
        _frozen_fits += 1
    try:
        yield
    finally:
        with _frozen_lock:
            _frozen_fits -= 1
            if _frozen_fits == 0 and _froze:
                gc.unfreeze()


class RuleLearner(Learner):
    """Base learner: discrete class, rows with unknown class removed, weights.

    Subclasses implement :meth:`fit_rules` on the encoded data and call
    :meth:`progress` to report progress (a callback the widget passes through
    ``__call__``). Subclasses declare their parameters in a
    :class:`~orangecontrib.rules.params.ParameterTable` (``parameters``)
    and keep every constructor argument, checked by it, as an attribute of
    the same name; :attr:`params` reads them back from the ``__init__``
    signature (as scikit-learn's ``get_params`` does), so
    ``type(l)(**l.params)`` rebuilds the learner.
    """

    preprocessors = [HasClass()]
    supports_weights = True
    __returns__ = RuleModel
    #: whether ``fit_rules`` reads ``enc.order`` (each numeric column's
    #: argsort: n x p int32 and a sort per column, so made only for the
    #: learners that read it)
    needs_order = False
    #: the bytes a fit holds per cell (rows x columns) of a sparse table: the
    #: searches' bin codes (6.8-8.6 measured on 8,000 x 10,000,
    #: benchmarks/results/sparse.md); 0 when the memory follows the
    #: non-zeros (SLIPPER). A fit that would not fit in the memory available
    #: stops before it starts (:func:`tables.check_sparse_memory`)
    bytes_per_cell = 10
    #: the learner's parameters (:class:`~orangecontrib.rules.params.ParameterTable`)
    parameters = None

    def __init__(self, preprocessors=None):
        super().__init__(preprocessors=preprocessors)

    def check_parameters(self):
        """Check the parameters again, as a fit does before it starts: an
        attribute set after construction is refused, by name, if the
        constructor would have refused it."""
        if self.parameters is not None:
            self.parameters.check(self)

    @property
    def params(self) -> dict:
        """The constructor arguments (without ``preprocessors``), read from
        the attributes named as the ``__init__`` parameters."""
        import inspect
        out = {}
        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name in ("self", "preprocessors") or p.kind in (p.VAR_POSITIONAL,
                                                                p.VAR_KEYWORD):
                continue
            out[name] = getattr(self, name)
        return out

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
        self.check_parameters()
        if isinstance(data, Table):
            check_table(data)
        token = _PROGRESS.set({**_PROGRESS.get(), id(self): _Reporter(wrap_callback(
            progress_callback or dummy_callback, start=0.1, end=0.99))})
        try:
            return super().__call__(data, progress_callback)
        finally:
            _PROGRESS.reset(token)

    def _reporter(self, tasks: bool = False):
        """This fit's :class:`_Reporter` (``None`` outside a fit); with
        ``tasks``, ``None`` as well when the fit's parallel tasks may run in
        other processes, where they cannot reach the caller's callback."""
        reporter = _PROGRESS.get().get(id(self))
        if reporter is None or (tasks and not in_process_backend()):
            return None
        return reporter

    def progress(self, fraction: float, status: str = ""):
        """Report progress in [0, 1] of the fit; may raise :class:`Interrupted`.

        The callback is the one given to this fit's ``__call__``: it is kept
        in a context variable keyed by the learner, not on the learner, so
        one learner fitted from two threads at once reports each fit's
        progress to its own caller (a thread the fit starts reports
        nothing; the fit reports as its tasks finish)."""
        reporter = self._reporter()
        if reporter is not None:
            reporter.report(float(min(max(fraction, 0.0), 1.0)), status)

    def task_progress(self, start: float, end: float, n_tasks: int, status: str):
        """For a fit's parallel tasks: a function ``report(task, fraction,
        found)`` that each may call, from any thread of this process, with
        the share of its work done and how many things (rules, permutations)
        it has made so far. The fit's progress moves to ``start + (end -
        start)`` times the tasks' mean share, and its status is ``status``
        with the tasks' counts summed in place of ``{}`` ("learning rules:
        {} so far"); like :meth:`stop_check` it raises :class:`Interrupted`
        once the caller cancelled the fit. ``None`` outside a fit, or when
        the tasks may run in other processes."""
        import threading
        reporter = self._reporter(tasks=True)
        if reporter is None:
            return None
        shares, counts = np.zeros(max(n_tasks, 1)), np.zeros(max(n_tasks, 1), dtype=int)
        lock = threading.Lock()

        def report(task, fraction, found):
            with lock:
                shares[task] = max(shares[task], min(max(float(fraction), 0.0), 1.0))
                counts[task] = found
                value = start + (end - start) * float(shares.mean())
                text = status.format(int(counts.sum()))
            reporter.report(value, text)
        return report

    def sub_progress(self, start: float, end: float, status: str = "", inner=True):
        """A progress callback for a learner this fit calls (LR with rules'
        and Rule Scoring's rule learner): its ``[0, 1]`` mapped to ``[start,
        end]`` of this fit, with its own status (or ``status`` when it gives
        none, or always with ``inner=False``). The callback holds this fit's
        caller's callback itself, so it reaches the caller, and may cancel
        the fit, also from the inner learner's tasks in other threads (where
        this fit's context is not set). ``None`` outside a fit."""
        reporter = self._reporter()
        if reporter is None:
            return None

        def callback(fraction, inner_status=""):
            fraction = min(max(float(fraction), 0.0), 1.0)
            reporter.report(start + (end - start) * fraction,
                            (inner_status if inner else "") or status)
        return callback

    def stop_check(self):
        """A function the fit's parallel tasks call now and then (any
        arguments): it raises :class:`Interrupted` once the caller has
        cancelled the fit, so a long task stops without waiting for its end.
        ``None`` outside a fit, or when the tasks may run in other
        processes (they cannot reach the caller's callback)."""
        reporter = self._reporter(tasks=True)
        return None if reporter is None else reporter.check

    # --- the rows a fit uses ---------------------------------------------------
    def preprocess(self, data, progress_callback=None):
        """The rows a fit learns from, then the learner's preprocessors:
        rows with an unknown class and rows of weight 0 are dropped first
        (:func:`usable_rows`), whatever ``preprocessors`` the user gives
        (Orange replaces the class's default list by the user's), so a
        weight of 0 is the same as an absent row for every learner,
        discretisers included."""
        return super().preprocess(usable_rows(data), progress_callback)

    # --- fitting -------------------------------------------------------------
    def fit_storage(self, data: Table):
        with heap_frozen(), one_blas_thread():
            return self._fit_storage(data)

    def _fit_storage(self, data: Table):
        data = usable_rows(data)  # a preprocessor may have made some unusable
        if len(data) == 0:
            raise ValueError("Cannot learn rules from empty data "
                             "(no instances with a known class).")
        check_sparse_memory(str(self.name), data, self.bytes_per_cell)
        enc = lent_encoding(self, data, self.needs_order)
        if enc is None:
            enc = encode_table(data, with_order=self.needs_order)
        dist = enc.class_distribution()
        if np.count_nonzero(dist > 0) < 2 or not len(data.domain.attributes):
            return PriorRuleModel(data.domain, [], dist)
        return self.fit_rules(data, enc)

    def fit_rules(self, data: Table, enc: EncodedData) -> RuleModel:
        raise NotImplementedError

    #: the spawn key of :meth:`search_sample`'s seed, one per learner
    search_key = 0

    def search_sample(self, y, values):
        """The rows a learner with a ``search_rows`` setting searches on:
        ``None`` (all) up to ``search_rows`` rows, else the indices of a
        stratified sample of that many, the classes drawing in name order (so
        the order of the class values changes nothing), seeded by
        ``random_state`` and the learner's :attr:`search_key` (apart from its
        other random numbers)."""
        size = getattr(self, "search_rows", None)
        if size is None or len(y) <= size:
            return None
        seed = np.random.SeedSequence(self.random_state, spawn_key=(self.search_key, 0))
        return stratified_rows(y, size, np.random.default_rng(seed),
                               in_name_order(np.unique(y).tolist(), values))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"
