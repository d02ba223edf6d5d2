"""Rule learning with extreme-value-corrected quality (Možina et al.).

``docs/algorithms.md`` §2.1-2.3. A candidate rule for class ``c`` covers
``n`` (weighted) examples, ``s`` of class ``c``; the data has ``N`` and ``S``.

1. ``LRS`` by eq. 14 (0 if the rule is no better than the prior);
2. ``P_a = 1 - G(LRS; mu(L), beta(L))`` with the Gumbel CDF ``G`` of the
   best LRS that a search of depth ``L`` finds on data whose class was
   permuted (the paper's Fig. 8, :func:`fit_gumbel`);
3. ``P_a^s = min(1, 2 P_a)``;
4. ``LRS_bar = chi2.isf(P_a^s, 1)``;
5. ``s_bar`` with ``LRS(s_bar, n) = LRS_bar`` (Brent), quality ``q = s_bar / n``.

Rules are found by a CN2-style beam search per class with covering
(:func:`beam_search`); the same search, with plain LRS as the quality and
without covering, fits the Gumbel parameters on permuted classes. An
m-estimate quality (eq. 13) is the alternative the paper compares with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import erfc, ndtri

from .base import RuleLearner
from .core import (OP_EQ, OP_GE, OP_LE, class_weights, continuous_refinements,
                   corrected_positives, discrete_refinements, lrs)
from .rules import Condition, Rule
from .scoring import RuleSetModel, check_strategy

EULER_GAMMA = 0.5772156649015329
OP_NAMES = {OP_EQ: "==", OP_LE: "<=", OP_GE: ">="}
#: a Gumbel scale below this means the permuted searches found no optimism
TINY_BETA = 1e-6


# ------------------------------------------------------------ the correction
def chi2_sf(x) -> np.ndarray:
    """Survival function of chi-square with 1 degree of freedom,
    ``P(X > x) = erfc(sqrt(x / 2))`` (a ufunc: scipy.stats' generic
    ``chi2.sf`` costs more than the whole search step)."""
    return erfc(np.sqrt(np.maximum(np.asarray(x, dtype=float), 0.0) / 2.0))


def chi2_isf(p) -> np.ndarray:
    """Inverse of :func:`chi2_sf`: ``x`` with ``P(X > x) = p``, via the normal
    quantile, ``x = ndtri(p / 2)^2``; ``p = 1`` gives 0."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    return np.where(p >= 1.0, 0.0, ndtri(p / 2.0) ** 2)


def likelihood_ratio(s, n, S, N) -> np.ndarray:
    """LRS of eq. 14 (Dunning's 2x2 likelihood ratio), vectorised."""
    s = np.atleast_1d(np.asarray(s, dtype=np.float64))
    n = np.atleast_1d(np.asarray(n, dtype=np.float64))
    return lrs(np.ascontiguousarray(s), np.ascontiguousarray(n), float(S), float(N))


def gumbel_sf(x, mu, beta) -> np.ndarray:
    """``1 - G(x)``, ``G(x) = exp(-exp(-(x - mu) / beta))`` (step 2)."""
    return -np.expm1(-np.exp(-(np.asarray(x, dtype=float) - mu) / beta))


def evc_quality(s, n, S, N, mu, beta):
    """Steps 1-5: ``(q, P_a, LRS)`` for rules with counts ``s`` of ``n``.

    With ``beta <= TINY_BETA`` (no optimism measured) ``P_a`` is the plain
    chi-square tail of ``LRS`` and the quality is the relative frequency.
    """
    s = np.atleast_1d(np.asarray(s, dtype=np.float64))
    n = np.atleast_1d(np.asarray(n, dtype=np.float64))
    L = likelihood_ratio(s, n, S, N)
    if beta > TINY_BETA:
        p_a = gumbel_sf(L, mu, beta)
        lrs_bar = chi2_isf(np.minimum(1.0, 2.0 * p_a))   # steps 3 and 4
    else:
        p_a = chi2_sf(L)
        lrs_bar = L
    s_bar = corrected_positives(s, n, float(S), float(N),
                                np.ascontiguousarray(lrs_bar, dtype=np.float64))
    prior = S / N if N > 0 else 0.0
    q = np.where(n > 0, s_bar / np.where(n > 0, n, 1), prior)
    return q, p_a, L


