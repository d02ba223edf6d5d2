"""SLIPPER: boosting confidence-rated rules (Cohen & Singer 1999).

Section numbers and equations are the paper's; ``doc/slipper.md``
states the algorithm completely, with the project's extensions
(probabilities, multi-class, choice of ``T`` by internal cross-validation).

The grow step asks the shared coverage core for the weighted class counts of
every refinement of the current rule (per value of each discrete attribute,
cumulative along each presorted continuous column), so each refinement is
one pass over the data per attribute in Cython. A sparse table's columns are
swept over their non-zero entries only, with the same result.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .base import (Explanation, RuleLearner, RuleModel, ViewerColumn, class_preference,
                   in_name_order)
from .core import (KIND_CONTINUOUS, KIND_DISCRETE, OP_EQ, OP_GE, OP_LE,
                   best_sqrt_thresholds, best_sqrt_thresholds_sparse, class_sums,
                   class_weights, column_mask, compact_sorted, discrete_refinements,
                   fixed_point, grow_dense, prune_table, reweight, signed_fixed_point,
                   split_grow, SortedBins, tie_groups)
from .features import EncodedData, ShortThresholds, stored_order
from .parallel import parallel_jobs, parallel_map
from . import params
from .rules import (Condition, Rule, canonical_conditions, counted, covering, covering_sparse,
                    rule_text)
from .slipper_rounds import choose_rounds, class_rounds, even_rounds, rounds_and_final

OP_NAMES = {OP_EQ: "==", OP_LE: "<=", OP_GE: ">="}


# ------------------------------------------------------------ the equations
def smoothed_confidence(w_pos, w_neg, n):
    """Eq. 4: ``C = 1/2 ln((W+ + 1/(2n)) / (W- + 1/(2n)))``."""
    eps = 1 / (2 * n)
    return 0.5 * np.log((w_pos + eps) / (w_neg + eps))


def z_score(w_pos, w_neg):
    """Eq. 5: ``Z = 1 - (sqrt(W+) - sqrt(W-))^2`` (``D`` sums to 1)."""
    return 1 - (np.sqrt(w_pos) - np.sqrt(w_neg)) ** 2


def grow_objective(w_pos, w_neg):
    """Eq. 6: ``Z~ = sqrt(W+) - sqrt(W-)``, maximised by GrowRule."""
    return np.sqrt(w_pos) - np.sqrt(w_neg)


def prune_loss(v_pos, v_neg, c):
    """Eq. 7: ``(1 - V+ - V-) + V+ exp(-C) + V- exp(C)`` on the PruneSet."""
    return (1 - v_pos - v_neg) + v_pos * np.exp(-c) + v_neg * np.exp(c)


# ------------------------------------------------------------ the weak learner
@dataclass
class _Cond:
    kind: int
    col: int
    op: int
    value: float


def _condition_mask(enc: EncodedData, cond: _Cond, XcT=None) -> np.ndarray:
    """Examples satisfying ``cond`` (the core's test: a missing value
    satisfies nothing). ``XcT``: ``enc.Xc`` transposed and contiguous, or
    anything else whose ``[j]`` is column ``j`` contiguous (a column is then
    read sequentially, much faster than a strided column of ``enc.Xc``), or
    ``None`` (a sparse ``Xc``'s column made dense alone)."""
    if cond.kind == KIND_DISCRETE:
        return column_mask(enc.Xd[:, cond.col].astype(float), OP_EQ, int(cond.value))
    x = enc.column(cond.col) if XcT is None else XcT[cond.col]
    return column_mask(x, cond.op, cond.value)


class _ColumnCopies:
    """``enc.column(j)`` copied once into contiguous memory per column, for
    the conditions of the final rules (a column of ``enc.Xc`` is strided,
    one cache line a value; doc/slipper.md, "Sweeps by bins"). Called or
    indexed (as :func:`_condition_mask` reads its ``XcT``)."""

    def __init__(self, enc: EncodedData):
        self.enc, self.copies = enc, {}

    def __call__(self, j: int) -> np.ndarray:
        if j not in self.copies:
            self.copies[j] = np.ascontiguousarray(self.enc.column(j), dtype=float)
        return self.copies[j]

    __getitem__ = __call__


def _transposed(enc: EncodedData):
    """``enc.Xc`` transposed and contiguous, or ``None`` when it is sparse."""
    return None if sp.issparse(enc.Xc) else np.ascontiguousarray(enc.Xc.T)


def _best_refinement(enc: EncodedData, ypos, D, covered, sweep, beat=-np.inf):
    """The condition maximising eq. 6 among all refinements of the rule that
    covers ``covered`` (GrowSet examples only): ``(score, _Cond, W+, W-)``,
    the last two the weights the refined rule keeps covered; ``_Cond`` is
    ``None`` when no refinement scores above ``beat`` (the grower wants
    none that does not).
    ``sweep``: the continuous columns' best thresholds for a coverage
    (:meth:`_FitCache.sweep`)."""
    mask = covered.view(np.uint8)
    best, best_cond, wp, wn = -np.inf, None, 0.0, 0.0
    if enc.Xd.shape[1]:
        counts = discrete_refinements(enc.Xd, enc.n_values, ypos, D, mask, 2)
        scores = grow_objective(counts[:, :, 1], counts[:, :, 0])
        for a in range(counts.shape[0]):  # values an attribute does not have
            scores[a, enc.n_values[a]:] = -np.inf
        a, v = np.unravel_index(np.argmax(scores), scores.shape)
        if scores[a, v] > max(best, beat):
            best, best_cond = scores[a, v], _Cond(KIND_DISCRETE, a, OP_EQ, v)
            wp, wn = counts[a, v, 1], counts[a, v, 0]
    if enc.Xc.shape[1]:  # one fused sweep per sorted column (core/_slipper.pyx)
        # only a column beating the discrete best and ``beat`` is reported
        scores, thr, ops, wps, wns = sweep(covered, max(best, beat))
        j = int(np.argmax(scores))
        if scores[j] > best:
            best, best_cond = scores[j], _Cond(KIND_CONTINUOUS, j, int(ops[j]), thr[j])
            wp, wn = wps[j], wns[j]
    return best, best_cond, wp, wn


#: the grower's bins (``core.SortedBins``) hold about this many examples
#: each (at most ``core.MAX_BINS`` of them per column)
BIN_ROWS = 32


class _FitCache:
    """What stays fixed during a fit: each continuous column transposed
    (``XcT``) and the tie groups of its sorted order (``groups``,
    ``core.tie_groups``); for a sparse ``Xc`` instead the sort order of its
    non-zero entries (``stored``, :func:`features.stored_order`), memory in
    proportion to them."""

    def __init__(self, enc):
        self.enc = enc
        self.XcT = _transposed(enc)
        self.groups = self.stored = self.bins = None
        if self.XcT is None:
            self.stored = stored_order(enc.Xc)
        else:
            self.groups = tie_groups(enc.order, self.XcT, enc.n_valid)
            self.bins = SortedBins(enc.order, self.groups, enc.n_valid, BIN_ROWS)

    @property
    def nbytes(self) -> int:
        bins = (self.bins.codes, self.bins.starts) if self.bins is not None else ()
        return sum(a.nbytes for a in (self.XcT, self.groups, *bins, *(self.stored or ()))
                   if a is not None)

    def sweep(self, ypos, D, grow):
        """For one grow from the GrowSet ``grow``: a function of a coverage
        (a subset of ``grow``) and a score to beat giving the best threshold
        of the continuous columns (``core.best_sqrt_thresholds`` with
        ``beat``: the column of the best is the argmax of the scores).
        The signed weights are
        taken in fixed point (``core.fixed_point``), so the sparse and the
        dense sweep give the same thresholds. The dense columns' order and
        tie groups are restricted to the GrowSet and compacted as the
        coverage shrinks (``core.compact_sorted``)."""
        signed = fixed_point(np.where(ypos == 1, D, -D))
        if self.stored is not None:
            return lambda covered, beat: best_sqrt_thresholds_sparse(
                *self.stored, signed, covered.view(np.uint8), beat)
        enc = self.enc
        cols = [compact_sorted(enc.order, self.groups, enc.n_valid, grow.view(np.uint8))]

        def dense(covered, beat):
            mask = covered.view(np.uint8)
            if 4 * np.count_nonzero(covered) < 3 * cols[0][0].shape[1]:  # compact
                cols[0] = compact_sorted(*cols[0], mask)
            return best_sqrt_thresholds(*cols[0], enc.order, self.XcT, signed, mask, beat)
        return dense

    def grow(self, ypos, D, grow):
        """GrowRule on the GrowSet ``grow``: ``(conds, lengths)``, the
        conditions ``(kind, col, op, value)`` in the order added and every
        example's :func:`prefix_lengths`. A dense table grows in one call of
        the core (``core.grow_dense`` on the cache's ``bins``: no Python
        between refinements, the rule of :func:`grow_rule` bit for bit), a
        sparse one by :func:`grow_rule`."""
        enc = self.enc
        if self.stored is not None:
            conds, masks = grow_rule(enc, ypos, D, grow, self)
            return ([(k.kind, int(k.col), k.op, float(k.value)) for k in conds],
                    prefix_lengths(masks, len(D)))
        # the GrowSet's weights as grow_rule takes them, numpy's sums to the
        # last bit (grow_dense's own running sums could differ in it)
        w_pos, w_neg = class_sums(D, ypos, grow)
        signed = signed_fixed_point(D, ypos)
        return grow_dense(enc.Xd, enc.n_values, ypos, D, self.bins, self.XcT, signed,
                          grow.view(np.uint8), w_pos, w_neg)


def grow_rule(enc, ypos, D, grow, cache=None):
    """GrowRule (Section 3): add the condition maximising eq. 6 until the rule
    covers no GrowSet negative or no condition improves eq. 6. ``cache``: a
    :class:`_FitCache`, computed once per fit. Returns the conditions and
    their masks. Boosting grows by :meth:`_FitCache.grow`, which on a dense
    table makes the same rule in the core; this is its reference and the
    sparse tables' way."""
    if cache is None:
        cache = _FitCache(enc)
    covered = grow.copy()
    conds, masks = [], []
    w_pos, w_neg = D[covered & (ypos == 1)].sum(), D[covered & (ypos == 0)].sum()
    current = grow_objective(w_pos, w_neg)
    sweep = cache.sweep(ypos, D, grow)
    while w_neg > 1e-12 * (w_pos + w_neg):  # a negative of the GrowSet is still covered
        # a refinement must improve eq. 6: None when none does
        score, cond, w_pos, w_neg = _best_refinement(enc, ypos, D, covered, sweep,
                                                     current + 1e-12)
        if cond is None:
            break
        mask = _condition_mask(enc, cond, cache.XcT)
        conds.append(cond)
        masks.append(mask)
        covered &= mask
        current = score
    return conds, masks


def prefix_lengths(masks, n):
    """For each example, how many leading conditions it satisfies: the
    prefix of length ``l`` covers exactly the examples with value ``>= l``."""
    alive = np.ones(n, bool)
    lengths = np.zeros(n, np.int32)
    for mask in masks:
        alive &= mask
        lengths += alive
    return lengths


def prune_rule(conds, masks, ypos, D, grow, prune, n, lengths=None):
    """PruneRule: keep the prefix (at least one condition) minimising eq. 7
    on the PruneSet, with the confidence eq. 4 from the GrowSet. Ties go to
    the shorter rule, so pruning never lengthens a rule. ``lengths``:
    :func:`prefix_lengths` of ``masks`` if already known (``masks`` is then
    not read and may be ``None``). ``prune`` must be ``~grow``, as
    :func:`_split` gives them."""
    if not conds:
        return 0
    if np.any(prune == grow):
        raise ValueError("prune must be the examples outside grow (~grow)")
    L = len(conds) + 1
    if lengths is None:
        lengths = prefix_lengths(masks, len(D))
    # the weight covered by each prefix length 0..L-1, columns GrowSet+,
    # GrowSet-, PruneSet+, PruneSet- (prune is ~grow), and the PruneSet's
    cov, d_prune = prune_table(np.ascontiguousarray(lengths, dtype=np.int32),
                               np.ascontiguousarray(grow).view(np.uint8),
                               np.ascontiguousarray(ypos, dtype=np.int32), D, L)
    if d_prune <= 0:
        return len(conds)
    # eq. 4 and eq. 7 of every prefix at once (numpy's elementwise floats,
    # those of one prefix at a time), then the first clearly lowest loss
    c = smoothed_confidence(cov[1:, 0], cov[1:, 1], n)
    losses = prune_loss(cov[1:, 2] / d_prune, cov[1:, 3] / d_prune, c)
    best_len, best_loss = len(conds), np.inf
    for length, loss in enumerate(losses.tolist(), 1):
        if loss < best_loss - 1e-12:
            best_len, best_loss = length, loss
    return best_len


#: the most examples a round's GrowSet holds: on more, it is the first this
#: many of the random order :func:`_split` draws, the PruneSet the rest
#: (doc/slipper.md, "A bounded GrowSet"); ``None``: 2/3 of the weight at
#: any size, the paper's
GROW_MAX_ROWS = 200_000


def _split(rng, D, max_rows="GROW_MAX_ROWS"):
    """GrowSet of about 2/3 of the total weight, the rest PruneSet (random):
    the examples in a random order up to where the running sum of ``D``
    first reaches 2/3 of the total (``core.split_grow``), but at most
    ``max_rows`` of them (default: the module's :data:`GROW_MAX_ROWS`, read
    at the call; ``None``: no limit). Below the limit the split is the
    paper's, and it takes the same random numbers either way."""
    if max_rows == "GROW_MAX_ROWS":
        max_rows = GROW_MAX_ROWS
    order = rng.permutation(len(D))
    grow = split_grow(order, D).view(bool)
    if max_rows is not None and len(D) > max_rows and np.count_nonzero(grow) > max_rows:
        grow[order[max_rows:]] = False  # the GrowSet was a prefix of the order
    return grow, ~grow


class Booster:
    """Algorithm of Fig. 1, able to go on: :meth:`rounds` boosts up to a
    number of rounds in all, and a later call goes on from there with the
    same distribution ``D`` and random generator, so boosting to ``T`` and
    then to ``T'`` gives exactly the rules of boosting to ``T'`` at once
    (the internal CV doubles its bound that way,
    :func:`.slipper_rounds.choose_rounds`).
    ``ypos``: 1 for the positive class, 0 otherwise; ``w0``: the initial
    distribution (example weights); ``cache``: the :class:`_FitCache` of
    ``enc`` if another booster made it. The default rule has no
    conditions. The rules so far: ``hypothesis``, ``[(conds, C), ...]``.
    Pickled (a process or Dask backend), it leaves its table and cache
    behind: set ``enc`` again before it goes on (:func:`_boosted` does),
    and it makes its cache again."""

    def __init__(self, enc: EncodedData, ypos, w0, rng, cache=None):
        self.enc, self.rng, self.cache = enc, rng, cache
        self.ypos = np.ascontiguousarray(ypos, dtype=np.int32)
        self.D = w0 / w0.sum()
        self.hypothesis = []

    def __getstate__(self):
        return {**self.__dict__, "enc": None, "cache": None}

    def detach(self):
        """Drop the table and cache (what :meth:`rounds` makes again once
        ``enc`` is set), keeping what going on needs: ``D``, the generator
        and the rules."""
        self.enc = self.cache = None

    def rounds(self, T):
        """Boost until there are ``T`` rounds in all, yielding each new
        round's ``(conds, C)`` (a generator, so several boosters can run in
        lockstep)."""
        enc, ypos, n = self.enc, self.ypos, len(self.ypos)
        if len(self.hypothesis) < T and self.cache is None:
            self.cache = _FitCache(enc)
        while len(self.hypothesis) < T:
            D = self.D
            grow, prune = _split(self.rng, D)
            conds, lengths = self.cache.grow(ypos, D, grow)
            conds = conds[:prune_rule(conds, None, ypos, D, grow, prune, n, lengths)]
            covered = lengths >= len(conds)
            w_pos, w_neg = class_sums(D, ypos, covered)
            d_pos, d_neg = class_sums(D, ypos)
            c_rule = smoothed_confidence(w_pos, w_neg, n)
            # eq. 5: the pruned rule (if positively correlated) or the default rule
            if not conds or c_rule <= 0 or z_score(d_pos, d_neg) <= z_score(w_pos, w_neg):
                conds, covered = [], np.ones(n, bool)
                c = smoothed_confidence(d_pos, d_neg, n)
            else:
                c = c_rule
            # weight update: D exp(-y C) on the covered examples (y = +-1),
            # renormalised
            e_pos, e_neg = np.exp(np.array([-c, c]))
            self.D = reweight(D, covered.view(np.uint8), ypos, e_pos, e_neg)
            self.hypothesis.append((tuple(conds), c))
            yield self.hypothesis[-1]

    def boost(self, T, callback=None):
        """:meth:`rounds` up to ``T`` in all; the first ``T`` rounds
        (``callback``: called with the share of ``T`` done after each)."""
        done = len(self.hypothesis)
        for t, _ in enumerate(self.rounds(T), done + 1):
            if callback:
                callback(t / T)
        return self.hypothesis[:T]

    # what the choice of T (slipper_rounds) reads of a table through the class
    fit_cache = _FitCache

    @staticmethod
    def columns(enc: EncodedData):
        """What :meth:`covered` reads ``enc``'s numeric columns from
        (:func:`_transposed`)."""
        return _transposed(enc)

    @staticmethod
    def covered(enc: EncodedData, conds, columns=None) -> np.ndarray:
        """The rows of ``enc`` a rule of conditions ``conds`` (``(kind,
        col, op, value)``) covers; ``columns``: :meth:`columns` of ``enc``."""
        covered = np.ones(enc.n, bool)
        for cond in conds:
            covered &= _condition_mask(enc, _Cond(*cond), columns)
        return covered


def boost(enc: EncodedData, ypos, w0, T, rng, callback=None, cache=None):
    """``T`` rounds of a new :class:`Booster`: ``[(conds, C), ...]``."""
    return Booster(enc, ypos, w0, rng, cache).boost(T, callback)


def merge_duplicates(hypothesis):
    """Identical rules are replaced by one whose confidence is their sum."""
    merged = {}
    for conds, c in hypothesis:
        key = _canonical(conds)
        merged[key] = merged.get(key, 0.0) + c
    return list(merged.items())


def _canonical(conds):
    """A boosted rule's conditions ``(kind, col, op, value)`` in the one
    canonical form of :func:`rules.canonical_conditions` (so the same rule
    grown in another order is found a duplicate)."""
    named = [((kind, col), OP_NAMES[op], value) for kind, col, op, value in conds]
    inverse = {v: k for k, v in OP_NAMES.items()}
    return tuple((key[0], key[1], inverse[op], value)
                 for key, op, value in canonical_conditions(named))


# ------------------------------------------------------------ Orange layer
class SlipperModel(RuleModel):
    """One booster per class (or one for two classes); ``P(+|x) = 1 / (1 +
    exp(-2 f(x)))`` with ``f`` the summed confidence of covering rules; more
    classes: normalised, a booster that a rule budget left without a round
    giving its class's training share."""

    def __init__(self, domain, boosters, class_distribution):
        rules = [r for _, rs in boosters for r in rs]
        super().__init__(domain, rules, class_distribution)
        self.boosters = boosters  # [(positive class, [Rule, ...]), ...]

    def quality_column(self):
        """The rules' ``quality``: their confidence ``C_R`` (signed; LR
        with SLIPPER's rules names it so)."""
        return ViewerColumn("Confidence", np.array([r.quality for r in self.rule_list]),
                            "The rule's confidence C_R (eq. 4): its vote in the "
                            "boosted score f(x).")

    def viewer_columns(self):
        return [ViewerColumn("Confidence", np.abs([r.quality for r in self.rule_list]),
                             "The rule's confidence C_R (eq. 4): it adds 2 C_R to the "
                             "log-odds of the Class column's class when it fires "
                             "('not': subtracts it from that class's).")]

    def summary_lines(self):
        n = len(self.boosters)
        lines = super().summary_lines() + [
            "One booster (class against the rest)" if n == 1
            else f"{n} boosters, one per class, normalised"]
        cv = self.domain.class_var
        two = n == 1 and self.n_classes == 2
        number = {id(r): k + 1 for k, r in enumerate(self.rule_list)}
        for positive, rules in self.boosters:
            default = [r for r in rules if not r.selectors]
            if default:
                total = sum(r.quality for r in default)
                toward = 1 - positive if two and total < 0 else positive
                side = "against" if total < 0 and not two else "toward"
                # its number, which the rule listings skip: the rules counted
                # are those listed and the baseline
                numbers = ", ".join(str(number[id(r)]) for r in default if id(r) in number)
                which = (f"rule{'s' if len(default) > 1 else ''} {numbers}, "
                         if numbers else "")
                lines.append(f"Baseline ({which}the default rule, on every row, not "
                             f"listed with the rules): confidence {abs(total):.3f} {side} "
                             f"{cv.name} = {cv.values[toward]}")
        grow_rows = getattr(self, "grow_rows", None)  # older pickles lack it
        if grow_rows is not None:
            lines.append(f"Each rule grown on a GrowSet of at most {grow_rows:,} rows "
                         "(GROW_MAX_ROWS), pruned on the rest")
        return lines

    def set_apart(self) -> np.ndarray:
        """The default rules (no conditions, eq. 5): they add their
        confidence to every row's score, so the viewer sums them in the
        summary instead of listing them as rules."""
        return np.array([not r.selectors for r in self.rule_list], dtype=bool)

    def decision_function(self, X):
        """``f(x)`` per booster, shape ``(n, n_boosters)``."""
        X = self._model_X(X)
        cover = covering_sparse(self.rule_list, X)
        conf = np.array([r.quality for r in self.rule_list])
        out, start = np.zeros((X.shape[0], len(self.boosters))), 0
        for b, (_, rules) in enumerate(self.boosters):
            out[:, b] = cover[:, start:start + len(rules)] @ conf[start:start + len(rules)]
            start += len(rules)
        return out

    def predict(self, X):
        f = self.decision_function(X)
        p = 1 / (1 + np.exp(-2 * f))
        if len(self.boosters) == 1:
            pos = self.boosters[0][0]
            probs = np.zeros((len(f), self.n_classes))
            probs[:, pos] = p[:, 0]
            probs[:, 1 - pos] = 1 - p[:, 0]
            return probs
        probs = np.zeros((len(f), self.n_classes))
        for b, (cls, rules) in enumerate(self.boosters):
            # a booster a rule budget left without a round says nothing of
            # its class: the class's training share (not 1/2, f = 0)
            probs[:, cls] = p[:, b] if rules else self.prior[cls]
        return probs / probs.sum(axis=1, keepdims=True)

    def rule_directions(self):
        """A rule favours its booster's class when its confidence is
        positive; a negative confidence (a default rule) favours the other
        class of two, or lowers its class of many."""
        cls_of = np.array([cls for cls, rules in self.boosters for _ in rules], dtype=int)
        conf = np.array([r.quality for r in self.rule_list], dtype=float)
        negative = conf < 0
        if len(self.boosters) == 1 and self.n_classes == 2:
            return np.where(negative, 1 - cls_of, cls_of), np.zeros(len(conf), bool)
        return cls_of, negative

    def explain(self, data) -> list[Explanation]:
        """Per row, the firing rules with ``2 C_R`` on their booster's class
        (:class:`base.Explanation`); the default rules, which fire on every
        row, are the baseline, in ``base``. Two classes,
        ``combine="softmax"`` (``P(+) = 1 / (1 + exp(-2 f))``); more, the
        boosters' sigmoids normalised (``combine="sigmoids"``)."""
        X = self.model_X(data)
        cover = covering(self.rule_list, X)
        C = self.n_classes
        cls_of = np.array([cls for cls, rules in self.boosters for _ in rules], dtype=int)
        conf = np.array([r.quality for r in self.rule_list])
        default = np.asarray(self.set_apart(), dtype=bool)
        single = len(self.boosters) == 1
        base = np.zeros(C) if single else np.full(C, -np.inf)
        if not single:
            base[[cls for cls, _ in self.boosters]] = 0.0
            for cls, rules in self.boosters:  # no round: the class's prior (predict)
                if not rules:
                    with np.errstate(divide="ignore"):
                        base[cls] = np.log(self.prior[cls]) - np.log1p(-self.prior[cls])
        np.add.at(base, cls_of[default], 2 * conf[default])
        out = []
        for i in range(X.shape[0]):
            rules = np.flatnonzero(cover[i] & ~default)
            contributions = np.zeros((len(rules), C))
            contributions[np.arange(len(rules)), cls_of[rules]] = 2 * conf[rules]
            out.append(Explanation(rules, contributions, base.copy(),
                                   "softmax" if single else "sigmoids", self.prior.copy(),
                                   base_label="the baseline (the default rule, on every row)"))
        return out

    def __str__(self):
        cv = self.domain.class_var
        n_rules, n_conditions = self.size
        lines = [f"SlipperModel: {counted(n_rules, 'rules')}, "
                 f"{counted(n_conditions, 'conditions')}; "
                 f"P({cv.name} = c) from the summed confidences C of the rules that "
                 "fire (each adds 2C log-odds)"]
        favours, against = self.rule_directions()
        two = len(self.boosters) == 1 and self.n_classes == 2
        start = 0
        for cls, rules in self.boosters:
            lines.append(f"  booster for {cv.name} = {cv.values[cls]}:")
            baseline = sum(r.quality for r in rules if not r.selectors)
            toward = 1 - cls if two and baseline < 0 else cls
            side = "against" if baseline < 0 and not two else "toward"
            lines.append(f"    baseline (the default rule, every row): confidence "
                         f"{abs(baseline):.3f} {side} {cv.name} = {cv.values[toward]}")
            for k, r in enumerate(rules, start=start):
                if r.selectors:
                    lines.append(f"    {k + 1}. " + rule_text(
                        r, self.domain, int(favours[k]), bool(against[k]),
                        f"confidence {abs(r.quality):.3f}"))
            start += len(rules)
        return "\n".join(lines)


class SlipperLearner(RuleLearner):
    """SLIPPER (Cohen & Singer 1999), multi-class by one booster per class.

    Each booster boosts confidence-rated rules (the paper's Fig. 1) for its
    class against the rest, the example weights its initial distribution;
    two classes have one booster. Its number of rounds ``T`` is chosen by
    internal cross-validation (ties to the smaller ``T``), the booster then
    refitted on every row; the bound on the rounds doubles while more
    rounds clearly pay (:mod:`.slipper_rounds`; doc/slipper.md, "Choosing
    T" and "More rounds on many rows"). Above
    ``slipper_rounds.CV_MAX_ROWS`` rows ``T`` is chosen on one fold, its
    training part a stratified sample of at most
    ``slipper_rounds.CV_TRAIN_ROWS`` rows; a round's GrowSet holds at most
    ``GROW_MAX_ROWS`` examples (doc/slipper.md, "A bounded GrowSet").

    Parameters
    ----------
    T : int in [1, 1000000] or None, default None
        Boosting rounds per booster; ``None``: chosen by internal CV.
    T_max : int in [1, 1000000], default 100
        The most rounds the internal CV tries first (the paper's 100).
    max_doublings : int >= 0, default 2
        How many times the internal CV may double ``T_max`` while the rounds
        past its first half still clearly lower the mean hold-out error and
        the doubled bound keeps the hold-out log loss (0: the paper's fixed
        bound; none under ``max_rules``).
    n_folds : int >= 2, default 5
        Folds of the internal CV.
    patience : int >= 1 or None, default None
        Stop the internal folds once their mean hold-out error has not been
        lower for this many rounds (``None``: all ``T_max`` rounds).
    positive_class : int >= 0 or None, default None
        Two classes: the index of the booster's positive class (``None``:
        the less frequent one).
    max_rules : int >= 1 or None, default None
        At most this many rules over all boosters: rounds shared among the
        classes by least CV error (doc/slipper.md).
    n_jobs : int or None, default None
        Parallel jobs through joblib: the boosters of the classes, or the
        internal folds of the one booster of two classes (threads;
        ``None``: one job, unless a ``joblib.parallel_config`` says
        otherwise, e.g. a Dask cluster); the model does not depend on it.
    random_state : int in [0, 4294967295] or None, default 0
        Seed of the grow/prune splits and the internal folds.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "slipper"
    __returns__ = SlipperModel

    needs_order = True  # the grow step sweeps the sorted numeric columns
    bytes_per_cell = 0  # a sparse table is swept over its non-zeros

    parameters = params.ParameterTable(
        params.integer("T", "boosting rounds per booster (None: chosen by internal CV)", 1,
                       10 ** 6,
                       none=True, spin=(1, 1000)),
        params.integer("T_max", "the most rounds the internal CV tries first", 1, 10 ** 6,
                       spin=(1, 1000)),
        params.integer("max_doublings", "how often the internal CV may double T_max", 0),
        params.integer("n_folds", "folds of the internal CV", 2),
        params.integer("patience", "rounds without a lower hold-out error before the "
                                   "internal folds stop", 1, none=True),
        params.integer("positive_class", "two classes: the booster's positive class", 0,
                       none=True),
        params.max_rules("at most this many rules over all boosters"),
        params.n_jobs(),
        params.random_state("seed of the grow/prune splits and the internal folds"),
    )

    def __init__(self, T=None, T_max=100, max_doublings=2, n_folds=5, patience=None,
                 positive_class=None, max_rules=None, n_jobs=None, random_state=0,
                 preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.parameters.set(self, locals())

    def _positive_classes(self, enc, values):
        """The boosters' positive classes: every class present (in the order
        of their names, :func:`~orangecontrib.rules.base.in_name_order`, which
        hands out the seeds), or for two
        classes one booster, of ``positive_class`` or else of the less
        frequent class (a tie: the one that loses ties of predictions,
        :func:`~orangecontrib.rules.base.class_preference`, so a row no rule
        covers goes to the other class, whatever the order of the values)."""
        dist = enc.class_distribution()
        if enc.n_classes == 2:
            if self.positive_class is not None:
                return [int(self.positive_class)]
            return [int(np.argmin(class_preference(dist, values)))]
        return in_name_order([c for c in range(enc.n_classes) if dist[c] > 0], values)

    def fit_booster(self, enc, cls, seeds, n_jobs=None, progress=None):
        """One booster, ``cls`` against the rest: ``(T, merged hypothesis,
        tried)``; ``T`` by internal cross-validation unless given (folds
        through joblib with ``n_jobs``), chosen among the first ``tried``
        rounds (``None`` without the CV). ``seeds``: the cross-validation's
        and the boosting's. ``progress``: called with the fit's share done
        and a status (the CV its first half, the final boosting its
        second; folds and final booster in parallel: all of it)."""
        ypos = (enc.y == cls).astype(np.int32)
        T = self.T if self.T is None or self.max_rules is None else min(self.T, self.max_rules)
        jobs = parallel_jobs(n_jobs)

        def report(start, end, status):
            return progress and (lambda p, bound=None: progress(
                start + (end - start) * p, status.format(bound)))
        if T is None and self.patience is None and jobs not in (None, 1):
            # the folds and the final booster at once, in parallel
            T, hyp, tried = rounds_and_final(
                Booster, enc, ypos, seeds, self._T_max, self.n_folds, self._doublings, jobs,
                self.stop_check(),  # a Cancel stops the tasks after their round
                report(0.0, 1.0, "choosing T among up to {} rounds, and boosting"))
            return T, merge_duplicates(hyp), tried
        tried, start = None, 0.0
        if T is None:
            T, mean = choose_rounds(Booster, enc, ypos, self._T_max, self.n_folds, seeds[0],
                                    n_jobs, self.patience, self._doublings,
                                    report(0.0, 0.5, "choosing T among up to {} rounds"))
            tried, start = (None if mean is None else len(mean)), 0.5
        rng = np.random.default_rng(seeds[1])
        hyp = boost(enc, ypos, enc.w, T, rng, report(start, 1.0, "boosting"))
        return T, merge_duplicates(hyp), tried

    @property
    def _T_max(self) -> int:
        """The most rounds one booster may take: ``T_max``, and at most
        ``max_rules`` (a round adds at most one rule)."""
        return self.T_max if self.max_rules is None else min(self.T_max, self.max_rules)

    @property
    def _doublings(self) -> int:
        """How often the internal CV may double its bound: ``max_doublings``,
        none under a budget (``max_rules`` sets the size)."""
        return self.max_doublings if self.max_rules is None else 0

    def fit_rules(self, data, enc):
        from joblib import delayed

        classes = self._positive_classes(enc, data.domain.class_var.values)
        if self.positive_class is not None and not 0 <= classes[0] < enc.n_classes:
            raise ValueError(f"positive_class must be 0..{enc.n_classes - 1}")
        spawned = np.random.SeedSequence(self.random_state).spawn(2 * len(classes) + 1)
        seeds = [spawned[2 * b:2 * b + 2] for b in range(len(classes))]
        if len(classes) == 1:  # one booster: its internal folds in parallel
            self.progress(0.0, "choosing T by cross-validation")
            results = [self.fit_booster(enc, classes[0], seeds[0], self.n_jobs, self.progress)]
        elif self.patience is None or self.max_rules is not None:
            results = self._fit_boosters(enc, classes, seeds, spawned[-1])
        else:  # boosters each with its own folds, stopped early (in lockstep)
            self.progress(0.0, "boosting one booster per class")
            results = []
            jobs = (delayed(self.fit_booster)(enc, cls, s, 1) for cls, s in zip(classes, seeds))
            for r in parallel_map(jobs, self.n_jobs):
                results.append(r)
                self.progress(len(results) / len(classes), "boosting one booster per class: "
                              f"{sum(len(h) for _, h, _ in results)} rules so far")
        short = ShortThresholds(_ColumnCopies(enc))
        boosters = [(cls, self._merged([self._to_rule(conds, c, cls, enc, data.domain, short)
                                        for conds, c in hyp]))
                    for cls, (_, hyp, _) in zip(classes, results)]
        del short
        model = SlipperModel(data.domain, boosters, enc.class_distribution())
        model.rounds = {cls: T for cls, (T, _, _) in zip(classes, results)}  # T per booster
        # the rounds the internal CV chose T among (None: T was given)
        model.rounds_tried = {cls: tried for cls, (_, _, tried) in zip(classes, results)}
        # the GrowSets' bound, where the data is larger than it (None: none)
        model.grow_rows = (GROW_MAX_ROWS if GROW_MAX_ROWS is not None and enc.n > GROW_MAX_ROWS
                           else None)
        return model

    def _fit_boosters(self, enc, classes, seeds, fold_seed):
        """One booster per class (that class against the rest): ``[(T,
        merged hypothesis, tried), ...]`` (as :meth:`fit_booster`). ``T`` by
        internal cross-validation on folds shared by all boosters
        (:func:`.slipper_rounds.class_rounds`), then the final boosters in
        parallel."""
        from joblib import delayed

        n_jobs = parallel_jobs(self.n_jobs)
        ypos = [(enc.y == cls).astype(np.int32) for cls in classes]
        rounds, tried = [self.T] * len(classes), [None] * len(classes)
        progress = {"done": 0, "steps": len(classes)}  # booster-folds and final boosters
        if self.T is None:
            rounds, tried = class_rounds(Booster, enc, ypos, seeds, fold_seed, self._T_max,
                                         self.n_folds, self._doublings, self.max_rules,
                                         self.n_jobs, self.stop_check(), progress,
                                         self.progress)
        if self.max_rules is not None and sum(rounds) > self.max_rules:  # T or T_max given
            rounds = even_rounds(rounds, self.max_rules)
        results = []
        check = self.stop_check()
        jobs = (delayed(boost)(enc, yp, enc.w, T, np.random.default_rng(s[1]), check)
                for yp, T, s in zip(ypos, rounds, seeds))
        for T, t, hyp in zip(rounds, tried, parallel_map(jobs, n_jobs)):
            results.append((T, merge_duplicates(hyp), t))
            self.progress((progress["done"] + len(results)) / progress["steps"],
                          "boosting one booster per class: "
                          f"{sum(len(h) for _, h, _ in results)} rules so far")
        return results

    @staticmethod
    def _merged(rules):
        """Rules that became identical when their thresholds were shortened
        (the same training rows) merged, their confidences summed."""
        out = {}
        for r in rules:
            if r.conditions in out:
                out[r.conditions].quality += r.quality
            else:
                out[r.conditions] = r
        return list(out.values())

    @staticmethod
    def _to_rule(conds, c, cls, enc, domain, short=None):
        conditions, covered = [], np.ones(enc.n, bool)
        short = ShortThresholds(_ColumnCopies(enc)) if short is None else short
        for kind, col, op, value in conds:
            attrs = enc.disc_attrs if kind == KIND_DISCRETE else enc.cont_attrs
            if kind == KIND_CONTINUOUS:  # the shortest threshold with the same split
                value = short(col, OP_NAMES[op], value)
            conditions.append(Condition(int(attrs[col]), OP_NAMES[op], value))
            covered &= _condition_mask(enc, _Cond(kind, col, op, value), short.column)
        dist = class_weights(enc.y, enc.w, covered.view(np.uint8), enc.n_classes)
        return Rule(conditions, cls, dist, quality=c, domain=domain)
