"""Logistic regression with rules as features and an EVC-derived penalty on
their weights (Možina et al. 2019, Section 4.3.3, "LRRP-EVC"; doc/evc.md).

Features are the original attributes (continuous standardised, discrete
one-hot, unknown values imputed by the training mean, i.e. 0 after
standardising and "no value" for one-hot) and one 0/1 column per rule. The
loss of a binary model with weights ``w`` on attributes and ``b`` on rules is
eq. 21,

    L = -sum_i v_i log phi(y_i f_i) + lambda/2 (|w|^2 + |b|^2) + sum_k gamma_k |b_k|,

with example weights ``v_i``, an unpenalised intercept and
``gamma_k = s_k - q_k n_k`` (eq. 22; ``q_k`` the rule's corrected quality,
``s_k``, ``n_k`` its covered counts). The solvers of eq. 21 and of the
choice of ``lambda`` are :mod:`.logistic`'s; here are the features, the
rule penalties, the rule budget's path, the model and the learner.
"""
from __future__ import annotations

import copy
from collections import Counter

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax

from . import logistic
from .base import Explanation, RuleLearner, RuleModel, ViewerColumn
from .base_rules import BaseRules
from .features import shared_encoding
from .gradient_rules import (LAMBDA, MIN_COVER, BinnedColumns, best_prefix, grow_rules,
                             log_losses, step_rules)
from .tables import stratified_rows
from .evc import EVCRuleLearner
from .logistic import (DEFAULT_LAMBDAS, choose_lambda, fit_binary, fit_l2, fit_multinomial,
                       multinomial_l2)
from . import params
from .rules import counted, covering_sparse, dense_X, format_number, rule_text


# ------------------------------------------------------------ held out, and eq. 22
def held_out_logloss(p, y, v) -> float:
    """Weighted log loss of class probabilities ``p`` (rows; ``nan`` as 0,
    the true class's probability clipped at 1e-15) for classes ``y`` and
    weights ``v``: the internal CV's and the penalty scale's measure."""
    p_true = np.clip(np.nan_to_num(p[np.arange(len(y)), y], nan=0.0), 1e-15, 1)
    return float(-np.average(np.log(p_true), weights=v))


#: the multinomial model's rule-penalty scales (doc/evc.md "Many classes")
DEFAULT_PENALTY_SCALES = (1.0, 0.5, 0.25)


def held_out_third(X, v, seed):
    """About a third of the rows of weight > 0 held out: those whose
    seeded hash of the attribute values, ``frac(x · r)`` with ``r`` drawn
    from ``seed`` (missing values as 0), is below 1/3. A row's side depends
    on its values only, so a row and its copies fall on the same side (a
    weight of 2 is two copies) and the order of the rows and of the class
    values changes nothing. ``(train, test)`` row indices."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=float, copy=True)
        X.data = np.nan_to_num(X.data, nan=0.0, posinf=0.0, neginf=0.0)
    else:
        X = np.nan_to_num(np.asarray(X, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    r = np.random.default_rng(seed).uniform(0.5, 1.5, X.shape[1]) * np.pi
    h = np.mod(X @ r, 1.0) if X.shape[1] else np.zeros(X.shape[0])
    held = h < 1 / 3
    live = np.asarray(v) > 0
    return np.flatnonzero(live & ~held), np.flatnonzero(live & held)


def rule_penalties(rules, positive: int) -> np.ndarray:
    """``gamma_k = s_k - q_k n_k`` (eq. 22) of each rule for its own head
    class, never negative. The sign of a rule's weight depends on whether
    its head is the model's ``positive`` class, but ``|b_k|`` does not."""
    del positive  # |b| is symmetric: a rule for the other class gets the same gamma
    out = np.empty(len(rules))
    for k, r in enumerate(rules):
        s = r.class_distribution[r.head]
        n = r.class_distribution.sum()
        out[k] = max(0.0, s - r.quality * n)
    return out


# ------------------------------------------------------------ the rule budget
class OneVsRest:
    """One binary eq. 21 per submodel: ``tasks`` holds per submodel
    ``(class, rule indices, gamma, lambda)``; two classes have one submodel
    for class 1 over every rule, more classes one per class over its own
    rules, their probabilities normalised to sum 1. A fit is a list of
    ``(b0, w, b)``, one per submodel."""

    def __init__(self, tasks, n_classes):
        self.tasks, self.n_classes = tasks, int(n_classes)

    def fit(self, F, cover, y, v, t=0.0, start=None, tol=1e-9):
        """Every submodel with an extra L1 weight ``t`` on its rules."""
        start = start or [None] * len(self.tasks)
        return [fit_binary(F, cover[:, idx], (y == c).astype(float), v, lam, gamma + t,
                           start=s0, tol=tol)
                for (c, idx, gamma, lam), s0 in zip(self.tasks, start)]

    def fit_attributes(self, F, y, v):
        """The fit without rules (the start of the rule budget's path)."""
        return [(*fit_l2(F, (y == c).astype(float), v, lam), np.zeros(len(idx)))
                for c, idx, gamma, lam in self.tasks]

    @staticmethod
    def without_rules(fits):
        return [(b0, w, np.zeros_like(b)) for b0, w, b in fits]

    def zero_outside(self, fits, kept):
        """``fits`` with the weights of the rules not ``kept`` (a mask over
        every rule) exactly 0."""
        return [(b0, w, np.where(kept[np.asarray(idx, dtype=int)], b, 0.0))
                for (_, idx, _, _), (b0, w, b) in zip(self.tasks, fits)]

    def excess_gradient(self, F, cover, y, v, fits) -> float:
        """The largest ``|dL/db_k| - gamma_k`` over the rules at ``fits``."""
        out = 0.0
        for (c, idx, gamma, _), (b0, w, _) in zip(self.tasks, fits):
            if len(idx):
                g = cover[:, idx].T @ (v * (expit(b0 + F @ w) - (y == c)))
                out = max(out, float(np.max(np.abs(g) - gamma)))
        return out

    def probabilities(self, F, cover, fits) -> np.ndarray:
        return submodel_probabilities(F, cover, self.submodels(fits), self.n_classes,
                                      multinomial=False)

    def submodels(self, fits):
        """``(class, rule indices, b0, w, b)`` of each submodel."""
        return [(c, idx, b0, w, b)
                for (c, idx, _, _), (b0, w, b) in zip(self.tasks, fits)]


