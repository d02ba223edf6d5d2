"""Ensembles of k-term DNF rule sets found by stochastic local search, with
abstention and PAC-Bayes bounds (Rückert & Kramer 2006; doc/sls.md).

* :class:`SLSPreprocessor` prepares the data: a discrete attribute with
  missing values gets a value ``unknown`` (the paper, Section 6); a numeric
  attribute stays numeric and is cut at equal-frequency points when the
  learner codes it (``numeric="thresholds"``, default: a rule tests a bound
  ``A >= t`` or ``A < t``, or both, at those cuts) or becomes one nominal
  attribute of intervals (``numeric="intervals"``, the paper's encoding).
* :func:`core.sls_search` (``core/_sls.pyx``) is Algorithm 1.
* :class:`SLSEnsembleLearner` is Algorithm 2: per class (one-vs-all; one
  ensemble for two-class data), ``o`` rule sets for each ``k = 1..k_max``,
  weighted by ``Q(r) ∝ rho^e(r)`` (Section 4); on more classes each class's
  searches see its examples and a sample of the rest (this project).
* :class:`SLSEnsembleModel` scores with the vote ``c(Q_y, x)``, can abstain
  (Section 5.2) and reports the PAC-Bayes bounds (Theorems 1-3); its
  probabilities (this project) are the ``Q``-weighted Laplace estimates of
  three regions per rule set, by how many literals its nearest rule misses.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import exp, lgamma, log, log1p, sqrt

import numpy as np
from joblib import delayed

from Orange.data import DiscreteVariable, Domain, Table
from Orange.preprocess import Preprocess

from .base import (Explanation, RuleLearner, RuleModel, ViewerColumn, argmax_with_ties,
                   class_preference, in_name_order)
from .core import SLSData, pack_bits, sls_search
# IsUnknown and UnknownAsValue live in features (base_rules reads them too);
# imported here also for models saved when they were defined here
from .features import (IsUnknown, UnknownAsValue, canonical_rule_set,  # noqa: F401
                       interval_attributes, interval_codes)
from .parallel import parallel_map
from . import params
from .rules import (MISSING_OF, Condition, Rule, allocate_budget, counted, covering, format_number,
                    row_blocks, rule_text, violations)
from .tables import class_codes, stratified_rows

UNKNOWN = "unknown"


# --------------------------------------------------------------- the data

class SLSPreprocessor(Preprocess):
    """Prepares the data for SLS.

    A discrete attribute with missing values gets a value ``unknown`` that
    they map to (Section 6: "unknown values are treated just like any other
    value"); attributes without missing values in the data keep theirs, and
    at prediction a missing value there satisfies no literal. A numeric
    attribute: with ``numeric="thresholds"`` (default) it stays numeric (the
    learner cuts it at ``n_intervals - 1`` equal-frequency points, and a
    rule tests a lower bound, an upper bound or both at those cuts), and if
    it has missing values an indicator ``A is unknown`` is added so a rule
    can still test them; with ``numeric="intervals"`` (the paper's
    encoding) it becomes one nominal attribute whose values are the
    ``n_intervals`` equal-frequency intervals, a rule testing one of them."""

    def __init__(self, n_intervals=10, numeric="thresholds"):
        if numeric not in ("thresholds", "intervals"):
            raise ValueError("numeric must be 'thresholds' or 'intervals'")
        self.n_intervals = n_intervals
        self.numeric = numeric

    def __call__(self, data: Table) -> Table:
        if self.numeric == "intervals":
            data = interval_attributes(data, self.n_intervals)
        taken = {v.name for v in data.domain.variables + data.domain.metas}
        attrs = []
        for var in data.domain.attributes:
            col = data.get_column(var)
            attrs.append(var)
            if not np.isnan(col).any():
                continue
            if var.is_discrete:
                name = UNKNOWN
                while name in var.values:
                    name = f"{name}?"
                new = DiscreteVariable(var.name, values=tuple(var.values) + (name,),
                                       compute_value=UnknownAsValue(var, len(var.values)))
                new.attributes.update(var.attributes)
                attrs[-1] = new
            else:
                name, k = f"{var.name} is unknown", 1
                while name in taken:
                    name, k = f"{var.name} is unknown ({k})", k + 1
                taken.add(name)
                new = DiscreteVariable(name, values=("no", "yes"),
                                       compute_value=IsUnknown(var))
                new.attributes[MISSING_OF] = var.name
                attrs.append(new)
        old = data.domain.attributes
        if len(attrs) == len(old) and all(a is b for a, b in zip(attrs, old)):
            return data  # nothing changed: as it is (a transformed sparse table is dense)
        return data.transform(Domain(attrs, data.domain.class_vars, data.domain.metas))


# --------------------------------------------------------------- rule sets

# A rule is a sorted tuple of conditions ``(attribute, op, value)`` on the
# model's domain; a rule set a sorted tuple of distinct rules (so equal rule
# sets compare equal).

def rule_set_fires(rule_set: tuple, X) -> np.ndarray:
    """Boolean: where any rule of ``rule_set`` covers a row of Orange's
    ``X`` in the model's domain."""
    if not rule_set:
        return np.zeros(X.shape[0], bool)
    rules = [Rule([Condition(*c) for c in rule], 0, [0]) for rule in rule_set]
    return covering(rules, X).any(axis=1)


def white_noise_weights(errors: np.ndarray, rho: float, per_error: float = 1.0) -> np.ndarray:
    """Section 4: ``Q(r) ∝ rho^e(r)`` (``rho = exp(-lambda/m)``), normalised;
    computed in log space so many errors do not underflow. ``per_error``:
    what one error counts (:func:`error_share`; 1: the paper's)."""
    errors = np.asarray(errors, dtype=float) * per_error
    logq = errors * log(rho)
    q = np.exp(logq - logq.max())
    return q / q.sum()


def error_share(m: float, rho_rows: int | None) -> float:
    """What one training error counts in ``Q(r) ∝ rho^e(r)`` on ``m``
    examples: 1 (the paper's) up to ``rho_rows`` examples, beyond that
    ``rho_rows / m``, so that the weights follow the error rate and not
    the number of rows (``None``: always 1). doc/sls.md, "Algorithm 2"."""
    if rho_rows is None or m <= rho_rows:
        return 1.0
    return float(rho_rows) / float(m)


#: a rule set's regions for its probabilities: the rows its nearest rule
#: misses by 0 literals (it fires), by 1, or by more
N_REGIONS = 3


def nearest_misses(V, idx) -> np.ndarray:
    """For each row, the region of one rule set: how many literals its
    nearest rule misses (Algorithm 1's distance of an example to a rule set,
    the one its generalisation step uses), capped at ``N_REGIONS - 1``.
    ``V``: the failed literals per row and rule (:func:`rules.violations`),
    ``idx``: the rule set's columns."""
    if len(idx) == 0:
        return np.full(V.shape[0], N_REGIONS - 1, dtype=np.intp)
    return np.minimum(V[:, idx].min(axis=1), N_REGIONS - 1).astype(np.intp)


def rule_set_regions(V, cols) -> np.ndarray:
    """``uint8 (len(cols), rows)``: :func:`nearest_misses` of every rule set
    of an ensemble (rule set ``r``: the columns ``cols[r]`` of ``V``) at
    once: for the rule sets of one size ``k``, the elementwise minimum of
    ``k`` gathers of one column each (their first rules, their second, ...),
    instead of a gather and a minimum per rule set."""
    n = V.shape[0]
    out = np.full((len(cols), n), N_REGIONS - 1, dtype=np.uint8)
    sizes = np.array([len(c) for c in cols], dtype=np.intp)
    for k in np.unique(sizes[sizes > 0]).tolist():
        sets = np.flatnonzero(sizes == k)
        idx = np.array([cols[r] for r in sets], dtype=np.intp)  # (sets, k)
        nearest = V[:, idx[:, 0]]
        for j in range(1, k):
            np.minimum(nearest, V[:, idx[:, j]], out=nearest)
        out[sets] = np.minimum(nearest, N_REGIONS - 1).T
    return out


def region_estimates(ens, V, cols) -> np.ndarray:
    """``(rule sets, rows)``: ``P_r(cls | x)`` of every rule set ``r`` of
    the ensemble ``ens`` (its rules the columns ``cols[r]`` of ``V``) on the
    rows with failed literals ``V``, the Laplace estimate of its region
    (:func:`rule_set_regions`): what the predictions weigh by ``Q(r)``."""
    return np.take_along_axis(ens.leaf, rule_set_regions(V, cols).astype(np.intp), axis=1)


def leaf_estimates(counts) -> np.ndarray:
    """``(R, N_REGIONS)``: for each rule set and region (see
    :func:`nearest_misses`), the Laplace estimate ``(s + 1) / (n + 2)`` of the
    class from the weighted training examples there (``counts[r, g] =
    [positives, negatives]``, the weights scaled to sum to the number of
    examples, so the pseudo-counts mean the same whatever the scale of the
    weights)."""
    c = np.asarray(counts, dtype=float).reshape(-1, N_REGIONS, 2)
    return (c[:, :, 0] + 1) / (c[:, :, 0] + c[:, :, 1] + 2)


# --------------------------------------------------------------- bounds

def log_n_rule_sets(choices, k_max: int) -> float:
    """``ln |R|``: rule sets of 1..``k_max`` distinct rules, a rule choosing
    for every attribute one of its ``choices`` ways of testing it (not at
    all included: ``n + 1`` for a nominal attribute of ``n`` values, ``n (n +
    1) / 2`` intervals for a numeric one of ``n`` bins,
    :meth:`core.SLSData.rule_choices`), so there are ``N = prod(choices)``
    rules and ``|R| = sum_k C(N, k)``."""
    log_n = float(np.sum(np.log(np.asarray(choices, dtype=float))))
    terms = []
    for k in range(1, k_max + 1):
        if log_n < 50:  # N exactly representable enough: exact binomial
            n = round(np.exp(log_n))
            if k > n:
                break
            terms.append(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1))
        else:  # ln C(N, k) = sum_i ln(N - i) - ln k!, N - i = N (1 - i/N)
            terms.append(k * log_n + sum(log1p(-i * exp(-log_n)) for i in range(k))
                         - lgamma(k + 1))
    t = np.array(terms)
    return float(t.max() + np.log(np.exp(t - t.max()).sum()))


