"""Rules as data: :class:`Condition`, :class:`Rule` and rule-set display.

A rule is a small value object that prints itself with Orange variable names.
Its attribute names (``selectors``, ``prediction``, ``curr_class_dist``,
``probabilities``, ``quality``, ``length``, ``evaluate_data``) match what
Orange's CN2 Rule Viewer reads, so every model of the add-on can be shown
there.
"""
from __future__ import annotations

import re
from typing import NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp

from Orange.data import Domain

from .core import (KIND_CONTINUOUS, OP_EQ, OP_GE, OP_LE, OP_LT, cover_columns, cover_matrix,
                   violation_matrix)

OPERATORS = {"==": OP_EQ, "<=": OP_LE, ">=": OP_GE, "<": OP_LT}
#: ``var.attributes`` key naming the attribute whose missing values a
#: two-valued indicator (``no``/``yes``) marks (SLS's preprocessor)
MISSING_OF = "rules:missing-of"


def format_number(x: float) -> str:
    """Short printing of counts and qualities (six significant digits)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: "1 rule", "12 rules"
    (``noun`` plural, ending in "s")."""
    return f"{n} {noun[:-1] if n == 1 else noun}"


def format_threshold(x: float) -> str:
    """A threshold as it is: six significant digits when they read back as
    ``x`` (learners choose short thresholds,
    :func:`~orangecontrib.rules.features.simplest_threshold`),
    else every digit Python needs."""
    text = format_number(x)
    return text if float(text) == float(x) else repr(float(x))


def dense_X(X) -> np.ndarray:
    """Orange's ``X`` as a C-contiguous float64 array (sparse is densified)."""
    if sp.issparse(X):
        X = X.toarray()
    return np.ascontiguousarray(X, dtype=np.float64)


#: words that would read as part of a rule's syntax inside a name
_SYNTAX_WORDS = re.compile(r"(?<![\w])(and|or|if|then|not|true|is)(?![\w])", re.IGNORECASE)
#: characters of the rules' operators
_OPERATOR_CHARS = set("<>=!≤≥\"")
#: the sides of a cut Orange writes as a discretised value ("< 5", "≥ 7")
_CUT_SIDES = ("< ", ">= ", "<= ", "> ", "≥ ", "≤ ")


def quoted(name: str) -> str:
    """``name`` as a rule prints it: in double quotes (a quote inside
    doubled) when it holds an operator (``<``, ``>``, ``=``, ``!``, ``≤``,
    ``≥``, a quote), a word of the rules' syntax (``and``, ``or``, ``if``,
    ``then``, ``not``, ``true``, ``is``), leading or trailing spaces, or
    nothing, so that ``"fasting blood sugar > 120" = 1`` cannot be read as
    a comparison with 120; as it is otherwise (``max HR >= 162``)."""
    name = str(name)
    if (not name or name != name.strip() or any(ch in _OPERATOR_CHARS for ch in name)
            or _SYNTAX_WORDS.search(name)):
        return '"' + name.replace('"', '""') + '"'
    return name


def _interval_text(var, index: int) -> str | None:
    """The numeric interval of value ``index`` of a variable Orange's
    discretisation made (``compute_value`` a ``Discretizer``: value ``i``
    holds ``points[i - 1] <= x < points[i]``), on the numeric variable it
    was made from; ``None`` for any other variable."""
    from Orange.preprocess.discretize import Discretizer
    cv = getattr(var, "compute_value", None)
    if getattr(cv, "unknown_index", None) is not None and cv.variable is not None:
        return _interval_text(cv.variable, index)  # SLS's value "unknown" added
    if not isinstance(cv, Discretizer) or cv.variable is None:
        return None
    points, source = [float(p) for p in cv.points], cv.variable
    name = quoted(source.name)
    if not points:
        return f"{name} is known"
    if index <= 0:
        return f"{name} < {format_threshold(points[0])}"
    if index >= len(points):
        return f"{name} >= {format_threshold(points[-1])}"
    return (f"{format_threshold(points[index - 1])} <= {name} < "
            f"{format_threshold(points[index])}")