def m_estimate(s, n, prior, m) -> np.ndarray:
    """Eq. 13: ``(s + m p_a) / (n + m)``."""
    s = np.asarray(s, dtype=float)
    n = np.asarray(n, dtype=float)
    return (s + m * prior) / np.maximum(n + m, 1e-300)


@dataclass
class GumbelParameters:
    """``mu[c, L-1]``, ``beta[c, L-1]`` for target class ``c`` and rule length
    ``L``; ``samples[c]`` the best LRS of each permutation (``(n_perm, L)``)."""

    mu: np.ndarray
    beta: np.ndarray
    n_permutations: int = 0
    samples: list = field(default_factory=list, repr=False)

    def of(self, cls: int, length: int):
        """Parameters for a rule of ``length`` conditions (the longest fitted
        length is used beyond the fitted range)."""
        L = min(max(int(length), 1), self.mu.shape[1]) - 1
        return float(self.mu[cls, L]), float(self.beta[cls, L])

    @property
    def max_rule_length(self) -> int:
        return int(self.mu.shape[1])


def fit_gumbel(best: np.ndarray):
    """Method-of-moments Gumbel fit to the best LRS per permutation.

    ``best[p, L-1]``: best LRS of permutation ``p`` among rules of length
    ``L``; the best among rules of length ``<= L`` is its running maximum.
    ``beta = sqrt(6) sd / pi``, ``mu = mean - 0.5772 beta``, ``mu``
    made non-decreasing in ``L`` (algorithms.md §2.2).
    """
    upto = np.maximum.accumulate(np.asarray(best, dtype=float), axis=1)
    sd = upto.std(axis=0, ddof=1) if len(upto) > 1 else np.zeros(upto.shape[1])
    beta = math.sqrt(6.0) * sd / math.pi
    mu = np.maximum.accumulate(upto.mean(axis=0) - EULER_GAMMA * beta)
    return mu, beta


# ------------------------------------------------------------ the search
@dataclass
class Found:
    """A rule the search found: conditions ``(attr, op, value)`` with the
    domain attribute index, its coverage, counts and quality."""

    conditions: tuple
    mask: np.ndarray
    s: float
    n: float
    q: float
    p: float
    lrs: float


class _Task:
    """What one search needs: encoded data, the target class and the
    pseudo-classes 0 = negative, 1 = covered positive, 2 = not yet covered
    positive, so one kernel pass gives ``s``, ``n`` and the new positives."""

    def __init__(self, enc, y, target, uncovered=None):
        self.enc = enc
        pos = y == target
        self.code = np.where(pos, 1, 0).astype(np.int32)
        if uncovered is None:
            self.code[pos] = 2
        else:
            self.code[pos & uncovered] = 2
        self.w = enc.w
        self.S = float(enc.w[pos].sum())
        self.N = float(enc.w.sum())

    def refinements(self, mask, used):
        """Counts ``(k, 3)`` and ``(attr, op, value)`` of every one-condition
        refinement of the rule covering ``mask``, except conditions on an
        (attribute, operator) the rule already has."""
        enc, cov = self.enc, mask.view(np.uint8)
        attrs, ops, values, counts = [], [], [], []
        if enc.Xd.shape[1]:
            cnt = discrete_refinements(enc.Xd, enc.n_values, self.code, self.w, cov, 3)
            a, v = np.nonzero(cnt.sum(axis=2) > 0)
            attrs.append(enc.disc_attrs[a])
            ops.append(np.full(len(a), OP_EQ))
            values.append(v.astype(float))
            counts.append(cnt[a, v])
        if enc.Xc.shape[1]:
            thr, below, ncand, total = continuous_refinements(
                enc.Xc, enc.order, enc.n_valid, self.code, self.w, cov, 3)
            j, k = np.nonzero(np.arange(thr.shape[1])[None, :] < ncand[:, None])
            for op, cnt in ((OP_LE, below[j, k]), (OP_GE, total[j] - below[j, k])):
                attrs.append(enc.cont_attrs[j])
                ops.append(np.full(len(j), op))
                values.append(thr[j, k])
                counts.append(cnt)
        if not attrs:
            return (np.zeros(0, int), np.zeros(0, int), np.zeros(0),
                    np.zeros((0, 3)))
        attrs, ops = np.concatenate(attrs), np.concatenate(ops)
        values, counts = np.concatenate(values), np.concatenate(counts)
        if used:
            keep = ~np.isin(attrs * 3 + ops, [a * 3 + o for a, o in used])
            attrs, ops, values, counts = attrs[keep], ops[keep], values[keep], counts[keep]
        return attrs, ops, values, counts

    def condition_mask(self, attr, op, value):
        enc = self.enc
        col = enc.attr_col[attr]
        if op == OP_EQ:
            return enc.Xd[:, col] == int(value)
        x = enc.Xc[:, col]
        with np.errstate(invalid="ignore"):
            return x <= value if op == OP_LE else x >= value