def pac_bayes_epsilon(kl: float, m: int, delta: float) -> float:
    """Theorem 1 (McAllester 1999): ``B = sqrt((D(Q||P) + ln(1/delta) + ln m + 2) / (2m - 1))``."""
    return sqrt((kl + log(1 / delta) + log(m) + 2) / (2 * m - 1))


@dataclass
class EnsembleBound:
    """Theorem 1 for one class's ensemble: ``l(Q) <= gibbs_error + epsilon``
    with probability ``1 - delta`` over samples of ``m`` examples."""

    gibbs_error: float  # l^(Q, S) = sum_r Q(r) l^(r, S)
    kl: float           # D(Q || P) = ln|R| - H(Q) for the flat prior P
    epsilon: float      # B(Q, P, m, delta)
    m: int
    delta: float

    @property
    def bound(self) -> float:
        return self.gibbs_error + self.epsilon


# --------------------------------------------------------------- the model

@dataclass
class Ensemble:
    """The weighted rule sets of one class (class index ``cls``)."""

    cls: int
    rule_sets: list      # canonical rule sets
    weights: np.ndarray  # Q(r), summing to 1
    errors: np.ndarray   # training errors e(r) (in examples)
    ks: np.ndarray       # the k each rule set was searched with
    leaf: np.ndarray = None  # (R, N_REGIONS): P(cls) by region (Laplace), see nearest_misses

    def literal_weights(self) -> Counter:
        """For each literal, the weight of the rule sets that use it, the
        literals in sorted order (not the order of a set, which varies
        between processes with the hash seed)."""
        out = Counter()
        for q, rs in zip(self.weights, self.rule_sets):
            for lit in sorted({lit for rule in rs for lit in rule}):
                out[lit] += q
        return out

    def top_literals(self, k: int) -> list:
        """The ``k`` literals of most ensemble weight, ties in literal order."""
        return sorted(self.literal_weights().items(), key=lambda t: (-t[1], t[0]))[:k]


