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

Selection rules (``--strategies``, each a function with the signature of
``sls.keep_within_budget``): ``q`` is the learner's; the others are
defined below, each with its docstring. ``--regions``: also the
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

STRATEGIES = {"q": S.keep_within_budget}
PROTOCOL = ("pima", "bupa", "housevotes", "wisconsin", "heart", "tic-tac-toe", "australian",
            "breast", "saheart", "mammographic", "monk-2", "titanic")


def strategy(f):
    STRATEGIES[f.__name__] = f
    return f


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
        kept = STRATEGIES["q"](found, rho, max_rules, per_error)
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
    return S.keep_ranked(found, order, shares, max_rules, sorted(everything, key=fill),
                         within_share)


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
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--regions", default="",
                    help="also G regions per rule set (sls_regions.py), e.g. 2,4,6")
    ap.add_argument("--balanced", action="store_true",
                    help="each class's searches on weights balancing it against the rest")
    ap.add_argument("--undersample", default="",
                    help="class / task: each class's searches on its positives and as many "
                         "others (one sample per class or per task)")
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
            scores.setdefault(("default", None), []).append(
                (*fold_metrics(y, model(test, model.Probs), C)[:3], model.size[0]))
            for s in strategies:
                S.keep_within_budget = STRATEGIES[s]
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
            S.keep_within_budget = STRATEGIES["q"]
            S.parallel_map = original_map
        for (s, b), rows in scores.items():
            ca, auc, ll, n = np.mean(rows, axis=0)
            extra = f" ({seconds:.1f} s)" if b is None else ""
            print(f"{name} {s:>12} {'' if b is None else b:>4}: rules {n:6.1f} acc {ca:.3f} "
                  f"auc {auc:.3f} ll {ll:.3f}{extra}", flush=True)


if __name__ == "__main__":
    main()