def beam_search(task: _Task, quality, *, beam_width=10, max_rule_length=5,
                min_covered_examples=1.0, parent_alpha=1.0, valid=None,
                covering=True):
    """CN2-style beam search for one rule of ``task``'s target class
    (algorithms.md §2.3).

    ``quality(s, n, L)`` returns ``(q, p, lrs)`` for candidates of length
    ``L``. A refinement must change the coverage, cover at least
    ``min_covered_examples`` (weighted), not lower the quality below its
    parent's and, if ``parent_alpha < 1``, be significant against the parent
    (chi-square of the LRS within the parent's coverage). With ``covering``,
    rules must cover a positive not covered yet (refinements of a rule that
    covers none cannot, so such rules leave the beam). ``valid(q, p, s, n)``
    says which candidates may be returned.

    Returns the best valid rule (or ``None``) and, per length, the largest
    LRS of any admissible candidate (the statistic the Gumbel fit needs).
    """
    enc = task.enc
    full = np.ones(enc.n, dtype=bool)
    q0 = float(quality(np.array([task.S]), np.array([task.N]), 1)[0][0])
    beam = [((), full, task.S, task.N, q0, frozenset())]
    best, best_key = None, None
    level_lrs = np.zeros(max_rule_length)
    for L in range(1, max_rule_length + 1):
        parts = []  # per beam rule: its admissible refinements as arrays
        for b, (conds, mask, ps, pn, pq, used) in enumerate(beam):
            attrs, ops, values, counts = task.refinements(mask, used)
            s = counts[:, 1] + counts[:, 2]
            n = counts.sum(axis=1)
            ok = (n >= max(min_covered_examples, 1e-12)) & (n < pn * (1 - 1e-12))
            if covering:
                ok &= counts[:, 2] > 0
            if not ok.any():
                continue
            attrs, ops, values, s, n = attrs[ok], ops[ok], values[ok], s[ok], n[ok]
            q, p, l = quality(s, n, L)
            ok = q >= pq - 1e-12
            if parent_alpha < 1.0:
                ok &= chi2_sf(likelihood_ratio(s, n, ps, pn)) <= parent_alpha
            if ok.any():
                parts.append((np.full(ok.sum(), b), attrs[ok], ops[ok], values[ok],
                              s[ok], n[ok], q[ok], p[ok], l[ok]))
        if not parts:
            break
        parent, attrs, ops, values, s, n, q, p, l = (np.concatenate(x) for x in zip(*parts))
        level_lrs[L - 1] = l.max()
        new_beam, seen = [], set()
        for i in np.lexsort((-n, -l, -q)):  # best quality first
            conds, mask, _, _, _, used = beam[parent[i]]
            cond = (int(attrs[i]), int(ops[i]), float(values[i]))
            key = frozenset(conds + (cond,))
            if key in seen:
                continue
            seen.add(key)
            rank = (q[i], l[i], n[i])
            wins = (valid is not None and (best_key is None or rank > best_key)
                    and valid(q[i], p[i], s[i], n[i]))
            if len(new_beam) >= beam_width and not wins:
                if valid is None or (best_key is not None and q[i] < best_key[0]):
                    break  # sorted: nothing further can enter the beam or win
                continue
            child = mask & task.condition_mask(*cond)
            if wins:
                best_key = rank
                best = Found(conds + (cond,), child, float(s[i]), float(n[i]),
                             float(q[i]), float(p[i]), float(l[i]))
            if len(new_beam) < beam_width:
                new_beam.append((conds + (cond,), child, float(s[i]), float(n[i]),
                                 float(q[i]), used | {cond[:2]}))
        beam = new_beam
    return best, level_lrs


def _lrs_quality(task):
    def quality(s, n, L):
        l = likelihood_ratio(s, n, task.S, task.N)
        return l, np.ones_like(l), l
    return quality


