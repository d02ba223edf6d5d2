"""Rule Scoring (Fawcett 2001): unordered rules, from the add-on's compiled
beam search or any Orange rule learner, scored by a resolution strategy of
:mod:`orangecontrib.rules.ruleset` (``doc/scoring.md``)."""
from __future__ import annotations

import copy

import numpy as np
from Orange.classification import CN2Learner, Learner

from .base import RuleLearner
from .base_rules import BaseRules
from .cn2 import ProgressFinder
from .evc import DEFAULT_MIN_NEW_COVERAGE, DEFAULT_SEARCH_ROWS, EVCRuleLearner
from .features import shared_encoding
from . import params
from .rules import (Rule, budget_coverage, budget_prefixes, first_cover_shares,
                    rule_class_weights)
from .ruleset import STRATEGIES, RuleSetModel


class RuleScoringLearner(RuleLearner):
    """Unordered rules scored by a Fawcett strategy.

    ``base`` produces (possibly overlapping) rules: by default the
    add-on's compiled CN2-style beam search for unordered rules
    (:class:`~orangecontrib.rules.evc.EVCRuleLearner` with the m-estimate
    as quality, no extreme value correction) with this learner's ``m``,
    ``beam_width``, ``min_covered_examples``, ``max_rule_length``,
    ``min_new_coverage``, ``search_rows`` and ``n_jobs``; any Orange rule
    learner may be passed instead, e.g.
    :func:`~orangecontrib.rules.cn2.cn2_base` for Orange's own CN2
    (slower: Python). The rules become :class:`Rule` objects in the columns
    of the data (a base that preprocesses, e.g. with ``Discretize()``, has
    its rules read through its preprocessing:
    :class:`~orangecontrib.rules.base_rules.BaseRules`) whose class
    distributions are recomputed on the training data (weights honoured;
    an unknown value satisfies no condition), and the default rule is
    replaced by the strategy's default. A rule is kept only if its Laplace
    confidence exceeds both the training prevalence of its class (a rule no
    better than the default rule carries no information; Orange's unordered
    CN2 also returns rules that mostly cover other classes, which would
    otherwise vote for the wrong class) and ``min_confidence``.

    Parameters
    ----------
    base : Orange rule learner or None, default None
        Where the rules come from (``None``: the compiled beam search).
    strategy : {"first", "rand", "vote", "wvote", "lfpr"}, default "wvote"
        The Fawcett resolution strategy.
    min_confidence : float in [0, 1], default 0.0
        Rules of lower Laplace confidence are dropped (Fawcett's RL
        experiments used 0.60).
    ordered : bool or None, default None
        Whether the rules' order is meaningful (FIRST then takes the first
        firing rule in it); ``None``: when ``base`` is Orange's ordered CN2.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of RAND's choices and of the default base.
    m : float >= 0, default 10.0
        The default base's m-estimate, ``(s + m p) / (n + m)`` with ``p``
        the class's prior: a larger ``m`` pulls a rule's quality towards the
        prior, so the search prefers rules that cover more. Chosen by
        measurement (``doc/scoring.md``; 2 before).
    beam_width : int in [1, 10000], default 10
        The default base's beam width.
    min_covered_examples : float >= 0, default 1
        The default base's least covered weight of a rule.
    max_rule_length : int in [1, 1000], default 5
        The default base's most conditions per rule.
    min_new_coverage : float in [0, 1] or None, default None
        The default base's covering stop (see :class:`EVCRuleLearner`;
        ``None``: its default). A base you give keeps its own.
    max_rules : int >= 1 or None, default None
        At most this many rules over all classes.
    search_rows : int >= 1 or None, default DEFAULT_SEARCH_ROWS
        On more rows (100,000) the default base searches a stratified sample
        of this many (see :class:`EVCRuleLearner`; ``None``: every row). A
        base you give keeps its own.
    n_jobs : int or None, default None
        The default base's classes in this many threads (``-1``: all
        cores; see :class:`EVCRuleLearner`); the model does not depend on
        it. A base you give keeps its own.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "rule scoring"
    __returns__ = RuleSetModel

    parameters = params.ParameterTable(
        params.instance("base", "where the rules come from", Learner,
                        "an Orange rule learner", none=True),
        params.choice("strategy", "the Fawcett resolution strategy", STRATEGIES),
        params.number("min_confidence", "rules of lower Laplace confidence are dropped",
                      0, 1, spin=(0.0, 0.99)),
        params.boolean("ordered", "whether the rules' order is meaningful", none=True),
        params.random_state("seed of RAND's choices and of the default base"),
        params.number("m", "the default base's m-estimate", 0, spin=(0.0, 1000.0)),
        params.integer("beam_width", "the default base's beam width", 1, 10_000,
                       spin=(1, 100)),
        params.number("min_covered_examples", "the default base's least covered weight",
                      0, spin=(1, 1000)),
        params.integer("max_rule_length", "the default base's most conditions per rule",
                       1, 1000, spin=(1, 20)),
        params.number("min_new_coverage", "the default base's covering stop", 0, 1,
                      none=True, spin=(0.0, 0.5)),
        params.max_rules("at most this many rules over all classes"),
        params.search_rows("rows of the default base's search sample"),
        params.n_jobs(),
    )

    def __init__(self, base=None, strategy="wvote", min_confidence=0.0,
                 ordered=None, random_state=0, m=10.0, beam_width=10,
                 min_covered_examples=1, max_rule_length=5,
                 min_new_coverage=None, max_rules=None, search_rows=DEFAULT_SEARCH_ROWS,
                 n_jobs=None, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())
        self._check_base()

    def check_parameters(self):
        super().check_parameters()
        self._check_base()

    def _check_base(self):
        if self.base is None:
            return
        if self.min_new_coverage is not None:
            raise ValueError("min_new_coverage sets the default base's covering; "
                             "give it to your base learner instead")
        if self.n_jobs is not None:
            raise ValueError("n_jobs sets the default base's threads; "
                             "give it to your base learner instead")

    def default_base(self) -> EVCRuleLearner:
        """The compiled beam search with this learner's settings (the base
        when ``base`` is ``None``), made from the attributes as they are."""
        return EVCRuleLearner(
            quality="m", m=self.m, beam_width=self.beam_width,
            max_rule_length=self.max_rule_length,
            min_covered_examples=self.min_covered_examples,
            min_new_coverage=(DEFAULT_MIN_NEW_COVERAGE if self.min_new_coverage is None
                              else self.min_new_coverage),
            search_rows=self.search_rows, n_jobs=self.n_jobs,
            random_state=self.random_state)

    def fit_rules(self, data, enc):
        self.progress(0.0, "learning rules")
        own = self.base is None  # the compiled beam search with these settings
        base = self.default_base() if own else self.base
        if own and self.max_rules is not None:
            # the covering under the budget: each rule covers at least the
            # class's share of it (rules.budget_coverage)
            base = copy.copy(base)
            base.min_new_coverage = budget_coverage(
                base.min_new_coverage, sum(1 for v in enc.class_distribution() if v > 0),
                self.max_rules)
        finder = getattr(base, "rule_finder", None)
        if finder is not None:  # Orange's CN2 family reports no progress itself:
            # a shallow copy of the learner with its finder wrapped (the
            # learner itself stays as it is, for fits in other threads)
            base = copy.copy(base)
            base.rule_finder = ProgressFinder(finder, self.progress, enc)
        if isinstance(base, RuleLearner):  # the add-on's: reports progress, and
            # encodes nothing again (this fit's encoding is lent to it)
            with shared_encoding(base, data, enc):
                base_model = base(data, self.sub_progress(0.0, 0.9, "learning rules"))
        else:
            base_model = base(data)
        self.progress(0.9, "scoring rules")
        # the base's rules in these data's columns, through the base's own
        # preprocessing (a discretiser, imputation: base_rules.BaseRules)
        reader = BaseRules(data.domain, base_model.domain)
        found = [r for r in base_model.rule_list if r.selectors]
        unique = {}  # rules with identical conditions and head are kept once
        for read, r in zip(reader.rules(found), found):
            # a rule of its own: its counts and quality are set below
            rule = Rule(read.conditions, read.head, np.zeros(enc.n_classes),
                        domain=reader.domain)
            unique.setdefault((rule.conditions, rule.head), (rule, r))
        # each kept rule and the base model's rule it came from
        unique, base_rules = (list(t) for t in zip(*unique.values())) if unique else ([], [])
        X = reader.X(data)  # the data in the rules' columns
        if getattr(base_model, "search_rows", None) is not None and own:
            # the default base searched a sample and counted its rules on
            # every row of these data already (EVCRuleLearner.count_on_every_row)
            dists = np.array([r.class_distribution for r in base_rules], dtype=float)
        else:
            dists = rule_class_weights(unique, X, enc.y, enc.w, enc.n_classes)
        for rule, dist in zip(unique, dists):
            rule.class_distribution = dist
            rule.quality = rule.laplace_confidence()
        prior = enc.class_distribution() / enc.w.sum()
        unique = [r for r in unique
                  if r.quality > max(self.min_confidence, prior[r.head])]
        if self.max_rules is not None:  # each class's covering stopped at the budget
            shares = first_cover_shares(unique, X, enc.y, enc.w, enc.n_classes)
            by_class = [[k for k, r in enumerate(unique) if r.head == c]
                        for c in range(enc.n_classes)]
            taken = budget_prefixes([shares[ks] for ks in by_class], self.max_rules)
            keep = {k for ks, t in zip(by_class, taken) for k in ks[:t]}
            unique = [r for k, r in enumerate(unique) if k in keep]
        ordered = (self.ordered if self.ordered is not None
                   else isinstance(self.base, CN2Learner))
        model = RuleSetModel(reader.domain, unique, enc.class_distribution(),
                             self.strategy, ordered, self.random_state)
        model.search_rows = getattr(base_model, "search_rows", None)
        return model