def condition_text(column: int, op: str, value: float, domain: Domain | None = None) -> str:
    """A condition as every view prints it (the README's "Reading the
    rules" lists these forms):

    * ``A = v`` (a discrete value), ``A <= t``, ``A >= t``, ``A < t``;
    * ``a <= A < b``, ``A < b``, ``A >= a``: a value of an interval variable
      Orange's discretisation made from the numeric ``A`` (SLS's
      ``numeric="intervals"``, a ``Discretize`` preprocessor), written on
      ``A`` with the exact cut points;
    * ``A is unknown`` / ``A is known``: the indicator SLS adds for a
      numeric attribute with missing values, and the value ``unknown`` SLS
      adds to a discrete one.

    Names are :func:`quoted` where they would mislead; a missing value
    satisfies no condition."""
    if domain is None:
        return f"x[{column}] {'=' if op == '==' else op} {format_threshold(value)}"
    var = domain.attributes[column]
    name = quoted(var.name)
    if op != "==":
        return f"{name} {op} {format_threshold(value)}"
    if not var.is_discrete:
        return f"{name} = {format_threshold(value)}"
    index = int(value)
    if MISSING_OF in var.attributes and len(var.values) == 2:
        known = "unknown" if index == 1 else "known"
        return f"{quoted(var.attributes[MISSING_OF])} is {known}"
    if getattr(getattr(var, "compute_value", None), "unknown_index", None) == index:
        return f"{name} is unknown"
    interval = _interval_text(var, index)
    if interval is not None:
        return interval
    text = var.values[index]
    if text.startswith(_CUT_SIDES):  # a cut's side, as Orange names it
        return f"{name} {text}"
    return f"{name} = {quoted(text)}"



def conditions_texts(conditions, domain: Domain | None = None) -> list[str]:
    """The texts of a conjunction's conditions as every view lists them
    (:func:`condition_text`), a lower and an upper bound on the same
    numeric attribute written as one range (``50 <= age < 58``: both
    conditions, read as one). ``conditions``: ``(column, op, value)``
    triples (:class:`Condition` or Orange's ``Selector``)."""
    conds = [(int(c[0]), str(c[1]), float(c[2])) for c in conditions]
    out, i = [], 0
    while i < len(conds):
        col, op, value = conds[i]
        nxt = conds[i + 1] if i + 1 < len(conds) else None
        if (domain is not None and op == ">=" and nxt is not None and nxt[0] == col
                and nxt[1] in ("<", "<=")):
            name = quoted(domain.attributes[col].name)
            out.append(f"{format_threshold(value)} <= {name} {nxt[1]} "
                       f"{format_threshold(nxt[2])}")
            i += 2
            continue
        out.append(condition_text(col, op, value, domain))
        i += 1
    return out

class Condition(NamedTuple):
    """``A = v`` (``op='=='``, ``value`` = index of ``v``), ``A <= t``,
    ``A >= t`` or ``A < t``.

    ``column`` indexes ``domain.attributes``. A missing value satisfies no
    condition. Field names are those of Orange's ``Selector``.
    """

    column: int
    op: str
    value: float

    def to_str(self, domain: Domain | None = None) -> str:
        """The condition as a reader sees it (:func:`condition_text`)."""
        return condition_text(self.column, self.op, self.value, domain)

    def __str__(self):
        return self.to_str()


_OP_ORDER = {"==": 0, ">=": 1, "<=": 2, "<": 3}


def canonical_conditions(conditions):
    """One canonical form of a conjunction (the same rows, written one way):
    bounds on the same numeric column merged to the tightest (``A >= 43 AND
    A >= 51`` is ``A >= 51``; of ``A <= t`` and ``A < u`` the one that
    admits less), repeated conditions dropped, and the conditions sorted by
    column, then ``=``, ``>=``, ``<=``, ``<``, then value, so two rules
    with the same conditions in another order are equal. Works on any
    ``(column, op, value)`` triples (``column`` may be any sortable key).
    A missing value satisfies no condition before and after, so the rows
    covered do not change."""
    lower, upper, other = {}, {}, set()
    for c in conditions:
        col, op, value = c[0], c[1], float(c[2])
        if op == ">=":
            if col not in lower or value > lower[col][2]:
                lower[col] = c
        elif op in ("<=", "<"):
            old = upper.get(col)
            if old is None or value < float(old[2]) or (value == float(old[2]) and op == "<"):
                upper[col] = c
        else:
            other.add(c)
    out = list(other) + list(lower.values()) + list(upper.values())
    return tuple(sorted(out, key=lambda c: (c[0], _OP_ORDER.get(c[1], 9), float(c[2]))))