class Multinomial:
    """One softmax model (:func:`fit_multinomial`) over the ``classes``
    present, each rule weighing on its own class's log-odds; the classes
    absent get probability 0. ``heads``: each rule's class (-1: none, its
    weight stays 0), ``gamma``: the rules' penalties, ``lam``: the L2
    weight. A fit is ``(b0, W, b)``."""

    def __init__(self, classes, heads, gamma, lam, n_classes):
        self.classes = np.asarray(classes, dtype=int)
        self.n_classes = int(n_classes)
        self.local = np.zeros(self.n_classes, dtype=int)  # class code -> softmax column
        self.local[self.classes] = np.arange(len(self.classes))
        heads = np.asarray(heads, dtype=int)
        self.heads = np.where(heads >= 0, self.local[np.maximum(heads, 0)], -1)
        self.gamma, self.lam = np.asarray(gamma, dtype=float), float(lam)

    def fit(self, F, cover, y, v, t=0.0, start=None, tol=1e-9):
        return fit_multinomial(F, cover, self.heads, self.local[y], v, self.lam,
                               self.gamma + t, len(self.classes), start=start, tol=tol)

    def fit_attributes(self, F, y, v):
        b0, W = multinomial_l2(F, self.local[y], v, self.lam, len(self.classes))
        return b0, W, np.zeros(len(self.gamma))

    @staticmethod
    def without_rules(fits):
        return fits[0], fits[1], np.zeros_like(fits[2])

    @staticmethod
    def zero_outside(fits, kept):
        """``fits`` with the weights of the rules not ``kept`` exactly 0."""
        b0, W, b = fits
        return b0, W, np.where(kept, b, 0.0)

    def excess_gradient(self, F, cover, y, v, fits) -> float:
        if not len(self.gamma):
            return 0.0
        b0, W, _ = fits
        Y = np.zeros((len(y), len(self.classes)))
        Y[np.arange(len(y)), self.local[y]] = 1.0
        G = v[:, None] * (softmax(b0 + F @ W, axis=1) - Y)
        ok = np.flatnonzero(self.heads >= 0)
        if not len(ok):
            return 0.0
        g = np.asarray(cover.T @ G)[ok, self.heads[ok]]
        return float(np.max(np.abs(g) - self.gamma[ok]))

    def probabilities(self, F, cover, fits) -> np.ndarray:
        return submodel_probabilities(F, cover, self.submodels(fits), self.n_classes,
                                      multinomial=True)

    def submodels(self, fits):
        b0, W, b = fits
        out = []
        for j, c in enumerate(self.classes):
            idx = np.flatnonzero(self.heads == j)
            out.append((int(c), idx, float(b0[j]), W[:, j].copy(), b[idx]))
        return out


def submodel_probabilities(F, cover, submodels, n_classes, multinomial) -> np.ndarray:
    """Class probabilities of ``submodels`` (``(class, rule indices, b0, w,
    b)``) on attribute features ``F`` (or a callable ``w -> F @ w``) and rule
    indicators ``cover``: the softmax of their log-odds (``multinomial``),
    else one logistic model for class 1 (a single submodel of two classes)
    or logistic models per class normalised to sum 1. Rows where every
    normalised model gives 0: ``nan``."""
    n = cover.shape[0]
    linear = F if callable(F) else (lambda w: F @ w if F.shape[1] else 0.0)
    f = np.zeros((n, len(submodels)))
    for j, (_, idx, b0, w, b) in enumerate(submodels):
        f[:, j] = b0 + linear(w) + (cover[:, idx] @ b if len(idx) else 0.0)
    out = np.zeros((n, n_classes))
    classes = [c for c, *_ in submodels]
    if multinomial:
        out[:, classes] = softmax(f, axis=1)
    elif n_classes == 2 and len(submodels) == 1:
        out[:, classes[0]] = expit(f[:, 0])
        out[:, 1 - classes[0]] = 1 - out[:, classes[0]]
    else:
        out[:, classes] = expit(f)
        total = out.sum(axis=1, keepdims=True)
        out = np.where(total > 0, out / np.where(total > 0, total, 1), np.nan)
    return out


class RulePath:
    """The rule budget (doc/evc.md "The rule budget"): eq. 21 with an extra
    L1 weight ``t`` on every rule, ``gamma_k + t``.

    With at most ``max_rules`` rules the budget cannot bind: the model is
    the paper's (``t = 0``), fitted exactly as without a budget. Otherwise
    ``t`` goes down a path from the smallest value that leaves no rule
    (every rule's gradient at ``b = 0`` within its penalty) by a factor of
    1,000 in ``N_STEPS`` steps, each fit starting from the previous one,
    until more than ``max_rules`` rules enter (or, past the last step, at
    ``t = 0``: then the paper's model has few enough rules and is the
    answer). Where one step lets several rules in at once, the step is
    halved (geometrically) ``N_BISECT`` times between the last point within
    the budget and the first beyond it. The path's fits only choose rules,
    so they stop at a looser relative decrease (``PATH_TOL``). The last
    point within the budget chooses the rules, and their weights are
    refitted at ``t = 0`` with the other rules held at 0 (eq. 21 on the
    chosen rules: their EVC penalties and the L2 term shrink them, the
    path's extra weight does not; a relaxed lasso). The path is computed
    once and read at the budget: no internal cross-validation, so a budget
    costs a few warm-started fits, not a refit per fold. The EVC penalty
    keeps its role along the path: of two rules that explain the data
    alike, the one whose quality the search overestimated more enters
    later.

    ``F``: attribute features, ``cover``: rule indicators (sparse), ``y``:
    class codes, ``v``: example weights (mean 1), ``link``: the model
    (:class:`OneVsRest` or :class:`Multinomial`)."""

    N_STEPS = 8       # values of t from t_max to t_max / 1000
    MIN_RATIO = 1e-3
    N_BISECT = 4      # halvings of the step where the path passes the budget
    PATH_TOL = 1e-6   # the path's fits' relative decrease (the model's: 1e-9)

    def __init__(self, F, cover, y, v, link, max_rules, paper=None):
        self.F, self.cover = F, sp.csr_matrix(cover)
        self.y, self.v, self.link = np.asarray(y), np.asarray(v, dtype=float), link
        self.max_rules = int(max_rules)
        self.ts, self.fits, self.rules = [], [], []
        if paper is not None and self.n_rules(paper) <= self.max_rules:
            self._add(0.0, paper)  # the paper's model, fitted already, keeps the budget
            self.chosen = paper
            return
        if self.cover.shape[1] <= self.max_rules:
            self._paper_model()
            return
        start = link.fit_attributes(F, self.y, self.v)
        t_max = link.excess_gradient(F, self.cover, self.y, self.v, start)
        fits, over = start, 0.0  # over: the largest t seen with too many rules
        for t in t_max * np.geomspace(1, self.MIN_RATIO, self.N_STEPS):
            fits = self._fit(float(t), fits)
            if self.n_rules(fits) > self.max_rules:
                over = float(t)
                break
            self._add(float(t), fits)
        else:
            # every step within the budget: the paper's model may be too;
            # if not, beyond the last step is only t = 0 (over stays 0):
            # nothing to halve
            if self._paper_model():
                return
        if not self.fits:  # even the first step lets more than max_rules in
            self._add(float(t_max), link.without_rules(start))
        # a step of the grid may let several rules in at once: halve the
        # step (geometrically) between the last point within the budget and
        # the first beyond it, so the budget is used where the path allows
        for _ in range(self.N_BISECT):
            if self.rules[-1] == self.max_rules or over <= 0:
                break
            t = float(np.sqrt(self.ts[-1] * over))
            fits = self._fit(t, self.fits[-1])
            if self.n_rules(fits) > self.max_rules:
                over = t
            else:
                self._add(t, fits)
        # the last point's rules, refitted without the path's extra weight
        kept = self.kept(self.fits[-1])
        mask = sp.diags(kept.astype(float))
        relaxed = link.fit(self.F, self.cover @ mask, self.y, self.v, 0.0, self.fits[-1])
        # their columns were zero, so the solver left the others at or near 0
        self.chosen = link.zero_outside(relaxed, kept)

    def _paper_model(self) -> bool:
        """The model at ``t = 0``, fitted as without a budget: the answer
        when it keeps the budget (then True)."""
        full = self.link.fit(self.F, self.cover, self.y, self.v)
        if self.n_rules(full) > self.max_rules:
            return False
        self._add(0.0, full)
        self.chosen = full
        return True

    def _fit(self, t, start):
        return self.link.fit(self.F, self.cover, self.y, self.v, t, start,
                             tol=self.PATH_TOL)

    def _add(self, t, fits):
        self.ts.append(t)
        self.fits.append(fits)
        self.rules.append(self.n_rules(fits))

    def n_rules(self, fits) -> int:
        return int(sum(np.count_nonzero(b) for *_, b in self.link.submodels(fits)))

    def kept(self, fits) -> np.ndarray:
        """Per rule (column of ``cover``): whether some submodel weighs it."""
        out = np.zeros(self.cover.shape[1], dtype=bool)
        for _, idx, _, _, b in self.link.submodels(fits):
            out[np.asarray(idx, dtype=int)[np.asarray(b) != 0]] = True
        return out

    def best_submodels(self):
        return self.link.submodels(self.chosen)

    def curve(self) -> list[dict]:
        """Per point of the path: ``t`` and the rules with a non-zero
        weight; the last is the chosen one."""
        return [dict(t=t, rules=r, chosen=j == len(self.ts) - 1)
                for j, (t, r) in enumerate(zip(self.ts, self.rules))]


