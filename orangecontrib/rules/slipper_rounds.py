"""SLIPPER's choice of the number of boosting rounds ``T`` by internal
cross-validation (doc/slipper.md, "Choosing T" and "More rounds on many
rows"): the internal folds, each fold's booster and its hold-out errors
round by round, the bound on the rounds that doubles while more rounds
still pay, and the rounds of many boosters under a rule budget.

Cohen & Singer (1999) choose ``T`` by cross-validation among the first
100 rounds; the folds' boosters go on from where they stopped when the
bound doubles, so a doubled bound gives the rounds of the larger bound at
once.

The boosting itself is :mod:`.slipper`'s: every function here takes the
booster class (``slipper.Booster``) and asks of it only what it documents:
``booster(enc, ypos, w0, rng, cache)``, its ``rounds(T)`` (a generator of
each new round's ``(conds, C)``) and ``boost(T, callback)``, its
``hypothesis``, ``enc`` and ``detach()``, and the class's
``fit_cache(enc)``, ``columns(enc)`` and ``covered(enc, conds, columns)``
(the rows a rule covers). So this module imports nothing of the learner's.
"""
from __future__ import annotations

import sys

import numpy as np
from joblib import delayed

from .features import EncodedData
from .parallel import parallel_jobs, parallel_map
from .rules import allocate_budget
from .tables import stratified_rows


