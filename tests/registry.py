"""The add-on's learners, once, for every suite.

Each learner the package exports (every ``RuleLearner`` subclass named in
``orangecontrib.rules.__all__``) has one :class:`Entry` in ``REGISTRY``
with the settings each kind of test needs. Suites parametrise over
``KINDS`` and build learners with ``make(kind, variant, **overrides)``, so
a new learner joins every suite (contract, fuzz, budgets, explanations,
bad input, portable bit operations, Dask, ...) by one entry here;
``tests/contract/test_registry.py`` fails while an exported learner has
none.

Variants (the keyword arguments of an entry; ``make`` adds the caller's):

``fast``
    tiny random tables of the property suites (contract, fuzz): a fit in
    milliseconds.
``real``
    a real data set (heart_disease, iris, titanic, zoo) in about a second.
``budget``
    fits under ``max_rules`` (the budgets suite): enough rules to cut.
``defaults``
    the learner's defaults (the papers' settings), for tests of what a
    user gets.

An argument given as :func:`inner` is a learner built from another entry
at each call (LR with rules' EVC rule learner), so the outer learner
follows the inner one's settings.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

import orangecontrib.rules as R
from orangecontrib.rules.evc import GumbelParameters

VARIANTS = ("fast", "real", "budget", "defaults")


class Inner(NamedTuple):
    """A learner of another entry, built afresh for each learner made."""
    kind: str
    variant: str
    overrides: dict


def inner(kind, variant, **overrides):
    return Inner(kind, variant, overrides)


@dataclass(frozen=True)
class Entry:
    """What the suites need to know about one learner.

    Parameters
    ----------
    cls : type
        The learner class (a ``RuleLearner`` the package exports).
    fast, real, budget : dict
        Keyword arguments of the variants (see the module's docstring);
        ``defaults`` is always ``{}``.
    deterministic : callable or None
        ``n_classes -> kwargs`` under which the fit draws no random number
        over the rows (so an integer weight ``k`` is ``k`` copies of the
        row); ``None`` for a learner whose search always does (SLIPPER's
        GrowSet/PruneSet split, SLS's random steps).
    bad_parameters : dict
        Per public parameter of ``__init__``, a value it must refuse with
        a ``ValueError`` that names it (every parameter but
        ``preprocessors``).
    """
    cls: type
    fast: dict
    real: dict
    budget: dict
    deterministic: Callable[[int], dict] | None
    bad_parameters: dict


def _fixed_gumbel(n_classes):
    """Given Gumbel parameters: EVC without its permutation fit."""
    return GumbelParameters(np.tile([[2.0, 3.0, 4.0]], (n_classes, 1)),
                            np.ones((n_classes, 3)))


def _evc_deterministic(n_classes):
    return dict(beam_width=3, max_rule_length=3, gumbel=_fixed_gumbel(n_classes))


REGISTRY = {
    "slipper": Entry(
        cls=R.SlipperLearner,
        fast=dict(T_max=6, n_folds=2),
        real=dict(T=10),
        budget=dict(T_max=30),
        deterministic=None,
        bad_parameters=dict(T=0, T_max=-1, max_doublings=-1, n_folds=0, patience=0,
                            positive_class=-1, n_jobs=0, random_state=-1, max_rules=0)),
    "evc": Entry(
        cls=R.EVCRuleLearner,
        fast=dict(n_permutations=4, beam_width=3, max_rule_length=3),
        real=dict(n_permutations=10),
        budget=dict(n_permutations=10),
        deterministic=_evc_deterministic,
        bad_parameters=dict(quality="x", m=-1, beam_width=-1, max_rule_length=0,
                            min_covered_examples=float("nan"), alpha=2, parent_alpha=0,
                            n_permutations=0, gumbel="x", strategy="best",
                            max_rules_per_class=0, max_thresholds=0, n_jobs="2",
                            random_state=1.5, min_new_coverage=1.5, max_rules=-3,
                            gumbel_sample=5, search_rows=0)),
    "lrr": Entry(
        cls=R.RuleLogisticRegressionLearner,
        fast=dict(rule_learner=inner("evc", "fast"), n_folds=2),
        real=dict(rule_learner=inner("evc", "real")),
        # every rule of the covering, so that the budget is the L1 path's
        budget=dict(rule_learner=inner("evc", "budget", min_new_coverage=0)),
        deterministic=lambda n_classes: dict(
            rule_learner=R.EVCRuleLearner(**_evc_deterministic(n_classes)), lambda_=1.0),
        bad_parameters=dict(rule_learner="x", rule_penalty="yes", attributes=2,
                            use_rules=None, lambda_=-1, lambdas=(), penalty_scales=(),
                            n_folds=1, random_state="0", max_rules=0.5, grown_rules="no",
                            multi_class="softmax")),
    "sls": Entry(
        cls=R.SLSEnsembleLearner,
        fast=dict(k_max=2, n_rule_sets=2, max_steps=80),
        real=dict(n_rule_sets=4, max_steps=500),
        budget=dict(n_rule_sets=4, max_steps=500),
        deterministic=None,
        bad_parameters=dict(k_max=0, n_rule_sets=0, rho=0, max_steps=-1, p_noise=2,
                            p_restart=-0.1, n_intervals=1, numeric="bins", theta=3, delta=1,
                            n_jobs=0, random_state=-5, max_rules=0, rho_rows=0,
                            search_rows=0, rest_ratio=0, rest_min=0)),
    "roccer": Entry(
        cls=R.ROCCERLearner,
        fast=dict(max_length=2),
        real={},
        budget={},
        deterministic=lambda n_classes: dict(max_length=2, lambda_=1.0),
        bad_parameters=dict(min_support=0, min_confidence=1.5, min_lift=0, max_length=0,
                            min_cuts=-1, max_cuts=0, numeric="x", max_candidates=0,
                            max_memory_mb=float("inf"), max_rules="10",
                            multi_class="softmax", lambda_=-1, search_rows=0, n_jobs=0,
                            random_state=0.5)),
    "scoring": Entry(
        cls=R.RuleScoringLearner,
        fast=dict(beam_width=2, max_rule_length=2),
        real={},
        budget={},
        deterministic=lambda n_classes: dict(beam_width=2, max_rule_length=2),
        bad_parameters=dict(base="cn2", strategy="max", min_confidence=-0.1, ordered="no",
                            random_state=-1, m=-1, beam_width=0, min_covered_examples=-1,
                            max_rule_length=0, min_new_coverage=-0.1, max_rules=0,
                            search_rows=0, n_jobs=0)),
}

#: the registry's learners, sorted (the order of every parametrisation)
KINDS = sorted(REGISTRY)


def _built(value):
    if isinstance(value, Inner):
        return make(value.kind, value.variant, **value.overrides)
    return value


def make(kind, variant="real", **overrides):
    """A new learner of ``kind`` with the ``variant``'s settings, updated
    with ``overrides``."""
    entry = REGISTRY[kind]
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    kwargs = {} if variant == "defaults" else dict(getattr(entry, variant))
    kwargs.update(overrides)
    return entry.cls(**{name: _built(value) for name, value in kwargs.items()})


def deterministic(kind, n_classes):
    """The learner of ``kind`` under settings whose fit draws no random
    number over the rows, for data of ``n_classes`` classes (``None`` for a
    learner without such settings)."""
    settings = REGISTRY[kind].deterministic
    return None if settings is None else REGISTRY[kind].cls(**settings(n_classes))


def factory(variant, **overrides):
    """``{kind: (lambda **kw: make(kind, variant, **overrides, **kw))}``:
    the registry as a suite's table of learner factories."""
    return {kind: (lambda kind=kind, **kw: make(kind, variant, **{**overrides, **kw}))
            for kind in KINDS}


def grown_rules_table(n=3600, seed=0):
    """Two classes, numeric and categorical columns with 5% missing values,
    a class of interactions: on 3,600 rows LR with rules under a budget
    grows rules (its held-out third holds 1,200) and boosting wins."""
    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=(n, 5)), rng.integers(0, 4, n)]).astype(float)
    signal = (X[:, 0] + (X[:, 1] > 0.5) * 1.5 - np.abs(X[:, 2]) + (X[:, 5] == 2)
              + X[:, 3] * X[:, 4] + rng.normal(size=n) * 0.5)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (signal > np.median(signal)).astype(float)
    domain = Domain([ContinuousVariable(f"x{j}") for j in range(5)]
                    + [DiscreteVariable("colour", ("red", "green", "blue", "grey"))],
                    DiscreteVariable("y", ("no", "yes")))
    return Table.from_numpy(domain, X, y)
