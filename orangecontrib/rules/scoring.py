"""Scoring instances with rule sets for ROC (Fawcett 2001).

Resolution strategies (Section 3.2 of the paper; ``doc/scoring.md``),
given the rules that fire on an instance:

* ``first`` -- the first firing rule (rules sorted by decreasing confidence
  unless the model's order is meaningful, as in a decision list);
* ``rand``  -- a random firing rule (seeded, so predictions are repeatable);
* ``vote``  -- one vote per firing rule; score = share of the winner's votes;
* ``wvote`` -- votes weighted by confidence; score = mean confidence of the
  winner's rules;
* ``lfpr``  -- the firing rule with the lowest false positive rate.

Confidences are Laplace corrected, ``(TP + 1) / (TP + FP + C)``. When no rule
fires, the majority class wins with its prevalence as the score. The winning
class gets the score; the rest is spread over the other classes in
proportion to their training prevalence, so every strategy returns a full
``(n, n_classes)`` probability array.
"""
from __future__ import annotations

import copy

import numpy as np

from Orange.classification import CN2Learner, CN2UnorderedLearner, Learner
from Orange.classification.rules import TopDownSearchStrategy
from Orange.data import Domain
from Orange.data.filter import HasClass
from Orange.preprocess import RemoveNaNColumns
from Orange.preprocess.impute import Average
from Orange.preprocess.preprocess import Preprocess

from .base import Explanation, RuleLearner, RuleModel, argmax_with_ties
from .params import check_bool, check_instance, check_int, check_number, check_random_state
from .rules import (Rule, budget_prefixes, covering, first_cover_shares, row_blocks,
                    rule_class_weights)

STRATEGIES = ("first", "rand", "vote", "wvote", "lfpr")


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


def check_strategy(strategy: str) -> str:
    s = str(strategy).lower()
    if s not in STRATEGIES:
        raise ValueError(f"unknown scoring strategy {strategy!r}; "
                         f"choose one of {', '.join(STRATEGIES)}")
    return s


