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

import sys
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
from .tables import stratified_rows
from .parallel import parallel_jobs, parallel_map
from .params import check_int, check_n_jobs, check_random_state
from .rules import (Condition, Rule, allocate_budget, canonical_conditions, covering,
                    covering_sparse)

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
    (the internal CV doubles its bound that way, :func:`choose_rounds`).
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


def boost(enc: EncodedData, ypos, w0, T, rng, callback=None, cache=None):
    """``T`` rounds of a new :class:`Booster`: ``[(conds, C), ...]``."""
    return Booster(enc, ypos, w0, rng, cache).boost(T, callback)


def _boosted(booster: Booster, enc: EncodedData, T, callback=None) -> Booster:
    """``booster`` of table ``enc`` boosted on to ``T`` rounds (a parallel
    task that returns it, so the caller has its state under any joblib
    backend; a pickled booster comes without its table)."""
    booster.enc = enc
    booster.boost(T, callback)
    return booster


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


def ranking_auc(score, ypos, w) -> float:
    """The weighted area under the ROC curve of ``score`` for the positives
    ``ypos`` (ties count half; 0.5 when a class has no weight). Written
    here rather than taken from scikit-learn's ``roc_auc_score``, which
    gives the same value but, with its input checks, took 1.3 ms instead of
    0.11 ms on 4,400 rows (``2e64135:benchmarks/probes/ranking_auc_speed.py``; it
    runs once per round, booster and fold under a budget)."""
    order = np.argsort(score, kind="stable")
    s = score[order]
    wp = np.where(ypos[order], w[order], 0.0)
    wn = w[order] - wp
    starts = np.r_[0, np.flatnonzero(np.diff(s)) + 1]  # groups of tied scores
    P, N = np.add.reduceat(wp, starts), np.add.reduceat(wn, starts)
    total = P.sum() * N.sum()
    # each positive beats the negatives below its score and half its ties
    return float((P * (np.cumsum(N) - N / 2)).sum() / total) if total > 0 else 0.5


class HoldoutErrors:
    """The weighted hold-out error of the boosted rules after each round
    (predict the positive class when ``f(x) > 0``), kept up to date as
    rounds are added (call it with each round's ``(conds, C)``), and the
    weighted hold-out log loss of the model's ``P(+|x) = 1 / (1 +
    exp(-2 f(x)))`` (``losses``); with ``aucs``, also the hold-out AUC of
    ``f`` (:func:`ranking_auc`; 0.5 before any round)."""

    def __init__(self, enc: EncodedData, ypos, XcT=None, aucs=False):
        self.enc, self.ypos = enc, ypos == 1
        self.XcT = _transposed(enc) if XcT is None else XcT
        self.f = np.zeros(enc.n)
        self.total = enc.w.sum()
        self._away = np.where(self.ypos, -2.0, 2.0)  # -log P(y|x) = log(1 + exp(away f))
        self.errors, self.losses = [], []
        self.aucs = [] if aucs else None

    def __call__(self, conds, c):
        covered = np.ones(self.enc.n, bool)
        for cond in conds:
            covered &= _condition_mask(self.enc, _Cond(*cond), self.XcT)
        self.f[covered] += c
        wrong = self.enc.w[(self.f > 0) != self.ypos].sum()
        loss = np.dot(self.enc.w, np.logaddexp(0.0, self._away * self.f))
        self.errors.append(wrong / self.total if self.total > 0 else 0.0)
        self.losses.append(loss / self.total if self.total > 0 else 0.0)
        if self.aucs is not None:  # a sort per round: only when asked for
            self.aucs.append(ranking_auc(self.f, self.ypos, self.enc.w))


