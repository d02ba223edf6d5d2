"""A base rule learner's rules, read where its learner meant them.

Rule Scoring scores the rules of a ``base`` learner and LR with rules
weighs those of its ``rule_learner``. A base may preprocess: Orange's
``Discretize()`` as a preprocessor, SLS's ``numeric="intervals"`` and its
unknown-value columns, CN2's imputation. Its rules then test the columns
of *its* model's domain (an interval code of a discretised attribute, an
indicator "A is unknown"), not the columns of the data it was given; read
on those, an interval code is compared with the raw value, and every rule
covers nothing.

:class:`BaseRules` reads each condition back through the transformation
that made its column (``compute_value``), into the columns of the data the
base was given:

* a discretised attribute (Orange's ``Discretizer``, cut points ``p``):
  ``A = interval v`` is ``A >= p[v-1] AND A < p[v]`` on the numeric column
  (both exact: Orange puts ``x`` in interval ``v`` when ``p[v-1] <= x <
  p[v]``), and the order conditions on the codes likewise;
* an imputed attribute (Orange's ``ReplaceUnknowns`` family): the same
  condition on the attribute itself, where, as everywhere in the add-on,
  an unknown value satisfies no condition;
* SLS's value ``unknown`` of a discrete attribute: ``A = v`` on the
  attribute, ``A = unknown`` on an added indicator column "A is unknown";
* any other column the base's preprocessing computed (e.g. a normalised
  attribute, SLS's indicators): the column itself, added to the model's
  domain with its transformation (if its name is taken, with the
  transformation's in brackets: "A (normalised)"), so Orange computes it
  from the data as it does for the base.

The model that reads the rules has the domain :attr:`BaseRules.domain`: the
data's columns, then the added ones; a model applied to new data gets them
by Orange's usual transformation, and pickles with them.
"""
from __future__ import annotations

import math

import numpy as np
from Orange.data import DiscreteVariable, Domain, Table
from Orange.data.util import get_unique_names
from Orange.preprocess.discretize import Discretizer
from Orange.preprocess.impute import ReplaceUnknowns, ReplaceUnknownsModel, \
    ReplaceUnknownsRandom
from Orange.preprocess.transformation import Identity

from .features import IsUnknown, UnknownAsValue
from .rules import MISSING_OF, Condition, Rule

#: transformations that change only unknown values: a condition on the
#: column they make is the same condition on their source
IMPUTATIONS = (ReplaceUnknowns, ReplaceUnknownsModel, ReplaceUnknownsRandom, Identity)
#: a condition no known value satisfies, and one every known value satisfies
NEVER = ("<", -math.inf)
KNOWN = (">=", -math.inf)
#: how an added column's name says what made it, where its own name is taken
TRANSFORMED = {"Normalizer": "normalised", "Indicator": "indicator",
               "Indicator1": "indicator"}