# ------------------------------------------------------------ hold-out scores
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
    rounds are added (call it with the hold-out rows each round's rule
    covers and its confidence ``C``), and the weighted hold-out log loss of
    the model's ``P(+|x) = 1 / (1 + exp(-2 f(x)))`` (``losses``); with
    ``aucs``, also the hold-out AUC of ``f`` (:func:`ranking_auc`; 0.5
    before any round). ``ypos``: 1 for the hold-out rows of the positive
    class, ``w``: their weights."""

    def __init__(self, ypos, w, aucs=False):
        self.ypos, self.w = ypos == 1, w
        self.f = np.zeros(len(w))
        self.total = w.sum()
        self._away = np.where(self.ypos, -2.0, 2.0)  # -log P(y|x) = log(1 + exp(away f))
        self.errors, self.losses = [], []
        self.aucs = [] if aucs else None

    def __call__(self, covered, c):
        self.f[covered] += c
        wrong = self.w[(self.f > 0) != self.ypos].sum()
        loss = np.dot(self.w, np.logaddexp(0.0, self._away * self.f))
        self.errors.append(wrong / self.total if self.total > 0 else 0.0)
        self.losses.append(loss / self.total if self.total > 0 else 0.0)
        if self.aucs is not None:  # a sort per round: only when asked for
            self.aucs.append(ranking_auc(self.f, self.ypos, self.w))


# ------------------------------------------------------------ a fold's booster
class FoldRun:
    """One internal fold of the rows ``train`` and ``test`` of ``enc``: a
    booster (of the class ``booster``) on its training part and the
    hold-out error (:class:`HoldoutErrors`) on its test part, ``held_out``,
    after each of its rounds; :meth:`to` boosts on to more rounds.
    ``fold``: a :class:`SharedFold` of those rows whose parts it uses (else
    it encodes its own); ``check``: called after every round
    (:meth:`RuleLearner.stop_check`). Between two calls of :meth:`to` a
    run can :meth:`detach` its parts, so runs waiting to go on hold no
    copy of the table."""

    def __init__(self, booster, enc, ypos, train, test, seed, aucs=False, check=None,
                 fold=None):
        self.train, self.test, self.check = train, test, check
        tr, te = (fold.tr, fold.te) if fold else (enc.subset(train), enc.subset(test))
        self.booster = booster(tr, ypos[train], tr.w, np.random.default_rng(seed),
                               fold.cache if fold else None)
        self.held_out = te
        self.columns = fold.te_XcT if fold else booster.columns(te)
        self.track = HoldoutErrors(ypos[test], te.w, aucs)

    def to(self, T, enc=None):
        """Boost on to ``T`` rounds in all; itself (for a parallel task).
        ``enc``: the table of the rows, to encode the parts again after
        :meth:`detach`."""
        if self.booster.enc is None:
            self.booster.enc = enc.subset(self.train)
            self.held_out = enc.subset(self.test)
            self.columns = self.booster.columns(self.held_out)
        for conds, c in self.booster.rounds(T):
            self.track(self.booster.covered(self.held_out, conds, self.columns), c)
            if self.check:
                self.check(len(self.track.errors) / T)
        return self

    def detach(self):
        """Drop the fold's encoded parts and the booster's cache; keep the
        rules, ``D``, the generator and the hold-out scores. Itself."""
        self.booster.detach()
        self.held_out = self.columns = None
        return self

    @property
    def curve(self):
        """The hold-out errors and log losses after each round (with
        ``aucs``, and the AUCs: a third row)."""
        t = self.track
        return np.array([t.errors, t.losses] + ([t.aucs] if t.aucs is not None else []))


def _fold_run(booster, enc, ypos, train, test, T, seed, check=None):
    """A :class:`FoldRun` of rows ``train`` and ``test`` of ``enc`` boosted
    to ``T`` rounds, detached (a parallel task: runs wait for the next
    doubling without their parts)."""
    return FoldRun(booster, enc, ypos, train, test, seed, check=check).to(T).detach()


def _fold_run_on(run: FoldRun, enc, T):
    """``run`` boosted on to ``T`` rounds from the rows of ``enc``,
    detached again (a parallel task)."""
    return run.to(T, enc).detach()


def _fold_tasks(booster, enc, ypos, folds, runs, seeds, T, check=None):
    """The parallel tasks that boost the runs of ``folds`` on to ``T``
    rounds: a new run (:func:`_fold_run`, from its seed of ``seeds``)
    where ``runs`` has none yet, else the run going on."""
    return [delayed(_fold_run)(booster, enc, ypos, train, test, T, s, check) if run is None
            else delayed(_fold_run_on)(run, enc, T)
            for run, (train, test), s in zip(runs, folds, seeds)]


# ------------------------------------------------------------ the doubled bound
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


# ------------------------------------------------------------ the internal folds
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
    """One internal fold shared by the boosters (of the class ``booster``)
    of every class: its two parts encoded once (sorted columns derived, not
    sorted again) and the training part's fit cache."""

    def __init__(self, booster, enc, train, test):
        self.booster, self.train, self.test = booster, train, test
        self.tr, self.te = enc.subset(train), enc.subset(test)
        self.cache = booster.fit_cache(self.tr)
        self.te_XcT = booster.columns(self.te)

    def __sizeof__(self):
        """The bytes it holds (so joblib's Dask backend sends it to the
        workers once, not with every booster's task)."""
        return (object.__sizeof__(self) + sys.getsizeof(self.tr) + sys.getsizeof(self.te)
                + self.cache.nbytes + (0 if self.te_XcT is None else self.te_XcT.nbytes))


def _shared_fold_curve(fold: SharedFold, ypos, T, seed, check=None, aucs=False):
    """Hold-out error and log loss (and with ``aucs`` AUC: three rows) after
    each of ``T`` rounds of the booster of positives ``ypos`` trained on the shared
    ``fold`` (``check``: as in :class:`FoldRun`)."""
    return FoldRun(fold.booster, None, ypos, fold.train, fold.test, seed, aucs, check,
                   fold).to(T).curve


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


# ------------------------------------------------------------ choosing T
def stage_share(done, T, before):
    """The internal CV's progress when its folds boost on from ``before``
    rounds to ``T`` and a share ``done`` of that stage is finished: the
    share of the ``T`` rounds done (the first stage runs from 0 to 1, a
    doubled bound's from one half to 1)."""
    return (before + (T - before) * done) / T


