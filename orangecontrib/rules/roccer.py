"""ROCCER: rule selection by ROC convex hull from class association rules
(Prati & Flach 2005; doc/roccer.md).

* :func:`~orangecontrib.rules.features.make_items`: the items, ``A = v``
  of a discrete attribute and ``A >= t`` / ``A < t`` at cut points ``t`` of a
  numeric one (entropy-MDL,
  topped up with equal-frequency cuts to at least ``min_cuts``); an itemset
  holds at most one lower and one upper bound per attribute, so a rule tests
  intervals.
* :func:`core.mine_class_rules` (``core/_itemsets.pyx``, Eclat over
  bitsets) gives the candidates ``itemset -> class``.
* :func:`select_rules` is Algorithm 1 with the repair of the concavities
  an insertion causes (Section 3), compiled in ``core/_hull.pyx``
  (``HullSelection``).
* :class:`ROCCERModel` classifies by the likelihood ratio of the hull
  segment of the first rule that fires, per class, times the prior odds.
"""
from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from joblib import delayed

from .base import Explanation, RuleLearner, RuleModel, ViewerColumn
from .core import (HullSelection, coverage_counts, equal_weights,
                   mine_class_rules, pack_bits)
from .features import make_items
from .logistic import DEFAULT_LAMBDAS, choose_lambda, multinomial_l2
from .parallel import parallel_map
from . import params
from .rules import (Rule, conditions_texts, counted, covering, covering_sparse, head_text,
                    row_blocks)


# --------------------------------------------------------------- selection

@dataclass
class Candidates:
    """Candidate rules as itemsets, in the order Algorithm 1 tries them:
    candidate ``k`` covers the AND of ``item_bits[i]`` over its items
    ``items[ends[k - 1]:ends[k]]``. Only the items' bitsets are held, so
    any number of candidates fits in memory at any number of rows; a
    candidate's coverage is built when it is tried or selected
    (``core.HullSelection``), or by :meth:`bits`."""

    item_bits: np.ndarray   # uint64 (n_items, words)
    items: np.ndarray       # int32, the candidates' items concatenated
    ends: np.ndarray        # int32 (n_candidates,), where each one's items end
    tp: np.ndarray          # (n_candidates,) weight of the class's examples covered
    fp: np.ndarray          # and of the others

    @classmethod
    def from_bits(cls, bits, pos, w):
        """Candidates given by their coverage bitsets (one item each)."""
        bits = np.ascontiguousarray(bits, dtype=np.uint64)
        k = np.arange(len(bits), dtype=np.int32)
        tp, fp = coverage_counts(bits, pos, w)
        return cls(bits, k, k + 1, tp, fp)

    @classmethod
    def ordered(cls, item_bits, items, ends, support, cover, order):
        """The mined candidates (``items``, ``ends``, ``support``, ``cover``
        as ``core.mine_class_rules`` gives them) taken in ``order``."""
        starts = np.concatenate([[0], ends[:-1]]).astype(np.int64)
        lengths = (ends - starts)[order]
        new_ends = np.cumsum(lengths)
        offsets = np.arange(int(new_ends[-1]) if len(new_ends) else 0) - np.repeat(
            new_ends - lengths, lengths)
        flat = items[np.repeat(starts[order], lengths) + offsets]
        return cls(item_bits, flat.astype(np.int32), new_ends.astype(np.int32),
                   support[order], (cover - support)[order])

    def __len__(self):
        return len(self.ends)

    def bits(self, k):
        """The coverage bitset of candidate ``k``."""
        a = int(self.ends[k - 1]) if k else 0
        return np.bitwise_and.reduce(self.item_bits[self.items[a:int(self.ends[k])]], axis=0)


@dataclass
class ListRule:
    """An entry of a class's rule list: a disjunction of candidates (one,
    unless concavities merged some) and its coverage bitset."""

    members: list
    bits: np.ndarray


def list_points(rules, pos, w, W):
    """ROC points, in weights, of the partial lists: ``(fp, tp)`` after the
    first ``j`` rules for ``j = 0..L``, and the unions ``U_0..U_L``."""
    unions = np.zeros((len(rules) + 1, W), dtype=np.uint64)
    for j, r in enumerate(rules):
        np.bitwise_or(unions[j], r.bits, out=unions[j + 1])
    tp, fp = coverage_counts(unions, pos, w)
    return fp, tp, unions


#: seconds between progress reports of a long loop (a Cancel waits at most that)
PROGRESS_EVERY = 0.05


#: insertions per call of the compiled selection; between calls it reports
#: its progress (and hears a Cancel), every ``PROGRESS_EVERY`` seconds at most
SELECTION_CHUNK = 64