class SLSEnsembleModel(RuleModel):
    """Ensembles of weighted rule sets; ``rule_list`` holds every distinct
    rule with its ensemble weight (the weight of the rule sets it is in) as
    ``quality``, for rule viewers."""

    def __init__(self, domain, ensembles, class_distribution, bounds,
                 theta=0.0, k_max=8):
        self.ensembles = ensembles
        self.bounds = bounds
        self.theta = float(theta)
        self.k_max = k_max
        rules, self._columns = self._rules(domain, ensembles)
        super().__init__(domain, rules, class_distribution)

    @staticmethod
    def _rules(domain, ensembles):
        """Distinct rules per ensemble, heaviest first, and for every rule
        set the indices of its rules in that list."""
        out, columns = [], []
        for ens in ensembles:
            weight = Counter()
            for q, rs in zip(ens.weights, ens.rule_sets):
                for rule in rs:
                    weight[rule] += q
            index = {}
            for rule, q in sorted(weight.items(), key=lambda t: -t[1]):
                index[rule] = len(out)
                conds = [Condition(*lit) for lit in rule]
                out.append(Rule(conds, ens.cls, np.zeros(len(domain.class_var.values)),
                                quality=q, domain=domain))
            columns.append([np.array([index[r] for r in rs], dtype=np.intp)
                            for rs in ens.rule_sets])
        return out, columns

    @property
    def rule_set_rules(self) -> list:
        """Per ensemble, per rule set: the indices of its rules in
        ``rule_list`` (the exporters and the Rule Viewer read them)."""
        return self._columns

    plot_kind = "abstention"

    def quality_column(self):
        return ViewerColumn("Ensemble weight", np.array([r.quality for r in self.rule_list]),
                            "The summed weight of the rule sets that contain the rule.")

    def rule_sets(self) -> list[tuple[int, float, np.ndarray]]:
        """Every rule set of the ensembles: ``(class, weight Q, indices of
        its rules in rule_list)``, each class's heaviest first (what the
        Rule Viewer lists when it groups the rules by rule set)."""
        out = []
        for ens, cols in zip(self.ensembles, self._columns):
            q = np.asarray(ens.weights, dtype=float)
            for s in np.argsort(-q, kind="stable"):
                out.append((int(ens.cls), float(q[s]), np.asarray(cols[s], dtype=int)))
        return out

    def viewer_columns(self):
        """The rule's summed weight, and its rule sets: how many contain it,
        the heaviest of them (its rank in its class's ensemble: 1 plus the
        number of heavier sets; sorting by it lists the rules set by set)
        and that set's weight ``Q``."""
        n = len(self.rule_list)
        n_sets, best_rank = np.zeros(n), np.full(n, np.nan)
        best_q = np.full(n, -np.inf)
        for ens, cols in zip(self.ensembles, self._columns):
            weights = np.asarray(ens.weights, dtype=float)
            rank = 1 + np.sum(weights[None, :] > weights[:, None], axis=1)  # ties share
            for q, r, idx in zip(weights, rank, cols):
                idx = np.asarray(idx, dtype=int)
                n_sets[idx] += 1
                better = idx[q > best_q[idx]]
                best_q[better], best_rank[better] = q, r
        best_q[np.isinf(best_q)] = np.nan
        return [self.quality_column(),
                ViewerColumn("Rule sets", n_sets,
                             "How many rule sets of the ensemble contain the rule.",
                             decimals=0),
                ViewerColumn("Heaviest set", best_rank,
                             "The heaviest rule set that contains the rule, by its rank in "
                             "its class's ensemble (1: the heaviest); sort by it to read "
                             "the rules set by set.", decimals=0),
                ViewerColumn("Set weight", best_q,
                             "The weight Q of that rule set (Section 4).")]

    def summary_lines(self):
        lines = super().summary_lines()
        lines.append(f"{sum(len(e.rule_sets) for e in self.ensembles)} distinct rule sets")
        sample = getattr(self, "search_rows", None)
        if sample is not None:
            lines.append(f"Rule sets searched on a sample of {sample:,} rows (the "
                         "bound too); probabilities from every row")
        vb = self.voting_bound
        if vb is not None:
            delta = next(iter(self.bounds.values())).delta
            lines.append("Voting error bound (Theorem 2): " + (
                f"{vb:.3f} with probability 1 - {format_number(delta)}" if vb < 1 else
                "vacuous (1): too few rows for this many rule sets; more rows, a "
                "smaller largest rule set or a larger δ (the chance the bound "
                "may fail) tighten it"))
        return lines

    # --- scores and probabilities (Section 4) -----------------------------
    def class_scores(self, X) -> np.ndarray:
        """``(n, n_classes)`` scores ``c(Q_y, x)`` in [-1, 1]. Two-class data
        has one ensemble, for class ``y``; the other class scores ``-c``."""
        cover = covering(self.rule_list, self._model_X(X))  # one pass of the Cython core
        scores = np.full((cover.shape[0], self.n_classes), -1.0)
        for ens, cols in zip(self.ensembles, self._columns):
            c = np.zeros(cover.shape[0])
            for q, idx in zip(ens.weights, cols):
                c += q * np.where(cover[:, idx].any(axis=1), 1.0, -1.0)
            scores[:, ens.cls] = c
        if self.n_classes == 2 and len(self.ensembles) == 1:
            cls = self.ensembles[0].cls
            scores[:, 1 - cls] = -scores[:, cls]
        return scores

    def margins(self, X) -> np.ndarray:
        """The difference of the two highest class scores (two-class: ``2|c|``),
        in [0, 2]."""
        s = np.sort(self.class_scores(X), axis=1)
        return s[:, -1] - s[:, -2]

    def abstains(self, X, theta=None) -> np.ndarray:
        """Boolean: instances the abstaining classifier of Section 5.2 leaves
        unclassified, those whose margin is below ``theta`` (default: the
        model's ``theta``)."""
        theta = self.theta if theta is None else float(theta)
        return self.margins(X) < theta

    def class_probabilities(self, X) -> np.ndarray:
        """``(n, n_classes)``: for each class, ``sum_r Q(r) P_r(y | x)``, the
        predictive probability under the posterior ``Q`` when each rule set
        ``r`` is read as a classifier of three regions, the rows its nearest
        rule misses by 0 literals (it fires), by 1 or by more
        (:func:`nearest_misses`), each with the Laplace estimate of the class
        on the training data (:meth:`fit_leaf_estimates`). Unlike ``(c + 1) /
        2`` it is never 0 or 1, it reflects how pure each region was, and it
        ranks the rows no rule set covers by how near they come. Two
        classes: the other class gets the complement; more: normalised
        (one-vs-all), and a row on which no rule fires gets the training
        prior."""
        X = self._model_X(X)
        # a class without an ensemble (none within a rule budget) scores its prior
        out = np.tile(np.where(np.isin(np.arange(self.n_classes),
                                       [e.cls for e in self.ensembles]), 0.0, self.prior),
                      (X.shape[0], 1))
        fired = np.zeros(X.shape[0], bool)
        for rows in row_blocks(X.shape[0], len(self.rule_list)):
            V = violations(self.rule_list, X[rows])
            fired[rows] = (V == 0).any(axis=1)
            for ens, cols in zip(self.ensembles, self._columns):
                out[rows, ens.cls] = self._ensemble_probability(ens, cols, V)
        if self.n_classes == 2 and len(self.ensembles) == 1:
            cls = self.ensembles[0].cls
            out[:, 1 - cls] = 1 - out[:, cls]
            return out
        total = out.sum(axis=1, keepdims=True)
        # more classes: where no rule set of any class fires, the ensembles
        # say little about the row (e.g. all its values unknown), so the
        # row gets the training prior; unless a class has no ensemble (a
        # rule budget), when not firing is what the others say
        every = all(c in {e.cls for e in self.ensembles}
                    for c in np.flatnonzero(self.class_distribution > 0))
        silent = (~fired[:, None] & every) | (total <= 0)
        return np.where(silent, self.prior, out / np.where(total > 0, total, 1))

    @staticmethod
    def _ensemble_probability(ens, cols, V) -> np.ndarray:
        """``sum_r Q(r) P_r(cls | x)`` of one ensemble on rows with failed
        literals ``V`` (summed rule set by rule set, in their order)."""
        p = np.zeros(V.shape[0])
        for q, estimate in zip(ens.weights, region_estimates(ens, V, cols)):
            p += q * estimate
        return p

    def fit_leaf_estimates(self, X, y, w):
        """Each rule set's Laplace estimates per region (:func:`leaf_estimates`)
        from the training rows ``X`` (model domain), class codes ``y`` and
        weights ``w`` (scaled by the caller to sum to the number of examples
        of positive weight, as the searches' errors are)."""
        w = np.asarray(w, dtype=float)
        counts = {id(ens): np.zeros((len(ens.rule_sets), N_REGIONS, 2))
                  for ens in self.ensembles}
        for rows in row_blocks(X.shape[0], len(self.rule_list)):
            V = violations(self.rule_list, X[rows])
            for ens, cols in zip(self.ensembles, self._columns):
                pos = np.where(y[rows] == ens.cls, w[rows], 0.0)
                neg = w[rows] - pos
                c = counts[id(ens)]
                regions = rule_set_regions(V, cols)
                for r, g in enumerate(regions):
                    c[r, :, 0] += np.bincount(g, pos, N_REGIONS)
                    c[r, :, 1] += np.bincount(g, neg, N_REGIONS)
        for ens in self.ensembles:
            ens.leaf = leaf_estimates(counts[id(ens)])

    def explain(self, data) -> list[Explanation]:
        """Per row, what every rule set whose rule fires adds to its class
        beyond an even split, ``Q(r) (P_r(y | x) - 1/2)``, under its first
        firing rule (rule sets sharing that rule summed): positive where the
        region the rule puts the row in favours the class, negative where it
        does not; the even halves ``Q(r) / 2`` and the rule sets that do not
        fire (their nearer regions) in ``base``; ``combine="sums"``
        (:class:`base.Explanation`). Two
        classes: the other class gets the complement (its column the
        negatives). Rows the model answers with the prior (nothing fires,
        abstention): no rules, ``base`` the prior."""
        from .rules import violations
        X = self.model_X(data)
        C = self.n_classes
        V = violations(self.rule_list, X)
        two = C == 2 and len(self.ensembles) == 1
        # the rows class_probabilities and predict answer with the prior
        abstains = self.abstains(X) if self.theta > 0 else np.zeros(X.shape[0], bool)
        every = all(c in {e.cls for e in self.ensembles}
                    for c in np.flatnonzero(self.class_distribution > 0))
        silent = ~(V == 0).any(axis=1) & every & (not two)
        # Q(r) P_r(cls | x) of every rule set on every row, from its region
        shares = [np.asarray(ens.weights, dtype=float)[:, None] * region_estimates(ens, V, cols)
                  for ens, cols in zip(self.ensembles, self._columns)]
        out = []
        for i in range(X.shape[0]):
            base = np.where(np.isin(np.arange(C), [e.cls for e in self.ensembles]),
                            0.0, self.prior)
            parts = {}
            Vi = V[i:i + 1]
            for ens, cols, share in zip(self.ensembles, self._columns, shares):
                for r, idx in enumerate(cols):
                    value = share[r, i]
                    firing = [k for k in idx if Vi[0, k] == 0]
                    if firing:  # its mass beyond an even split, on its first firing rule
                        even = 0.5 * float(ens.weights[r])
                        row = parts.setdefault(int(firing[0]), np.zeros(C))
                        row[ens.cls] += value - even
                        base[ens.cls] += even
                    else:
                        base[ens.cls] += value
            rules = np.array(sorted(parts), dtype=int)
            contributions = np.array([parts[k] for k in rules]).reshape(-1, C)
            if two:
                cls = self.ensembles[0].cls
                base[1 - cls] = 1 - base[cls]
                contributions[:, 1 - cls] = -contributions[:, cls]
            if abstains[i] or silent[i] or (not two and base.sum() + contributions.sum() <= 0):
                rules, contributions, base = np.zeros(0, int), np.zeros((0, C)), self.prior.copy()
            out.append(Explanation(rules, contributions, base, "sums", self.prior.copy(),
                                   base_label="the rule sets none of whose rules fire on the row "
                                              "(the regions their rules miss it by)"))
        return out

    def predict(self, X):
        p = self.class_probabilities(X)
        if self.theta > 0:
            p[self.abstains(X)] = self.prior
        return p

    def abstention_curve(self, data: Table, thetas=None) -> list[dict]:
        """For each ``theta``: the share of ``data`` the model abstains on
        and its accuracy and error on the rest (Section 5.2, Fig. 1), the
        predicted class the highest score (ties as in prediction:
        :func:`base.argmax_with_ties`). Rows
        count by their weight; rows with an unknown class (or a value the
        model's class does not have) are left out, and the classes are
        matched to the model's by value name (:func:`tables.class_codes`)."""
        thetas = np.linspace(0, 2, 21) if thetas is None else np.asarray(thetas, float)
        y = class_codes(data, self.domain.class_var)
        w = (np.asarray(data.W, dtype=float).reshape(-1) if data.has_weights()
             else np.ones(len(data)))
        rows = np.flatnonzero((y >= 0) & (w > 0))
        scores = self.class_scores(data[rows]) if len(rows) else \
            np.zeros((0, self.n_classes))
        y, w = y[rows], w[rows]
        s = np.sort(scores, axis=1)
        margin = s[:, -1] - s[:, -2]
        # ties (e.g. no rule set fires) to the class more prevalent in
        # training, not to the class listed first
        correct = argmax_with_ties(scores, self.class_preference) == y
        total = w.sum()
        out = []
        for theta in thetas:
            kept = margin >= theta
            weight = w[kept].sum()
            acc = float(w[kept & correct].sum() / weight) if weight > 0 else float("nan")
            out.append(dict(theta=float(theta),
                            abstention=float(1 - weight / total) if total > 0 else float("nan"),
                            accuracy=acc, error=1 - acc if weight > 0 else float("nan"),
                            error_all=(float(w[kept & ~correct].sum() / total) if total > 0
                                       else float("nan"))))
        return out

    # --- bounds (Section 5) ------------------------------------------------
    @property
    def voting_bound(self) -> float | None:
        """Theorem 2 for two-class data: ``l_V <= b_1 + b_2``. With one
        ensemble, the other class's is its mirror image with the same bound,
        so ``l_V <= 2 b``. ``None`` for more than two classes."""
        if self.n_classes != 2 or not self.bounds:
            return None
        b = [bd.bound for bd in self.bounds.values()]
        return min(1.0, 2 * b[0] if len(b) == 1 else sum(b))

    def abstaining_bound(self, theta: float) -> float | None:
        """Theorem 3 (our derivation; the paper's statement is garbled): the
        probability of a wrong, non-abstained prediction is at most
        ``2 (b_1 + b_2) / (2 + theta)``, from Markov's inequality on
        ``C = 2 - margin`` as in the proof of Theorem 2. Equals
        :attr:`voting_bound` at ``theta = 0``."""
        vb = self.voting_bound
        if vb is None:
            return None
        b = [bd.bound for bd in self.bounds.values()]
        total = 2 * b[0] if len(b) == 1 else sum(b)
        return min(1.0, 2 * total / (2 + float(theta)))

    # --- display -----------------------------------------------------------
    def _lit_str(self, lit):
        return Condition(*lit).to_str(self.domain)

    def describe(self, top=5, top_literals=10) -> str:
        """Per class, the heaviest ``top`` rule sets, each with its weight
        ``Q``, its training errors and its rules (a rule set fires when any
        of its rules fires), and the literals carrying most ensemble weight
        (a consensus view)."""
        cv = self.domain.class_var
        n_rules, n_conditions = self.size
        lines = [f"SLSEnsembleModel: {counted(n_rules, 'distinct rules')}, "
                 f"{counted(n_conditions, 'conditions')}, in "
                 f"{counted(sum(len(e.rule_sets) for e in self.ensembles), 'weighted rule sets')} "
                 "(a rule set fires when any of its rules fires)"]
        for ens, cols in zip(self.ensembles, self._columns):
            name = cv.values[ens.cls]
            lines.append(f"\nclass {cv.name} = {name}: {counted(len(ens.rule_sets), 'rule sets')}")
            bd = self.bounds.get(ens.cls)
            if bd is not None:
                lines.append(f"  Gibbs training error {bd.gibbs_error:.3f}; "
                             + _bound_text(bd.bound, bd.delta))
            order = np.argsort(-ens.weights, kind="stable")
            for rank, i in enumerate(order[:top], start=1):
                lines.append(f"  rule set {rank}: weight Q {ens.weights[i]:.3f}, "
                             f"{format_number(round(ens.errors[i], 3))} training errors")
                for k in cols[i]:
                    rule = self.rule_list[int(k)]
                    lines.append(f"    {int(k) + 1}. " + rule_text(rule, self.domain, counts=True))
                if not len(cols[i]):
                    lines.append("    (empty: never fires)")
            if len(order) > top:
                lines.append(f"  ... and {len(order) - top} more rule sets")
            lits = ens.top_literals(top_literals)
            if lits:
                lines.append("  conditions by ensemble weight: " + ", ".join(
                    f"{self._lit_str(lit)} ({q:.2f})" for lit, q in lits))
        if self.voting_bound is not None:
            lines.append("\nvoting bound (Theorem 2): " + (
                f"{self.voting_bound:.3f}" if self.voting_bound < 1 else
                "vacuous (1: too few rows for this many rule sets)"))
        return "\n".join(lines)

    def __str__(self):
        return self.describe()