def rules_to_csr(rules: Sequence["Rule"]):
    """Conditions of ``rules`` as the CSR arrays of ``core.cover_matrix``.

    All attributes are addressed as columns of Orange's float ``X`` (kind
    "continuous", with ``A = v`` as equality on the value index): in Orange's
    ``X`` discrete values are their indices and unknowns are NaN, so the
    semantics are exactly those of the encoded arrays.
    """
    ptr = np.zeros(len(rules) + 1, dtype=np.int32)
    conds = [c for r in rules for c in r.conditions]
    for i, r in enumerate(rules):
        ptr[i + 1] = ptr[i] + len(r.conditions)
    kind = np.full(len(conds), KIND_CONTINUOUS, dtype=np.int32)
    col = np.array([c.column for c in conds], dtype=np.int32)
    try:
        op = np.array([OPERATORS[c.op] for c in conds], dtype=np.int8)
    except KeyError as exc:
        raise ValueError(f"unsupported operator {exc}; use ==, <=, >= or <") from None
    value = np.array([c.value for c in conds], dtype=np.float64)
    return ptr, kind, col, op, value


def _coverage_arguments(rules: Sequence["Rule"], X) -> tuple:
    """The arguments of the core's coverage kernels for ``rules`` on Orange's
    ``X`` (every column as a float column; codes of discrete ones compare
    with ``OP_EQ``), after checking that ``X`` has the rules' columns. A
    sparse ``X`` is not densified: only the columns the rules test are
    (``n`` x the distinct columns of the rules' conditions)."""
    import scipy.sparse as sp
    if X.ndim != 2:
        raise ValueError("X must be two-dimensional")
    if any(c.column >= X.shape[1] for r in rules for c in r.conditions):
        raise ValueError("a rule refers to a column that X does not have")
    ptr, kind, col, op, value = rules_to_csr(rules)
    if sp.issparse(X):
        used = np.unique(col)
        X = sp.csc_matrix(X)[:, used].toarray().astype(np.float64, copy=False)
        col = np.searchsorted(used, col).astype(np.int32)
    else:
        X = dense_X(X)
    empty = np.zeros((X.shape[0], 0), dtype=np.int32)
    return (empty, np.ascontiguousarray(X), ptr, kind, col, op, value)


def covering(rules: Sequence["Rule"], X) -> np.ndarray:
    """Boolean ``(n, len(rules))``: which rules fire on each row of Orange's ``X``."""
    return cover_matrix(*_coverage_arguments(rules, X))


def violations(rules: Sequence["Rule"], X) -> np.ndarray:
    """``uint8 (n, len(rules))``: how many conditions of each rule a row of
    Orange's ``X`` fails (0: the rule fires; a missing value fails)."""
    return violation_matrix(*_coverage_arguments(rules, X))


def covering_sparse(rules: Sequence["Rule"], X):
    """:func:`covering` as a sparse ``(n, len(rules))`` 0/1 matrix (CSC,
    float): memory for the covered cells only, for models of many rules on
    many rows (logistic regression with rules, SLIPPER)."""
    import scipy.sparse as sp
    args = _coverage_arguments(rules, X)
    indptr, indices = cover_columns(*args)
    return sp.csc_matrix((np.ones(len(indices)), indices, indptr),
                         shape=(args[1].shape[0], len(rules)))


def rule_class_weights(rules: Sequence["Rule"], X, y, w, n_classes) -> np.ndarray:
    """``(len(rules), n_classes)``: the weighted class counts of the rows of
    ``X`` each rule covers (from the sparse coverage: memory for the covered
    cells only)."""
    import scipy.sparse as sp
    cover = covering_sparse(rules, X)
    onehot = sp.csr_matrix((np.asarray(w, dtype=float), (np.arange(len(y)), np.asarray(y))),
                           shape=(len(y), n_classes))
    return np.asarray((cover.T @ onehot).todense()).reshape(len(rules), n_classes)


