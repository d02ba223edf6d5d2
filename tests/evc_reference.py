"""The EVC beam search as it was written in Python before the compiled
kernel (``core.beam_search``), kept as the slow, obviously-correct reference
the kernel is tested against.

The search loop is the former ``evc.beam_search`` unchanged. Its candidates
come from :meth:`Task.refinements`, plain numpy over the same arrays the
kernel reads (``SearchData``: integer codes, the bins' smallest and largest
values), so that the two can be compared in every candidate mode: all
thresholds (the candidates of :func:`threshold_candidates`, which SLIPPER's
kernel is also tested against), boundary points only, and binned columns.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from orangecontrib.rules.core import OP_EQ, OP_GE, OP_LE
from orangecontrib.rules.evc import chi2_sf, likelihood_ratio


@dataclass
class Found:
    conditions: tuple
    mask: np.ndarray
    s: float
    n: float
    q: float
    p: float
    lrs: float


class Task:
    """What one search needs: the search data's arrays and the pseudo-classes
    0 = negative, 1 = covered positive, 2 = not yet covered positive."""

    def __init__(self, sd, code, S, N, boundary_only=True):
        self.codes = np.asarray(sd.codes_arr)
        self.n_bins = np.asarray(sd.n_bins_arr)
        self.ordinal = np.asarray(sd.ordinal_arr).astype(bool)
        self.offset = np.r_[0, np.cumsum(self.n_bins)]
        self.lo, self.hi = np.asarray(sd.lo_arr), np.asarray(sd.hi_arr)
        self.w = np.asarray(sd.w_arr)
        self.code = np.asarray(code)
        self.S, self.N = S, N
        self.boundary_only = boundary_only
        self.n = len(self.w)

    def _counts(self, rows):
        out = np.zeros(3)
        for i in rows:
            out[self.code[i]] += self.w[i]
        return out

    def refinements(self, mask, used):
        """Counts ``(k, 3)`` and ``(feature, op, value)`` of every
        one-condition refinement in the kernel's order: discrete ``A = v``,
        then ``A <= t`` of every ordinal feature, then ``A >= t``."""
        cands = []
        feats = range(self.codes.shape[1])
        for f in feats:
            if self.ordinal[f] or (f, OP_EQ) in used:
                continue
            for v in range(self.n_bins[f]):
                rows = np.flatnonzero(mask & (self.codes[:, f] == v))
                cnt = self._counts(rows)
                if cnt.sum() > 0:
                    cands.append((f, OP_EQ, float(v), cnt))
        for op in (OP_LE, OP_GE):
            for f in feats:
                if not self.ordinal[f] or (f, op) in used:
                    continue
                col = self.codes[:, f]
                present = sorted(set(col[mask & (col >= 0)]))
                for a, b in zip(present, present[1:]):
                    blocks = [self._counts(np.flatnonzero(mask & (col == x))) for x in (a, b)]
                    pos = any(c[1] + c[2] > 0 for c in blocks)
                    neg = any(c[0] > 0 for c in blocks)
                    if self.boundary_only and not (pos and neg):
                        continue
                    lo, hi = self.hi[self.offset[f] + a], self.lo[self.offset[f] + b]
                    t = 0.5 * lo + 0.5 * hi
                    if op == OP_LE:
                        t = lo if t >= hi else t
                        rows = np.flatnonzero(mask & (col >= 0) & (col <= a))
                    else:
                        t = hi if t <= lo else t
                        rows = np.flatnonzero(mask & (col >= b))
                    cands.append((f, op, t, self._counts(rows)))
        if not cands:
            return np.zeros(0, int), np.zeros(0, int), np.zeros(0), np.zeros((0, 3))
        f, op, v, cnt = zip(*cands)
        return np.array(f), np.array(op), np.array(v), np.array(cnt)

    def condition_mask(self, f, op, value):
        col = self.codes[:, f]
        if op == OP_EQ:
            return col == int(value)
        base = self.offset[f]
        vals = np.where(col >= 0, self.lo[base + np.maximum(col, 0)], np.nan)
        with np.errstate(invalid="ignore"):
            return vals <= value if op == OP_LE else vals >= value


def beam_search(task: Task, quality, *, beam_width=10, max_rule_length=5,
                min_covered_examples=1.0, parent_alpha=1.0, valid=None,
                covering=True):
    """The former ``evc.beam_search`` (doc/evc.md, "The rule search"),
    unchanged but for the candidate source."""
    full = np.ones(task.n, dtype=bool)
    q0 = float(quality(np.array([task.S]), np.array([task.N]), 1)[0][0])
    beam = [((), full, task.S, task.N, q0, frozenset())]
    best, best_key = None, None
    level_lrs = np.zeros(max_rule_length)
    for L in range(1, max_rule_length + 1):
        parts = []
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
                    break
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


def threshold_candidates(Xc, y, w, covered, n_classes):
    """Every threshold of a continuous column and its class weights, in
    plain numpy: for column ``j``, the midpoints ``t`` between consecutive
    distinct covered, non-missing values ``u < u'`` (``u`` itself when the
    midpoint rounds to ``u'``, adjacent floats), ``below[j, k, c]`` the
    covered weight of class ``c`` with ``A <= t``, ``total[j, c]`` the
    covered non-missing weight (``A >= t`` covers ``total - below``).
    Returns ``(thresholds, below, n_candidates, total)`` of shapes ``(p,
    m)``, ``(p, m, n_classes)``, ``(p,)``, ``(p, n_classes)`` with ``m``
    the covered rows minus one; unused entries are NaN and 0."""
    n, p = Xc.shape
    covered = np.asarray(covered).astype(bool)
    m = max(int(covered.sum()) - 1, 0)
    thr = np.full((p, m), np.nan)
    below = np.zeros((p, m, n_classes))
    ncand = np.zeros(p, dtype=np.int32)
    total = np.zeros((p, n_classes))
    for j in range(p):
        x = Xc[:, j]
        ok = covered & ~np.isnan(x)
        values = np.unique(x[ok])
        t = (values[:-1] + values[1:]) / 2
        t = np.where(t == values[1:], values[:-1], t)
        ncand[j] = len(t)
        thr[j, :len(t)] = t
        total[j] = np.bincount(y[ok], w[ok], minlength=n_classes)
        for k, tk in enumerate(t):
            sel = ok & (x <= tk)
            below[j, k] = np.bincount(y[sel], w[sel], minlength=n_classes)
    return thr, below, ncand, total