def _bound_text(bound: float, delta: float) -> str:
    """A PAC-Bayes bound in words: its value, or that it says nothing."""
    if bound >= 1:
        return (f"PAC-Bayes error bound (confidence 1 - {format_number(delta)}) vacuous: "
                "1, the data are too few for this many rule sets")
    return f"PAC-Bayes error bound {bound:.3f} (confidence 1 - {format_number(delta)})"


#: the training rows a rule budget's choice of rule sets reads at most (a
#: stratified sample beyond)
BUDGET_ROWS = 20_000
#: ``max_rules="auto"``: the rules of a two-class model, and of each class
#: of a many-class one (on the 12 two-class sets of the quality protocol the
#: whole ensemble has 382 rules on average, 50 rules keep its AUC within
#: 0.003: doc/sls.md, "Readable by default")
AUTO_RULES_TWO_CLASSES = 50
AUTO_RULES_PER_CLASS = 25


def nearest_ensemble_path(E, q, T, w, rule_sets, max_rules):
    """One class's rule sets under a budget, picked one at a time so that
    the kept sets' ``Q``-weighted estimate ranks the rows as the whole
    ensemble's does (doc/sls.md, "Rule budgets").

    ``E[r]``: rule set ``r``'s estimate on the rows (its region's Laplace
    estimate), ``q`` its weight, ``T = q @ E`` the whole ensemble's
    estimate, ``w`` the rows' weights. The loss of a selection is what of
    ``T`` a linear function of its estimate does not explain, ``var(T) (1 -
    corr²)`` (weighted): scale-free, so it rewards a selection that ranks
    and spreads the rows as the ensemble does, whatever its level. Each
    pick is the rule set that lowers the loss most per rule it adds (a set
    whose rules are all kept already: per quarter rule) among those whose
    rules fit ``max_rules``; the path stops where nothing lowers it.
    Returns the picked indices in order and, after each pick, the distinct
    rules used and the loss; the loss with none (``var(T)``) first, at 0
    rules."""
    w = np.asarray(w, dtype=float) / np.sum(w)
    Ec = E - (E @ w)[:, None]
    Tc = T - float(T @ w)
    cET = Ec @ (w * Tc)                   # cov(E_r, T)
    G = (Ec * w) @ Ec.T                   # cov(E_r, E_s)
    vT = float(Tc @ (w * Tc))
    cUT, vU, cUE = 0.0, 0.0, np.zeros(len(q))   # of U = the kept sets' sum q_r E_r
    loss, path, points = vT, [], [(0, vT)]
    distinct = {rule: i for i, rule in enumerate(sorted({r for rs in rule_sets for r in rs}))}
    member = np.zeros((len(rule_sets), len(distinct)), dtype=np.int32)  # set x rule
    for r, rs in enumerate(rule_sets):
        member[r, [distinct[rule] for rule in rs]] = 1
    unkept = np.ones(len(distinct), dtype=np.int32)
    n_kept = 0
    left = np.ones(len(q), bool)
    while left.any():
        new = member @ unkept  # the rules each set would add
        ok = left & (n_kept + new <= max_rules)
        if not ok.any():
            break
        cov = cUT + q * cET
        var = vU + 2 * q * cUE + q * q * np.diag(G)
        losses = np.where(var > 0, vT - cov * cov / np.where(var > 0, var, 1), vT)
        gain = np.where(ok, (loss - losses) / np.maximum(new, 0.25), -np.inf)
        r = int(np.argmax(gain))
        if gain[r] <= vT * 1e-12:
            break
        cUT, vU, cUE = cov[r], var[r], cUE + q[r] * G[r]
        loss = float(losses[r])
        n_kept += int(new[r])
        unkept[member[r] > 0] = 0
        left[r] = False
        path.append(r)
        points.append((n_kept, loss))
    return path, points