def budget_prefixes(shares, max_rules: int) -> list[int]:
    """How many rules of each class's covering a budget of ``max_rules``
    rules in all keeps: ``shares[c]`` holds, rule by rule in the order class
    ``c``'s covering found them, the share of the class each covered first.
    The classes take turns, the next rule always the one that covers the
    largest share first (ties: the class listed first). The classes'
    coverings do not depend on each other, so the kept prefixes are what
    one covering of all classes at once, stopped at the budget, finds."""
    taken = [0] * len(shares)
    for _ in range(int(max_rules)):
        nexts = [(-sh[t], c) for c, (sh, t) in enumerate(zip(shares, taken)) if t < len(sh)]
        if not nexts:
            break
        taken[min(nexts)[1]] += 1
    return taken


#: the most of its class a covering under a budget asks of each rule
BUDGET_COVERAGE_CAP = 0.5


def budget_coverage(min_new_coverage: float, n_classes: int, max_rules) -> float:
    """The least new coverage of a covering under a budget: ``max_rules``
    rules for the coverings of ``n_classes`` classes give each about
    ``max_rules / n_classes``, so each rule must cover at least
    ``n_classes / max_rules`` of its class that no earlier rule of the
    class covers (and at least ``min_new_coverage``; at most
    :data:`BUDGET_COVERAGE_CAP`). Each class's covering then ends near its
    share of the budget by itself, with rules that cover much of the class,
    instead of running to its own stop and being cut to the first few of
    its many narrow rules (:func:`budget_prefixes` still cuts what is over
    the budget). ``max_rules=None``: ``min_new_coverage``."""
    if max_rules is None or n_classes < 1:
        return min_new_coverage
    return max(min_new_coverage, min(BUDGET_COVERAGE_CAP, n_classes / max_rules))


def allocate_budget(curves, prior, budget: int) -> list[int]:
    """How many rules of a budget of ``budget`` in all each class's model
    gets: ``curves[c, t]`` is class ``c``'s error with ``t + 1`` rules
    (SLIPPER: a booster's mean hold-out error after ``t + 1`` rounds; SLS:
    the least training error of a rule set of at most ``t + 1`` rules);
    with none it predicts no positive, error ``prior[c]``. The allocation
    of the least summed error, exact by dynamic programming over the
    budget (ties to fewer rules), at most ``curves.shape[1]`` each."""
    curves = np.asarray(curves, dtype=float)
    C, T = curves.shape
    budget = min(int(budget), C * T)  # no class takes more than T
    err = np.hstack([np.asarray(prior, dtype=float)[:, None], curves])  # t = 0..T rules
    best = np.zeros(budget + 1)  # least error of the classes so far with b rules
    choice = np.zeros((C, budget + 1), dtype=int)
    ts = np.arange(min(budget, T) + 1)
    b = np.arange(budget + 1)
    for c in range(C):
        # total[t, b]: t rules to class c, b - t to the classes before it
        total = np.full((len(ts), budget + 1), np.inf)
        for t in ts:
            total[t, t:] = best[:budget + 1 - t] + err[c, t]
        bar = total.min(axis=0) * (1 + 1e-12) + 1e-15
        choice[c] = np.argmax(total <= bar, axis=0)  # the fewest rules within the bar
        best = total[choice[c], b]
    out, left = [0] * C, int(np.argmin(best))
    for c in range(C - 1, -1, -1):
        out[c] = int(choice[c, left])
        left -= out[c]
    return out


def first_cover_shares(rules: Sequence["Rule"], X, y, w, n_classes) -> np.ndarray:
    """Per rule, the share of its class's weight (training rows ``X``,
    classes ``y``, weights ``w``) it covers that no earlier rule of its
    class in ``rules`` covers: the order of a covering."""
    cover = covering_sparse(rules, X).tocsc()
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    total = np.bincount(y, w, minlength=n_classes)
    covered = np.zeros((n_classes, len(y)), bool)
    out = np.zeros(len(rules))
    for k, r in enumerate(rules):
        rows = cover.indices[cover.indptr[k]:cover.indptr[k + 1]]
        rows = rows[(y[rows] == r.head) & ~covered[r.head, rows]]
        out[k] = w[rows].sum() / total[r.head] if total[r.head] > 0 else 0.0
        covered[r.head, rows] = True
    return out