def spread(winner: np.ndarray, score: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Probability rows: ``score`` for ``winner``, ``1 - score`` shared by the
    other classes in proportion to ``prior`` (uniformly if they have none)."""
    n, C = len(winner), len(prior)
    score = np.clip(score, 0.0, 1.0)  # an average of confidences may round past 1
    if C == 1:
        return np.ones((n, 1))
    others = np.tile(prior, (n, 1))
    others[np.arange(n), winner] = 0
    mass = others.sum(axis=1, keepdims=True)
    uniform = np.full((n, C), 1 / (C - 1))
    uniform[np.arange(n), winner] = 0
    others = np.where(mass > 0, others / np.where(mass > 0, mass, 1), uniform)
    probs = others * (1 - score)[:, None]
    probs[np.arange(n), winner] = score
    return probs


def _first_in_order(cover: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Index (into the rules) of the first firing rule in ``order``, per row."""
    return order[np.argmax(cover[:, order], axis=1)]


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a bijection of ``uint64`` that scatters
    nearby inputs over all 64 bits (Steele, Lea & Flood 2014)."""
    x = np.asarray(x, dtype=np.uint64)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def random_firing_rule(cover: np.ndarray, random_state=0) -> np.ndarray:
    """RAND's choice: per row, one of the rules that fire on it (``cover``,
    boolean ``(n, R)``, every row with one), at random but repeatably: the
    choice is a hash of ``random_state`` and the set of firing rules, so a
    row gets the same rule whatever other rows are predicted with it and
    in whatever order, and rows on which the same rules fire get the same
    one."""
    R = cover.shape[1]
    seed = np.uint64(np.random.SeedSequence(random_state).generate_state(1, np.uint64)[0])
    rule_key = _mix64(np.arange(1, R + 1, dtype=np.uint64) ^ seed)
    pattern = np.bitwise_xor.reduce(np.where(cover, rule_key[None, :], np.uint64(0)), axis=1)
    keys = _mix64(pattern[:, None] ^ _mix64(rule_key)[None, :])
    return np.argmax(np.where(cover, keys, np.uint64(0)), axis=1)


def score_rules(cover, heads, confidence, fpr, prior, strategy="wvote",
                ordered=False, random_state=0, tie_order=None) -> np.ndarray:
    """Resolve overlapping rules into class probabilities.

    ``cover``: bool ``(n, R)``; ``heads``: class per rule; ``confidence``:
    Laplace confidence per rule; ``fpr``: false positive rate per rule;
    ``prior``: training class prevalence; ``tie_order``: which class wins
    a tie of votes (higher wins; default ``prior``, the model passes its
    :attr:`~orangecontrib.rules.base.RuleModel.class_preference`). Returns
    ``(n, len(prior))``.
    """
    strategy = check_strategy(strategy)
    cover = np.asarray(cover, dtype=bool)
    heads = np.asarray(heads, dtype=int)
    confidence = np.asarray(confidence, dtype=float)
    fpr = np.asarray(fpr, dtype=float)
    prior = np.asarray(prior, dtype=float)
    tie_order = prior if tie_order is None else np.asarray(tie_order, dtype=float)
    n, R = cover.shape
    C = len(prior)

    probs = np.tile(prior, (n, 1))  # nothing fires: the default rule
    fires = cover.any(axis=1)
    if R == 0 or not fires.any():
        return probs
    cov = cover[fires]
    rows = np.arange(len(cov))

    if strategy in ("first", "lfpr", "rand"):
        # ties of confidence (or FPR) go to the preferred class, then to
        # the rule listed first
        if strategy == "first":
            order = (np.arange(R) if ordered
                     else np.lexsort((np.arange(R), -tie_order[heads], -confidence)))
            rule = _first_in_order(cov, order)
        elif strategy == "lfpr":  # lowest FPR; ties: higher confidence, class, order
            order = np.lexsort((np.arange(R), -tie_order[heads], -confidence, fpr))
            rule = _first_in_order(cov, order)
        else:
            rule = random_firing_rule(cov, random_state)
        winner, score = heads[rule], confidence[rule]
    else:
        onehot = np.zeros((R, C))
        onehot[np.arange(R), heads] = 1
        votes = cov.astype(float) @ onehot
        # only a class with a firing rule can win (with confidences of
        # about 0 its weighted vote ties with the classes that have none)
        voted = votes > 0
        if strategy == "vote":
            winner = argmax_with_ties(votes, tie_order, voted)
            score = votes[rows, winner] / votes.sum(axis=1)
        else:
            summed = cov.astype(float) @ (onehot * confidence[:, None])
            winner = argmax_with_ties(summed, tie_order, voted)
            score = summed[rows, winner] / votes[rows, winner]
    probs[fires] = spread(winner, score, prior)
    return probs


class RuleSetModel(RuleModel):
    """Applies a Fawcett resolution strategy to any list of rules.

    ``ordered`` says whether the rule order is meaningful (a decision list):
    then ``first`` takes the first firing rule in that order, otherwise the
    one with the highest confidence.
    """

    def __init__(self, domain, rule_list, class_distribution,
                 strategy="wvote", ordered=False, random_state=0):
        super().__init__(domain, rule_list, class_distribution)
        self.strategy = check_strategy(strategy)
        self.ordered = bool(ordered)
        self.random_state = random_state

    def rule_confidences(self) -> np.ndarray:
        """The confidence the strategies use: Laplace (Fawcett 2001)."""
        return np.array([r.laplace_confidence() for r in self.rule_list])

    def rule_statistics(self):
        """Heads, confidences and false positive rates of the rules, made
        once per rule list (a loop over the rules: 0.05 s for 10,000, which
        every prediction and explanation would pay again)."""
        cached = self.__dict__.get("_statistics")
        if cached is not None and cached[0] is self.rule_list \
                and cached[1] == len(self.rule_list):
            return cached[2]
        heads = np.array([r.head for r in self.rule_list], dtype=int)
        conf = self.rule_confidences()
        fpr = np.array([r.false_positive_rate(self.class_distribution)
                        for r in self.rule_list])
        self._statistics = (self.rule_list, len(self.rule_list), (heads, conf, fpr))
        return heads, conf, fpr

    def predict(self, X):
        X = self._model_X(X)
        stats = self.rule_statistics()
        out = np.empty((X.shape[0], self.n_classes))
        for rows in row_blocks(X.shape[0], len(self.rule_list)):  # bounded memory
            out[rows] = score_rules(covering(self.rule_list, X[rows]), *stats, self.prior,
                                    self.strategy, self.ordered, self.random_state,
                                    self.class_preference)
        return out

    def explain(self, data) -> list[Explanation]:
        """The strategy's rules per row (:class:`base.Explanation`,
        ``combine="winner"``): ``first``, ``lfpr``, ``rand``: the one rule
        chosen, its confidence; ``wvote``: the winner's firing rules, their
        confidences (the score is their mean); ``vote``: every firing rule,
        1 if its class won and 0 if not (the score is the winner's share)."""
        X = self._model_X(data)
        heads, conf, fpr = self.rule_statistics()
        probs = self.predict(X)
        cover = covering(self.rule_list, X)
        R, C = len(self.rule_list), self.n_classes
        tie = self.class_preference
        out = []
        for i in range(X.shape[0]):
            fire = np.flatnonzero(cover[i])
            if not len(fire):
                out.append(Explanation(np.zeros(0, int), np.zeros((0, C)), np.zeros(C),
                                       "winner", self.prior.copy()))
                continue
            if self.strategy in ("first", "lfpr", "rand"):
                if self.strategy == "rand":
                    rule = int(random_firing_rule(cover[i:i + 1], self.random_state)[0])
                else:
                    keys = (-conf,) if self.strategy == "first" else (-conf, fpr)
                    order = (np.arange(R) if self.strategy == "first" and self.ordered
                             else np.lexsort((np.arange(R), -tie[heads]) + keys))
                    rule = int(_first_in_order(cover[i:i + 1], order)[0])
                rules, winner = np.array([rule]), int(heads[rule])
                values = conf[rules]
            else:
                winner = int(np.argmax(probs[i]))
                if self.strategy == "wvote":
                    rules = fire[heads[fire] == winner]
                    values = conf[rules]
                else:
                    rules = fire
                    values = (heads[fire] == winner).astype(float)
            contributions = np.zeros((len(rules), C))
            contributions[:, winner] = values
            out.append(Explanation(rules, contributions, np.zeros(C), "winner",
                                   self.prior.copy(), winner))
        return out

    def with_strategy(self, strategy) -> "RuleSetModel":
        """The same rules, resolved with another strategy."""
        other = copy.copy(self)
        other.strategy = check_strategy(strategy)
        return other


def rule_from_orange(orange_rule, domain, base_domain) -> Rule:
    """Convert a rule of Orange's CN2 family into this add-on's :class:`Rule`.

    Columns are mapped by variable name from the domain the CN2 model used
    (after its own preprocessing) to ``domain``. Distribution and quality are
    filled in by the caller.
    """
    from .rules import Condition
    index = {var.name: i for i, var in enumerate(domain.attributes)}
    conditions = []
    for sel in orange_rule.selectors:
        if sel.op not in ("==", "<=", ">="):
            raise ValueError(
                f"rule condition with operator {sel.op!r} cannot be converted; "
                "use a base learner without A != v conditions (cn2_unordered_equality)")
        name = base_domain.attributes[sel.column].name
        if name not in index:
            raise ValueError(f"rule refers to unknown attribute {name!r}")
        conditions.append(Condition(index[name], sel.op, float(sel.value)))
    return Rule(conditions, int(orange_rule.prediction),
                np.zeros(len(domain.class_var.values)), domain=domain)


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


class RuleScoringLearner(RuleLearner):
    """Unordered rules scored by a Fawcett strategy.

    ``base`` produces (possibly overlapping) rules. By default it is the
    add-on's compiled CN2-style beam search for unordered rules
    (:class:`~orangecontrib.rules.evc.EVCRuleLearner` with the m-estimate
    as quality, no extreme value correction) with the given
    ``beam_width``, ``min_covered_examples`` and ``max_rule_length``; any
    Orange rule learner may be passed instead, e.g. :func:`cn2_base` for
    Orange's own CN2 (slower: Python). The rules become :class:`Rule`
    objects whose class distributions are recomputed on the training data
    (weights honoured; an unknown value satisfies no condition), and the
    default rule is replaced by the strategy's default. A rule is kept only
    if its Laplace confidence exceeds both the training prevalence of its
    class (a rule no better than the default rule carries no information;
    Orange's unordered CN2 also returns rules that mostly cover other
    classes, which would otherwise vote for the wrong class) and
    ``min_confidence`` (Fawcett's RL experiments used 0.60).
    """

    name = "rule scoring"
    __returns__ = RuleSetModel

    def __init__(self, base=None, strategy="wvote", min_confidence=0.0,
                 ordered=None, random_state=0, beam_width=10,
                 min_covered_examples=1, max_rule_length=5,
                 min_new_coverage=None, max_rules=None, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.beam_width = check_int("beam_width", beam_width, 1)
        self.max_rule_length = check_int("max_rule_length", max_rule_length, 1)
        self.min_covered_examples = check_number("min_covered_examples",
                                                 min_covered_examples, 0)
        self.base = check_instance("base", base, Learner, "an Orange rule learner",
                                   none=True)
        self.strategy = check_strategy(strategy)
        self.min_confidence = check_number("min_confidence", min_confidence, 0, 1)
        self.ordered = None if ordered is None else check_bool("ordered", ordered)
        self.random_state = check_random_state(random_state)
        self.min_new_coverage = check_number("min_new_coverage", min_new_coverage, 0, 1,
                                             none=True)
        self.max_rules = check_int("max_rules", max_rules, 1, none=True)
        if base is None:  # the compiled beam search with the settings above
            from .evc import DEFAULT_MIN_NEW_COVERAGE, EVCRuleLearner  # (evc imports this)
            base = EVCRuleLearner(
                quality="m", beam_width=self.beam_width,
                max_rule_length=self.max_rule_length,
                min_covered_examples=self.min_covered_examples,
                min_new_coverage=(DEFAULT_MIN_NEW_COVERAGE if min_new_coverage is None
                                  else self.min_new_coverage),
                random_state=self.random_state)
        elif min_new_coverage is not None:
            raise ValueError("min_new_coverage sets the default base's covering; "
                             "give it to your base learner instead")
        self._base = base

    def fit_rules(self, data, enc):
        self.progress(0.0, "learning rules")
        base = self._base
        finder = getattr(base, "rule_finder", None)
        if finder is not None:  # Orange's CN2 family reports no progress itself:
            # a shallow copy of the learner with its finder wrapped (the
            # learner itself stays as it is, for fits in other threads)
            base = copy.copy(base)
            base.rule_finder = _ProgressFinder(finder, self.progress, enc)
        if isinstance(base, RuleLearner):  # the add-on's: reports progress
            base_model = base(data, lambda p, *_: self.progress(0.9 * p, "learning rules"))
        else:
            base_model = base(data)
        self.progress(0.9, "scoring rules")
        rules = [rule_from_orange(r, data.domain, base_model.domain)
                 for r in base_model.rule_list if r.selectors]
        unique = {}  # rules with identical conditions and head are kept once
        for r in rules:
            unique.setdefault((r.conditions, r.head), r)
        unique = list(unique.values())
        dists = rule_class_weights(unique, data.X, enc.y, enc.w, enc.n_classes)
        for rule, dist in zip(unique, dists):
            rule.class_distribution = dist
            rule.quality = rule.laplace_confidence()
        prior = enc.class_distribution() / enc.w.sum()
        unique = [r for r in unique
                  if r.quality > max(self.min_confidence, prior[r.head])]
        if self.max_rules is not None:  # each class's covering stopped at the budget
            shares = first_cover_shares(unique, data.X, enc.y, enc.w, enc.n_classes)
            by_class = [[k for k, r in enumerate(unique) if r.head == c]
                        for c in range(enc.n_classes)]
            taken = budget_prefixes([shares[ks] for ks in by_class], self.max_rules)
            keep = {k for ks, t in zip(by_class, taken) for k in ks[:t]}
            unique = [r for k, r in enumerate(unique) if k in keep]
        ordered = (self.ordered if self.ordered is not None
                   else isinstance(self._base, CN2Learner))
        return RuleSetModel(data.domain, unique, enc.class_distribution(),
                            self.strategy, ordered, self.random_state)


class _ProgressFinder:
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