def keep_within_budget(found: dict, estimates, max_rules: int) -> dict:
    """The rule sets the ensembles keep when all of them together hold at
    most ``max_rules`` distinct rules (per class's ensemble): ``found[c]``
    maps class ``c``'s distinct rule sets to ``(k, regions)``,
    ``estimates(c) = (E, q, w)`` their estimates on the training rows (in
    the order of ``found[c]``), weights and the rows' weights
    (:meth:`SLSEnsembleLearner.budget_estimates`).

    Each class's path (:func:`nearest_ensemble_path`) gives its loss with
    each number of rules; the budget is shared among the classes by the
    least summed loss, exact by :func:`rules.allocate_budget` (as SLIPPER
    shares its rounds), and each class keeps its path's sets within its
    share. One ensemble (two classes) gets the whole budget."""
    paths, curves, prior = {}, [], []
    for c, sets in found.items():
        if not sets:
            continue
        rule_sets = list(sets)
        E, q, w = estimates(c)
        paths[c] = (rule_sets, *nearest_ensemble_path(E, q, q @ E, w, rule_sets, max_rules))
    width = max([p[0] for _, _, points in paths.values() for p in points] + [1])
    for c, (_, _, points) in paths.items():
        prior.append(points[0][1])
        curves.append([min(loss for used, loss in points if used <= n)
                       for n in range(1, width + 1)])
    shares = (allocate_budget(np.array(curves), prior, max_rules) if len(paths) > 1
              else [max_rules] * len(paths))
    kept = {c: {} for c in found}
    for (c, (rule_sets, path, points)), share in zip(paths.items(), shares):
        n = max(i for i, (used, _) in enumerate(points) if used <= share)
        kept[c] = {rule_sets[r]: found[c][rule_sets[r]] for r in path[:n]}
    return kept