class FoldRun:
    """One internal fold of the rows ``train`` and ``test`` of ``enc``: a
    :class:`Booster` on its training part and the hold-out error
    (:class:`HoldoutErrors`) on its test part after each of its rounds;
    :meth:`to` boosts on to more rounds. ``fold``: a :class:`SharedFold`
    of those rows whose parts it uses (else it encodes its own);
    ``check``: called after every round (:meth:`RuleLearner.stop_check`).
    Between two calls of :meth:`to` a run can :meth:`detach` its parts, so
    runs waiting to go on hold no copy of the table."""

    def __init__(self, enc, ypos, train, test, seed, aucs=False, check=None, fold=None):
        self.train, self.test, self.check = train, test, check
        tr, te = (fold.tr, fold.te) if fold else (enc.subset(train), enc.subset(test))
        self.booster = Booster(tr, ypos[train], tr.w, np.random.default_rng(seed),
                               fold.cache if fold else None)
        self.track = HoldoutErrors(te, ypos[test], fold.te_XcT if fold else None, aucs)

    def to(self, T, enc=None):
        """Boost on to ``T`` rounds in all; itself (for a parallel task).
        ``enc``: the table of the rows, to encode the parts again after
        :meth:`detach`."""
        if self.booster.enc is None:
            self.booster.enc = enc.subset(self.train)
            self.track.enc = enc.subset(self.test)
            self.track.XcT = _transposed(self.track.enc)
        for rule in self.booster.rounds(T):
            self.track(*rule)
            if self.check:
                self.check(len(self.track.errors) / T)
        return self

    def detach(self):
        """Drop the fold's encoded parts and the booster's cache; keep the
        rules, ``D``, the generator and the hold-out scores. Itself."""
        self.booster.detach()
        self.track.enc = self.track.XcT = None
        return self

    @property
    def curve(self):
        """The hold-out errors and log losses after each round (with
        ``aucs``, and the AUCs: a third row)."""
        t = self.track
        return np.array([t.errors, t.losses] + ([t.aucs] if t.aucs is not None else []))


def _fold_run(enc, ypos, train, test, T, seed, check=None):
    """A :class:`FoldRun` of rows ``train`` and ``test`` of ``enc`` boosted
    to ``T`` rounds, detached (a parallel task: runs wait for the next
    doubling without their parts)."""
    return FoldRun(enc, ypos, train, test, seed, check=check).to(T).detach()


def _fold_run_on(run: FoldRun, enc, T):
    """``run`` boosted on to ``T`` rounds from the rows of ``enc``,
    detached again (a parallel task)."""
    return run.to(T, enc).detach()


def _fold_tasks(enc, ypos, folds, runs, seeds, T, check=None):
    """The parallel tasks that boost the runs of ``folds`` on to ``T``
    rounds: a new run (:func:`_fold_run`, from its seed of ``seeds``)
    where ``runs`` has none yet, else the run going on."""
    from joblib import delayed
    return [delayed(_fold_run)(enc, ypos, train, test, T, s, check) if run is None
            else delayed(_fold_run_on)(run, enc, T)
            for run, (train, test), s in zip(runs, folds, seeds)]


#: how clearly the second half of the rounds must lower the internal CV's
#: mean hold-out error for its bound to double (:func:`rounds_still_pay`)
DOUBLING_Z = 2.0


def rounds_still_pay(mean, n_holdout, z=None) -> bool:
    """Do the internal CV's rounds still pay at the end of its bound? Yes if
    the lowest mean hold-out error ``mean`` over all rounds is below the
    lowest over the first half of them by more than ``z`` (default
    :data:`DOUBLING_Z`) standard errors of the difference of two error
    rates ``p`` measured on ``n_holdout`` examples each, ``sqrt(2 p (1 - p)
    / n_holdout)``, ``p`` the first half's lowest. The two rates are
    measured on the same examples, whose errors are positively correlated,
    so the difference's true standard error is smaller: the test asks for
    more evidence than it needs (doc/slipper.md, "More rounds on many
    rows")."""
    z = DOUBLING_Z if z is None else z
    mean = np.asarray(mean, dtype=float)
    half = len(mean) // 2
    if half < 1 or n_holdout <= 0:
        return False
    p, best = float(mean[:half].min()), float(mean.min())
    return p - best > z * np.sqrt(2 * p * (1 - p) / n_holdout)