class GrownBudget:
    """The rule budget of a two-class model with rules grown on the model's
    errors among its candidates (doc/evc.md "Rules grown on the model's
    errors"). A held-out third of the rows (:func:`held_out_third`) chooses
    between two models of at most ``max_rules`` rules, each fitted on the
    other two thirds and scored by its log loss there:

    * **the paper's model**: eq. 21 over the EVC rules (at ``t = 0``; when
      it has more than ``max_rules`` rules, the whole model is the bar, one
      its budgeted model, :class:`RulePath`'s, seldom clears, and the path
      runs only if it is chosen);
    * **boosted rules**: from the attributes' model, each step adds the
      rule of largest gain, an EVC rule or one grown then on the model's
      errors (:func:`~.gradient_rules.grow_rules`), until the budget's
      distinct rules; the boosting stops where its held-out loss is least.

    The boosted rules win when their held-out loss is lower by more than
    0.1% (a tie keeps the paper's model, fitted on every row exactly as
    without grown rules). They are then boosted again on every row, from
    the attributes' model fitted there, for as many steps; a rule's weight
    is the sum of its steps' shrunk weights (no refit: on magic a refit by
    eq. 21 predicted worse). Grown rules get class counts and an EVC
    quality from every row as EVC rules do. Without enough
    held-out rows (a weight below ``MIN_HELD_OUT``, or a class without
    training rows), the budget is :class:`RulePath`'s.
    """

    TOLERANCE = 1e-3  # a model wins by more than this relative held-out loss
    #: the least held-out weight that chooses: the boosting's stop is the
    #: least of many held-out losses, optimistic on a small third (on the 12
    #: protocol sets of 100-2,000 rows it chose worse models than the L1
    #: path; doc/evc.md)
    MIN_HELD_OUT = 1000.0
    #: more rows than this are boosted on a stratified sample of as many
    #: (the EVC search's sample size); the rules' counts and the attributes'
    #: weights are those of every row
    BOOSTING_ROWS = 100_000

    def __init__(self, F, cover, y, v, link, max_rules, rules, X, data, enc,
                 rule_learner, rule_model, domain, random_state):
        self.rules, self.choice, self.losses = list(rules), "paper", {}
        y, v = np.asarray(y), np.asarray(v, dtype=float)
        train, test = held_out_third(X, v, random_state)
        if enc.w[test].sum() < self.MIN_HELD_OUT or len(np.unique(y[train])) < 2:
            self.inner = RulePath(F, cover, y, v, link, max_rules)
            return
        held = np.zeros(len(y), dtype=bool)
        held[test] = True
        vt = np.where(held, 0.0, v)
        y1 = (y == link.tasks[0][0]).astype(float)
        k = int(max_rules)
        # the boosting's rows: every row, or a stratified sample of many
        S = slice(None)
        if len(y) > self.BOOSTING_ROWS:
            rng = np.random.default_rng(np.random.SeedSequence(random_state).spawn(3)[2])
            S = stratified_rows(y, self.BOOSTING_ROWS, rng)
        bins = BinnedColumns(X[S], data.domain, v[S])

        # the paper's model fitted on two thirds; with more than k rules its
        # budgeted model (the L1 path's) is not fitted unless it is chosen:
        # the whole model is the bar, one the budgeted model seldom clears
        # (the loss needs a few digits: the L1 path's looser tolerance)
        paper = link.fit(F, cover, y, vt, tol=RulePath.PATH_TOL)
        (b0, w, b_paper), = paper
        self.losses["paper"] = float(np.sum(log_losses(b0 + F[S] @ w + cover[S] @ b_paper,
                                                       y1[S], np.where(held[S], v[S], 0.0))))
        # boosted rules from the attributes' model, the EVC rules ready-made
        (b0, w, _), = link.fit_attributes(F, y, vt)
        # v is the weights over their mean: a rule's L2 weight and least
        # cover scale alike, so a weight of 2 is two rows here as in eq. 21
        scale = v.sum() / enc.w.sum()
        grow = dict(lam=LAMBDA * scale, min_cover=MIN_COVER * scale)
        steps, losses = grow_rules(bins, y1[S], v[S], b0 + F[S] @ w, k, fixed=cover[S],
                                   held=held[S], **grow)
        boosted, self.losses["boosted"] = best_prefix(steps, losses)
        if self.losses["boosted"] >= self.losses["paper"] * (1 - self.TOLERANCE):
            # the paper's model within the budget, as without grown rules
            # (fitted on every row from the two thirds' fit)
            within = np.count_nonzero(b_paper) <= k
            self.inner = RulePath(F, cover, y, v, link, k,
                                  paper=link.fit(F, cover, y, v, start=paper) if within else None)
            return
        # the boosted rules, boosted again on every row for as many steps
        self.choice, self.inner = "boosted", None
        c = link.tasks[0][0]
        (b0, w, _), = link.fit_attributes(F, y, v)
        steps, _ = grow_rules(bins, y1[S], v[S], b0 + F[S] @ w, k, fixed=cover[S],
                              max_steps=len(boosted), **grow)
        fixed, grown = step_rules(steps, bins, positive=c, domain=domain)
        rules = [r for r, _ in grown]
        rule_learner.count_on_every_row(rules, data, enc, getattr(rule_model, "gumbel", None))
        for r in rules:
            r.extra["grown"] = True
        self.rules = [self.rules[j] for j, _ in fixed] + rules
        b = np.array([bj for _, bj in fixed] + [bj for _, bj in grown])
        self.submodels = [(c, np.arange(len(self.rules)), float(b0), w, b)]

    def best_submodels(self):
        return self.inner.best_submodels() if self.inner is not None else self.submodels

    def curve(self) -> list[dict]:
        """:class:`RulePath`'s points, or the boosted rules' one point."""
        if self.inner is not None:
            return self.inner.curve()
        return [dict(t=0.0, rules=len(self.rules), chosen=True)]


