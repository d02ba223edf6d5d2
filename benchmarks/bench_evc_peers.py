"""EVC rules and logistic regression with rules against orange3-evcrules
(the EVC authors' own pure-Python add-on, 2018) on the 12-set binary
protocol: the same stratified 10-fold split (seed 0), the same machine, one
run, one job each.

    python benchmarks/bench_evc_peers.py --peers DIR [--datasets a,b]

``DIR`` holds an unmodified copy of orange3-evcrules and ``evc_compat.py``,
a loader that makes it importable under Orange 3.40 (it is not part of this
project; it is used only to measure against). Peers, as their own examples
configure them: ``RulesStar(evc=True)`` (beam 100, length <= 5, Gumbel fit
inside every fit) and ``LRRulesLearner(opt_penalty=True,
rule_learner=RulesStar(evc=True, add_sub_rules=True, parent_alpha=0.5))``.
Ours: ``EVCRuleLearner()`` and ``RuleLogisticRegressionLearner()`` with their
defaults (100 permutations for the Gumbel fit, inside every fit).

Writes ``results/evc_peers.md``: fit seconds per fold and the peer/ours
ratio per data set, with accuracy, AUC and log loss of all four.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_protocol import DATASETS, evaluate  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import command, git_commit, machine, write_report  # noqa: E402

from orangecontrib.rules import EVCRuleLearner, RuleLogisticRegressionLearner  # noqa: E402
from orangecontrib.rules.evaluation import stratified_folds  # noqa: E402


class Quiet:
    """A peer learner whose fit prints nothing (its EVD fitter prints)."""

    def __init__(self, factory):
        self.factory = factory

    def __call__(self, data):
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.factory()(data)


def learners(peers_dir):
    sys.path.insert(0, peers_dir)
    import evc_compat
    rules, logistic, _ = evc_compat.load_evcrules()
    return {
        "ours_evc": ("EVC rules (this add-on)", EVCRuleLearner),
        "peer_evc": ("RulesStar(evc=True) (orange3-evcrules)",
                     lambda: Quiet(lambda: rules.RulesStar(evc=True))),
        "ours_lrr": ("LR with rules (this add-on)", RuleLogisticRegressionLearner),
        "peer_lrr": ("LRRulesLearner (orange3-evcrules)", lambda: Quiet(
            lambda: logistic.LRRulesLearner(
                opt_penalty=True, rule_learner=rules.RulesStar(
                    evc=True, add_sub_rules=True, parent_alpha=0.5)))),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--peers", default=os.environ.get("EVCRULES_PEERS"),
                   help="folder with orange3-evcrules and evc_compat.py "
                        "(default: $EVCRULES_PEERS)")
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "evc_peers.md"))
    args = p.parse_args()
    if not args.peers:
        p.error("--peers is required")
    table = learners(args.peers)
    datasets = [s for s in args.datasets.split(",") if s]
    res = {}
    t_start = time.perf_counter()
    for ds in datasets:
        data = load_keel(ds)
        folds = stratified_folds(data, 10, 0)
        res[ds] = {}
        for key, (_, factory) in table.items():
            r, _ = evaluate(data, factory, folds)
            res[ds][key] = r
            print(f"{ds} {key}: fit {r['fit_s']:.3f} s/fold AUC {r['auc']:.3f}", flush=True)
        report(args, table, res, datasets, t_start)


def report(args, table, res, datasets, t_start):
    lines = [f"# EVC rules and LR with rules against orange3-evcrules "
             f"({len(res)} of {len(datasets)} data sets)", "",
             f"Command: `{command()}` (commit {git_commit()}, "
             f"{(time.perf_counter() - t_start) / 60:.1f} min).",
             f"Machine: {machine()}.", "",
             "The 12-set binary protocol: stratified 10-fold CV, seed 0, the same folds "
             "for all four learners, one job each, all in this one run. Every fit "
             "includes its own Gumbel (extreme value) fit. Fit seconds are the mean "
             "per fold; the ratio is the peer's time over ours.", "",
             "| data set | rows | EVC ours s | RulesStar s | ratio | LR ours s | "
             "LRRules s | ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    ratios_evc, ratios_lrr = [], []
    for ds, r in res.items():
        a = r["peer_evc"]["fit_s"] / r["ours_evc"]["fit_s"]
        b = r["peer_lrr"]["fit_s"] / r["ours_lrr"]["fit_s"]
        ratios_evc.append(a)
        ratios_lrr.append(b)
        lines.append(f"| {ds} | {len(load_keel(ds))} | {r['ours_evc']['fit_s']:.3f} | "
                     f"{r['peer_evc']['fit_s']:.2f} | {a:.0f}x | "
                     f"{r['ours_lrr']['fit_s']:.3f} | {r['peer_lrr']['fit_s']:.2f} | {b:.0f}x |")
    lines += ["",
              f"EVC rules: at least 20x faster on {sum(x >= 20 for x in ratios_evc)} of "
              f"{len(ratios_evc)} sets (median ratio {np.median(ratios_evc):.0f}x, "
              f"smallest {min(ratios_evc):.0f}x). LR with rules: at least 20x faster on "
              f"{sum(x >= 20 for x in ratios_lrr)} of {len(ratios_lrr)} sets (median "
              f"{np.median(ratios_lrr):.0f}x, smallest {min(ratios_lrr):.0f}x).", ""]
    for metric, title in (("ca", "Accuracy"), ("auc", "AUC"), ("logloss", "Log loss")):
        lines += [f"## {title}", "", "| data set | " + " | ".join(
            v[0] for v in table.values()) + " |", "|---|" + "---:|" * len(table)]
        for ds, r in res.items():
            lines.append(f"| {ds} | " + " | ".join(f"{r[k][metric]:.3f}" for k in table) + " |")
        lines.append("| **mean** | " + " | ".join(
            f"{np.mean([r[k][metric] for r in res.values()]):.3f}" for k in table) + " |")
        lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
