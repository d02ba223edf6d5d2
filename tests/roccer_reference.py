"""ROCCER's Algorithm 1 driven from Python (what ``roccer.select_rules``
did before the compiled ``core.HullSelection``), the reference of
``tests/learners/test_roccer.py``: the selection by insertion tests
(``core.first_insertion``), the repair of concavities
(``core.first_concavity``) and the list's ROC points (:class:`ListCurve`,
``core.coverage_counts``), one call at a time. The compiled selection must
give the same lists."""
import time

import numpy as np

from orangecontrib.rules.core import (coverage_counts, equal_weights, first_concavity,
                                      first_insertion)
from orangecontrib.rules.roccer import PROGRESS_EVERY, Candidates, ListRule


class ListCurve:
    """The ROC points, in weights, of a class's partial rule lists: ``(fp,
    tp)`` after the first ``j`` rules for ``j = 0..L``, and the unions
    ``U_0..U_L`` of their coverage, kept between changes of the list: after
    a change at entry ``r`` only the unions and counts from ``r`` on are
    computed again (Algorithm 1 inserts, removes and merges entries one at
    a time, and the points before the change stay what they were)."""

    def __init__(self, pos, w, W):
        self.pos, self.w, self.W = pos, w, W
        self.unit = equal_weights(w)  # once, not per update
        self.unions = np.zeros((16, W), dtype=np.uint64)
        self.tp, self.fp = np.zeros(16), np.zeros(16)

    def points(self, rules, start=0):
        """``(fp, tp, unions)`` of ``rules`` (views, valid until the next
        call), the first ``start`` entries unchanged since the last call."""
        L = len(rules)
        if L + 1 > len(self.tp):
            size = max(2 * len(self.tp), L + 1)
            self.unions = np.concatenate(
                [self.unions, np.zeros((size - len(self.tp), self.W), dtype=np.uint64)])
            self.tp = np.concatenate([self.tp, np.zeros(size - len(self.tp))])
            self.fp = np.concatenate([self.fp, np.zeros(size - len(self.fp))])
        for j in range(start, L):
            np.bitwise_or(self.unions[j], rules[j].bits, out=self.unions[j + 1])
        if L > start:
            tp, fp = coverage_counts(self.unions[start + 1:L + 1], self.pos, self.w,
                                     self.unit)
            self.tp[start + 1:L + 1], self.fp[start + 1:L + 1] = tp, fp
        return self.fp[:L + 1], self.tp[:L + 1], self.unions[:L + 1]



def repair(rules, inserted, pos, w, W, P, N, curve=None):
    """After inserting ``rules[inserted]``, until the curve is strictly
    convex: at a concave point of ``rules[r]``, remove that rule if
    ``r >= inserted`` (it lost precision to the new rule), else merge it with
    the next one into a disjunction (Section 3). A rule that adds nothing is
    removed; one collinear with the next is merged with it (the hull does not
    change; next to the default rule, it is removed). Returns the index of
    the inserted rule (or of the disjunction holding it), ``None`` if it was
    removed. ``curve``: a :class:`ListCurve` whose points are those of
    ``rules`` before the insertion (the first ``inserted`` entries hold)."""
    if curve is None:
        curve, start = ListCurve(pos, w, W), 0
    else:
        start = inserted if inserted is not None else 0
    while True:
        fp, tp, _ = curve.points(rules, start)
        found = first_concavity(fp, tp, N, P)  # the curve ends at the default point
        if found is None:
            return inserted
        r, kind = found[0] - 1, found[1]  # the rule whose point it is
        start = r  # entries before r are not touched below
        last = r == len(rules) - 1
        if kind == "empty" or (kind == "collinear" and last) or (
                kind == "concave" and (inserted is None or r >= inserted)):
            del rules[r]
            if inserted is not None and r == inserted:
                inserted = None
            elif inserted is not None and r < inserted:
                inserted -= 1
        else:
            a, b = rules[r], rules[r + 1]
            rules[r:r + 2] = [ListRule(a.members + b.members, a.bits | b.bits)]
            if inserted is not None and inserted > r:
                inserted -= 1



def select_rules(candidates, pos, w, progress=None):
    """Algorithm 1 for one class: ``candidates`` (:class:`Candidates`, or
    their coverage bitsets as rows, in the order to try them) go into the
    list ``[R_default]`` by TryToInsertRule;
    returns the selected :class:`ListRule` s (without the default rule).
    ``progress(share of the candidates tried)`` is called every
    ``PROGRESS_EVERY`` seconds at most (it may raise to cancel)."""
    if not isinstance(candidates, Candidates):
        candidates = Candidates.from_bits(candidates, pos, w)
    W = pos.shape[0]
    P = float(np.dot(w, np.unpackbits(pos.view(np.uint8), bitorder="little")[:len(w)]))
    total = float(w.sum())
    N = total - P
    rules = []
    start = 0
    curve = ListCurve(pos, w, W)
    valid = 0  # the curve's first entries that match the list
    next_report = time.perf_counter() + PROGRESS_EVERY
    while start < len(candidates):
        fp, tp, unions = curve.points(rules, valid)
        seg_tp = np.diff(np.append(tp, P))
        seg_fp = np.diff(np.append(fp, N))
        k, j = first_insertion(candidates.item_bits, candidates.items, candidates.ends,
                               candidates.tp, candidates.fp, start, unions, seg_tp,
                               seg_fp, pos, w, curve.unit, total)
        if k < 0:
            break
        rules.insert(j, ListRule([k], candidates.bits(k)))
        repair(rules, j, pos, w, W, P, N, curve)
        valid = len(rules)  # repair left the curve at the list's points
        start = k + 1
        if progress and time.perf_counter() >= next_report:
            progress(start / len(candidates))
            next_report = time.perf_counter() + PROGRESS_EVERY
    return rules
