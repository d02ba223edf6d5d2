"""Rules grown on the errors of a logistic model, and boosting with them:
the rules logistic regression with rules adds under a budget on two classes
(doc/evc.md "Rules grown on the model's errors"; ``logreg.GrownBudget``).

A rule is grown as gradient-boosted rule learners grow theirs (Dembczyński,
Kotłowski and Słowiński 2010, "ENDER: a statistical framework for boosting
decision rules"; Rapp et al. 2020, "Learning Gradient Boosted Multi-label
Classification Rules"): with ``g_i = v_i (p_i - y_i)`` and
``h_i = v_i p_i (1 - p_i)`` the gradient and Hessian of the log loss at the
model's log-odds, a rule covering the rows ``R`` with weight ``b`` changes
the loss's second-order approximation by ``G_R b + (H_R + lambda) b^2 / 2``,
least at ``b = -G_R / (H_R + lambda)``, where it gains
``G_R^2 / (2 (H_R + lambda))``. The rule starts from every row and adds, one
at a time, the condition of largest gain while the gain grows (at most
``max_length`` conditions, each covering at least ``min_cover`` of weight).
A boosting step takes the grown rule or a ready-made one (the EVC rules),
whichever gains more, and moves the log-odds of the rows it covers by its
weight times ``shrinkage``, so each rule goes where the model and the rules
before it still err.

Numeric attributes are cut into at most ``max_bins`` bins of equal
frequency, as histogram-based boosters cut theirs; a condition is
``A <= t`` or ``A >= t`` at a bin's edge (written as the shortest number
that splits the training values the same way) or ``A = v``. A missing
value satisfies no condition, as everywhere in the add-on. The gain
histograms are the core's (``gradient_histograms``,
``best_gradient_split``).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from .core import best_gradient_split, gradient_histograms
from .features import MISSING_CODE, ShortThresholds, ordinal_bins
from .rules import Condition, Rule, canonical_conditions

#: bins of a numeric attribute (as histogram-based boosters use)
MAX_BINS = 128
#: the L2 weight of a rule's weight, the shrinkage, the conditions per rule,
#: the least weight a rule covers and the boosting steps without a better
#: held-out loss (doc/evc.md "Rules grown on the model's errors")
LAMBDA, SHRINKAGE, MAX_LENGTH, MIN_COVER, PATIENCE = 1.0, 0.5, 5, 10.0, 10
#: boosting steps per distinct rule at most (a fixed rule may be taken again)
MAX_STEPS_PER_RULE = 3


class BinnedColumns:
    """The attributes of Orange's ``X`` as bin codes (``codes[:, j]``; -1
    missing): numeric ones in at most ``max_bins`` weighted equal-frequency
    bins (:func:`~.features.ordinal_bins`) with each bin's smallest and
    largest value, discrete ones as their value index."""

    def __init__(self, X, domain, w, max_bins=MAX_BINS):
        n, d = X.shape
        self.codes = np.empty((n, d), dtype=np.int32, order="F")
        self.numeric = np.zeros(d, dtype=bool)
        self.n_bins = np.zeros(d, dtype=int)
        self.lo, self.hi = [None] * d, [None] * d
        for j, var in enumerate(domain.attributes):
            x = X[:, j]
            if var.is_discrete:
                ok = np.isfinite(x)
                c = np.full(n, MISSING_CODE, dtype=np.int32)
                c[ok] = x[ok].astype(np.int32)
                self.n_bins[j] = len(var.values)
            else:
                c, self.lo[j], self.hi[j] = ordinal_bins(x, max_bins - 1, w)
                self.numeric[j] = True
                self.n_bins[j] = len(self.lo[j])
            self.codes[:, j] = c
        self.short = ShortThresholds(lambda j: X[:, j])
        # each column's histogram side by side: slot 0 of a column for a
        # missing value, then one per bin (core.gradient_histograms)
        self.offset = np.r_[0, np.cumsum(self.n_bins + 1)[:-1]].astype(np.int32)
        self.slots = np.ascontiguousarray(self.codes + 1 + self.offset, dtype=np.int32)
        self.n_slots = int(np.sum(self.n_bins + 1))
        # the candidate conditions, per slot: numeric "bin <= b" (b below
        # the last bin; its complement is "bin >= b + 1") and discrete "= b"
        cols = np.arange(d)
        num = cols[self.numeric & (self.n_bins >= 2)]
        self.cut_col = np.repeat(num, self.n_bins[num] - 1)
        self.cut_bin = np.concatenate([np.arange(m - 1) for m in self.n_bins[num]]
                                      ).astype(int) if len(num) else np.zeros(0, int)
        self.cut_slot = (self.offset[self.cut_col] + 1 + self.cut_bin).astype(np.int64)
        # the column's missing slot, and its last bin
        self.cut_start = self.offset[self.cut_col].astype(np.int64)
        self.cut_end = (self.offset[self.cut_col] + self.n_bins[self.cut_col]).astype(np.int64)
        disc = cols[~self.numeric & (self.n_bins >= 2)]
        self.eq_col = np.repeat(disc, self.n_bins[disc])
        self.eq_bin = np.concatenate([np.arange(m) for m in self.n_bins[disc]]
                                     ).astype(int) if len(disc) else np.zeros(0, int)
        self.eq_slot = (self.offset[self.eq_col] + 1 + self.eq_bin).astype(np.int64)

    def condition(self, j, op, b) -> Condition:
        """The condition ``bin <= b``, ``bin >= b`` or ``value = b`` of column ``j``."""
        if op == "==":
            return Condition(j, "==", float(b))
        t = self.hi[j][b] if op == "<=" else self.lo[j][b]
        return Condition(j, op, self.short(j, op, float(t)))


def _best_condition(bins, rows, g, h, v, lam, min_cover, hist=None):
    """The condition that, added to a rule covering ``rows``, gives the
    largest gain ``G^2 / (H + lam)`` (doubled, as compared): ``(gain, column,
    op, bin)``, or ``None`` when no condition covers ``min_cover``.
    ``hist``: the rows' histograms if known."""
    if hist is None:
        hist = gradient_histograms(bins.slots, rows, g, h, v, bins.n_slots)
    gain, side, k = best_gradient_split(hist, bins.cut_slot, bins.cut_start, bins.cut_end,
                                        bins.eq_slot, lam, min_cover)
    if side < 0:
        return None
    if side == 2:
        return gain, int(bins.eq_col[k]), "==", int(bins.eq_bin[k])
    return gain, int(bins.cut_col[k]), ("<=", ">=")[side], int(bins.cut_bin[k]) + side