def holdout_size(enc: EncodedData, folds) -> float:
    """The effective number of hold-out examples of ``folds``, ``(sum w)^2
    / sum w^2`` over their test rows (their count with unit weights)."""
    w = enc.w[np.concatenate([test for _, test in folds])]
    sq = float(np.dot(w, w))
    return float(w.sum()) ** 2 / sq if sq > 0 else 0.0


def probabilities_hold(mean, bound) -> bool:
    """Does a doubled bound keep the probabilities? ``mean``: the mean
    hold-out errors and log losses (two rows) of every round to the
    doubled bound. Yes if at the round of least error over all of them the
    log loss is no higher than at the round of least error among the first
    ``bound``: more rounds must not buy their lower error with
    overconfident probabilities (doc/slipper.md, "More rounds on many
    rows")."""
    t_old, t_new = int(np.argmin(mean[0, :bound])), int(np.argmin(mean[0]))
    return bool(mean[1, t_new] <= mean[1, t_old])


def doubled_bounds(advance, bounds, doublings, n_holdout):
    """The internal CV's bounds on the rounds of one booster or several:
    booster ``b`` starts at ``bounds[b]``, and its bound doubles, at most
    ``doublings`` times, while the rounds past its first half still lower
    its error clearly (:func:`rounds_still_pay`) and the doubled bound
    keeps its probabilities (:func:`probabilities_hold`; if not, the bound
    stays, the rounds past it are dropped and it doubles no more).
    ``advance({b: bound})`` boosts the folds of the boosters named on to
    those bounds and returns ``{b: mean}``, their mean hold-out errors and
    log losses after each round (rows 0 and 1; fewer rounds if stopped
    early: then that bound stays). Returns ``(bounds, means)``, each mean
    cut to its bound."""
    bounds = dict(bounds)
    means = advance(bounds)
    which = list(bounds)
    for _ in range(doublings):
        which = [b for b in which if means[b].shape[1] >= bounds[b]
                 and rounds_still_pay(means[b][0], n_holdout)]
        if not which:
            break
        more = advance({b: 2 * bounds[b] for b in which})
        which = [b for b in which if probabilities_hold(more[b], bounds[b])]
        for b in which:
            bounds[b], means[b] = 2 * bounds[b], more[b]
    return bounds, {b: mean[:, :bounds[b]] for b, mean in means.items()}


#: above this many rows, ``T`` is chosen on one internal fold (a held-out
#: ``1 / n_folds`` of the rows) instead of all ``n_folds``
CV_MAX_ROWS = 50_000

#: the most rows the training part of an internal fold boosts on: a larger
#: training part is a stratified sample of this many of its rows
CV_TRAIN_ROWS = 200_000


def internal_folds(enc: EncodedData, labels, n_folds, seed, max_rows="CV_MAX_ROWS",
                   train_rows="CV_TRAIN_ROWS"):
    """Stratified folds on ``labels`` among the examples with positive
    weight (so no fold is left without hold-out weight; those with weight 0
    change nothing and join every training part): ``[(train, test), ...]``,
    or ``None`` if some label has fewer than two such examples. With more
    than ``max_rows`` rows (default: the module's ``CV_MAX_ROWS``, read at
    the call; ``None``: no limit) only the first fold: its hold-out part is
    then large enough to choose ``T`` on, at a fraction of the time. A
    training part of more than ``train_rows`` rows (default: the module's
    ``CV_TRAIN_ROWS``; ``None``: no limit) is a stratified sample of that
    many of its rows (:func:`stratified_sample`), the hold-out part as it
    is (doc/slipper.md, "Choosing T")."""
    if max_rows == "CV_MAX_ROWS":
        max_rows = CV_MAX_ROWS
    if train_rows == "CV_TRAIN_ROWS":
        train_rows = CV_TRAIN_ROWS
    folds = _stratified_folds(enc, labels, n_folds, seed)
    if folds is None:
        return None
    if max_rows is not None and enc.n > max_rows:
        folds = folds[:1]
    if train_rows is None:
        return folds
    sample_seed = int(seed.generate_state(2)[1])  # the folds' shuffle takes word 0
    return [(stratified_sample(train, labels, train_rows, sample_seed), test)
            for train, test in folds]