#: at most this many (row, rule) cells of a dense coverage matrix at once
#: (64 MB as bool): predictions on many rows go in row blocks
COVER_CELLS = 1 << 26


def row_blocks(n_rows: int, n_rules: int):
    """Slices of rows whose coverage of ``n_rules`` rules fits in
    :data:`COVER_CELLS` cells."""
    step = max(1, COVER_CELLS // max(n_rules, 1))
    return [slice(i, min(i + step, n_rows)) for i in range(0, max(n_rows, 1), step)]


class Rule:
    """A conjunction of conditions with a head.

    ``head`` is the class index; ``class_distribution`` the (weighted) training
    class counts of the covered examples; ``quality`` the rule's number
    (confidence, weight, quality), as the learner defines it.
    """

    def __init__(self, conditions: Sequence[Condition], head: int,
                 class_distribution, quality: float = float("nan"),
                 domain: Domain | None = None, **extra):
        self.conditions = canonical_conditions(
            Condition(int(c.column), c.op, float(c.value)) for c in conditions)
        self.head = int(head)
        self.class_distribution = np.asarray(class_distribution, dtype=float)
        self.quality = float(quality)
        self.domain = domain
        self.extra = dict(extra)

    # --- what Orange's rule viewer reads -------------------------------
    @property
    def selectors(self):
        return self.conditions

    @property
    def prediction(self) -> int:
        return self.head

    @property
    def target_class(self) -> int:
        return self.head

    @property
    def curr_class_dist(self) -> np.ndarray:
        return self.class_distribution

    @property
    def length(self) -> int:
        return len(self.conditions)

    @property
    def probabilities(self) -> np.ndarray:
        """Laplace-smoothed class distribution of the covered examples."""
        d = self.class_distribution
        return (d + 1) / (d.sum() + len(d))

    def evaluate_data(self, X) -> np.ndarray:
        """Boolean mask of the rows of Orange's ``X`` this rule covers."""
        return covering([self], X)[:, 0]

    # --- statistics ----------------------------------------------------
    @property
    def n_covered(self) -> float:
        return float(self.class_distribution.sum())

    def laplace_confidence(self) -> float:
        """``(TP + 1) / (TP + FP + C)`` (Fawcett 2001, Section 3.1)."""
        d = self.class_distribution
        return float((d[self.head] + 1) / (d.sum() + len(d)))

    def false_positive_rate(self, class_distribution) -> float:
        """``FP / N``: covered weight of other classes over all of theirs."""
        prior = np.asarray(class_distribution, dtype=float)
        negatives = prior.sum() - prior[self.head]
        fp = self.class_distribution.sum() - self.class_distribution[self.head]
        return float(fp / negatives) if negatives > 0 else 0.0

    # --- display -------------------------------------------------------
    def to_str(self, domain: Domain | None = None, show_quality=False) -> str:
        """``IF conditions THEN class = value  [counts]`` (:func:`rule_text`),
        with ``quality q`` after it if ``show_quality``."""
        domain = domain if domain is not None else self.domain
        return rule_text(self, domain, number=(f"quality {self.quality:.3f}"
                                               if show_quality else None))

    def __str__(self):
        return self.to_str()

    def __repr__(self):
        return f"<Rule {self.to_str()}>"

    def __eq__(self, other):
        if not isinstance(other, Rule):
            return NotImplemented
        return (self.conditions == other.conditions and self.head == other.head
                and np.array_equal(self.class_distribution, other.class_distribution)
                and (self.quality == other.quality
                     or (np.isnan(self.quality) and np.isnan(other.quality))))

    def __hash__(self):
        return hash((self.conditions, self.head))


def head_text(domain: Domain | None, cls: int, against: bool = False) -> str:
    """A rule's head: ``class = value``, or ``class != value`` for a rule
    that lowers the class (:meth:`RuleModel.rule_directions`)."""
    if domain is None or domain.class_var is None:
        return f"class {'!=' if against else '='} {cls}"
    cv = domain.class_var
    return f"{quoted(cv.name)} {'!=' if against else '='} {quoted(cv.values[int(cls)])}"


def rule_text(rule: "Rule", domain: Domain | None = None, favours: int | None = None,
              against: bool = False, number: str | None = None,
              counts: bool = True, dist=None) -> str:
    """``IF conditions THEN head  [counts]  number``: the one way every
    printout and explanation writes a rule. ``favours``/``against``: the
    head (default: the rule's own), the class the rule's weight favours in
    its model; ``number``: the model's number for the rule, with its name
    (``"confidence 0.984"``); ``counts``: the weighted training rows the
    rule covers of each class, or ``dist`` where its model counts other rows
    (:meth:`~orangecontrib.rules.base.RuleModel.rule_counts`)."""
    domain = domain if domain is not None else rule.domain
    body = " AND ".join(conditions_texts(rule.conditions, domain)) or "TRUE"
    head = head_text(domain, rule.head if favours is None else favours, against)
    text = f"IF {body} THEN {head}"
    dist = rule.class_distribution if dist is None else dist
    if counts and len(dist):
        text += "  [" + "/".join(format_number(x) for x in dist) + "]"
    if number:
        text += f"  {number}"
    return text


def number_name(name: str) -> str:
    """A column's name inside a sentence: lower case but for its acronyms
    ("confidence", "EVC quality")."""
    return name if name[:2].isupper() else name[:1].lower() + name[1:]


def number_text(name: str, value: float, decimals: int = 3) -> str:
    """A rule's number with its name, as printouts show it: ``confidence
    0.984`` (``name`` in lower case but for its acronyms)."""
    label = number_name(name)
    if np.isnan(value):
        return ""
    return f"{label} {value:.{decimals}f}" if decimals else f"{label} {int(round(value))}"


def format_rules(rules: Sequence[Rule], domain: Domain | None = None,
                 show_quality=True, model=None) -> str:
    """A numbered listing of ``rules``, one per line: with ``model`` (a
    :class:`~orangecontrib.rules.base.RuleModel`), each head the class the
    rule favours there and its principal number named
    (:meth:`~orangecontrib.rules.base.RuleModel.rule_number`); without,
    each rule's own head and its ``quality``."""
    width = len(str(len(rules)))
    if model is None:
        return "\n".join(f"{i + 1:>{width}}. {r.to_str(domain, show_quality)}"
                         for i, r in enumerate(rules))
    favours, against = model.rule_directions()
    numbers = model.rule_number_texts() if show_quality else None
    index = {id(r): k for k, r in enumerate(model.rule_list)}
    counted = model.rule_counts()
    lines = []
    for i, r in enumerate(rules):
        k = index.get(id(r))
        number = None if numbers is None or k is None else numbers[k] or None
        lines.append(f"{i + 1:>{width}}. " + rule_text(
            r, domain, None if k is None else int(favours[k]),
            False if k is None else bool(against[k]), number,
            dist=None if k is None else counted[k]))
    return "\n".join(lines)


def spread(winner: np.ndarray, score: np.ndarray, prior: np.ndarray,
           weights: np.ndarray | None = None) -> np.ndarray:
    """Probability rows: ``score`` for ``winner``, ``1 - score`` shared by the
    other classes in proportion to ``weights`` (``(n, C)``; default: the
    ``prior`` on every row), uniformly if they have none."""
    n, C = len(winner), len(prior)
    score = np.clip(score, 0.0, 1.0)  # an average of confidences may round past 1
    if C == 1:
        return np.ones((n, 1))
    others = (np.tile(prior, (n, 1)) if weights is None
              else np.array(weights, dtype=float).reshape(n, C))
    others[np.arange(n), winner] = 0
    mass = others.sum(axis=1, keepdims=True)
    uniform = np.full((n, C), 1 / (C - 1))
    uniform[np.arange(n), winner] = 0
    others = np.where(mass > 0, others / np.where(mass > 0, mass, 1), uniform)
    probs = others * (1 - score)[:, None]
    probs[np.arange(n), winner] = score
    return probs