def select_rules(candidates, pos, w, progress=None):
    """Algorithm 1 for one class: ``candidates`` (:class:`Candidates`, or
    their coverage bitsets as rows, in the order to try them) go into the
    list ``[R_default]`` by TryToInsertRule, and after each insertion the
    list is repaired until its curve is strictly convex (Section 3: at a
    concave point the inserted rule, or a rule after it, is removed, a rule
    before it merged with the next into a disjunction; a rule that adds
    nothing is removed); returns the selected :class:`ListRule` s (without
    the default rule). Compiled (``core.HullSelection``, without the GIL);
    ``progress(share of the candidates tried)`` is called every
    ``PROGRESS_EVERY`` seconds at most (it may raise to cancel)."""
    if not isinstance(candidates, Candidates):
        candidates = Candidates.from_bits(candidates, pos, w)
    P = float(np.dot(w, np.unpackbits(pos.view(np.uint8), bitorder="little")[:len(w)]))
    total = float(w.sum())
    selection = HullSelection(candidates.item_bits, candidates.items, candidates.ends,
                              candidates.tp, candidates.fp, pos, w, P, total - P,
                              equal_weights(w), total)
    next_report = time.perf_counter() + PROGRESS_EVERY
    while selection.run(SELECTION_CHUNK):
        if progress and time.perf_counter() >= next_report:
            progress(selection.start / len(candidates))
            next_report = time.perf_counter() + PROGRESS_EVERY
    return [ListRule(members, bits) for members, bits in selection.entries()]


def on_every_row(selected, conditions, data):
    """The :class:`ListRule` s of a list selected on a sample, their
    coverage bitsets on every row of ``data``: each entry the OR of its
    members' conjunctions (``conditions[k]``, on ``data``'s attributes)."""
    members = [k for r in selected for k in r.members]
    if not members:
        return selected
    cover = covering_sparse([Rule(conditions[k], 0, np.zeros(1)) for k in members], data.X)
    out, start = [], 0
    for r in selected:  # an entry's members are consecutive columns
        fires = np.asarray(cover[:, start:start + len(r.members)].sum(axis=1)).ravel() > 0
        out.append(ListRule(r.members, pack_bits(fires.astype(np.uint8))))
        start += len(r.members)
    return out


def list_auc(rules, pos, w, W, P, N) -> float:
    """The area under the ROC curve of a class's rule list (its points after
    each rule, from (0, 0) to the default point (1, 1))."""
    fp, tp, _ = list_points(rules, pos, w, W)
    x = np.append(fp, N) / (N if N > 0 else 1)
    y = np.append(tp, P) / (P if P > 0 else 1)
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def within_budget(hulls, w, max_rules: int):
    """The classes' hull lists cut to ``max_rules`` rules in all (a
    disjunctive entry counts each of its rules): repeatedly the entry whose
    removal costs the least area under its class's ROC curve per rule it
    frees, weighted by the class's prior, is removed. The list keeps its order; its points are
    those of the rules left, so it need no longer be convex (repairing it
    would merge entries into disjunctions of many rules, spending the
    budget on fewer hull points). ``hulls``: per class ``(class, list, ...,
    pos, P, N, ...)`` as :meth:`ROCCERLearner.fit_rules` builds them; the
    lists are changed in place."""
    total_w = float(np.sum(w))
    while sum(len(r.members) for h in hulls for r in h[1]) > max_rules:
        best = None
        for h, (_, rules, _, pos, P, N, _, _) in enumerate(hulls):
            W = pos.shape[0]
            now = list_auc(rules, pos, w, W, P, N)
            for e in range(len(rules)):
                shorter = rules[:e] + rules[e + 1:]
                cost = (P / total_w * (now - list_auc(shorter, pos, w, W, P, N))
                        / len(rules[e].members))  # per rule it frees
                if best is None or cost < best[0] - 1e-15:
                    best = (cost, h, shorter)
        _, h, shorter = best
        hulls[h][1][:] = shorter


def distance_order(tp, fp, P, N):
    """Candidates by Euclidean distance of ``(fpr, tpr)`` to ``(0, 1)``
    (stable: ties keep the mining order)."""
    d = np.hypot(fp / N if N > 0 else 0 * fp, 1 - tp / P)
    return np.argsort(d, kind="stable")


# --------------------------------------------------------------- the model

@dataclass
class ClassRuleList:
    """The selected rules of one class, their ROC points (rates, after each
    rule of the list) and the weights ``P``, ``N`` they are rates of."""

    cls: int
    rules: list                    # per entry: conjunctions (tuples of Conditions), a disjunction
    points: np.ndarray             # (L + 2, 2): (fpr, tpr), from (0,0) to (1,1)
    P: float
    N: float
    n_candidates: int = 0
    columns: list = field(default_factory=list)  # rule_list indices per entry
    min_confidence: float = float("nan")         # the threshold its candidates met

    def likelihood_ratios(self, alpha=1.0):
        """Per segment (the L rules, then the default rule): ``(dtpr / dfpr)``
        with ``alpha`` added to both counts, so a segment without false
        positives has a finite ratio.  Rates are monotone; the clip removes
        rounding (a difference of -1e-17 times weights of 1e150 would make
        a negative ratio)."""
        d = np.clip(np.diff(self.points, axis=0), 0.0, None)
        dtp, dfp = d[:, 1] * self.P, d[:, 0] * self.N
        return ((dtp + alpha) / (self.P + 2 * alpha)) / ((dfp + alpha) / (self.N + 2 * alpha))