def stratified_sample(rows, labels, size, seed):
    """``rows`` itself if it has at most ``size`` rows, else (sorted) a
    sample of ``size`` of them without replacement in which each label
    keeps its share of ``rows`` (:func:`tables.stratified_rows` with
    ``exact``: rounded by largest remainders; every label present keeps
    at least one row, so with many rare labels a few more). ``seed``: what
    ``numpy.random.default_rng`` takes."""
    if len(rows) <= size:
        return rows
    return rows[stratified_rows(labels[rows], size, np.random.default_rng(seed), exact=True)]


def _stratified_folds(enc, labels, n_folds, seed):
    """All of :func:`internal_folds`' folds, or ``None``."""
    from sklearn.model_selection import StratifiedKFold

    weighted, zero = np.flatnonzero(enc.w > 0), np.flatnonzero(enc.w <= 0)
    counts = np.bincount(labels[weighted])
    counts = counts[counts > 0]
    if len(counts) < 2 or counts.min() < 2:
        return None
    n_folds = int(min(n_folds, counts.min()))
    skf = StratifiedKFold(n_splits=n_folds, shuffle=True,
                          random_state=int(seed.generate_state(1)[0]))
    return [(np.sort(np.concatenate([weighted[tr], zero])), weighted[te])
            for tr, te in skf.split(np.zeros(len(weighted)), labels[weighted])]


class SharedFold:
    """One internal fold shared by the boosters of every class: its two
    parts encoded once (sorted columns derived, not sorted again) and the
    training part's :class:`_FitCache`."""

    def __init__(self, enc, train, test):
        self.train, self.test = train, test
        self.tr, self.te = enc.subset(train), enc.subset(test)
        self.cache = _FitCache(self.tr)
        self.te_XcT = _transposed(self.te)

    def __sizeof__(self):
        """The bytes it holds (so joblib's Dask backend sends it to the
        workers once, not with every booster's task)."""
        return (object.__sizeof__(self) + sys.getsizeof(self.tr) + sys.getsizeof(self.te)
                + self.cache.nbytes + (0 if self.te_XcT is None else self.te_XcT.nbytes))


def _shared_fold_curve(fold: SharedFold, ypos, T, seed, check=None, aucs=False):
    """Hold-out error and log loss (and with ``aucs`` AUC: three rows) after
    each of ``T`` rounds of the booster of positives ``ypos`` trained on the shared
    ``fold`` (``check``: as in :class:`FoldRun`)."""
    return FoldRun(None, ypos, fold.train, fold.test, seed, aucs, check, fold).to(T).curve


def _lockstep(runs, T, patience, callback=None):
    """The :class:`FoldRun` s ``runs`` one round at a time together, up to
    ``T`` rounds in all or until their mean hold-out error has not been
    lower for ``patience`` rounds; the mean errors and log losses after
    each round done (two rows). ``callback``: called with the share of
    ``T`` done after each round."""
    mean = [np.mean([r.track.errors[t] for r in runs])
            for t in range(len(runs[0].track.errors))]
    while len(mean) < T and len(mean) - 1 - int(np.argmin(mean or [0])) < patience:
        for run in runs:
            run.to(len(mean) + 1)
        mean.append(np.mean([run.track.errors[-1] for run in runs]))
        if callback:
            callback(len(mean) / T)
    return np.mean([run.curve[:, :len(mean)] for run in runs], axis=0)