def choose_rounds(booster, enc, ypos, T_max, n_folds, seed, n_jobs=None, patience=None,
                  doublings=0, callback=None):
    """For boosters of the class ``booster``: ``T`` with the lowest mean hold-out
    error over ``n_folds`` internal folds (ties to the smaller ``T``) and
    the mean errors, of every round up to the bound: ``T_max``, doubled at
    most ``doublings`` times while more rounds still pay
    (:func:`doubled_bounds`; the folds' boosters go on from where they
    stopped). The folds are independent, so they run through ``joblib`` with
    ``n_jobs``; each fold has its own seed, so the result does not depend on
    ``n_jobs``. With ``patience``, the folds are boosted in lockstep and
    stop once the mean hold-out error has not been lower for that many
    rounds. ``callback``: called with the progress (:func:`stage_share`) and
    the bound as folds (or, with ``patience``, rounds) finish."""

    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed)
    seeds = seed.spawn(n_folds + 1)
    folds = internal_folds(enc, ypos, n_folds, seeds[0])
    if folds is None:
        return T_max, None  # too few positives or negatives to validate
    if patience is not None:  # every fold a round at a time: each keeps its parts
        runs = [FoldRun(booster, enc, ypos, train, test, s)
                for (train, test), s in zip(folds, seeds[1:])]

        def advance(T):
            before = len(runs[0].track.errors)
            return _lockstep(runs, T, patience, callback and (
                lambda done: callback(stage_share(done, T, before), T)))
    else:
        runs = [None] * len(folds)

        def advance(T):
            before = 0 if runs[0] is None else len(runs[0].track.errors)
            jobs = _fold_tasks(booster, enc, ypos, folds, runs, seeds[1:], T)
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


def _boosted(booster, enc: EncodedData, T, callback=None):
    """``booster`` of table ``enc`` boosted on to ``T`` rounds (a parallel
    task that returns it, so the caller has its state under any joblib
    backend; a pickled booster comes without its table)."""
    booster.enc = enc
    booster.boost(T, callback)
    return booster


def rounds_and_final(booster, enc, ypos, seeds, T_max, n_folds, doublings, jobs, check=None,
                     callback=None):
    """:func:`choose_rounds` and the final booster at once, in parallel:
    the final booster boosts to the bound while the folds run, and
    keeps its first ``T`` (boosting is round by round, so they are
    exactly what ``T`` rounds would give); when the bound doubles, the
    folds' boosters and the final one go on together. Same model as the
    sequential path, about ``n_folds + 1`` jobs' worth of parallel work
    instead of ``n_folds`` and then one. ``seeds``: the cross-validation's
    and the final boosting's; ``check``: called after every round
    (:meth:`RuleLearner.stop_check`); ``callback``: called with the
    progress (:func:`stage_share`) and the bound as its tasks finish.
    Returns ``(T, the final booster's first T rounds, the rounds T was
    chosen among)``; without enough rows to validate, ``T_max`` rounds
    and ``None``."""
    cv_seeds = seeds[0].spawn(n_folds + 1)
    folds = internal_folds(enc, ypos, n_folds, cv_seeds[0])
    final = booster(enc, ypos, enc.w, np.random.default_rng(seeds[1]))
    if folds is None:  # too few positives or negatives to validate
        return T_max, final.boost(T_max, check), None
    runs = [None] * len(folds)

    def advance(T):
        nonlocal final
        before = len(final.hypothesis)
        tasks = _fold_tasks(booster, enc, ypos, folds, runs, cv_seeds[1:], T, check)
        tasks.append(delayed(_boosted)(final, enc, T, check))
        results = []
        for r in parallel_map(tasks, jobs):
            results.append(r)
            if callback:
                callback(stage_share(len(results) / len(tasks), T, before), T)
        final = results.pop()
        runs[:] = results
        return np.mean([run.curve for run in runs], axis=0)

    _, means = doubled_bounds(lambda bounds: {0: advance(bounds[0])}, {0: T_max},
                              doublings, holdout_size(enc, folds))
    mean = means[0]
    T = int(np.argmin(mean[0])) + 1  # argmin: the first, i.e. the smallest T
    return T, final.hypothesis[:T], mean.shape[1]