# --------------------------------------------------------------- the learner

#: SLS runs per parallel task
SEARCHES_PER_TASK = 5


def _search_batch(sd: SLSData, pos_bits, k, seeds, max_steps, p_noise, p_restart,
                  check=None, rows=None):
    """``len(seeds)`` independent SLS runs for one class and one ``k``:
    ``(rules, regions)`` of each (see :func:`core.sls_search`); ``check``
    before each (:meth:`RuleLearner.stop_check`). ``rows``: the searches run
    on these examples of ``sd`` only (``pos_bits`` then marks the positives
    among them), see :meth:`SLSEnsembleLearner.rest_samples`."""
    if rows is not None:
        sd = SLSData(sd.codes_arr[rows], sd.n_bins_arr, sd.ordinal_arr, sd.w_arr[rows],
                     simd=sd.level)
    out = []
    for seed in seeds:
        if check is not None:
            check()
        rules, _, _, regions, _ = sls_search(sd, pos_bits, k, max_steps, p_noise,
                                             p_restart, int(seed))
        out.append((rules, regions))
    return out


class SLSEnsembleLearner(RuleLearner):
    """Rückert & Kramer (2006), Algorithm 2: ensembles of k-term DNF rule
    sets found by stochastic local search.

    For each class (one for two classes) and each size ``k`` up to
    ``k_max``, independent local searches (Algorithm 1) each find a rule
    set; the ensemble weighs a rule set with ``e(r)`` training errors by
    ``Q(r) ∝ rho^e(r)``, and its PAC-Bayes bounds hold with confidence
    ``1 - delta``. Numeric attributes are cut into equal-frequency
    intervals (:class:`SLSPreprocessor`). Every search has its own seed
    derived from ``random_state``, so the model does not depend on
    ``n_jobs`` (doc/sls.md).

    Parameters
    ----------
    k_max : int in [1, 1000], default 8
        The largest rule set (rules per k-term DNF).
    n_rule_sets : int in [1, 1000000], default 20
        Rule sets sampled per size ``k`` (the paper's ``o``).
    rho : float in (0, 1], default 0.9
        White-noise parameter of the weights ``Q(r) ∝ rho^e(r)``.
    max_steps : int in [0, 1000000000], default 5000
        Steps of one stochastic local search.
    p_noise : float in [0, 1], default 0.2
        Probability of a random move per step.
    p_restart : float in [0, 1], default 0.01
        Probability of a restart per step.
    n_intervals : int in [2, 10000], default 10
        Equal-frequency intervals of a numeric attribute.
    numeric : {"thresholds", "intervals"}, default "thresholds"
        Rules test a numeric attribute's cuts (``A < t`` / ``A >= t``) or
        one of its intervals (the paper's encoding).
    theta : float in [0, 2], default 0.0
        Abstain when the margin is below this (0: never abstain; an
        abstained row gets the training prior).
    delta : float in (0, 1), default 0.05
        Confidence of the PAC-Bayes bounds.
    max_rules : int >= 1, "auto" or None, default "auto"
        At most this many distinct rules in the rule sets kept: per class
        the rule sets whose estimate ranks the training rows nearest the
        whole ensemble's, the budget shared among the classes
        (:func:`keep_within_budget`). ``"auto"``: a model a person can
        read, :data:`AUTO_RULES_TWO_CLASSES` rules on two classes and
        :data:`AUTO_RULES_PER_CLASS` per class on more
        (:meth:`rule_budget`); ``None``: the whole ensemble, every rule set
        the searches found (the paper's model: hundreds of rules on a few
        hundred rows).
    rho_rows : int >= 1 or None, default 1000
        Up to this many training examples an error counts 1 in ``e(r)``;
        on more, the errors are scaled to this many, so the weights follow
        the error rate (``None``: the paper's count on any number).
    search_rows : int >= 1 or None, default 30000
        On more rows, the local searches (and the rule sets' errors and
        bounds) use a stratified sample of this many; the probabilities'
        leaf estimates use every row (``None``: every row). A step of a
        search costs in proportion to its rows; on real data of 36,000 to
        100,000 rows a sample of 30,000 gave the held-out AUC of every row
        within the searches' own noise (doc/sls.md, "Departures").
    rest_ratio : float > 0 or None, default 2.0
        More than two classes: each class's searches (five at a time) run
        on the class's examples and a stratified random sample of this many
        times as many of the other classes' examples (at least
        ``rest_min``), drawn anew for each five, so a small class's rule
        sets are not judged mostly by the rest (``None``: every example,
        as on two classes).
    rest_min : int >= 1, default 500
        The sample of the other classes has at least this many examples
        (all of them where they are no more).
    n_jobs : int or None, default None
        Parallel searches through joblib (threads: the search releases the
        GIL; ``None``: one job, unless a ``joblib.parallel_config`` says
        otherwise, e.g. a Dask cluster); the model does not depend on it.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of every search.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "SLS rule-set ensemble"
    __returns__ = SLSEnsembleModel
    search_key = 0x534C53  # the search sample's seed (kept from earlier releases)

    parameters = params.ParameterTable(
        params.integer("k_max", "the largest rule set", 1, 1000, spin=(1, 30)),
        params.integer("n_rule_sets", "rule sets sampled per size", 1, 10 ** 6,
                       spin=(1, 500)),
        params.number("rho", "white-noise parameter of the rule sets' weights", 0, 1,
                      low_open=True, spin=(0.01, 1.0)),
        params.integer("max_steps", "steps of one local search", 0, 10 ** 9,
                       spin=(0, 1_000_000)),
        params.number("p_noise", "probability of a random move per step", 0, 1),
        params.number("p_restart", "probability of a restart per step", 0, 1),
        params.integer("n_intervals", "equal-frequency intervals of a numeric attribute",
                       2, 10_000, spin=(2, 100)),
        params.choice("numeric", "rules test a numeric attribute's cuts or intervals",
                      ("thresholds", "intervals")),
        params.number("theta", "abstain when the margin is below this", 0, 2),
        params.number("delta", "confidence of the PAC-Bayes bounds", 0, 1, low_open=True,
                      high_open=True, spin=(0.001, 0.5)),
        params.max_rules("at most this many distinct rules in the rule sets kept "
                         "('auto': 50 on two classes, 25 per class on more)",
                         words=("auto",)),
        params.integer("rho_rows", "an error counts 1 up to this many rows", 1, none=True),
        params.search_rows("rows of the local searches' sample"),
        params.number("rest_ratio", "many classes: the other classes' sample per example "
                                    "of the class", 0, low_open=True, none=True),
        params.integer("rest_min", "the least size of the other classes' sample", 1),
        params.n_jobs(),
        params.random_state("seed of every search"),
    )

    def __init__(self, k_max=8, n_rule_sets=20, rho=0.9, max_steps=5000,
                 p_noise=0.2, p_restart=0.01, n_intervals=10, numeric="thresholds",
                 theta=0.0,
                 delta=0.05, max_rules="auto", rho_rows=1000, search_rows=30_000,
                 rest_ratio=2.0, rest_min=500, n_jobs=None, random_state=0,
                 preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())

    @property
    def active_preprocessors(self):
        yield from super().active_preprocessors
        yield SLSPreprocessor(self.n_intervals, self.numeric)

    def rule_budget(self, n_classes: int) -> int | None:
        """The most distinct rules the model keeps on data of ``n_classes``
        classes: ``max_rules``; with ``"auto"``,
        :data:`AUTO_RULES_TWO_CLASSES` on two classes and
        :data:`AUTO_RULES_PER_CLASS` times the classes on more (doc/sls.md,
        "Readable by default"); ``None``: no limit."""
        if self.max_rules != "auto":
            return self.max_rules
        if n_classes <= 2:
            return AUTO_RULES_TWO_CLASSES
        return AUTO_RULES_PER_CLASS * n_classes

    def _ensemble_classes(self, dist, values):
        """One class for two-class data (the less frequent; a tie: the one
        that loses ties of predictions,
        :func:`~orangecontrib.rules.base.class_preference`), every class
        otherwise (one-vs-all), in the order of their names
        (:func:`~orangecontrib.rules.base.in_name_order`: the order the
        seeds are handed out in)."""
        if len(dist) == 2:
            return [int(np.argmin(class_preference(dist, values)))]
        return in_name_order(range(len(dist)), values)

    def rest_samples(self, y, tasks, values) -> list:
        """For each task ``(c, k, seeds)`` the rows its searches run on:
        ``None`` (every row: two classes, ``rest_ratio=None``, or a rest no
        larger than the sample), else the sorted indices of class ``c``'s
        rows and a stratified random sample of ``rest_ratio`` times as many
        of the other classes' rows, at least ``rest_min`` (:func:`tables.stratified_rows`, the
        classes drawing in name order), a new one for every task, seeded by
        ``random_state``, the learner's :attr:`search_key` and the task's
        number (doc/sls.md, "Many classes")."""
        if self.rest_ratio is None or len({c for c, _, _ in tasks}) < 2:
            return [None] * len(tasks)
        split = {}  # per class: its rows, the others, the sample's size, their classes' order
        for c in {c for c, _, _ in tasks}:
            pos, rest = np.flatnonzero(y == c), np.flatnonzero(y != c)
            size = max(int(round(self.rest_ratio * len(pos))), self.rest_min)
            split[c] = (pos, rest, size, in_name_order(np.unique(y[rest]).tolist(), values))
        out = []
        for i, (c, _, _) in enumerate(tasks):
            pos, rest, size, order = split[c]
            if size >= len(rest):
                out.append(None)
                continue
            seed = np.random.SeedSequence(self.random_state, spawn_key=(self.search_key, 1, i))
            drawn = rest[stratified_rows(y[rest], size, np.random.default_rng(seed), order)]
            out.append(np.sort(np.concatenate([pos, drawn])))
        return out

    def _model(self, data, enc, found, classes, per_error, searched, log_r, leaf_scale,
               full=None):
        """The model of the rule sets ``found`` (per class: ``(k, regions)``),
        their weights ``Q(r) ∝ rho^e(r)``, bounds and leaf estimates.
        ``full``: a model of more rule sets of the same fit (the whole
        ensemble, of which ``found`` keeps some under a budget), whose
        rules' class counts and rule sets' leaf estimates are taken over:
        each is counted on the training rows by itself, so they are the
        ones a count would give."""
        ensembles, bounds = [], {}
        for c in classes:
            rule_sets = list(found[c])
            if not rule_sets:  # none within the budget: the class has no ensemble
                continue
            regions = np.array([found[c][rs][1] for rs in rule_sets])
            errors = regions[:, 1] + regions[:, 2]  # covered negatives, uncovered positives
            q = white_noise_weights(errors, self.rho, per_error[c])
            ensembles.append(Ensemble(c, rule_sets, q, errors,
                                      np.array([found[c][rs][0] for rs in rule_sets])))
            nz = q[q > 0]
            kl = max(0.0, log_r + float(np.sum(nz * np.log(nz))))
            mc = searched[c]
            bounds[c] = EnsembleBound(float(np.dot(q, errors)) / mc, kl,
                                      pac_bayes_epsilon(kl, mc, self.delta), mc, self.delta)
        model = SLSEnsembleModel(data.domain, ensembles, enc.class_distribution(), bounds,
                                 theta=self.theta, k_max=self.k_max)
        if full is not None:
            dists = {(r.conditions, r.head): r.class_distribution for r in full.rule_list}
            for rule in model.rule_list:
                rule.class_distribution = dists[(rule.conditions, rule.head)].copy()
            leaves = {(e.cls, rs): leaf for e in full.ensembles
                      for rs, leaf in zip(e.rule_sets, e.leaf)}
            for ens in model.ensembles:
                ens.leaf = np.array([leaves[(ens.cls, rs)] for rs in ens.rule_sets]
                                    ).reshape(-1, N_REGIONS)
            return model
        model.set_rule_distributions(data, enc)
        model.fit_leaf_estimates(data.X, enc.y, enc.w * leaf_scale)  # sparse stays sparse
        return model

    def budget_estimates(self, model, data, enc, found):
        """For :func:`keep_within_budget`: a function of a class ``c`` giving
        ``(E, q, w)``, each of its rule sets' estimate on the training rows
        (a stratified sample of :data:`BUDGET_ROWS` beyond that many, seeded
        by ``random_state``; in the order of ``found[c]``), its weight in
        the whole ensemble and the rows' weights. One class at a time,
        its rules' violations by blocks of rows, so the memory is that of
        one class's estimates."""
        rows = np.arange(len(enc.y))
        if len(rows) > BUDGET_ROWS:
            rng = np.random.default_rng(np.random.SeedSequence(self.random_state,
                                                               spawn_key=(self.search_key, 2)))
            rows = stratified_rows(enc.y, BUDGET_ROWS, rng)
        X, w = data.X[rows], enc.w[rows]
        of_class = {ens.cls: (ens, cols) for ens, cols in zip(model.ensembles, model._columns)}

        def estimate(c):
            ens, cols = of_class[c]
            used = np.unique(np.concatenate([np.asarray(col, dtype=np.intp) for col in cols]))
            at = np.zeros(len(model.rule_list), dtype=np.intp)
            at[used] = np.arange(len(used))
            rules = [model.rule_list[k] for k in used]
            index = {rs: r for r, rs in enumerate(ens.rule_sets)}
            order = [index[rs] for rs in found[c]]
            E = np.empty((len(order), len(rows)))
            local = [at[np.asarray(col, dtype=np.intp)] for col in cols]
            for block in row_blocks(len(rows), len(rules)):
                E[:, block] = region_estimates(ens, violations(rules, X[block]), local)[order]
            return E, ens.weights[order], w
        return estimate

    def fit_rules(self, data, enc):
        y, w = enc.y, enc.w
        codes, n_bins, ordinal, cuts = interval_codes(data, enc, self.n_intervals)
        # leaf estimates on every row: the weights rescaled to sum to their number
        leaf_scale = np.count_nonzero(w > 0) / w.sum()
        sample = self.search_sample(y, data.domain.class_var.values)
        if sample is not None:  # the searches, their errors and bounds on the sample
            codes, y, w = codes[sample], y[sample], w[sample]
        sd = SLSData(codes, n_bins, ordinal, w)  # one build for every search
        m = int(np.count_nonzero(w > 0))
        scale = m / w.sum()  # errors in examples: the weights rescaled to sum to m
        dist = enc.class_distribution()
        classes = [c for c in self._ensemble_classes(dist, data.domain.class_var.values)
                   if dist[c] > 0]
        ks = range(1, self.k_max + 1)
        pairs = [(c, k) for c in classes for k in ks]
        root = np.random.SeedSequence(self.random_state)
        children = root.spawn(len(pairs) * self.n_rule_sets)
        seeds = [[int(children[i * self.n_rule_sets + j].generate_state(1, np.uint64)[0])
                  for j in range(self.n_rule_sets)] for i in range(len(pairs))]
        # a task: a few searches of one class and k (small enough to keep
        # every worker busy to the end, large enough to be worth sending)
        tasks = [(c, k, seeds[i][j:j + SEARCHES_PER_TASK]) for i, (c, k) in enumerate(pairs)
                 for j in range(0, self.n_rule_sets, SEARCHES_PER_TASK)]
        rows = self.rest_samples(y, tasks, data.domain.class_var.values)
        pos_bits = {c: pack_bits((y == c).astype(np.uint8)) for c in classes}
        task_pos = [pos_bits[c] if r is None else pack_bits((y[r] == c).astype(np.uint8))
                    for (c, _, _), r in zip(tasks, rows)]
        check = self.stop_check()  # a Cancel stops the tasks between searches
        jobs = (delayed(_search_batch)(sd, task_pos[i], k, chunk, self.max_steps,
                                       self.p_noise, self.p_restart, check, rows[i])
                for i, (c, k, chunk) in enumerate(tasks))
        found = {c: {} for c in classes}  # distinct rule sets: (first k, regions)
        searched = dict.fromkeys(classes, m)  # the examples a class's errors count on
        self.progress(0.0, "Searching rule sets")
        results = parallel_map(jobs, self.n_jobs)
        for i, batch in enumerate(results):  # in task order: the first k of a rule set
            c, k, _ = tasks[i]
            task_scale = scale
            if rows[i] is not None:  # errors in the sample's examples
                wr = w[rows[i]]
                searched[c] = int(np.count_nonzero(wr > 0))
                task_scale = searched[c] / wr.sum()
            for rules, regions in batch:
                rs = canonical_rule_set(rules, ordinal, n_bins, cuts)
                found[c].setdefault(rs, (k, regions * task_scale))
            self.progress((i + 1) / len(tasks), "Searching rule sets: "
                          f"{sum(len(f) for f in found.values())} distinct so far")
        log_r = log_n_rule_sets(sd.rule_choices(), self.k_max)
        # the searches' data is done with: freed before the model counts its
        # rules' coverage (on sparse data that makes the rules' columns dense)
        del sd, codes, jobs, results, rows
        per_error = {c: error_share(searched[c], self.rho_rows) for c in classes}
        model = self._model(data, enc, found, classes, per_error, searched, log_r, leaf_scale)
        budget = self.rule_budget(len(dist))
        if budget is not None and model.size[0] > budget:
            found = keep_within_budget(found, self.budget_estimates(model, data, enc, found),
                                       budget)
            model = self._model(data, enc, found, classes, per_error, searched, log_r,
                                leaf_scale, full=model)
        model.search_rows = m if sample is not None else None
        return model