def stage_share(done, T, before):
    """The internal CV's progress when its folds boost on from ``before``
    rounds to ``T`` and a share ``done`` of that stage is finished: the
    share of the ``T`` rounds done (the first stage runs from 0 to 1, a
    doubled bound's from one half to 1)."""
    return (before + (T - before) * done) / T


def choose_rounds(enc, ypos, T_max, n_folds, seed, n_jobs=None, patience=None, doublings=0,
                  callback=None):
    """``T`` with the lowest mean hold-out error over ``n_folds`` internal
    folds (ties to the smaller ``T``) and the mean errors, of every round up
    to the bound: ``T_max``, doubled at most ``doublings`` times while
    more rounds still pay (:func:`doubled_bounds`; the folds' boosters go on
    from where they stopped). The folds are independent, so they run
    through ``joblib`` with ``n_jobs``; each fold has its own seed, so the
    result does not depend on ``n_jobs``. With ``patience``, the folds are
    boosted in lockstep and stop once the mean hold-out error has not been
    lower for that many rounds. ``callback``: called with the progress
    (:func:`stage_share`) and the bound as folds (or, with ``patience``,
    rounds) finish."""

    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    seeds = seed.spawn(n_folds + 1)
    folds = internal_folds(enc, ypos, n_folds, seeds[0])
    if folds is None:
        return T_max, None  # too few positives or negatives to validate
    if patience is not None:  # every fold a round at a time: each keeps its parts
        runs = [FoldRun(enc, ypos, train, test, s) for (train, test), s in zip(folds, seeds[1:])]

        def advance(T):
            before = len(runs[0].track.errors)
            return _lockstep(runs, T, patience, callback and (
                lambda done: callback(stage_share(done, T, before), T)))
    else:
        runs = [None] * len(folds)

        def advance(T):
            before = 0 if runs[0] is None else len(runs[0].track.errors)
            jobs = _fold_tasks(enc, ypos, folds, runs, seeds[1:], T)
            for i, run in enumerate(parallel_map(jobs, n_jobs)):
                runs[i] = run
                if callback:
                    callback(stage_share((i + 1) / len(runs), T, before), T)
            return np.mean([run.curve for run in runs], axis=0)
    _, means = doubled_bounds(lambda bounds: {0: advance(bounds[0])}, {0: T_max}, doublings,
                              holdout_size(enc, folds))
    return int(np.argmin(means[0][0])) + 1, means[0][0]  # argmin: first, i.e. smallest T


def even_rounds(rounds, budget: int) -> list[int]:
    """``rounds`` cut so they sum to at most ``budget``: the largest cut
    first, one round at a time (ties: the booster listed last)."""
    rounds = list(rounds)
    while sum(rounds) > budget:
        k = max(range(len(rounds)), key=lambda i: (rounds[i], i))
        rounds[k] -= 1
    return rounds