class BaseRules:
    """Conditions on ``base_domain``'s attributes (the base model's) as
    conditions on ``domain``'s (the data the base was given) and the columns
    :attr:`domain` adds.

    Parameters
    ----------
    domain : Orange.data.Domain
        The data the base learner was given.
    base_domain : Orange.data.Domain
        The domain of the base learner's model (after its preprocessing).
    """

    def __init__(self, domain: Domain, base_domain: Domain):
        self.data_domain = domain
        self.base_domain = base_domain
        self.attributes = list(domain.attributes)
        self._names = [v.name for v in domain.variables + domain.metas]
        self._index = {}  # variable -> column of self.attributes

    @property
    def domain(self) -> Domain:
        """The data's domain with the columns the rules added."""
        d = self.data_domain
        if len(self.attributes) == len(d.attributes):
            return d
        if getattr(self, "_domain", None) is None or \
                len(self._domain.attributes) != len(self.attributes):
            self._domain = Domain(self.attributes, d.class_vars, d.metas)
        return self._domain

    def X(self, data: Table):
        """The rows of ``data`` (in the data's domain) in the columns of
        :attr:`domain` (``data.X`` when the rules added none)."""
        if len(self.attributes) == len(data.domain.attributes):
            return data.X
        return data.transform(self.domain).X

    def rules(self, rules) -> list[Rule]:
        """``rules`` (this add-on's :class:`Rule` s or rules of Orange's CN2
        family) with their conditions in the columns of :attr:`domain`; their
        heads, class distributions, qualities and extra numbers kept (the
        rules themselves when the base's columns are the data's)."""
        rules = list(rules)
        same = self.base_domain.attributes == self.data_domain.attributes
        out = []
        for rule in rules:
            if same and isinstance(rule, Rule):
                out.append(rule)
                continue
            conditions = []
            for sel in rule.selectors:
                conditions += self.conditions(self.base_domain.attributes[int(sel.column)],
                                              sel.op, float(sel.value))
            dist = getattr(rule, "class_distribution", None)
            if dist is None:
                dist = np.zeros(len(self.data_domain.class_var.values))
            out.append(Rule(conditions, int(rule.prediction), np.array(dist, dtype=float),
                            quality=float(getattr(rule, "quality", math.nan)),
                            **dict(getattr(rule, "extra", {}))))
        domain = self.domain
        for rule, given in zip(out, rules):
            if rule is not given:
                rule.domain = domain
        return out

    # --- one condition ---------------------------------------------------
    def conditions(self, var, op: str, value: float) -> list[Condition]:
        """``var op value`` (``var`` of the base's domain) as conditions on
        the columns of :attr:`domain`."""
        if op not in ("==", "<=", ">=", "<"):
            raise ValueError(f"rule condition with operator {op!r} cannot be read; use a "
                             "base learner without A != v conditions "
                             "(cn2_unordered_equality)")
        own = self._own_column(var)
        if own is not None:
            return [Condition(own, op, value)]
        compute = var.compute_value
        if isinstance(compute, IMPUTATIONS):
            return self.conditions(compute.variable, op, value)
        if isinstance(compute, Discretizer):
            return [c for o, v in interval_bounds(list(compute.points), op, value)
                    for c in self.conditions(compute.variable, o, v)]
        if isinstance(compute, UnknownAsValue) and op == "==":
            if int(value) != compute.n_values:
                return self.conditions(compute.variable, op, value)
            return [Condition(self._indicator(compute.variable), "==", 1.0)]
        return [Condition(self._added(var), op, value)]

    def _own_column(self, var):
        """The column of :attr:`domain` that is ``var`` (Orange's equality:
        the same name and transformation), or ``None``."""
        if var not in self._index:
            self._index[var] = next((j for j, a in enumerate(self.attributes) if a == var),
                                    None)
        return self._index[var]

    def _added(self, var) -> int:
        """The column of ``var`` (computed by its transformation) added to
        :attr:`domain`; if its name is taken, named by its transformation as
        well ("A (normalised)"), numbered if that is taken too."""
        if var.compute_value is None:
            raise ValueError(f"a rule of the base learner tests {var.name!r}, a column "
                             "the data do not have and the base's preprocessing does "
                             "not compute")
        name = var.name
        if name in self._names:  # "A (normalised)", "A (Lookup)", then numbered
            kind = type(var.compute_value).__name__
            name = get_unique_names(self._names, f"{name} ({TRANSFORMED.get(kind, kind)})")
        added = var if name == var.name else var.copy(name=name)
        self._names.append(name)
        self.attributes.append(added)
        self._index[var] = self._index[added] = len(self.attributes) - 1
        return len(self.attributes) - 1

    def _indicator(self, source) -> int:
        """The column "``source`` is unknown" (no/yes) of :attr:`domain`."""
        name = f"{source.name} is unknown"
        indicator = DiscreteVariable(name, values=("no", "yes"),
                                     compute_value=IsUnknown(source))
        indicator.attributes[MISSING_OF] = source.name
        column = self._own_column(indicator)
        return column if column is not None else self._added(indicator)


def interval_bounds(points, op: str, value: float) -> list[tuple[str, float]]:
    """A condition on the interval codes of a discretised attribute (Orange's
    ``Discretizer``: code ``v`` for ``points[v-1] <= x < points[v]``) as
    ``(op, threshold)`` conditions on the attribute's values: ``[KNOWN]``
    when every known value satisfies it, ``[NEVER]`` when none does."""
    k = len(points)  # codes 0 .. k
    if op == "==":
        if value != int(value) or not 0 <= value <= k:
            return [NEVER]
        lo, hi = int(value), int(value)
    elif op == "<=":
        lo, hi = 0, math.floor(value)
    elif op == "<":
        lo, hi = 0, math.ceil(value) - 1
    else:  # ">="
        lo, hi = math.ceil(value), k
    lo, hi = max(lo, 0), min(hi, k)
    if lo > hi:
        return [NEVER]
    out = ([(">=", float(points[lo - 1]))] if lo > 0 else []) + \
        ([("<", float(points[hi]))] if hi < k else [])
    return out or [KNOWN]