def permutation_maxima(enc, classes, seed, beam_width, max_rule_length,
                       min_covered_examples):
    """One permutation of the class column: for each target class the best
    LRS per rule length found by the search (the paper's Fig. 8)."""
    rng = np.random.default_rng(seed)
    y = enc.y[rng.permutation(enc.n)]
    out = np.zeros((len(classes), max_rule_length))
    for i, c in enumerate(classes):
        task = _Task(enc, y, c)
        _, out[i] = beam_search(task, _lrs_quality(task), beam_width=beam_width,
                                max_rule_length=max_rule_length,
                                min_covered_examples=min_covered_examples,
                                covering=False)
    return out


def fit_gumbel_parameters(enc, n_permutations=100, beam_width=10,
                          max_rule_length=5, min_covered_examples=1.0,
                          random_state=0, n_jobs=1, progress=None) -> GumbelParameters:
    """Gumbel ``mu``, ``beta`` per class and rule length from
    ``n_permutations`` searches on permuted classes. The permutations are
    independent: they run through ``joblib`` with ``n_jobs``, each with its
    own seed spawned from ``random_state`` (results do not depend on
    ``n_jobs``)."""
    from joblib import Parallel, delayed

    classes = list(range(enc.n_classes))
    n_permutations = int(n_permutations)
    if n_permutations < 2:
        raise ValueError("n_permutations must be at least 2")
    seeds = np.random.SeedSequence(random_state).spawn(n_permutations)
    jobs = (delayed(permutation_maxima)(enc, classes, s, beam_width,
                                        max_rule_length, min_covered_examples)
            for s in seeds)
    results = []
    for r in Parallel(n_jobs=n_jobs, return_as="generator")(jobs):
        results.append(r)
        if progress is not None:
            progress(len(results) / n_permutations)
    best = np.stack(results, axis=1)  # (classes, permutations, lengths)
    mu = np.zeros((len(classes), max_rule_length))
    beta = np.zeros_like(mu)
    for c in classes:
        mu[c], beta[c] = fit_gumbel(best[c])
    return GumbelParameters(mu, beta, n_permutations, [b for b in best])


# ------------------------------------------------------------ Orange layer
class EVCRuleModel(RuleSetModel):
    """Unordered rules resolved by a Fawcett strategy (default WVOTE) with the
    rules' qualities (EVC-corrected probabilities or m-estimates) as their
    confidences. ``gumbel`` holds the parameters the learner used."""

    def __init__(self, domain, rule_list, class_distribution, strategy="wvote",
                 gumbel=None, quality="evc"):
        super().__init__(domain, rule_list, class_distribution, strategy)
        self.gumbel = gumbel
        self.quality_measure = quality

    def rule_confidences(self) -> np.ndarray:
        """The rules' qualities (corrected probabilities or m-estimates)."""
        return np.array([r.quality for r in self.rule_list])


