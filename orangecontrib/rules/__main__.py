"""``python -m orangecontrib.rules``: cross-validate the add-on's learners.

Prints a table of classification accuracy, AUC, log loss and number of rules
for every learner (and scoring strategy) on a data set that ships with Orange,
then the rules of each learner named, fitted on all the data.
"""
from __future__ import annotations

import argparse
import sys
import time

from Orange.data import Table

from .evaluation import Entry, cross_validate, markdown_table
from .evc import EVCRuleLearner
from .logreg import RuleLogisticRegressionLearner
from .rules import format_rules
from .cn2 import cn2_base
from .ruleset import STRATEGIES
from .scoring import RuleScoringLearner
from .roccer import ROCCERLearner
from .slipper import SlipperLearner
from .sls import SLSEnsembleLearner

LEARNERS = ("scoring", "slipper", "evc", "sls", "roccer")
#: also accepted: Orange's own CN2 rules scored by the strategies (slower)
EXTRA_LEARNERS = ("cn2",)


def learner_entries(strategies, seed, learners=LEARNERS, n_permutations=100):
    """The add-on's learners as evaluation entries.

    Fawcett's strategies only differ in how the same rules are resolved, so
    one rule set is fitted per fold and scored with every strategy; the
    EVC rules of a fold serve both the EVC rule model and the logistic
    regression with rules (LRRP-EVC).
    """
    entries = []
    for name, title, base in (("scoring", "Rules", None), ("cn2", "CN2 rules", "cn2")):
        if name not in learners:
            continue

        def per_strategy(model, title=title):
            return {f"{title} + {s.upper()}": model.with_strategy(s) for s in strategies}
        entries.append(Entry(title, RuleScoringLearner(
            base=cn2_base() if base else None, random_state=seed), per_strategy))
    if "slipper" in learners:
        entries.append(Entry("SLIPPER", SlipperLearner(random_state=seed)))
    if "evc" in learners:
        rules = EVCRuleLearner(n_permutations=n_permutations, random_state=seed)
        entries.append(Entry(
            "LR with EVC rules",
            RuleLogisticRegressionLearner(rule_learner=rules, random_state=seed),
            lambda m: {"EVC rules (WVOTE)": m.rule_model,
                       "LR with EVC rules (LRRP-EVC)": m}))
    if "sls" in learners:
        entries.append(Entry("SLS rule-set ensemble",
                             SLSEnsembleLearner(random_state=seed)))
    if "roccer" in learners:
        entries.append(Entry("ROCCER", ROCCERLearner()))
    return entries


def _fit_for_display(name, data, args):
    """``(title, model)`` of one learner named on the command line."""
    seed = args.seed
    if name in ("scoring", "cn2"):
        what = "Rules of the compiled beam search" if name == "scoring" else "Orange's CN2 rules"
        return (f"{what} scored with {args.show_rules.upper()}",
                RuleScoringLearner(base=cn2_base() if name == "cn2" else None,
                                   strategy=args.show_rules, random_state=seed)(data))
    if name == "slipper":
        return "SLIPPER", SlipperLearner(random_state=seed)(data)
    if name == "evc":
        return ("EVC rules",
                EVCRuleLearner(n_permutations=args.permutations, random_state=seed)(data))
    if name == "sls":
        return ("SLS rule-set ensemble, the distinct rules of its rule sets",
                SLSEnsembleLearner(random_state=seed)(data))
    return "ROCCER", ROCCERLearner()(data)


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
    p.add_argument("--learners", default=",".join(LEARNERS),
                   help="comma-separated learners to evaluate: scoring "
                        "(unordered rules scored by each strategy), slipper, evc "
                        "(EVC rules and logistic regression with them), sls (SLS "
                        "rule-set ensembles), roccer; also cn2 (Orange's CN2 "
                        "rules scored by each strategy, slower) "
                        "(default: %(default)s)")
    p.add_argument("--permutations", type=int, default=100,
                   help="class permutations for EVC's Gumbel fit "
                        "(default: %(default)s)")
    p.add_argument("--max-rules", type=int, default=10,
                   help="rules printed per learner (default 10)")
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
    learners = [s.strip().lower() for s in args.learners.split(",") if s.strip()]
    bad = [s for s in learners if s not in LEARNERS + EXTRA_LEARNERS]
    if bad or not learners:
        print(f"unknown learners: {', '.join(bad) or '(none)'}; choose from "
              f"{', '.join(LEARNERS + EXTRA_LEARNERS)}", file=sys.stderr)
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
    results = cross_validate(
        data, learner_entries(strategies, args.seed, learners, args.permutations),
        k=args.folds, seed=args.seed)
    print(markdown_table(results, ("ca", "auc", "logloss", "n_rules")))
    print(f"\n({time.perf_counter() - t0:.1f} s)\n")

    print("Log loss punishes confident mistakes: a model that gives the true "
          "class a probability near 0 on a few rows gets a large log loss even "
          "with a good AUC (rules + VOTE or FIRST: a unanimous vote or a pure "
          "rule scores 1).\n")
    cv = data.domain.class_var
    print(f"Rules of each learner named, fitted on all {len(data)} rows. "
          f"[a/b/...] after a rule: the weighted training rows it covers of "
          f"each class ({', '.join(cv.values)}).\n")
    for name in learners:
        title, model = _fit_for_display(name, data, args)
        rules = model.used_rules()
        shown = rules[:args.max_rules]
        more = f", the first {len(shown)} shown" if len(shown) < len(rules) else ""
        number = model.rule_number()
        named = f" (after each: its {number.name.lower()})" if number is not None else ""
        print(f"## {title}: {len(rules)} rules{more}{named}")
        print(format_rules(shown, model.domain, model=model) if shown else "(none)")
        print("Why row 1 gets its prediction (model.explain): "
              + "\n".join(model.explain(data[:1])[0].describe(model, top=3)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
