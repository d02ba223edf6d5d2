"""RAND's hash: the quality of RAND with the hash that SQL computes (sums and
squares modulo 2^31 - 1, :func:`orangecontrib.rules.ruleset.random_firing_rule`)
against the SplitMix64 hash it replaced, on the 12-set protocol
(stratified 10-fold, seed 0), for Rule Scoring and EVC rules.

    python benchmarks/bench_rand_hash.py [--seeds 5] [--out results/rand_hash.md]

RAND's choice is a random draw; another hash is another draw. Each fold's
model is fitted once, then its test rows are predicted by RAND with each
hash and each of ``--seeds`` values of the model's ``random_state`` (the
rules stay the same): per hash, the 12-set mean accuracy, AUC and log loss
of each seed, their mean and their spread over the seeds.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from bench_protocol import DATASETS  # noqa: E402
from keel import load_keel  # noqa: E402
from runner import report_head, write_report  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules import ruleset  # noqa: E402
from orangecontrib.rules.evaluation import fold_metrics, stratified_folds  # noqa: E402


def _mix64(x):
    """SplitMix64's finaliser (Steele, Lea & Flood 2014)."""
    x = np.asarray(x, dtype=np.uint64)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def splitmix_firing_rule(cover, random_state=0):
    """The RAND choice before the SQL export: SplitMix64 of the seed and
    the set of firing rules (64-bit products that wrap around)."""
    R_ = cover.shape[1]
    seed = np.uint64(np.random.SeedSequence(random_state).generate_state(1, np.uint64)[0])
    rule_key = _mix64(np.arange(1, R_ + 1, dtype=np.uint64) ^ seed)
    pattern = np.bitwise_xor.reduce(np.where(cover, rule_key[None, :], np.uint64(0)), axis=1)
    keys = _mix64(pattern[:, None] ^ _mix64(rule_key)[None, :])
    return np.argmax(np.where(cover, keys, np.uint64(0)), axis=1)


HASHES = {"SplitMix64 (before)": splitmix_firing_rule,
          "mod 2^31-1 (SQL)": ruleset.random_firing_rule}
LEARNERS = {"Rule Scoring": lambda: R.RuleScoringLearner(strategy="rand"),
            "EVC rules": lambda: R.EVCRuleLearner(strategy="rand")}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                 "rand_hash.md"))
    args = p.parse_args()
    original = ruleset.random_firing_rule
    # scores[learner][hash][seed] = list of (ca, auc, logloss) per data set
    scores = {lk: {hk: [[] for _ in range(args.seeds)] for hk in HASHES} for lk in LEARNERS}
    for ds in DATASETS:
        data = load_keel(ds)
        n_classes = len(data.domain.class_var.values)
        folds = stratified_folds(data, 10, 0)
        for lk, factory in LEARNERS.items():
            models = [factory()(data[train]) for train, _ in folds]
            for hk, fn in HASHES.items():
                ruleset.random_firing_rule = fn
                try:
                    for s in range(args.seeds):
                        per_fold = []
                        for model, (_, test) in zip(models, folds):
                            model.random_state = s
                            p_ = model(data[test], model.Probs)
                            per_fold.append(fold_metrics(data.Y[test].astype(int), p_,
                                                         n_classes))
                        scores[lk][hk][s].append(np.mean(per_fold, axis=0)[:3])
                finally:
                    ruleset.random_firing_rule = original
            print(ds, lk, flush=True)
    lines = report_head("RAND's hash: SplitMix64 against the SQL hash (12-set protocol)") + [
        "", f"Each fold's model fitted once (defaults, strategy RAND); its test rows "
        f"predicted with each hash and model random_state 0..{args.seeds - 1}. "
        "12-set means per seed, then the mean and the spread (min-max) over the seeds.", ""]
    for lk in LEARNERS:
        lines += [f"## {lk}", "", "| hash | accuracy | AUC | log loss | accuracy per seed |",
                  "|---|---:|---:|---:|---|"]
        for hk in HASHES:
            per_seed = np.array([np.mean(s, axis=0) for s in scores[lk][hk]])
            mean, lo, hi = per_seed.mean(axis=0), per_seed.min(axis=0), per_seed.max(axis=0)
            cells = [f"{m:.4f} ({a:.4f}-{b:.4f})" for m, a, b in zip(mean, lo, hi)]
            lines.append(f"| {hk} | " + " | ".join(cells) + " | "
                         + ", ".join(f"{x:.4f}" for x in per_seed[:, 0]) + " |")
        lines.append("")
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