# ------------------------------------------------------------ Orange layer
class SlipperModel(RuleModel):
    """One booster per class (or one for two classes); ``P(+|x) = 1 / (1 +
    exp(-2 f(x)))`` with ``f`` the summed confidence of covering rules."""

    def __init__(self, domain, boosters, class_distribution):
        rules = [r for _, rs in boosters for r in rs]
        super().__init__(domain, rules, class_distribution)
        self.boosters = boosters  # [(positive class, [Rule, ...]), ...]

    def viewer_columns(self):
        return [ViewerColumn("Confidence", np.array([r.quality for r in self.rule_list]),
                             "The rule's confidence C_R (eq. 4): its vote in the "
                             "boosted score f(x).")]

    def summary_lines(self):
        lines = super().summary_lines() + [f"{len(self.boosters)} booster(s)"]
        values = self.domain.class_var.values
        for positive, rules in self.boosters:
            default = [r.quality for r in rules if not r.selectors]
            if default:
                rounds = f"{len(default)} round" + ("s" if len(default) > 1 else "")
                lines.append(f"Default rule (fires on every row): {sum(default):+.3f} to the "
                             f"score of {values[positive]} ({rounds})")
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
        for b, (cls, _) in enumerate(self.boosters):
            probs[:, cls] = p[:, b]
        return probs / probs.sum(axis=1, keepdims=True)

    def explain(self, data) -> list[Explanation]:
        """Per row, the firing rules (the default rules too) with ``2 C_R``
        on their booster's class (:class:`base.Explanation`): two classes,
        ``combine="softmax"`` (``P(+) = 1 / (1 + exp(-2 f))``); more, the
        boosters' sigmoids normalised (``combine="sigmoids"``)."""
        X = self._model_X(data)
        cover = covering(self.rule_list, X)
        C = self.n_classes
        cls_of = np.array([cls for cls, rules in self.boosters for _ in rules], dtype=int)
        conf = np.array([r.quality for r in self.rule_list])
        single = len(self.boosters) == 1
        base = np.zeros(C) if single else np.full(C, -np.inf)
        if not single:
            base[[cls for cls, _ in self.boosters]] = 0.0
        out = []
        for i in range(X.shape[0]):
            rules = np.flatnonzero(cover[i])
            contributions = np.zeros((len(rules), C))
            contributions[np.arange(len(rules)), cls_of[rules]] = 2 * conf[rules]
            out.append(Explanation(rules, contributions, base.copy(),
                                   "softmax" if single else "sigmoids", self.prior.copy()))
        return out

    def __str__(self):
        lines = [f"SlipperModel: {len(self.rule_list)} rules"]
        for cls, rules in self.boosters:
            lines.append(f"  booster for {self.domain.class_var.name} = "
                         f"{self.domain.class_var.values[cls]}:")
            for r in rules:
                body = " AND ".join(c.to_str(self.domain) for c in r.conditions) or "TRUE"
                lines.append(f"    {r.quality:+.3f}  IF {body}")
        return "\n".join(lines)


