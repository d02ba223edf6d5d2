"""``python -m orangecontrib.rules``: cross-validate the add-on's learners.

Prints a table of classification accuracy, AUC, log loss and number of rules
for every learner (and scoring strategy) on a data set that ships with Orange,
then the rules of one model fitted on all the data.
"""
from __future__ import annotations

import argparse
import sys
import time

from Orange.data import Table

from .evaluation import Entry, cross_validate, markdown_table
from .rules import format_rules
from .scoring import STRATEGIES, RuleScoringLearner


def learner_entries(strategies, seed):
    """The add-on's learners as evaluation entries (those that exist so far).

    Fawcett's strategies only differ in how the same rules are resolved, so
    one CN2 rule set is fitted per fold and scored with every strategy.
    """
    def per_strategy(model):
        return {f"CN2 rules + {s.upper()}": model.with_strategy(s)
                for s in strategies}
    return [Entry("CN2 rules", RuleScoringLearner(random_state=seed),
                  per_strategy)]


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m orangecontrib.rules",
        description="Cross-validate the rule learners of Orange3-Rules on a "
                    "data set and print CA, AUC, log loss and rule counts, then "
                    "the rules of one model fitted on all the data.")
    p.add_argument("--data", default="heart_disease",
                   help="a data set that ships with Orange (heart_disease, "
                        "titanic, iris, zoo, ...) or the path of any file "
                        "Orange can read (.tab, .csv, .xlsx, ...); "
                        "default: %(default)s")
    p.add_argument("--folds", type=int, default=5,
                   help="number of stratified folds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for the folds and randomised learners "
                        "(default: %(default)s)")
    p.add_argument("--strategies", default=",".join(STRATEGIES),
                   help="comma-separated Fawcett scoring strategies "
                        "(default: %(default)s)")
    p.add_argument("--show-rules", choices=STRATEGIES, default="wvote",
                   help="print the rules of the model scored with this "
                        "strategy (default: %(default)s)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    strategies = [s.strip().lower() for s in args.strategies.split(",") if s.strip()]
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        print(f"unknown strategies: {', '.join(bad)}", file=sys.stderr)
        return 2
    try:
        data = Table(args.data)
    except Exception as exc:  # noqa: BLE001 - explain, do not dump a traceback
        print(f"cannot read data {args.data!r}: {exc}", file=sys.stderr)
        return 2
    reason = RuleScoringLearner().incompatibility_reason(data.domain)
    if reason:
        print(f"{args.data}: {reason}", file=sys.stderr)
        return 2

    print(f"Data: {data.name} ({len(data)} rows, {len(data.domain.attributes)} "
          f"attributes, class '{data.domain.class_var.name}' with "
          f"{len(data.domain.class_var.values)} values)")
    print(f"Stratified {args.folds}-fold cross-validation, seed {args.seed}\n")
    t0 = time.perf_counter()
    results = cross_validate(data, learner_entries(strategies, args.seed),
                             k=args.folds, seed=args.seed)
    print(markdown_table(results, ("ca", "auc", "logloss", "n_rules")))
    print(f"\n({time.perf_counter() - t0:.1f} s)\n")

    model = RuleScoringLearner(strategy=args.show_rules,
                               random_state=args.seed)(data)
    print(f"Rules learned on all {len(data)} rows "
          f"(scored with {args.show_rules.upper()}; q = Laplace confidence):")
    print(format_rules(model.rules, model.domain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