def class_rounds(booster, enc, ypos, seeds, fold_seed, T_max, n_folds, doublings,
                 max_rules=None, n_jobs=None, check=None, progress=None, report=None):
    """``T`` of each of several boosters (positives ``ypos[b]``, seeds
    ``seeds[b]``: its cross-validation's and its boosting's) by internal
    cross-validation on folds shared by all of them (stratified by class,
    seed ``fold_seed``; each fold's parts encoded once), fold by fold, the
    boosters of a fold in parallel (threads; the kernels release the GIL).
    A booster whose bound doubles (:func:`doubled_bounds`) runs its folds
    again to the new bound, from the same seeds (so its first rounds are
    those it had): going on instead would keep every fold's parts in
    memory at once. Under a budget (``max_rules``) whose rounds the chosen
    ``T`` exceed, the rounds of the highest prior-weighted hold-out AUC.
    ``progress``: the counts ``{"done", "steps"}`` of the caller's progress
    bar, which each fold's boosters advance, ``report(share, status)``
    shows it. Returns ``(rounds, tried)``: per booster its ``T`` and the
    rounds it was chosen among (with a class too small to validate,
    ``T_max`` and ``None``)."""
    folds = internal_folds(enc, enc.y, n_folds, fold_seed)
    if folds is None:  # a class too small to validate: every booster T_max
        return [T_max] * len(ypos), [None] * len(ypos)
    fold_seeds = [s[0].spawn(len(folds)) for s in seeds]
    # per booster: its mean hold-out errors and log losses (and AUCs, for a
    # budget) after each round, to its bound
    budgeted = max_rules is not None
    progress = {"done": 0, "steps": 0} if progress is None else progress

    def advance(bounds):
        which = list(bounds)
        progress["steps"] += len(folds) * len(which)
        curves = fold_curves(booster, enc, folds, [ypos[b] for b in which],
                             [fold_seeds[b] for b in which], [bounds[b] for b in which],
                             budgeted, which, n_jobs, check, progress, report)
        return {b: c.mean(axis=0) for b, c in curves.items()}
    _, means = doubled_bounds(advance, dict.fromkeys(range(len(ypos)), T_max), doublings,
                              holdout_size(enc, folds))
    curves = [means[b] for b in range(len(ypos))]
    tried = [c.shape[1] for c in curves]
    # argmin: the first, i.e. the smallest T of the lowest mean error
    rounds = [int(np.argmin(e[0])) + 1 for e in curves]
    if max_rules is not None and sum(rounds) > max_rules:
        # the rounds of the highest prior-weighted hold-out AUC (the
        # many-class AUC reported for the model): the least summed
        # p_c (1 - AUC_c), p_c / 2 without a round (under a budget no
        # bound doubles, so the curves are alike long)
        p = np.array([np.average(yp, weights=enc.w) for yp in ypos])
        auc = np.array([e[2] for e in curves])
        rounds = allocate_budget(p[:, None] * (1 - auc), p / 2, max_rules)
    return rounds, tried


def fold_curves(booster, enc, folds, ypos, fold_seeds, bounds, aucs, names, n_jobs=None,
                check=None, progress=None, report=None):
    """For the boosters of positives ``ypos[i]`` (``names[i]``: the key
    of its curves), the hold-out errors and log losses (with ``aucs``
    and AUCs) of its first ``bounds[i]`` rounds on each of ``folds``,
    boosted from ``fold_seeds[i]``: ``{name: array (fold, 2 + aucs,
    round)}``. Fold by fold, each fold's parts encoded once
    (:class:`SharedFold`) and dropped before the next; ``progress`` and
    ``report``: as in :func:`class_rounds`."""
    curves = {b: np.zeros((len(folds), 2 + aucs, T)) for b, T in zip(names, bounds)}
    for f, (train, test) in enumerate(folds):
        fold = SharedFold(booster, enc, train, test)
        jobs = (delayed(_shared_fold_curve)(fold, yp, T, fs[f], check, aucs)
                for yp, T, fs in zip(ypos, bounds, fold_seeds))
        for b, e in zip(names, parallel_map(jobs, parallel_jobs(n_jobs))):
            curves[b][f] = np.reshape(e, curves[b].shape[1:])
            if progress is not None:
                progress["done"] += 1
                if report:
                    report(progress["done"] / progress["steps"],
                           f"choosing T up to {max(bounds)} rounds: "
                           f"fold {f + 1} of {len(folds)}")
        del fold
    return curves