def log_losses(f, y, w) -> np.ndarray:
    """Per row the weighted log loss of the log-odds ``f`` of class 1 for
    ``y`` in {0, 1} and weights ``w``: ``w (log(1 + e^f) - y f)``."""
    return w * (np.logaddexp(0, f) - y * f)


def grow_rules(bins: BinnedColumns, y, v, margin, max_rules, *, fixed=None, held=None,
               lam=LAMBDA, shrinkage=SHRINKAGE, max_length=MAX_LENGTH,
               min_cover=MIN_COVER, patience=PATIENCE, max_steps=None):
    """Boosting with rules on the log loss from the log-odds ``margin``.
    Each step takes the rule of largest gain ``G^2 / (H + lam)`` on the
    rows outside ``held``: a rule grown condition by condition, or one of
    the ``fixed`` ones (columns of a sparse 0/1 matrix; e.g. the EVC
    rules), and moves the margins of every row it covers by its shrunk
    weight. Steps stop when ``max_rules`` distinct rules are used (a fixed
    rule may be taken again), when no rule can be grown, or, with ``held``,
    when the held-out loss has not improved for ``patience`` steps.

    Parameters
    ----------
    bins : BinnedColumns
        The attributes as bin codes.
    y : ndarray of int
        Class codes (0 or 1).
    v : ndarray of float
        Example weights.
    margin : ndarray of float
        The starting log-odds of class 1 per row.
    max_rules : int
        Distinct rules at most.
    fixed : scipy.sparse matrix (n, m) or None
        Ready-made rules' coverage.
    held : ndarray of bool or None
        Rows held out: they move with the rules but do not choose them; their
        loss after each step is recorded.
    lam, shrinkage, max_length, min_cover, patience
        The L2 weight of a rule's weight, the factor on a rule's weight
        before it moves the margins, the conditions per rule at most, the
        least weight a rule covers, and the steps without a better held-out
        loss before the boosting stops.

    Returns ``(steps, losses)``: per step ``(rule, weight)`` with ``rule``
    an int (a column of ``fixed``) or a list of ``(column, op, bin)``; with
    ``held``, ``losses[s]`` is the held-out loss after the first ``s`` steps
    (``losses[0]`` at ``margin``), else ``losses`` is empty.
    """
    y = np.asarray(y, dtype=float)
    v_all = np.asarray(v, dtype=float)
    f = np.array(margin, dtype=float)
    live = np.flatnonzero(v_all > 0).astype(np.int64)
    v = v_all if held is None else np.where(held, 0.0, v_all)
    vh = None if held is None else np.where(held, v_all, 0.0)
    held_rows = None if held is None else np.flatnonzero(held & (v_all > 0)).astype(np.int64)
    grow_rows = live if held is None else np.flatnonzero(~held & (v_all > 0)).astype(np.int64)
    fixed = None if fixed is None or not fixed.shape[1] else sp.csr_matrix(fixed)
    p = expit(f)
    g, h = v * (p - y), v * p * (1 - p)
    # per held-out row its log loss; the loss a step changes is its rows'
    held_loss = None if held is None else log_losses(f, y, vh)
    # the histograms of every training row (where each rule starts),
    # updated by the rows each step moves
    root = gradient_histograms(bins.slots, grow_rows, g, h, v, bins.n_slots)
    dg, dh, zero = np.zeros(len(f)), np.zeros(len(f)), np.zeros(len(f))
    if fixed is not None:
        # each fixed rule's sums, updated by the rows each step moves
        G, H, V = (fixed.T @ np.column_stack([g, h, v])).T
        fixed_csc = fixed.tocsc()
        fixed_rows = [r[v_all[r] > 0].astype(np.int64) for r in
                      (fixed_csc.indices[fixed_csc.indptr[k]:fixed_csc.indptr[k + 1]]
                       for k in range(fixed.shape[1]))]
        fixed_used = np.zeros(fixed.shape[1], dtype=bool)
    steps, losses, used = [], ([] if held is None else [float(held_loss.sum())]), set()
    max_steps = MAX_STEPS_PER_RULE * max_rules if max_steps is None else max_steps
    while len(steps) < max_steps:
        if held is not None and len(losses) - 1 - int(np.argmin(losses)) >= patience:
            break
        rule, rows, gain = None, None, -np.inf
        if len(used) < max_rules:  # else only rules already used may be taken again
            # grown on the training rows; the held-out ones it covers move too
            rule, rows, gain = _grow(bins, grow_rows, g, h, v, lam, min_cover, max_length,
                                     root)
            gain = gain if rule else -np.inf
            if rule and held is not None:
                rows = np.union1d(rows, _covered(bins, held_rows, rule))
            rule = rule or None
        if fixed is not None:
            gf = np.where(V >= min_cover, G * G / (H + lam), -np.inf)
            if len(used) >= max_rules:
                gf[~fixed_used] = -np.inf
            k = int(np.argmax(gf))
            if gf[k] > gain:
                rule, gain, rows = k, gf[k], fixed_rows[k]
        if rule is None or not np.isfinite(gain) or gain <= 0:
            break
        weight = -g[rows].sum() / (h[rows].sum() + lam)
        # the step moves its rows' log-odds, and so their g, h and loss
        f[rows] += shrinkage * weight
        pr = expit(f[rows])
        g_new, h_new = v[rows] * (pr - y[rows]), v[rows] * pr * (1 - pr)
        dg[rows], dh[rows] = g_new - g[rows], h_new - h[rows]
        if fixed is not None:
            dG, dH = (fixed[rows].T @ np.column_stack([dg[rows], dh[rows]])).T
            G += dG
            H += dH
        root += gradient_histograms(bins.slots, rows, dg, dh, zero, bins.n_slots)
        dg[rows], dh[rows] = 0.0, 0.0
        g[rows], h[rows] = g_new, h_new
        steps.append((rule, float(weight)))
        if isinstance(rule, int):
            fixed_used[rule] = True
        used.add(("fixed", rule) if isinstance(rule, int) else
                 ("grown", tuple(rule)))
        if held is not None:
            held_loss[rows] = log_losses(f[rows], y[rows], vh[rows])
            losses.append(float(held_loss.sum()))
    return steps, losses