# ------------------------------------------------------------ features
#: a sparse table of more cells than this is fitted on a sparse design
#: (:meth:`AttributeFeatures.uncentred`, 128 MB as a dense design); smaller
#: ones are made dense, the same model as for the dense table to the last bit
DENSE_DESIGN_MAX_CELLS = 2 ** 24


def _csr(rows, cols, vals, shape):
    """A CSR matrix of the cells given in parts (lists of arrays)."""
    def cat(parts, dt):
        return np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)
    return sp.csr_matrix((cat(vals, float), (cat(rows, np.intp), cat(cols, np.intp))),
                         shape=shape)


def _dense_column(X, a) -> np.ndarray:
    """Column ``a`` of Orange's ``X`` as ``n`` floats (of a sparse ``X``,
    that column alone made dense)."""
    if sp.issparse(X):
        return np.asarray(X[:, [a]].toarray(), dtype=float).ravel()
    return X[:, a]


class AttributeFeatures:
    """Original attributes as LR features: continuous standardised (weighted
    training mean and sd), discrete one-hot; unknown values contribute 0."""

    def __init__(self, domain, X, weights):
        self.names, self.columns = [], []  # columns: (attr, value or None)
        self.size, self.mean, self.scale = {}, {}, {}
        X = sp.csc_matrix(X) if sp.issparse(X) else X
        for a, var in enumerate(domain.attributes):
            if var.is_discrete:
                for v, value in enumerate(var.values):
                    self.columns.append((a, v))
                    self.names.append(f"{var.name}={value}")
            else:
                x = _dense_column(X, a)
                ok = np.isfinite(x)
                # moments of x / max|x|, so that neither 1e300 nor 1e-300
                # overflows or looks constant
                size = np.abs(x[ok]).max() if ok.any() else 0.0
                if size > 0 and weights[ok].sum() > 0:
                    m = np.average(x[ok] / size, weights=weights[ok])
                    sd = np.sqrt(np.average((x[ok] / size - m) ** 2, weights=weights[ok]))
                else:
                    m, sd = 0.0, 0.0
                if sd <= 1e-12:  # constant or all unknown: no information
                    continue
                self.size[a], self.mean[a], self.scale[a] = size, m, sd
                self.columns.append((a, None))
                self.names.append(var.name)

    def shift(self) -> np.ndarray:
        """Per feature, its standardised value minus its :meth:`uncentred`
        one: ``-mean / sd`` of a continuous column, 0 of a one-hot one."""
        return np.array([0.0 if v is not None else -self.mean[a] / self.scale[a]
                         for a, v in self.columns])

    def uncentred(self, X):
        """The features of a sparse ``X`` as a sparse (CSR) design, memory in
        proportion to its non-zeros: the continuous columns scaled but not
        centred (``x / (size sd)``, an unknown value at the mean), one-hot
        columns as in :meth:`__call__`. With an unpenalised intercept this
        is the standardised design reparametrised: the same weights ``w``
        and the intercept less ``w . shift()`` (:meth:`centre`), the same
        minimiser of eq. 21, since centring changes no weight's penalty."""
        X = sp.csc_matrix(X, dtype=float)
        rows, cols, vals = [], [], []
        for j, (a, v) in enumerate(self.columns):
            if v is None:
                start, end = X.indptr[a], X.indptr[a + 1]
                u = X.data[start:end] / self.size[a] / self.scale[a]
                rows.append(X.indices[start:end])
                cols.append(np.full(end - start, j))
                vals.append(np.where(np.isfinite(u), u, self.mean[a] / self.scale[a]))
        for known, col in self._onehot_cells(X):
            rows.append(known)
            cols.append(col)
            vals.append(np.ones(len(known)))
        return _csr(rows, cols, vals, (X.shape[0], len(self.columns)))

    def _onehot_cells(self, X):
        """Per discrete attribute (in the order of the features), the rows
        with a known value and the one-hot column of each: ``[(rows,
        columns), ...]``, one pass per attribute."""
        out = []
        for j0, (a, v) in enumerate(self.columns):
            if v == 0:  # the column of value 0 of a discrete attribute
                x = _dense_column(X, a)
                known = np.flatnonzero(np.isfinite(x))
                out.append((known, j0 + x[known].astype(np.intp)))
        return out

    def centre(self, submodels):
        """``submodels`` (``(class, rule indices, b0, w, b)``) fitted on the
        :meth:`uncentred` design, in the standardised design's terms: the
        intercept less ``w . shift()``."""
        shift = self.shift()
        return [(c, idx, float(b0 - w @ shift) if len(w) else b0, w, b)
                for c, idx, b0, w, b in submodels]

    def __call__(self, X):
        """The features of Orange's ``X`` (the model's domain): a dense
        array, or a CSR matrix when the one-hot columns are more than
        ``logistic.NEWTON_MAX_FEATURES`` (attributes with many values: an ID or a
        zip code), so memory and the solver's products grow with the rows,
        not rows times values."""
        n, p = X.shape[0], len(self.columns)
        onehot = [j for j, (_, v) in enumerate(self.columns) if v is not None]
        sparse = len(onehot) > logistic.NEWTON_MAX_FEATURES
        out = None if sparse else np.zeros((n, p))
        rows, cols, vals = [], [], []
        for j, (a, v) in enumerate(self.columns):
            if v is None:
                x = X[:, a]
                z = (x / self.size[a] - self.mean[a]) / self.scale[a]
                z = np.where(np.isfinite(z), z, 0.0)
                if sparse:
                    rows.append(np.arange(n))
                    cols.append(np.full(n, j))
                    vals.append(z)
                else:
                    out[:, j] = z
        for known, col in self._onehot_cells(X):
            if sparse:
                rows.append(known)
                cols.append(col)
                vals.append(np.ones(len(known)))
            else:
                out[known, col] = 1.0
        return _csr(rows, cols, vals, (n, p)) if sparse else out

    def linear(self, X, w) -> np.ndarray:
        """``self(X) @ w``; for a sparse ``X`` without building the
        features: every row starts from the value of the features at
        ``x = 0`` (a standardised 0, value 0 of a discrete attribute), and
        each stored entry adds its change from there (a missing value: the
        feature's 0)."""
        import scipy.sparse as sp
        if not sp.issparse(X):
            return self(X) @ w
        X = sp.csc_matrix(X)
        out = np.zeros(X.shape[0])
        base = 0.0
        first = {}
        for j, (a, v) in enumerate(self.columns):
            if v is None:
                zero = -self.mean[a] / self.scale[a]
                base += w[j] * zero
                rows = X.indices[X.indptr[a]:X.indptr[a + 1]]
                x = X.data[X.indptr[a]:X.indptr[a + 1]]
                z = (x / self.size[a] - self.mean[a]) / self.scale[a]
                np.add.at(out, rows, w[j] * (np.where(np.isfinite(z), z, 0.0) - zero))
            elif v == 0:
                first[a] = j
        width = Counter(a for a, v in self.columns if v is not None)
        for a, j0 in first.items():
            base += w[j0]  # x = 0 is value 0
            rows = X.indices[X.indptr[a]:X.indptr[a + 1]]
            x = X.data[X.indptr[a]:X.indptr[a + 1]]
            known = np.isfinite(x)
            code = np.where(known, x, 0).astype(np.intp)
            np.add.at(out, rows, np.where(known, w[j0 + np.clip(code, 0, width[a] - 1)], 0.0)
                      - w[j0])
        return out + base


