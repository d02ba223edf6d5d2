"""SLS on many classes: which rule sets an ensemble keeps under a rule
budget, and what each class's searches see. On the frontier benchmark's
sets (its held-out third; the 12 protocol sets: 10-fold CV, means over the
folds) the default model is fitted once per split (its searches then
reused for every selection rule and budget); prints test accuracy,
AUC (prior-weighted one against the rest), log loss, the rules kept and
the default fit's seconds.

    OMP_NUM_THREADS=1 python benchmarks/probes/sls_budget_selection.py \
        [--datasets 1000x10x11,5000x40x11] [--budgets 10,25,50,100] \
        [--strategies q,bacc,...] [--regions 3,4,6] \
        [--balanced | --undersample class|task [--ratio 2]]

The learner runs with ``rest_ratio=None`` (every class's searches on every
example, the default before the sample of the rest; ``--rest``: with its
defaults); the options replace what the searches see:

* ``--balanced``: every example, weighted so that the class and the rest
  weigh the same (the kernel's weighted path);
* ``--undersample class|task``: the class's examples and a stratified
  sample of ``--ratio`` times as many others, one sample per class or a new
  one per task of five searches (what the learner's ``rest_ratio`` does,
  without its floor ``rest_min``).

Selection rules (``--strategies``): ``nearest`` is the learner's
(``sls.keep_within_budget``: per class, rule sets picked so that their
estimate ranks the rows as the whole ensemble's does); ``q`` is its
selection before (the heaviest rule sets by ``Q``); the others are defined
below, each with its docstring (``distil`` the first version of
``nearest``, with greedy steps computed afresh instead of from the
covariances). ``--regions``: also the
probabilities of G regions per rule set (``sls_regions.py``).
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from bench_frontier import load, splits  # noqa: E402
sys.path.insert(0, HERE)
from sls_regions import probabilities  # noqa: E402

import orangecontrib.rules.sls as S  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics  # noqa: E402

#: the learner's selection (``sls.keep_within_budget``, the nearest-ensemble
#: paths); the others take ``(found, rho, max_rules, per_error)``
NEAREST = S.keep_within_budget
STRATEGIES = {"nearest": NEAREST}
PROTOCOL = ("pima", "bupa", "housevotes", "wisconsin", "heart", "tic-tac-toe", "australian",
            "breast", "saheart", "mammographic", "monk-2", "titanic")


def strategy(f):
    STRATEGIES[f.__name__] = f
    return f


#: what an error counts in each class's Q in the fit running (captured from
#: ``sls.error_share``, called once per class just before the selection)
_error_shares = []
_original_error_share = S.error_share


def _recorded_error_share(m, rho_rows):
    _error_shares.append(_original_error_share(m, rho_rows))
    return _error_shares[-1]


S.error_share = _recorded_error_share


def hooked(f):
    """``f`` as the learner calls its selection."""
    if f is NEAREST:
        return f

    def keep(found, estimates, max_rules):
        per_error = dict(zip(found, _error_shares[-len(found):]))
        return f(found, 0.9, max_rules, per_error)
    return keep


def heaviest(found: dict, rho: float, max_rules: int, per_error: float = 1.0,
             fill_rest: bool = True) -> dict:
    """The learner's selection before the nearest-ensemble paths (kept here
    to measure against): the rule sets an ensemble keeps when all of them together may hold
    at most ``max_rules`` distinct rules (per class's ensemble):
    ``found[c]`` maps class ``c``'s distinct rule sets to ``(k, regions)``.

    First the budget is shared among the classes: class ``c`` gets ``n_c``
    rules, and keeps its heaviest rule set of at most ``n_c`` rules (by
    ``Q(r) ∝ rho^e(r)`` among its class's; ties: fewer rules, then the
    order found). The ``n_c`` are those whose kept sets have the highest
    prior-weighted training AUC, the least summed ``p_c (1 − AUC_c)`` (a
    rule set read as a yes/no ranking: ``AUC = (1 + TPR − FPR) / 2``;
    ``p_c / 2`` without a set), exact by :func:`rules.allocate_budget`, as
    SLIPPER shares its rounds. One ensemble (two classes) gets the whole
    budget. Then the other rule sets, heaviest first, each kept if the
    distinct rules stay within the budget. The weights are then those of
    the kept sets (Section 4 on them). ``per_error``: as in
    :func:`white_noise_weights`, one for all classes or a mapping class ->
    value."""
    order, curves, prior = [], [], []
    width = max((len(rs) for sets in found.values() for rs in sets), default=0)
    for c, sets in found.items():
        rule_sets = list(sets)
        regions = np.array([sets[rs][1] for rs in rule_sets]).reshape(-1, 4)
        errors = regions[:, 1] + regions[:, 2]  # covered negatives, uncovered positives
        share = per_error[c] if isinstance(per_error, dict) else per_error
        q = S.white_noise_weights(errors, rho, share) if rule_sets else errors
        ranked = sorted(range(len(rule_sets)), key=lambda i: (-q[i], len(rule_sets[i]), i))
        order.append([(c, rule_sets[i], q[i]) for i in ranked])
        pos, neg = regions[:, 0] + regions[:, 2], regions[:, 1] + regions[:, 3]
        p_c = pos[0] / (pos[0] + neg[0]) if rule_sets and pos[0] + neg[0] > 0 else 0.0
        tpr = np.divide(regions[:, 0], pos, out=np.zeros(len(pos)), where=pos > 0)
        fpr = np.divide(regions[:, 1], neg, out=np.zeros(len(neg)), where=neg > 0)
        loss = p_c * (1 - tpr + fpr) / 2  # p_c (1 - AUC)
        prior.append(p_c / 2)  # no rule set: AUC 1/2
        # the loss of the set kept with n rules: the heaviest of at most n
        sizes = np.array([len(rule_sets[i]) for i in ranked])
        ranked_loss = loss[ranked]
        curves.append([ranked_loss[sizes <= n][0] if np.any(sizes <= n) else prior[-1]
                       for n in range(1, width + 1)])
    if len(found) > 1:
        shares = S.allocate_budget(np.reshape(curves, (len(found), width)), prior, max_rules)
    else:
        shares = [max_rules] * len(found)
    fill = sorted((t for ranked in order for t in ranked), key=lambda t: -t[2])
    return keep_ranked(found, order, shares, max_rules, fill if fill_rest else [])


STRATEGIES["q"] = heaviest


def keep_ranked(found: dict, order: list, shares, max_rules: int, fill: list,
                within_share: bool = False) -> dict:
    """The rule sets kept within ``max_rules`` distinct rules: each class
    (``order``: per class its ``(c, rule set, weight)`` in preference order)
    first keeps the first rule set that fits its share (``within_share``:
    every one that does), then the rule sets of ``fill``, in turn, while
    their new rules fit the budget (:func:`heaviest`)."""
    kept = {c: {} for c in found}
    rules = {c: set() for c in found}
    used = 0

    def keep(c, rs, most=max_rules):
        nonlocal used
        new = set(rs) - rules[c]
        if used + len(new) > max_rules or len(rules[c]) + len(new) > most or rs in kept[c]:
            return False
        kept[c][rs] = found[c][rs]
        rules[c] |= new
        used += len(new)
        return True

    for ranked, share in zip(order, shares):  # each class its share's heaviest rule set
        if within_share:
            for c, rs, _ in ranked:
                keep(c, rs, share)
        else:
            next((True for c, rs, _ in ranked if keep(c, rs, share)), None)
    for c, rs, *_ in fill:
        keep(c, rs)
    return kept




def _ranked_by(found, rho, per_error, key):
    """Each class's rule sets ranked by ``key(tpr - fpr, q, size, i)``."""
    out = {}
    for c, sets in found.items():
        rule_sets = list(sets)
        regions = np.array([sets[rs][1] for rs in rule_sets]).reshape(-1, 4)
        errors = regions[:, 1] + regions[:, 2]
        share = per_error[c] if isinstance(per_error, dict) else per_error
        q = S.white_noise_weights(errors, rho, share) if rule_sets else errors
        pos, neg = regions[:, 0] + regions[:, 2], regions[:, 1] + regions[:, 3]
        tpr = np.divide(regions[:, 0], pos, out=np.zeros(len(pos)), where=pos > 0)
        fpr = np.divide(regions[:, 1], neg, out=np.zeros(len(neg)), where=neg > 0)
        out[c] = sorted(range(len(rule_sets)),
                        key=lambda i: key(tpr[i] - fpr[i], q[i], len(rule_sets[i]), i))
        out[c] = [(rule_sets[i], tpr[i] - fpr[i], q[i]) for i in out[c]]
    return out


@strategy
def bacc(found, rho, max_rules, per_error=1.0):
    """Within a class, the rule set of at most ``n_c`` rules with the highest
    training ``TPR - FPR`` (ties: heavier); shares as ``q``; the rest of the
    budget filled as ``q`` (heaviest first)."""
    ranked = _ranked_by(found, rho, per_error, lambda d, q, n, i: (-d, -q, n, i))
    return _keep(found, ranked, max_rules, fill=lambda t: -t[3])


@strategy
def bacc_fill(found, rho, max_rules, per_error=1.0):
    """As ``bacc``, the rest of the budget filled by ``TPR - FPR`` too."""
    ranked = _ranked_by(found, rho, per_error, lambda d, q, n, i: (-d, -q, n, i))
    return _keep(found, ranked, max_rules, fill=lambda t: -t[2])


@strategy
def share_filled(found, rho, max_rules, per_error=1.0):
    """As ``q``, but each class then keeps its other rule sets, heaviest
    first, while they fit its share; then the rest as ``q``."""
    ranked = _ranked_by(found, rho, per_error, lambda d, q, n, i: (-q, n, i))
    return _keep(found, ranked, max_rules, fill=lambda t: -t[3], within_share=True)


@strategy
def small_sets(found, rho, max_rules, per_error=1.0):
    """Only rule sets of one or two rules; each class keeps them heaviest
    first while they fit its share."""
    small = {c: {rs: v for rs, v in sets.items() if len(rs) <= 2} for c, sets in found.items()}
    ranked = _ranked_by(small, rho, per_error, lambda d, q, n, i: (-q, n, i))
    return _keep(small, ranked, max_rules, fill=lambda t: -t[3], within_share=True)


@strategy
def one_rule(found, rho, max_rules, per_error=1.0):
    """Only rule sets of one rule; each class keeps them heaviest first while
    they fit its share."""
    small = {c: {rs: v for rs, v in sets.items() if len(rs) <= 1} for c, sets in found.items()}
    ranked = _ranked_by(small, rho, per_error, lambda d, q, n, i: (-q, n, i))
    return _keep(small, ranked, max_rules, fill=lambda t: -t[3], within_share=True)


def _tempered(factor):
    def keep(found, rho, max_rules, per_error=1.0):
        kept = heaviest(found, rho, max_rules, per_error)
        return {c: {rs: (k, np.asarray(reg) * factor) for rs, (k, reg) in sets.items()}
                for c, sets in kept.items()}
    keep.__doc__ = f"""As ``q``, the kept rule sets' errors times {factor} in ``Q``
    (flatter weights; 0: equal)."""
    return keep


STRATEGIES["q_flat02"] = _tempered(0.2)
STRATEGIES["q_equal"] = _tempered(0.0)

_choices = []
_original_log_n = S.log_n_rule_sets


def _capture_log_n(choices, k_max):
    _choices[:] = [np.asarray(choices, dtype=float)]
    return _original_log_n(choices, k_max)


S.log_n_rule_sets = _capture_log_n


def _occam_penalty(k, m, delta=0.05):
    """Occam's razor for one rule set of ``k`` rules among ``C(N, k)``:
    ``sqrt((ln C(N, k) + ln(1/delta)) / (2m))``."""
    log_n = float(np.sum(np.log(_choices[0])))
    from math import lgamma
    log_c = k * log_n - lgamma(k + 1)
    return np.sqrt((log_c + np.log(1 / delta)) / (2 * m))


@strategy
def occam(found, rho, max_rules, per_error=1.0, fill=False):
    """Each class's rule sets ranked by the Occam bound of their balanced
    error, ``(1 - TPR + FPR) / 2`` plus :func:`_occam_penalty`; the shares
    by the same (the curve: the least bound of at most ``n`` rules); no
    other rule sets."""
    out = {}
    curves, prior, best, everything = [], [], [], []
    width = max((len(rs) for sets in found.values() for rs in sets), default=0)
    for c, sets in found.items():
        rule_sets = list(sets)
        regions = np.array([sets[rs][1] for rs in rule_sets]).reshape(-1, 4)
        pos, neg = regions[:, 0] + regions[:, 2], regions[:, 1] + regions[:, 3]
        m = float(pos[0] + neg[0])
        p_c = pos[0] / m
        tpr = regions[:, 0] / np.maximum(pos, 1e-12)
        fpr = regions[:, 1] / np.maximum(neg, 1e-12)
        sizes = np.array([len(rs) for rs in rule_sets])
        bound = (1 - tpr + fpr) / 2 + np.array([_occam_penalty(k, m) for k in sizes])
        loss = p_c * np.minimum(bound, 0.5)
        everything += [(bound[i], c, rs) for i, rs in enumerate(rule_sets)]
        prior.append(p_c / 2)
        curve, arg = [], []
        for n in range(1, width + 1):
            ok = np.flatnonzero(sizes <= n)
            i = ok[np.argmin(loss[ok])] if len(ok) else -1
            curve.append(min(loss[i], prior[-1]) if i >= 0 else prior[-1])
            arg.append(i)
        curves.append(curve)
        best.append((rule_sets, arg))
    shares = S.allocate_budget(np.reshape(curves, (len(found), width)), prior, max_rules)
    for (c, _), (rule_sets, arg), share, curve, p in zip(found.items(), best, shares,
                                                          curves, prior):
        out[c] = {}
        if share > 0 and curve[share - 1] < p:
            rs = rule_sets[arg[share - 1]]
            out[c][rs] = found[c][rs]
    if fill:  # then the other rule sets, least bound first, while they fit
        used = sum(len(set().union(*kept)) for kept in out.values() if kept)
        for b, c, rs in sorted(everything, key=lambda t: t[0]):
            rules = set().union(*out[c]) if out[c] else set()
            new = set(rs) - rules
            if rs not in out[c] and used + len(new) <= max_rules:
                out[c][rs] = found[c][rs]
                used += len(new)
    return out


@strategy
def occam_fill(found, rho, max_rules, per_error=1.0):
    """As ``occam``, then the other rule sets by their bound (least first)
    while their new rules fit the budget."""
    return occam(found, rho, max_rules, per_error, fill=True)


def _keep(found, ranked, max_rules, fill, within_share=False):
    width = max((len(rs) for sets in found.values() for rs in sets), default=0)
    curves, prior = [], []
    for c, lst in ranked.items():
        regions = np.array([found[c][rs][1] for rs, _, _ in lst]).reshape(-1, 4)
        pos, neg = regions[:, 0] + regions[:, 2], regions[:, 1] + regions[:, 3]
        p_c = pos[0] / (pos[0] + neg[0]) if lst else 0.0
        loss = np.array([p_c * (1 - d) / 2 for _, d, _ in lst])
        sizes = np.array([len(rs) for rs, _, _ in lst])
        prior.append(p_c / 2)
        curves.append([loss[sizes <= n][0] if np.any(sizes <= n) else prior[-1]
                       for n in range(1, width + 1)])
    if len(found) > 1:
        shares = S.allocate_budget(np.reshape(curves, (len(found), width)), prior, max_rules)
    else:
        shares = [max_rules]
    order = [[(c, rs, q) for rs, _, q in lst] for c, lst in ranked.items()]
    everything = [(c, rs, d, q) for c, lst in ranked.items() for rs, d, q in lst]
    return keep_ranked(found, order, shares, max_rules, sorted(everything, key=fill),
                         within_share)


#: the default model of the split and its training rows (set by main)
_CTX = {}


def _greedy_paths(found, max_rules, target, per_rule=True):
    """Per class, rule sets picked one at a time, each the one that most
    lowers :func:`_loss` between the kept sets' ``Q``-weighted estimate on
    the training rows and ``target(c, ens)`` per rule it adds;
    the loss of the path's prefix within ``n`` rules (``n = 1..max_rules``)
    and with none (the class's prior)."""
    model, X = _CTX["model"], _CTX["X"]
    _whole_ensemble(model.ensembles[0].cls, model.ensembles[0])  # the violations, once
    V = _CTX["V"]
    paths, curves, prior = {}, [], []
    for ens, cols in zip(model.ensembles, model._columns):
        c = ens.cls
        index = {rs: r for r, rs in enumerate(ens.rule_sets)}
        sets = [rs for rs in found[c]]
        E = np.array([ens.leaf[index[rs], S.nearest_misses(V, cols[index[rs]])] for rs in sets])
        q = np.array([ens.weights[index[rs]] for rs in sets])
        q = q / q.max()
        T = target(c, ens)
        p0 = model.prior[c]
        num, den = np.zeros(X.shape[0]), 0.0
        loss = _loss(np.full(len(T), p0), T)
        prior.append(loss)
        rules, used, path, points = set(), 0, [], []
        left = np.ones(len(sets), bool)
        while left.any():
            new = np.array([len(set(rs) - rules) for rs in sets])
            ok = left & (used + new <= max_rules)
            if not ok.any():
                break
            cand = np.flatnonzero(ok)
            Sx = (num[None] + q[cand, None] * E[cand]) / (den + q[cand])[:, None]
            losses = np.array([_loss(row, T) for row in Sx])
            gain = (loss - losses) / (np.maximum(new[cand], 0.25) if per_rule else 1.0)
            i = int(np.argmax(gain))
            if gain[i] <= 0:
                break
            r = cand[i]
            num, den, loss = num + q[r] * E[r], den + q[r], float(losses[i])
            rules |= set(sets[r])
            used += int(new[r])
            left[r] = False
            path.append(sets[r])
            points.append((used, loss, len(path)))
        curve = []
        for n in range(1, max_rules + 1):
            within = [p for p in points if p[0] <= n]
            curve.append(within[-1][1] if within else prior[-1])
        paths[c] = (path, points)
        curves.append(curve)
    return paths, curves, prior


def _distilled(found, max_rules, target, per_rule=True):
    paths, curves, prior = _greedy_paths(found, max_rules, target, per_rule)
    classes = [e.cls for e in _CTX["model"].ensembles]
    if len(classes) > 1:
        shares = S.allocate_budget(np.array(curves), prior, max_rules)
    else:
        shares = [max_rules]
    kept = {c: {} for c in found}
    for c, share in zip(classes, shares):
        path, points = paths[c]
        n = max((p[2] for p in points if p[0] <= share), default=0)
        for rs in path[:n]:
            kept[c][rs] = found[c][rs]
    return kept


def _whole_ensemble(c, ens):
    """The default model's estimate of class ``c`` (ensemble ``ens``) on the
    training rows: the target of the nearest-ensemble selections."""
    from orangecontrib.rules.rules import violations
    model = _CTX["model"]
    if "V" not in _CTX:
        _CTX["V"] = violations(model.rule_list, _CTX["X"])
    cols = model._columns[model.ensembles.index(ens)]
    return model._ensemble_probability(ens, cols, _CTX["V"])


@strategy
def distil(found, rho, max_rules, per_error=1.0):
    """Per class, rule sets picked greedily (loss lowered per rule added) so
    that the kept sets' training estimate is nearest the default
    ensemble's (:func:`_loss`); the budget shared by those losses. The
    learner's ``nearest`` computed afresh at every step (the same picks),
    and with ``--mse`` the squared difference instead."""
    return _distilled(found, max_rules, _whole_ensemble)


@strategy
def distil_gain(found, rho, max_rules, per_error=1.0):
    """As ``distil``, each pick the most loss lowered (not per rule)."""
    return _distilled(found, max_rules, _whole_ensemble, per_rule=False)


@strategy
def brier(found, rho, max_rules, per_error=1.0):
    """As ``distil``, the target the training labels (Brier score)."""
    y = _CTX["y"]
    return _distilled(found, max_rules, lambda c, ens: (y == c).astype(float))


def _distil_fill(found, rho, max_rules, per_error, per_rule, by_share=False):
    """The learner's shares and each class's heaviest rule set within its
    share (``q``), then the rest of the budget filled one rule set at a
    time: the one that most lowers :func:`_loss` between its class's kept
    sets' ``Q``-weighted training estimate and the default ensemble's (per
    rule it adds with ``per_rule``)."""
    model, X = _CTX["model"], _CTX["X"]
    first = heaviest(found, rho, max_rules, per_error, fill_rest=False)
    state = {}
    used = 0
    if by_share:  # each class its share's rules, picked as the fill below
        shares = {c: len(set().union(*first[c])) if first[c] else 0 for c in first}
        first = {c: {} for c in first}
    for ens, cols in zip(model.ensembles, model._columns):
        c = ens.cls
        index = {rs: r for r, rs in enumerate(ens.rule_sets)}
        E = {rs: ens.leaf[index[rs], S.nearest_misses(_CTX["V"], cols[index[rs]])]
             for rs in found[c]}
        q = {rs: ens.weights[index[rs]] for rs in found[c]}
        T = _whole_ensemble(c, ens)
        num, den = np.zeros(X.shape[0]), 0.0
        for rs in first[c]:
            num, den = num + q[rs] * E[rs], den + q[rs]
        rules = set().union(*first[c]) if first[c] else set()
        used += len(rules)
        Sx = num / den if den else np.full(X.shape[0], model.prior[c])
        state[c] = dict(E=E, q=q, T=T, num=num, den=den, rules=rules,
                        loss=_loss(Sx, T))
    kept = {c: dict(v) for c, v in first.items()}
    if by_share:
        for c in state:
            _fill(found, {c: state[c]}, kept, shares[c], 0, per_rule)
        used = sum(len(st["rules"]) for st in state.values())
    _fill(found, state, kept, max_rules, used, per_rule)
    return kept


def _loss(Sx, T):
    """What ``T`` varies that a linear function of ``Sx`` does not explain:
    ``var(T) (1 - corr(Sx, T)^2)`` (scale-free: a ranking's fit)."""
    if _CTX.get("mse"):
        return float(np.mean((Sx - T) ** 2))
    t = T - T.mean()
    s = Sx - Sx.mean()
    vs = float(np.dot(s, s))
    return float(np.dot(t, t) - (np.dot(s, t) ** 2 / vs if vs > 0 else 0.0)) / len(T)


def _fill(found, state, kept, max_rules, used, per_rule):
    while True:
        best = None
        for c, st in state.items():
            for rs in found[c]:
                if rs in kept[c]:
                    continue
                new = len(set(rs) - st["rules"])
                if used + new > max_rules:
                    continue
                Sx = (st["num"] + st["q"][rs] * st["E"][rs]) / (st["den"] + st["q"][rs])
                loss = _loss(Sx, st["T"])
                gain = (st["loss"] - loss) / (max(new, 0.25) if per_rule else 1.0)
                if gain > 0 and (best is None or gain > best[0]):
                    best = (gain, c, rs, new, loss)
        if best is None:
            return kept
        _, c, rs, new, loss = best
        st = state[c]
        st["num"], st["den"] = st["num"] + st["q"][rs] * st["E"][rs], st["den"] + st["q"][rs]
        st["rules"] |= set(rs)
        st["loss"] = loss
        used += new
        kept[c][rs] = found[c][rs]


@strategy
def q_distil(found, rho, max_rules, per_error=1.0):
    """``q``'s shares and first sets, the rest filled nearest the default
    ensemble per rule added (``_distil_fill``)."""
    return _distil_fill(found, rho, max_rules, per_error, True)


@strategy
def q_distil_gain(found, rho, max_rules, per_error=1.0):
    """As ``q_distil``, by the loss lowered (not per rule)."""
    return _distil_fill(found, rho, max_rules, per_error, False)


@strategy
def share_distil(found, rho, max_rules, per_error=1.0):
    """``q``'s shares; each class's share and then the rest of the budget
    filled nearest the default ensemble per rule added."""
    return _distil_fill(found, rho, max_rules, per_error, True, by_share=True)


_balanced = {}
_original_batch = S._search_batch


def balanced_batch(sd, pos_bits, k, seeds, *args, **kwargs):
    """The searches of one class on weights that balance it against the
    rest (each side half the total weight)."""
    key = bytes(np.asarray(pos_bits).view(np.uint8))
    if key not in _balanced:
        m = sd.m
        pos = np.unpackbits(np.asarray(pos_bits).view(np.uint8), bitorder="little")[:m] > 0
        w = np.asarray(sd.w_arr, dtype=float)
        wp, wn = w[pos].sum(), w[~pos].sum()
        total = w.sum()
        bw = np.where(pos, w * total / 2 / max(wp, 1e-12), w * total / 2 / max(wn, 1e-12))
        _balanced[key] = S.SLSData(sd.codes_arr, sd.n_bins_arr, sd.ordinal_arr, bw)
    return _original_batch(_balanced[key], pos_bits, k, seeds, *args, **kwargs)


_original_pack = S.pack_bits
_samples = {}
_Y = []


def undersampled_batch(sd, pos_bits, k, seeds, *args, per_task=False, ratio=1.0, **kwargs):
    """The searches of one class on its positives and a random sample of
    the other examples, ``ratio`` times as many, stratified by class (one
    sample per class, or per task with ``per_task``)."""
    m = sd.m
    pos = np.unpackbits(np.asarray(pos_bits).view(np.uint8), bitorder="little")[:m] > 0
    key = (bytes(np.asarray(pos_bits).view(np.uint8)), int(seeds[0]) if per_task else 0)
    if key not in _samples:
        rng = np.random.default_rng(int(seeds[0]) if per_task else int(pos.sum()))
        y = _Y[0]
        neg = np.flatnonzero(~pos)
        n_take = min(len(neg), int(round(ratio * pos.sum())))
        # stratified by the other classes
        take = []
        classes = np.unique(y[neg])
        for c in classes:
            rows = neg[y[neg] == c]
            n = int(round(n_take * len(rows) / len(neg)))
            take.append(rng.choice(rows, min(n, len(rows)), replace=False))
        rows = np.sort(np.concatenate([np.flatnonzero(pos)] + take))
        sub = S.SLSData(np.asarray(sd.codes_arr)[rows], sd.n_bins_arr, sd.ordinal_arr,
                        np.asarray(sd.w_arr)[rows])
        _samples[key] = (sub, S.pack_bits(pos[rows].astype(np.uint8)))
    sub, sub_pos = _samples[key]
    return _original_batch(sub, sub_pos, k, seeds, *args, **kwargs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="1000x10x11,5000x40x11")
    ap.add_argument("--budgets", default="10,25,50,100")
    ap.add_argument("--strategies", default="nearest,q")
    ap.add_argument("--regions", default="",
                    help="also G regions per rule set (sls_regions.py), e.g. 2,4,6")
    ap.add_argument("--balanced", action="store_true",
                    help="each class's searches on weights balancing it against the rest")
    ap.add_argument("--undersample", default="",
                    help="class / task: each class's searches on its positives and as many "
                         "others (one sample per class or per task)")
    ap.add_argument("--mse", action="store_true",
                    help="the distil variants' loss: the squared difference to the default "
                         "ensemble's estimate instead of the variance it leaves unexplained")
    ap.add_argument("--rest", action="store_true",
                    help="the learner's default sample of the rest (rest_ratio, rest_min)")
    ap.add_argument("--ratio", type=float, default=1.0,
                    help="--undersample: other examples per positive")
    args = ap.parse_args()
    # the learner's own sample of the rest off (unless --rest): the probe's
    # variants replace it
    fixed = {} if args.rest else dict(rest_ratio=None)
    if args.undersample:
        from functools import partial
        S._search_batch = partial(undersampled_batch, per_task=args.undersample == "task",
                                  ratio=args.ratio)
    if args.balanced:
        S._search_batch = balanced_batch
    budgets = [int(b) for b in args.budgets.split(",")]
    strategies = args.strategies.split(",")
    regions = [int(g) for g in args.regions.split(",") if g]
    original_map = S.parallel_map
    for name in args.datasets.split(","):
        data = load(name)
        group = ("shapes" if "x" in name and name[0].isdigit()
                 else "protocol" if name in PROTOCOL else "keel")
        C = len(data.domain.class_var.values)
        scores, seconds = {}, 0.0
        for train, test in splits(group, data):
            train, test = data[train], data[test]
            cache = []
            _Y[:] = [train.Y.astype(int)]
            _samples.clear()

            def cached_map(jobs, n_jobs, cache=cache):
                if not cache:
                    cache.append(list(original_map(jobs, n_jobs)))
                return cache[0]
            S.parallel_map = cached_map
            y = test.Y.astype(int)
            t = time.perf_counter()
            model = S.SLSEnsembleLearner(**fixed)(train)  # the searches: here, then reused
            seconds += time.perf_counter() - t
            _CTX.clear()
            _CTX.update(mse=args.mse, model=model, X=model.data_to_model_domain(train).X,
                        y=train.Y.astype(int))
            scores.setdefault(("default", None), []).append(
                (*fold_metrics(y, model(test, model.Probs), C)[:3], model.size[0]))
            for s in strategies:
                S.keep_within_budget = hooked(STRATEGIES[s])
                for b in budgets:
                    model = S.SLSEnsembleLearner(max_rules=b, **fixed)(train)
                    scores.setdefault((s, b), []).append(
                        (*fold_metrics(y, model(test, model.Probs), C)[:3], model.size[0]))
                    for G in regions:
                        Xtr = model.data_to_model_domain(train).X
                        Xte = model.data_to_model_domain(test).X
                        p = probabilities(model, Xtr, train.Y.astype(int), Xte, G)
                        scores.setdefault((f"G={G}", b), []).append(
                            (*fold_metrics(y, p, C)[:3], model.size[0]))
            S.keep_within_budget = NEAREST
            S.parallel_map = original_map
        for (s, b), rows in scores.items():
            ca, auc, ll, n = np.mean(rows, axis=0)
            extra = f" ({seconds:.1f} s)" if b is None else ""
            print(f"{name} {s:>12} {'' if b is None else b:>4}: rules {n:6.1f} acc {ca:.3f} "
                  f"auc {auc:.3f} ll {ll:.3f}{extra}", flush=True)


if __name__ == "__main__":
    main()