class SlipperLearner(RuleLearner):
    """SLIPPER (Cohen & Singer 1999), multi-class by one booster per class.

    ``T``: number of boosting rounds; ``None`` chooses it, per booster, by
    internal ``n_folds``-fold cross-validation up to ``T_max`` (ties to the
    smaller ``T``) and refits on all data; the bound ``T_max`` doubles, at
    most ``max_doublings`` times, while the rounds past its first half
    still lower the mean hold-out error clearly (:func:`rounds_still_pay`)
    and the doubled bound keeps the hold-out log loss
    (:func:`probabilities_hold`; doc/slipper.md, "More rounds on many
    rows"); above ``CV_MAX_ROWS`` rows on
    one fold, whose training part is boosted on a stratified sample of at
    most ``CV_TRAIN_ROWS`` rows (doc/slipper.md, "Choosing T"). A
    round's GrowSet holds at most ``GROW_MAX_ROWS`` examples (above
    about 300,000 rows; doc/slipper.md, "A bounded GrowSet").
    ``positive_class``: for two
    classes, the booster's positive class (default: the less frequent one).
    ``n_jobs``: parallel jobs through joblib: the boosters of the classes
    (threads), or the internal folds (threads) of the one booster of two-class data
    (default ``None``: one job, unless a ``joblib.parallel_config`` says
    otherwise, e.g. a Dask cluster); the model does not depend on it.
    ``patience``: stop the internal folds once their mean hold-out error
    has not been lower for that many rounds (default: all ``T_max``
    rounds). Example weights are the
    initial distribution.

    Parameters
    ----------
    T : int, optional
        Boosting rounds per booster; ``None``: chosen by internal CV.
    T_max : int
        The most rounds the internal CV tries first (the paper's 100).
    max_doublings : int
        How many times the internal CV may double ``T_max`` while more
        rounds still clearly lower its hold-out error without raising its
        log loss (0: the paper's fixed bound; none under ``max_rules``).
    n_folds : int
        Folds of the internal CV.
    patience : int, optional
        Stop the internal folds after this many rounds without a lower mean
        hold-out error (``None``: all ``T_max`` rounds).
    positive_class : int, optional
        Two classes: the index of the booster's positive class (default: the
        rarer one).
    max_rules : int, optional
        At most this many rules over all boosters: rounds shared among the
        classes by least CV error (doc/slipper.md).
    n_jobs : int, optional
        Parallel jobs (threads, or a configured joblib backend); the model
        does not depend on it.
    random_state : int
        Seed of the grow/prune splits and the internal folds.
    preprocessors : list, optional
        Orange preprocessors (rows with an unknown class are dropped first).
    """

    name = "slipper"
    __returns__ = SlipperModel

    needs_order = True  # the grow step sweeps the sorted numeric columns
    bytes_per_cell = 0  # a sparse table is swept over its non-zeros

    def __init__(self, T=None, T_max=100, max_doublings=2, n_folds=5, patience=None,
                 positive_class=None, max_rules=None, n_jobs=None, random_state=0,
                 preprocessors=None):
        super().__init__(preprocessors=preprocessors)
        self.T = check_int("T", T, 1, none=True)
        self.T_max = check_int("T_max", T_max, 1)
        self.max_doublings = check_int("max_doublings", max_doublings, 0)
        self.n_folds = check_int("n_folds", n_folds, 2)
        self.patience = check_int("patience", patience, 1, none=True)
        self.positive_class = check_int("positive_class", positive_class, 0, none=True)
        self.max_rules = check_int("max_rules", max_rules, 1, none=True)
        self.n_jobs = check_n_jobs(n_jobs)
        self.random_state = check_random_state(random_state)

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
            return self._folds_and_final(
                enc, ypos, seeds, jobs,
                report(0.0, 1.0, "choosing T among up to {} rounds, and boosting"))
        tried, start = None, 0.0
        if T is None:
            T, mean = choose_rounds(enc, ypos, self._T_max, self.n_folds, seeds[0],
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

    def _folds_and_final(self, enc, ypos, seeds, jobs, callback=None):
        """:func:`choose_rounds` and the final booster at once, in parallel:
        the final booster boosts to the bound while the folds run, and
        keeps its first ``T`` (boosting is round by round, so they are
        exactly what ``T`` rounds would give); when the bound doubles, the
        folds' boosters and the final one go on together. Same model as the
        sequential path, about ``n_folds + 1`` jobs' worth of parallel work
        instead of ``n_folds`` and then one. ``callback``: called with the
        progress (:func:`stage_share`) and the bound as its tasks finish."""
        from joblib import delayed

        cv_seeds = seeds[0].spawn(self.n_folds + 1)
        folds = internal_folds(enc, ypos, self.n_folds, cv_seeds[0])
        check = self.stop_check()  # a Cancel stops the tasks after their round
        final = Booster(enc, ypos, enc.w, np.random.default_rng(seeds[1]))
        if folds is None:  # too few positives or negatives to validate
            return self._T_max, merge_duplicates(final.boost(self._T_max, check)), None
        runs = [None] * len(folds)

        def advance(T):
            nonlocal final
            before = len(final.hypothesis)
            tasks = _fold_tasks(enc, ypos, folds, runs, cv_seeds[1:], T, check)
            tasks.append(delayed(_boosted)(final, enc, T, check))
            results = []
            for r in parallel_map(tasks, jobs):
                results.append(r)
                if callback:
                    callback(stage_share(len(results) / len(tasks), T, before), T)
            final = results.pop()
            runs[:] = results
            return np.mean([run.curve for run in runs], axis=0)

        _, means = doubled_bounds(lambda bounds: {0: advance(bounds[0])}, {0: self._T_max},
                                  self._doublings, holdout_size(enc, folds))
        mean = means[0]
        T = int(np.argmin(mean[0])) + 1  # argmin: the first, i.e. the smallest T
        return T, merge_duplicates(final.hypothesis[:T]), mean.shape[1]

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
        (stratified by class; each fold's parts are encoded once), fold by
        fold, the boosters of a fold in parallel (threads; the kernels
        release the GIL), then the final boosters. A booster whose bound
        doubles (:func:`doubled_bounds`) runs its folds again to the new
        bound, from the same seeds (so its first rounds are those it had):
        going on instead would keep every fold's parts in memory at once."""
        from joblib import delayed

        n_jobs = parallel_jobs(self.n_jobs)
        ypos = [(enc.y == cls).astype(np.int32) for cls in classes]
        rounds, tried = [self.T] * len(classes), [None] * len(classes)
        progress = {"done": 0, "steps": len(classes)}  # booster-folds and final boosters
        if self.T is None:
            folds = internal_folds(enc, enc.y, self.n_folds, fold_seed)
            if folds is None:  # a class too small to validate: every booster T_max
                rounds = [self._T_max] * len(classes)
            else:
                fold_seeds = [s[0].spawn(len(folds)) for s in seeds]
                # per booster: its mean hold-out errors and log losses (and
                # AUCs, for a budget) after each round, to its bound
                budgeted = self.max_rules is not None

                def advance(bounds):
                    which = list(bounds)
                    progress["steps"] += len(folds) * len(which)
                    curves = self._fold_curves(enc, folds, [ypos[b] for b in which],
                                               [fold_seeds[b] for b in which],
                                               [bounds[b] for b in which], budgeted,
                                               progress, which)
                    return {b: c.mean(axis=0) for b, c in curves.items()}
                _, means = doubled_bounds(advance, dict.fromkeys(range(len(classes)), self._T_max),
                                          self._doublings, holdout_size(enc, folds))
                curves = [means[b] for b in range(len(classes))]
                tried = [c.shape[1] for c in curves]
                # argmin: the first, i.e. the smallest T of the lowest mean error
                rounds = [int(np.argmin(e[0])) + 1 for e in curves]
                if self.max_rules is not None and sum(rounds) > self.max_rules:
                    # the rounds of the highest prior-weighted hold-out AUC
                    # (the many-class AUC reported for the model): the least
                    # summed p_c (1 - AUC_c), p_c / 2 without a round (under
                    # a budget no bound doubles, so the curves are alike long)
                    p = np.array([np.average(yp, weights=enc.w) for yp in ypos])
                    auc = np.array([e[2] for e in curves])
                    rounds = allocate_budget(p[:, None] * (1 - auc), p / 2, self.max_rules)
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

    def _fold_curves(self, enc, folds, ypos, fold_seeds, bounds, aucs, progress, names):
        """For the boosters of positives ``ypos[i]`` (``names[i]``: the key
        of its curves), the hold-out errors and log losses (with ``aucs``
        and AUCs) of its first ``bounds[i]`` rounds on each of ``folds``,
        boosted from ``fold_seeds[i]``: ``{name: array (fold, 2 + aucs,
        round)}``. Fold
        by fold, each fold's parts encoded once (:class:`SharedFold`) and
        dropped before the next; ``progress``: the counts of
        :meth:`_fit_boosters`' progress bar."""
        from joblib import delayed

        curves = {b: np.zeros((len(folds), 2 + aucs, T)) for b, T in zip(names, bounds)}
        check = self.stop_check()
        for f, (train, test) in enumerate(folds):
            fold = SharedFold(enc, train, test)
            jobs = (delayed(_shared_fold_curve)(fold, yp, T, fs[f], check, aucs)
                    for yp, T, fs in zip(ypos, bounds, fold_seeds))
            for b, e in zip(names, parallel_map(jobs, parallel_jobs(self.n_jobs))):
                curves[b][f] = np.reshape(e, curves[b].shape[1:])
                progress["done"] += 1
                self.progress(progress["done"] / progress["steps"],
                              f"choosing T up to {max(bounds)} rounds: "
                              f"fold {f + 1} of {len(folds)}")
            del fold
        return curves

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