# ------------------------------------------------------------ Orange layer
class RuleLogisticRegressionModel(RuleModel):
    """One binary logistic model (two classes: class 1 vs 0 with all rules);
    for more classes one softmax model (``multinomial``: each class's
    log-odds from the attributes and that class's rules) or one binary model
    per class (that class's rules), probabilities normalised.

    ``submodels``: list of ``(class, rule indices, b0, w, b)``; of a
    multinomial model, the log-odds of each class against a common
    reference. ``penalty_scale``: the factor on the rules' EVC penalties
    (1 on two classes; on many, the learner's held-out choice, whose log
    loss per scale is ``penalty_scale_losses``).
    """

    penalty_scale = 1.0
    penalty_scale_losses = None
    #: under a budget with grown rules (:class:`GrownBudget`): "paper" or
    #: "boosted", and the held-out log loss of each
    budget_choice = None
    budget_losses = None

    def __init__(self, domain, rule_list, class_distribution, features,
                 submodels, lam, rule_model=None, multinomial=False):
        super().__init__(domain, rule_list, class_distribution)
        self.features = features
        self.submodels = submodels
        self.lam = lam
        self.rule_model = rule_model
        self.multinomial = multinomial

    def predict(self, X):
        X = self._model_X(X)
        cover = covering_sparse(self.rule_list, X)
        linear = ((lambda w: self.features.linear(X, w)) if self.features is not None
                  else (lambda w: 0.0))
        out = submodel_probabilities(linear, cover, self.submodels, self.n_classes,
                                     getattr(self, "multinomial", False))
        none = np.isnan(out).any(axis=1)  # every normalised model gives 0
        out[none] = self.prior
        return out

    def explain(self, data) -> list[Explanation]:
        """Per row, the firing rules of non-zero weight with their weight
        on their class's log-odds; the intercepts and the attributes' terms
        in ``base`` (:class:`base.Explanation`): ``combine="softmax"`` for
        the binary and the multinomial model (the binary model's other
        class has log-odds 0), ``"sigmoids"`` for one-vs-rest."""
        X = self.model_X(data)
        cover = covering_sparse(self.rule_list, X).tocsr()
        n, C = X.shape[0], self.n_classes
        multinomial = getattr(self, "multinomial", False)
        binary = C == 2 and len(self.submodels) == 1 and not multinomial
        base = np.full((n, C), -np.inf)
        weight = np.zeros((len(self.rule_list), C))
        for cls, idx, b0, w, b in self.submodels:
            attrs = self.features.linear(X, w) if self.features is not None else 0.0
            base[:, cls] = b0 + attrs
            weight[np.asarray(idx, dtype=int), cls] = b
        if binary:
            base[:, 1 - self.submodels[0][0]] = 0.0
        out = []
        for i in range(n):
            fire = cover.indices[cover.indptr[i]:cover.indptr[i + 1]]
            rules = np.sort(fire[np.any(weight[fire] != 0, axis=1)])
            out.append(Explanation(rules, weight[rules], base[i],
                                   "softmax" if binary or multinomial else "sigmoids",
                                   self.prior.copy(),
                                   base_label=("the intercept and the attribute terms"
                                               if self.features is not None
                                               else "the intercept")))
        return out

    def rule_weights(self) -> np.ndarray:
        """Per rule of ``rule_list``: its weight on the log-odds of the
        class of its submodel (0 where the fit gave it none)."""
        weight = np.zeros(len(self.rule_list))
        for _, idx, _, _, b in self.submodels:
            weight[np.asarray(idx, dtype=int)] = b
        return weight

    def rule_directions(self):
        """A rule is a feature: it favours the class whose log-odds its
        weight raises. Two classes (one binary model of class ``c``
        against the other): ``c`` for a positive weight, the other class
        for a negative one; more classes: the class of its submodel, lowered
        (``against``) by a negative weight."""
        cls = np.array([r.head for r in self.rule_list], dtype=int)
        for c, idx, _, _, _ in self.submodels:
            cls[np.asarray(idx, dtype=int)] = c
        weight = self.rule_weights()
        binary = self.n_classes == 2 and len(self.submodels) == 1 \
            and not getattr(self, "multinomial", False)
        if binary:
            return np.where(weight < 0, 1 - cls, cls), np.zeros(len(cls), bool)
        return cls, weight < 0

    @property
    def plot_kind(self):
        return "evc" if any("raw_frequency" in r.extra for r in self.used_rules()) else None

    def used_rules(self):
        """The rules with a non-zero weight in some submodel."""
        used = sorted({int(k) for _, idx, _, _, b in self.submodels
                       for k, bk in zip(idx, b) if bk != 0})
        return [self.rule_list[k] for k in used]

    def viewer_columns(self):
        weight = self.rule_weights()
        # the rules' quality as their learner named it (EVC quality,
        # m-estimate, SLIPPER's confidence, ...)
        rule_model = getattr(self, "rule_model", None)
        named = (rule_model.quality_column() if isinstance(rule_model, RuleModel)
                 else RuleModel.quality_column(self))
        quality = np.array([r.quality for r in self.rule_list])
        return [ViewerColumn("Weight", np.abs(weight),
                             "How much the rule moves the log-odds of its class (the "
                             "Class column: the class whose log-odds it raises, or "
                             "'not' the class it lowers) when it fires: its "
                             "coefficient in the logistic regression."),
                ViewerColumn(named.name, quality, named.tooltip + " Of the class the rule "
                             "was found for, which is not the Class column's where the "
                             "weight turned the rule toward another class.", named.decimals)]

    def rule_notes(self) -> list[str]:
        return ["Grown on the model's errors under the budget (not found by the EVC "
                "search); its weight is the sum of its boosting steps"
                if r.extra.get("grown") else "" for r in self.rule_list]

    @property
    def attribute_terms(self) -> int:
        """The non-zero attribute weights over every submodel (a weight of
        a numeric attribute or of one value of a discrete one, per class
        model): the linear part a user reads beside the rules."""
        if self.features is None:
            return 0
        return int(sum(np.count_nonzero(w) for _, _, _, w, _ in self.submodels))

    def warnings(self) -> list[str]:
        if self.rule_list and not self.used_rules():
            return [f"No rule has a non-zero weight: the model is plain logistic "
                    f"regression on the attributes (the fit gave all "
                    f"{len(self.rule_list)} rules weight 0)."]
        return []

    def summary_lines(self):
        kind = ([] if self.n_classes == 2 else
                ["One multinomial (softmax) model" if getattr(self, "multinomial", False)
                 else "One model per class (one-vs-rest), normalised"])
        sample = getattr(getattr(self, "rule_model", None), "search_rows", None)
        searched = ([] if sample is None else
                    [f"Rules searched on a sample of {sample:,} rows; their weights fitted "
                     "on every row"])
        grown = sum(bool(r.extra.get("grown")) for r in self.used_rules())
        boosted = ([f"{grown} of the rules grown on the model's errors (boosted: a "
                    f"held-out third chose them over the EVC rules alone)"]
                   if self.budget_choice == "boosted" else [])
        return (super().summary_lines() + self.warnings() + kind
                + [f"L2 strength λ = {format_number(self.lam)}"]
                + searched + boosted + self.attribute_lines())

    def attribute_lines(self, top: int = 4, max_classes: int = 5) -> list[str]:
        """The attributes of largest weight per submodel (standardised
        numeric attributes, so weights compare), for the viewer's model box;
        with more than ``max_classes`` submodels: where to find them."""
        if self.features is None or not self.features.names:
            return []
        if len(self.submodels) > max_classes:
            return ["Attribute weights: model.coefficients()"]
        lines = []
        for cls, attrs, _ in self.coefficients():
            attrs = [(n, w) for n, w in attrs[1:] if w != 0]  # without the intercept
            attrs.sort(key=lambda nw: -abs(nw[1]))
            shown = ", ".join(f"{n} {w:+.2f}" for n, w in attrs[:top])
            lines.append(f"Attributes, log-odds of {cls}: {shown or 'none'}"
                         + (f" (+{len(attrs) - top} more)" if len(attrs) > top else ""))
        return lines

    def coefficients(self):
        """Per submodel: ``(class name, [(feature, weight)], [(rule, weight)])``."""
        names = self.features.names if self.features is not None else []
        out = []
        for cls, idx, b0, w, b in self.submodels:
            out.append((self.domain.class_var.values[cls],
                        [("intercept", float(b0))] + list(zip(names, map(float, w))),
                        [(self.rule_list[k], float(bk)) for k, bk in zip(idx, b)]))
        return out

    def __str__(self):
        n_rules, n_conditions = self.size
        cv = self.domain.class_var
        terms = self.attribute_terms
        lines = [f"{type(self).__name__}: {counted(n_rules, 'rules')} of non-zero weight"
                 + (f" and {counted(terms, 'attribute weights')}" if terms else "")
                 + f", {counted(n_conditions, 'conditions')}; L2 strength lambda = "
                 f"{format_number(self.lam)}"]
        lines += self.warnings()
        favours, against = self.rule_directions()
        index = {id(r): k for k, r in enumerate(self.rule_list)}
        two = self.n_classes == 2 and len(self.submodels) == 1
        for cls, attrs, rules in self.coefficients():
            lines.append(f"log-odds of {cv.name} = {cls}"
                         + (f" (against {cv.values[1 - cv.values.index(cls)]})" if two else "")
                         + ":")
            lines += [f"  {w:+8.3f}  {name}" for name, w in attrs if w != 0 or name == "intercept"]
            for r, w in sorted(rules, key=lambda rw: -abs(rw[1])):
                if w == 0:
                    continue
                k = index[id(r)]
                # the rule's quality is of the class it was found for: named
                # when its weight printed it for another ("THEN survived =
                # yes  [387/75]  EVC quality of survived = no 0.838")
                of = ("" if int(favours[k]) == int(r.head) and not against[k]
                      else f" of {cv.name} = {cv.values[int(r.head)]}")
                # its number, as explanations and the viewer cite it
                lines.append(f"  {w:+8.3f}  rule {k + 1}: " + rule_text(
                    r, self.domain, int(favours[k]), bool(against[k]),
                    f"{self.rule_number_name()}{of} {r.quality:.3f}"
                    + ("; grown on the model's errors" if r.extra.get("grown") else "")))
        return "\n".join(lines)

    def rule_number_name(self) -> str:
        """What the rules' ``quality`` is: the rule learner's measure."""
        rule_model = getattr(self, "rule_model", None)
        measure = getattr(rule_model, "quality_measure", "evc")
        return "EVC quality" if measure == "evc" else "m-estimate" if measure == "m" \
            else "quality"