class EVCRuleLearner(RuleLearner):
    """Unordered rules with extreme-value-corrected quality (Možina et al.).

    ``quality``: ``"evc"`` (default) or ``"m"`` (m-estimate with ``m``).
    Per class, a beam search (``beam_width``, ``max_rule_length``,
    ``min_covered_examples``) finds the best rule covering a positive not
    covered yet, until none is found; a rule must be significant: its EVC
    ``P_a <= alpha`` (for the m-estimate: the chi-square p-value of its LRS),
    and with ``parent_alpha < 1`` each condition must be significant against
    the rule without it. The Gumbel parameters are fitted on
    ``n_permutations`` class permutations (``n_jobs`` in parallel) unless
    given as ``gumbel``; the model keeps them. ``strategy``: the Fawcett
    resolution strategy of the model.
    """

    name = "EVC rules"
    __returns__ = EVCRuleModel

    def __init__(self, quality="evc", m=2.0, beam_width=10, max_rule_length=5,
                 min_covered_examples=1.0, alpha=0.05, parent_alpha=1.0,
                 n_permutations=100, gumbel=None, strategy="wvote",
                 max_rules_per_class=None, n_jobs=1, random_state=0,
                 preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        if quality not in ("evc", "m"):
            raise ValueError("quality must be 'evc' or 'm'")
        if int(beam_width) < 1 or int(max_rule_length) < 1:
            raise ValueError("beam_width and max_rule_length must be at least 1")
        if not (0 < alpha <= 1 and 0 < parent_alpha <= 1):
            raise ValueError("alpha and parent_alpha must be in (0, 1]")
        if float(m) < 0:
            raise ValueError("m must be non-negative")
        self.quality, self.m = quality, float(m)
        self.beam_width, self.max_rule_length = int(beam_width), int(max_rule_length)
        self.min_covered_examples = float(min_covered_examples)
        self.alpha, self.parent_alpha = float(alpha), float(parent_alpha)
        self.n_permutations = int(n_permutations)
        self.gumbel = gumbel
        self.strategy = check_strategy(strategy)
        self.max_rules_per_class = max_rules_per_class
        self.n_jobs, self.random_state = n_jobs, random_state
        self.params = dict(quality=quality, m=m, beam_width=beam_width,
                           max_rule_length=max_rule_length,
                           min_covered_examples=min_covered_examples,
                           alpha=alpha, parent_alpha=parent_alpha,
                           n_permutations=n_permutations, strategy=strategy,
                           max_rules_per_class=max_rules_per_class,
                           n_jobs=n_jobs, random_state=random_state)

    def fit_gumbel(self, enc, progress=None) -> GumbelParameters:
        return fit_gumbel_parameters(
            enc, self.n_permutations, self.beam_width, self.max_rule_length,
            self.min_covered_examples, self.random_state, self.n_jobs, progress)

    def _quality(self, task, cls, gumbel):
        S, N = task.S, task.N
        if self.quality == "m":
            def quality(s, n, L):
                l = likelihood_ratio(s, n, S, N)
                return m_estimate(s, n, S / N, self.m), chi2_sf(l), l
        else:
            def quality(s, n, L):
                return evc_quality(s, n, S, N, *gumbel.of(cls, L))
        return quality

    def learn_class(self, enc, cls, gumbel):
        """Covering for class ``cls`` (algorithms.md §2.3): ``Found`` rules."""
        uncovered = (enc.y == cls) & (enc.w > 0)
        limit = (int(uncovered.sum()) if self.max_rules_per_class is None
                 else int(self.max_rules_per_class))
        prior = enc.w[enc.y == cls].sum() / enc.w.sum()
        alpha = self.alpha
        found = []

        def valid(q, p, s, n):
            return p <= alpha and s > n * prior

        while uncovered.any() and len(found) < limit:
            task = _Task(enc, enc.y, cls, uncovered)
            rule, _ = beam_search(
                task, self._quality(task, cls, gumbel), beam_width=self.beam_width,
                max_rule_length=self.max_rule_length,
                min_covered_examples=self.min_covered_examples,
                parent_alpha=self.parent_alpha, valid=valid, covering=True)
            if rule is None:
                break
            found.append(rule)
            uncovered &= ~rule.mask
        return found

    def fit_rules(self, data, enc):
        gumbel = self.gumbel
        if self.quality == "evc" and gumbel is None:
            self.progress(0.0, "fitting Gumbel parameters on permuted classes")
            gumbel = self.fit_gumbel(enc, lambda p: self.progress(0.8 * p))
        if gumbel is not None and gumbel.mu.shape[0] != enc.n_classes:
            raise ValueError(f"the Gumbel parameters are for {gumbel.mu.shape[0]} "
                             f"classes; the data has {enc.n_classes}")
        rules = []
        present = [c for c in range(enc.n_classes) if enc.w[enc.y == c].sum() > 0]
        start = 0.8 if self.gumbel is None and self.quality == "evc" else 0.0
        for i, cls in enumerate(present):
            self.progress(start + (1 - start) * i / len(present),
                          f"learning rules for class {data.domain.class_var.values[cls]}")
            for f in self.learn_class(enc, cls, gumbel):
                rules.append(self.to_rule(f, cls, enc, data.domain))
        return EVCRuleModel(data.domain, rules, enc.class_distribution(),
                            self.strategy, gumbel, self.quality)

    @staticmethod
    def to_rule(found: Found, cls, enc, domain) -> Rule:
        conditions = [Condition(a, OP_NAMES[op], v) for a, op, v in found.conditions]
        dist = class_weights(enc.y, enc.w, found.mask.view(np.uint8), enc.n_classes)
        return Rule(conditions, cls, dist, quality=found.q, domain=domain,
                    raw_frequency=found.s / found.n if found.n else float("nan"),
                    lrs=found.lrs, p_value=found.p)