def rule_gain(g, h, rows, lam) -> float:
    """``G^2 / (H + lam)`` of the rows ``rows``."""
    return float(g[rows].sum() ** 2 / (h[rows].sum() + lam))


def _covered(bins, rows, conds):
    """The ``rows`` that satisfy every condition ``(column, op, bin)``."""
    for j, op, b in conds:
        c = bins.codes[rows, j]
        rows = rows[(c == b) if op == "==" else (c >= 0) & ((c <= b) if op == "<=" else (c >= b))]
    return rows


def _grow(bins, rows, g, h, v, lam, min_cover, max_length, hist=None):
    """One rule grown from ``rows`` by the condition of largest gain while
    the gain grows: ``(conditions, rows covered, gain)``. ``hist``: the
    histograms of ``rows`` if known."""
    conds = []
    current = rule_gain(g, h, rows, lam)
    while len(conds) < max_length:
        found = _best_condition(bins, rows, g, h, v, lam, min_cover,
                                hist if not conds else None)
        if found is None or found[0] <= current * (1 + 1e-9):
            break
        current, j, op, b = found
        rows = _covered(bins, rows, [(j, op, b)])
        conds.append((j, op, b))
    return conds, rows, current


def best_prefix(steps, losses, tolerance=1e-3):
    """The steps up to the least held-out loss (the fewest steps within
    ``tolerance`` of it, relative) and that loss."""
    losses = np.asarray(losses)
    best = losses.min()
    s = int(np.flatnonzero(losses <= best + tolerance * abs(best))[0])
    return steps[:s], float(losses[s])


def step_rules(steps, bins: BinnedColumns, shrinkage=SHRINKAGE, positive=1, domain=None):
    """The distinct rules of boosting ``steps`` in order of first use, each
    with its weight on the log-odds of class ``positive``: the sum of its
    steps' shrunk weights. ``(fixed, grown)``: ``[(column, weight)]`` of
    the fixed rules taken, ``[(rule, weight)]`` of the grown ones, a
    :class:`~.rules.Rule` headed by the class its weight favours (class
    counts and quality left to the caller); rules whose steps cancel out
    are left out."""
    fixed, grown = {}, {}
    for rule, weight in steps:
        if isinstance(rule, int):
            fixed[rule] = fixed.get(rule, 0.0) + shrinkage * weight
        else:
            # one rule per set of rows: bounds on a column merged, any order
            key = canonical_conditions(bins.condition(*c) for c in rule)
            grown[key] = grown.get(key, 0.0) + shrinkage * weight
    return ([(k, w) for k, w in fixed.items() if w != 0],
            [(Rule(conds, positive if w > 0 else 1 - positive, np.zeros(2), domain=domain), w)
             for conds, w in grown.items() if w != 0])