class ROCCERModel(RuleModel):
    """Per class a rule list on its ROC convex hull (``class_lists``); the
    ``rule_list`` holds every conjunction (a disjunctive entry contributes
    each of its members) with its segment's likelihood ratio as quality and
    its entry's ROC point in ``extra["roc_point"]``."""

    def __init__(self, domain, class_lists, class_distribution):
        self.class_lists = class_lists
        rules = []
        for cl in class_lists:
            lr = cl.likelihood_ratios()
            cl.columns = []
            for e, conjunctions in enumerate(cl.rules):
                cl.columns.append(np.arange(len(rules), len(rules) + len(conjunctions)))
                for conds in conjunctions:
                    rules.append(Rule(conds, cl.cls, np.zeros(len(domain.class_var.values)),
                                      quality=float(lr[e]), domain=domain,
                                      roc_point=tuple(map(float, cl.points[e + 1])),
                                      entry=e))
        super().__init__(domain, rules, class_distribution)

    plot_kind = "hull"

    def hull(self, cls: int):
        """``(points, rules per entry)`` of class ``cls``'s list: its ROC
        points from (0, 0) to (1, 1) and, per entry, the indices in
        ``rule_list`` of its rules (the Rule Viewer's hull plot)."""
        for cl in self.class_lists:
            if cl.cls == cls:
                return cl.points, [list(map(int, c)) for c in cl.columns]
        return np.array([[0.0, 0.0], [1.0, 1.0]]), []

    def viewer_columns(self):
        rules = self.rule_list
        pts = np.array([r.extra["roc_point"] for r in rules]).reshape(-1, 2)
        entry = np.array([r.extra["entry"] + 1 for r in rules], dtype=float)
        favours, against = self.rule_directions()
        own = np.array([r.head for r in rules], dtype=int)
        quality = np.array([r.quality for r in rules], dtype=float)
        # two classes with the hulls' odds: the segment's ratio for the
        # class the rule favours (for the other class of its list the
        # reciprocal); with the multinomial combination the head is the
        # class the entry's weights raise, and the ratio stays its list's
        flipped = (favours != own) & ~against & (self.combination is None)
        quality = np.where(flipped, 1 / quality, quality)
        ratio_tip = ("Slope of the rule's hull segment: how much a firing rule multiplies "
                     "the odds of the Class column's class ('not': below 1, it lowers them)."
                     if self.combination is None else
                     "Slope of the rule's hull segment in its class's list: how much a "
                     "firing rule multiplies the odds of its list's class (the Position "
                     "column's list; the Class column is the class the Weight raises).")
        columns = []
        if self.combination is not None:
            classes, _, W = self.combination
            weight = np.zeros(len(rules))
            j = 0
            for cl in self.class_lists:
                for cols in cl.columns:
                    w = np.sort(W[j])
                    weight[np.asarray(cols, dtype=int)] = w[-1] - (w[-2] if len(w) > 1 else 0)
                    j += 1
            columns.append(ViewerColumn(
                "Weight", weight, "How much the rule's list entry raises the log-odds of "
                "the Class column's class over the next class when it fires (the "
                "multinomial combination of the lists' entries)."))
        return columns + [
                ViewerColumn("Likelihood ratio", quality, ratio_tip),
                ViewerColumn("Position", entry, "Position in its class's rule list "
                                                "(a disjunction shares one).", 0),
                ViewerColumn("FPR", pts[:, 0], "False positive rate of the list up to "
                                               "and including this rule."),
                ViewerColumn("TPR", pts[:, 1], "True positive rate of the list up to "
                                               "and including this rule.")]

    def quality_column(self):
        """The rules' ``quality``: its hull segment's likelihood ratio for
        its own class (LR with ROCCER's rules names it so)."""
        return ViewerColumn("Likelihood ratio", np.array([r.quality for r in self.rule_list]),
                            "Slope of the rule's hull segment: how much a firing rule "
                            "multiplies the odds of its own class.")

    def summary_lines(self):
        """The rules listed, per class: as many hull points as list
        entries (a disjunction is one entry of several rules)."""
        cv = self.domain.class_var
        lines = super().summary_lines()
        if self.combination is None and self.decided_counts is not None:
            lines.append("Counts: the rows each rule decides in its class's list (it "
                         "fires and no earlier entry of the list does)")
        for cl in self.class_lists:
            n_rules = sum(len(c) for c in cl.rules)
            lines.append(f"{cv.values[cl.cls]}: {counted(n_rules, 'rules')} in "
                         f"{counted(len(cl.rules), 'hull points')}, of "
                         f"{counted(cl.n_candidates, 'candidates')}")
        if self.combination is not None:
            lines.append("Probabilities: one multinomial logistic regression over the "
                         "lists' entries")
        sample = getattr(self, "search_rows", None)
        if sample is not None:
            lines.append(f"Rules mined and selected on a sample of {sample:,} rows; "
                         "ROC points and probabilities from every row")
        return lines

    def rule_directions(self):
        """With the hulls' odds (two classes, ``multi_class="hulls"``), a
        rule favours its list's class when its segment's likelihood ratio is
        at least 1 (it raises the odds), and lowers it otherwise (two
        classes: it favours the other); with the multinomial combination, a
        rule favours the class its entry's weights raise most."""
        C = self.n_classes
        heads = np.array([r.head for r in self.rule_list], dtype=int)
        against = np.zeros(len(heads), dtype=bool)
        if self.combination is not None:
            classes, _, W = self.combination
            j = 0
            for cl in self.class_lists:
                for cols in cl.columns:
                    heads[np.asarray(cols, dtype=int)] = int(np.asarray(classes)[np.argmax(W[j])])
                    j += 1
            return heads, against
        for cl in self.class_lists:
            lr = cl.likelihood_ratios()
            for e, cols in enumerate(cl.columns):
                cols = np.asarray(cols, dtype=int)
                if lr[e] < 1:
                    if C == 2:
                        heads[cols] = 1 - cl.cls
                    else:
                        against[cols] = True
        return heads, against

    #: ``(n_rules, n_classes)``: the weighted training rows each rule
    #: decides (:meth:`counted_cover`), set by the learner; older pickles
    #: lack it and count the rows each rule covers
    decided_counts = None

    def deciding(self, cover) -> np.ndarray:
        """Boolean like ``cover`` (:meth:`covering`): per row and class list,
        the rule that decides the row in the list, the first firing rule of
        its first firing entry (the one :meth:`explain` names); a row no
        entry of a list covers is decided by the list's default."""
        out = np.zeros_like(cover, dtype=bool)
        for cl in self.class_lists:
            open_rows = np.ones(cover.shape[0], dtype=bool)
            for cols in cl.columns:
                cols = np.asarray(cols, dtype=int)
                fires = cover[:, cols]
                rows = np.flatnonzero(fires.any(axis=1) & open_rows)
                out[rows, cols[fires[rows].argmax(axis=1)]] = True
                open_rows &= ~fires.any(axis=1)
        return out

    def counted_cover(self, data) -> np.ndarray:
        """With the hulls' odds, each class's list is a decision list (its
        first firing entry gives the class's odds): a rule is counted on the
        rows it decides (:meth:`deciding`), the rows of its hull segment, so
        its counts say which class it favours (a rule late in its list may
        cover mostly its list's class, whose rows earlier entries took);
        with the multinomial combination every firing entry counts: the
        rows it covers."""
        cover = self.covering(data)
        return cover if self.combination is not None else self.deciding(cover)

    def rule_counts(self) -> np.ndarray:
        if self.combination is None and self.decided_counts is not None:
            return np.asarray(self.decided_counts, dtype=float)
        return super().rule_counts()

    def count_decided(self, X, y, w):
        """:attr:`decided_counts` on the training rows ``X`` (model columns),
        classes ``y``, weights ``w``, a block of rows at a time."""
        counts = np.zeros((len(self.rule_list), self.n_classes))
        for rows in row_blocks(X.shape[0], len(self.rule_list)):
            decided = self.deciding(covering(self.rule_list, X[rows]))
            for c in range(self.n_classes):
                of_c = y[rows] == c
                counts[:, c] += w[rows][of_c] @ decided[of_c]
        self.decided_counts = counts

    def classes_without_rules(self) -> list[int]:
        """Classes of the training data whose rule list is empty."""
        return [cl.cls for cl in self.class_lists if not cl.rules]

    #: ``(classes, b0, W)`` of the multinomial combination of the lists'
    #: entries (more than two classes, ``multi_class="logistic"``), else None
    combination = None

    def entry_indicators(self, X):
        """Sparse ``(n, entries)``: which list entries (any of an entry's
        rules) fire, the entries of every class's list in order."""
        import scipy.sparse as sp
        cover = covering(self.rule_list, self._model_X(X))
        cols = [cover[:, c].any(axis=1) for cl in self.class_lists for c in cl.columns]
        if not cols:
            return sp.csr_matrix((cover.shape[0], 0))
        return sp.csr_matrix(np.column_stack(cols).astype(float))

    def combined(self, X) -> np.ndarray:
        """Class probabilities of the multinomial combination of the entries
        (:meth:`ROCCERLearner.combine`); classes absent from the training
        data get 0."""
        from scipy.special import softmax
        classes, b0, W = self.combination
        out = np.zeros((X.shape[0], self.n_classes))
        out[:, classes] = softmax(b0 + np.asarray(self.entry_indicators(X) @ W), axis=1)
        return out

    def explain(self, data) -> list[Explanation]:
        """Per row, each class's first firing list entry (its first firing
        rule stands for it; :class:`base.Explanation`): with the hulls'
        odds, the log of the segment's likelihood ratio on its class (a
        class whose list does not fire: its default segment, in ``base``
        with the log prior odds; ``combine="sigmoids"``); with the
        multinomial combination, every firing entry's weights on every
        class (``combine="softmax"``, the intercepts in ``base``)."""
        X = self.model_X(data)
        cover = covering(self.rule_list, self._model_X(X))
        C = self.n_classes
        out = []
        if self.combination is not None:
            classes, b0, W = self.combination
            entries = [(cl, e, c) for cl in self.class_lists for e, c in enumerate(cl.columns)]
            base = np.full(C, -np.inf)
            base[classes] = b0
            for i in range(X.shape[0]):
                rules, rows = [], []
                for j, (cl, e, cols) in enumerate(entries):
                    fired = cols[cover[i, cols]]
                    if len(fired):
                        rules.append(int(fired[0]))
                        row = np.zeros(C)
                        row[classes] = W[j]
                        rows.append(row)
                out.append(Explanation(np.array(rules, dtype=int),
                                       np.array(rows).reshape(-1, C), base.copy(),
                                       "softmax", self.prior.copy(),
                                       base_label="the intercepts"))
            return out
        for i in range(X.shape[0]):
            base = np.full(C, -np.inf)
            rules, rows = [], []
            for cl in self.class_lists:
                lr = cl.likelihood_ratios()
                prior_odds = cl.P / cl.N if cl.N > 0 else np.inf
                base[cl.cls] = np.log(prior_odds)
                first = next((e for e, cols in enumerate(cl.columns) if cover[i, cols].any()),
                             None)
                if first is None:
                    base[cl.cls] += np.log(lr[-1])
                    continue
                cols = cl.columns[first]
                rules.append(int(cols[cover[i, cols]][0]))
                row = np.zeros(C)
                row[cl.cls] = np.log(lr[first])
                rows.append(row)
            out.append(Explanation(np.array(rules, dtype=int), np.array(rows).reshape(-1, C),
                                   base, "sigmoids", self.prior.copy(),
                                   base_label="the prior odds (and the default segment of "
                                              "a list no rule of which fires)"))
        return out

    def posteriors(self, X) -> np.ndarray:
        """Per class ``odds = LR(first firing rule's segment) * P / N`` as a
        probability ``odds / (1 + odds)`` (not normalised)."""
        cover = covering(self.rule_list, self._model_X(X))
        out = np.zeros((cover.shape[0], self.n_classes))
        for cl in self.class_lists:
            lr = cl.likelihood_ratios()
            seg = np.full(cover.shape[0], len(cl.rules))  # default segment
            for e in range(len(cl.rules) - 1, -1, -1):  # first firing wins
                seg[cover[:, cl.columns[e]].any(axis=1)] = e
            odds = lr[seg] * (cl.P / cl.N if cl.N > 0 else np.inf)
            out[:, cl.cls] = np.where(np.isinf(odds), 1.0, odds / (1 + odds))
        return out

    def predict(self, X):
        X = self._model_X(X)
        p = np.empty((X.shape[0], self.n_classes))
        for rows in row_blocks(X.shape[0], len(self.rule_list)):  # bounded memory
            p[rows] = (self.posteriors(X[rows]) if self.combination is None
                       else self.combined(X[rows]))
        s = p.sum(axis=1, keepdims=True)
        return np.where(s > 0, p / np.where(s > 0, s, 1), self.prior)

    def __str__(self):
        cv = self.domain.class_var
        n_rules, n_conditions = self.size
        lines = [f"ROCCERModel: {counted(n_rules, 'rules')}, "
                 f"{counted(n_conditions, 'conditions')}, in one rule list per class on "
                 "its ROC convex hull"]
        favours, against = self.rule_directions()
        for cl in self.class_lists:
            lines.append(f"\nclass {cv.name} = {cv.values[cl.cls]}: "
                         f"{counted(len(cl.rules), 'hull points')} "
                         f"({counted(sum(len(c) for c in cl.rules), 'rules')}) selected "
                         f"from {counted(cl.n_candidates, 'candidates')}"
                         f" (confidence >= {cl.min_confidence:.3g})")
            lr = cl.likelihood_ratios()
            for e, conjunctions in enumerate(cl.rules):
                body = " OR ".join(
                    "(" + " AND ".join(conditions_texts(conds, self.domain)) + ")"
                    for conds in conjunctions)
                fpr, tpr = cl.points[e + 1]
                k = int(cl.columns[e][0])
                head = head_text(self.domain, int(favours[k]), bool(against[k]))
                # the ratio for the printed class, as the viewer shows it: an
                # entry that lowers its list's class (two classes, the hulls'
                # odds) favours the other, by the reciprocal; with the
                # multinomial combination the head is the class the entry's
                # weights raise, and the ratio, its list's, names its class
                if self.combination is not None:
                    ratio = (f"likelihood ratio {lr[e]:.2f}" if favours[k] == cl.cls else
                             f"likelihood ratio of {cv.values[cl.cls]} {lr[e]:.2f}")
                else:
                    flip = favours[k] != cl.cls and not against[k]
                    ratio = f"likelihood ratio {1 / lr[e] if flip else lr[e]:.2f}"
                # the entry's rules by their numbers in rule_list, as the
                # explanations and the viewer cite them
                numbers = [int(c) + 1 for c in cl.columns[e]]
                which = (f"rule {numbers[0]}" if len(numbers) == 1 else
                         f"rules {numbers[0]}-{numbers[-1]}")
                lines.append(f"  {e + 1}. IF {body} THEN {head}  ({which}; FPR {fpr:.3f}, "
                             f"TPR {tpr:.3f}, {ratio})")
            lines.append(f"  default: no rule of the list fires  (likelihood ratio "
                         f"{lr[-1]:.2f})")
        return "\n".join(lines)


