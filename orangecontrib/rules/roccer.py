"""ROCCER: rule selection by ROC convex hull from class association rules
(Prati & Flach 2005; algorithms.md §5).

* :class:`MDLDiscretise` makes continuous attributes nominal (entropy-MDL,
  equal-frequency bins where MDL finds no cut).
* :func:`core.mine_class_rules` (``core/_itemsets.pyx``, Eclat over
  bitsets) gives the candidates ``itemset -> class``.
* :func:`select_rules` is Algorithm 1, with the insertion test of
  ``core/_hull.pyx``; :func:`repair` removes the concavities an insertion
  causes (Section 3).
* :class:`ROCCERModel` classifies by the likelihood ratio of the hull
  segment of the first rule that fires, per class, times the prior odds.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from Orange.data import Domain, Table
from Orange.preprocess import Preprocess
from Orange.preprocess.discretize import EntropyMDL, EqualFreq

from .base import RuleLearner, RuleModel
from .core import coverage_counts, first_insertion, mine_class_rules, pack_bits
from .encoding import Literals
from .rules import Condition, Rule


class MDLDiscretise(Preprocess):
    """Continuous attributes by Fayyad & Irani's entropy-MDL criterion
    (Orange's ``EntropyMDL``); an attribute MDL leaves whole is cut into
    ``n_fallback`` equal-frequency intervals instead; one that is constant
    even then is dropped."""

    def __init__(self, n_fallback=4):
        self.n_fallback = n_fallback

    def __call__(self, data: Table) -> Table:
        if len(data) == 0 or (data.has_weights() and not np.any(data.W > 0)):
            return data  # nothing to cut on; the learner reports or fits the prior
        attrs = []
        for var in data.domain.attributes:
            if not var.is_continuous:
                attrs.append(var)
                continue
            new = EntropyMDL()(data, var)
            if len(new.values) < 2:
                new = EqualFreq(n=self.n_fallback)(data, var)
            if len(new.values) >= 2:
                attrs.append(new)
        return data.transform(Domain(attrs, data.domain.class_vars, data.domain.metas))


# --------------------------------------------------------------- selection

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
        unions[j + 1] = unions[j] | r.bits
    tp, fp = coverage_counts(unions, pos, w)
    return fp, tp, unions


def _first_concavity(fp, tp):
    """The first inner point ``i`` (1..L) of the curve ``(fp, tp)`` (which
    ends at the default point) that is not a strict vertex of an upper
    convex hull, as ``(i, kind)``: ``"empty"`` (the rule adds nothing),
    ``"collinear"`` or ``"concave"`` (the curve turns left); ``None`` if the
    curve is strictly convex."""
    for i in range(1, len(fp) - 1):
        dx1, dy1 = fp[i] - fp[i - 1], tp[i] - tp[i - 1]
        dx2, dy2 = fp[i + 1] - fp[i], tp[i + 1] - tp[i]
        if dx1 == 0 and dy1 == 0:
            return i, "empty"
        cross = dx1 * dy2 - dy1 * dx2
        tol = 1e-9 * (abs(dx1 * dy2) + abs(dy1 * dx2))
        if cross > tol:
            return i, "concave"
        if cross >= -tol:
            return i, "collinear"
    return None


def repair(rules, inserted, pos, w, W, P, N):
    """After inserting ``rules[inserted]``, until the curve is strictly
    convex: at a concave point of ``rules[r]``, remove that rule if
    ``r >= inserted`` (it lost precision to the new rule), else merge it with
    the next one into a disjunction (Section 3). A rule that adds nothing is
    removed; one collinear with the next is merged with it (the hull does not
    change; next to the default rule, it is removed). Returns the index of
    the inserted rule (or of the disjunction holding it), ``None`` if it was
    removed."""
    while True:
        fp, tp, _ = list_points(rules, pos, w, W)
        found = _first_concavity(np.append(fp, N), np.append(tp, P))
        if found is None:
            return inserted
        r, kind = found[0] - 1, found[1]  # the rule whose point it is
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


def select_rules(cand_bits, pos, w, progress=None):
    """Algorithm 1 for one class: candidates (rows of ``cand_bits``, in the
    order to try them) go into the list ``[R_default]`` by TryToInsertRule;
    returns the selected :class:`ListRule` s (without the default rule)."""
    W = cand_bits.shape[1]
    P = float(np.dot(w, np.unpackbits(pos.view(np.uint8), bitorder="little")[:len(w)]))
    N = float(w.sum()) - P
    rules = []
    start = 0
    while start < len(cand_bits):
        fp, tp, unions = list_points(rules, pos, w, W)
        seg_tp = np.diff(np.append(tp, P))
        seg_fp = np.diff(np.append(fp, N))
        k, j = first_insertion(cand_bits, start, unions, seg_tp, seg_fp, pos, w)
        if k < 0:
            break
        rules.insert(j, ListRule([k], cand_bits[k].copy()))
        repair(rules, j, pos, w, W, P, N)
        start = k + 1
        if progress:
            progress(start / len(cand_bits))
    return rules


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
    rules: list                    # per entry: list of itemsets (disjunction)
    points: np.ndarray             # (L + 2, 2): (fpr, tpr), from (0,0) to (1,1)
    P: float
    N: float
    n_candidates: int = 0
    columns: list = field(default_factory=list)  # rule_list indices per entry

    def likelihood_ratios(self, alpha=1.0):
        """Per segment (the L rules, then the default rule): ``(dtpr / dfpr)``
        with ``alpha`` added to both counts, so a segment without false
        positives has a finite ratio."""
        d = np.diff(self.points, axis=0)
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
            for e, itemsets in enumerate(cl.rules):
                cl.columns.append(np.arange(len(rules), len(rules) + len(itemsets)))
                for items in itemsets:
                    conds = [Condition(a, "==", v) for a, v in items]
                    rules.append(Rule(conds, cl.cls, np.zeros(len(domain.class_var.values)),
                                      quality=float(lr[e]), domain=domain,
                                      roc_point=tuple(map(float, cl.points[e + 1])),
                                      entry=e))
        super().__init__(domain, rules, class_distribution)

    def posteriors(self, X) -> np.ndarray:
        """Per class ``odds = LR(first firing rule's segment) * P / N`` as a
        probability ``odds / (1 + odds)`` (not normalised)."""
        cover = self.covering(X)
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
        p = self.posteriors(X)
        s = p.sum(axis=1, keepdims=True)
        return np.where(s > 0, p / np.where(s > 0, s, 1), self.prior)

    def __str__(self):
        cv = self.domain.class_var
        lines = [f"ROCCERModel: {len(self.rule_list)} rules"]
        for cl in self.class_lists:
            lines.append(f"\nclass {cv.name} = {cv.values[cl.cls]}: {len(cl.rules)} "
                         f"rules selected from {cl.n_candidates} candidates")
            lr = cl.likelihood_ratios()
            for e, itemsets in enumerate(cl.rules):
                body = " OR ".join(
                    "(" + " AND ".join(
                        f"{self.domain.attributes[a].name} = "
                        f"{self.domain.attributes[a].values[v]}" for a, v in items) + ")"
                    for items in itemsets)
                fpr, tpr = cl.points[e + 1]
                lines.append(f"  {e + 1}. IF {body}  (fpr {fpr:.3f}, tpr {tpr:.3f}, "
                             f"LR {lr[e]:.2f})")
            lines.append(f"  default  (LR {lr[-1]:.2f})")
        return "\n".join(lines)


# --------------------------------------------------------------- the learner

class ROCCERLearner(RuleLearner):
    """Prati & Flach (2005): class association rules (minimum confidence
    ``min_confidence``, minimum support ``min_support`` as a fraction of the
    examples; default: one third of the minority class's share, the paper's
    setting; at most ``max_length`` items) selected per class by ROC convex
    hull (Algorithm 1). ``n_fallback``: equal-frequency intervals for
    continuous attributes entropy-MDL leaves whole; ``max_candidates``:
    stop mining a class at this many candidates."""

    name = "ROCCER"

    def __init__(self, min_support=None, min_confidence=0.5, max_length=4,
                 n_fallback=4, max_candidates=1_000_000, preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        if min_support is not None and not 0 < min_support <= 1:
            raise ValueError("min_support must be in (0, 1]")
        if not 0 <= min_confidence <= 1:
            raise ValueError("min_confidence must be in [0, 1]")
        if int(max_length) < 1 or int(n_fallback) < 2 or int(max_candidates) < 1:
            raise ValueError("max_length, max_candidates must be >= 1, n_fallback >= 2")
        self.min_support, self.min_confidence = min_support, float(min_confidence)
        self.max_length, self.n_fallback = int(max_length), int(n_fallback)
        self.max_candidates = int(max_candidates)
        self.params = dict(min_support=min_support, min_confidence=min_confidence,
                           max_length=max_length, n_fallback=n_fallback,
                           max_candidates=max_candidates)

    @property
    def active_preprocessors(self):
        yield from super().active_preprocessors
        yield MDLDiscretise(self.n_fallback)  # items are A = v

    def support_fraction(self, dist):
        if self.min_support is not None:
            return self.min_support
        share = dist[dist > 0].min() / dist.sum()
        return share / 3

    def fit_rules(self, data, enc):
        Xd, y, w = enc.Xd, enc.y, enc.w
        lits = Literals.of(Xd, enc.n_values)
        dist = enc.class_distribution()
        min_sup = self.support_fraction(dist) * w.sum()
        classes = [c for c in range(enc.n_classes) if dist[c] > 0]
        lists, stats = [], dict(candidates={}, mining_s=0.0, selection_s=0.0,
                                complete=True)
        for i, c in enumerate(classes):
            pos = pack_bits((y == c).astype(np.uint8))
            t0 = time.perf_counter()
            items, ends, sup, cov, bits, complete = mine_class_rules(
                lits.bits, lits.attr, pos, w, min_sup * (1 - 1e-12),
                self.min_confidence, self.max_length, self.max_candidates)
            t1 = time.perf_counter()
            P, N = float(dist[c]), float(w.sum() - dist[c])
            order = distance_order(sup, cov - sup, P, N)
            self.progress((i + 0.5) / len(classes), "Selecting rules")
            selected = select_rules(np.ascontiguousarray(bits[order]), pos, w)
            t2 = time.perf_counter()
            starts = np.concatenate([[0], ends[:-1]])
            itemsets = [[(int(lits.attr[it]), int(lits.value[it]))
                         for it in items[starts[order[k]]:ends[order[k]]]]
                        for r in selected for k in r.members]
            entries, pos_i = [], 0
            for r in selected:
                entries.append(itemsets[pos_i:pos_i + len(r.members)])
                pos_i += len(r.members)
            fp, tp, _ = list_points(selected, pos, w, bits.shape[1])
            points = np.column_stack([np.append(fp, N) / (N if N > 0 else 1),
                                      np.append(tp, P) / P])
            lists.append(ClassRuleList(c, entries, points, P, N, len(sup)))
            stats["candidates"][c] = len(sup)
            stats["mining_s"] += t1 - t0
            stats["selection_s"] += t2 - t1
            stats["complete"] &= bool(complete)
            self.progress((i + 1) / len(classes), "Selecting rules")
        model = ROCCERModel(data.domain, lists, dist)
        model.set_rule_distributions(data, enc)
        model.stats = stats  # candidates per class, seconds mining / selecting
        return model