class RuleLogisticRegressionLearner(RuleLearner):
    """Logistic regression over the attributes and rule indicators with the
    extra rule penalty of eq. 21-22 (LRRP-EVC).

    The rules come from a rule learner (EVC rules by default;
    ``EVCRuleLearner(quality="m", m=2)`` gives the paper's LRRP-M2); each
    becomes a 0/1 feature whose weight has, besides the L2 penalty, the
    penalty ``gamma_k |b_k|`` of eq. 22 (``rule_penalty=False``: the
    paper's LRR; ``use_rules=False``: plain L2 logistic regression, the
    paper's LR). Unless given, ``lambda_`` is chosen by internal CV of
    plain logistic regression and used with the rules as well (doc/evc.md).

    Parameters
    ----------
    rule_learner : RuleLearner or None, default None
        Where the rules come from (``None``: :class:`EVCRuleLearner` with
        this ``random_state``).
    rule_penalty : bool, default True
        The EVC penalty ``gamma_k |b_k|`` of eq. 22 on each rule's weight.
    attributes : bool, default True
        The attributes are features (continuous standardised, discrete
        one-hot).
    use_rules : bool, default True
        The rules are features (``attributes`` or ``use_rules`` or both).
    lambda_ : float >= 0 or None, default None
        The L2 weight; ``None``: chosen by internal CV over ``lambdas``.
    lambdas : sequence of float >= 0, default DEFAULT_LAMBDAS
        The L2 weights internal CV chooses from (11 from 0.01 to 1000,
        log-spaced).
    n_folds : int >= 2, default 5
        Folds of the internal CV that chooses lambda.
    max_rules : int >= 1 or None, default None
        At most this many rules with a non-zero weight: the rules of an L1
        path within the budget, refitted (doc/evc.md "The rule budget").
    grown_rules : bool, default True
        Two classes with a budget and a held-out third of 1,000 rows or
        more: a held-out third chooses between the paper's model within
        the budget and rules boosted from the EVC rules and rules grown on
        the model's errors (:class:`GrownBudget`; doc/evc.md "Rules grown
        on the model's errors"); ``model.budget_choice`` says which.
        ``False``: the L1 path over the EVC rules alone. Without a budget:
        not used.
    multi_class : {"multinomial", "ovr"}, default "multinomial"
        More than two classes: one softmax model over every class (each
        rule weighs on its own class's log-odds) or one binary model per
        class over that class's rules, normalised (``"ovr"``). Two classes:
        one binary model either way.
    penalty_scales : sequence of float >= 0, default DEFAULT_PENALTY_SCALES
        More than two classes (the multinomial model): the rules' EVC
        penalties are multiplied by the one of these scales (1, 0.5, 0.25)
        that gives the lowest log loss on a held-out third, with rules
        learned on the other two thirds (doc/evc.md "Many classes"); losses
        within 0.1% of the least count as a tie, won by the larger scale.
        One value is used as it is; ``(1.0,)`` keeps eq. 22's penalty as on
        two classes. Two classes and ``"ovr"``: not used.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of the default rule learner and of the internal CV's folds.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "logistic regression with rules"
    __returns__ = RuleLogisticRegressionModel

    parameters = params.ParameterTable(
        params.instance("rule_learner", "where the rules come from", RuleLearner,
                        "a rule learner of this add-on (e.g. EVCRuleLearner(quality='m'))",
                        none=True),
        params.boolean("rule_penalty", "the EVC penalty of eq. 22 on each rule's weight"),
        params.boolean("attributes", "the attributes are features"),
        params.boolean("use_rules", "the rules are features"),
        params.number("lambda_", "the L2 weight (None: internal CV)", 0, none=True,
                      spin=(0.0, 1e4)),
        params.floats("lambdas", "the L2 weights internal CV chooses from", 0),
        params.integer("n_folds", "folds of the internal CV", 2),
        params.max_rules("at most this many rules with a non-zero weight"),
        params.boolean("grown_rules", "a budget also takes rules grown on the model's errors "
                                      "(two classes)"),
        params.choice("multi_class", "more than two classes: one softmax model or one per "
                                     "class", ("multinomial", "ovr")),
        params.floats("penalty_scales", "the scales of the rule penalties tried on many "
                                        "classes", 0),
        params.random_state("seed of the rule learner and the internal CV's folds"),
    )

    def __init__(self, rule_learner=None, rule_penalty=True, attributes=True,
                 use_rules=True, lambda_=None, lambdas=DEFAULT_LAMBDAS, n_folds=5,
                 max_rules=None, grown_rules=True, multi_class="multinomial",
                 penalty_scales=DEFAULT_PENALTY_SCALES, random_state=0, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())
        if self.rule_learner is None:
            self.rule_learner = EVCRuleLearner(random_state=random_state)
        self._check_features()

    def check_parameters(self):
        super().check_parameters()
        self._check_features()

    def _check_features(self):
        if not (self.attributes or self.use_rules):
            raise ValueError("the model needs the attributes, the rules or both "
                             "(attributes and use_rules are both False)")

    def fit_rules(self, data, enc):
        rule_model, rules, reader = None, [], BaseRules(data.domain, data.domain)
        if self.use_rules:
            self.progress(0.0, "learning rules")
            with shared_encoding(self.rule_learner, data, enc):
                rule_model = self.rule_learner(
                    data, self.sub_progress(0.0, 0.8, "learning rules"))
            # the rules in these data's columns, through the rule learner's
            # own preprocessing (SLS's intervals, a Discretize(): BaseRules)
            reader = BaseRules(data.domain, rule_model.domain)
            rules = reader.rules(rule_model.rule_list)
        # a large sparse table stays sparse (a scaled, uncentred design: the
        # same model to the solver's tolerance); anything else is made dense
        sparse = sp.issparse(data.X) and np.prod(data.X.shape) > DENSE_DESIGN_MAX_CELLS
        X = sp.csr_matrix(data.X, dtype=float) if sparse else dense_X(data.X)
        # the rules' columns: the attributes, then any the rules added
        R = X if reader.domain is data.domain else reader.X(data)
        # the whole of eq. 21 is divided by the mean weight: the weights get
        # mean 1, and lambda and the rule penalties (weighted counts) the
        # same factor, so the minimiser is unchanged (a weight of 2 still
        # counts as two rows) while weights like 1e300 no longer overflow
        # the solver; without weights the factor is exactly 1
        scale = len(enc.w) / enc.w.sum() if enc.w.sum() > 0 else 1.0
        v = enc.w * scale
        n = X.shape[0]
        features = AttributeFeatures(data.domain, X, v) if self.attributes else None
        design = (lambda f, A: f.uncentred(A)) if sparse else (lambda f, A: f(A))
        F = design(features, X) if features is not None else np.zeros((n, 0))
        # rule indicators as a sparse matrix: rules cover a few percent of
        # the rows, and the optimiser multiplies by it twice per step
        cover = covering_sparse(rules, R)
        self.progress(0.8, "choosing lambda")
        Fplain = F if features is not None else design(AttributeFeatures(data.domain, X, v), X)
        present = [c for c in range(enc.n_classes) if v[enc.y == c].sum() > 0]
        multinomial = enc.n_classes > 2 and self.multi_class == "multinomial"
        penalty_scale, scale_losses = 1.0, None
        if multinomial:
            link = self._multinomial(Fplain, rules, enc, v, scale, present)
            lams = [link.lam / scale]
            if len(set(self.penalty_scales)) == 1:
                penalty_scale = self.penalty_scales[0]
            elif len(rules) and self.rule_penalty:
                self.progress(0.82, "choosing the rule penalty")
                penalty_scale, scale_losses = self._penalty_scale(
                    data, enc, v, scale, link, X, design, getattr(rule_model, "gumbel", None))
            link.gamma = link.gamma * penalty_scale
        else:
            link, lams = self._one_vs_rest(Fplain, rules, enc, v, scale, present)
        path = None
        if self.max_rules is not None and len(rules):
            # after the penalty's choice (0.82 to 0.86): progress never goes back
            grows = self._grows_rules(enc, sparse, rule_model)
            self.progress(0.86, "choosing the rules (grown rules, held-out third)" if grows
                          else "choosing the rules (L1 path)")
            if grows:
                path = GrownBudget(F, cover, enc.y, v, link, self.max_rules, rules,
                                   X, data, enc, self.rule_learner, rule_model,
                                   reader.domain, self.random_state)
                rules = path.rules
            else:
                path = RulePath(F, cover, enc.y, v, link, self.max_rules)
            submodels = path.best_submodels()
        else:
            self.progress(0.9, "fitting the model")
            submodels = link.submodels(link.fit(F, cover, enc.y, v))
        if sparse and features is not None:
            submodels = features.centre(submodels)
        model = RuleLogisticRegressionModel(
            reader.domain, rules, enc.class_distribution(), features, submodels,
            float(np.mean(lams)), rule_model, multinomial=multinomial)
        if path is not None:
            model.size_curve = path.curve()
            model.budget_choice = getattr(path, "choice", None)
            model.budget_losses = getattr(path, "losses", None)
        model.penalty_scale, model.penalty_scale_losses = penalty_scale, scale_losses
        return model

    def _grows_rules(self, enc, sparse, rule_model) -> bool:
        """Whether a budget takes rules grown on the model's errors among its
        candidates (:class:`GrownBudget`): asked for, two classes, a dense
        table and EVC rules whose qualities give the grown rules theirs."""
        return (self.grown_rules and enc.n_classes == 2 and not sparse
                and hasattr(self.rule_learner, "count_on_every_row")
                and (getattr(rule_model, "gumbel", None) is not None
                     or getattr(self.rule_learner, "quality", None) == "m"))

    def _penalty_scale(self, data, enc, v, scale, link, X, design, gumbel=None):
        """The multinomial model's penalty scale (``penalty_scales``): rules
        learned on about two thirds of the rows (:func:`held_out_third`,
        seed ``random_state``; with ``gumbel``, the full data's Gumbel
        parameters, instead of permutation searches of their own), the
        multinomial model fitted there with each
        scale (lambda as the full model's), its weighted log loss on the
        other third (``design``: the features of a table, dense or the
        sparse :meth:`AttributeFeatures.uncentred`). The held-out rows are
        rows the rules never saw, so a scale is not chosen for trusting
        rules that fit them. Returns
        ``(scale, {scale: log loss})``; ``(1.0, None)`` when the split
        leaves a class of the model without training rows or holds out
        less than a weight of 10."""
        train, test = held_out_third(X, v, self.random_state)
        # every class of the model needs training rows, and the held-out
        # loss enough rows to mean something (counted in the raw weights,
        # where a weight of 2 is two rows)
        if enc.w[test].sum() < 10 or any(v[train][enc.y[train] == c].sum() <= 0
                                     for c in link.classes):
            return 1.0, None
        learner = self.rule_learner
        if gumbel is not None and getattr(learner, "gumbel", False) is None:
            # the permutation searches measure how large an LRS gets by
            # chance among the same candidate conditions; that does not
            # grow with the rows (doc/evc.md, "The Gumbel fit"), so two
            # thirds of them need no searches of their own
            learner = copy.copy(learner)
            learner.gumbel = gumbel
        rule_model = learner(
            data[train], self.sub_progress(0.82, 0.86, "choosing the rule penalty",
                                           inner=False))
        reader = BaseRules(data.domain, rule_model.domain)
        rules = reader.rules(rule_model.rule_list)
        if not rules:
            return 1.0, None
        features = AttributeFeatures(data.domain, X[train], v[train]) if self.attributes \
            else None
        F = design(features, X) if features is not None else np.zeros((X.shape[0], 0))
        cover = covering_sparse(rules, X if reader.domain is data.domain
                                else reader.X(data))
        heads = np.array([r.head if r.head in link.classes else -1 for r in rules], dtype=int)
        gamma = rule_penalties(rules, None) * scale  # in the weights' scale, as the model's
        losses, start = {}, None
        for s in sorted(set(self.penalty_scales), reverse=True):
            sub = Multinomial(link.classes, heads, gamma * s, link.lam, enc.n_classes)
            start = sub.fit(F[train], cover[train], enc.y[train], v[train], start=start)
            losses[s] = held_out_logloss(sub.probabilities(F[test], cover[test], start),
                                         enc.y[test], v[test])
        best = min(losses.values())
        # within 0.1% of the least log loss counts as a tie: to the larger scale
        chosen = max(s for s, loss in losses.items() if loss <= best * (1 + 1e-3))
        return chosen, losses

    def _lambda(self, Fplain, y, v, scale, n_classes=None) -> float:
        """The L2 weight of eq. 21 for the scaled weights ``v``: the user's
        ``lambda_``, else the internal CV's choice (:func:`choose_lambda`)."""
        if self.lambda_ is not None:
            return float(self.lambda_) * scale
        return choose_lambda(Fplain, y, v, [x * scale for x in self.lambdas],
                             self.n_folds, self.random_state, n_classes=n_classes)

    def _one_vs_rest(self, Fplain, rules, enc, v, scale, present):
        """:class:`OneVsRest`: two classes, one model for class 1 over every
        rule; more, one per class present over its own rules."""
        binary = enc.n_classes == 2
        tasks, lams = [], []  # per submodel: (class, rule indices, penalties, lambda)
        for c in ([1] if binary else present):
            lam = self._lambda(Fplain, (enc.y == c).astype(float), v, scale)
            idx = np.arange(len(rules)) if binary else np.array(
                [k for k, r in enumerate(rules) if r.head == c], dtype=int)
            sub_rules = [rules[k] for k in idx]
            gamma = (rule_penalties(sub_rules, c) * scale if self.rule_penalty
                     else np.zeros(len(sub_rules)))
            tasks.append((c, idx, gamma, lam))
            lams.append(lam / scale)
        return OneVsRest(tasks, enc.n_classes), lams

    def _multinomial(self, Fplain, rules, enc, v, scale, present):
        """:class:`Multinomial` over the classes ``present``; its lambda from
        internal CV of the multinomial model without rules."""
        local = np.zeros(enc.n_classes, dtype=int)
        local[present] = np.arange(len(present))
        lam = self._lambda(Fplain, local[enc.y], v, scale, n_classes=len(present))
        gamma = (rule_penalties(rules, None) * scale if self.rule_penalty
                 else np.zeros(len(rules)))
        # a rule of a class without weight (-1) has no log-odds to weigh on
        heads = np.array([r.head if r.head in present else -1 for r in rules], dtype=int)
        return Multinomial(present, heads, gamma, lam, enc.n_classes)