# --------------------------------------------------------------- the learner

class ROCCERLearner(RuleLearner):
    """Prati & Flach (2005): class association rules selected per class by
    ROC convex hull (Algorithm 1), one list per class (one-vs-rest).

    The candidates are itemsets (:func:`make_items`: numeric attributes cut
    at entropy-MDL points, topped up with equal-frequency ones) of enough
    support and confidence; by default a class's confidence threshold is
    relative to its prior ``p``, ``min(0.5, min_lift * p)``: the paper's
    50% for two classes of similar size, and every class with support gets
    candidates. When a class's itemsets of up to ``max_length`` items are
    more than ``max_candidates`` (or mining them visits more than three
    times as many itemsets), the longest length whose itemsets fit is used
    (``model.stats["length"]`` says which). Beyond ``search_rows`` rows the
    cuts, the mining and the selection use a stratified sample and the
    lists' ROC points every row (doc/roccer.md, "Many rows"). Two classes:
    the hull odds (the paper's probabilities); more: see ``multi_class``.

    Parameters
    ----------
    min_support : float in (0, 1] or None, default None
        Least support of a candidate, a share of the weight (``None``: a
        third of the smallest class's share, the paper's setting).
    min_confidence : float in [0, 1] or None, default None
        Least confidence of a candidate (``None``: ``min(0.5, min_lift *
        prior)`` per class).
    min_lift : float > 0, default 2.0
        The lift of the default confidence threshold ("``min_lift`` times
        better than chance" for a rare class).
    max_length : int in [1, 100], default 4
        At most this many items per candidate.
    min_cuts : int in [0, 10000], default 4
        The least cut points of a numeric attribute.
    max_cuts : int >= 1 or None, default None
        At most this many cut points of a numeric attribute (evenly spaced
        among the entropy-MDL ones; ``None``: all).
    numeric : {"thresholds", "intervals"}, default "thresholds"
        Items ``A >= t`` / ``A < t``, or the paper's items, one interval of
        the entropy-MDL discretisation each.
    max_candidates : int >= 1, default 200000
        Candidate budget of a class.
    max_memory_mb : float > 0 or None, default None
        Deprecated and ignored (the candidates are kept as their items, not
        as coverage bitsets, so their memory does not grow with the rows);
        setting it warns.
    max_rules : int >= 1 or None, default None
        At most this many rules on the hulls of all classes.
    multi_class : {"logistic", "hulls"}, default "logistic"
        More than two classes: the class probabilities of one multinomial
        logistic regression over the entries of every class's list, or each
        class's hull odds normalised.
    lambda_ : float >= 0 or None, default None
        L2 weight of that regression (``None``: chosen by internal 5-fold
        CV, folds seeded by ``random_state``).
    search_rows : int >= 1 or None, default 100000
        On more rows, the cut points, the mining and the selection use a
        stratified sample of this many; the lists' ROC points, likelihood
        ratios and probabilities use every row (``None``: every row).
    n_jobs : int or None, default None
        The classes' mining and selection in this many threads (``-1``: all
        cores); the model does not depend on it.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of the internal CV's folds and of the search sample.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "ROCCER"
    __returns__ = ROCCERModel
    search_key = 0x524F43  # the search sample's seed

    parameters = params.ParameterTable(
        params.number("min_support", "least support of a candidate, a share of the weight",
                      0, 1, low_open=True, none=True, spin=(0.001, 1.0)),
        params.number("min_confidence", "least confidence of a candidate", 0, 1, none=True),
        params.number("min_lift", "the lift of the default confidence threshold", 0,
                      low_open=True, spin=(1.0, 20.0)),
        params.integer("max_length", "at most this many items per candidate", 1, 100,
                       spin=(1, 10)),
        params.integer("min_cuts", "the least cut points of a numeric attribute", 0, 10_000,
                       spin=(0, 20)),
        params.integer("max_cuts", "at most this many cut points of a numeric attribute", 1,
                       none=True),
        params.choice("numeric", "items are thresholds or the paper's intervals",
                      ("thresholds", "intervals")),
        params.integer("max_candidates", "candidate budget of a class", 1),
        params.number("max_memory_mb", "deprecated and ignored", 0, low_open=True, none=True),
        params.max_rules("at most this many rules on the hulls of all classes"),
        params.choice("multi_class", "more than two classes: a regression over the lists' "
                                     "entries, or the hulls' odds", ("logistic", "hulls")),
        params.number("lambda_", "L2 weight of that regression (None: internal CV)", 0,
                      none=True),
        params.search_rows("rows of the search sample"),
        params.n_jobs(),
        params.random_state("seed of the internal CV's folds and of the search sample"),
    )

    def __init__(self, min_support=None, min_confidence=None, min_lift=2.0,
                 max_length=4, min_cuts=4, max_cuts=None, numeric="thresholds",
                 max_candidates=200_000, max_memory_mb=None, max_rules=None,
                 multi_class="logistic", lambda_=None, search_rows=100_000, n_jobs=None,
                 random_state=0, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())
        if max_memory_mb is not None:
            warnings.warn("ROCCERLearner(max_memory_mb=...) is ignored: the candidates are "
                          "kept as their items, whose memory does not grow with their "
                          "number", FutureWarning, stacklevel=2)

    def support_fraction(self, dist):
        if self.min_support is not None:
            return self.min_support
        share = dist[dist > 0].min() / dist.sum()
        return share / 3

    def confidence_threshold(self, prior: float) -> float:
        """The minimum confidence of a class's candidates."""
        if self.min_confidence is not None:
            return float(self.min_confidence)
        return min(0.5, self.min_lift * prior)

    def fit_rules(self, data, enc):
        y, w = enc.y, enc.w
        dist = enc.class_distribution()
        classes = [c for c in range(enc.n_classes) if dist[c] > 0]
        # the items, mining and selection on a stratified sample beyond
        # search_rows rows; the lists' ROC points (so the probabilities) on all
        sample = self.search_sample(y, data.domain.class_var.values)
        s_data, s_enc = (data, enc) if sample is None else (data[sample], enc.subset(sample))
        s_y, s_w = s_enc.y, s_enc.w
        n_attrs = len(data.domain.attributes)
        items = make_items(s_data, s_enc, self.min_cuts, self.max_cuts, self.numeric,
                           report=lambda a: self.progress(0.02 * a / n_attrs,
                                                          "Cutting the attributes"))
        self.progress(0.02, "Mining candidate rules")
        s_dist = s_enc.class_distribution()
        min_sup = self.support_fraction(dist) * s_w.sum()
        stats = dict(candidates={}, length={}, mining_s=0.0, selection_s=0.0, complete=True)
        # the classes' mining and selection are independent: they run in
        # n_jobs threads (the mining and the insertion tests release the GIL)
        report = self.task_progress(0.02, 0.95, len(classes), "Selecting rules: {} so far")
        class_weights = [(float(dist[c]), float(w.sum() - dist[c])) for c in classes]
        confs = [self.confidence_threshold(P / (P + N)) for P, N in class_weights]
        jobs = (delayed(self._class_hull)(
                    items.bits, items.group, s_y == c, s_w, float(s_dist[c]),
                    float(s_w.sum() - s_dist[c]), min_sup, conf, report, i)
                for i, (c, conf) in enumerate(zip(classes, confs)))
        hulls = []  # per class: (class, its hull list, conditions per candidate, ...)
        kept = 0  # rules on the lists so far, for the progress text
        for i, (c, (P, N), conf, (selected, members, n_cand, length, complete, mining_s,
                                  selection_s)) in enumerate(
                zip(classes, class_weights, confs, parallel_map(jobs, self.n_jobs))):
            conditions = {k: tuple(cond for it in its for cond in items.conditions[it])
                          for k, its in members.items()}  # of the selected only
            pos = pack_bits((y == c).astype(np.uint8))
            if sample is not None:
                selected = on_every_row(selected, conditions, data)
            hulls.append((c, selected, conditions, pos, P, N, n_cand, conf))
            stats["candidates"][c] = n_cand
            stats["length"][c] = length
            stats["mining_s"] += mining_s
            stats["selection_s"] += selection_s
            stats["complete"] &= complete
            kept += sum(len(r.members) for r in selected)
            if report is None:
                self.progress(0.02 + 0.93 * (i + 1) / len(classes),
                              f"Selecting rules: {kept} so far")
        lists = []
        if self.max_rules is not None:
            within_budget(hulls, w, self.max_rules)
        for c, selected, conditions, pos, P, N, n_cand, conf in hulls:
            entries = [[conditions[k] for k in r.members] for r in selected]
            fp, tp, _ = list_points(selected, pos, w, pos.shape[0])
            points = np.column_stack([np.append(fp, N) / (N if N > 0 else 1),
                                      np.append(tp, P) / P])
            lists.append(ClassRuleList(c, entries, points, P, N, n_cand,
                                       min_confidence=conf))
        model = ROCCERModel(data.domain, lists, dist)
        model.set_rule_distributions(data, enc)
        model.stats = stats  # candidates per class, seconds mining / selecting
        model.search_rows = len(sample) if sample is not None else None
        if len(classes) > 2 and self.multi_class == "logistic" and model.rule_list:
            self.progress(0.95, "Combining the classes' lists")
            model.combination = self.combine(model, data, enc, classes, sample)
        if model.combination is None and model.rule_list:
            model.count_decided(model._model_X(data.X), y, w)
        return model

    def _class_hull(self, item_bits, item_group, s_is_c, s_w, s_P, s_N, min_sup, conf,
                    report=None, task=0):
        """One class's candidates and ROC hull list (a task of
        :meth:`fit_rules`): the candidates mined on the search rows
        (``s_is_c`` marks the class's, ``s_P``, ``s_N`` the weights of the
        class and of the rest there, ``conf`` its confidence threshold) in
        order of their distance to the ROC heaven, then Algorithm 1.
        Returns ``(selected, members, n_candidates, length, complete,
        mining seconds, selection seconds)``: the :class:`ListRule` s, and
        per candidate on them its items. ``report(task, fraction, found)``:
        :meth:`RuleLearner.task_progress`'s function, told as the selection
        goes (it may raise to cancel)."""
        s_pos = pack_bits(np.asarray(s_is_c, dtype=np.uint8))
        t0 = time.perf_counter()
        # the longest length that fits the budget, in one search (a budget
        # beyond what a C integer holds is no budget: sys.maxsize // 3)
        budget = min(self.max_candidates, sys.maxsize // 3)
        found, ends, sup, cov, _, complete, length = mine_class_rules(
            item_bits, item_group, s_pos, s_w, min_sup * (1 - 1e-12), conf,
            self.max_length, budget, True, 3 * budget, with_bits=False, shorten=True)
        t1 = time.perf_counter()
        order = distance_order(sup, cov - sup, s_P, s_N)
        progress = None if report is None else (lambda f: report(task, f, 0))
        selected = select_rules(  # progress (and Cancel) after every insertion
            Candidates.ordered(item_bits, found, ends, sup, cov, order), s_pos, s_w, progress)
        t2 = time.perf_counter()
        if report is not None:
            report(task, 1.0, sum(len(r.members) for r in selected))
        starts = np.concatenate([[0], ends[:-1]])
        members = {k: tuple(int(it) for it in found[starts[order[k]]:ends[order[k]]])
                   for r in selected for k in r.members}
        return selected, members, len(sup), length, bool(complete), t1 - t0, t2 - t1

    def combine(self, model, data, enc, classes, rows=None):
        """More than two classes: the class probabilities from one
        multinomial logistic regression over the entries of every class's
        list (0/1: does the entry fire), L2 weight by internal CV
        (:func:`logistic.choose_lambda`) unless ``lambda_`` gives it (then a
        weight of ``k`` is ``k`` copies of the row). Each class's ROC hull orders only
        its own rules; the regression learns what an entry says of every
        class (doc/roccer.md, "Many classes"). ``rows``: the search sample,
        on which the internal CV chooses the weight (``None``: every row);
        the regression is fitted on every row. Returns ``(classes, b0,
        W)``."""
        E = model.entry_indicators(data.X)
        # the loss and lambda divided by the mean weight, as in LR with rules:
        # the same minimiser (a weight of k is k rows), finite for any weights
        scale = len(enc.w) / enc.w.sum()
        w = enc.w * scale
        local = np.zeros(enc.n_classes, dtype=int)
        local[classes] = np.arange(len(classes))
        y = local[enc.y]
        cv = slice(None) if rows is None else rows
        lam = (self.lambda_ * scale if self.lambda_ is not None else
               choose_lambda(E[cv], y[cv], w[cv], [x * scale for x in DEFAULT_LAMBDAS],
                             n_classes=len(classes), random_state=self.random_state))
        b0, W = multinomial_l2(E, y, w, lam, len(classes))
        return np.asarray(classes), b0, W
